import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IPollFunctions,
} from 'n8n-workflow';
import { apiBaseUrl, CREDENTIAL_TYPE } from '../../../credentials/PhpRankApi.credentials';
import { replacedValueError, replacedValues } from './appliedQuery';
import { answerError, canceledWhileSent, canceledWhileWaiting, connectionError, connectionFailure, failedWhileDownError, notReachedError, rateLimitError, targetOf, unexpectedAnswer } from './errors';
import type { RequestTarget } from './errors';
import { answeredByProxy, failedByPhpRank, isAnalysis, pauseUntil, PROXY_STATUSES, rateGateFor, sendWithinLimits } from './rateLimit';
import { isToolUse, TOOL_CALL_MAX_WAIT_SECONDS } from './toolUse';
import { parseSeconds } from './validation';
import { DEFAULT_MAX_WAIT_SECONDS, MAX_WAIT_NAME } from './values';

/** What n8n hands an operation's `run`: the request it prepared from the operation's routing. */
export type RequestData = DeclarativeRestApiSettings.ResultOptions;

export const FORM_HEADERS = { 'Content-Type': 'application/x-www-form-urlencoded' };

// The base URL comes from the credential as it authenticates the request (PhpRankApi.authenticate): an
// expression here would cost every item. ignoreHttpStatusErrors hands every answer to our own error messages;
// redirects are refused so that the key never follows a Location header to another host.
export const REQUEST_DEFAULTS = {
	headers: { Accept: 'application/json' },
	ignoreHttpStatusErrors: true,
	disableFollowRedirect: true,
} satisfies Partial<IHttpRequestOptions>;

// A read is sent again when a proxy answered in phpRank's place or its connection dropped, as repeating it
// changes nothing: after waits that double from the first up to the longest, within the item's wait. A 5xx page
// that no proxy status names (a PHP error page) is sent this many times in all.
const READ_ATTEMPTS = 3;
const FIRST_READ_RETRY_MS = 1000;
const LONGEST_READ_RETRY_MS = 10_000;

/** phpRank answers it at once, changing nothing: it tells whether phpRank is back before a write is sent. */
const PROBE: RequestChange = { method: 'GET', url: '/account' };

type RequestContext = Pick<IExecuteSingleFunctions, 'getNode' | 'getItemIndex' | 'getCredentials' | 'getNodeParameter'> & {
	helpers: Pick<IExecuteSingleFunctions['helpers'], 'httpRequestWithAuthentication'>;
	getExecutionCancelSignal?: () => AbortSignal | undefined;
};

type ContextOutsideRun = ILoadOptionsFunctions | IPollFunctions;

/** Another request in the course of an operation (a lookup before a create, a read before an update). */
interface RequestChange {
	method: 'GET' | 'PUT';
	url: string;
	qs?: IDataObject;
	body?: IDataObject;
	/** What its errors name, when it is not what the operation acts on. */
	target?: RequestTarget;
}

interface PageRequest {
	/** Another list than the one the operation reads, with its query. */
	url?: '/reports' | '/projects';
	query?: IDataObject;
	page: number;
	perPage: number;
	target?: RequestTarget;
	/** Whether the page must say how many records the list holds, as a list that is watched for shrinking must. */
	needsTotal?: boolean;
	/**
	 * The list parameters (sort_by, …) whose replacement the caller makes right itself: Page.replaced tells what
	 * phpRank applied in their place. Any other value phpRank replaced fails the read.
	 */
	mayReplace?: readonly string[];
}

export interface Page {
	records: IDataObject[];
	/** The page asked for. */
	number: number;
	/** The page phpRank says it sent: a cache in front of it may ignore the page asked for. */
	currentPage: number;
	lastPage: number;
	total?: number;
	/** What phpRank applied in place of a parameter of `mayReplace` it was sent, by parameter. */
	replaced: Record<string, string>;
}

interface ClientSettings {
	prepared: IHttpRequestOptions;
	/** How long a request may wait for the rate limit in all; 0 sends without waiting and fails on a 429. */
	maxWaitSeconds: number;
	/** How long a request may wait for an unreachable phpRank in all; 0 fails at once. */
	maxUnreachableWaitSeconds: number;
	/** Worked out only for an error message: naming what an item acts on reads its parameters. */
	targetOf: () => RequestTarget;
	/** Outside a run a list stops on the page it asked for, whatever page a cache sends. */
	acceptsOtherPage: boolean;
}

/**
 * The editor's lists show a 429 at once, with the wait phpRank asked for, and wait out a restart for a little while:
 * the user is looking at the list.
 */
export const EDITOR_LIST_WAITS = { maxWaitSeconds: 0, maxUnreachableWaitSeconds: 20 };

/** The editor's lists and the trigger's polls have no item: they read as item 0, so that their errors read as a run's do. */
export function asItem<T extends ContextOutsideRun>(context: T): T & { getItemIndex: () => number } {
	return Object.assign(Object.create(context) as T, { getItemIndex: () => 0 });
}

/** phpRank's web address, where its report pages are: the Base URL without /api/v1, a user name or a password. */
function siteUrl(baseUrl: unknown): string {
	const site = apiBaseUrl(baseUrl).slice(0, -'/api/v1'.length);
	try {
		const url = new URL(site);
		url.username = '';
		url.password = '';
		url.search = '';
		url.hash = '';
		return url.href.replace(/\/+$/, '');
	} catch {
		return site;
	}
}

/** What each execution keeps while it runs, under its cancel signal: it goes when the execution does. */
const keptForExecution = new WeakMap<AbortSignal, Map<string, unknown>>();

function isPage(body: IDataObject): boolean {
	const meta = body.meta as IDataObject | undefined;
	return (
		Array.isArray(body.data) &&
		typeof meta === 'object' &&
		meta !== null &&
		Number.isInteger(meta.current_page) &&
		Number.isInteger(meta.last_page) &&
		(meta.total === undefined || Number.isInteger(meta.total))
	);
}

/**
 * The phpRank server as one item (or one editor list, one trigger poll) talks to it: every request goes through
 * here. It knows the server, the rate-limit wait allowed, the cancel signal and what to name in errors. A 429 is
 * waited out and the analyses in flight are limited (rateLimit.ts), a read a proxy answered is sent again, and
 * any other failure ends the item, so that a create or update is never applied twice.
 */
export class PhpRankClient {
	/**
	 * For an item of a run. n8n hands an operation's prepared request to its `operations.pagination` when
	 * `send.paginate` is set: that is how every operation's request reaches the client, errors and 429s included.
	 */
	static forItem(context: IExecutePaginationFunctions, requestData: RequestData): PhpRankClient {
		const options = context.getNodeParameter('options', {}) as IDataObject;
		const maxWaitSeconds = parseSeconds(context, MAX_WAIT_NAME, options.maxWait ?? DEFAULT_MAX_WAIT_SECONDS);
		const waitSeconds = isToolUse(context) ? toolCallWait(maxWaitSeconds) : () => maxWaitSeconds;
		return new PhpRankClient(context, {
			prepared: requestData.options as IHttpRequestOptions,
			// Read as each request starts waiting: a tool call's requests share what is left of its wait.
			get maxWaitSeconds() {
				return waitSeconds();
			},
			get maxUnreachableWaitSeconds() {
				return waitSeconds();
			},
			targetOf: () => targetOf(context),
			acceptsOtherPage: false,
		});
	}

	/** For the editor's lists and the trigger's polls, the request built as a run's engine builds it. */
	static outsideRun(
		context: ContextOutsideRun,
		{ target, maxWaitSeconds, maxUnreachableWaitSeconds }: Pick<ClientSettings, 'maxWaitSeconds' | 'maxUnreachableWaitSeconds'> & { target: RequestTarget },
	): PhpRankClient {
		return new PhpRankClient(asItem(context) as unknown as RequestContext, {
			prepared: { ...REQUEST_DEFAULTS, method: 'GET', url: '' },
			maxWaitSeconds,
			maxUnreachableWaitSeconds,
			targetOf: () => target,
			acceptsOtherPage: true,
		});
	}

	/**
	 * The same item's client for another prepared request, whose errors name `target`: one create among the many an
	 * item sends (Site > Audit analyzes each page of a site).
	 */
	forRequest(prepared: IHttpRequestOptions, target: RequestTarget): PhpRankClient {
		// Over the item's settings, not a copy of them: a tool call's wait is read as each request starts.
		const settings = Object.create(this.settings) as ClientSettings;
		settings.prepared = prepared;
		settings.targetOf = () => target;
		return new PhpRankClient(this.context, settings);
	}

	/** The phpRank server, named by the credential that reaches it: items and executions that share it share its limits. */
	readonly server: string;

	private constructor(
		private readonly context: RequestContext,
		private readonly settings: ClientSettings,
	) {
		const credential = context.getNode().credentials?.[CREDENTIAL_TYPE];
		this.server = `${CREDENTIAL_TYPE}:${credential?.id ?? credential?.name ?? ''}`;
	}

	isCancelled(): boolean {
		return this.context.getExecutionCancelSignal?.()?.aborted === true;
	}

	/** The request n8n prepared, or another in its course: to the same phpRank, with the same timeout and proxy. */
	async request(change?: RequestChange): Promise<IDataObject> {
		return await this.send(change === undefined ? this.settings.prepared : this.changed(change), change?.target);
	}

	/** The query of the list n8n prepared (sort_by, sort, filters), as sent with each of its pages. */
	listQuery(): IDataObject {
		return (this.settings.prepared.qs ?? {}) as IDataObject;
	}

	/**
	 * One page of a list, its envelope checked, that phpRank applied what it was sent (its links say; see
	 * appliedQuery.ts), and in a run that it is the page asked for and that a page before the last is full: a cache
	 * in front of phpRank that ignores the page number would otherwise repeat page 1 as every page, and a short page
	 * would hide records.
	 */
	async readPage({ url, query, page, perPage, target, needsTotal = false, mayReplace = [] }: PageRequest): Promise<Page> {
		const list = url === undefined ? this.settings.prepared : this.changed({ method: 'GET', url });
		const qs = { ...list.qs, ...query, per_page: perPage, page };
		const body = await this.send({ ...list, qs }, target);
		if (!isPage(body)) throw unexpectedAnswer(this.context, 'page of records ("data" and "meta")');
		const replaced: Record<string, string> = {};
		for (const replacement of replacedValues(qs, body)) {
			if (!mayReplace.includes(replacement.parameter)) throw replacedValueError(this.context, replacement);
			replaced[replacement.parameter] = replacement.applied;
		}
		const meta = body.meta as IDataObject;
		if (needsTotal && meta.total === undefined) throw unexpectedAnswer(this.context, 'total in the page\'s "meta"');
		const records = body.data as IDataObject[];
		const lastPage = meta.last_page as number;
		if (!this.settings.acceptsOtherPage) {
			if (meta.current_page !== page) throw unexpectedAnswer(this.context, `page ${page} (it sent page ${String(meta.current_page)})`);
			if (page < lastPage && records.length < perPage) {
				throw unexpectedAnswer(this.context, `full page ${page} of ${lastPage} (it sent ${records.length} of ${perPage} records)`);
			}
		}
		return { records, number: page, currentPage: meta.current_page as number, lastPage, total: meta.total as number | undefined, replaced };
	}

	/** Waits as long as phpRank's quickest analysis took: a create a proxy cut off may still be running. */
	async waitAnalysisTime(): Promise<void> {
		await pauseUntil(Date.now() + rateGateFor(this.server).concurrency.quickestMs, () => this.isCancelled());
	}

	/** phpRank's web address, read once per execution: reading a credential decrypts it, and every item asks. */
	async site(): Promise<string> {
		return await this.ofExecution('site', async () => siteUrl((await this.context.getCredentials(CREDENTIAL_TYPE)).baseUrl));
	}

	/**
	 * What the items of one execution share about this phpRank server, made by the first that asks. Outside an
	 * execution (an editor list, a trigger poll) nothing is shared: each call makes its own.
	 */
	ofExecution<T>(key: string, make: () => T): T {
		const signal = this.context.getExecutionCancelSignal?.();
		if (signal === undefined) return make();
		let kept = keptForExecution.get(signal);
		if (kept === undefined) keptForExecution.set(signal, (kept = new Map()));
		const keyOnServer = `${this.server}\n${key}`;
		if (!kept.has(keyOnServer)) kept.set(keyOnServer, make());
		return kept.get(keyOnServer) as T;
	}

	private changed({ method, url, qs = {}, body }: RequestChange): IHttpRequestOptions {
		const headers: IDataObject = { ...(this.settings.prepared.headers as IDataObject | undefined) };
		const options: IHttpRequestOptions = { ...this.settings.prepared, method, url, qs, headers };
		if (body === undefined) {
			delete options.body;
			delete headers['Content-Type'];
		} else {
			options.body = body;
		}
		return options;
	}

	/**
	 * Sends a request until phpRank answers it. A request that never reached phpRank is sent again once it can be
	 * reached (reachability.ts); a read is sent again after a proxy's answer or a dropped connection; a 429 is waited
	 * out (rateLimit.ts). After phpRank's own 5xx a probe tells whether phpRank failed this request only (its error
	 * stands) or fails every request: then the request waits for phpRank as for a restart, and is sent again, or,
	 * a create, handed back for a lookup. Anything else that may have reached phpRank goes back to the caller as an
	 * error, so that a write is never carried out twice.
	 */
	private async send(options: IHttpRequestOptions, target?: RequestTarget): Promise<IDataObject> {
		const { context } = this;
		const targetOfRequest = target === undefined ? this.settings.targetOf : () => target;
		const isCancelled = () => this.isCancelled();
		const isRead = (options.method ?? 'GET') === 'GET';
		const { reachability } = rateGateFor(this.server);
		const startedAt = Date.now();
		const deadline = startedAt + this.settings.maxUnreachableWaitSeconds * 1000;
		let unreachableSince: number | undefined;
		// The request's own 5xx from phpRank, until a probe tells whether phpRank failed it alone: one sent after `since`.
		let failed: { response: IN8nHttpFullResponse; since: number; whileDown: boolean } | undefined;
		// How many times the request itself was sent and answered or dropped, probes of a write and refusals aside.
		let attempt = 0;
		const ownFailure = (response: IN8nHttpFullResponse) =>
			answerError(context, response, { target: targetOfRequest(), options, attempts: attempt, waitedMs: Date.now() - startedAt });
		for (;;) {
			const turn = await reachability.waitTurn({ deadline, isCancelled }, unreachableSince ?? startedAt);
			if (turn === 'spent') {
				if (isCancelled()) throw canceledWhileWaiting(context);
				throw notReachedError(context, reachability.lastFailure, {
					host: new URL(await this.site()).host,
					waitedMs: Math.max(reachability.downForMs(), Date.now() - (unreachableSince ?? Date.now())),
					maxWaitSeconds: this.settings.maxUnreachableWaitSeconds,
					failedRequest: failed === undefined ? undefined : options,
				});
			}
			if (turn === 'send' && failed !== undefined) {
				if (!failed.whileDown && !reachability.foundDownSince(failed.since)) throw ownFailure(failed.response);
				// phpRank stores nothing while it fails every request: the request it failed then did nothing. A create
				// is still settled by a lookup (create.ts), as the first create that failed in an outage could be stored.
				if (options.method === 'POST') throw failedWhileDownError(context, failed.response, { target: targetOfRequest(), options });
				failed = undefined;
			}
			const wasProbe = turn === 'probe';
			// A write waits for phpRank to answer a read first: a proxy's 502 to the write itself would leave it unsettled.
			// A read that phpRank failed, or while it fails every request, would tell nothing of phpRank as a whole.
			const probesItself = isRead && failed === undefined && !failedByPhpRank(reachability.lastFailure);
			const request = wasProbe && !probesItself ? this.changed(PROBE) : options;
			let sent: Awaited<ReturnType<PhpRankClient['sendWithinLimits']>> | undefined;
			try {
				sent = await this.sendWithinLimits(request, targetOfRequest, { heldBack: () => !wasProbe && reachability.isDown && !isCancelled() });
			} catch (error) {
				// A probe that could not tell (a 429 beyond the wait) leaves the request's own failure as it was.
				throw failed === undefined ? error : ownFailure(failed.response);
			} finally {
				// A probe that ended in an error of its own (a 429 beyond its wait) leaves the probing to another request.
				if (wasProbe && sent === undefined) reachability.probeAbandoned();
			}
			const { sentAt } = sent;
			if ('failure' in sent) {
				const { failure } = sent;
				if (failure instanceof HeldBack) continue;
				const kind = connectionFailure(failure).kind;
				if (kind === 'notReached' && !isCancelled()) {
					reachability.unreachable(sentAt, { wasProbe, failure });
					unreachableSince ??= sentAt;
					continue;
				}
				if (wasProbe) reachability.probeAbandoned();
				// n8n aborts the requests of an execution it stops: the stop, not the connection, ended this one.
				if (isCancelled()) throw canceledWhileSent(context, { target: targetOfRequest(), options: request });
				if (failed !== undefined && kind !== 'dropped') throw ownFailure(failed.response);
				if (request === options) attempt++;
				// A write's probe is a read too: a dropped one left the write unsent.
				if (kind !== 'dropped' || !(isRead || request !== options) || isCancelled() || Date.now() >= deadline) {
					throw connectionError(context, failure, { target: targetOfRequest(), options: request });
				}
				await pauseUntil(Date.now() + readRetryPauseMs(Math.max(1, attempt)), isCancelled);
				continue;
			}
			const { response } = sent;
			// nginx answers 502 at once while PHP is down (503 when it is saturated); a 504 comes from a PHP that works slowly.
			const saysDown = answeredByProxy(response) && (response.statusCode === 502 || response.statusCode === 503);
			const failedByIt = failedByPhpRank(response);
			const whileDown = reachability.isKnownDown;
			let failedSince = 0;
			if (saysDown || (failedByIt && request !== options)) reachability.unreachable(sentAt, { wasProbe, failure: response });
			else if (failedByIt) {
				if (wasProbe) reachability.probeAbandoned();
				failedSince = reachability.failed(Date.now(), { failure: response });
			} else reachability.answered(sentAt, { wasProbe });
			if (request !== options) continue;
			attempt++;
			const { statusCode, body } = response;
			if (statusCode >= 200 && statusCode < 300 && typeof body === 'object' && body !== null && !Buffer.isBuffer(body)) {
				return body as IDataObject;
			}
			if (failedByIt && !isCancelled()) {
				failed = { response, since: failedSince, whileDown };
				unreachableSince ??= Date.now();
				continue;
			}
			const sentAgain =
				isRead && answeredByProxy(response) && !isCancelled() && Date.now() < deadline && (statusCode in PROXY_STATUSES || attempt < READ_ATTEMPTS);
			if (!sentAgain) throw answerError(context, response, { target: targetOfRequest(), options, attempts: attempt, waitedMs: Date.now() - startedAt });
			unreachableSince ??= saysDown ? sentAt : undefined;
			// While phpRank is down, the next probe is the wait; a slow phpRank behind a 504 is given a pause.
			if (!saysDown) await pauseUntil(Date.now() + readRetryPauseMs(attempt), isCancelled);
		}
	}

	/** One request through phpRank's rate limit (a 429 waited out within the item's wait), its answer or why none came. */
	private async sendWithinLimits(
		request: IHttpRequestOptions,
		targetOfRequest: () => RequestTarget,
		{ heldBack }: { heldBack: () => boolean },
	): Promise<{ response: IN8nHttpFullResponse; sentAt: number } | { failure: unknown; sentAt: number }> {
		const { context } = this;
		const { maxWaitSeconds } = this.settings;
		let sentAt = Date.now();
		let failure: unknown;
		const sendOnce = async () => {
			sentAt = Date.now();
			// phpRank went down while the request waited for its turn.
			if (heldBack()) throw new HeldBack();
			return (await context.helpers.httpRequestWithAuthentication
				.call(context as IExecuteSingleFunctions, CREDENTIAL_TYPE, { ...request, returnFullResponse: true })
				.catch((error: unknown) => {
					failure = error;
					throw error;
				})) as IN8nHttpFullResponse;
		};
		const response = await sendWithinLimits(sendOnce, {
			server: this.server,
			analyzes: isAnalysis(request),
			maxWaitSeconds,
			isCancelled: () => this.isCancelled(),
			waitTooLong: (askedSeconds) => rateLimitError(context, targetOfRequest(), { askedSeconds, maxWaitSeconds }),
			cancelled: () => canceledWhileWaiting(context),
		}).catch((error: unknown) => {
			if (error instanceof HeldBack) return error;
			if (failure === undefined || error !== failure) throw error;
			return undefined;
		});
		return response === undefined || response instanceof HeldBack ? { failure: response ?? failure, sentAt } : { response, sentAt };
	}
}

/**
 * A tool call's wait for phpRank, in seconds from now: each request within Max Wait, all of them together within
 * TOOL_CALL_MAX_WAIT_SECONDS from the call's start, so that the MCP client gets an answer before it gives up.
 */
function toolCallWait(maxWaitSeconds: number): () => number {
	const callEndsAt = Date.now() + TOOL_CALL_MAX_WAIT_SECONDS * 1000;
	return () => Math.min(maxWaitSeconds, Math.max(0, (callEndsAt - Date.now()) / 1000));
}

/** A request not sent after all: phpRank became unreachable while it waited to be sent. */
class HeldBack {}

function readRetryPauseMs(attempt: number): number {
	return Math.min(LONGEST_READ_RETRY_MS, FIRST_READ_RETRY_MS * 2 ** (attempt - 1));
}

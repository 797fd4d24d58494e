import { NodeApiError } from 'n8n-workflow';
import type { IDataObject, IExecuteSingleFunctions, IHttpRequestOptions, IN8nHttpFullResponse, JsonObject } from 'n8n-workflow';
import { answeredByProxy, failedByPhpRank, isAnalysis, isHtml, PROXY_STATUSES } from './rateLimit';
import { nodeForErrors } from './secrets';
import { isToolUse, TOOL_CALL_MAX_WAIT_SECONDS } from './toolUse';

export type ErrorContext = Pick<IExecuteSingleFunctions, 'getNode' | 'getItemIndex'>;

type ParameterContext = ErrorContext & Pick<IExecuteSingleFunctions, 'getNodeParameter'>;

interface Failure {
	message: string;
	description: string;
}

/** What a request acts on, as the messages about it name it ("Report 42", "The report list"), and the operation. */
export interface RequestTarget {
	name: string;
	operation: string;
}

const WRONG_ADDRESS_HINT =
	'Check the Base URL in the phpRank credential: it must be the address of your phpRank installation, e.g. https://seo.example.com or https://example.com/phprank.';

const SERVER_FAULT_HINT =
	'This is a fault on the phpRank server or a proxy in front of it; try again later or check its logs.';

/** What a failed item's message ends with: whether running its row again is safe, all Continue On Fail keeps. */
const SAFE_AGAIN = 'running this row again is safe';

/** The one write that is not safe to send twice, a create, is safe again when the row looks its URL up first. */
function safeAgain(options: Pick<IHttpRequestOptions, 'method'>): string {
	return options.method === 'POST' ? `${SAFE_AGAIN} with Return the Existing Report` : SAFE_AGAIN;
}

/** What a write may have done when its answer did not come ("may have created the report"); undefined for a read. */
function mayHaveDone(target: RequestTarget, options: IHttpRequestOptions): string | undefined {
	if (options.method === 'POST') return 'may have created the report';
	if (isAnalysis(options)) return `may have re-analyzed ${target.name}`;
	if (options.method === 'DELETE') return `may have deleted ${target.name}`;
	if (options.method === 'PUT' || options.method === 'PATCH') return `may have updated ${target.name}`;
	return undefined;
}

const hostNotFound = (host: string) => `phpRank's host name ${host} could not be looked up`;
const noRoute = (host: string) => `phpRank at ${host} was unreachable (no network route)`;

/** The codes of a connection that never reached phpRank, the request known to have done nothing, as a message says them. */
const NOT_REACHED: Record<string, (host: string) => string> = {
	ECONNREFUSED: (host) => `phpRank at ${host} refused the connection`,
	ENOTFOUND: hostNotFound,
	EAI_AGAIN: hostNotFound,
	EHOSTUNREACH: noRoute,
	ENETUNREACH: noRoute,
};

/** Why a request got no answer: it never reached phpRank, it timed out, or its connection ended. */
export function connectionFailure(error: unknown): { code: string; kind: 'notReached' | 'timedOut' | 'dropped' } {
	const cause = error instanceof NodeApiError && error.cause ? error.cause : error;
	const code = String((cause as { code?: unknown })?.code ?? '');
	if (code in NOT_REACHED) return { code, kind: 'notReached' };
	const timedOut = code === 'ECONNABORTED' || code === 'ETIMEDOUT' || /timeout/i.test(String((cause as Error)?.message));
	return { code, kind: timedOut ? 'timedOut' : 'dropped' };
}

// phpRank passes on its HTTP client's own words when it cannot fetch the page it is asked to analyze.
const PAGE_FETCH_FAILURE = /cURL error \d+|(Client|Server) error: `[A-Z]+ /;

// Guzzle's words for a page that answered an error status, followed by the start of that page (its HTML, as a rule).
const PAGE_ANSWERED = /^(?:Client|Server) error: `([A-Z]+) ([^`]+)` resulted in a `([^`]+)` response:?([\s\S]*)$/;

const REASON_LENGTH = 200;
const EXCERPT_LENGTH = 100;

/**
 * A request that failed without phpRank's answer (a dropped connection, a timeout, a proxy answering in its
 * place): phpRank may or may not have carried it out.
 */
export class UnansweredRequestError extends NodeApiError {
	// n8n's engine passes a node's error on unchanged only under the name NodeApiError or NodeOperationError.
	override name = 'NodeApiError';
}

export function listTarget(resource: 'report' | 'project'): RequestTarget {
	return { name: `The ${resource} list`, operation: 'getAll' };
}

function parameterOrNothing(context: ParameterContext, name: string): unknown {
	try {
		return context.getNodeParameter(name, '', { extractValue: true });
	} catch {
		return '';
	}
}

// Reads parameters, which costs expression evaluations: called only once there is an error to word.
export function targetOf(context: ParameterContext): RequestTarget {
	const resource = parameterOrNothing(context, 'resource');
	const operation = String(parameterOrNothing(context, 'operation'));
	if (operation === 'getAll') return listTarget(resource === 'project' ? 'project' : 'report');
	if (resource === 'project') return { name: `Project "${String(parameterOrNothing(context, 'projectName'))}"`, operation };
	if (operation === 'create') return { name: `The report for ${String(parameterOrNothing(context, 'url'))}`, operation };
	// Re-Analyze is an update of the report: its errors say what an update's say.
	return { name: `Report ${String(parameterOrNothing(context, 'reportId'))}`, operation: operation === 'reanalyze' ? 'update' : operation };
}

function isJsonObject(body: unknown): body is IDataObject {
	return typeof body === 'object' && body !== null && !Buffer.isBuffer(body);
}

function describeBody(body: unknown): string {
	if (body === undefined || body === null || body === '') return 'an empty body';
	if (isHtml(body)) return 'an HTML page';
	return 'an answer that is not JSON';
}

function serverMessage(body: unknown): string | undefined {
	return isJsonObject(body) && typeof body.message === 'string' ? body.message : undefined;
}

function validationMessages(body: unknown): IDataObject | undefined {
	const messages = isJsonObject(body) ? body.message : undefined;
	return isJsonObject(messages) && !Array.isArray(messages) ? messages : undefined;
}

/**
 * A text of phpRank's as plain words: HTML tags (one cut off at the end too) and Guzzle's "(truncated...)" dropped,
 * whitespace collapsed, at most `length` characters.
 */
function plainText(text: string, length = REASON_LENGTH): string {
	const plain = text
		.replace(/<(script|style)\b[\s\S]*?(<\/\1>|$)/gi, ' ')
		.replace(/<[^>]*(>|$)/g, ' ')
		.replace(/\s*\(truncated\.\.\.\)\s*$/, '')
		.replace(/&nbsp;/g, ' ')
		.replace(/&quot;/g, '"')
		.replace(/&#0?39;/g, "'")
		.replace(/&amp;/g, '&')
		.replace(/\s+/g, ' ')
		.trim();
	return plain.length > length ? `${plain.slice(0, length - 1).trimEnd()}…` : plain;
}

function listMessages(messages: IDataObject): string {
	return Object.entries(messages)
		.map(([field, texts]) => `${field}: ${([] as unknown[]).concat(texts).map((text) => plainText(String(text))).join(' ')}`)
		.join('; ');
}

/** Why phpRank could not fetch the page, in words: "the page answered 404 Not Found (GET http://…)", and the page's own words. */
function pageFetchReason(failure: string): { reason: string; pageSaid?: string } {
	const answered = PAGE_ANSWERED.exec(failure.trim());
	if (answered === null) return { reason: plainText(failure) };
	const [, method, url, status, page] = answered;
	const pageSaid = plainText(page, EXCERPT_LENGTH);
	return { reason: `the page answered ${plainText(status)} (${method} ${plainText(url)})`, pageSaid: pageSaid || undefined };
}

function describeRejection(body: unknown): Failure {
	const messages = validationMessages(body);
	const urlMessages = ([] as unknown[]).concat(messages?.url ?? []).map(String);
	const fetchFailure = urlMessages.find((text) => PAGE_FETCH_FAILURE.test(text));
	if (fetchFailure !== undefined) {
		const { reason, pageSaid } = pageFetchReason(fetchFailure);
		return {
			message: `phpRank could not fetch the page to analyze it (422): ${reason}`,
			description: `The URL is well-formed, but the phpRank server could not load it: the host may not exist, refuse connections, or answer with an error. Check that the page opens from the phpRank server.${pageSaid === undefined ? '' : ` The page began: "${pageSaid}".`}`,
		};
	}
	return {
		message: `phpRank rejected the input (422): ${messages ? listMessages(messages) : (serverMessage(body) ?? 'validation failed')}`,
		description: 'Fix the fields named above and run the node again.',
	};
}

function describeFailure(target: RequestTarget, response: IN8nHttpFullResponse, options: IHttpRequestOptions): Failure {
	const { statusCode, body } = response;
	const said = serverMessage(body);
	if (statusCode >= 300 && statusCode < 400) {
		const location = (response.headers as IDataObject | undefined)?.location;
		const target = location === undefined || location === null ? undefined : String(location).split('?')[0];
		const toLogin = target !== undefined && /\/login\/?$/.test(target);
		return {
			message: toLogin
				? `phpRank redirected to its login page (${statusCode}): the API key was refused or the request did not reach the API`
				: `phpRank answered with a redirect (${statusCode}${target ? ` to ${target}` : ''}) instead of JSON`,
			description: `${WRONG_ADDRESS_HINT} Redirects are not followed, so the API key is never sent anywhere else.`,
		};
	}
	if ([413, 414, 431].includes(statusCode)) {
		return {
			message: `The request was too large for phpRank (${statusCode})`,
			description: 'A search text, project name or URL is longer than the server accepts; shorten it.',
		};
	}
	if (!isJsonObject(body)) {
		const kind = describeBody(body);
		return statusCode >= 500
			? { message: `phpRank failed to process the request (${statusCode}) and answered with ${kind}; ${safeAgain(options)}`, description: SERVER_FAULT_HINT }
			: {
					message: `phpRank answered ${statusCode} with ${kind} instead of JSON`,
					description: `The base URL probably points at the wrong place. ${WRONG_ADDRESS_HINT}`,
				};
	}
	switch (statusCode) {
		case 401:
			return {
				message: 'phpRank refused the API key (401 Unauthenticated)',
				description:
					'Check the API key in the phpRank credential. It is shown on the API page of your phpRank account and changes when it is regenerated.',
			};
		case 403:
			return target.operation === 'update'
				? {
						message: `${target.name} does not exist or does not belong to the account of this API key (403)`,
						description: said ?? 'This action is unauthorized.',
					}
				: {
						message: `phpRank refused the request (403): ${said ?? 'This action is unauthorized.'}`,
						description: "The API key's account may lack the permission or plan for this.",
					};
		case 404:
			return {
				message: `${target.name} was not found (404)`,
				description:
					target.operation === 'getAll' ? `phpRank has no list at this address. ${WRONG_ADDRESS_HINT}` : (said ?? 'Resource not found.'),
			};
		case 422:
			return describeRejection(body);
		default:
			return statusCode >= 500
				? { message: `phpRank failed to process the request (${statusCode}): ${(said ?? 'no message').replace(/\.$/, '')}; ${safeAgain(options)}`, description: SERVER_FAULT_HINT }
				: { message: `phpRank answered ${statusCode}: ${said ?? 'no message'}`, description: 'The request was not accepted.' };
	}
}

/** A proxy answered in phpRank's place: what a write may have done, or how often a read was sent. */
function proxyAnswered(
	target: RequestTarget,
	options: IHttpRequestOptions,
	{ status, attempts, waitedMs }: { status: string; attempts: number; waitedMs: number },
): Failure {
	const done = mayHaveDone(target, options);
	const why =
		'The proxy answers on its own when phpRank takes too long, is overloaded or restarts, and phpRank usually goes on and carries out a request it received.';
	if (done === undefined) {
		const times = attempts > 1 ? `, ${attempts} times over ${spanText(waitedMs)}` : '';
		return {
			message: `A proxy in front of phpRank answered ${status} in its place${times}; ${SAFE_AGAIN}`,
			description: `${why} The read was sent again within Options > Max Wait.`,
		};
	}
	const advice =
		options.method === 'POST'
			? 'To run this item again without a second report, set If the URL Already Has a Report to Return the Existing Report: the URL is then looked up first.'
			: 'Running the item again sets the same values once more (a re-analysis analyzes the page once more; a deleted record is then not found).';
	return { message: `phpRank ${done}: a proxy in front of it answered ${status} in its place; ${safeAgain(options)}`, description: `${why} ${advice}` };
}

export function answerError(
	context: ErrorContext,
	response: IN8nHttpFullResponse,
	{ target, options, attempts = 1, waitedMs = 0 }: { target: RequestTarget; options: IHttpRequestOptions; attempts?: number; waitedMs?: number },
): NodeApiError {
	const byProxy = answeredByProxy(response);
	const { message, description } = byProxy
		? proxyAnswered(target, options, { status: statusText(response.statusCode), attempts, waitedMs })
		: describeFailure(target, response, options);
	const details = isJsonObject(response.body) ? response.body : { body: String(response.body ?? '').slice(0, 500) };
	if (byProxy) recordUnsettledWrite(context, mayHaveDone(target, options));
	const ErrorClass = byProxy ? UnansweredRequestError : NodeApiError;
	return new ErrorClass(nodeForErrors(context.getNode()), details as JsonObject, {
		message,
		description,
		httpCode: String(response.statusCode),
		itemIndex: context.getItemIndex(),
	});
}

function statusText(statusCode: number): string {
	return `${statusCode}${PROXY_STATUSES[statusCode] ? ` ${PROXY_STATUSES[statusCode]}` : ''}`;
}

function secondsText(seconds: number): string {
	return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** A wait as a person says it: "40 seconds", "5 minutes", "2 hours". */
function spanText(ms: number): string {
	const seconds = Math.round(ms / 1000);
	if (seconds < 120) return secondsText(seconds);
	const minutes = Math.round(seconds / 60);
	if (minutes < 120) return `${minutes} minutes`;
	return `${Math.round(minutes / 60)} hours`;
}

/** n8n's request Timeout is in milliseconds, and one under a second must not read as "0 seconds". */
function durationText(ms: number): string {
	return ms < 1000 ? `${Math.round(ms)} ms` : secondsText(Math.round(ms / 100) / 10);
}

// How soon a tool call's error tells the model to call again when phpRank cannot be reached: a restart is over in
// seconds, and the call has waited already.
const TOOL_RETRY_UNREACHABLE_SECONDS = 30;

// phpRank's rate-limit window: when it says nothing of the wait, the limit is spent for at most this long.
const RATE_WINDOW_SECONDS = 60;

const TOOL_CALL_WAIT = `A tool call waits for phpRank at most ${TOOL_CALL_MAX_WAIT_SECONDS} seconds in all (less when Options > Max Wait is shorter), so that an MCP client, which gives up after 60 seconds, gets this answer.`;

/** A tool call's write that went unanswered, by the call's context: what phpRank may have done ("may have created the report"). */
const unsettledWrites = new WeakMap<ErrorContext, string>();

function recordUnsettledWrite(context: ErrorContext, done: string | undefined): void {
	if (done !== undefined && isToolUse(context)) unsettledWrites.set(context, done);
}

/**
 * What a tool call that ends waiting is known not to have done ("no report was created"), or may have done after all
 * (an earlier write of it went unanswered); undefined for a read, where it says nothing.
 */
function toolCallOutcome(context: ParameterContext): string | undefined {
	const unsettled = unsettledWrites.get(context);
	if (unsettled !== undefined) return `phpRank ${unsettled} already (a request of this call got no answer)`;
	const { name, operation } = targetOf(context);
	if (operation === 'create') return 'no report was created or changed';
	if (operation === 'update') return `${name} was not changed`;
	if (operation === 'delete') return `${name} was not deleted`;
	return undefined;
}

/** A tool call's error: what phpRank waits for and how long, what the call did not do, and when to call again. */
function toolCallWaitError(context: ParameterContext, { waitingFor, retrySeconds, httpCode }: { waitingFor: string; retrySeconds: number; httpCode: string }): NodeApiError {
	const outcome = toolCallOutcome(context);
	return new NodeApiError(nodeForErrors(context.getNode()), {} as JsonObject, {
		message: `${waitingFor}${outcome === undefined ? '' : `; ${outcome}`}. Try again in ${secondsText(retrySeconds)}.`,
		description: TOOL_CALL_WAIT,
		httpCode,
		itemIndex: context.getItemIndex(),
	});
}

export function rateLimitError(
	context: ParameterContext,
	target: RequestTarget,
	{ askedSeconds, maxWaitSeconds }: { askedSeconds: number; maxWaitSeconds: number },
): NodeApiError {
	if (isToolUse(context)) {
		const asked = askedSeconds > 0 ? `phpRank asks to wait ${secondsText(askedSeconds)}` : 'phpRank is still at its limit';
		return toolCallWaitError(context, {
			waitingFor: `phpRank's rate limit is spent (429 Too Many Attempts): ${asked}, longer than a tool call waits`,
			retrySeconds: askedSeconds > 0 ? askedSeconds : RATE_WINDOW_SECONDS,
			httpCode: '429',
		});
	}
	const asked =
		askedSeconds > 0
			? `the server asked to wait ${secondsText(askedSeconds)}`
			: 'the server is still at its limit';
	return new NodeApiError(nodeForErrors(context.getNode()), {} as JsonObject, {
		message: `phpRank's rate limit was reached (429 Too Many Attempts): ${asked}; ${SAFE_AGAIN}`,
		description:
			maxWaitSeconds > 0
				? `That is beyond the ${secondsText(maxWaitSeconds)} this item may wait (Options > Max Wait). Nothing was changed for ${target.name}; raise the wait, or spread the items over time with the node's batching settings.`
				: `Waiting is off (Options > Max Wait is 0). Nothing was changed for ${target.name}.`,
		httpCode: '429',
		itemIndex: context.getItemIndex(),
	});
}

export function connectionError(
	context: ErrorContext,
	error: unknown,
	{ target, options }: { target: RequestTarget; options: IHttpRequestOptions },
): UnansweredRequestError {
	const { code, kind } = connectionFailure(error);
	const done = mayHaveDone(target, options);
	recordUnsettledWrite(context, done);
	// NodeApiError replaces any message that names a network error code with its own generic text,
	// so the code goes into the description.
	const failure =
		kind === 'timedOut'
			? `phpRank did not answer within ${durationText(options.timeout ?? 300_000)}`
			: kind === 'notReached'
				? 'phpRank could not be reached'
				: 'The connection to phpRank ended before it answered';
	const detail = code ? ` (${code})` : '';
	return new UnansweredRequestError(nodeForErrors(context.getNode()), {} as JsonObject, {
		message: `${failure}; ${done === undefined ? '' : `${kind === 'timedOut' ? 'it' : 'phpRank'} ${done}: `}${safeAgain(options)}`,
		description:
			done === undefined
				? `No answer came about ${target.name}${detail}.`
				: `No answer came about ${target.name}${detail}. phpRank may have carried it out before the connection ended, so it was not sent again.`,
		httpCode: 'none',
		itemIndex: context.getItemIndex(),
	});
}

/** What phpRank does while it answers every request with its own 5xx, as a message says it. */
const failingAsWhole = (statusCode: number) => `answered every request with ${statusCode} (its database or PHP failing as a whole)`;

/**
 * phpRank could not be reached, by the item's request or, while it waited, by the others: its wait is spent. Nothing
 * reached phpRank, or phpRank failed every request and stored nothing, so running the row again is safe.
 */
export function notReachedError(
	context: ParameterContext,
	failure: unknown,
	{
		host,
		waitedMs,
		maxWaitSeconds,
		failedRequest,
	}: { host: string; waitedMs: number; maxWaitSeconds: number; failedRequest?: IHttpRequestOptions },
): NodeApiError {
	const during = waitedMs >= 1000 ? ` for ${spanText(waitedMs)}` : '';
	const waited =
		maxWaitSeconds > 0
			? `The item waited for phpRank as long as Options > Max Wait allows (${secondsText(maxWaitSeconds)}, at most a minute for a server that has not answered since n8n started).`
			: 'Waiting is off (Options > Max Wait is 0).';
	if (failedByPhpRank(failure) && isToolUse(context)) {
		return toolCallWaitError(context, {
			waitingFor: `phpRank at ${host} ${failingAsWhole(failure.statusCode)}${during}`,
			retrySeconds: TOOL_RETRY_UNREACHABLE_SECONDS,
			httpCode: String(failure.statusCode),
		});
	}
	if (failedByPhpRank(failure)) {
		const create = failedRequest?.method === 'POST' ? ' A create is sent again only once its URL is looked up.' : '';
		return new NodeApiError(nodeForErrors(context.getNode()), {} as JsonObject, {
			message: `phpRank at ${host} ${failingAsWhole(failure.statusCode)}${during}; ${failedRequest === undefined ? SAFE_AGAIN : safeAgain(failedRequest)}`,
			description: `${waited} phpRank stores nothing while it fails every request.${create} Check phpRank's database and its logs.`,
			httpCode: String(failure.statusCode),
			itemIndex: context.getItemIndex(),
		});
	}
	const proxyAnswer = isJsonObject(failure) && typeof failure.statusCode === 'number' ? failure.statusCode : undefined;
	const { code } = proxyAnswer === undefined ? connectionFailure(failure) : { code: '' };
	if (isToolUse(context)) {
		const why =
			proxyAnswer === undefined
				? `${(NOT_REACHED[code] ?? noRoute)(host)}${during}`
				: `phpRank at ${host} was down${during} (a proxy in front of it answered ${statusText(proxyAnswer)})`;
		return toolCallWaitError(context, {
			waitingFor: `phpRank cannot be reached: ${why}`,
			retrySeconds: TOOL_RETRY_UNREACHABLE_SECONDS,
			httpCode: proxyAnswer === undefined ? 'none' : String(proxyAnswer),
		});
	}
	const message =
		proxyAnswer === undefined
			? `${(NOT_REACHED[code] ?? noRoute)(host)}${during}; ${SAFE_AGAIN}`
			: `phpRank at ${host} was down${during}: a proxy in front of it answered ${statusText(proxyAnswer)}; ${SAFE_AGAIN}`;
	return new NodeApiError(nodeForErrors(context.getNode()), {} as JsonObject, {
		message,
		description: `${waited} The request never reached phpRank${code ? ` (${code})` : ''}. Check that phpRank is up and the Base URL in the phpRank credential.`,
		httpCode: proxyAnswer === undefined ? 'none' : String(proxyAnswer),
		itemIndex: context.getItemIndex(),
	});
}

/**
 * phpRank failed a create while it failed every request. It stores nothing then, yet the create is sent again only
 * after a lookup of its URL (create.ts), which settles this error.
 */
export function failedWhileDownError(
	context: ErrorContext,
	response: IN8nHttpFullResponse,
	{ target, options }: { target: RequestTarget; options: IHttpRequestOptions },
): UnansweredRequestError {
	return new UnansweredRequestError(nodeForErrors(context.getNode()), {} as JsonObject, {
		message: `phpRank ${failingAsWhole(response.statusCode)} when ${target.name.replace(/^The /, 'the ')} was asked for; ${safeAgain(options)}`,
		description:
			'phpRank stores nothing while it fails every request, but a create is sent again only once its URL is looked up: with If the URL Already Has a Report set to Return the Existing Report it is.',
		httpCode: String(response.statusCode),
		itemIndex: context.getItemIndex(),
	});
}

/** The execution was cancelled while the request waited for phpRank: it was never sent. */
export function canceledWhileWaiting(context: ErrorContext): NodeApiError {
	// n8n reads an execution whose error says "canceled" as cancelled, not failed.
	return new NodeApiError(nodeForErrors(context.getNode()), {} as JsonObject, {
		message: `The execution was canceled while it waited for phpRank; ${SAFE_AGAIN}`,
		httpCode: 'none',
		itemIndex: context.getItemIndex(),
	});
}

/** The execution was cancelled while its request was under way: n8n aborted it, and a write may have been carried out. */
export function canceledWhileSent(context: ErrorContext, { target, options }: { target: RequestTarget; options: IHttpRequestOptions }): NodeApiError {
	const done = mayHaveDone(target, options);
	return new NodeApiError(nodeForErrors(context.getNode()), {} as JsonObject, {
		message: `The execution was canceled while phpRank worked on the request; ${safeAgain(options)}`,
		description: done === undefined ? undefined : `phpRank ${done} before the request was stopped.`,
		httpCode: 'none',
		itemIndex: context.getItemIndex(),
	});
}

export function unexpectedAnswer(context: ErrorContext, what: string): NodeApiError {
	return new NodeApiError(nodeForErrors(context.getNode()), {} as JsonObject, {
		message: `phpRank answered with JSON that has no ${what}`,
		description: WRONG_ADDRESS_HINT,
		itemIndex: context.getItemIndex(),
	});
}

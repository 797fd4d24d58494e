import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IPollFunctions,
} from 'n8n-workflow';
import { apiBaseUrl, CREDENTIAL_TYPE } from '../../../credentials/PhpRankApi.credentials';
import { answerError, answeredByProxy, connectionError, isReanalysis, isSuccess, rateLimitError, unexpectedAnswer } from './errors';
import type { RequestTarget } from './errors';
import { pauseUntil, rateGateFor, sendWithinLimits } from './rateLimit';

/** phpRank's web address, where its report pages are: the Base URL without /api/v1, a user name or a password. */
export function siteUrl(baseUrl: unknown): string {
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

let siteOfRun: { key: string; site: Promise<string> } | undefined;

/** Read once per execution and credential: reading a credential decrypts it, and every item asks. */
export async function siteOf(context: Pick<IExecuteSingleFunctions, 'getNode' | 'getCredentials' | 'getExecutionId'>): Promise<string> {
	const key = `${serverOf(context)}@${context.getExecutionId()}`;
	if (siteOfRun?.key !== key) {
		siteOfRun = { key, site: context.getCredentials(CREDENTIAL_TYPE).then((credential) => siteUrl(credential.baseUrl)) };
	}
	return await siteOfRun.site;
}

export const FORM_HEADERS = { 'Content-Type': 'application/x-www-form-urlencoded' };

// The base URL comes from the credential as it authenticates the request (PhpRankApi.authenticate): an
// expression here would cost every item. ignoreHttpStatusErrors hands every answer to our own error messages;
// redirects are refused so that the key never follows a Location header to another host.
export const REQUEST_DEFAULTS = {
	headers: { Accept: 'application/json' },
	ignoreHttpStatusErrors: true,
	disableFollowRedirect: true,
} satisfies Partial<IHttpRequestOptions>;

/**
 * The phpRank server a request goes to, named by the credential that reaches it: known before the request
 * is authenticated, without reading the credential.
 */
export function serverOf(context: Pick<IExecuteSingleFunctions, 'getNode'>): string {
	const credential = context.getNode().credentials?.[CREDENTIAL_TYPE];
	return `${CREDENTIAL_TYPE}:${credential?.id ?? credential?.name ?? ''}`;
}

type RequestContext = Pick<IExecuteSingleFunctions, 'getNode' | 'getItemIndex'> & {
	helpers: Pick<IExecuteSingleFunctions['helpers'], 'httpRequestWithAuthentication'>;
	getExecutionCancelSignal?: () => AbortSignal | undefined;
};

/** A request to phpRank: n8n's request options, what its errors name, and how long it may wait for the rate limit. */
export interface PhpRankRequest {
	options: IHttpRequestOptions;
	/** Worked out only for an error message: naming the target may read parameters. */
	targetOf: () => RequestTarget;
	maxWaitSeconds: number;
}

// A read a proxy answered in phpRank's place is sent again, as repeating it changes nothing: this many times
// in all, after waits that double from the first.
const READ_ATTEMPTS = 3;
const FIRST_READ_RETRY_MS = 1000;

/** Whether phpRank analyzes a page before it answers (a create, a re-analysis): seconds of a PHP worker, a read not. */
function analyzes(options: IHttpRequestOptions): boolean {
	return options.method === 'POST' || isReanalysis(options);
}

/**
 * Every request to phpRank goes through here: runs, the editor's lists and the trigger's polls.
 * Returns the JSON body of a successful answer; a 429 is waited out (see sendWithinLimits), a read a proxy
 * answered is sent again, and any other failure ends the item, so that a create or update is never
 * applied twice.
 */
export async function sendRequest(context: RequestContext, { options, targetOf, maxWaitSeconds }: PhpRankRequest): Promise<IDataObject> {
	const sendOnce = async () => {
		try {
			return (await context.helpers.httpRequestWithAuthentication.call(context as IExecuteSingleFunctions, CREDENTIAL_TYPE, {
				...options,
				returnFullResponse: true,
			})) as IN8nHttpFullResponse;
		} catch (error) {
			throw connectionError(context, error, { target: targetOf(), options });
		}
	};
	const isCancelled = () => context.getExecutionCancelSignal?.()?.aborted === true;
	const isRead = (options.method ?? 'GET') === 'GET';
	for (let attempt = 1; ; attempt++) {
		const response = await sendWithinLimits(sendOnce, {
			server: serverOf(context),
			analyzes: analyzes(options),
			maxWaitSeconds,
			isCancelled,
			waitTooLong: (askedSeconds) => rateLimitError(context, targetOf(), { askedSeconds, maxWaitSeconds }),
		});
		if (isSuccess(response)) return response.body as IDataObject;
		if (!isRead || attempt >= READ_ATTEMPTS || !answeredByProxy(response) || isCancelled()) {
			throw answerError(context, response, { target: targetOf(), options, attempts: attempt });
		}
		await pauseUntil(Date.now() + FIRST_READ_RETRY_MS * 2 ** (attempt - 1), isCancelled);
	}
}

/** The quickest a create has been answered by this server: how long an analysis takes without a queue. */
export function analysisTimeMs(context: Pick<IExecuteSingleFunctions, 'getNode'>): number {
	return rateGateFor(serverOf(context)).concurrency.quickestMs;
}

export interface Page {
	records: IDataObject[];
	/** The page asked for. */
	number: number;
	/** The page phpRank says it sent: a cache in front of it may ignore the page asked for. */
	currentPage: number;
	lastPage: number;
	total?: number;
}

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
 * One page of a phpRank list, its envelope checked, and by default that it is the page asked for: a cache in
 * front of phpRank that ignores the page number would otherwise repeat page 1 as every page.
 */
export async function readPage(
	context: RequestContext,
	request: PhpRankRequest,
	{ page, perPage, acceptOtherPage = false }: { page: number; perPage: number; acceptOtherPage?: boolean },
): Promise<Page> {
	const body = await sendRequest(context, {
		...request,
		options: { ...request.options, qs: { ...request.options.qs, per_page: perPage, page } },
	});
	if (!isPage(body)) throw unexpectedAnswer(context, 'page of records ("data" and "meta")');
	const meta = body.meta as IDataObject;
	if (!acceptOtherPage && meta.current_page !== page) {
		throw unexpectedAnswer(context, `page ${page} (it sent page ${String(meta.current_page)})`);
	}
	return {
		records: body.data as IDataObject[],
		number: page,
		currentPage: meta.current_page as number,
		lastPage: meta.last_page as number,
		total: meta.total as number | undefined,
	};
}

type ContextOutsideRun = ILoadOptionsFunctions | IPollFunctions;

/** The editor's lists and the trigger's polls have no item: they read as item 0, so that their errors read as a run's do. */
export function asItem<T extends ContextOutsideRun>(context: T): T & { getItemIndex: () => number } {
	return Object.assign(Object.create(context) as T, { getItemIndex: () => 0 });
}

/** A page of a list outside a run: its path and query, the page, what its errors name and the rate-limit wait allowed. */
export interface ListPageRequest {
	path: '/reports' | '/projects';
	query: IDataObject;
	page: number;
	perPage: number;
	target: RequestTarget;
	maxWaitSeconds: number;
}

/** A page for the editor's lists and the trigger's polls, the request built as a run's engine builds it. */
export async function readPageOutsideRun(
	context: ContextOutsideRun,
	{ path, query, page, perPage, target, maxWaitSeconds }: ListPageRequest,
): Promise<Page> {
	const options: IHttpRequestOptions = { ...REQUEST_DEFAULTS, method: 'GET', url: path, qs: query };
	// The editor's lists and the trigger stop on the page they asked for, whatever page a cache sends.
	return await readPage(asItem(context) as unknown as RequestContext, { options, targetOf: () => target, maxWaitSeconds }, {
		page,
		perPage,
		acceptOtherPage: true,
	});
}

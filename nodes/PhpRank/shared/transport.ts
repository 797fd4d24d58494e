import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IPollFunctions,
} from 'n8n-workflow';
import { answerError, connectionError, isSuccess, rateLimitError, unexpectedAnswer } from './errors';
import type { RequestSubject } from './errors';
import { sendPaced } from './rateLimit';

export const CREDENTIAL_TYPE = 'phpRankApi';

// The same rule twice, once as an n8n expression for declarative requests and the credential test,
// once as code for the editor's lists and the trigger: keep both in step (the credential tests cover both).
export const API_BASE_URL_EXPRESSION =
	'={{ String($credentials.baseUrl).trim().replace(/\\/+$/, "").replace(/\\/api\\/v1$/i, "") + "/api/v1" }}';

export function apiBaseUrl(baseUrl: unknown): string {
	return `${String(baseUrl).trim().replace(/\/+$/, '').replace(/\/api\/v1$/i, '')}/api/v1`;
}

export const FORM_HEADERS = { 'Content-Type': 'application/x-www-form-urlencoded' };

// ignoreHttpStatusErrors hands every answer to our own error messages; redirects are refused so that
// the key never follows a Location header to another host.
export const REQUEST_DEFAULTS = {
	baseURL: API_BASE_URL_EXPRESSION,
	headers: { Accept: 'application/json' },
	ignoreHttpStatusErrors: true,
	disableFollowRedirect: true,
} satisfies Partial<IHttpRequestOptions>;

export type RequestContext = Pick<IExecuteSingleFunctions, 'getNode' | 'getItemIndex'> & {
	helpers: Pick<IExecuteSingleFunctions['helpers'], 'httpRequestWithAuthentication'>;
	getExecutionCancelSignal?: () => AbortSignal | undefined;
};

export interface RequestPlan {
	options: IHttpRequestOptions;
	/** Worked out only for an error message: naming the subject may read parameters. */
	subjectOf: () => RequestSubject;
	maxWaitSeconds: number;
}

/**
 * Every request to phpRank goes through here: runs, the editor's lists and the trigger's polls.
 * Returns the JSON body of a successful answer; a 429 is waited out (see sendPaced), and any other
 * failure ends the item, so that a create or update is never applied twice.
 */
export async function sendRequest(context: RequestContext, { options, subjectOf, maxWaitSeconds }: RequestPlan): Promise<IDataObject> {
	const send = async () => {
		try {
			return (await context.helpers.httpRequestWithAuthentication.call(context as IExecuteSingleFunctions, CREDENTIAL_TYPE, {
				...options,
				returnFullResponse: true,
			})) as IN8nHttpFullResponse;
		} catch (error) {
			throw connectionError(context, error, options, subjectOf());
		}
	};
	const response = await sendPaced(send, {
		baseUrl: String(options.baseURL),
		maxWaitSeconds,
		isCancelled: () => context.getExecutionCancelSignal?.()?.aborted === true,
		waitTooLong: (askedSeconds) => rateLimitError(context, subjectOf(), askedSeconds, maxWaitSeconds),
	});
	if (!isSuccess(response)) throw answerError(context, response, subjectOf());
	return response.body as IDataObject;
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
	plan: RequestPlan,
	number: number,
	perPage: number,
	{ acceptOtherPage = false } = {},
): Promise<Page> {
	const body = await sendRequest(context, {
		...plan,
		options: { ...plan.options, qs: { ...plan.options.qs, per_page: perPage, page: number } },
	});
	if (!isPage(body)) throw unexpectedAnswer(context, 'page of records ("data" and "meta")');
	const meta = body.meta as IDataObject;
	if (!acceptOtherPage && meta.current_page !== number) {
		throw unexpectedAnswer(context, `page ${number} (it sent page ${String(meta.current_page)})`);
	}
	return {
		records: body.data as IDataObject[],
		number,
		currentPage: meta.current_page as number,
		lastPage: meta.last_page as number,
		total: meta.total as number | undefined,
	};
}

export type ContextOutsideRun = ILoadOptionsFunctions | IPollFunctions;

/** The editor's lists and the trigger's polls have no item: they read as item 0, so that their errors read as a run's do. */
export function asItem<T extends ContextOutsideRun>(context: T): T & { getItemIndex: () => number } {
	return Object.assign(Object.create(context) as T, { getItemIndex: () => 0 });
}

/** A page for the editor's lists and the trigger's polls, the request built from the credential as a run's engine builds it. */
export async function readPageOutsideRun(
	context: ContextOutsideRun,
	path: '/reports' | '/projects',
	query: IDataObject,
	subject: RequestSubject,
	maxWaitSeconds: number,
	page: number,
	perPage: number,
): Promise<Page> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	const options: IHttpRequestOptions = {
		...REQUEST_DEFAULTS,
		method: 'GET',
		baseURL: apiBaseUrl(credentials.baseUrl),
		url: path,
		qs: query,
	};
	// The editor's lists and the trigger stop on the page they asked for, whatever page a cache sends.
	return await readPage(asItem(context) as unknown as RequestContext, { options, subjectOf: () => subject, maxWaitSeconds }, page, perPage, {
		acceptOtherPage: true,
	});
}

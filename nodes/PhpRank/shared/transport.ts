import { NodeApiError } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	JsonObject,
} from 'n8n-workflow';
import { nodeForErrors } from './secrets';
import { isSuccess, listSubject, rateLimitError, toApiError } from './responses';
import type { RequestSubject } from './responses';
import { rateGateFor, retryDelayMs } from './rateLimit';

export const CREDENTIAL_TYPE = 'phpRankApi';

// The same rule twice, once as an n8n expression for declarative requests and the credential test,
// once as code for the editor's list searches: keep both in step (the credential tests cover both).
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

function connectionFailure(
	context: RequestContext,
	error: unknown,
	options: IHttpRequestOptions,
	subject: RequestSubject,
): NodeApiError {
	const cause = error instanceof NodeApiError && error.cause ? error.cause : error;
	const code = String((cause as { code?: unknown })?.code ?? '');
	const mayHaveApplied = options.method === 'POST' || options.method === 'PUT' || options.method === 'PATCH';
	const notRepeated = mayHaveApplied
		? ' phpRank may have carried it out before the connection ended, so it was not sent again: check phpRank before running this item once more.'
		: '';
	const timedOut = code === 'ECONNABORTED' || code === 'ETIMEDOUT' || /timeout/i.test(String((cause as Error)?.message));
	const unreachable = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH'].includes(code);
	// NodeApiError replaces any message that names a network error code with its own generic text,
	// so the code goes into the description.
	const message = timedOut
		? `phpRank did not answer within ${Math.round((options.timeout ?? 300_000) / 1000)} seconds`
		: unreachable
			? 'phpRank could not be reached'
			: 'The connection to phpRank ended before it answered';
	const detail = code ? ` (${code})` : '';
	return new NodeApiError(nodeForErrors(context.getNode()), {} as JsonObject, {
		message,
		description: unreachable
			? `Check the Base URL in the phpRank credential and that the server is up${detail}.`
			: `No answer came about ${subject.name}${detail}.${notRepeated}`,
		httpCode: 'none',
		itemIndex: context.getItemIndex(),
	});
}

/**
 * Sends one request to phpRank and returns its JSON body. A 429 is the only answer that is waited
 * out and sent again, because a request phpRank refused for its rate limit did nothing; any other
 * failure ends the item, so that a create or update is never applied twice.
 */
export async function sendRequest(
	context: RequestContext,
	options: IHttpRequestOptions,
	// Worked out only for an error message: reading the parameters it names costs expression evaluations.
	subjectOf: () => RequestSubject,
	maxWaitSeconds: number,
): Promise<IDataObject> {
	const gate = maxWaitSeconds > 0 ? rateGateFor(String(options.baseURL)) : undefined;
	const control = {
		deadline: Date.now() + maxWaitSeconds * 1000,
		isCancelled: () => context.getExecutionCancelSignal?.()?.aborted === true,
	};
	for (;;) {
		const admission = gate ? await gate.admit(control) : { ticket: 0 };
		if ('waitBeyondDeadlineSeconds' in admission) {
			throw rateLimitError(context, subjectOf(), admission.waitBeyondDeadlineSeconds, maxWaitSeconds);
		}
		const { ticket } = admission;
		let response: IN8nHttpFullResponse;
		try {
			response = (await context.helpers.httpRequestWithAuthentication.call(context as IExecuteSingleFunctions, CREDENTIAL_TYPE, {
				...options,
				returnFullResponse: true,
			})) as IN8nHttpFullResponse;
		} catch (error) {
			gate?.settle(ticket);
			throw connectionFailure(context, error, options, subjectOf());
		}
		gate?.settle(ticket, response.headers as IDataObject);
		if (response.statusCode === 429) {
			const delayMs = retryDelayMs(response.headers as IDataObject);
			if (gate === undefined || Date.now() + delayMs > control.deadline) {
				throw rateLimitError(context, subjectOf(), Math.ceil(delayMs / 1000), maxWaitSeconds);
			}
			gate.block(delayMs);
			continue;
		}
		if (!isSuccess(response)) throw toApiError(context, response, subjectOf());
		return response.body as IDataObject;
	}
}

export async function getPage(
	this: ILoadOptionsFunctions,
	path: '/reports' | '/projects',
	qs: IDataObject,
): Promise<IDataObject> {
	const credentials = await this.getCredentials(CREDENTIAL_TYPE);
	// The editor's context, seen as the context of one item so that errors read as they do in a run.
	const editorContext = Object.assign(Object.create(this) as ILoadOptionsFunctions, { getItemIndex: () => 0 });
	const options: IHttpRequestOptions = {
		...REQUEST_DEFAULTS,
		method: 'GET',
		baseURL: apiBaseUrl(credentials.baseUrl),
		url: path,
		qs,
	};
	// The editor does not wait on the rate limit: a 429 shows at once, with the wait phpRank asked for.
	return await sendRequest(editorContext, options, () => listSubject(path === '/reports' ? 'report' : 'project'), 0);
}

import { NodeApiError } from 'n8n-workflow';
import type { IDataObject, IExecuteSingleFunctions, IHttpRequestOptions, IN8nHttpFullResponse, JsonObject } from 'n8n-workflow';
import { answeredByProxy, isAnalysis, isHtml, PROXY_STATUSES } from './rateLimit';
import { nodeForErrors } from './secrets';

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

// phpRank passes on its HTTP client's own words when it cannot fetch the page it is asked to analyze.
const PAGE_FETCH_FAILURE = /cURL error \d+|(Client|Server) error: `[A-Z]+ /;

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
	return { name: `Report ${String(parameterOrNothing(context, 'reportId'))}`, operation };
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

function listMessages(messages: IDataObject): string {
	return Object.entries(messages)
		.map(([field, texts]) => `${field}: ${([] as unknown[]).concat(texts).join(' ')}`)
		.join('; ');
}

function describeRejection(body: unknown): Failure {
	const messages = validationMessages(body);
	const urlMessages = ([] as unknown[]).concat(messages?.url ?? []).map(String);
	const fetchFailure = urlMessages.find((text) => PAGE_FETCH_FAILURE.test(text));
	if (fetchFailure !== undefined) {
		return {
			message: `phpRank could not fetch the page to analyze it (422): ${fetchFailure}`,
			description:
				'The URL is well-formed, but the phpRank server could not load it: the host may not exist, refuse connections, or answer with an error. Check that the page opens from the phpRank server.',
		};
	}
	return {
		message: `phpRank rejected the input (422): ${messages ? listMessages(messages) : (serverMessage(body) ?? 'validation failed')}`,
		description: 'Fix the fields named above and run the node again.',
	};
}

function describeFailure(target: RequestTarget, response: IN8nHttpFullResponse): Failure {
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
			? { message: `phpRank failed to process the request (${statusCode}) and answered with ${kind}`, description: SERVER_FAULT_HINT }
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
				? { message: `phpRank failed to process the request (${statusCode}): ${said ?? 'no message'}`, description: SERVER_FAULT_HINT }
				: { message: `phpRank answered ${statusCode}: ${said ?? 'no message'}`, description: 'The request was not accepted.' };
	}
}

/** What a write may have done when a proxy answered in phpRank's place, and how to run it again safely. */
function unknownOutcome(target: RequestTarget, options: IHttpRequestOptions, status: string): Failure | undefined {
	const proxy = `a proxy in front of phpRank answered ${status} in its place`;
	const why =
		'The proxy answers on its own when phpRank takes too long or is overloaded, and phpRank usually goes on and carries the request out.';
	if (options.method === 'POST') {
		return {
			message: `phpRank may have created the report: ${proxy}`,
			description: `${why} To run this item again without a second report, set If the URL Already Has a Report to Return the Existing Report: the URL is then looked up first.`,
		};
	}
	if (isAnalysis(options)) {
		return {
			message: `phpRank may have re-analyzed ${target.name}: ${proxy}`,
			description: `${why} Running this item again is safe: it analyzes the page once more (the previous score it adds is then this re-analysis's).`,
		};
	}
	if (options.method === 'PUT' || options.method === 'DELETE') {
		return { message: `phpRank may have carried out the ${target.operation} of ${target.name}: ${proxy}`, description: `${why} Check phpRank before running this item again.` };
	}
	return undefined;
}

export function answerError(
	context: ErrorContext,
	response: IN8nHttpFullResponse,
	{ target, options, attempts = 1 }: { target: RequestTarget; options: IHttpRequestOptions; attempts?: number },
): NodeApiError {
	const byProxy = answeredByProxy(response);
	const status = `${response.statusCode}${PROXY_STATUSES[response.statusCode] ? ` ${PROXY_STATUSES[response.statusCode]}` : ''}`;
	const failure = describeFailure(target, response);
	const { message, description } = (byProxy ? unknownOutcome(target, options, status) : undefined) ?? {
		...failure,
		description: attempts > 1 ? `Sent ${attempts} times, a proxy answered each time. ${failure.description}` : failure.description,
	};
	const details = isJsonObject(response.body) ? response.body : { body: String(response.body ?? '').slice(0, 500) };
	const ErrorClass = byProxy ? UnansweredRequestError : NodeApiError;
	return new ErrorClass(nodeForErrors(context.getNode()), details as JsonObject, {
		message,
		description,
		httpCode: String(response.statusCode),
		itemIndex: context.getItemIndex(),
	});
}

function secondsText(seconds: number): string {
	return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** n8n's request Timeout is in milliseconds, and one under a second must not read as "0 seconds". */
function durationText(ms: number): string {
	return ms < 1000 ? `${Math.round(ms)} ms` : secondsText(Math.round(ms / 100) / 10);
}

export function rateLimitError(
	context: ErrorContext,
	target: RequestTarget,
	{ askedSeconds, maxWaitSeconds }: { askedSeconds: number; maxWaitSeconds: number },
): NodeApiError {
	const asked =
		askedSeconds > 0
			? `the server asked to wait ${secondsText(askedSeconds)}`
			: 'the server is still at its limit';
	return new NodeApiError(nodeForErrors(context.getNode()), {} as JsonObject, {
		message: `phpRank's rate limit was reached (429 Too Many Attempts): ${asked}`,
		description:
			maxWaitSeconds > 0
				? `That is beyond the ${secondsText(maxWaitSeconds)} this item may wait (Options > Max Rate-Limit Wait). Nothing was changed for ${target.name}; raise the limit, or spread the items over time with the node's batching settings.`
				: `Waiting is off (Options > Max Rate-Limit Wait is 0). Nothing was changed for ${target.name}.`,
		httpCode: '429',
		itemIndex: context.getItemIndex(),
	});
}

export function connectionError(
	context: ErrorContext,
	error: unknown,
	{ target, options }: { target: RequestTarget; options: IHttpRequestOptions },
): UnansweredRequestError {
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
		? `phpRank did not answer within ${durationText(options.timeout ?? 300_000)}`
		: unreachable
			? 'phpRank could not be reached'
			: 'The connection to phpRank ended before it answered';
	const detail = code ? ` (${code})` : '';
	return new UnansweredRequestError(nodeForErrors(context.getNode()), {} as JsonObject, {
		message,
		description: unreachable
			? `Check the Base URL in the phpRank credential and that the server is up${detail}.`
			: `No answer came about ${target.name}${detail}.${notRepeated}`,
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

import { NodeApiError } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteSingleFunctions,
	IN8nHttpFullResponse,
	INodeExecutionData,
	JsonObject,
} from 'n8n-workflow';
import { nodeForErrors } from './secrets';
import { gradeOf } from './values';

type ResponseContext = Pick<IExecuteSingleFunctions, 'getNode' | 'getItemIndex' | 'getNodeParameter'>;

interface Failure {
	message: string;
	description: string;
}

export interface PageMeta {
	current_page: number;
	last_page: number;
	total?: number;
}

export interface PageEnvelope {
	data: IDataObject[];
	meta: PageMeta;
}

const WRONG_ADDRESS_HINT =
	'Check the Base URL in the phpRank credential: it must be the address of your phpRank installation, e.g. https://seo.example.com or https://example.com/phprank.';

const SERVER_FAULT_HINT =
	'This is a fault on the phpRank server or a proxy in front of it; try again later or check its logs.';

function describeBody(body: unknown): string {
	if (body === undefined || body === null || body === '') return 'an empty body';
	if (typeof body === 'string' && /<html|<!doctype/i.test(body)) return 'an HTML page';
	return 'an answer that is not JSON';
}

function serverMessage(body: unknown): string | undefined {
	if (body && typeof body === 'object' && typeof (body as IDataObject).message === 'string') {
		return (body as IDataObject).message as string;
	}
	return undefined;
}

function validationMessages(body: unknown): string | undefined {
	const messages = body && typeof body === 'object' ? (body as IDataObject).message : undefined;
	if (!messages || typeof messages !== 'object' || Array.isArray(messages)) return undefined;
	return Object.entries(messages as IDataObject)
		.map(([field, texts]) => `${field}: ${([] as unknown[]).concat(texts).join(' ')}`)
		.join('; ');
}

function headerValue(headers: IDataObject | undefined, name: string): string | undefined {
	const value = headers?.[name];
	return value === undefined || value === null ? undefined : String(value);
}

function isJsonObject(body: unknown): body is IDataObject {
	return typeof body === 'object' && body !== null && !Buffer.isBuffer(body);
}

function parameterOrNothing(context: ResponseContext, name: string): unknown {
	try {
		return context.getNodeParameter(name, '', { extractValue: true });
	} catch {
		return '';
	}
}

/** What a request was about, for messages that name it. */
export interface RequestSubject {
	name: string;
	operation: string;
}

export function listSubject(resource: 'report' | 'project'): RequestSubject {
	return { name: `The ${resource} list`, operation: 'getAll' };
}

export function subjectOf(context: ResponseContext): RequestSubject {
	const resource = parameterOrNothing(context, 'resource');
	const operation = String(parameterOrNothing(context, 'operation'));
	if (operation === 'getAll') return listSubject(resource === 'project' ? 'project' : 'report');
	const name =
		resource === 'project'
			? `Project "${String(parameterOrNothing(context, 'projectName'))}"`
			: `Report ${String(parameterOrNothing(context, 'reportId'))}`;
	return { name, operation };
}

function describeFailure(subject: RequestSubject, response: IN8nHttpFullResponse): Failure {
	const { statusCode, body } = response;
	const said = serverMessage(body);
	if (statusCode >= 300 && statusCode < 400) {
		const location = headerValue(response.headers as IDataObject, 'location')?.split('?')[0];
		const toLogin = location !== undefined && /\/login\/?$/.test(location);
		return {
			message: toLogin
				? `phpRank redirected to its login page (${statusCode}): the API key was refused or the request did not reach the API`
				: `phpRank answered with a redirect (${statusCode}${location ? ` to ${location}` : ''}) instead of JSON`,
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
			? {
					message: `phpRank failed to process the request (${statusCode}) and answered with ${kind}`,
					description: SERVER_FAULT_HINT,
				}
			: {
					message: `phpRank answered ${statusCode} with ${kind} instead of JSON`,
					description: `The base URL probably points at the wrong place. ${WRONG_ADDRESS_HINT}`,
				};
	}
	switch (statusCode) {
		case 401:
			return {
				message: 'phpRank refused the API key (401 Unauthenticated)',
				description: 'Check the API key in the phpRank credential. It is shown on the API page of your phpRank account and changes when it is regenerated.',
			};
		case 403:
			return subject.operation === 'update'
				? {
						message: `${subject.name} does not exist or does not belong to the account of this API key (403)`,
						description: said ?? 'This action is unauthorized.',
					}
				: { message: `phpRank refused the request (403): ${said ?? 'This action is unauthorized.'}`, description: 'The API key\'s account may lack the permission or plan for this.' };
		case 404:
			return {
				message: `${subject.name} was not found (404)`,
				description:
					subject.operation === 'getAll'
						? `phpRank has no list at this address. ${WRONG_ADDRESS_HINT}`
						: (said ?? 'Resource not found.'),
			};
		case 422:
			return {
				message: `phpRank rejected the input (422): ${validationMessages(body) ?? said ?? 'validation failed'}`,
				description: 'Fix the fields named above and run the node again.',
			};
		default:
			return statusCode >= 500
				? {
						message: `phpRank failed to process the request (${statusCode}): ${said ?? 'no message'}`,
						description: SERVER_FAULT_HINT,
					}
				: {
						message: `phpRank answered ${statusCode}: ${said ?? 'no message'}`,
						description: 'The request was not accepted.',
					};
	}
}

export function toApiError(
	context: Pick<ResponseContext, 'getNode' | 'getItemIndex'>,
	response: IN8nHttpFullResponse,
	subject: RequestSubject,
): NodeApiError {
	const { message, description } = describeFailure(subject, response);
	const details = isJsonObject(response.body) ? response.body : { body: String(response.body ?? '').slice(0, 500) };
	return new NodeApiError(nodeForErrors(context.getNode()), details as JsonObject, {
		message,
		description,
		httpCode: String(response.statusCode),
		itemIndex: context.getItemIndex(),
	});
}

export function rateLimitError(
	context: Pick<ResponseContext, 'getNode' | 'getItemIndex'>,
	subject: RequestSubject,
	askedSeconds: number,
	maxWaitSeconds: number,
): NodeApiError {
	const asked =
		askedSeconds > 0
			? `the server asked to wait ${askedSeconds} second${askedSeconds === 1 ? '' : 's'}`
			: 'the server is still at its limit';
	return new NodeApiError(nodeForErrors(context.getNode()), {} as JsonObject, {
		message: `phpRank's rate limit was reached (429 Too Many Attempts): ${asked}`,
		description:
			maxWaitSeconds > 0
				? `That is beyond the ${maxWaitSeconds} seconds this item may wait (Max Rate-Limit Wait). Nothing was changed for ${subject.name}; raise the limit, or spread the items over time with the node's batching settings.`
				: `Waiting is off (Max Rate-Limit Wait is 0). Nothing was changed for ${subject.name}.`,
		httpCode: '429',
		itemIndex: context.getItemIndex(),
	});
}

export function isSuccess(response: IN8nHttpFullResponse): boolean {
	return response.statusCode >= 200 && response.statusCode < 300 && isJsonObject(response.body);
}

export function unexpectedAnswer(context: ResponseContext, what: string): NodeApiError {
	return new NodeApiError(nodeForErrors(context.getNode()), {} as JsonObject, {
		message: `phpRank answered with JSON that has no ${what}`,
		description: WRONG_ADDRESS_HINT,
		itemIndex: context.getItemIndex(),
	});
}

export function withGrade(report: IDataObject): IDataObject {
	const score = typeof report.result === 'number' ? report.result : Number(report.result);
	return report.result === null || report.result === undefined || Number.isNaN(score)
		? report
		: { ...report, grade: gradeOf(score) };
}

function pairedTo(context: ResponseContext, json: IDataObject): INodeExecutionData {
	return { json, pairedItem: { item: context.getItemIndex() } };
}

export function recordsToItems(
	context: ResponseContext,
	records: IDataObject[],
	shape: (record: IDataObject) => IDataObject = (record) => record,
): INodeExecutionData[] {
	return records.map((record) => pairedTo(context, shape(record)));
}

export function reportItem(context: ResponseContext, body: IDataObject): INodeExecutionData[] {
	const record = body.data;
	if (!isJsonObject(record) || Array.isArray(record)) throw unexpectedAnswer(context, 'report in "data"');
	return recordsToItems(context, [record], withGrade);
}

export function deletionItem(context: ResponseContext, body: IDataObject): INodeExecutionData[] {
	if (body.deleted !== true) throw unexpectedAnswer(context, '"deleted": true');
	return recordsToItems(context, [{ deleted: true, id: body.id as IDataObject['id'] }]);
}

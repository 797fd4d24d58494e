import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
} from 'n8n-workflow';
import { DEFAULT_MAX_RATE_LIMIT_WAIT_SECONDS } from './rateLimit';
import { deletionItem, reportItem, subjectOf } from './responses';
import { sendRequest } from './transport';
import { failInput, quoted } from './validation';

type RequestData = DeclarativeRestApiSettings.ResultOptions;

function maxRateLimitWait(context: IExecutePaginationFunctions): number {
	const value = context.getNodeParameter('maxRateLimitWait', DEFAULT_MAX_RATE_LIMIT_WAIT_SECONDS);
	const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
		failInput(context, `Max Rate-Limit Wait must be a number of seconds, 0 or more; got ${quoted(value)}`);
	}
	return seconds;
}

export async function send(
	context: IExecutePaginationFunctions,
	requestData: RequestData,
	options: IHttpRequestOptions = requestData.options as IHttpRequestOptions,
): Promise<IDataObject> {
	return await sendRequest(context, options, () => subjectOf(context), maxRateLimitWait(context));
}

// n8n's declarative engine hands the whole request to `routing.operations.pagination` when an
// operation sets `send.paginate`; every operation uses it so that 429s are waited out in one place.
export async function returnReport(this: IExecutePaginationFunctions, requestData: RequestData): Promise<INodeExecutionData[]> {
	return reportItem(this, await send(this, requestData));
}

export async function returnDeletion(
	this: IExecutePaginationFunctions,
	requestData: RequestData,
): Promise<INodeExecutionData[]> {
	return deletionItem(this, await send(this, requestData));
}

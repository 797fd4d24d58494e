import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodePropertyOptions,
	PreSendAction,
} from 'n8n-workflow';
import { targetOf } from './errors';
import { deletionOf, recordOf, shapeReport, toItems } from './items';
import type { ReportShape } from './items';
import { sendRequest, siteOf } from './transport';
import type { PhpRankRequest } from './transport';
import { failInput, parseBoolean, quoted } from './validation';
import { DEFAULT_MAX_RATE_LIMIT_WAIT_SECONDS } from './values';

export type RequestData = DeclarativeRestApiSettings.ResultOptions;

type OperationRun = (this: IExecutePaginationFunctions, requestData: RequestData) => Promise<INodeExecutionData[]>;

export interface RunOptions {
	maxWaitSeconds: number;
	omitResults: boolean;
}

function parseWaitSeconds(context: IExecutePaginationFunctions, value: unknown): number {
	const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
		failInput(context, `Max Rate-Limit Wait must be a number of seconds, 0 or more; got ${quoted(value)}`);
	}
	return seconds;
}

/** The Options every operation offers, read in one go. */
export function runOptionsOf(context: IExecutePaginationFunctions): RunOptions & IDataObject {
	const options = context.getNodeParameter('options', {}) as IDataObject;
	return {
		...options,
		maxWaitSeconds: parseWaitSeconds(context, options.maxRateLimitWait ?? DEFAULT_MAX_RATE_LIMIT_WAIT_SECONDS),
		// An AI agent gets the compact answer unless the option says otherwise: every check's entry crowds its context.
		omitResults: parseBoolean(context, 'Leave Out Per-Check Results', options.omitResults ?? isAiTool(context)),
	};
}

/** The node as a tool of n8n's AI Agent: n8n gives the tool variant a type name of its own. */
function isAiTool(context: IExecutePaginationFunctions): boolean {
	return context.getNode().type.endsWith('Tool');
}

/** How this item's reports are output: `omitResults` from Options, and the credential's phpRank for their page. */
export async function reportShapeOf(context: IExecutePaginationFunctions, { omitResults }: RunOptions): Promise<ReportShape> {
	return { omitResults, site: await siteOf(context) };
}

/** A request of the item's run: the one n8n prepared, or another in its course (see relatedRequest). */
export function itemRequest(
	context: IExecutePaginationFunctions,
	requestOptions: RequestData['options'],
	{ maxWaitSeconds }: RunOptions,
): PhpRankRequest {
	return { options: requestOptions as IHttpRequestOptions, targetOf: () => targetOf(context), maxWaitSeconds };
}

export async function sendItemRequest(
	context: IExecutePaginationFunctions,
	requestOptions: RequestData['options'],
	runOptions: RunOptions,
): Promise<IDataObject> {
	return await sendRequest(context, itemRequest(context, requestOptions, runOptions));
}

export async function returnReport(this: IExecutePaginationFunctions, requestData: RequestData): Promise<INodeExecutionData[]> {
	const runOptions = runOptionsOf(this);
	const record = recordOf(this, await sendItemRequest(this, requestData.options, runOptions));
	const shape = await reportShapeOf(this, runOptions);
	return toItems(this, [record], (report) => shapeReport(report, shape));
}

export async function returnDeletion(this: IExecutePaginationFunctions, requestData: RequestData): Promise<INodeExecutionData[]> {
	const body = await sendItemRequest(this, requestData.options, runOptionsOf(this));
	return toItems(this, [deletionOf(this, body)], (deletion) => deletion);
}

interface OperationRequest {
	method: IHttpRequestOptions['method'];
	url?: string;
	headers?: IDataObject;
}

/**
 * An operation of the node, always with the request path: n8n's declarative engine hands the whole
 * request to `operations.pagination` when `send.paginate` is set, so every answer, 429 and error goes
 * through one place. An operation declared without it would pass phpRank's error bodies on as items.
 */
export function operation(
	option: { name: string; value: string; action: string; description: string },
	{ request, run, preSend = [] }: { request: OperationRequest; run: OperationRun; preSend?: PreSendAction[] },
): INodePropertyOptions {
	return {
		...option,
		routing: {
			request,
			send: { paginate: true, preSend },
			operations: { pagination: run },
		},
	};
}

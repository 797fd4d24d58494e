import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
} from 'n8n-workflow';
import { send } from './requests';
import { recordsToItems, unexpectedAnswer, withGrade } from './responses';
import type { PageEnvelope } from './responses';
import { LARGEST_PAGE_SIZE, PAGE_SIZES, PAGE_SIZE_OPTIONS } from './values';
import { parseBoolean, parseOption, parsePositiveInteger } from './validation';

export function smallestPageSizeHolding(count: number): number {
	return PAGE_SIZES.find((size) => size >= count) ?? LARGEST_PAGE_SIZE;
}

function isPage(body: IDataObject): body is IDataObject & PageEnvelope {
	const meta = body.meta as IDataObject | undefined;
	return (
		Array.isArray(body.data) &&
		typeof meta === 'object' &&
		meta !== null &&
		Number.isInteger(meta.current_page) &&
		Number.isInteger(meta.last_page)
	);
}

function chosenPerPage(context: IExecutePaginationFunctions): number {
	const chosen = context.getNodeParameter('options.perPage', LARGEST_PAGE_SIZE);
	return Number(parseOption(context, 'Page Size', chosen, PAGE_SIZE_OPTIONS));
}

async function readPages(
	context: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	shape: (record: IDataObject) => IDataObject,
): Promise<INodeExecutionData[]> {
	const returnAll = parseBoolean(context, 'Return All', context.getNodeParameter('returnAll', false));
	const limit = returnAll ? Infinity : parsePositiveInteger(context, 'Limit', context.getNodeParameter('limit', 50));
	const chosenPageSize = returnAll ? chosenPerPage(context) : undefined;
	const records: IDataObject[] = [];
	// links.next is never followed: it is an absolute URL the key must not be sent to blindly.
	while (records.length < limit) {
		// With a limit, pages of 100 are read until the rest fits a smaller one. Every page read so far was
		// full, and each page size divides 100, so the records in hand end exactly where a page starts.
		const perPage = chosenPageSize ?? smallestPageSizeHolding(limit - records.length);
		const page = records.length / perPage + 1;
		const body = await send(context, requestData, {
			...(requestData.options as IHttpRequestOptions),
			qs: { ...requestData.options.qs, per_page: perPage, page },
		});
		if (!isPage(body)) throw unexpectedAnswer(context, 'page of records ("data" and "meta")');
		if (body.meta.current_page !== page) throw unexpectedAnswer(context, `page ${page} (it sent page ${body.meta.current_page})`);
		records.push(...body.data);
		if (body.meta.current_page >= body.meta.last_page) break;
		if (body.data.length < perPage) {
			throw unexpectedAnswer(context, `full page ${page} of ${body.meta.last_page} (it sent ${body.data.length} of ${perPage} records)`);
		}
	}
	return recordsToItems(context, records.slice(0, limit), shape);
}

function withoutResults(report: IDataObject): IDataObject {
	const { results: _results, ...rest } = report;
	return rest;
}

export async function readReportPages(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	const omitResults = parseBoolean(this, 'Leave Out Per-Check Results', this.getNodeParameter('options.omitResults', false));
	return await readPages(this, requestData, omitResults ? (report) => withGrade(withoutResults(report)) : withGrade);
}

export async function readProjectPages(
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
): Promise<INodeExecutionData[]> {
	return await readPages(this, requestData, (project) => project);
}

import type { IDataObject, IExecutePaginationFunctions, INodeExecutionData } from 'n8n-workflow';
import { unexpectedAnswer } from './errors';
import { toItems } from './items';
import { itemRequest, runOptionsOf } from './operations';
import type { RequestData, RunOptions } from './operations';
import { readPage } from './transport';
import { parseBoolean, parseOption, parsePositiveInteger } from './validation';
import { LARGEST_PAGE_SIZE, PAGE_SIZES, PAGE_SIZE_OPTIONS } from './values';

function smallestPageSizeHolding(count: number): number {
	return PAGE_SIZES.find((size) => size >= count) ?? LARGEST_PAGE_SIZE;
}

/**
 * Return All reads every page; a limit reads only the pages it needs, at the smallest size that
 * holds what is still missing. A failing page fails the list: a partial list is never output.
 */
export async function readList(
	context: IExecutePaginationFunctions,
	requestData: RequestData,
	shape: (record: IDataObject, runOptions: RunOptions) => IDataObject,
): Promise<INodeExecutionData[]> {
	const runOptions = runOptionsOf(context);
	const returnAll = parseBoolean(context, 'Return All', context.getNodeParameter('returnAll', false));
	const limit = returnAll ? Infinity : parsePositiveInteger(context, 'Limit', context.getNodeParameter('limit', 50));
	const chosenPageSize = returnAll
		? Number(parseOption(context, { field: 'Page Size', options: PAGE_SIZE_OPTIONS }, runOptions.perPage ?? LARGEST_PAGE_SIZE))
		: undefined;
	const request = itemRequest(context, requestData.options, runOptions);
	const records: IDataObject[] = [];
	// links.next is never followed: it is an absolute URL the key must not be sent to blindly.
	while (records.length < limit) {
		// With a limit, pages of 100 are read until the rest fits a smaller one. Every page read so far was
		// full, and each page size divides 100, so the records in hand end exactly where a page starts.
		const perPage = chosenPageSize ?? smallestPageSizeHolding(limit - records.length);
		const page = await readPage(context, request, { page: records.length / perPage + 1, perPage });
		records.push(...page.records);
		if (page.number >= page.lastPage) break;
		if (page.records.length < perPage) {
			throw unexpectedAnswer(
				context,
				`full page ${page.number} of ${page.lastPage} (it sent ${page.records.length} of ${perPage} records)`,
			);
		}
	}
	return toItems(context, records.slice(0, limit), (record) => shape(record, runOptions));
}

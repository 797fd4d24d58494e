import type { IDataObject, IExecutePaginationFunctions, INodeExecutionData } from 'n8n-workflow';
import type { PhpRankClient } from './client';
import { toItems } from './items';
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
	client: PhpRankClient,
	shape: (record: IDataObject) => IDataObject,
): Promise<INodeExecutionData[]> {
	const returnAll = parseBoolean(context, 'Return All', context.getNodeParameter('returnAll', false));
	const limit = returnAll ? Infinity : parsePositiveInteger(context, 'Limit', context.getNodeParameter('limit', 50));
	const { perPage } = context.getNodeParameter('options', {}) as IDataObject;
	const chosenPageSize = returnAll
		? Number(parseOption(context, { field: 'Page Size', options: PAGE_SIZE_OPTIONS }, perPage ?? LARGEST_PAGE_SIZE))
		: undefined;
	const records: IDataObject[] = [];
	// links.next is never followed: it is an absolute URL the key must not be sent to blindly.
	while (records.length < limit) {
		// With a limit, pages of 100 are read until the rest fits a smaller one. Every page read so far was
		// full (the client checks that), and each page size divides 100, so the records in hand end where a page starts.
		const size = chosenPageSize ?? smallestPageSizeHolding(limit - records.length);
		const page = await client.readPage({ page: records.length / size + 1, perPage: size });
		records.push(...page.records);
		if (page.number >= page.lastPage) break;
	}
	return toItems(context, records.slice(0, limit).map(shape));
}

import type { IDataObject, IExecutePaginationFunctions, INodeExecutionData } from 'n8n-workflow';
import type { Page, PhpRankClient } from './client';
import { toItems } from './items';
import { parseBoolean, parseOption, parsePositiveInteger } from './validation';
import { LARGEST_PAGE_SIZE, PAGE_SIZES, PAGE_SIZE_OPTIONS } from './values';

/** An ascending order of records, ties decided, so that the node can sort a list as phpRank would. */
export type Order = (a: IDataObject, b: IDataObject) => number;

function smallestPageSizeHolding(count: number): number {
	return PAGE_SIZES.find((size) => size >= count) ?? LARGEST_PAGE_SIZE;
}

/**
 * Return All reads every page; a limit reads only the pages it needs, at the smallest size that
 * holds what is still missing. A failing page fails the list: a partial list is never output.
 *
 * `ordersInNode` are the sort keys the node can sort by itself, for a phpRank that does not (phpRank 1.5 sorts
 * by id when asked for generated_at, and its page links say so): the list is then read whole and sorted here.
 * Page 1 tells, so a phpRank that applies the key costs what any other order does.
 */
export async function readList(
	context: IExecutePaginationFunctions,
	client: PhpRankClient,
	shape: (record: IDataObject) => IDataObject,
	ordersInNode: Record<string, Order> = {},
): Promise<INodeExecutionData[]> {
	const returnAll = parseBoolean(context, 'Return All', context.getNodeParameter('returnAll', false));
	const limit = returnAll ? Infinity : parsePositiveInteger(context, 'Limit', context.getNodeParameter('limit', 50));
	const { perPage } = context.getNodeParameter('options', {}) as IDataObject;
	const chosenPageSize = returnAll
		? Number(parseOption(context, { field: 'Page Size', options: PAGE_SIZE_OPTIONS }, perPage ?? LARGEST_PAGE_SIZE))
		: undefined;
	const { sort_by: sortBy, sort } = client.listQuery();
	const orderInNode = typeof sortBy === 'string' && Object.prototype.hasOwnProperty.call(ordersInNode, sortBy) ? ordersInNode[sortBy] : undefined;
	const mayReplace = orderInNode === undefined ? [] : ['sort_by'];
	const sizeFor = (missing: number) => chosenPageSize ?? smallestPageSizeHolding(missing);
	// links.next is never followed: it is an absolute URL the key must not be sent to blindly.
	const first = await client.readPage({ page: 1, perPage: sizeFor(limit), mayReplace });
	let records: IDataObject[];
	if (orderInNode !== undefined && first.replaced.sort_by !== undefined) {
		const wholeListSize = chosenPageSize ?? LARGEST_PAGE_SIZE;
		const order: Order = sort === 'asc' ? orderInNode : (a, b) => orderInNode(b, a);
		records = await readOrdered(client, { first: sizeFor(limit) === wholeListSize ? first : undefined, size: wholeListSize, order, limit, mayReplace });
	} else {
		records = await readInOrder(client, { first, sizeFor, limit });
	}
	return toItems(context, records.slice(0, limit).map(shape));
}

/** The pages in phpRank's order, from page 1 (read already) until the limit or the last page. */
async function readInOrder(
	client: PhpRankClient,
	{ first, sizeFor, limit }: { first: Page; sizeFor: (missing: number) => number; limit: number },
): Promise<IDataObject[]> {
	const records = [...first.records];
	for (let page = first; records.length < limit && page.number < page.lastPage; ) {
		// With a limit, pages of 100 are read until the rest fits a smaller one. Every page read so far was
		// full (the client checks that), and each page size divides 100, so the records in hand end where a page starts.
		const size = sizeFor(limit - records.length);
		page = await client.readPage({ page: records.length / size + 1, perPage: size });
		records.push(...page.records);
	}
	return records;
}

/** Every page of the list, at one size, sorted in the node; only the first `limit` records are kept as pages come. */
async function readOrdered(
	client: PhpRankClient,
	{ first, size, order, limit, mayReplace }: { first?: Page; size: number; order: Order; limit: number; mayReplace: string[] },
): Promise<IDataObject[]> {
	let kept: IDataObject[] = [];
	for (let page = first ?? (await client.readPage({ page: 1, perPage: size, mayReplace })); ; ) {
		kept.push(...page.records);
		if (kept.length > limit) kept = kept.sort(order).slice(0, limit);
		if (page.number >= page.lastPage) return kept.sort(order);
		page = await client.readPage({ page: page.number + 1, perPage: size, mayReplace });
	}
}

import { NodeApiError } from 'n8n-workflow';
import type { IDataObject, IPollFunctions, JsonObject } from 'n8n-workflow';
import { unexpectedAnswer } from '../shared/errors';
import { nodeForErrors } from '../shared/secrets';
import { asItem, readPageOutsideRun } from '../shared/transport';
import type { ListPageRequest, Page } from '../shared/transport';

const PAGE_SIZE = 25;
const SCAN_ATTEMPTS = 3;
// A poll is not an item: it may wait out a 429 up to a minute, the window phpRank's limit counts in.
const POLL_RATE_LIMIT_WAIT_SECONDS = 60;

/** The list a poll reads: its path and query, and what its errors name. */
export type PolledList = Pick<ListPageRequest, 'path' | 'query' | 'target'>;

export async function readNewestPage(
	context: IPollFunctions,
	list: PolledList,
	{ page = 1, perPage = PAGE_SIZE }: { page?: number; perPage?: number } = {},
): Promise<Page> {
	return await readPageOutsideRun(context, { ...list, page, perPage, maxWaitSeconds: POLL_RATE_LIMIT_WAIT_SECONDS });
}

/** Where the trigger stands, from its place in the workflow's static data: what it has emitted so far. */
interface LastSeen {
	/** Whether a record was emitted before (or is older than anything that was). */
	isSeen: (record: IDataObject) => boolean;
	/** Whether a record is older than the newest one seen: no record after it in the list is new. */
	isOlder: (record: IDataObject) => boolean;
	keyOf: (record: IDataObject) => string;
}

/**
 * The records newer than the last one seen, newest first, read page by page until an older one.
 * A record deleted while the pages are read shifts later pages back by one and could hide a
 * record, so the scan starts again when the list shrank; records created meanwhile only repeat one,
 * which its key removes.
 */
export async function scanNewestFirst(context: IPollFunctions, list: PolledList, lastSeen: LastSeen): Promise<IDataObject[]> {
	for (let attempt = 1; attempt <= SCAN_ATTEMPTS; attempt++) {
		const fresh = new Map<string, IDataObject>();
		let firstTotal: number | undefined;
		let shrank = false;
		for (let pageNumber = 1; ; pageNumber++) {
			const page = await readNewestPage(context, list, { page: pageNumber });
			if (page.total === undefined) throw unexpectedAnswer(asItem(context), 'total in the page\'s "meta"');
			firstTotal ??= page.total;
			if (page.total < firstTotal) {
				shrank = true;
				break;
			}
			for (const record of page.records) {
				if (!lastSeen.isSeen(record) && !fresh.has(lastSeen.keyOf(record))) fresh.set(lastSeen.keyOf(record), record);
			}
			const reachedOlder = page.records.some(lastSeen.isOlder);
			if (reachedOlder || page.currentPage >= page.lastPage || page.records.length === 0) break;
		}
		if (!shrank) return [...fresh.values()];
	}
	throw new NodeApiError(nodeForErrors(context.getNode()), {} as JsonObject, {
		message: `${list.target.name} kept shrinking while it was read`,
		description: `Records were deleted during each of ${SCAN_ATTEMPTS} reads; nothing was emitted, and the next poll reads again.`,
	});
}

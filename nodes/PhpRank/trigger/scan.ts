import { NodeApiError } from 'n8n-workflow';
import type { IDataObject, IPollFunctions, JsonObject } from 'n8n-workflow';
import { PhpRankClient } from '../shared/client';
import type { Page } from '../shared/client';
import type { RequestTarget } from '../shared/errors';
import { nodeForErrors } from '../shared/secrets';

const PAGE_SIZE = 25;
const SCAN_ATTEMPTS = 3;
// A poll is not an item: it may wait out a 429 up to a minute, the window phpRank's limit counts in, and a restart as long.
const POLL_WAIT_SECONDS = 60;

/** The list a poll reads, newest first, and the client it reads it with. */
interface PolledList {
	client: PhpRankClient;
	url: '/reports' | '/projects';
	query: IDataObject;
	target: RequestTarget;
}

export function polledList(context: IPollFunctions, { url, query, target }: Omit<PolledList, 'client'>): PolledList {
	return { client: PhpRankClient.outsideRun(context, { target, maxWaitSeconds: POLL_WAIT_SECONDS, maxUnreachableWaitSeconds: POLL_WAIT_SECONDS }), url, query, target };
}

export async function readNewestPage(
	{ client, url, query }: PolledList,
	{ page = 1, perPage = PAGE_SIZE }: { page?: number; perPage?: number } = {},
): Promise<Page> {
	return await client.readPage({ url, query, page, perPage });
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
	const { client, url, query } = list;
	for (let attempt = 1; attempt <= SCAN_ATTEMPTS; attempt++) {
		const fresh = new Map<string, IDataObject>();
		let firstTotal: number | undefined;
		let shrank = false;
		for (let pageNumber = 1; ; pageNumber++) {
			const page = await client.readPage({ url, query, page: pageNumber, perPage: PAGE_SIZE, needsTotal: true });
			const total = page.total as number;
			firstTotal ??= total;
			if (total < firstTotal) {
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

import { NodeApiError } from 'n8n-workflow';
import type { IDataObject, IPollFunctions, JsonObject } from 'n8n-workflow';
import { unexpectedAnswer } from '../shared/errors';
import type { RequestSubject } from '../shared/errors';
import { nodeForErrors } from '../shared/secrets';
import { asItem, readPageOutsideRun } from '../shared/transport';
import type { Page } from '../shared/transport';

const PAGE_SIZE = 25;
const SCAN_ATTEMPTS = 3;
// A poll is not an item: it may wait out a 429 up to a minute, the window phpRank's limit counts in.
const POLL_RATE_LIMIT_WAIT_SECONDS = 60;

export type ListPath = '/reports' | '/projects';

export async function readNewestPage(
	context: IPollFunctions,
	path: ListPath,
	query: IDataObject,
	subject: RequestSubject,
	page = 1,
	perPage = PAGE_SIZE,
): Promise<Page> {
	return await readPageOutsideRun(context, path, query, subject, POLL_RATE_LIMIT_WAIT_SECONDS, page, perPage);
}

/** Where the trigger stands: what it has emitted so far. */
export interface Watermark {
	/** Whether a record was emitted before (or is older than anything that was). */
	isSeen: (record: IDataObject) => boolean;
	/** Whether a record is older than the newest one seen: no record after it in the list is new. */
	isOlder: (record: IDataObject) => boolean;
	keyOf: (record: IDataObject) => string;
}

/**
 * The records newer than the watermark, newest first, read page by page until an older one.
 * A record deleted while the pages are read shifts later pages back by one and could hide a
 * record, so the scan starts again when the list shrank; records created meanwhile only repeat one,
 * which the watermark's key removes.
 */
export async function scanNewestFirst(
	context: IPollFunctions,
	path: ListPath,
	query: IDataObject,
	subject: RequestSubject,
	watermark: Watermark,
): Promise<IDataObject[]> {
	for (let attempt = 1; attempt <= SCAN_ATTEMPTS; attempt++) {
		const fresh = new Map<string, IDataObject>();
		let firstTotal: number | undefined;
		let shrank = false;
		for (let pageNumber = 1; ; pageNumber++) {
			const page = await readNewestPage(context, path, query, subject, pageNumber);
			if (page.total === undefined) throw unexpectedAnswer(asItem(context), 'total in the page\'s "meta"');
			firstTotal ??= page.total;
			if (page.total < firstTotal) {
				shrank = true;
				break;
			}
			for (const record of page.records) {
				if (!watermark.isSeen(record) && !fresh.has(watermark.keyOf(record))) fresh.set(watermark.keyOf(record), record);
			}
			const reachedOlder = page.records.some(watermark.isOlder);
			if (reachedOlder || page.currentPage >= page.lastPage || page.records.length === 0) break;
		}
		if (!shrank) return [...fresh.values()];
	}
	throw new NodeApiError(nodeForErrors(context.getNode()), {} as JsonObject, {
		message: `${subject.name} kept shrinking while it was read`,
		description: `Records were deleted during each of ${SCAN_ATTEMPTS} reads; nothing was emitted, and the next poll reads again.`,
	});
}

import { NodeApiError } from 'n8n-workflow';
import type { IDataObject, IPollFunctions, JsonObject } from 'n8n-workflow';
import type { PageEnvelope, RequestSubject } from '../shared/responses';
import { unexpectedAnswer } from '../shared/responses';
import { nodeForErrors } from '../shared/secrets';
import { apiBaseUrl, CREDENTIAL_TYPE, REQUEST_DEFAULTS, sendRequest } from '../shared/transport';
import type { RequestContext } from '../shared/transport';

const PAGE_SIZE = 25;
const SCAN_ATTEMPTS = 3;
// A poll is not an item: it may wait out a 429 up to a minute, the window phpRank's limit counts in.
const POLL_RATE_LIMIT_WAIT_SECONDS = 60;

type PollItemContext = IPollFunctions & { getItemIndex: () => number };

/** The poll's context, seen as the context of one item so that errors read as they do in a run. */
export function pollContext(context: IPollFunctions): PollItemContext {
	return Object.assign(Object.create(context) as IPollFunctions, { getItemIndex: () => 0 });
}

export async function readPage(
	context: IPollFunctions,
	path: '/reports' | '/projects',
	qs: IDataObject,
	subject: RequestSubject,
): Promise<PageEnvelope & IDataObject> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	const body = await sendRequest(
		pollContext(context) as RequestContext,
		{ ...REQUEST_DEFAULTS, method: 'GET', baseURL: apiBaseUrl(credentials.baseUrl), url: path, qs },
		() => subject,
		POLL_RATE_LIMIT_WAIT_SECONDS,
	);
	const meta = body.meta as IDataObject | undefined;
	if (!Array.isArray(body.data) || typeof meta?.total !== 'number' || typeof meta?.last_page !== 'number') {
		throw unexpectedAnswer(pollContext(context), 'page of records ("data" and "meta")');
	}
	return body as PageEnvelope & IDataObject;
}

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
	path: '/reports' | '/projects',
	qs: IDataObject,
	subject: RequestSubject,
	watermark: Watermark,
): Promise<IDataObject[]> {
	for (let attempt = 1; attempt <= SCAN_ATTEMPTS; attempt++) {
		const fresh = new Map<string, IDataObject>();
		let firstTotal: number | undefined;
		let shrank = false;
		for (let page = 1; ; page++) {
			const body = await readPage(context, path, { ...qs, per_page: PAGE_SIZE, page }, subject);
			firstTotal ??= body.meta.total;
			if ((body.meta.total ?? 0) < (firstTotal ?? 0)) {
				shrank = true;
				break;
			}
			for (const record of body.data) {
				if (!watermark.isSeen(record) && !fresh.has(watermark.keyOf(record))) fresh.set(watermark.keyOf(record), record);
			}
			const reachedOlder = body.data.some(watermark.isOlder);
			if (reachedOlder || body.meta.current_page >= body.meta.last_page || body.data.length === 0) break;
		}
		if (!shrank) return [...fresh.values()];
	}
	throw new NodeApiError(nodeForErrors(context.getNode()), {} as JsonObject, {
		message: `${subject.name} kept shrinking while it was read`,
		description: `Records were deleted during each of ${SCAN_ATTEMPTS} reads; nothing was emitted, and the next poll reads again.`,
	});
}

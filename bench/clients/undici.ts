/**
 * The baseline: a raw undici client doing each job the way a hand-written integration would at
 * best. Pages of 100 for Return All, the smallest page that holds a limit, every item's request at
 * once for the 1,000-item jobs; each report gains the same `grade` the node adds.
 */
import { Agent, request } from 'undici';

import { resultBandOf } from '../../dev/server/listQuery';
import type { Job, PageWindow, Target } from '../plan';
import { fewestWindows, inputItems, LARGEST_PAGE_SIZE, smallestPageSizeHolding } from '../plan';

type Json = Record<string, unknown>;

interface Page {
	data: Json[];
	meta: { current_page: number; last_page: number };
}

// One dispatcher per process, as n8n keeps one HTTP agent for all executions.
const dispatcher = new Agent();

async function call(target: Target, path: string, init: { method?: 'GET' | 'POST'; body?: string } = {}): Promise<Json> {
	const headers = { authorization: `Bearer ${target.apiKey}`, accept: 'application/json' };
	const { statusCode, body } = await request(`${target.url}/api/v1${path}`, {
		dispatcher,
		method: init.method ?? 'GET',
		headers: init.body === undefined ? headers : { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
		body: init.body,
	});
	const json = (await body.json()) as Json;
	if (statusCode < 200 || statusCode > 299) throw new Error(`phpRank answered ${statusCode} to ${init.method ?? 'GET'} ${path}`);
	return json;
}

// The node's grade is phpRank's own band of the score, the one its `result` filter applies.
function withGrade(report: Json): Json {
	return typeof report.result === 'number' ? { ...report, grade: resultBandOf(report.result) } : report;
}

function* pagesOfOneSize(perPage: number): Generator<PageWindow> {
	for (let page = 1; ; page++) yield { perPage, page };
}

/** These pages, until the limit is in hand or the list ends. */
async function fetchPages(target: Target, job: Extract<Job, { kind: 'list' }>, windows: Iterable<PageWindow>): Promise<Json[]> {
	const limit = job.limit ?? Infinity;
	const records: Json[] = [];
	for (const window of windows) {
		if (records.length >= limit) break;
		const body = (await call(target, `/${job.resource}?per_page=${window.perPage}&page=${window.page}`)) as unknown as Page;
		// A page may start before the records in hand end (page sizes mixed): keep only the new ones.
		records.push(...body.data.slice(records.length - (window.page - 1) * window.perPage));
		if (body.meta.current_page >= body.meta.last_page) break;
	}
	return records.slice(0, limit);
}

export async function runUndici(job: Job, target: Target, options: { fewestRecords?: boolean } = {}): Promise<number> {
	switch (job.kind) {
		case 'list': {
			const shape = job.resource === 'reports' ? withGrade : (record: Json) => record;
			let windows: Iterable<PageWindow> = pagesOfOneSize(job.limit === undefined ? LARGEST_PAGE_SIZE : smallestPageSizeHolding(job.limit));
			// The fewest requests, then the fewest records: page sizes mixed (see fewestWindows).
			if (options.fewestRecords && job.limit !== undefined) windows = fewestWindows(job.limit, Number.MAX_SAFE_INTEGER);
			return (await fetchPages(target, job, windows)).map(shape).length;
		}
		case 'create': {
			const bodies = await Promise.all(
				inputItems(job).map(({ url }) =>
					call(target, '/reports', { method: 'POST', body: new URLSearchParams({ url: String(url), privacy: '0' }).toString() }),
				),
			);
			return bodies.map((body) => withGrade(body.data as Json)).length;
		}
		case 'get': {
			const bodies = await Promise.all(inputItems(job).map(({ id }) => call(target, `/reports/${id}`)));
			return bodies.map((body) => withGrade(body.data as Json)).length;
		}
	}
}

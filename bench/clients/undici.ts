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

async function page(target: Target, resource: string, window: PageWindow): Promise<Page> {
	return (await call(target, `/${resource}?per_page=${window.perPage}&page=${window.page}`)) as unknown as Page;
}

/** Pages of one size until the limit is in hand or the list ends. */
async function pagesOfOneSize(target: Target, job: Extract<Job, { kind: 'list' }>, perPage: number): Promise<Json[]> {
	const limit = job.limit ?? Infinity;
	const records: Json[] = [];
	for (let number = 1; records.length < limit; number++) {
		const body = await page(target, job.resource, { perPage, page: number });
		records.push(...body.data);
		if (body.meta.current_page >= body.meta.last_page) break;
	}
	return records.slice(0, limit);
}

/** The fewest requests, then the fewest records: page sizes mixed (see fewestWindows). */
async function fewestRecords(target: Target, resource: string, limit: number): Promise<Json[]> {
	const records: Json[] = [];
	for (const window of fewestWindows(limit, Number.MAX_SAFE_INTEGER)) {
		const body = await page(target, resource, window);
		// A window may start before the records in hand end: keep only the new ones.
		const first = (window.page - 1) * window.perPage;
		records.push(...body.data.slice(records.length - first));
		if (body.meta.current_page >= body.meta.last_page) break;
	}
	return records.slice(0, limit);
}

export async function runUndici(job: Job, target: Target, options: { fewestRecords?: boolean } = {}): Promise<number> {
	switch (job.kind) {
		case 'list': {
			const shape = job.resource === 'reports' ? withGrade : (record: Json) => record;
			let records: Json[];
			if (job.limit === undefined) records = await pagesOfOneSize(target, job, LARGEST_PAGE_SIZE);
			else if (options.fewestRecords) records = await fewestRecords(target, job.resource, job.limit);
			else records = await pagesOfOneSize(target, job, smallestPageSizeHolding(job.limit));
			return records.map(shape).length;
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

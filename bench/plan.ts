/**
 * What `npm run bench` measures: the built node, the jobs, the clients that do them, and the fewest
 * requests and records each job can possibly take against phpRank.
 */
import path from 'node:path';

import { REPOSITORY_ROOT } from '../dev/n8n/util';
import type { PhpRankServer } from '../dev/server';
import { PER_PAGE_CHOICES } from '../dev/server/listQuery';

/**
 * The built package: `dist/`, or the copy of it the benchmark took when it started (BENCH_DIST),
 * so that a rebuild in the working tree during a run cannot change or remove what is measured.
 */
export function builtPackage(directory = process.env.BENCH_DIST ?? path.join(REPOSITORY_ROOT, 'dist')) {
	return {
		directory,
		node: path.join(directory, 'nodes', 'PhpRank', 'PhpRank.node.js'),
		credentials: path.join(directory, 'credentials', 'PhpRankApi.credentials.js'),
	};
}

/** The largest page phpRank serves. */
export const LARGEST_PAGE_SIZE = Math.max(...PER_PAGE_CHOICES);

export type Job =
	/** Get Many: every record (no limit) or the first `limit`, of `total` on the server. */
	| { kind: 'list'; resource: 'reports' | 'projects'; total: number; limit?: number }
	/** `items` input items, each creating a report or getting one. */
	| { kind: 'create' | 'get'; items: number };

/** The phpRank server a client talks to. */
export type Target = Pick<PhpRankServer, 'url' | 'apiKey'>;

/** The items pinned on the Manual Trigger: one empty item for a list, else a URL to create a report for or a report ID to get. */
export function inputItems(job: Job): Array<Record<string, string | number>> {
	if (job.kind === 'list') return [{}];
	return Array.from({ length: job.items }, (_, index): Record<string, string | number> =>
		job.kind === 'create' ? { url: `https://bench.example.com/page-${index}` } : { id: index + 1 },
	);
}

/** One page request: `per_page` and `page`. */
export type PageWindow = { perPage: number; page: number };

export const VARIANT_LABELS = {
	phpRank: 'phpRank node',
	phpRankKnownLimit: 'phpRank node, limit known',
	phpRankShownOnly: 'phpRank node, shown properties only',
	floor: 'declarative floor',
	floorPadded: 'declarative floor + hidden properties',
	undici: 'undici (baseline)',
	undiciFewest: 'undici, fewest records',
	httpRequest: 'HTTP Request node',
	httpRequestMeta: 'HTTP Request, meta check',
};

export type VariantId = keyof typeof VARIANT_LABELS;

/** Records the page holds when the server has `total` of them. */
export function recordsOnPage(window: PageWindow, total: number): number {
	const first = (window.page - 1) * window.perPage;
	return Math.max(0, Math.min(window.perPage, total - first));
}

function pageCount(total: number, perPage: number): number {
	return Math.max(1, Math.ceil(total / perPage));
}

export function smallestPageSizeHolding(count: number): number {
	return PER_PAGE_CHOICES.find((size) => size >= count) ?? LARGEST_PAGE_SIZE;
}

/** Pages of one size until `limit` records are in hand (or the list ends): what a client with one page size does. */
export function onePageSizeWindows(limit: number, total: number, perPage = smallestPageSizeHolding(limit)): PageWindow[] {
	const wanted = Math.min(limit, total);
	const pages = Math.min(pageCount(total, perPage), Math.max(1, Math.ceil(wanted / perPage)));
	return Array.from({ length: pages }, (_, index) => ({ perPage, page: index + 1 }));
}

/**
 * The requests that get the first `limit` records with the fewest requests and, among those, the
 * fewest records. phpRank pages are aligned windows ((page - 1) * per_page onwards), so page sizes
 * may be mixed: 100 records of page 1 and then page 11 of 10 (records 101 to 110) hold 101.
 */
export function fewestWindows(limit: number, total: number): PageWindow[] {
	const target = Math.min(limit, total);
	type Best = { requests: number; records: number; windows: PageWindow[] };
	// best[x]: the cheapest way to have records 1..x in hand (x capped at the target). Every window
	// reaches past x, so walking x upwards settles each before it is extended.
	const best = new Map<number, Best>([[0, { requests: 0, records: 0, windows: [] }]]);
	const better = (a: Best, b: Best | undefined) =>
		b === undefined || a.requests < b.requests || (a.requests === b.requests && a.records < b.records);
	for (let x = 0; x < target; x++) {
		const from = best.get(x);
		if (!from) continue;
		for (const perPage of PER_PAGE_CHOICES) {
			// The page holding record x + 1 (it may start before x + 1: its first records are fetched twice).
			const window = { perPage, page: Math.floor(x / perPage) + 1 };
			const reach = Math.min(window.page * perPage, total, target);
			const next = {
				requests: from.requests + 1,
				records: from.records + recordsOnPage(window, total),
				windows: [...from.windows, window],
			};
			if (better(next, best.get(reach))) best.set(reach, next);
		}
	}
	return best.get(target)!.windows;
}

/** The fewest requests and records, and how that minimum is reached (for the table). */
export type Fewest = { requests: number; records: number; how: string };

export function fewestPossible(job: Job): Fewest {
	if (job.kind !== 'list') return { requests: job.items, records: job.items, how: 'one request per item' };
	if (job.limit === undefined) {
		const requests = pageCount(job.total, LARGEST_PAGE_SIZE);
		return { requests, records: job.total, how: `${requests} page${requests === 1 ? '' : 's'} of ${LARGEST_PAGE_SIZE}` };
	}
	const windows = fewestWindows(job.limit, job.total);
	const records = windows.reduce((sum, window) => sum + recordsOnPage(window, job.total), 0);
	return { requests: windows.length, records, how: describeWindows(windows) };
}

/** "pages 1-2 of 100 + page 5 of 50" */
export function describeWindows(windows: PageWindow[]): string {
	const runs: Array<{ perPage: number; first: number; last: number }> = [];
	for (const { perPage, page } of windows) {
		const run = runs[runs.length - 1];
		if (run && run.perPage === perPage && run.last === page - 1) run.last = page;
		else runs.push({ perPage, first: page, last: page });
	}
	return runs
		.map(({ perPage, first, last }) => (first === last ? `page ${first} of ${perPage}` : `pages ${first}-${last} of ${perPage}`))
		.join(' + ');
}

/** Items each job must output: the proof that the client did the whole job. */
export function expectedOutput(job: Job): number {
	if (job.kind !== 'list') return job.items;
	return job.limit === undefined ? job.total : Math.min(job.limit, job.total);
}

/** A small version of a job, run once in each process first so that every code path is loaded. */
export function primingJob(job: Job): Job {
	return job.kind === 'list' ? { ...job, limit: 1 } : { ...job, items: 1 };
}

export function describeJob(job: Job): string {
	if (job.kind !== 'list') return `${job.items} items, each ${job.kind === 'create' ? 'creating' : 'getting'} a report`;
	const what = job.resource === 'reports' ? 'reports' : 'projects';
	return job.limit === undefined ? `Return All over ${job.total} ${what}` : `Limit ${job.limit} over ${job.total} ${what}`;
}

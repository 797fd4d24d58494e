/**
 * A big site audited on a schedule: N pages of one site through Report > Create with Re-Analyze if Older Than
 * (6 days) in one execution, against the bundled server at phpRank's 60 requests a window (1 s here,
 * a minute on phpRank). Four runs: the first (nothing held), the same run again (every report fresh), a run after a
 * tenth of the reports were made 7 days older, and, on a new server, a run stopped at 60 % (its first 60 % of rows)
 * then run again whole. Against the fewest requests each run needs and the least time the rate limit allows.
 *
 *   npm run bench:site-audit -- [pages=10000]
 *   npm run bench:site-audit -- 300        a quick check that the case works
 */
import { startPhpRankServer } from '../dev/server';
import type { PhpRankServer } from '../dev/server';
import { runNode } from '../dev/engine';
import { describeRun, log, markdownTable, runScript } from './processes';

const RATE_LIMIT = { maxAttempts: 60, decaySeconds: 1, preciseRetryAfter: true };
const WINDOW_MS = RATE_LIMIT.decaySeconds * 1000;
const PAGE_SIZE = 100;
const DAY_SECONDS = 24 * 3600;

const pageUrl = (index: number) => `https://www.shop.example.com/product-${index}`;

interface RunFigures {
	wallMs: number;
	/** From the first request phpRank received to the last answer: the span the rate limit governs. */
	requestsMs: number;
	reads: number;
	creates: number;
	reanalyses: number;
	refused: number;
	failedItems: number;
	duplicates: number;
	/**
	 * The heap's growth over the run with its output items held, in MiB: n8n's items and, in this process, the
	 * bundled server's new reports (a run that creates nothing shows the items alone).
	 */
	heapGrowthMiB: number;
	/** The output items as JSON, in MiB: what n8n keeps of the run for the next node. */
	itemsJsonMiB: number;
}

const heapUsed = () => {
	global.gc?.();
	return process.memoryUsage().heapUsed;
};

async function audit(server: PhpRankServer, pages: number): Promise<RunFigures> {
	const before = server.requests.length;
	const heapBefore = heapUsed();
	const started = Date.now();
	const result = await runNode({
		parameters: {
			resource: 'report',
			operation: 'create',
			url: '={{ $json.url }}',
			ifReportExists: 'reanalyzeIfOlder',
			olderThan: 6,
			olderThanUnit: 'days',
			// Compact answers, as the site audit examples ask for.
			options: { includeResults: false },
		},
		items: Array.from({ length: pages }, (_, index) => ({ url: pageUrl(index) })),
		credentials: { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } },
		continueOnFail: true,
		timeoutMs: 3_600_000,
	});
	const wallMs = Date.now() - started;
	const heapGrowthMiB = (heapUsed() - heapBefore) / 1024 ** 2;
	const sent = server.requests.slice(before);
	const answered = sent.filter((request) => request.status !== 429);
	const stored = server.reports();
	return {
		wallMs,
		requestsMs: sent.length === 0 ? 0 : Math.max(...sent.map((request) => request.answeredAt ?? request.time)) - sent[0].time,
		reads: answered.filter((request) => request.method === 'GET').length,
		creates: answered.filter((request) => request.method === 'POST').length,
		reanalyses: answered.filter((request) => request.method === 'PUT').length,
		refused: sent.length - answered.length,
		failedItems: result.error ? pages : result.items.filter((item) => item.json.error !== undefined).length,
		duplicates: stored.length - new Set(stored.map((report) => report.url)).size,
		heapGrowthMiB: result.items.length === pages ? heapGrowthMiB : NaN,
		itemsJsonMiB: result.items.reduce((sum, item) => sum + JSON.stringify(item.json).length, 0) / 1024 ** 2,
	};
}

/** The least time the rate limit allows `requests`: the last window's start, the first window opening at 0. */
const leastMs = (requests: number) => Math.floor((requests - 1) / RATE_LIMIT.maxAttempts) * WINDOW_MS;

async function main() {
	const [pages = 10_000] = process.argv.slice(2).map(Number);
	const reached = Math.round(pages * 0.6);
	const aged = Math.round(pages / 10);
	log(...describeRun('bench:site-audit'));
	log(
		`${pages} pages of one site through Report > Create (Re-Analyze if Older Than 6 days, compact answers), ` +
			`one execution a run, against the bundled server at ${RATE_LIMIT.maxAttempts} requests a window (${RATE_LIMIT.decaySeconds} s here, a minute on phpRank)`,
		'',
	);

	const server = await startPhpRankServer({ rateLimit: RATE_LIMIT });
	const first = await audit(server, pages);
	const again = await audit(server, pages);
	const ids = server.reports().map((report) => report.id);
	const agedIds = ids.filter((_, index) => index % 10 === 0).slice(0, aged);
	server.ageReports(agedIds, 7 * DAY_SECONDS);
	const afterAgeing = await audit(server, pages);
	await server.close();

	const resumed = await startPhpRankServer({ rateLimit: RATE_LIMIT });
	const stopped = await audit(resumed, reached);
	const rest = await audit(resumed, pages);
	await resumed.close();

	const pagesRead = (held: number) => Math.ceil(held / PAGE_SIZE);
	const runs: Array<{ label: string; figures: RunFigures; fewest: number }> = [
		{ label: 'first run, nothing held', figures: first, fewest: pages + 1 },
		{ label: 'run again, every report fresh', figures: again, fewest: pagesRead(pages) },
		{ label: `run again, ${agedIds.length} reports 7 days older`, figures: afterAgeing, fewest: pagesRead(pages) + agedIds.length },
		{ label: `stopped at 60 % (its first ${reached} rows)`, figures: stopped, fewest: reached + 1 },
		{ label: 'run again after the stop', figures: rest, fewest: pagesRead(reached) + (pages - reached) },
	];
	log(
		...markdownTable(
			['run', 'reads', 'creates', 're-analyses', 'requests (fewest)', "429s waited out", 'failed, duplicates', 'time, s', 'first request to last answer, s', 'least time the limit allows, s', 'ratio', 'heap growth, MiB', 'items as JSON, MiB'],
			runs.map(({ label, figures, fewest }) => {
				const requests = figures.reads + figures.creates + figures.reanalyses;
				return [
					label,
					figures.reads,
					figures.creates,
					figures.reanalyses,
					`${requests} (${fewest})`,
					figures.refused,
					`${figures.failedItems}, ${figures.duplicates}`,
					(figures.wallMs / 1000).toFixed(1),
					(figures.requestsMs / 1000).toFixed(1),
					(leastMs(requests) / 1000).toFixed(1),
					leastMs(requests) === 0 ? '-' : (figures.requestsMs / leastMs(requests)).toFixed(3),
					figures.heapGrowthMiB.toFixed(1),
					figures.itemsJsonMiB.toFixed(1),
				];
			}),
		),
		'',
	);
	const goals = [
		{ goal: 'first run within 1.05× the least time the rate limit allows (first request to last answer)', met: first.requestsMs <= 1.05 * leastMs(first.reads + first.creates) },
		{ goal: `run again, all fresh: at most pages/100 + 2 requests, no analysis`, met: again.reads + again.creates + again.reanalyses <= pages / PAGE_SIZE + 2 && again.creates + again.reanalyses === 0 },
		{ goal: 'after ageing: exactly the aged reports re-analyzed', met: afterAgeing.reanalyses === agedIds.length && afterAgeing.creates === 0 },
		{ goal: `after the stop: the remaining ${pages - reached} analyses plus the reads`, met: rest.creates === pages - reached && rest.reanalyses === 0 && rest.reads <= pagesRead(reached) + 2 },
		{ goal: 'no failed item, no duplicate', met: runs.every(({ figures }) => figures.failedItems === 0 && figures.duplicates === 0) },
	];
	log(...goals.map(({ goal, met }) => `${met ? 'met' : 'MISSED'}: ${goal}`));
}

runScript(main);

/**
 * Case 7 of `npm run bench`: a spreadsheet of one site's pages through Report > Create against the bundled server at
 * phpRank's 60 requests a minute, the window scaled down to 1 s as `npm run bench:rate-limit` does. Create Another
 * Report on a new server; Return the Existing Report on another, first with nothing held, then run again with every
 * page held. The fewest requests possible: a create a row, plus one read of the site for the first run; the re-run,
 * the site's reports read 100 a request.
 */
import { startPhpRankServer } from '../dev/server';
import type { PhpRankServer } from '../dev/server';
import { runNode } from '../dev/engine';
import { median } from './processes';

const RATE_LIMIT = { maxAttempts: 60, decaySeconds: 1, preciseRetryAfter: true };
const PAGE = 100;

type Choice = 'createAnother' | 'returnExisting';

async function runRows(server: PhpRankServer, choice: Choice, rows: number) {
	const before = server.requests.length;
	const started = Date.now();
	const result = await runNode({
		parameters: { resource: 'report', operation: 'create', url: '={{ $json.url }}', ifReportExists: choice },
		items: Array.from({ length: rows }, (_, index) => ({ url: `https://www.shop.example.com/product-${index}` })),
		credentials: { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } },
		continueOnFail: true,
		timeoutMs: 600_000,
	});
	const wallMs = Date.now() - started;
	const sent = server.requests.slice(before);
	const answered = sent.filter((request) => request.status !== 429);
	const stored = server.reports();
	return {
		wallMs,
		reads: answered.filter((request) => request.method === 'GET').length,
		creates: answered.filter((request) => request.method === 'POST').length,
		refused: sent.length - answered.length,
		failedItems: result.error ? rows : result.items.filter((item) => item.error !== undefined || item.json.error !== undefined).length,
		duplicates: stored.length - new Set(stored.map((report) => report.url)).size,
	};
}

type RunFigures = Awaited<ReturnType<typeof runRows>>;

/** One round: each run on its own server, the re-run on the first run's. */
async function measureRound(rows: number): Promise<RunFigures[]> {
	const plain = await startPhpRankServer({ rateLimit: RATE_LIMIT });
	const createAnother = await runRows(plain, 'createAnother', rows);
	await plain.close();
	const safe = await startPhpRankServer({ rateLimit: RATE_LIMIT });
	const first = await runRows(safe, 'returnExisting', rows);
	const again = await runRows(safe, 'returnExisting', rows);
	await safe.close();
	return [createAnother, first, again];
}

/** The runs of a round, in order, with the fewest requests each needs. */
const ONE_SITE_RUNS = [
	{ label: 'Create Another Report', fewest: (rows: number) => ({ reads: 0, creates: rows }) },
	{ label: 'Return the Existing Report, first run', fewest: (rows: number) => ({ reads: 1, creates: rows }) },
	{ label: 'Return the Existing Report, run again', fewest: (rows: number) => ({ reads: Math.ceil(rows / PAGE), creates: 0 }) },
];

export async function measureOneSite(rows: number, rounds: number) {
	const measured: RunFigures[][] = [];
	for (let round = 0; round < rounds; round++) measured.push(await measureRound(rows));
	return { rows, rounds: measured };
}

type OneSiteFigures = Awaited<ReturnType<typeof measureOneSite>>;

export function oneSiteTitle(rows: number): string {
	return `${rows} rows of one site through Report > Create, against phpRank's ${RATE_LIMIT.maxAttempts} requests a window (1 s here, a minute on phpRank)`;
}

const ratioText = (ratios: number[]) => `${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)})`;

export function oneSiteTable({ rows, rounds }: OneSiteFigures): string[] {
	return [
		'| run | reads | creates | requests | fewest possible | 429s waited out | failed items | duplicates | wall time, s: median (min-max) | time vs Create Another Report |',
		'|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
		...ONE_SITE_RUNS.map(({ label, fewest }, index) => {
			const runs = rounds.map((round) => round[index]);
			const last = runs[runs.length - 1];
			const least = fewest(rows);
			const seconds = runs.map((run) => run.wallMs / 1000);
			return `| ${label} | ${last.reads} | ${last.creates} | ${last.reads + last.creates} | ${least.reads + least.creates} | ${last.refused} | ${last.failedItems} | ${last.duplicates} | ${median(seconds).toFixed(1)} (${Math.min(...seconds).toFixed(1)}-${Math.max(...seconds).toFixed(1)}) | ${ratioText(rounds.map((round) => round[index].wallMs / round[0].wallMs))} |`;
		}),
	];
}

/** The goals: the fewest requests, nothing lost or twice, the first run as quick as Create Another Report, the re-run in a few windows. */
export function oneSiteVerdicts({ rows, rounds }: OneSiteFigures) {
	const windowMs = RATE_LIMIT.decaySeconds * 1000;
	const requestsMet = ONE_SITE_RUNS.every(({ fewest }, index) =>
		rounds.every((round) => round[index].reads === fewest(rows).reads && round[index].creates === fewest(rows).creates),
	);
	const sound = rounds.every((round) => round.every((run) => run.failedItems === 0 && run.duplicates === 0));
	const firstRatios = rounds.map(([createAnother, first]) => first.wallMs / createAnother.wallMs);
	const againWindows = rounds.map(([, , again]) => again.wallMs / windowMs);
	return [
		{ goal: 'requests: the fewest possible in every run, 0 failed items, 0 duplicates', met: requestsMet && sound, detail: requestsMet && sound ? 'yes' : 'no' },
		{ goal: 'first run within 1.05× of Create Another Report', met: median(firstRatios) <= 1.05, detail: `${ratioText(firstRatios)}×` },
		{ goal: 'run again within 3 windows', met: median(againWindows) <= 3, detail: `${ratioText(againWindows)} windows` },
	];
}

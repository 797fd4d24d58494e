/**
 * Case 6 of `npm run bench`: a spreadsheet of 120 URLs through Report > Create, every setting at its default,
 * against phpRank deployed as most are: a proxy that gives up after 60 s, a pool of PHP workers, 4 s an analysis,
 * phpRank's 60 requests a minute counted as PHP starts on a request. Time is scaled down 8 times. The least time
 * the server allows: every worker busy from the first request to the last, and no window of the rate limit
 * opened early.
 */
import { startPhpRankServer } from '../dev/server';
import type { PhpRankServer, RecordedRequest } from '../dev/server';
import { runNode } from '../dev/engine';

const SCALE = 1 / 8;
const ANALYSIS_MS = 4000 * SCALE;
const GATEWAY_TIMEOUT_MS = 60_000 * SCALE;
const RATE_LIMIT = { maxAttempts: 60, decaySeconds: 60 * SCALE };
const ROWS = 120;

function inFlightAt(requests: RecordedRequest[], time: number): number {
	return requests.filter((request) => request.time <= time && (request.answeredAt ?? Infinity) > time).length;
}

/** Every worker busy throughout, and the last window of the rate limit opening no earlier than it can. */
function leastMs(workers: number): number {
	const windows = Math.ceil(ROWS / RATE_LIMIT.maxAttempts);
	const lastWindowRows = ROWS - (windows - 1) * RATE_LIMIT.maxAttempts;
	const byWorkers = (ROWS * ANALYSIS_MS) / workers;
	const byRateLimit = (windows - 1) * RATE_LIMIT.decaySeconds * 1000 + Math.ceil(lastWindowRows / workers) * ANALYSIS_MS;
	return Math.max(byWorkers, byRateLimit);
}

/**
 * `rows` URLs through Report > Create, every setting at its default and On Error set to continue, as a
 * spreadsheet's rows would go; what the server holds once its analyses are done.
 */
export async function createReports(server: PhpRankServer, rows: number, timeoutMs = 600_000) {
	const started = Date.now();
	const result = await runNode({
		parameters: { resource: 'report', operation: 'create', url: '={{ $json.url }}' },
		items: Array.from({ length: rows }, (_, index) => ({ url: `https://shop.example.com/product-${index}` })),
		credentials: { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } },
		continueOnFail: true,
		timeoutMs,
	});
	const wallMs = Date.now() - started;
	await server.idle();
	const stored = server.reports();
	return {
		started,
		wallMs,
		failedItems: result.error ? rows : result.items.filter((item) => item.json.error !== undefined || item.error !== undefined).length,
		reports: stored.length,
		duplicates: stored.length - new Set(stored.map((report) => report.url)).size,
	};
}

export async function measureSlowServer(workers: number) {
	const server = await startPhpRankServer({ workers, analysisMs: ANALYSIS_MS, gatewayTimeoutMs: GATEWAY_TIMEOUT_MS, rateLimit: RATE_LIMIT });
	const { started, ...held } = await createReports(server, ROWS);
	const requests = server.requests;
	await server.close();
	const end = Math.max(...requests.map((request) => request.answeredAt ?? request.time));
	const times = requests.flatMap((request) => [request.time, request.answeredAt ?? end]);
	return {
		workers,
		...held,
		proxyAnswers: requests.filter((request) => request.status === 504).length,
		leastMs: leastMs(workers),
		mostInFlight: Math.max(...times.map((time) => inFlightAt(requests, time))),
		// Requests in flight at each tenth of the run.
		inFlightOverTime: Array.from({ length: 10 }, (_, tenth) => inFlightAt(requests, started + ((tenth + 0.5) * held.wallMs) / 10)),
	};
}

type SlowServerFigures = Awaited<ReturnType<typeof measureSlowServer>>;

export const SLOW_SERVER_TITLE = `${ROWS} rows through Report > Create, defaults everywhere, against phpRank behind a proxy (${GATEWAY_TIMEOUT_MS / 1000} s timeout), ${ANALYSIS_MS} ms an analysis, ${RATE_LIMIT.maxAttempts} requests per ${RATE_LIMIT.decaySeconds} s (phpRank's 4 s, 60 s and a minute, scaled 1/8)`;

export function slowServerTable(figures: SlowServerFigures[]): string[] {
	return [
		'| PHP workers | failed items | reports held | duplicates | 504s | wall time, s | least the server allows, s | ratio | most in flight | in flight at each tenth of the run |',
		'|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
		...figures.map(
			(f) =>
				`| ${f.workers} | ${f.failedItems} | ${f.reports} | ${f.duplicates} | ${f.proxyAnswers} | ${(f.wallMs / 1000).toFixed(1)} | ${(f.leastMs / 1000).toFixed(1)} | ${(f.wallMs / f.leastMs).toFixed(3)} | ${f.mostInFlight} | ${f.inFlightOverTime.join(' ')} |`,
		),
	];
}

/** The goals: nothing lost, nothing twice, and the server's own pace within 10 %. */
export function slowServerVerdicts(figures: SlowServerFigures[]) {
	return figures.map((f) => ({
		goal: `${f.workers} workers: 0 failed items, 0 duplicates, wall time within 1.1× of the least the server allows`,
		met: f.failedItems === 0 && f.duplicates === 0 && f.reports === ROWS && f.wallMs <= 1.1 * f.leastMs,
		detail: `${f.failedItems} failed, ${f.duplicates} duplicates, ${(f.wallMs / f.leastMs).toFixed(3)}×`,
	}));
}

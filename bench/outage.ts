/**
 * A phpRank restart in the middle of a bulk run: N rows through Report > Create with Return the Existing Report and
 * On Error set to continue, against the bundled server with a small PHP worker pool, once without an outage and
 * once with PHP stopped for S seconds when half the rows are stored, directly and behind the proxy (nginx's 502 at
 * once while PHP is down). Then the same with its database stopped instead (phpRank's own 500 to every request).
 * The figure: the run with the outage against the run without it plus the outage.
 *
 *   npm run bench:outage -- [rows=1000] [outageSeconds=15] [runs=1]
 *   npm run bench:outage -- 40 2 1        a quick check that the case works
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startPhpRankServer } from '../dev/server';
import type { PhpRankServer } from '../dev/server';
import { runNode } from '../dev/engine';
import { describeRun, log, markdownTable, median, runScript } from './processes';

// A small deployment: 4 PHP workers, a tenth of a second an analysis, so 1,000 rows take about half a minute.
const DEPLOYMENT = { workers: 4, analysisMs: 100 };
const PROXY_TIMEOUT_MS = 60_000;

const MODES = [
	{ name: 'directly', proxy: {} },
	{ name: 'behind the proxy', proxy: { gatewayTimeoutMs: PROXY_TIMEOUT_MS } },
];

/** What stops: PHP (a restart: refused connections, the proxy's 502) or its database (phpRank's own 500 to everything). */
const OUTAGES = [
	{ name: 'PHP restarted', stop: async (server: PhpRankServer, ms: number) => await server.outage(ms) },
	{ name: 'database restarted', stop: async (server: PhpRankServer, ms: number) => await server.storeOutage(ms) },
];

type Outage = (typeof OUTAGES)[number];

/** Stops PHP or the database once half the rows are stored, for `outageMs`; resolves with how long it was down. */
async function restartHalfWay(
	server: PhpRankServer,
	{ rows, outageMs, outage }: { rows: number; outageMs: number; outage: Outage },
	running: Promise<unknown>,
): Promise<number> {
	let finished = false;
	void running.then(() => (finished = true));
	while (server.reports().length < rows / 2) {
		if (finished) throw new Error('the run ended before half its rows were stored');
		await sleep(5);
	}
	const stoppedAt = Date.now();
	await outage.stop(server, outageMs);
	return Date.now() - stoppedAt;
}

async function measureOnce(rows: number, outageMs: number, proxy: object, outage: Outage) {
	const server = await startPhpRankServer({ ...DEPLOYMENT, ...proxy });
	const started = Date.now();
	const running = runNode({
		parameters: { resource: 'report', operation: 'create', url: '={{ $json.url }}', ifReportExists: 'returnExisting' },
		items: Array.from({ length: rows }, (_, index) => ({ url: `https://shop.example.com/product-${index}` })),
		credentials: { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } },
		continueOnFail: true,
		timeoutMs: 3_600_000,
	});
	const downMs = outageMs > 0 ? await restartHalfWay(server, { rows, outageMs, outage }, running) : 0;
	const result = await running;
	const wallMs = Date.now() - started;
	await server.idle();
	const stored = server.reports();
	const figures = {
		wallMs,
		downMs,
		failedItems: result.error ? rows : result.items.filter((item) => item.json.error !== undefined).length,
		reports: stored.length,
		duplicates: stored.length - new Set(stored.map((report) => report.url)).size,
		// Requests PHP never saw: the proxy's 502s while it was down.
		proxyAnswers: server.requests.filter((request) => request.status === 502 && request.startedAt === undefined).length,
		// phpRank's own 500s while its database was down.
		serverErrors: server.requests.filter((request) => request.status === 500).length,
	};
	await server.close();
	return figures;
}

async function main() {
	const [rows = 1000, outageSeconds = 15, runs = 1] = process.argv.slice(2).map(Number);
	log(...describeRun('bench:outage'));
	log(
		`${rows} rows through Report > Create (Return the Existing Report), ${DEPLOYMENT.workers} PHP workers, ${DEPLOYMENT.analysisMs} ms an analysis; PHP or its database stopped for ${outageSeconds} s when half the rows are stored`,
		'',
	);
	const table: Array<Array<string | number>> = [];
	for (const { outage, name, proxy } of OUTAGES.flatMap((outage) => MODES.map((mode) => ({ outage, ...mode })))) {
		const ratios: number[] = [];
		for (let run = 1; run <= runs; run++) {
			const without = await measureOnce(rows, 0, proxy, outage);
			const withOutage = await measureOnce(rows, outageSeconds * 1000, proxy, outage);
			const expectedMs = without.wallMs + withOutage.downMs;
			ratios.push(withOutage.wallMs / expectedMs);
			table.push([
				`${outage.name}, ${name}, run ${run}`,
				`${withOutage.failedItems} (${without.failedItems})`,
				`${withOutage.reports} (${without.reports})`,
				`${withOutage.duplicates} (${without.duplicates})`,
				withOutage.proxyAnswers,
				withOutage.serverErrors,
				(without.wallMs / 1000).toFixed(1),
				(withOutage.downMs / 1000).toFixed(1),
				(withOutage.wallMs / 1000).toFixed(1),
				((withOutage.wallMs - expectedMs) / 1000).toFixed(1),
				(withOutage.wallMs / expectedMs).toFixed(3),
			]);
		}
		if (runs > 1) log(`${outage.name}, ${name}: median ratio ${median(ratios).toFixed(3)}`);
	}
	log(
		...markdownTable(
			[
				'outage, reached',
				'failed items (without outage)',
				'reports',
				'duplicates',
				"proxy's 502s",
				"phpRank's 500s",
				'without outage, s',
				'outage, s',
				'with outage, s',
				'beyond without + outage, s',
				'ratio to without + outage',
			],
			table,
			[0, 1, 2, 3],
		),
	);
}

runScript(main);

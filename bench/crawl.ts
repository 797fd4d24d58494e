/**
 * Case 9, Site > Audit: a generated site of N pages (dev/server/auditSite.ts: a five-ary tree of links, ten broken
 * targets, a sitemap of every page) audited in one execution against the bundled server at phpRank's 60 requests a
 * window (1 s here, a minute on phpRank), then audited again at once. Against the least time the rate limit allows
 * the requests, and the fewest requests: the analyses and the site's reports read once (100 a request). Then a
 * 50,000-URL site crawled whole, phpRank (another process, no rate limit) analyzing every page: the engine's heap
 * above its start at the peak (sampled every 5 ms) and kept with the output held. Max Pages is twice the site's pages,
 * so that the crawl ends with the site, every broken target checked.
 *
 *   npm run bench:crawl -- [pages=1000] [bigSite=50000]
 *   npm run bench:crawl -- 200 2000        a quick check that the case works
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { getHeapStatistics } from 'node:v8';
import { startAuditSite, startPhpRankServer } from '../dev/server';
import type { AuditSite, PhpRankServer, RecordedRequest } from '../dev/server';
import { runNode } from '../dev/engine';
import { describeRun, log, markdownTable, runScript } from './processes';

const RATE_LIMIT = { maxAttempts: 60, decaySeconds: 1, preciseRetryAfter: true };
const WINDOW_MS = RATE_LIMIT.decaySeconds * 1000;
const PAGE_SIZE = 100;

/** The least time the rate limit allows `requests`: the last window's start, the first window opening at 0. */
const leastMs = (requests: number) => Math.floor((requests - 1) / RATE_LIMIT.maxAttempts) * WINDOW_MS;

const heapUsed = () => {
	global.gc?.();
	return process.memoryUsage().heapUsed;
};

async function audit(phpRank: { url: string; apiKey: string }, site: AuditSite, maxPages: number) {
	const started = Date.now();
	const result = await runNode({
		parameters: { resource: 'site', operation: 'audit', siteUrl: `${site.url}/`, maxPages },
		credentials: { phpRankApi: { baseUrl: phpRank.url, apiKey: phpRank.apiKey } },
		timeoutMs: 3_600_000,
	});
	return { result, wallMs: Date.now() - started };
}

function phpRankFigures(sent: RecordedRequest[]) {
	const answered = sent.filter((request) => request.status !== 429);
	return {
		reads: answered.filter((request) => request.method === 'GET').length,
		creates: answered.filter((request) => request.method === 'POST').length,
		reanalyses: answered.filter((request) => request.method === 'PUT').length,
		refused: sent.length - answered.length,
		brokenSent: answered.filter((request) => request.method === 'POST' && /\/missing-\d\.html$/.test(String(request.body.url))).length,
		spanMs: sent.length === 0 ? 0 : Math.max(...sent.map((request) => request.answeredAt ?? request.time)) - sent[0].time,
	};
}

/** The bundled server in a process of its own, so that its reports do not count in this process's heap. */
async function serverProcess(): Promise<{ url: string; apiKey: string; stop: () => void }> {
	const child = spawn(process.execPath, ['--import', 'tsx', 'dev/server/cli.ts', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
	const [line] = await new Promise<string[]>((resolve) => createInterface({ input: child.stdout }).once('line', (first) => resolve([first])));
	const { url, apiKey } = JSON.parse(line) as { url: string; apiKey: string };
	return { url, apiKey, stop: () => child.kill('SIGTERM') };
}

async function main() {
	const [pages = 1000, bigSite = 50_000] = process.argv.slice(2).map(Number);
	log(...describeRun('bench:crawl'));
	log(
		`Site > Audit of a generated site of ${pages} pages (10 broken targets), defaults (Sitemaps and Links, Re-Analyze if Older Than 7 days), ` +
			`against the bundled server at ${RATE_LIMIT.maxAttempts} requests a window (${RATE_LIMIT.decaySeconds} s here, a minute on phpRank)`,
		'',
	);

	const server: PhpRankServer = await startPhpRankServer({ rateLimit: RATE_LIMIT });
	const site = await startAuditSite({ generatedPages: pages });
	const first = await audit(server, site, 2 * pages);
	const firstSent = phpRankFigures(server.requests);
	const siteRequests = site.requests.length;
	server.clearRequests();
	const again = await audit(server, site, 2 * pages);
	const againSent = phpRankFigures(server.requests);
	await site.close();
	await server.close();

	const outcomes = (items: typeof first.result.items) => {
		const counts = new Map<string, number>();
		for (const { json } of items) counts.set(String(json.outcome ?? 'error'), (counts.get(String(json.outcome ?? 'error')) ?? 0) + 1);
		return [...counts].map(([outcome, count]) => `${count} ${outcome}`).join(', ');
	};
	const runs = [
		{ label: 'first run, nothing held', run: first, sent: firstSent, fewest: pages + 1 },
		{ label: 'run again, every report fresh', run: again, sent: againSent, fewest: Math.ceil(pages / PAGE_SIZE) },
	];
	log(
		...markdownTable(
			['run', 'items', 'reads', 'analyses', 'requests (fewest)', "429s waited out", 'sent for broken targets', 'time, s', 'first request to last answer, s', 'least time the limit allows, s', '× least'],
			runs.map(({ label, run, sent, fewest }) => {
				const requests = sent.reads + sent.creates + sent.reanalyses;
				return [
					label,
					outcomes(run.result.items),
					sent.reads,
					sent.creates + sent.reanalyses,
					`${requests} (${fewest})`,
					sent.refused,
					sent.brokenSent,
					(run.wallMs / 1000).toFixed(1),
					(sent.spanMs / 1000).toFixed(1),
					(leastMs(requests) / 1000).toFixed(1),
					leastMs(requests) === 0 ? '-' : (sent.spanMs / leastMs(requests)).toFixed(3),
				];
			}),
		),
		'',
		`The site got ${siteRequests} requests in the first run (robots.txt, the sitemap, each page and broken target once).`,
		'',
	);

	const phpRank = await serverProcess();
	const big = await startAuditSite({ generatedPages: bigSite });
	const heapBefore = heapUsed();
	let peak = heapBefore;
	const sampling = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
	const crawl = await audit(phpRank, big, 2 * bigSite);
	clearInterval(sampling);
	const keptMiB = (heapUsed() - heapBefore) / 1024 ** 2;
	const itemsJsonMiB = crawl.result.items.reduce((sum, item) => sum + JSON.stringify(item.json).length, 0) / 1024 ** 2;
	phpRank.stop();
	await big.close();
	const peakMiB = (peak - heapBefore) / 1024 ** 2;
	log(
		`A ${bigSite}-page site crawled whole and analyzed (phpRank in another process, no rate limit): ${outcomes(crawl.result.items)} in ${(crawl.wallMs / 1000).toFixed(1)} s; ` +
			`heap ${peakMiB.toFixed(0)} MiB above its start at the peak, ${keptMiB.toFixed(0)} MiB kept with the ${crawl.result.items.length} items held (${itemsJsonMiB.toFixed(1)} MiB as JSON); ` +
			`Node's heap limit ${(getHeapStatistics().heap_size_limit / 1024 ** 2).toFixed(0)} MiB`,
		'',
	);
	const goals = [
		{ goal: 'first run within 1.05× the least time the rate limit allows (first request to last answer)', met: firstSent.spanMs <= 1.05 * leastMs(firstSent.reads + firstSent.creates) },
		{ goal: 'requests to phpRank at most the analyses and the site read', met: firstSent.reads + firstSent.creates <= pages + 1 },
		{ goal: 'none for a broken target', met: firstSent.brokenSent === 0 && againSent.brokenSent === 0 },
		{ goal: 'run again within the age: reads only', met: againSent.creates + againSent.reanalyses === 0 && againSent.reads <= Math.ceil(pages / PAGE_SIZE) + 1 },
		{ goal: `the ${bigSite}-page site's crawl within 300 MiB of heap at its peak`, met: peakMiB <= 300 },
	];
	log(...goals.map(({ goal, met }) => `${met ? 'met' : 'MISSED'}: ${goal}`));
}

runScript(main);

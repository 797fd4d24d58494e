/**
 * Case 9, Site > Audit: a generated site of N pages (dev/server/auditSite.ts: a five-ary tree of links, ten broken
 * targets, a sitemap of every page) audited in one execution against the bundled server at phpRank's 60 requests a
 * window (1 s here, a minute on phpRank), then audited again at once. Against the least time the rate limit allows
 * the requests, and the fewest requests: the analyses and the site's reports read once (100 a request). Then a
 * 50,000-URL site crawled whole, the audit alone in a process (bench/crawlMemory.ts), phpRank in another (no rate
 * limit) analyzing every page: its live heap above n8n's own, sampled every second and kept with the output held;
 * then the same audit with the heap held to n8n's own and the goal's 300 MiB (--max-old-space-size), which catches
 * a peak between samples too; with `search` > 0, that many halvings toward the smallest limit it completes in. Max
 * Pages is twice the site's pages, so that the crawl ends with the site, every broken target checked.
 *
 *   npm run bench:crawl -- [pages=1000] [bigSite=50000] [search=0]
 *   npm run bench:crawl -- 200 2000        a quick check that the case works
 *   npm run bench:crawl -- 0 50000 2       the memory alone (0 leaves a part out)
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { startAuditSite, startPhpRankServer } from '../dev/server';
import type { AuditSite, PhpRankServer, RecordedRequest } from '../dev/server';
import { runNode } from '../dev/engine';
import { describeRun, log, markdownTable, runScript } from './processes';

const RATE_LIMIT = { maxAttempts: 60, decaySeconds: 1, preciseRetryAfter: true };
const WINDOW_MS = RATE_LIMIT.decaySeconds * 1000;
const PAGE_SIZE = 100;

/** The least time the rate limit allows `requests`: the last window's start, the first window opening at 0. */
const leastMs = (requests: number) => Math.floor((requests - 1) / RATE_LIMIT.maxAttempts) * WINDOW_MS;

/** The goal: the audit of a 50,000-page site needs at most this much heap above n8n's own. */
const GOAL_MIB = 300;

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

interface CrawlMeasure {
	error?: string;
	items: number;
	outcomes: Record<string, number>;
	wallS: number;
	readyMiB: number;
	peakAboveMiB: number;
	peakAtS: number;
	unsampledPeakAboveMiB: number;
	keptAboveMiB: number;
	itemsJsonMiB: number;
}

/**
 * The audit of the site in a process of its own (bench/crawlMemory.ts), against a new phpRank in another, with its
 * heap's old space held to `limitMiB` when given: the result, or why it did not complete (heap out of memory).
 */
async function measureCrawl(site: AuditSite, pages: number, limitMiB?: number): Promise<{ result?: CrawlMeasure; failure?: string }> {
	const phpRank = await serverProcess();
	const heapLimit = limitMiB === undefined ? [] : [`--max-old-space-size=${limitMiB}`];
	const child = spawn(process.execPath, ['--expose-gc', ...heapLimit, '--import', 'tsx', 'bench/crawlMemory.ts', `${site.url}/`, phpRank.url, phpRank.apiKey, String(2 * pages)], {
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (...ended) => resolve(ended)));
	phpRank.stop();
	site.clearRequests();
	const line = stdout.trim().split('\n').pop() ?? '';
	if (code === 0 && line.startsWith('{')) {
		const result = JSON.parse(line) as CrawlMeasure;
		if (result.error === undefined) return { result };
		return { failure: result.error };
	}
	const outOfMemory = /heap out of memory|Allocation failed/i.test(stderr);
	log(`(the audit at ${limitMiB ?? 'no'} MiB limit ended ${outOfMemory ? 'out of heap' : `with ${code ?? signal}: ${stderr.trim().split('\n').slice(-3).join(' ')}`})`);
	return { failure: outOfMemory ? 'heap out of memory' : `exit ${code ?? signal}` };
}

/** The audits at phpRank's rate limit: requests and time against the least the limit allows; the goals met or not. */
async function rateLimited(pages: number): Promise<Array<{ goal: string; met: boolean }>> {
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
		`The site got ${siteRequests} requests in the first run (robots.txt, the sitemap, each page and broken target once, the logo every page shows once).`,
		'',
	);

	return [
		{ goal: 'first run within 1.05× the least time the rate limit allows (first request to last answer)', met: firstSent.spanMs <= 1.05 * leastMs(firstSent.reads + firstSent.creates) },
		{ goal: 'requests to phpRank at most the analyses and the site read', met: firstSent.reads + firstSent.creates <= pages + 1 },
		{ goal: 'none for a broken target', met: firstSent.brokenSent === 0 && againSent.brokenSent === 0 },
		{ goal: 'run again within the age: reads only', met: againSent.creates + againSent.reanalyses === 0 && againSent.reads <= Math.ceil(pages / PAGE_SIZE) + 1 },
	];
}

/** The big site's audit alone in a process: its live heap, then held to the goal's heap and below; the goals met or not. */
async function crawlMemory(bigSite: number, search: number): Promise<Array<{ goal: string; met: boolean }>> {
	const big = await startAuditSite({ generatedPages: bigSite });
	const measured = await measureCrawl(big, bigSite);
	if (measured.result === undefined) throw new Error(`The ${bigSite}-page crawl failed: ${measured.failure}`);
	const crawl = measured.result;
	const outcomesOf = (counts: Record<string, number>) => Object.entries(counts).map(([outcome, count]) => `${count} ${outcome}`).join(', ');
	log(
		`A ${bigSite}-page site crawled whole and analyzed (the audit alone in a process, phpRank in another, no rate limit): ${outcomesOf(crawl.outcomes)} in ${crawl.wallS.toFixed(1)} s. ` +
			`Live heap (after a full collection) with n8n and the node ready: ${crawl.readyMiB.toFixed(0)} MiB; above it: ${crawl.peakAboveMiB.toFixed(0)} MiB at the peak of the samples every second (at ${crawl.peakAtS.toFixed(0)} s), ` +
			`${crawl.keptAboveMiB.toFixed(0)} MiB kept with the ${crawl.items} items held (${crawl.itemsJsonMiB.toFixed(1)} MiB as JSON); heapUsed uncollected reached ${crawl.unsampledPeakAboveMiB.toFixed(0)} MiB above it.`,
	);
	// The goal as a heap limit: the audit completes with n8n's own heap and 300 MiB more for everything V8 keeps.
	const goalLimitMiB = Math.ceil(crawl.readyMiB) + GOAL_MIB;
	const limitRun = async (limitMiB: number) => {
		const run = await measureCrawl(big, bigSite, limitMiB);
		log(`With --max-old-space-size=${limitMiB} (${limitMiB - Math.ceil(crawl.readyMiB)} MiB above n8n's own): ${run.result === undefined ? `failed (${run.failure})` : `completed, ${run.result.items} items in ${run.result.wallS.toFixed(1)} s`}.`);
		return run.result !== undefined;
	};
	const heldToGoal = await limitRun(goalLimitMiB);
	// Toward the smallest limit it completes in: below what it keeps with its items it cannot.
	let [below, completes] = [Math.floor(crawl.readyMiB + crawl.keptAboveMiB), heldToGoal ? goalLimitMiB : undefined];
	for (let step = 0; step < search && completes !== undefined && completes - below > 10; step++) {
		const limit = Math.round((below + completes) / 2);
		if (await limitRun(limit)) completes = limit;
		else below = limit;
	}
	await big.close();
	log('');
	return [
		{ goal: `the ${bigSite}-page site's audit completes within ${GOAL_MIB} MiB of heap above n8n's own`, met: heldToGoal },
		{ goal: `its live heap within ${GOAL_MIB} MiB above n8n's own at every sample`, met: crawl.peakAboveMiB <= GOAL_MIB },
	];
}

async function main() {
	const [pages = 1000, bigSite = 50_000, search = 0] = process.argv.slice(2).map(Number);
	log(...describeRun('bench:crawl'));
	// 0 leaves a part out: its time needs a quiet machine, the memory does not.
	const goals = [...(pages > 0 ? await rateLimited(pages) : []), ...(bigSite > 0 ? await crawlMemory(bigSite, search) : [])];
	log(...goals.map(({ goal, met }) => `${met ? 'met' : 'MISSED'}: ${goal}`));
}

runScript(main);

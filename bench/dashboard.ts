/**
 * The site health dashboard over a year of history: weekly audits of one site of N pages (52 runs: 52 × N rows of
 * phprank_audit_pages, 52 of phprank_audit_runs) in dev/engine's in-memory Data tables, and the dashboard example
 * served from its Webhook node in n8n's engine: the site's page (the latest run against the one before) and the
 * compare of the first run with the latest, each a few times, the median kept. The tables are in memory: what a
 * database adds to read them is measured in a real n8n by bench/dashboardN8n.ts.
 *
 *   npm run bench:dashboard -- [pages=5000] [runs=52] [repeats=5]
 *   npm run bench:dashboard -- 200 10 2     a quick check that the case works
 */
import { AUDIT_HISTORY_TABLES, auditHistoryTables, loadExampleWorkflow } from '../dev/examples';
import { runWebhook } from '../dev/engine';
import type { InMemoryDataTables } from '../dev/engine';
import { auditHistory } from './auditHistory';
import { describeRun, log, markdownTable, median, runScript } from './processes';

const SITE = 'shop.example.com';
const GOAL_MS = 2000;

function writeHistory(tables: InMemoryDataTables, pages: number, runs: number): void {
	for (const { pageRows, runRow } of auditHistory([{ site: SITE, pages }], runs)) {
		tables.insert(AUDIT_HISTORY_TABLES.pages.name, pageRows);
		tables.insert(AUDIT_HISTORY_TABLES.runs.name, [runRow]);
	}
}

async function serve(tables: InMemoryDataTables, query: Record<string, string>, repeats: number) {
	const workflow = loadExampleWorkflow('site-health-dashboard.json');
	const times: number[] = [];
	let bytes = 0;
	let points = 0;
	for (let repeat = 0; repeat < repeats; repeat++) {
		const started = process.hrtime.bigint();
		const result = await runWebhook(workflow, { query }, { dataTables: tables, timeoutMs: 120_000 });
		times.push(Number(process.hrtime.bigint() - started) / 1e6);
		if (result.error || result.response?.statusCode !== 200) throw result.error ?? new Error(`status ${String(result.response?.statusCode)}`);
		const html = String(result.response.body);
		bytes = Buffer.byteLength(html);
		points = (html.match(/data-score="/g) ?? []).length;
	}
	return { times, bytes, points };
}

async function main() {
	const [pages = 5000, runs = 52, repeats = 5] = process.argv.slice(2).map(Number);
	log(...describeRun('bench:dashboard'));
	log(`${runs} weekly runs of a ${pages}-page site: ${runs * pages} page rows and ${runs} run rows in dev/engine's in-memory Data tables; each page served ${repeats} times`, '');

	const tables = auditHistoryTables();
	const filling = Date.now();
	writeHistory(tables, pages, runs);
	log(`History written in ${((Date.now() - filling) / 1000).toFixed(1)} s`, '');
	const runIds = tables.rows(AUDIT_HISTORY_TABLES.runs.name).map((row) => String(row.runId));

	const cases: Array<{ label: string; query: Record<string, string> }> = [
		{ label: `site page (?site=${SITE}): the latest run against the one before`, query: { site: SITE } },
		{ label: 'compare: the first run against the latest', query: { site: SITE, from: runIds[0], to: runIds[runIds.length - 1] } },
		{ label: 'list of sites (no ?site=)', query: {} },
	];
	// The first run in a process loads n8n's node types: not what a page costs once n8n runs.
	const warmUp = await serve(tables, { site: SITE }, 1);
	log(`First page served (node types loaded) in ${warmUp.times[0].toFixed(0)} ms`, '');
	const rows: Array<Array<string | number>> = [];
	for (const { label, query } of cases) {
		const { times, bytes, points } = await serve(tables, query, repeats);
		rows.push([label, median(times).toFixed(0), Math.min(...times).toFixed(0), Math.max(...times).toFixed(0), (bytes / 1024).toFixed(1), points, median(times) < GOAL_MS ? 'yes' : 'no']);
	}
	log(...markdownTable(['page', 'median, ms', 'fastest, ms', 'slowest, ms', 'HTML, KiB', 'chart points', `under ${GOAL_MS / 1000} s`], rows), '');
	log(`Heap used after: ${(process.memoryUsage().heapUsed / 1024 ** 2).toFixed(0)} MiB`);
}

runScript(main);

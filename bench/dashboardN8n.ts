/**
 * The site health dashboard in a real n8n with its SQLite database: a year of weekly audits of a 5,000-page site
 * and a 200-page site (52 × 5,200 = 270,400 rows of phprank_audit_pages) written through n8n's REST API, the
 * dashboard example published with its Basic Auth credential, and its pages requested over HTTP, round after round,
 * the median and the spread kept, with the CPU time n8n's process spent on each. Then the history is pruned as `examples/audit-history-pruning.json` prunes it, and
 * the site's page requested again. n8n's own count of the tables' bytes (what it holds against
 * N8N_DATA_TABLES_MAX_SIZE_BYTES) gives the bytes a row, and from them the weeks each n8n line's default limit holds.
 *
 *   npm run bench:dashboard-n8n -- [--n8n 2.41.1] [--weeks 52] [--sites 5000,200] [--repeats 10] [--statements]
 *   npm run bench:dashboard-n8n -- --weeks 3 --sites 500,20 --repeats 2     a quick check that the case works
 *
 * --statements turns on n8n's log of its database queries and counts those of each page on each table (the
 * log slows n8n: the times are then not the dashboard's).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { AUDIT_HISTORY_TABLES } from '../dev/examples';
import { ensureDataTables, insertDataTableRows, personalProjectId, pickDataTablesAsOn1x } from '../dev/n8n/dataTables';
import { loadExamples } from '../dev/n8n/examples';
import { activateWorkflow } from '../dev/n8n/executions';
import { N8n, N8nRest } from '../dev/n8n/n8n';
import { ensureN8n } from '../dev/n8n/n8nInstall';
import { DEFAULT_RUNTIME, N8N_RUNTIMES } from '../dev/n8n/n8nVersions';
import { freePort, LOGS_DIR, sleep } from '../dev/n8n/util';
import { auditHistory, runStart, runsToPrune, type AuditedSite } from './auditHistory';
import { loadAverage, log, markdownTable, median, runScript } from './processes';

const DASHBOARD = 'site-health-dashboard.json';
const GOAL_MS = 2000;
const SITE_NAMES = ['shop.example.com', 'studio.example.net', 'blog.example.org'];
const OWNER = { email: 'owner@phprank-bench.test', password: 'PhpRank-bench-2026', firstName: 'Ada', lastName: 'Owner' };
const MIB = 1024 * 1024;
/** n8n's default limit on all Data tables together (N8N_DATA_TABLES_MAX_SIZE_BYTES), by line. */
const DEFAULT_LIMITS = [
	{ line: 'n8n 1.x (1.123)', bytes: 50 * MIB },
	{ line: 'n8n 2.x (2.41)', bytes: 200 * MIB },
];
/** The benchmark's own limit, so that a year fits on either line: reads do not depend on it. */
const BENCH_LIMIT_BYTES = 2048 * MIB;
/** How far the weeks a limit holds are looked for. */
const HORIZON_WEEKS = 52 * 30;

function options() {
	const argv = process.argv.slice(2);
	const value = (name: string) => {
		const index = argv.indexOf(`--${name}`);
		return index >= 0 ? argv[index + 1] : undefined;
	};
	const version = value('n8n') ?? DEFAULT_RUNTIME.n8nVersion;
	const runtime = N8N_RUNTIMES.find((candidate) => candidate.n8nVersion === version);
	if (!runtime) throw new Error(`--n8n ${version}: the versions are ${N8N_RUNTIMES.map((candidate) => candidate.n8nVersion).join(', ')}`);
	const pages = (value('sites') ?? '5000,200').split(',').map(Number);
	if (pages.length > SITE_NAMES.length || pages.some((count) => !Number.isInteger(count) || count < 1)) {
		throw new Error(`--sites: up to ${SITE_NAMES.length} page counts, e.g. 5000,200`);
	}
	const sites: AuditedSite[] = pages.map((count, index) => ({ site: SITE_NAMES[index], pages: count }));
	return { runtime, sites, weeks: Number(value('weeks') ?? 52), repeats: Number(value('repeats') ?? 10), statements: argv.includes('--statements'), argv };
}

const tablesPath = (projectId: string) => `/rest/projects/${encodeURIComponent(projectId)}/data-tables`;

/** n8n's own count of each Data table's bytes: what it holds against its size limit. */
async function tableBytes(rest: N8nRest, ids: Record<string, string>) {
	const sizes = await rest.call<{ totalBytes: number; dataTables: Record<string, { sizeBytes: number }> }>('GET', '/rest/data-tables-global/limits');
	return {
		total: sizes.totalBytes,
		pages: sizes.dataTables[ids[AUDIT_HISTORY_TABLES.pages.name]]?.sizeBytes ?? 0,
		runs: sizes.dataTables[ids[AUDIT_HISTORY_TABLES.runs.name]]?.sizeBytes ?? 0,
	};
}

/** The CPU time a process has used so far, in ms (Linux: /proc/<pid>/stat, user and system, all its threads). */
function cpuMs(pid: number): number {
	const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
	// utime and stime, fields 14 and 15 of the line, in clock ticks of 10 ms.
	return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface PageCase {
	label: string;
	query: Record<string, string>;
}

/** n8n's query log, when it is on: how many statements each page sends to each table. */
interface StatementLog {
	file: string;
	tables: Array<{ name: string; id: string }>;
}

const logSize = (file: string) => (existsSync(file) ? statSync(file).size : 0);

async function statementsSince(log: StatementLog, offset: number): Promise<string> {
	// n8n has written its log lines before the answer; they reach the file through its output pipe.
	await sleep(300);
	const written = readFileSync(log.file).subarray(offset).toString('utf8');
	return log.tables.map(({ name, id }) => `${written.split(`FROM "data_table_user_${id}"`).length - 1} on ${name}`).join(', ');
}

/** Each page requested once a round, `rounds` times: a slower moment of the machine falls on every page alike. */
async function requestPages(n8nPid: number, url: string, authorization: string, cases: PageCase[], rounds: number, log?: StatementLog) {
	const results = cases.map(() => ({ times: [] as number[], cpu: [] as number[], bytes: 0, points: 0, statements: '' }));
	for (let round = 0; round < rounds; round++) {
		for (const [index, { query }] of cases.entries()) {
			const logOffset = log ? logSize(log.file) : 0;
			const cpuBefore = cpuMs(n8nPid);
			const started = process.hrtime.bigint();
			const answer = await fetch(`${url}?${new URLSearchParams(query).toString()}`, { headers: { authorization } });
			const html = await answer.text();
			results[index].times.push(Number(process.hrtime.bigint() - started) / 1e6);
			results[index].cpu.push(cpuMs(n8nPid) - cpuBefore);
			if (answer.status !== 200) throw new Error(`${cases[index].label}: status ${answer.status}: ${html.slice(0, 300)}`);
			results[index].bytes = Buffer.byteLength(html);
			results[index].points = (html.match(/data-score="/g) ?? []).length;
			if (log) results[index].statements = await statementsSince(log, logOffset);
		}
	}
	return cases.map(({ label }, index) => {
		const { times, cpu, bytes, points, statements } = results[index];
		const middle = median(times);
		const spread = (values: number[]) => `${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)}`;
		const row = [label, middle.toFixed(0), spread(times), median(cpu).toFixed(0), spread(cpu), (bytes / 1024).toFixed(1), points, middle < GOAL_MS ? 'yes' : 'no'];
		return log ? [...row, statements] : row;
	});
}

/**
 * The weekly runs whose rows n8n saves before it refuses a write (it checks the tables' bytes before each write),
 * pruned each Sunday before the audit or not; undefined when the limit holds for the whole horizon.
 */
function weeksSaved(sites: readonly AuditedSite[], bytesPerPageRow: number, bytesPerRunRow: number, limit: number, pruned: boolean): number | undefined {
	let held: Array<{ site: string; runId: string; pages: number }> = [];
	for (let week = 0; week < HORIZON_WEEKS; week++) {
		if (pruned) {
			const deleted = new Set(runsToPrune(held, Date.parse(runStart(week, 0)) - 25 * 3_600_000));
			held = held.filter((run) => !deleted.has(run));
		}
		for (const [siteIndex, { site, pages }] of sites.entries()) {
			const bytes = held.reduce((sum, run) => sum + run.pages * bytesPerPageRow + bytesPerRunRow, 0);
			if (bytes >= limit) return week;
			held.push({ site, runId: runStart(week, siteIndex), pages });
		}
	}
	return undefined;
}

function describeWeeks(weeks: number | undefined): string {
	if (weeks === undefined) return `over ${HORIZON_WEEKS / 52} years`;
	return weeks < 104 ? `${weeks} weeks` : `${weeks} weeks (${(weeks / 52).toFixed(1)} years)`;
}

async function main() {
	const { runtime, sites, weeks, repeats, statements, argv } = options();
	const pageRows = weeks * sites.reduce((sum, { pages }) => sum + pages, 0);
	log(
		`Machine: ${os.availableParallelism()} CPUs, ${os.cpus()[0]?.model ?? 'unknown'}, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB memory`,
		`Load average at the start: ${loadAverage()}`,
		`Command: npm run bench:dashboard-n8n${argv.length ? ` -- ${argv.join(' ')}` : ''}`,
		`${weeks} weekly runs of ${sites.map(({ site, pages }) => `${site} (${pages} pages)`).join(' and ')}: ${pageRows} page rows, ${weeks * sites.length} run rows`,
		'',
	);
	const install = await ensureN8n({ runtime, log: (line) => log(line) });
	const work = mkdtempSync(path.join(os.tmpdir(), 'phprank-bench-dashboard-'));
	process.once('exit', () => rmSync(work, { recursive: true, force: true }));
	const userFolder = path.join(work, 'home');
	const logs = `bench-dashboard-${runtime.n8nVersion}/`;
	const queryLog = statements ? { DB_LOGGING_ENABLED: 'true', DB_LOGGING_OPTIONS: 'query' } : {};
	const n8n = new N8n(install, { userFolder, logs, env: { N8N_DATA_TABLES_MAX_SIZE_BYTES: String(BENCH_LIMIT_BYTES), ...queryLog } });

	const example = loadExamples().find((candidate) => candidate.file === DASHBOARD);
	const webhook = example?.workflow.nodes.find((node) => node.type === 'n8n-nodes-base.webhook');
	const reference = webhook?.credentials?.httpBasicAuth;
	if (!example || !webhook || !reference) throw new Error(`examples/${DASHBOARD}: no Webhook with Basic Auth`);
	const login = { user: 'dashboard', password: 'bench-dashboard-password' };
	await n8n.import('credentials', [{ ...reference, type: 'httpBasicAuth', data: login }]);
	await n8n.import('workflow', [example.workflow]);

	const running = await n8n.start(await freePort());
	log(`n8n ${install.n8nVersion} on Node.js ${install.nodeVersion}, SQLite, at ${running.url}`);
	try {
		const rest = new N8nRest(running.url);
		await rest.call('POST', '/rest/owner/setup', OWNER);
		await rest.login(OWNER);
		const projectId = await personalProjectId(rest);
		const ids = await ensureDataTables(rest, projectId, Object.values(AUDIT_HISTORY_TABLES));
		const filling = Date.now();
		const runs: Array<{ site: string; runId: string }> = [];
		for (const { site, runId, pageRows: rows, runRow } of auditHistory(sites, weeks)) {
			// The run row names its page rows' IDs, as a site audit's Run history row does.
			const pageRowIds = await insertDataTableRows(rest, projectId, ids[AUDIT_HISTORY_TABLES.pages.name], rows);
			await insertDataTableRows(rest, projectId, ids[AUDIT_HISTORY_TABLES.runs.name], [{ ...runRow, firstPageRowId: Math.min(...pageRowIds), lastPageRowId: Math.max(...pageRowIds) }]);
			runs.push({ site, runId });
		}
		const year = await tableBytes(rest, ids);
		log(`History written through POST …/data-tables/:id/insert (a run's rows a request) in ${((Date.now() - filling) / 1000).toFixed(0)} s`, '');
		const bytesPerPageRow = year.pages / pageRows;
		const bytesPerRunRow = year.runs / runs.length;

		await pickDataTablesAsOn1x(rest, install.n8nVersion, example.id, ids);
		await activateWorkflow(rest, install.n8nVersion, { workflowId: example.id });
		const pid = running.pid;
		if (pid === undefined) throw new Error('n8n has no process ID');
		const url = `${running.url}/webhook/${String(webhook.parameters.path)}`;
		const authorization = `Basic ${Buffer.from(`${login.user}:${login.password}`).toString('base64')}`;

		const [big, small] = sites;
		const bigRuns = runs.filter((run) => run.site === big.site);
		const cases: PageCase[] = [
			{ label: `${big.site} (${big.pages} pages): the latest run against the one before`, query: { site: big.site } },
			{ label: `${big.site}: compare the first run with the latest`, query: { site: big.site, from: bigRuns[0].runId, to: bigRuns[bigRuns.length - 1].runId } },
			...(small ? [{ label: `${small.site} (${small.pages} pages): the latest run against the one before`, query: { site: small.site } }] : []),
			{ label: 'list of sites', query: {} },
		];
		const header = ['page', 'median, ms', 'fastest-slowest, ms', 'n8n CPU, ms', 'CPU fewest-most, ms', 'HTML, KiB', 'chart points', `under ${GOAL_MS / 1000} s`, ...(statements ? ['statements'] : [])];
		const statementLog = statements
			? { file: path.join(LOGS_DIR, `${logs}n8n-start.log`), tables: Object.values(AUDIT_HISTORY_TABLES).map(({ name }) => ({ name, id: ids[name] })) }
			: undefined;
		if (statementLog) log("n8n's query log is on: the times below include writing it.", '');
		const first = await requestPages(pid, url, authorization, cases.slice(0, 1), 1);
		log(`First page after publishing (n8n loading what the workflow needs): ${first[0][1]} ms`, '');
		log(`Unpruned: ${pageRows} page rows; each page ${repeats} times, load average ${loadAverage()}`);
		log(...markdownTable(header, await requestPages(pid, url, authorization, cases, repeats, statementLog)), `Load average after: ${loadAverage()}`, '');

		const pruneAt = Date.parse(runStart(weeks, 0)) - 25 * 3_600_000;
		const pruned = runsToPrune(runs, pruneAt);
		const pruning = Date.now();
		for (const { site, runId } of pruned) {
			const filter = JSON.stringify({ type: 'and', filters: [{ columnName: 'runId', condition: 'eq', value: runId }, { columnName: 'site', condition: 'eq', value: site }] });
			for (const table of [AUDIT_HISTORY_TABLES.pages.name, AUDIT_HISTORY_TABLES.runs.name]) {
				await rest.call('DELETE', `${tablesPath(projectId)}/${encodeURIComponent(ids[table])}/rows?filter=${encodeURIComponent(filter)}`);
			}
		}
		const keptRows = pageRows - pruned.reduce((sum, run) => sum + (sites.find((candidate) => candidate.site === run.site)?.pages ?? 0), 0);
		const afterPruning = await tableBytes(rest, ids);
		log(`Pruned as the pruning example does on ${new Date(pruneAt).toISOString()}: ${pruned.length} runs deleted in ${((Date.now() - pruning) / 1000).toFixed(0)} s, ${keptRows} page rows kept`);
		log(`Pruned: each page ${repeats} times, load average ${loadAverage()}`);
		log(...markdownTable(header, await requestPages(pid, url, authorization, cases.slice(0, 2), repeats, statementLog)), `Load average after: ${loadAverage()}`, '');

		const database = path.join(userFolder, '.n8n', 'database.sqlite');
		log(
			'The tables as n8n counts them against N8N_DATA_TABLES_MAX_SIZE_BYTES (GET /rest/data-tables-global/limits):',
			...markdownTable(
				['history', 'page rows', 'phprank_audit_pages, bytes', 'phprank_audit_runs, bytes', 'all tables, MiB'],
				[
					['unpruned', pageRows, year.pages, year.runs, (year.total / MIB).toFixed(1)],
					['pruned', keptRows, afterPruning.pages, afterPruning.runs, (afterPruning.total / MIB).toFixed(1)],
				],
			),
			`Bytes a page row: ${bytesPerPageRow.toFixed(1)} (pruned: ${(afterPruning.pages / keptRows).toFixed(1)}); a run row: ${bytesPerRunRow.toFixed(1)}. SQLite file: ${(statSync(database).size / MIB).toFixed(1)} MiB`,
			'',
		);

		const variants = [...sites.map((site) => [site]), ...(sites.length > 1 ? [sites] : [])];
		const rows = DEFAULT_LIMITS.flatMap(({ line, bytes }) =>
			[false, true].map((prune) => [
				`${line}, ${bytes / MIB} MiB, ${prune ? 'pruned' : 'unpruned'}`,
				...variants.map((variant) => describeWeeks(weeksSaved(variant, bytesPerPageRow, bytesPerRunRow, bytes, prune))),
			]),
		);
		const names = variants.map((variant) => variant.map(({ pages }) => `${pages.toLocaleString('en-US')}-page site`).join(' + '));
		log('Weekly runs saved before n8n refuses the next write, at these bytes a row:', ...markdownTable(['limit', ...names], rows), '');
		log(`Load average at the end: ${loadAverage()}`);
	} finally {
		await running.stop();
	}
}

runScript(main);

/**
 * The examples that keep history in n8n's Data tables, run in a started n8n: the tables they name made through the
 * REST API first (as a user makes them on the Data tables page), then each example run as the editor's Execute
 * workflow runs it, and the rows it wrote read back through the REST API.
 */
import type { PhpRankServer } from '../../dev/server';
import { AUDIT_HISTORY_TABLES } from '../../dev/examples';
import { dataTableRows, ensureDataTables, insertDataTableRows, personalProjectId, pickDataTablesAsOn1x, type DataTableDefinition } from '../../dev/n8n/dataTables';
import type { Example } from '../../dev/n8n/examples';
import { itemsOf, listExecutions, runManually, waitForExecution, type Execution } from '../../dev/n8n/executions';
import type { N8nRest } from '../../dev/n8n/n8n';
import { majorOf } from '../../dev/n8n/n8nVersions';
import { assert, assertEqual, type Checks } from './checks';
import { EXPECTATIONS, GENERIC_EXPECTATION, snapshot } from './expectations';

const DEFINITIONS: DataTableDefinition[] = Object.values(AUDIT_HISTORY_TABLES);

export interface DataTableExamplesContext {
	rest: N8nRest;
	n8nVersion: string;
	phpRank: PhpRankServer;
	/** The examples to run, as imported (pointed at the bundled server). */
	examples: Example[];
	outputFolder: string;
}

export async function runDataTableExamples(checks: Checks, { rest, n8nVersion, phpRank, examples, outputFolder }: DataTableExamplesContext): Promise<void> {
	const wanted = [...new Set(examples.flatMap((example) => example.dataTables))];
	const unknown = wanted.filter((name) => !DEFINITIONS.some((table) => table.name === name));
	assert(unknown.length === 0, `no columns known for the Data tables ${unknown.join(', ')}`);
	const projectId = await checks.step('the owner\'s personal project (GET /rest/projects/personal)', async () => await personalProjectId(rest), (id) => id);
	const ids = await checks.step(
		`Data tables ${wanted.join(', ')} made through POST /rest/projects/:projectId/data-tables`,
		async () => await ensureDataTables(rest, projectId, DEFINITIONS.filter((table) => wanted.includes(table.name))),
		(made) => Object.entries(made).map(([name, id]) => `${name} ${id}`).join(', '),
	);

	for (const example of examples) {
		await checks.check(`examples/${example.file} runs as Execute workflow does (POST /rest/workflows/:id/run), its rows read back from n8n's Data tables`, async () => {
			await pickDataTablesAsOn1x(rest, n8nVersion, example.id, ids);
			const expectation = EXPECTATIONS[example.file] ?? GENERIC_EXPECTATION;
			expectation.prepare(phpRank);
			const before = snapshot(phpRank);
			const rowsBefore = await readTables(rest, projectId, ids);
			assertEqual(Object.values(rowsBefore).flat().length, 0, 'rows in the Data tables before the run');

			const executionId = await runManually(rest, n8nVersion, example.workflow);
			const execution = await waitForExecution(rest, executionId, 300_000);
			const error = execution.data.resultData.error;
			assert(!error, `the run failed at "${error?.node?.name ?? execution.data.resultData.lastNodeExecuted}": ${error?.message}`);
			assertEqual(execution.status, 'success', `status of execution ${executionId}`);
			const ran = expectation.verify(execution, phpRank, before, outputFolder);
			const tables = await readTables(rest, projectId, ids);
			const kept = expectation.verifyDataTables?.(tables, execution, phpRank) ?? `${Object.values(tables).flat().length} rows written`;
			return `execution ${executionId}: ${ran}; ${kept}`;
		});
	}
}

/** n8n 1.x's Data table node (version 1) finds a table by ID only: the user picks it from the list, where the notes say, and saves. */
async function readTables(rest: N8nRest, projectId: string, ids: Record<string, string>): Promise<Record<string, Array<Record<string, unknown>>>> {
	const tables: Record<string, Array<Record<string, unknown>>> = {};
	for (const [name, id] of Object.entries(ids)) tables[name] = await dataTableRows(rest, projectId, id);
	return tables;
}

const SITE_AUDIT_FILE = 'site-audit-offline.json';
const PRUNING_FILE = 'audit-history-pruning.json';
/** The bundled audit site, which the site audit example audits (dev/server/auditSite.ts). */
const SITE = '127.0.0.1';
const WEEK_SECONDS = 7 * 86_400;
const DAY_MS = 86_400_000;
/**
 * The page of the audit site changed before each further audit, to the worst and then the best quality: every run's
 * average differs from the one before, whatever the page's own quality (its URL's, the site's port included).
 */
const CHANGED_PATH = '/about.html';
const QUALITIES = [0, 1];
const NOT_SAVED = '*History not saved*';

const runsOf = (tables: Record<string, Array<Record<string, unknown>>>, site = SITE) =>
	(tables[AUDIT_HISTORY_TABLES.runs.name] ?? []).filter((row) => row.site === site).sort((a, b) => String(a.runId).localeCompare(String(b.runId)));
const summaryOf = (execution: Execution) => String(itemsOf(execution, 'Build summary')[0]?.text);
const runIdOf = (execution: Execution) => String(itemsOf(execution, 'Audit settings')[0]?.runAt);
const signed = (delta: number) => `${delta > 0 ? '+' : delta < 0 ? '\u2212' : '\u00b1'}${Math.abs(delta).toFixed(1)}`;

export interface HistoryChecksContext {
	rest: N8nRest;
	n8nVersion: string;
	phpRank: PhpRankServer;
	/** Every example, as imported (pointed at the bundled server). */
	examples: Example[];
	/** Stops n8n and starts it again on the same port and data, with these environment variables added. */
	restartWith(env: NodeJS.ProcessEnv): Promise<void>;
}

async function runToEnd(rest: N8nRest, n8nVersion: string, example: Example, triggerName?: string): Promise<Execution> {
	const executionId = await runManually(rest, n8nVersion, example.workflow, triggerName);
	const execution = await waitForExecution(rest, executionId, 300_000);
	const error = execution.data.resultData.error;
	assert(!error, `the run failed at "${error?.node?.name ?? execution.data.resultData.lastNodeExecuted}": ${error?.message}`);
	assertEqual(execution.status, 'success', `status of execution ${executionId}`);
	return execution;
}

/**
 * The audit history as n8n keeps it over several runs, on the tables the site audit wrote: the trend against the
 * right run, pruning a long backlog in one execution, and a write refused at the Data tables' size limit (n8n
 * started again with a lowered `N8N_DATA_TABLES_MAX_SIZE_BYTES`; the last of these checks, as it leaves n8n so).
 */
export async function runHistoryChecks(checks: Checks, context: HistoryChecksContext): Promise<void> {
	const { rest, n8nVersion, phpRank, examples } = context;
	const siteAudit = examples.find((example) => example.file === SITE_AUDIT_FILE);
	const pruning = examples.find((example) => example.file === PRUNING_FILE);
	assert(siteAudit && pruning, `examples/${SITE_AUDIT_FILE} and examples/${PRUNING_FILE} are needed`);
	const projectId = await personalProjectId(rest);
	const ids = await ensureDataTables(rest, projectId, DEFINITIONS);

	await checks.check(`examples/${SITE_AUDIT_FILE} twice more, a page changed before each: each summary's trend against the run before it, as ${AUDIT_HISTORY_TABLES.runs.name} holds them`, async () => {
		const executions: Execution[] = [];
		phpRank.reset();
		const changed = new URL(CHANGED_PATH, auditedSiteUrl(siteAudit)).href;
		for (const quality of QUALITIES) {
			phpRank.changePage(changed, { quality });
			// A week later for its report: the audit analyzes it again.
			phpRank.ageReports(phpRank.reports().filter((report) => report.targetUrl === changed).map((report) => report.id), WEEK_SECONDS);
			executions.push(await runToEnd(rest, n8nVersion, siteAudit));
		}
		const runs = runsOf(await readTables(rest, projectId, ids));
		const averages = runs.map((run) => Number(run.averageScore));
		assert(runs.length >= 3, `${runs.length} runs of ${SITE} in ${AUDIT_HISTORY_TABLES.runs.name}`);
		for (const [offset, execution] of executions.entries()) {
			const index = runs.findIndex((run) => run.runId === runIdOf(execution));
			assert(index > 0, `no row in ${AUDIT_HISTORY_TABLES.runs.name} for run ${runIdOf(execution)}, or no run before it`);
			assert(averages[index] !== averages[index - 1], `run ${index + 1} has the average of the run before it (${averages[index]}): the check proves nothing`);
			const fourBefore = index >= 4 ? `, ${signed(Math.round((averages[index] - averages[index - 4]) * 10) / 10)} since four runs ago (${averages[index - 4].toFixed(1)})` : '; no run four runs ago yet';
			assertEqual(
				summaryOf(execution).split('\n')[1],
				`Average score ${averages[index].toFixed(1)}: ${signed(Math.round((averages[index] - averages[index - 1]) * 10) / 10)} since the last run (${averages[index - 1].toFixed(1)})${fourBefore}`,
				`the trend of audit ${offset + 2}: against run ${index} of ${runs.length}`,
			);
		}
		return `averages ${averages.map((average) => average.toFixed(1)).join(', ')}; ${executions.map((execution) => summaryOf(execution).split('\n')[1]).join(' / ')}`;
	});

	await checks.check(`examples/${PRUNING_FILE} (its tables picked as its note says on n8n 1.x), on a backlog of ${BACKLOG_WEEKS} weeks of two sites: one execution leaves exactly the runs to keep, with their pages, ends with counts, and n8n keeps no deleted row`, async () => {
		await pickDataTablesAsOn1x(rest, n8nVersion, pruning.id, ids);
		await givePagesTableIdAsOn1x(rest, n8nVersion, pruning.id, ids[AUDIT_HISTORY_TABLES.pages.name]);
		const executionsBefore = (await listExecutions(rest, pruning.id)).length;
		const now = Date.now();
		const backlog = backlogRuns(now);
		await insertDataTableRows(rest, projectId, ids[AUDIT_HISTORY_TABLES.runs.name], backlog.map((run) => ({ ...run, pages: BACKLOG_PAGES, averageScore: 50, good: 0, decent: BACKLOG_PAGES, bad: 0, notAnalyzed: 0 })));
		await insertDataTableRows(
			rest,
			projectId,
			ids[AUDIT_HISTORY_TABLES.pages.name],
			backlog.flatMap((run) => Array.from({ length: BACKLOG_PAGES }, (_, page) => ({ ...run, url: `https://www.${run.site}/${page}`, score: 50, grade: 'decent' }))),
		);
		const before = await readTables(rest, projectId, ids);
		const execution = await runToEnd(rest, n8nVersion, pruning, 'Every Sunday at 05:00');
		const firedAt = String(itemsOf(execution, 'Pruning settings')[0]?.now);
		const after = await readTables(rest, projectId, ids);
		// The sub-workflow that deleted the page rows ran as an execution of its own, which n8n did not keep.
		const executionsKept = (await listExecutions(rest, pruning.id)).length - executionsBefore;
		assertEqual(executionsKept, 1, 'executions n8n kept of the pruning (its own, not the sub-workflow\'s)');
		const storedData = JSON.stringify(execution.data);
		assert(!storedData.includes('"url"'), 'the execution n8n kept holds deleted page rows');

		const key = (row: Record<string, unknown>) => `${String(row.site)} ${String(row.runId)}`;
		const expected = keptAt(Date.parse(firedAt), before[AUDIT_HISTORY_TABLES.runs.name]).map(key).sort();
		const deleted = before[AUDIT_HISTORY_TABLES.runs.name].length - expected.length;
		assert(deleted > 10, `${deleted} runs due: the check needs more than one execution's worth of the old limit`);
		assertEqual(after[AUDIT_HISTORY_TABLES.runs.name].map(key).sort(), expected, `${AUDIT_HISTORY_TABLES.runs.name}: the runs to keep, after one execution`);
		assertEqual([...new Set(after[AUDIT_HISTORY_TABLES.pages.name].map(key))].sort(), expected, `${AUDIT_HISTORY_TABLES.pages.name}: the pages of exactly those runs`);
		// Per site, in one order: the runs of other checks (a site named with quotes and tags) come in any order.
		const bySite = (entries: Array<[string, number]>) => Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1)));
		const counted = (node: string) => bySite(itemsOf(execution, node).map((item) => [String(item.site), Number(item.count_id)]));
		const removed = (table: string) => {
			const left = new Set(after[table].map((row) => row.id));
			const counts: Record<string, number> = {};
			for (const row of before[table].filter((candidate) => !left.has(candidate.id))) counts[String(row.site)] = (counts[String(row.site)] ?? 0) + 1;
			return bySite(Object.entries(counts));
		};
		assertEqual(counted('Runs deleted'), removed(AUDIT_HISTORY_TABLES.runs.name), 'Runs deleted: the runs deleted per site');
		assertEqual(counted('Delete their pages'), removed(AUDIT_HISTORY_TABLES.pages.name), 'Delete their pages: the page rows deleted per site');
		assertEqual(execution.data.resultData.lastNodeExecuted, 'Runs deleted', 'the node the execution ends with');
		const bytes = (node: string) => JSON.stringify(execution.data.resultData.runData[node] ?? []).length;
		return `${deleted} runs and ${Object.values(removed(AUDIT_HISTORY_TABLES.pages.name)).reduce((sum, count) => sum + count, 0)} page rows deleted in execution ${execution.id}, the only execution kept; its data ${storedData.length} bytes: Delete their pages ${bytes('Delete their pages')}, Runs deleted ${bytes('Runs deleted')}`;
	});

	await checks.check(`examples/${SITE_AUDIT_FILE} with N8N_DATA_TABLES_MAX_SIZE_BYTES just above what the tables hold: the run's page rows go in, its run row is refused, the pages are deleted again and the summary says "not saved"; once room is made, the next run is saved`, async () => {
		const { totalBytes } = await rest.call<{ totalBytes: number }>('GET', '/rest/data-tables-global/limits');
		const limit = totalBytes + 1;
		await context.restartWith({ N8N_DATA_TABLES_MAX_SIZE_BYTES: String(limit) });

		const refused = await runToEnd(rest, n8nVersion, siteAudit);
		const afterRefused = await readTables(rest, projectId, ids);
		assert(summaryOf(refused).includes(`\n${NOT_SAVED}\n`), `the summary does not say the history was not saved:\n${summaryOf(refused)}`);
		assert(summaryOf(refused).includes('N8N_DATA_TABLES_MAX_SIZE_BYTES') && summaryOf(refused).includes('audit-history-pruning.json'), 'the summary names neither the limit nor the pruning example');
		assertEqual(itemsOf(refused, 'Save page results').map((item) => item.insertedRows), [itemsOf(refused, 'Page history rows').length], 'page rows n8n took (the write that crosses the limit goes through)');
		assertEqual(itemsOf(refused, 'Save run summary')[0]?.insertedRows, undefined, 'the run rows n8n took (none: past the limit)');
		for (const table of DEFINITIONS) {
			assertEqual(afterRefused[table.name].filter((row) => row.runId === runIdOf(refused)).length, 0, `rows of the refused run left in ${table.name}`);
		}
		assertWholeRuns(afterRefused);

		// Room made: the site's earlier runs deleted, as the Data tables page or the pruning workflow would.
		const freed = (await deleteRows(rest, projectId, ids[AUDIT_HISTORY_TABLES.pages.name], SITE)) + (await deleteRows(rest, projectId, ids[AUDIT_HISTORY_TABLES.runs.name], SITE));
		const saved = await runToEnd(rest, n8nVersion, siteAudit);
		const afterSaved = await readTables(rest, projectId, ids);
		assert(!summaryOf(saved).includes(NOT_SAVED), 'the run after room was made says the history was not saved');
		assertEqual(runsOf(afterSaved).map((run) => run.runId), [runIdOf(saved)], `${AUDIT_HISTORY_TABLES.runs.name}: the run saved`);
		assertEqual(
			afterSaved[AUDIT_HISTORY_TABLES.pages.name].filter((row) => row.runId === runIdOf(saved)).length,
			itemsOf(saved, 'Page history rows').length,
			`${AUDIT_HISTORY_TABLES.pages.name}: its page rows`,
		);
		assertWholeRuns(afterSaved);
		return `limit ${limit} bytes (the tables measured ${totalBytes}): run ${runIdOf(refused)} not saved, nothing of it left; ${freed} rows deleted, run ${runIdOf(saved)} saved`;
	});
}

/** The Site URL the site audit example audits, as imported (pointed at the bundled audit site). */
function auditedSiteUrl(siteAudit: Example): string {
	const settings = siteAudit.workflow.nodes.find((node) => node.name === 'Audit settings')?.parameters.assignments as { assignments: Array<{ name: string; value: unknown }> } | undefined;
	const siteUrl = settings?.assignments.find((assignment) => assignment.name === 'siteUrl')?.value;
	assert(typeof siteUrl === 'string', 'Audit settings has no siteUrl');
	return siteUrl;
}

/**
 * What the pruning's note tells an n8n 1.x user besides the picks: its sub-workflow's Data table node reads the
 * pages table from *Pruning settings* (pagesTable), where 1.x needs the table's ID instead of its name.
 */
async function givePagesTableIdAsOn1x(rest: N8nRest, n8nVersion: string, workflowId: string, pagesTableId: string): Promise<void> {
	if (majorOf(n8nVersion) >= 2) return;
	type Assignment = { name: string; value: unknown };
	type Stored = { versionId: string; nodes: Array<{ name: string; parameters: { assignments?: { assignments: Assignment[] } } }> };
	const stored = await rest.call<Stored>('GET', `/rest/workflows/${workflowId}`);
	const setting = stored.nodes.find((node) => node.name === 'Pruning settings')?.parameters.assignments?.assignments.find((assignment) => assignment.name === 'pagesTable');
	assert(setting?.value === AUDIT_HISTORY_TABLES.pages.name, `Pruning settings has no pagesTable "${AUDIT_HISTORY_TABLES.pages.name}" to replace`);
	setting.value = pagesTableId;
	await rest.call('PATCH', `/rest/workflows/${workflowId}`, { versionId: stored.versionId, nodes: stored.nodes });
}

/** Every run row has page rows and every page row its run row. */
function assertWholeRuns(tables: Record<string, Array<Record<string, unknown>>>): void {
	const runIds = (table: string) => [...new Set(tables[table].map((row) => `${String(row.site)} ${String(row.runId)}`))].sort();
	assertEqual(runIds(AUDIT_HISTORY_TABLES.pages.name), runIds(AUDIT_HISTORY_TABLES.runs.name), 'runs in the pages table and in the runs table');
}

const BACKLOG_WEEKS = 40;
const BACKLOG_PAGES = 4;

/** Weekly runs of two sites before `now`: one every week for 40 weeks, the other from week 15 on, both older than a day. */
function backlogRuns(now: number): Array<{ site: string; runId: string }> {
	const runs: Array<{ site: string; runId: string }> = [];
	for (let week = BACKLOG_WEEKS; week >= 1; week--) {
		const time = now - week * 7 * DAY_MS - DAY_MS;
		runs.push({ site: 'old-shop.example', runId: new Date(time).toISOString() });
		if (week <= BACKLOG_WEEKS - 15) runs.push({ site: 'old-blog.example', runId: new Date(time + 3_600_000).toISOString() });
	}
	return runs;
}

/** What pruning keeps, said plainly: every run of the last 12 weeks, and of each older month (UTC) a site's first run. */
function keptAt(now: number, runs: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
	const cutoff = new Date(now - 12 * 7 * DAY_MS).toISOString();
	const month = (run: Record<string, unknown>) => `${String(run.site)} ${String(run.runId).slice(0, 7)}`;
	const first = new Map<string, string>();
	for (const run of [...runs].sort((a, b) => String(a.runId).localeCompare(String(b.runId)))) if (!first.has(month(run))) first.set(month(run), String(run.runId));
	return runs.filter((run) => String(run.runId) >= cutoff || first.get(month(run)) === run.runId);
}

/** Deletes a site's rows through the REST API, as the Data tables page does; how many it deleted. */
async function deleteRows(rest: N8nRest, projectId: string, tableId: string, site: string): Promise<number> {
	const filter = encodeURIComponent(JSON.stringify({ type: 'and', filters: [{ columnName: 'site', condition: 'eq', value: site }] }));
	const deleted = await rest.call<unknown>('DELETE', `/rest/projects/${encodeURIComponent(projectId)}/data-tables/${encodeURIComponent(tableId)}/rows?filter=${filter}&returnData=true`);
	return Array.isArray(deleted) ? deleted.length : 0;
}

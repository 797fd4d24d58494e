import type { DataTableRow } from 'n8n-workflow';

import { runWorkflow } from '../../dev/engine';
import type { InMemoryDataTables, RunResult, SubWorkflowRun } from '../../dev/engine';
import { AUDIT_HISTORY_TABLES, auditHistoryTables, loadExampleWorkflow } from '../../dev/examples';

const WORKFLOW_FILE = 'audit-history-pruning.json';
const TRIGGER = 'Every Sunday at 05:00';
const DAY_MS = 86_400_000;
const KEEP_WEEKS = 12;
/** When n8n's Schedule Trigger fires, as it hands the time on: in the instance's time zone. */
const NOW = '2026-11-29T05:00:00.000+01:00';
const PAGES_PER_RUN = 3;

interface Run {
	site: string;
	runId: string;
}

/**
 * A year of weekly audits of two sites as the site audit writes them: one site every Monday at 06:00 UTC, the other
 * every Wednesday from the spring on; each run a row per site and a row per page.
 */
function yearOfRuns(): Run[] {
	const runs: Run[] = [];
	for (let time = Date.parse('2025-11-24T06:00:00.000Z'); time < Date.parse(NOW); time += 7 * DAY_MS) {
		runs.push({ site: 'brewshop.example', runId: new Date(time).toISOString() });
		const wednesday = time + 2 * DAY_MS + 3_600_000;
		if (wednesday >= Date.parse('2026-04-01T00:00:00.000Z') && wednesday < Date.parse(NOW)) runs.push({ site: 'teashop.example', runId: new Date(wednesday).toISOString() });
	}
	return runs;
}

function writeHistory(tables: InMemoryDataTables, runs: Run[]): void {
	const pages: DataTableRow[] = runs.flatMap(({ site, runId }) =>
		Array.from({ length: PAGES_PER_RUN }, (_, page) => ({ runId, runAt: runId, site, url: `https://www.${site}/${page}`, score: 50 + page, grade: 'decent', reportId: page + 1 })),
	);
	tables.insert(AUDIT_HISTORY_TABLES.pages.name, pages);
	tables.insert(
		AUDIT_HISTORY_TABLES.runs.name,
		runs.map(({ site, runId }) => ({ runId, runAt: runId, site, pages: PAGES_PER_RUN, averageScore: 51, good: 0, decent: PAGES_PER_RUN, bad: 0, notAnalyzed: 0 })),
	);
}

/** What pruning keeps, said plainly: every run of the last 12 weeks, and of each older month a site's first run. */
function keptAt(now: string, runs: Run[]): Run[] {
	const cutoff = Date.parse(now) - KEEP_WEEKS * 7 * DAY_MS;
	const month = (run: Run) => `${run.site} ${run.runId.slice(0, 7)}`;
	const firstOfMonth = new Map<string, Run>();
	for (const run of [...runs].sort((a, b) => a.runId.localeCompare(b.runId))) if (!firstOfMonth.has(month(run))) firstOfMonth.set(month(run), run);
	return runs.filter((run) => Date.parse(run.runId) >= cutoff || firstOfMonth.get(month(run)) === run);
}

const key = (run: { site: unknown; runId: unknown }) => `${String(run.site)} ${String(run.runId)}`;
const sortedKeys = (runs: Array<{ site: unknown; runId: unknown }>) => runs.map(key).sort();

async function prune(tables: InMemoryDataTables, now = NOW, subWorkflowRuns: SubWorkflowRun[] = []): Promise<RunResult> {
	const workflow = loadExampleWorkflow(WORKFLOW_FILE);
	// The clock is the trigger's: the time it fired, given as its output.
	return await runWorkflow({ ...workflow, pinData: { [TRIGGER]: [{ json: { timestamp: now, 'Day of week': 'Sunday' } }] } }, { dataTables: tables, subWorkflowRuns });
}

/** The sub-workflow *Delete their pages* runs, as its node holds it. */
function pagesSubWorkflow(): { nodes: Array<{ name: string; type: string; parameters: Record<string, unknown> }>; settings: Record<string, unknown> } {
	const node = loadExampleWorkflow(WORKFLOW_FILE).nodes.find((candidate) => candidate.name === 'Delete their pages');
	return JSON.parse(String(node?.parameters.workflowJson));
}

/** Prunes at `now` until a run deletes nothing; the runs each execution deleted. */
async function pruneUntilDone(tables: InMemoryDataTables, now = NOW): Promise<string[][]> {
	const deleted: string[][] = [];
	for (let execution = 0; execution < 20; execution++) {
		const result = await prune(tables, now);
		expect(result.error).toBeUndefined();
		const runs = result.output('Delete the run').map((item) => key(item.json as unknown as Run));
		if (runs.length === 0) return deleted;
		deleted.push(runs);
	}
	throw new Error('pruning did not finish within 20 executions');
}

describe('examples/audit-history-pruning.json', () => {
	let tables: InMemoryDataTables;
	const runs = yearOfRuns();
	const storedRuns = () => tables.rows(AUDIT_HISTORY_TABLES.runs.name).map((row) => ({ site: row.site, runId: row.runId }));
	const storedPages = () => tables.rows(AUDIT_HISTORY_TABLES.pages.name);

	beforeEach(() => {
		tables = auditHistoryTables();
		writeHistory(tables, runs);
	});

	it('runs weekly, on the two tables the site audits write, keeping 12 weeks', () => {
		const workflow = loadExampleWorkflow(WORKFLOW_FILE);

		expect(workflow.nodes.find((node) => node.name === TRIGGER)?.parameters).toEqual({ rule: { interval: [{ field: 'weeks', triggerAtDay: [0], triggerAtHour: 5 }] } });
		expect(
			workflow.nodes.filter((node) => node.type === 'n8n-nodes-base.dataTable').map((node) => [node.name, (node.parameters.dataTableId as { value: string }).value]),
		).toEqual([
			['Read runs', AUDIT_HISTORY_TABLES.runs.name],
			['Delete the run', AUDIT_HISTORY_TABLES.runs.name],
		]);
		const settings = JSON.stringify(workflow.nodes.find((node) => node.name === 'Pruning settings')?.parameters);
		expect(settings).toContain(`"name":"keepEveryRunWeeks","value":"=${KEEP_WEEKS}"`);
		// The page rows are deleted in a sub-workflow on the table *Pruning settings* names.
		expect(settings).toContain(`"name":"pagesTable","value":"${AUDIT_HISTORY_TABLES.pages.name}"`);
		const sub = pagesSubWorkflow();
		expect(sub.nodes.filter((node) => node.type === 'n8n-nodes-base.dataTable').map((node) => [node.name, node.parameters.dataTableId])).toEqual([
			['Delete its pages', { __rl: true, mode: 'name', value: '={{ $json.pagesTable }}' }],
		]);
	});

	it('deletes the page rows in a sub-workflow whose executions n8n does not keep: the execution keeps counts per site, not the deleted rows', async () => {
		const subWorkflowRuns: SubWorkflowRun[] = [];
		const result = await prune(tables, NOW, subWorkflowRuns);

		expect(result.error).toBeUndefined();
		expect(subWorkflowRuns).toHaveLength(1);
		const [sub] = subWorkflowRuns;
		expect(sub.workflow.settings).toEqual(expect.objectContaining({ saveDataSuccessExecution: 'none', saveManualExecutions: false }));
		const deletedRows = sub.run.data.resultData.runData['Delete its pages'][0].data?.main[0] ?? [];
		expect(deletedRows.length).toBeGreaterThan(100);
		// The deleted page rows (each with its url) are in the sub-workflow's execution, none in the one n8n keeps.
		expect(deletedRows.every((row) => typeof row.json.url === 'string')).toBe(true);
		expect(JSON.stringify(result.run.data.resultData.runData)).not.toContain('"url"');
		expect(result.output('Delete their pages').map((item) => Object.keys(item.json).sort())).toEqual([
			['count_id', 'site'],
			['count_id', 'site'],
		]);
	});

	it('a year of weekly runs: keeps every run of the last 12 weeks and the first run of each month before, per site, with their pages', async () => {
		const kept = keptAt(NOW, runs);
		// Both rules matter: there are older runs to keep and older runs to delete, for each site.
		expect(kept.length).toBeLessThan(runs.length);
		expect(kept.filter((run) => Date.parse(run.runId) < Date.parse(NOW) - KEEP_WEEKS * 7 * DAY_MS).map((run) => run.site)).toEqual(
			expect.arrayContaining(['brewshop.example', 'teashop.example']),
		);

		const deleted = await pruneUntilDone(tables);

		expect(deleted).toHaveLength(1);
		expect(sortedKeys(storedRuns())).toEqual(sortedKeys(kept));
		expect(storedPages()).toHaveLength(kept.length * PAGES_PER_RUN);
		expect([...new Set(sortedKeys(storedPages() as unknown as Run[]))]).toEqual(sortedKeys(kept));
		expect(deleted.flat().sort()).toEqual(sortedKeys(runs.filter((run) => !kept.includes(run))));
	});

	it('catches up in one execution, whatever the backlog: every run due, oldest first, its pages before it; its output the counts per site', async () => {
		const toDelete = runs.filter((run) => !keptAt(NOW, runs).includes(run)).sort((a, b) => a.runId.localeCompare(b.runId));
		// A backlog that took five weekly executions at 10 runs each.
		expect(toDelete.length).toBeGreaterThan(40);

		const result = await prune(tables);

		expect(result.error).toBeUndefined();
		expect(result.output('Delete the run').map((item) => key(item.json as unknown as Run))).toEqual(toDelete.map(key));
		expect(result.executedNodes.indexOf('Delete their pages')).toBeLessThan(result.executedNodes.indexOf('Delete the run'));
		expect(storedPages()).toHaveLength((runs.length - toDelete.length) * PAGES_PER_RUN);
		const perSite = (site: string) => toDelete.filter((run) => run.site === site).length;
		expect(result.output('Delete their pages').map((item) => item.json)).toEqual([
			{ site: 'brewshop.example', count_id: perSite('brewshop.example') * PAGES_PER_RUN },
			{ site: 'teashop.example', count_id: perSite('teashop.example') * PAGES_PER_RUN },
		]);
		expect(result.output('Runs deleted').map((item) => item.json)).toEqual([
			{ site: 'brewshop.example', count_id: perSite('brewshop.example') },
			{ site: 'teashop.example', count_id: perSite('teashop.example') },
		]);
		// What the workflow ends with: the counts, not the deleted rows.
		expect(result.run.data.resultData.lastNodeExecuted).toBe('Runs deleted');
	});

	it('once pruned, deletes nothing more that week; a week later, the runs that turned 12 weeks old unless first of their month', async () => {
		await pruneUntilDone(tables);
		const pruned = storedRuns();

		const again = await prune(tables);
		expect(again.error).toBeUndefined();
		expect(again.output('Delete the run')).toEqual([]);

		const weekLater = new Date(Date.parse(NOW) + 7 * DAY_MS).toISOString();
		const deleted = await pruneUntilDone(tables, weekLater);
		const expected = keptAt(weekLater, pruned as Run[]);

		expect(sortedKeys(storedRuns())).toEqual(sortedKeys(expected));
		expect(deleted.flat().length).toBe(pruned.length - expected.length);
		expect(deleted.flat().length).toBeGreaterThan(0);
	});

	it('an empty history: reads the runs and deletes nothing', async () => {
		tables = auditHistoryTables();

		const result = await prune(tables);

		expect(result.error).toBeUndefined();
		expect(result.executedNodes).toEqual(['Every Sunday at 05:00', 'Pruning settings', 'Read runs']);
	});
});

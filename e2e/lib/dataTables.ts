/**
 * The examples that keep history in n8n's Data tables, run in a started n8n: the tables they name made through the
 * REST API first (as a user makes them on the Data tables page), then each example run as the editor's Execute
 * workflow runs it, and the rows it wrote read back through the REST API.
 */
import type { PhpRankServer } from '../../dev/server';
import { AUDIT_HISTORY_TABLES } from '../../dev/examples';
import { dataTableRows, ensureDataTables, personalProjectId, type DataTableDefinition } from '../../dev/n8n/dataTables';
import { withDataTableIds, type Example, type WorkflowJson } from '../../dev/n8n/examples';
import { runManually, waitForExecution } from '../../dev/n8n/executions';
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
			if (majorOf(n8nVersion) < 2) {
				// n8n 1.x's Data table node (version 1) finds a table by ID only: the user picks it from the list and saves.
				const stored = await rest.call<WorkflowJson & { versionId: string }>('GET', `/rest/workflows/${example.id}`);
				await rest.call('PATCH', `/rest/workflows/${example.id}`, { versionId: stored.versionId, nodes: withDataTableIds(stored, ids).nodes });
			}
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

async function readTables(rest: N8nRest, projectId: string, ids: Record<string, string>): Promise<Record<string, Array<Record<string, unknown>>>> {
	const tables: Record<string, Array<Record<string, unknown>>> = {};
	for (const [name, id] of Object.entries(ids)) tables[name] = await dataTableRows(rest, projectId, id);
	return tables;
}

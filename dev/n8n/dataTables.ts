/**
 * n8n's Data tables through its REST API, as the editor's Data tables page makes and reads them (n8n 1.x and 2.x:
 * `/rest/projects/:projectId/data-tables`). Tables belong to a project; workflows reach the tables of their own.
 */
import { withDataTableIds, type WorkflowJson } from './examples';
import type { N8nRest } from './n8n';
import { majorOf } from './n8nVersions';

export interface DataTableDefinition {
	name: string;
	columns: ReadonlyArray<{ name: string; type: 'string' | 'number' | 'boolean' | 'date' }>;
}

interface ListedTable {
	id: string;
	name: string;
}

/** The signed-in user's personal project, where workflows imported with n8n's command line land. */
export async function personalProjectId(rest: N8nRest): Promise<string> {
	return (await rest.call<{ id: string }>('GET', '/rest/projects/personal')).id;
}

const tablesPath = (projectId: string) => `/rest/projects/${encodeURIComponent(projectId)}/data-tables`;

/** The ID of each table, by name: the one the project has (any column it lacks added), or one made with the columns given. */
export async function ensureDataTables(rest: N8nRest, projectId: string, tables: readonly DataTableDefinition[]): Promise<Record<string, string>> {
	const ids: Record<string, string> = {};
	for (const { name, columns } of tables) {
		// n8n matches a name filter anywhere in a table's name, ignoring case: the exact name is picked from those.
		const filter = encodeURIComponent(JSON.stringify({ name }));
		const listed = await rest.call<{ data: ListedTable[] }>('GET', `${tablesPath(projectId)}?filter=${filter}&take=50`);
		const existing = listed.data.find((table) => table.name === name);
		ids[name] = existing?.id ?? (await rest.call<ListedTable>('POST', tablesPath(projectId), { name, columns })).id;
		if (!existing) continue;
		// A table made for an earlier version of the examples gets the columns added since, as a user adds them.
		const columnsPath = `${tablesPath(projectId)}/${encodeURIComponent(existing.id)}/columns`;
		const present = (await rest.call<Array<{ name: string }>>('GET', columnsPath)).map((column) => column.name);
		for (const column of columns.filter((wanted) => !present.includes(wanted.name))) await rest.call('POST', columnsPath, column);
	}
	return ids;
}

/**
 * Every row of a table in ID order, read 50 at a time (n8n 1.x answers at most 50 a page, 2.x 250), checked against
 * the count n8n gives so that nothing is silently left out.
 */
export async function dataTableRows(rest: N8nRest, projectId: string, tableId: string): Promise<Array<Record<string, unknown>>> {
	const rows: Array<Record<string, unknown>> = [];
	for (;;) {
		const page = await rest.call<{ count: number; data: Array<Record<string, unknown>> }>(
			'GET',
			`${tablesPath(projectId)}/${encodeURIComponent(tableId)}/rows?skip=${rows.length}&take=50&sortBy=${encodeURIComponent('id:asc')}`,
		);
		rows.push(...page.data);
		if (rows.length >= page.count) return rows;
		if (page.data.length === 0) throw new Error(`table ${tableId} says it holds ${page.count} rows, ${rows.length} were read`);
	}
}

/** Rows a request: a 5,000-page run's rows in one, well under n8n's 16 MiB request limit. */
const INSERT_BATCH = 5_000;

/** Rows written into a table through the REST API, in the order given, as the Data tables page adds them: their IDs. */
export async function insertDataTableRows(rest: N8nRest, projectId: string, tableId: string, rows: ReadonlyArray<Record<string, unknown>>): Promise<number[]> {
	const ids: number[] = [];
	for (let start = 0; start < rows.length; start += INSERT_BATCH) {
		const inserted = await rest.call<Array<{ id: number }>>('POST', `${tablesPath(projectId)}/${encodeURIComponent(tableId)}/insert`, { data: rows.slice(start, start + INSERT_BATCH), returnType: 'id' });
		ids.push(...inserted.map((row) => row.id));
	}
	return ids;
}

/**
 * On n8n 1.x, whose Data table node finds a table by ID only, the stored workflow saved with its tables picked in the
 * nodes its notes name (withDataTableIds), as a 1.x user following them does; n8n 2.x finds them by name as they are.
 */
export async function pickDataTablesAsOn1x(rest: N8nRest, n8nVersion: string, workflowId: string, ids: Record<string, string>): Promise<void> {
	if (majorOf(n8nVersion) >= 2) return;
	const stored = await rest.call<WorkflowJson & { versionId: string }>('GET', `/rest/workflows/${workflowId}`);
	await rest.call('PATCH', `/rest/workflows/${workflowId}`, { versionId: stored.versionId, nodes: withDataTableIds(stored, ids).nodes });
}

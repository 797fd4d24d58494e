/**
 * n8n's Data tables through its REST API, as the editor's Data tables page makes and reads them (n8n 1.x and 2.x:
 * `/rest/projects/:projectId/data-tables`). Tables belong to a project; workflows reach the tables of their own.
 */
import type { N8nRest } from './n8n';

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

/** The ID of each table, by name: the one the project has, or one made with the columns given. */
export async function ensureDataTables(rest: N8nRest, projectId: string, tables: readonly DataTableDefinition[]): Promise<Record<string, string>> {
	const ids: Record<string, string> = {};
	for (const { name, columns } of tables) {
		// n8n matches a name filter anywhere in a table's name, ignoring case: the exact name is picked from those.
		const filter = encodeURIComponent(JSON.stringify({ name }));
		const listed = await rest.call<{ data: ListedTable[] }>('GET', `${tablesPath(projectId)}?filter=${filter}&take=50`);
		const existing = listed.data.find((table) => table.name === name);
		ids[name] = existing?.id ?? (await rest.call<ListedTable>('POST', tablesPath(projectId), { name, columns })).id;
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

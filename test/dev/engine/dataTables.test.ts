import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { InMemoryDataTables, runNode } from '../../../dev/engine';

// n8n's own Data Table node (n8n-nodes-base) run in the engine against its in-memory Data tables: what the site
// audit and pruning examples rely on, as n8n's server answers it.

const TABLE = 'pages';
const byName = { __rl: true, mode: 'name', value: TABLE };

let tables: InMemoryDataTables;

async function dataTable(parameters: INodeParameters, items: IDataObject[] = [{}], typeVersion = 1.1) {
	const result = await runNode({ type: 'n8n-nodes-base.dataTable', typeVersion, parameters: { resource: 'row', dataTableId: byName, ...parameters }, items, dataTables: tables });
	return { error: result.error, rows: result.items.map((item) => item.json) };
}
const conditions = (...list: Array<[keyName: string, condition: string, keyValue?: string | number]>): INodeParameters => ({
	filters: { conditions: list.map(([keyName, condition, keyValue]) => ({ keyName, condition, ...(keyValue !== undefined && { keyValue }) })) },
});
const get = async (parameters: INodeParameters = {}) => await dataTable({ operation: 'get', returnAll: true, ...parameters });
const urls = (rows: IDataObject[]) => rows.map((row) => row.url);

beforeEach(() => {
	tables = new InMemoryDataTables();
	tables.create(TABLE, [
		{ name: 'url', type: 'string' },
		{ name: 'score', type: 'number' },
		{ name: 'runAt', type: 'date' },
		{ name: 'good', type: 'boolean' },
		{ name: 'failedHigh', type: 'string' },
	]);
});

describe("dev/engine's Data tables, through n8n's Data Table node", () => {
	it('inserts the input items into the table found by name, each value of its column\'s type, with the row ID and times n8n adds', async () => {
		const items = [
			{ url: 'https://a.example/', score: 91, runAt: '2026-11-02T06:00:00.000Z', good: true, failedHigh: '' },
			{ url: 'https://a.example/b', score: 40, runAt: '2026-11-02T06:00:00.000Z', good: false, failedHigh: 'title, h1' },
		];
		const { error, rows } = await dataTable({ operation: 'insert', columns: { mappingMode: 'autoMapInputData', value: {} } }, items);

		expect(error).toBeUndefined();
		expect(rows.map((row) => [row.id, row.url, row.score])).toEqual([
			[1, 'https://a.example/', 91],
			[2, 'https://a.example/b', 40],
		]);
		const stored = tables.rows(TABLE);
		expect(stored.map(({ url, score, good, failedHigh }) => ({ url, score, good, failedHigh }))).toEqual(items.map(({ runAt: _runAt, ...rest }) => rest));
		expect(stored[0].runAt).toEqual(new Date('2026-11-02T06:00:00.000Z'));
		expect(stored[0].createdAt).toBeInstanceOf(Date);
	});

	it('with Optimize Bulk, answers the count only', async () => {
		const { rows } = await dataTable({ operation: 'insert', columns: { mappingMode: 'autoMapInputData', value: {} }, options: { optimizeBulk: true } }, [{ url: 'x' }, { url: 'y' }]);

		expect(rows).toEqual([{ success: true, insertedRows: 2 }]);
		expect(urls(tables.rows(TABLE))).toEqual(['x', 'y']);
	});

	it('refuses a row with a column the table lacks, or a value not of its column\'s type, and writes nothing', async () => {
		const unknown = await dataTable({ operation: 'insert', columns: { mappingMode: 'autoMapInputData', value: {} } }, [{ url: 'x' }, { url: 'y', grade: 'good' }]);
		const wrongType = await dataTable({ operation: 'insert', columns: { mappingMode: 'autoMapInputData', value: {} } }, [{ url: 'x', score: 'high' }]);

		expect(unknown.error?.message).toBe("unknown column name 'grade'");
		expect(wrongType.error?.message).toMatch(/^value 'high' does not match column type 'number'/);
		expect(tables.rows(TABLE)).toEqual([]);
	});

	it('says which table it did not find by name', async () => {
		const { error } = await dataTable({ operation: 'get', dataTableId: { __rl: true, mode: 'name', value: 'history' } });

		expect(error?.message).toBe('Data table with name "history" not found');
	});

	describe('reads and deletes rows by the conditions n8n offers', () => {
		beforeEach(() => {
			tables.insert(TABLE, [
				{ url: 'https://a.example/', score: 91, runAt: '2026-10-05T06:00:00.000Z', good: true, failedHigh: '' },
				{ url: 'https://a.example/pricing', score: 60, runAt: '2026-10-12T06:00:00.000Z', good: false, failedHigh: 'title' },
				{ url: 'https://b.example/', score: null, runAt: '2026-10-19T06:00:00.000Z', good: false, failedHigh: null },
				{ url: 'https://A.example/blog', score: 30, runAt: '2026-10-26T06:00:00.000Z', good: false, failedHigh: 'title, h1' },
			]);
		});

		it('equal, not equal (which takes empty values too), greater and less, on numbers and dates', async () => {
			expect(urls((await get(conditions(['score', 'eq', 60]))).rows)).toEqual(['https://a.example/pricing']);
			expect(urls((await get(conditions(['score', 'neq', 60]))).rows)).toEqual(['https://a.example/', 'https://b.example/', 'https://A.example/blog']);
			expect(urls((await get({ matchType: 'allConditions', ...conditions(['score', 'gte', 30], ['score', 'lt', 91]) })).rows)).toEqual([
				'https://a.example/pricing',
				'https://A.example/blog',
			]);
			expect(urls((await get(conditions(['runAt', 'gt', '2026-10-12T06:00:00.000Z']))).rows)).toEqual(['https://b.example/', 'https://A.example/blog']);
		});

		it('any of several conditions, or all of them', async () => {
			expect(urls((await get(conditions(['score', 'gt', 90], ['url', 'eq', 'https://b.example/']))).rows)).toEqual(['https://a.example/', 'https://b.example/']);
			expect(urls((await get({ matchType: 'allConditions', ...conditions(['score', 'gt', 90], ['url', 'eq', 'https://b.example/']) })).rows)).toEqual([]);
		});

		it('like: anywhere in the value without %, case-sensitive; ilike ignores case', async () => {
			expect(urls((await get(conditions(['url', 'like', 'a.example']))).rows)).toEqual(['https://a.example/', 'https://a.example/pricing']);
			expect(urls((await get(conditions(['url', 'like', '%/']))).rows)).toEqual(['https://a.example/', 'https://b.example/']);
			expect(urls((await get(conditions(['url', 'ilike', 'A.EXAMPLE/']))).rows)).toEqual(['https://a.example/', 'https://a.example/pricing', 'https://A.example/blog']);
		});

		it('is empty and is not empty: a string empty or missing, another type missing', async () => {
			expect(urls((await get(conditions(['failedHigh', 'isEmpty']))).rows)).toEqual(['https://a.example/', 'https://b.example/']);
			expect(urls((await get(conditions(['score', 'isEmpty']))).rows)).toEqual(['https://b.example/']);
			expect(urls((await get(conditions(['failedHigh', 'isNotEmpty']))).rows)).toEqual(['https://a.example/pricing', 'https://A.example/blog']);
			expect(urls((await get(conditions(['good', 'isTrue']))).rows)).toEqual(['https://a.example/']);
		});

		it('sorted by a column when asked, else in the order they were written; Limit cuts the list', async () => {
			expect(urls((await get({ orderBy: true, orderByColumn: 'score', orderByDirection: 'DESC' })).rows)).toEqual([
				'https://a.example/',
				'https://a.example/pricing',
				'https://A.example/blog',
				'https://b.example/',
			]);
			expect(urls((await dataTable({ operation: 'get', returnAll: false, limit: 2 })).rows)).toEqual(['https://a.example/', 'https://a.example/pricing']);
		});

		it('a condition on a column the table lacks fails, naming it', async () => {
			expect((await get(conditions(['grade', 'eq', 'bad']))).error?.message).toMatch(/^Filter validation failed: Column\(s\) "grade" do not exist in the selected table/);
		});

		it('deletes the rows the conditions select, answers them, and keeps the others', async () => {
			const { error, rows } = await dataTable({ operation: 'deleteRows', matchType: 'allConditions', ...conditions(['runAt', 'lt', '2026-10-19T00:00:00.000Z'], ['score', 'lt', 91]) });

			expect(error).toBeUndefined();
			expect(urls(rows)).toEqual(['https://a.example/pricing']);
			expect(urls(tables.rows(TABLE))).toEqual(['https://a.example/', 'https://b.example/', 'https://A.example/blog']);
		});
	});

	it('reads every row of a table over pages of 1,000, as n8n pages it', async () => {
		tables.insert(
			TABLE,
			Array.from({ length: 2_345 }, (_, index) => ({ url: `https://a.example/${index}`, score: index % 100 })),
		);

		const all = await get();
		const some = await get(conditions(['score', 'eq', 7]));

		expect(all.rows).toHaveLength(2_345);
		expect(all.rows.at(-1)?.url).toBe('https://a.example/2344');
		expect(some.rows).toHaveLength(24);
	});

	it('keeps rows per instance: a run with other Data tables does not see them', async () => {
		tables.insert(TABLE, [{ url: 'kept' }]);
		const other = await runNode({ type: 'n8n-nodes-base.dataTable', typeVersion: 1.1, parameters: { resource: 'row', operation: 'get', dataTableId: byName, returnAll: true } });

		expect(other.error?.message).toBe(`Data table with name "${TABLE}" not found`);
		expect(urls((await get()).rows)).toEqual(['kept']);
	});

	it('finds a table by a name found anywhere in its name, ignoring case, the one written to last, as n8n does', async () => {
		tables.insert(TABLE, [{ url: 'from pages' }]);
		tables.create('Old_Pages_2025', [{ name: 'url', type: 'string' }]);
		tables.insert('Old_Pages_2025', [{ url: 'from the old table' }]);

		expect(urls((await get()).rows)).toEqual(['from the old table']);
		tables.insert(TABLE, [{ url: 'again' }]);
		expect(urls((await get()).rows)).toEqual(['from pages', 'again']);
	});

	it("version 1 of the node (n8n 1.x's) finds the table by its ID", async () => {
		const { id } = tables.byName(TABLE)!;
		tables.insert(TABLE, [{ url: 'one' }]);

		const { rows } = await dataTable({ operation: 'get', returnAll: true, dataTableId: { __rl: true, mode: 'id', value: id } }, [{}], 1);

		expect(urls(rows)).toEqual(['one']);
	});
	describe('the size limit, N8N_DATA_TABLES_MAX_SIZE_BYTES', () => {
		const insert = async (items: IDataObject[], continueOnFail = false) =>
			await runNode({
				type: 'n8n-nodes-base.dataTable',
				typeVersion: 1,
				parameters: { resource: 'row', dataTableId: byName, operation: 'insert', columns: { mappingMode: 'autoMapInputData', value: {} }, options: { optimizeBulk: true } },
				items,
				dataTables: tables,
				continueOnFail,
			});
		const rowsOf = (count: number, from = 0) => Array.from({ length: count }, (_, index) => ({ url: `https://a.example/${'page-'.repeat(8)}${from + index}`, score: 50 }));

		it('measures whole 4 KiB pages per table, as SQLite counts them for n8n, and gives the room of deleted rows back', async () => {
			const empty = tables.sizeBytes();
			expect(empty).toBe(4096);
			tables.insert(TABLE, rowsOf(1_000));
			// About 100 bytes a row: 25 pages and an interior one.
			expect(tables.sizeBytes()).toBeGreaterThan(20 * 4096);
			expect(tables.sizeBytes()).toBeLessThan(40 * 4096);
			const { error } = await dataTable({ operation: 'deleteRows', matchType: 'allConditions', ...conditions(['score', 'eq', 50]) });
			expect(error).toBeUndefined();
			expect(tables.sizeBytes()).toBe(empty);
		});

		it('refuses an insert once the tables measure the limit or more, checked before the write as n8n does: the write that crosses it goes through whole', async () => {
			tables = new InMemoryDataTables(8 * 4096);
			tables.create(TABLE, [
				{ name: 'url', type: 'string' },
				{ name: 'score', type: 'number' },
			]);
			const crossing = await insert(rowsOf(500));
			expect(crossing.error).toBeUndefined();
			expect(tables.sizeBytes()).toBeGreaterThan(8 * 4096);

			const refused = await insert(rowsOf(1, 500));
			expect(refused.error?.message).toBe('Data table size limit exceeded: 0MB used, limit is 0MB');
			expect(tables.rows(TABLE)).toHaveLength(500);
		});

		it('a delete is never refused, and once it makes room the next insert goes through', async () => {
			tables = new InMemoryDataTables(8 * 4096);
			tables.create(TABLE, [
				{ name: 'url', type: 'string' },
				{ name: 'score', type: 'number' },
			]);
			await insert(rowsOf(500));
			expect((await insert(rowsOf(1, 500))).error).toBeDefined();

			await dataTable({ operation: 'deleteRows', matchType: 'allConditions', ...conditions(['score', 'eq', 50]) });
			const again = await insert(rowsOf(1, 500));
			expect(again.error).toBeUndefined();
			expect(tables.rows(TABLE)).toHaveLength(1);
		});

		it("a bulk insert refused under On Error → Continue passes its input items on, without the error and without n8n's count: n8n 2.x's node", async () => {
			tables = new InMemoryDataTables(4096);
			tables.create(TABLE, [{ name: 'url', type: 'string' }]);
			const refused = await insert([{ url: 'x' }, { url: 'y' }], true);

			expect(refused.error).toBeUndefined();
			// n8n 2.41's Data table node hands on each input item whole, as the new item's JSON.
			expect(refused.items.map((item) => [item.json.json, item.error, item.json.insertedRows])).toEqual([
				[{ url: 'x' }, undefined, undefined],
				[{ url: 'y' }, undefined, undefined],
			]);
			expect(tables.rows(TABLE)).toEqual([]);
		});
	});
});

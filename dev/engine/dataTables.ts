import type {
	CreateDataTableColumnOptions,
	DataTable,
	DataTableColumn,
	DataTableColumnJsType,
	DataTableColumnType,
	DataTableFilter,
	DataTableInsertRowsReturnType,
	DataTableProxyProvider,
	DataTableRow,
	DataTableRowReturn,
	IDataTableProjectAggregateService,
	IDataTableProjectService,
	ListDataTableOptions,
	ListDataTableRowsOptions,
} from 'n8n-workflow';
import { DATA_TABLE_SYSTEM_COLUMNS, UserError, validateFieldType } from 'n8n-workflow';

/** The project every table of the engine's instance belongs to; n8n has one per user or team. */
export const HARNESS_PROJECT_ID = 'harness-project';

type Condition = DataTableFilter['filters'][number];
type StoredValue = string | number | boolean | Date | null;

interface StoredTable extends DataTable {
	rows: DataTableRowReturn[];
	nextRowId: number;
	/** Orders tables by their last change where two `updatedAt` fall in the same millisecond. */
	changed: number;
	/** What its rows take in SQLite's records (`rowBytes`), kept as they are written and deleted. */
	rowBytes: number;
}

/** n8n's field types for its column types, with which it checks every value written. */
const FIELD_TYPES = { string: 'string', number: 'number', boolean: 'boolean', date: 'dateTime' } as const;

/** n8n's rule for column names (its REST API and Data tables page refuse others). */
const COLUMN_NAME = /^[a-zA-Z][a-zA-Z0-9_]{0,62}$/;
const COLUMN_NAME_RULE = 'Only alphabetical characters and non-leading numbers and underscores are allowed for column names, and the maximum length is 63 characters.';

const SYSTEM_COLUMN_TYPES: Record<string, DataTableColumnType> = { id: 'number', createdAt: 'date', updatedAt: 'date' };

/** What n8n's server answers when a write does not fit the table; the node passes the message on. */
class DataTableValidationError extends UserError {}

/** n8n 2.x's default for `N8N_DATA_TABLES_MAX_SIZE_BYTES` (n8n 1.x: 50 MiB), the limit for all Data tables together. */
export const DEFAULT_DATA_TABLES_MAX_SIZE_BYTES = 200 * 1024 * 1024;

/** SQLite's page, the unit n8n's size measure counts in (`SUM(pgsize) FROM dbstat` per table). */
const PAGE_BYTES = 4096;
/** A leaf page's header; an interior page holds about this many child pointers. */
const LEAF_PAGE_HEADER = 8;
const CHILDREN_PER_INTERIOR_PAGE = 400;
/** A date as n8n's SQLite stores it: `YYYY-MM-DD HH:MM:SS.SSS`. */
const DATE_BYTES = 23;

/** n8n's size figures in its error message: whole MiB, rounded. */
const toMb = (bytes: number) => Math.round(bytes / (1024 * 1024));

/** The bytes SQLite gives a row in its table's B-tree: the cell (pointer, rowid, length) and the record, `id` being the rowid. */
function rowBytes(row: DataTableRowReturn): number {
	const values = Object.entries(row).filter(([name]) => name !== 'id');
	const payload = values.reduce((sum, [, value]) => {
		if (value === null || value === undefined || typeof value === 'boolean') return sum;
		if (value instanceof Date) return sum + DATE_BYTES;
		if (typeof value === 'number') return sum + (Number.isInteger(value) && Math.abs(value) < 2 ** 47 ? Math.max(1, Math.ceil(Math.log2(Math.abs(value) + 1) / 8) + 1) : 8);
		return sum + Buffer.byteLength(String(value));
	}, 0);
	return 2 + 6 + 1 + values.length + payload;
}

function compare(stored: StoredValue, wanted: StoredValue): number {
	const a = stored instanceof Date ? stored.getTime() : stored;
	const b = wanted instanceof Date ? wanted.getTime() : wanted;
	return a! < b! ? -1 : a! > b! ? 1 : 0;
}

/**
 * SQL's LIKE as n8n applies it: `%` matches any run of characters, everything else itself, case-sensitively. Its
 * repository's table-name filter leaves `_` unescaped, where it matches any one character.
 */
function like(stored: StoredValue, pattern: string, ignoreCase: boolean, underscoreMatchesAny = false): boolean {
	if (typeof stored !== 'string') return false;
	const escape = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	const source = pattern
		.split('%')
		.map((part) => (underscoreMatchesAny ? part.split('_').map(escape).join('.') : escape(part)))
		.join('.*');
	return new RegExp(`^${source}$`, ignoreCase ? 'is' : 's').test(stored);
}

function matches(row: DataTableRowReturn, { columnName, condition, value }: Condition): boolean {
	const stored = (row[columnName] ?? null) as StoredValue;
	if (value === null && (condition === 'eq' || condition === 'neq')) return (stored === null) === (condition === 'eq');
	switch (condition) {
		case 'eq':
			return stored !== null && compare(stored, value) === 0;
		// n8n's SQL: a different value, or none.
		case 'neq':
			return stored === null || compare(stored, value) !== 0;
		case 'gt':
			return stored !== null && compare(stored, value) > 0;
		case 'gte':
			return stored !== null && compare(stored, value) >= 0;
		case 'lt':
			return stored !== null && compare(stored, value) < 0;
		case 'lte':
			return stored !== null && compare(stored, value) <= 0;
		case 'like':
		case 'ilike':
			return like(stored, String(value), condition === 'ilike');
		case 'isEmpty':
			return stored === null || stored === '';
		case 'isNotEmpty':
			return stored !== null && stored !== '';
	}
	throw new DataTableValidationError(`Unsupported filter condition: ${String(condition)}`);
}

/**
 * n8n's Data tables as its server keeps them for one project, in memory: the tables a workflow's Data Table nodes
 * reach through `helpers.getDataTableProxy` / `getDataTableAggregateProxy`, with the checks and answers of n8n's
 * data table service (values checked against the column types, dates stored as dates, filters as its SQL applies
 * them, rows in ID order unless sorted, `like` without `%` matching anywhere in the value). Give one instance to
 * several runs to keep rows between them, as n8n's database does.
 */
export class InMemoryDataTables {
	private readonly tables = new Map<string, StoredTable>();

	/**
	 * `N8N_DATA_TABLES_MAX_SIZE_BYTES`: as n8n's service does before each insert, update or upsert (not a delete),
	 * a write is refused once the tables together measure this much or more, whatever the write adds. Set it again
	 * to play n8n started with another limit.
	 */
	constructor(public maxSizeBytes = DEFAULT_DATA_TABLES_MAX_SIZE_BYTES) {}

	private nextTableId = 1;

	private changes = 0;

	/** Every read of rows (a Data Table node's Get, a page of it), by table name, with the filter it sent. */
	readonly reads: Array<{ table: string; filter: DataTableFilter | undefined }> = [];

	/** What n8n-core's execute context calls for a Data Table node (`additionalData['data-table']`). */
	readonly provider: DataTableProxyProvider = {
		getDataTableAggregateProxy: async () => this.aggregate(),
		getDataTableProxy: async (_workflow, _node, dataTableId) => this.proxy(dataTableId),
	};

	/** Makes a table, as n8n's Data tables page or its REST API does. */
	create(name: string, columns: CreateDataTableColumnOptions[]): DataTable {
		if ([...this.tables.values()].some((table) => table.name === name)) {
			throw new DataTableValidationError(`Data table with name '${name}' already exists in this project`);
		}
		const id = `harnessTable${this.nextTableId++}`;
		const now = new Date();
		const table: StoredTable = {
			id,
			name,
			projectId: HARNESS_PROJECT_ID,
			createdAt: now,
			updatedAt: now,
			columns: columns.map((column, index) => {
				if (DATA_TABLE_SYSTEM_COLUMNS.includes(column.name)) throw new DataTableValidationError(`Column name "${column.name}" is reserved`);
				if (!COLUMN_NAME.test(column.name)) throw new DataTableValidationError(`Column name "${column.name}": ${COLUMN_NAME_RULE}`);
				return { id: `${id}-column${index}`, name: column.name, type: column.type, index: column.index ?? index, dataTableId: id };
			}),
			rows: [],
			nextRowId: 1,
			changed: ++this.changes,
			rowBytes: 0,
		};
		this.tables.set(id, table);
		return this.described(table);
	}

	/** The table of that name, as n8n's Data tables page lists it. */
	byName(name: string): DataTable | undefined {
		const table = [...this.tables.values()].find((candidate) => candidate.name === name);
		return table && this.described(table);
	}

	/** The table's rows in ID order, each with n8n's `id`, `createdAt` and `updatedAt`. */
	rows(tableName: string): DataTableRowReturn[] {
		return this.table(this.byName(tableName)?.id ?? tableName).rows.map((row) => ({ ...row }));
	}

	/** Rows written straight into a table, as an import or an earlier workflow would have; checked like any insert. */
	insert(tableName: string, rows: DataTableRow[]): DataTableRowReturn[] {
		return this.insertRows(this.table(this.byName(tableName)?.id ?? tableName), rows);
	}

	/**
	 * The bytes all tables take as n8n measures them in SQLite, its default database: whole pages per table (one
	 * at least), its rows packed into leaf pages under interior ones. Deleted rows give their room back.
	 */
	sizeBytes(): number {
		return [...this.tables.values()].reduce((sum, table) => {
			const leaves = Math.max(1, Math.ceil(table.rowBytes / (PAGE_BYTES - LEAF_PAGE_HEADER)));
			const interior = leaves > 1 ? Math.ceil(leaves / CHILDREN_PER_INTERIOR_PAGE) : 0;
			return sum + (leaves + interior) * PAGE_BYTES;
		}, 0);
	}

	private checkSize(): void {
		const used = this.sizeBytes();
		if (used >= this.maxSizeBytes) {
			throw new DataTableValidationError(`Data table size limit exceeded: ${toMb(used)}MB used, limit is ${toMb(this.maxSizeBytes)}MB`);
		}
	}

	/** n8n's service marks a table updated on every write to its rows. */
	private touch(table: StoredTable): void {
		table.updatedAt = new Date();
		table.changed = ++this.changes;
	}

	private described({ rows: _rows, nextRowId: _next, changed: _changed, rowBytes: _bytes, ...table }: StoredTable): DataTable {
		return { ...table, columns: table.columns.map((column) => ({ ...column })) };
	}

	private table(id: string): StoredTable {
		const table = this.tables.get(id);
		if (!table) throw new DataTableValidationError(`Could not find the data table: '${id}'`);
		return table;
	}

	private aggregate(): IDataTableProjectAggregateService {
		return {
			getProjectId: () => HARNESS_PROJECT_ID,
			createDataTable: async ({ name, columns }) => this.create(name, columns),
			getManyAndCount: async (options: ListDataTableOptions) => {
				// n8n's repository: each name given matches case-insensitively anywhere in a table's name (SQL LIKE);
				// the table changed last comes first.
				const names = [options.filter?.name ?? []].flat();
				const found = [...this.tables.values()]
					.filter((table) => names.every((name) => like(table.name, `%${name}%`, true, true)))
					.sort((a, b) => b.changed - a.changed);
				const skip = options.skip ?? 0;
				return { count: found.length, data: found.slice(skip, options.take === undefined ? undefined : skip + options.take).map((table) => this.described(table)) };
			},
			deleteDataTableAll: async () => {
				this.tables.clear();
				return true;
			},
		};
	}

	private proxy(dataTableId: string): IDataTableProjectService {
		const table = this.table(dataTableId);
		const unsupported = (what: string) => async (): Promise<never> => {
			throw new UserError(`${what} is not available in dev/engine's Data tables`);
		};
		return {
			getColumns: async () => table.columns.map((column) => ({ ...column })),
			getManyRowsAndCount: async (options: Partial<ListDataTableRowsOptions>) => {
				this.reads.push({ table: table.name, filter: options.filter });
				const found = this.select(table, options.filter);
				if (options.sortBy) {
					const [column, direction] = options.sortBy;
					const sign = direction === 'DESC' ? -1 : 1;
					found.sort((a, b) => sign * compare((a[column] ?? null) as StoredValue, (b[column] ?? null) as StoredValue) || a.id - b.id);
				}
				const skip = options.skip ?? 0;
				const page = found.slice(skip, options.take ? skip + options.take : undefined);
				return { count: found.length, data: page.map((row) => ({ ...row })) };
			},
			insertRows: async <T extends DataTableInsertRowsReturnType>(rows: DataTableRow[], returnType: T) => {
				const inserted = this.insertRows(table, rows);
				const result = returnType === 'all' ? inserted : returnType === 'id' ? inserted.map(({ id }) => ({ id })) : { success: true, insertedRows: inserted.length };
				return result as never;
			},
			updateRows: async ({ filter, data, dryRun }) => {
				if (dryRun) return await unsupported('Dry Run')();
				this.checkSize();
				const changes = this.checked(table, [data])[0];
				const found = this.select(table, this.required(filter));
				const updatedAt = new Date();
				for (const row of found) {
					table.rowBytes -= rowBytes(row);
					Object.assign(row, changes, { updatedAt });
					table.rowBytes += rowBytes(row);
				}
				this.touch(table);
				return found.map((row) => ({ ...row }));
			},
			deleteRows: async ({ filter, dryRun }) => {
				if (dryRun) return await unsupported('Dry Run')();
				const found = this.select(table, this.required(filter));
				const deleted = new Set(found);
				table.rows = table.rows.filter((row) => !deleted.has(row));
				for (const row of found) table.rowBytes -= rowBytes(row);
				this.touch(table);
				return found.map((row) => ({ ...row }));
			},
			clearRows: async () => {
				const deletedCount = table.rows.length;
				table.rows = [];
				table.rowBytes = 0;
				this.touch(table);
				return { deletedCount };
			},
			deleteDataTable: async () => this.tables.delete(table.id),
			updateDataTable: async ({ name }) => {
				table.name = name;
				return true;
			},
			upsertRow: unsupported('Upsert'),
			addColumn: unsupported('Adding a column'),
			moveColumn: unsupported('Moving a column'),
			deleteColumn: unsupported('Deleting a column'),
		};
	}

	private required(filter: DataTableFilter | undefined): DataTableFilter {
		if (!filter?.filters.length) throw new DataTableValidationError('Filter is required for delete operations to prevent accidental deletion of all data');
		return filter;
	}

	/** The rows the filter selects, in ID order; the values it compares with are checked as n8n checks them. */
	private select(table: StoredTable, filter: DataTableFilter | undefined): DataTableRowReturn[] {
		if (!filter?.filters.length) return [...table.rows];
		const conditions = filter.filters.map((condition) => {
			if (['gt', 'gte', 'lt', 'lte', 'like', 'ilike'].includes(condition.condition) && condition.value === null) {
				throw new DataTableValidationError(`${condition.condition.toUpperCase()} filter value cannot be null or undefined`);
			}
			const type = SYSTEM_COLUMN_TYPES[condition.columnName] ?? table.columns.find((column) => column.name === condition.columnName)?.type;
			if (!type) throw new DataTableValidationError(`unknown column name '${condition.columnName}'`);
			const value = this.cell(condition.value, condition.columnName, type);
			// n8n's service: a like pattern without % matches anywhere in the value.
			const pattern = typeof value === 'string' && !value.includes('%') ? `%${value}%` : value;
			return { ...condition, value: condition.condition === 'like' || condition.condition === 'ilike' ? pattern : value };
		});
		const test = (row: DataTableRowReturn) => (filter.type === 'or' ? conditions.some((condition) => matches(row, condition)) : conditions.every((condition) => matches(row, condition)));
		return table.rows.filter(test);
	}

	private insertRows(table: StoredTable, rows: DataTableRow[]): DataTableRowReturn[] {
		this.checkSize();
		const checked = this.checked(table, rows);
		const now = new Date();
		const inserted = checked.map((row) => {
			const complete = Object.fromEntries(table.columns.map((column) => [column.name, row[column.name] ?? null]));
			return { ...complete, id: table.nextRowId++, createdAt: now, updatedAt: now } as DataTableRowReturn;
		});
		table.rows.push(...inserted);
		for (const row of inserted) table.rowBytes += rowBytes(row);
		this.touch(table);
		return inserted.map((row) => ({ ...row }));
	}

	/** The rows as n8n stores them: only the table's columns, each value of the column's type (dates as dates). */
	private checked(table: StoredTable, rows: DataTableRow[]): DataTableRow[] {
		return rows.map((row) =>
			Object.fromEntries(
				Object.entries(row).map(([name, value]) => {
					const column = table.columns.find((candidate) => candidate.name === name);
					if (!column) throw new DataTableValidationError(`unknown column name '${name}'`);
					return [name, this.cell(value, name, column.type)];
				}),
			),
		);
	}

	private cell(value: DataTableColumnJsType | undefined, name: string, type: DataTableColumn['type']): StoredValue {
		if (value === null || value === undefined) return null;
		const checked = validateFieldType(name, value, FIELD_TYPES[type], { strict: false, parseStrings: false });
		if (!checked.valid) throw new DataTableValidationError(`value '${String(value)}' does not match column type '${type}': ${checked.errorMessage}`);
		if (type !== 'date') return checked.newValue as StoredValue;
		return new Date((checked.newValue as unknown as { toMillis(): number }).toMillis());
	}
}

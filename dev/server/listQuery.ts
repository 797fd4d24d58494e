/**
 * List parameters, read as leniently as phpRank reads them: values it does not know are silently
 * replaced by defaults instead of being rejected. The page links then carry the values applied.
 */
import { Input, isPhpInteger, isPhpNumeric } from './http';
import { ProjectSortKey, ReportSortKey } from './store';

type ResultBand = 'good' | 'decent' | 'bad';

export interface ListQuery {
	search?: string;
	descending: boolean;
	perPage: number;
	page: number;
	/** The list parameters the client sent, each with the value applied, to be carried into every page link, in order. */
	carried: Array<[string, string]>;
}

/** The page sizes phpRank accepts for `per_page`; anything else silently becomes 10. */
export const PER_PAGE_CHOICES: readonly number[] = [10, 25, 50, 100];
// phpRank 1.5's API does not sort by generated_at (it falls back to id), though its web pages do.
const REPORT_SORT_KEYS: ReportSortKey[] = ['id', 'url', 'result'];
const PROJECT_SORT_KEYS: ProjectSortKey[] = ['created_at', 'project'];

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
const oneOf = <T extends string>(value: unknown, choices: readonly T[], fallback: T): T =>
	choices.includes(value as T) ? (value as T) : fallback;

/** What phpRank applied of the parameters every list takes; `carried` waits for the list's own. */
function common(input: Input): Omit<ListQuery, 'carried'> {
	// PHP's loose in_array() lets "25.0" or "025" through as 25.
	const perPage = isPhpNumeric(input.per_page) ? Number(input.per_page) : Number.NaN;
	const page = isPhpInteger(input.page) ? Number(input.page) : 0;
	return {
		search: text(input.search),
		descending: input.sort !== 'asc',
		perPage: PER_PAGE_CHOICES.includes(perPage) ? perPage : 10,
		page: page >= 1 && Number.isSafeInteger(page) ? page : 1,
	};
}

/** The parameters that were sent, in phpRank's order, each with the value it applied (undefined: as sent). */
function carried(input: Input, applied: Array<[string, string | number | undefined]>): Array<[string, string]> {
	return applied.flatMap(([name, value]): Array<[string, string]> =>
		typeof input[name] === 'string' ? [[name, value === undefined ? (input[name] as string) : String(value)]] : [],
	);
}

/** How the report list reads its parameters; `sortsByGeneratedAt` plays a phpRank whose API sorts by generated_at. */
export function reportListQuery(
	input: Input,
	{ sortsByGeneratedAt = false }: { sortsByGeneratedAt?: boolean } = {},
): ListQuery & { project?: string; result?: ResultBand; sortBy: ReportSortKey } {
	const query = common(input);
	const band = text(input.result);
	// Anything but good or decent falls through to the "bad" branch.
	const result = band === undefined ? undefined : oneOf<ResultBand>(band, ['good', 'decent'], 'bad');
	const sortBy = oneOf(input.sort_by, sortsByGeneratedAt ? [...REPORT_SORT_KEYS, 'generated_at'] : REPORT_SORT_KEYS, 'id');
	return {
		...query,
		project: text(input.project),
		result,
		sortBy,
		carried: carried(input, [
			['search', undefined],
			// The search is always in the URL.
			['search_by', 'url'],
			['project', undefined],
			['result', result],
			['sort_by', sortBy],
			['sort', query.descending ? 'desc' : 'asc'],
			['per_page', query.perPage],
		]),
	};
}

export function projectListQuery(input: Input): ListQuery & { sortBy: ProjectSortKey } {
	const query = common(input);
	const sortBy = oneOf(input.sort_by, PROJECT_SORT_KEYS, 'created_at');
	return {
		...query,
		sortBy,
		carried: carried(input, [
			['search', undefined],
			// The search is always in the name.
			['search_by', 'project'],
			['sort_by', sortBy],
			['sort', query.descending ? 'desc' : 'asc'],
			['per_page', query.perPage],
		]),
	};
}

/** The band phpRank's `result` filter puts a score in (the node's grade of it too). */
export function resultBandOf(score: number): ResultBand {
	if (score > 79) return 'good';
	if (score >= 49) return 'decent';
	return 'bad';
}

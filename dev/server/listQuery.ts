/**
 * List parameters, read as leniently as phpRank reads them: values it does not know are silently
 * replaced by defaults instead of being rejected.
 */
import { Input, isPhpInteger, isPhpNumeric } from './http';
import { ProjectSortKey, ReportSortKey } from './store';

type ResultBand = 'good' | 'decent' | 'bad';

export interface ListQuery {
	search?: string;
	descending: boolean;
	perPage: number;
	page: number;
	/** The list parameters the client sent, to be carried into every page link, in order. */
	carried: Array<[string, string]>;
}

/** The page sizes phpRank accepts for `per_page`; anything else silently becomes 10. */
export const PER_PAGE_CHOICES: readonly number[] = [10, 25, 50, 100];
// phpRank 1.5 does not accept generated_at (it falls back to id); sorting by it properly is more useful.
const REPORT_SORT_KEYS: ReportSortKey[] = ['id', 'generated_at', 'url', 'result'];
const PROJECT_SORT_KEYS: ProjectSortKey[] = ['created_at', 'project'];

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
const oneOf = <T extends string>(value: unknown, choices: readonly T[], fallback: T): T =>
	choices.includes(value as T) ? (value as T) : fallback;

function common(input: Input, parameters: string[]): ListQuery {
	// PHP's loose in_array() lets "25.0" or "025" through as 25.
	const perPage = isPhpNumeric(input.per_page) ? Number(input.per_page) : Number.NaN;
	const page = isPhpInteger(input.page) ? Number(input.page) : 0;
	return {
		search: text(input.search),
		descending: input.sort !== 'asc',
		perPage: PER_PAGE_CHOICES.includes(perPage) ? perPage : 10,
		page: page >= 1 && Number.isSafeInteger(page) ? page : 1,
		carried: parameters.flatMap((name): Array<[string, string]> => (typeof input[name] === 'string' ? [[name, input[name]]] : [])),
	};
}

export function reportListQuery(input: Input): ListQuery & { project?: string; result?: ResultBand; sortBy: ReportSortKey } {
	const result = text(input.result);
	return {
		...common(input, ['search', 'search_by', 'project', 'result', 'sort_by', 'sort', 'per_page']),
		project: text(input.project),
		// Anything but good or decent falls through to the "bad" branch.
		result: result === undefined ? undefined : oneOf<ResultBand>(result, ['good', 'decent'], 'bad'),
		sortBy: oneOf(input.sort_by, REPORT_SORT_KEYS, 'id'),
	};
}

export function projectListQuery(input: Input): ListQuery & { sortBy: ProjectSortKey } {
	const sortBy = oneOf(input.sort_by, PROJECT_SORT_KEYS, 'created_at');
	return { ...common(input, ['search', 'search_by', 'sort_by', 'sort', 'per_page']), sortBy };
}

/** The band phpRank's `result` filter puts a score in (the node's grade of it too). */
export function resultBandOf(score: number): ResultBand {
	if (score > 79) return 'good';
	if (score >= 49) return 'decent';
	return 'bad';
}

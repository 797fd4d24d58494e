/**
 * List parameters, read as leniently as phpRank reads them: values it does not know are silently
 * replaced by defaults instead of being rejected.
 */
import { Input } from './incoming';
import { ProjectSortKey, ReportSortKey } from './store';
import { isPhpInteger, isPhpNumeric } from './validation';

export type ResultBand = 'good' | 'decent' | 'bad';

interface CommonListQuery {
	search?: string;
	descending: boolean;
	perPage: number;
	page: number;
}

export interface ReportListQuery extends CommonListQuery {
	project?: string;
	result?: ResultBand;
	sortBy: ReportSortKey;
}

export interface ProjectListQuery extends CommonListQuery {
	sortBy: ProjectSortKey;
}

export const REPORT_LIST_PARAMETERS = ['search', 'search_by', 'project', 'result', 'sort_by', 'sort', 'per_page'];
export const PROJECT_LIST_PARAMETERS = ['search', 'search_by', 'sort_by', 'sort', 'per_page'];

/** The page sizes phpRank accepts for `per_page`; anything else silently becomes 10. */
export const PER_PAGE_CHOICES: readonly number[] = [10, 25, 50, 100];
// phpRank 1.5 does not accept generated_at (it falls back to id); sorting by it properly is more useful.
const REPORT_SORT_KEYS: ReportSortKey[] = ['id', 'generated_at', 'url', 'result'];
const PROJECT_SORT_KEYS: ProjectSortKey[] = ['created_at', 'project'];

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
const oneOf = <T extends string>(value: unknown, choices: readonly T[], fallback: T): T =>
	choices.includes(value as T) ? (value as T) : fallback;

function common(input: Input): CommonListQuery {
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

export function reportListQuery(input: Input): ReportListQuery {
	const result = text(input.result);
	return {
		...common(input),
		project: text(input.project),
		// Anything but good or decent falls through to the "bad" branch.
		result: result === undefined ? undefined : oneOf<ResultBand>(result, ['good', 'decent'], 'bad'),
		sortBy: oneOf(input.sort_by, REPORT_SORT_KEYS, 'id'),
	};
}

export function projectListQuery(input: Input): ProjectListQuery {
	return { ...common(input), sortBy: oneOf(input.sort_by, PROJECT_SORT_KEYS, 'created_at') };
}

/** The band phpRank's `result` filter puts a score in (the node's grade of it too). */
export function resultBandOf(score: number): ResultBand {
	if (score > 79) return 'good';
	if (score >= 49) return 'decent';
	return 'bad';
}

export function inResultBand(score: number, band: ResultBand): boolean {
	return resultBandOf(score) === band;
}

/** The list parameters the client sent, to be carried into every page link. */
export function carriedParameters(input: Input, names: readonly string[]): Array<[string, string]> {
	return names.flatMap((name): Array<[string, string]> => {
		const value = input[name];
		return typeof value === 'string' ? [[name, value]] : [];
	});
}

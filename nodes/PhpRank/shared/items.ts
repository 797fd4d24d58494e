import type { IDataObject, IExecutePaginationFunctions, INodeExecutionData } from 'n8n-workflow';
import type { ErrorContext } from './errors';
import { checkNameOf } from './checkNames';
import { unexpectedAnswer } from './errors';
import { gradeOf, storedScore } from './grade';
import { isToolUse } from './toolUse';
import { parseBoolean } from './validation';

interface ReportShape {
	/** Leaves out `results`: one entry per check, several kilobytes a report. */
	omitResults: boolean;
	/** phpRank's web address, the Base URL without /api/v1: a report's page is {site}/reports/{id}. */
	site: string;
	/** Leaves out `url`, phpRank's form of the page's address (no scheme, no www.), where the item has the page's own. */
	omitUrl?: boolean;
}

function scoreOf(value: unknown): number | undefined {
	if (value === null || value === undefined || value === '') return undefined;
	const score = Number(value);
	return Number.isFinite(score) ? score : undefined;
}

/** A score as phpRank stores it, or null when phpRank sent none. */
function storedScoreOf(value: unknown): number | null {
	const score = scoreOf(value);
	return score === undefined ? null : storedScore(score);
}

const IMPORTANCES = ['high', 'medium', 'low'] as const;

type Importance = (typeof IMPORTANCES)[number];

/** The ids of the checks a report failed, by importance, in phpRank's order: small enough for a chat message. */
type FailedChecks = Record<Importance, string[]>;

function isImportance(value: unknown): value is Importance {
	return (IMPORTANCES as readonly unknown[]).includes(value);
}

function noChecks(): FailedChecks {
	return { high: [], medium: [], low: [] };
}

/** The same checks by the titles phpRank's report page shows: what a message to a person names. */
function namesOf(checks: FailedChecks): FailedChecks {
	return { high: checks.high.map(checkNameOf), medium: checks.medium.map(checkNameOf), low: checks.low.map(checkNameOf) };
}

/** Undefined when the record has no per-check results; PHP sends an empty map as `[]`. */
function failedChecksOf(results: unknown): FailedChecks | undefined {
	if (typeof results !== 'object' || results === null) return undefined;
	const failed = noChecks();
	for (const [name, check] of Object.entries(results as IDataObject)) {
		const { passed, importance } = (check ?? {}) as IDataObject;
		if (passed === false && isImportance(importance)) failed[importance].push(name);
	}
	// Copies the size of their checks: a pushed-to array takes room for 17 at once, in every item a run holds.
	return { high: failed.high.slice(), medium: failed.medium.slice(), low: failed.low.slice() };
}

/** The page phpRank shows the report on; who may open it is the report's `privacy`. */
function reportUrlOf(site: string, id: unknown): string | null {
	return id === undefined || id === null ? null : `${site}/reports/${encodeURIComponent(String(id))}`;
}

/**
 * A report as phpRank sends it, with the score as phpRank stores it and, right after it, its `grade`,
 * what the node adds about the run (`additions`: the outcome of a create, the previous score), and
 * `failedChecks` with their `failedCheckNames`, which stay when `results` is left out; beside its `privacy`,
 * the `reportUrl` of its page.
 */
export function shapeReport(record: IDataObject, { omitResults, site, omitUrl = false }: ReportShape, additions: IDataObject = {}): IDataObject {
	const failedChecks = failedChecksOf(record.results);
	const summary = failedChecks === undefined ? additions : { ...additions, failedChecks, failedCheckNames: namesOf(failedChecks) };
	const report: IDataObject = {};
	let summarized = false;
	for (const [key, value] of Object.entries(record)) {
		if ((key === 'results' && omitResults) || (key === 'url' && omitUrl)) continue;
		if (key !== 'result') {
			report[key] = value;
			if (key === 'privacy') report.reportUrl = reportUrlOf(site, record.id);
			continue;
		}
		const score = storedScoreOf(value);
		if (score === null) {
			report.result = value;
		} else {
			report.result = score;
			report.grade = gradeOf(score);
		}
		Object.assign(report, summary);
		summarized = true;
	}
	if (!('privacy' in record)) report.reportUrl = reportUrlOf(site, record.id);
	return summarized ? report : { ...report, ...summary };
}

function checkOf(results: IDataObject, name: string): IDataObject {
	return (results[name] ?? {}) as IDataObject;
}

/**
 * The checks that fail now and did not before, and those that failed before and pass now, by importance, each
 * with their titles: what an alert about a re-analysis leads with. Null where either answer has no per-check results.
 */
function changedChecksOf(previous: unknown, current: unknown): IDataObject {
	if (typeof previous !== 'object' || previous === null || typeof current !== 'object' || current === null) {
		return { newlyFailedChecks: null, newlyFailedCheckNames: null, fixedChecks: null, fixedCheckNames: null };
	}
	const before = previous as IDataObject;
	const now = current as IDataObject;
	const newlyFailedChecks = noChecks();
	const fixedChecks = noChecks();
	for (const name of Object.keys(now)) {
		const { passed, importance } = checkOf(now, name);
		if (passed === false && isImportance(importance) && checkOf(before, name).passed !== false) newlyFailedChecks[importance].push(name);
	}
	for (const name of Object.keys(before)) {
		const { passed, importance } = checkOf(before, name);
		if (passed === false && isImportance(importance) && checkOf(now, name).passed === true) fixedChecks[importance].push(name);
	}
	return { newlyFailedChecks, newlyFailedCheckNames: namesOf(newlyFailedChecks), fixedChecks, fixedCheckNames: namesOf(fixedChecks) };
}

/**
 * The score a report had before, with its grade, how far the stored score moved since, and which checks
 * newly fail or were fixed.
 */
export function previousScoreOf(previous: IDataObject, current: IDataObject): IDataObject {
	const previousResult = storedScoreOf(previous.result);
	const result = storedScoreOf(current.result);
	return {
		previousResult,
		previousGrade: previousResult === null ? null : gradeOf(previousResult),
		resultChange: previousResult === null || result === null ? null : result - previousResult,
		...changedChecksOf(previous.results, current.results),
	};
}

/** A project as phpRank sends it (`result` is the sum of its scores), with their average and its grade. */
export function shapeProject(record: IDataObject): IDataObject {
	const { project, reports, result, ...rest } = record;
	const sum = scoreOf(result);
	const count = Number(reports);
	const averageResult = sum !== undefined && count > 0 ? storedScore(sum / count) : null;
	return {
		project,
		reports,
		result,
		averageResult,
		grade: averageResult === null ? null : gradeOf(averageResult),
		...rest,
	};
}

/**
 * How an item's reports are output: Options > Include Per-Check Results, on unless added and turned off in a
 * workflow, off for an AI agent unless added (it is on when added), as every check's entry crowds the agent's
 * context (n8n gives the tool variant a type name of its own); `site` from the client.
 */
export function reportShapeOf(context: IExecutePaginationFunctions, site: string): ReportShape {
	const { includeResults } = context.getNodeParameter('options', {}) as IDataObject;
	return { site, omitResults: !parseBoolean(context, 'Include Per-Check Results', includeResults ?? !isToolUse(context)) };
}

/** A run's output for one report: shaped as reportShapeOf says, with what the operation adds about it. */
export function reportItems(
	context: IExecutePaginationFunctions,
	record: IDataObject,
	{ site, additions }: { site: string; additions?: IDataObject },
): INodeExecutionData[] {
	return toItems(context, [shapeReport(record, reportShapeOf(context, site), additions)]);
}

export function toItems(context: ErrorContext, records: IDataObject[]): INodeExecutionData[] {
	const item = context.getItemIndex();
	return records.map((json) => ({ json, pairedItem: { item } }));
}

export function recordOf(context: ErrorContext, body: IDataObject): IDataObject {
	const record = body.data;
	if (typeof record !== 'object' || record === null || Array.isArray(record)) throw unexpectedAnswer(context, 'report in "data"');
	return record as IDataObject;
}

export function deletionOf(context: ErrorContext, body: IDataObject): IDataObject {
	if (body.deleted !== true) throw unexpectedAnswer(context, '"deleted": true');
	return { deleted: true, id: body.id as IDataObject['id'] };
}

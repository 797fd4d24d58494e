import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import type { ErrorContext } from './errors';
import { unexpectedAnswer } from './errors';
import { gradeOf, storedScore } from './grade';

export interface ReportShape {
	/** Leaves out `results`: one entry per check, several kilobytes a report. */
	omitResults: boolean;
}

function scoreOf(value: unknown): number | undefined {
	if (value === null || value === undefined || value === '') return undefined;
	const score = Number(value);
	return Number.isFinite(score) ? score : undefined;
}

/** A report as phpRank sends it, with `grade` right after `result` and the score as phpRank stores it. */
export function shapeReport(record: IDataObject, { omitResults }: ReportShape): IDataObject {
	const report: IDataObject = {};
	for (const [key, value] of Object.entries(record)) {
		if (key === 'results' && omitResults) continue;
		if (key !== 'result') {
			report[key] = value;
			continue;
		}
		const score = scoreOf(value);
		if (score === undefined) {
			report.result = value;
			continue;
		}
		report.result = storedScore(score);
		report.grade = gradeOf(report.result as number);
	}
	return report;
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

export function toItems(
	context: ErrorContext,
	records: IDataObject[],
	shape: (record: IDataObject) => IDataObject,
): INodeExecutionData[] {
	const item = context.getItemIndex();
	return records.map((record) => ({ json: shape(record), pairedItem: { item } }));
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

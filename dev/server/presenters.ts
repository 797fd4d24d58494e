/** Records and envelopes as phpRank's API resources shape them. */
import { describePage } from './analysis';
import { formatTimestamp } from './dates';
import { StoredProject, StoredReport } from './store';
import { PhpRankUser, ProjectState, ReportState } from './types';

const DEFAULT_USER_CREATED_AT = '2026-11-21T23:56:03Z';

export interface ReportEcho {
	/** Privacy exactly as the request sent it (string, number or null). */
	privacy?: unknown;
	/** Unrounded score, which answers to create and re-analysis show. */
	result?: number;
}

export function reportRecord(report: StoredReport, echo: ReportEcho = {}) {
	return {
		id: report.id,
		url: report.url,
		project: report.project,
		result: echo.result ?? report.result,
		results: describePage(report.targetUrl, report.quality),
		privacy: 'privacy' in echo ? echo.privacy : report.privacy,
		password: report.password !== null,
		generated_at: formatTimestamp(report.generatedAt),
		created_at: formatTimestamp(report.createdAt),
		updated_at: formatTimestamp(report.updatedAt),
	};
}

export function projectRecord(project: StoredProject) {
	return {
		project: project.name,
		reports: project.reports,
		// MySQL's SUM() reaches PHP as a decimal string.
		result: String(project.result),
		created_at: formatTimestamp(project.createdAt),
	};
}

export function accountRecord(user: PhpRankUser, reportQuota: number | undefined) {
	return {
		id: user.id,
		name: user.name,
		email: user.email,
		locale: 'en',
		timezone: 'UTC',
		plan: { id: 1, name: 'Default', features: { reports: reportQuota ?? -1 } },
		created_at: formatTimestamp(Date.parse(user.createdAt ?? DEFAULT_USER_CREATED_AT) / 1000),
	};
}

export const single = (data: unknown) => ({ data, status: 200 });

export const deletion = (id: number | string) => ({ id, object: 'report', deleted: true, status: 200 });

/** Server state for tests to assert on, with readable dates. */
export function reportState(report: StoredReport): ReportState {
	const { generatedAt, createdAt, updatedAt, ...rest } = report;
	return { ...rest, generatedAt: formatTimestamp(generatedAt), createdAt: formatTimestamp(createdAt), updatedAt: formatTimestamp(updatedAt) };
}

export function projectState(project: StoredProject): ProjectState {
	return {
		userId: project.userId,
		project: project.name,
		reports: project.reports,
		result: project.result,
		createdAt: formatTimestamp(project.createdAt),
	};
}

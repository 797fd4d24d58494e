import { scorePage } from '../analysis';
import { nowInSeconds } from '../dates';
import { carriedParameters, inResultBand, REPORT_LIST_PARAMETERS, reportListQuery } from '../listQuery';
import { paginate } from '../pagination';
import { deletion, ReportEcho, reportRecord, single } from '../presenters';
import { fetchFailure, parseReportTarget, ReportTarget } from '../reportUrl';
import { ApiError, json, validationError } from '../responses';
import { ReportChanges, StoredReport } from '../store';
import { FieldErrors, isPhpTruthy, privacyErrors } from '../validation';
import { ApiContext, Handler } from './context';

const present = (value: unknown) => value !== null && value !== undefined;

function reportId(context: ApiContext): number {
	return Number(context.params.id);
}

function ownReportOr(context: ApiContext, status: 403 | 404): StoredReport {
	const report = context.store.ownReport(context.user.id, reportId(context));
	if (!report) throw new ApiError(status);
	return report;
}

export const listReports: Handler = (context) => {
	const query = reportListQuery(context.input);
	const search = query.search?.toLowerCase();
	const filters: Array<(report: StoredReport) => boolean> = [];
	if (search) filters.push((report) => report.url.toLowerCase().includes(search));
	if (query.project) filters.push((report) => report.project === query.project);
	if (query.result) {
		const band = query.result;
		filters.push((report) => inResultBand(report.result, band));
	}
	const { items, total } = context.store.listReports(
		context.user.id,
		query.sortBy,
		{ descending: query.descending, offset: (query.page - 1) * query.perPage, limit: query.perPage },
		filters.length ? (report) => filters.every((keep) => keep(report)) : undefined,
	);
	const page = paginate(items.map((report) => reportRecord(report)), total, {
		page: query.page,
		perPage: query.perPage,
		path: context.pathUrl,
		carried: carriedParameters(context.input, REPORT_LIST_PARAMETERS),
	});
	return json(200, page);
};

export const showReport: Handler = (context) => json(200, single(reportRecord(ownReportOr(context, 404))));

/** Rules of the url field; the page is only fetched once the cheaper rules pass. */
function urlErrors(context: ApiContext): { messages: string[]; target?: ReportTarget } {
	const url = context.input.url;
	if (!present(url)) return { messages: ['The url field is required.'] };
	const target = parseReportTarget(url);
	const messages: string[] = [];
	if (!target) messages.push('The url format is invalid.');
	const quota = context.settings.maxReportsPerUser;
	if (quota !== undefined && context.store.reportCount(context.user.id) >= quota) messages.push('You created too many reports.');
	if (target && !messages.length) {
		const failure = fetchFailure(target);
		if (failure) messages.push(failure);
	}
	return { messages, target };
}

export const createReport: Handler = async (context) => {
	const { input } = context;
	const url = urlErrors(context);
	const errors: FieldErrors = { ...(url.messages.length ? { url: url.messages } : {}), ...privacyErrors(input) };
	if (Object.keys(errors).length || !url.target) throw validationError(errors);

	await context.wait(context.settings.analysisMs);
	const quality = context.settings.changedPages.get(url.target.url)?.quality;
	const score = scorePage(url.target.targetUrl, quality);
	const now = nowInSeconds();
	const report = context.store.insertReport(context.user.id, {
		...url.target,
		score,
		...(quality === undefined ? {} : { quality }),
		privacy: present(input.privacy) ? Number(input.privacy) : 0,
		password: present(input.password) ? String(input.password) : null,
		generatedAt: now,
		createdAt: now,
		updatedAt: now,
	});
	return json(201, single(reportRecord(report, { privacy: input.privacy ?? null, result: score })));
};

export const updateReport: Handler = async (context) => {
	const { input } = context;
	const report = ownReportOr(context, 403);
	const errors = privacyErrors(input);
	if (Object.keys(errors).length) throw validationError(errors);

	const changes: ReportChanges = {};
	if (present(input.privacy)) changes.privacy = Number(input.privacy);
	// Sending password empty clears it; leaving it out keeps the old one, whatever the privacy.
	if ('password' in input) changes.password = present(input.password) ? String(input.password) : null;
	const reanalyze = isPhpTruthy(input.results);
	if (reanalyze) {
		await context.wait(context.settings.analysisMs);
		changes.quality = context.settings.changedPages.get(report.url)?.quality;
		changes.score = scorePage(report.targetUrl, changes.quality);
		changes.generatedAt = nowInSeconds();
	}
	const changed = (Object.keys(changes) as Array<keyof typeof changes>).some((key) => changes[key] !== report[key]);
	if (changed) context.store.updateReport(report, { ...changes, updatedAt: nowInSeconds() });

	const echo: ReportEcho = {};
	if (present(input.privacy)) echo.privacy = input.privacy;
	if (reanalyze) echo.result = report.score;
	return json(200, single(reportRecord(report, echo)));
};

export const deleteReport: Handler = (context) => {
	const report = ownReportOr(context, 404);
	context.store.deleteReport(report.id);
	return json(200, deletion(report.id));
};

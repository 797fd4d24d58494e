/** phpRank's API: routes, controllers with their validation rules, and the records and pages they answer. */
import { describePage, scorePage } from './analysis';
import type { Points } from './analysis';
import { wait } from './deployment';
import { Answer, ApiError, decode, Input, isPhpInteger, isPhpNumeric, json, requestInput } from './http';
import { ListQuery, projectListQuery, reportListQuery, resultBandOf } from './listQuery';
import { fetchFailure, parseReportTarget, ReportTarget } from './reportUrl';
import { formatTimestamp, nowInSeconds, PhpRankStore, StoredReport } from './store';
import { PageChange, PhpRankUser, RecordedRequest } from './types';

export interface Settings {
	analysisMs: number;
	projectDeleteHazard: boolean;
	maxReportsPerUser?: number;
	/** Whether the API sorts reports by generated_at (phpRank 1.5's falls back to id). */
	sortsByGeneratedAt: boolean;
	/** Pages changed since phpRank first saw them, by their URL as phpRank shows it. */
	changedPages: Map<string, PageChange>;
	/** Points per check importance. */
	points: Points;
}

/** What a controller gets to work with. */
interface ApiContext {
	user: PhpRankUser;
	/** Decoded path parameters. */
	params: Record<string, string>;
	input: Input;
	/** Absolute URL of the requested path without query, as Laravel's paginator uses it. */
	pathUrl: string;
	store: PhpRankStore;
	settings: Settings;
}

type Handler = (context: ApiContext) => Answer | Promise<Answer>;

const present = (value: unknown) => value !== null && value !== undefined;

/** One record; create answers 201 while the envelope still says 200. */
const record = (data: unknown, status = 200) => json(status, { data, status: 200 });

const deletion = (id: number | string) => json(200, { id, object: 'report', deleted: true, status: 200 });

function reportRecord(report: StoredReport, echo: { privacy?: unknown; result?: number } = {}) {
	return {
		id: report.id,
		url: report.url,
		project: report.project,
		// Create and re-analysis answer the unrounded score.
		result: echo.result ?? report.result,
		results: describePage(report.targetUrl, report.quality),
		// Create and update echo privacy exactly as the request sent it (string, number or null).
		privacy: 'privacy' in echo ? echo.privacy : report.privacy,
		password: report.password !== null,
		generated_at: formatTimestamp(report.generatedAt),
		created_at: formatTimestamp(report.createdAt),
		updated_at: formatTimestamp(report.updatedAt),
	};
}

/** PHP's rawurlencode (RFC 3986), which Laravel's Arr::query uses. */
const rawUrlEncode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

/** Laravel's UrlWindow with 3 pages on each side: which page numbers to list, with null standing for a "..." gap. */
function pageWindow(current: number, last: number): Array<number | null> {
	if (last < 14) return range(1, last);
	if (current <= 7) return [...range(1, 10), null, last - 1, last];
	if (current > last - 7) return [1, 2, null, ...range(last - 9, last)];
	return [1, 2, null, ...range(current - 3, current + 3), null, last - 1, last];
}

/** One page of `ordered` (ascending), as Laravel's LengthAwarePaginator renders it through an API resource collection. */
function listPage<T>(context: ApiContext, query: ListQuery, list: { ordered: readonly T[]; present: (item: T) => unknown }): Answer {
	const { page, perPage } = query;
	const { ordered } = list;
	const offset = (page - 1) * perPage;
	// Descending pages count from the end of the ascending order.
	const end = Math.max(0, ordered.length - offset);
	const items = query.descending ? ordered.slice(Math.max(0, end - perPage), end).reverse() : ordered.slice(offset, offset + perPage);
	const lastPage = Math.max(Math.ceil(ordered.length / perPage), 1);
	const url = (n: number) =>
		`${context.pathUrl}?${[...query.carried, ['page', String(n)]].map((pair) => pair.map(rawUrlEncode).join('=')).join('&')}`;
	const from = items.length ? offset + 1 : null;
	const prev = page > 1 ? url(page - 1) : null;
	const next = page < lastPage ? url(page + 1) : null;
	const numbered = pageWindow(page, lastPage).map((n) =>
		n === null ? { url: null, label: '...', active: false } : { url: url(n), label: String(n), active: n === page },
	);
	return json(200, {
		data: items.map(list.present),
		links: { first: url(1), last: url(lastPage), prev, next },
		meta: {
			current_page: page,
			from,
			last_page: lastPage,
			links: [{ url: prev, label: '&laquo; Previous', active: false }, ...numbered, { url: next, label: 'Next &raquo;', active: false }],
			path: context.pathUrl,
			per_page: perPage,
			to: from === null ? null : from + items.length - 1,
			total: ordered.length,
		},
		status: 200,
	});
}

const validationError = (errors: Record<string, string[]>) => new ApiError(422, { message: errors, status: 422 });

/**
 * Rules of privacy and password, shared by create and update. `integer|between:0,2`: Laravel runs both,
 * and a non-numeric value's size is its length, so "abc" fails both rules while "ab" only fails the first.
 */
function privacyErrors(input: Input): Record<string, string[]> {
	const { privacy } = input;
	if (!present(privacy)) return {};
	const messages: string[] = [];
	if (!isPhpInteger(privacy)) messages.push('The privacy must be an integer.');
	const size = isPhpNumeric(privacy) ? Number(privacy) : typeof privacy === 'string' ? [...privacy].length : Number.NaN;
	if (!(size >= 0 && size <= 2)) messages.push('The privacy must be between 0 and 2.');
	const errors: Record<string, string[]> = messages.length ? { privacy: messages } : {};
	// required_if:privacy,2 compares loosely, so "2", 2 and "02" all demand a password.
	if (isPhpNumeric(privacy) && Number(privacy) === 2 && !present(input.password)) errors.password = ['The password field is required.'];
	return errors;
}

/** Rules of the url field; the page is only fetched once the cheaper rules pass. */
function urlErrors(context: ApiContext): { messages: string[]; target?: ReportTarget } {
	const url = context.input.url;
	if (!present(url)) return { messages: ['The url field is required.'] };
	const target = parseReportTarget(url);
	const messages: string[] = [];
	if (!target) messages.push('The url format is invalid.');
	const quota = context.settings.maxReportsPerUser;
	if (quota !== undefined && context.store.reportCount(context.user.id) >= quota) messages.push('You created too many reports.');
	const failure = target && !messages.length ? fetchFailure(target) : undefined;
	if (failure) messages.push(failure);
	return { messages, target };
}

function ownReportOr(context: ApiContext, status: 403 | 404): StoredReport {
	const report = context.store.ownReport(context.user.id, Number(context.params.id));
	if (!report) throw new ApiError(status);
	return report;
}

const showAccount: Handler = ({ user, settings }) =>
	record({
		id: user.id,
		name: user.name,
		email: user.email,
		locale: 'en',
		timezone: 'UTC',
		plan: { id: 1, name: 'Default', features: { reports: settings.maxReportsPerUser ?? -1 } },
		// A fixed date when the user has none, so answers stay deterministic.
		created_at: formatTimestamp(Date.parse(user.createdAt ?? '2026-11-21T23:56:03Z') / 1000),
	});

const listReports: Handler = (context) => {
	const query = reportListQuery(context.input, { sortsByGeneratedAt: context.settings.sortsByGeneratedAt });
	const search = query.search?.toLowerCase();
	const keep = (report: StoredReport) =>
		(!search || report.url.toLowerCase().includes(search)) &&
		(!query.project || report.project === query.project) &&
		(!query.result || resultBandOf(report.result) === query.result);
	const ordered = context.store.sortedReports(context.user.id, query.sortBy);
	const filtered = search || query.project || query.result ? ordered.filter(keep) : ordered;
	return listPage(context, query, { ordered: filtered, present: (report) => reportRecord(report) });
};

const showReport: Handler = (context) => record(reportRecord(ownReportOr(context, 404)));

const createReport: Handler = async (context) => {
	const { input } = context;
	const url = urlErrors(context);
	const errors = { ...(url.messages.length ? { url: url.messages } : {}), ...privacyErrors(input) };
	if (Object.keys(errors).length || !url.target) throw validationError(errors);

	await wait(context.settings.analysisMs);
	const quality = context.settings.changedPages.get(url.target.url)?.quality;
	const score = scorePage(url.target.targetUrl, quality, context.settings.points);
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
	return record(reportRecord(report, { privacy: input.privacy ?? null, result: score }), 201);
};

const updateReport: Handler = async (context) => {
	const { input } = context;
	const report = ownReportOr(context, 403);
	const errors = privacyErrors(input);
	if (Object.keys(errors).length) throw validationError(errors);

	const changes: Partial<StoredReport> = {};
	if (present(input.privacy)) changes.privacy = Number(input.privacy);
	// Sending password empty clears it; leaving it out keeps the old one, whatever the privacy.
	if ('password' in input) changes.password = present(input.password) ? String(input.password) : null;
	// PHP truthiness, as `if ($request->input('results'))` applies it.
	const reanalyze = !([null, undefined, false, 0, '', '0'] as unknown[]).includes(input.results);
	if (reanalyze) {
		await wait(context.settings.analysisMs);
		changes.quality = context.settings.changedPages.get(report.url)?.quality;
		changes.score = scorePage(report.targetUrl, changes.quality, context.settings.points);
		changes.generatedAt = nowInSeconds();
	}
	const changed = (Object.keys(changes) as Array<keyof typeof changes>).some((key) => changes[key] !== report[key]);
	if (changed) context.store.updateReport(report, { ...changes, updatedAt: nowInSeconds() });
	const echo = reanalyze ? { result: report.score } : {};
	return record(reportRecord(report, present(input.privacy) ? { ...echo, privacy: input.privacy } : echo));
};

const deleteReport: Handler = (context) => {
	const report = ownReportOr(context, 404);
	context.store.deleteReport(report.id);
	return deletion(report.id);
};

const listProjects: Handler = (context) => {
	const query = projectListQuery(context.input);
	const search = query.search?.toLowerCase();
	const ordered = context.store.sortedProjects(context.user.id, query.sortBy);
	return listPage(context, query, {
		ordered: search ? ordered.filter((project) => project.project.toLowerCase().includes(search)) : ordered,
		// MySQL's SUM() reaches PHP as a decimal string.
		present: ({ project, reports, result, createdAt }) => ({
			project,
			reports,
			result: String(result),
			created_at: formatTimestamp(createdAt),
		}),
	});
};

const deleteProject: Handler = (context) => {
	const name = context.params.project;
	const held = context.store.deleteProject(context.user.id, name);
	if (held === undefined) throw new ApiError(404);
	// phpRank 1.2–1.8 mistakes the number of deleted reports for a report id and deletes that one too.
	if (context.settings.projectDeleteHazard) context.store.deleteReport(held);
	return deletion(name);
};

/** Path patterns after /api/v1 (':name' captures one segment), each with its methods in the order of the Allow header. */
const ROUTES: Array<[string, Partial<Record<string, Handler>>]> = [
	['account', { GET: showAccount }],
	['reports', { GET: listReports, POST: createReport }],
	['reports/:id', { GET: showReport, PUT: updateReport, PATCH: updateReport, DELETE: deleteReport }],
	['projects', { GET: listProjects }],
	['projects/:project', { DELETE: deleteProject }],
];

function matchPath(pattern: string, segments: Array<string | undefined>): Record<string, string> | undefined {
	const expected = pattern.split('/');
	if (expected.length !== segments.length) return undefined;
	const params: Record<string, string> = {};
	for (const [i, actual] of segments.entries()) {
		const name = expected[i];
		if (!actual || (!name.startsWith(':') && name !== actual)) return undefined;
		// Route constraint: report ids are numeric, so /reports/abc is an unknown path rather than a bad id.
		if (name === ':id' && !/^[0-9]+$/.test(actual)) return undefined;
		if (name.startsWith(':')) params[name.slice(1)] = actual;
	}
	return params;
}

/** Laravel's token guard; bearerToken() is the text after the last "Bearer " (case-sensitive), up to a comma. */
function authenticate(record: RecordedRequest, store: PhpRankStore): PhpRankUser {
	const header = record.headers.authorization ?? '';
	const at = header.lastIndexOf('Bearer ');
	const token = at < 0 ? '' : header.slice(at + 7).split(',')[0];
	const user = token ? store.userByApiKey(token) : undefined;
	if (!user) throw new ApiError(401);
	return user;
}

/**
 * Laravel's router (path first, then method), its token guard, then the controller. `rawAppPath` is the raw,
 * still encoded path after basePath, e.g. '/api/v1/reports/5'.
 */
export function callApi(record: RecordedRequest, app: { rawAppPath: string; origin: string; store: PhpRankStore; settings: Settings }) {
	const { method } = record;
	const { rawAppPath, store, settings } = app;
	// Laravel ignores a trailing slash.
	const segments = rawAppPath.slice('/api/v1'.length).replace(/^\/+|\/+$/g, '').split('/').map(decode);
	for (const [pattern, methods] of rawAppPath.startsWith('/api/v1/') ? ROUTES : []) {
		const params = matchPath(pattern, segments);
		if (!params) continue;
		const handler = methods[method === 'HEAD' ? 'GET' : method];
		// GET routes answer HEAD too, as in Laravel.
		const allow = Object.keys(methods).flatMap((allowed) => (allowed === 'GET' ? ['GET', 'HEAD'] : [allowed])).join(', ');
		if (!handler && method === 'OPTIONS') return { status: 200, headers: { Allow: allow }, body: '' };
		if (!handler) {
			const message = `The ${method} method is not supported for this route. Supported methods: ${allow}.`;
			throw new ApiError(405, { message, status: 405 }, { Allow: allow });
		}
		const user = authenticate(record, store);
		const pathUrl = `${app.origin}${record.rawPath.replace(/\/+$/, '')}`;
		return handler({ user, params, input: requestInput(record), pathUrl, store, settings });
	}
	throw new ApiError(404);
}

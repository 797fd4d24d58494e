/**
 * What each offline example must have done, read from the execution n8n printed and from the bundled server's
 * state. Every run starts from a known server state (`prepare`).
 */
import path from 'node:path';

import { AUDIT_SITE_ANALYZED_PATHS, type PhpRankServer } from '../../dev/server';
import { assert, assertEqual } from './checks';
import { itemsOf, type Execution } from '../../dev/n8n/executions';
import {
	AUDIT_HISTORY_TABLES,
	pageHistoryRows,
	readCsv,
	resultsRow,
	RESULTS_FILE,
	runHistoryRow,
	seedReportsWithChangedPages,
	siteAuditSummary,
	spreadsheetRows,
} from '../../dev/examples';
import type { SiteAuditItem } from '../../dev/examples';
import { checkTitle, failedChecks, failedCheckTitles } from '../../dev/server/analysis';
import { parseReportTarget } from '../../dev/server/reportUrl';
import { resultBandOf } from '../../dev/server/listQuery';

interface ExampleExpectation {
	/** Brings the server into the state the checks assume. */
	prepare(server: PhpRankServer): void;
	/** Throws when the run did not do what it should; returns a short summary of what it did. */
	verify(execution: Execution, server: PhpRankServer, before: ServerSnapshot, outputFolder: string): string;
	/** For an example that writes n8n Data tables: checks their rows after the run (by table name, as n8n's REST API answers them). */
	verifyDataTables?(tables: Record<string, Array<Record<string, unknown>>>, execution: Execution, server: PhpRankServer): string;
}

interface ServerSnapshot {
	reports: ReturnType<PhpRankServer['reports']>;
	projects: ReturnType<PhpRankServer['projects']>;
}

export function snapshot(server: PhpRankServer): ServerSnapshot {
	return { reports: server.reports(), projects: server.projects() };
}

const SEEDED_REPORTS = 20;

function reseed(server: PhpRankServer): void {
	server.reset();
	server.seedReports(SEEDED_REPORTS);
}

type Report = ServerSnapshot['reports'][number];

const ids = (items: Array<Record<string, unknown>>) => items.map((item) => item.id);
const names = (list: string[]) => list.join(', ') || 'none';
const failedHigh = (report: Report) => names(failedCheckTitles(report.targetUrl, report.quality).high);
/** The page of a report in phpRank, as the node links it: the credential's Base URL is the bundled server's URL. */
const reportUrl = (server: PhpRankServer, id: number) => `${server.url}/reports/${id}`;
const IMPORTANCES = ['high', 'medium', 'low'] as const;

/**
 * The checks that fail after the re-analysis and did not before, and the reverse, by importance (in the node's key
 * order, which assertEqual compares), as the server's analysis has them.
 */
function changedChecks(before: Report, after: Report) {
	const failedBefore = failedChecks(before.targetUrl, before.quality);
	const failedAfter = failedChecks(after.targetUrl, after.quality);
	const only = (list: string[], other: string[]) => list.filter((name) => !other.includes(name));
	const byImportance = (pick: (importance: (typeof IMPORTANCES)[number]) => string[]) =>
		Object.fromEntries(IMPORTANCES.map((importance) => [importance, pick(importance)])) as Record<(typeof IMPORTANCES)[number], string[]>;
	return {
		newlyFailedChecks: byImportance((importance) => only(failedAfter[importance], failedBefore[importance])),
		fixedChecks: byImportance((importance) => only(failedBefore[importance], failedAfter[importance])),
	};
}
const sorted = <T>(values: readonly T[]) => [...values].sort((a, b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));

const spreadsheetOffline: ExampleExpectation = {
	prepare: (server) => server.reset(),
	verify(execution, server, _before, outputFolder) {
		const rows = spreadsheetRows();
		const unreachable = rows.filter((row) => new URL(row.url).hostname.endsWith('.invalid'));
		assertEqual(itemsOf(execution, 'Extract rows').map((item) => item.url), rows.map((row) => row.url), 'rows read from examples/data/urls.csv');

		const reports = itemsOf(execution, 'Create SEO report', 0);
		const failures = itemsOf(execution, 'Create SEO report', 1);
		// n8n sends the rows' requests concurrently: the server numbers the reports in arrival order.
		const created = server.reports();
		const reachable = rows.filter((row) => !unreachable.includes(row));
		const bare = (url: string) => url.replace(/\/$/, '');
		assertEqual(created.length, reachable.length, 'reports created on the server (one per reachable CSV row)');
		assertEqual(sorted(created.map((report) => bare(report.targetUrl))), sorted(reachable.map((row) => bare(row.url))), 'URLs of the reports created on the server');
		assertEqual(sorted(ids(reports)), sorted(created.map((report) => report.id)), 'items on the success output of "Create SEO report"');
		assertEqual(
			reports.map((report) => created.find((candidate) => candidate.id === report.id)?.targetUrl).map((url) => bare(String(url))),
			reachable.map((row) => bare(row.url)),
			'reports in the order of their rows',
		);
		assertEqual(failures.length, unreachable.length, 'items on the error output (the .invalid row)');

		// Every row looked up once as its site's reports read once, or its URL alone for a site with one row.
		const targets = rows.map((row) => parseReportTarget(row.url)!);
		const rowsOf = (project: string) => targets.filter((target) => target.project === project);
		const sites = [...new Set(targets.map((target) => target.project))];
		const reads = server.requests.filter((request) => request.method === 'GET' && sites.includes(request.query.project));
		assertEqual(
			sorted(reads.map((request) => request.query.search ?? `the reports of ${request.query.project}`)),
			sorted(sites.map((site) => (rowsOf(site).length > 1 ? `the reports of ${site}` : rowsOf(site)[0].url))),
			'reads: the reports of a site with several rows read once, a site with one row looked up by its URL',
		);
		assertEqual(itemsOf(execution, 'Row with its error').length, unreachable.length, 'items reaching "Row with its error"');

		const inRowOrder = reports.map((report) => created.find((candidate) => candidate.id === report.id)!);
		// phpRank grades the score it stores, a whole number (48.57 is stored as 49: decent).
		const bad = inRowOrder.filter((report) => report.result < 49);
		assert(bad.length > 0 && bad.length < created.length, `expected a mix of grades, got ${bad.length} bad of ${created.length}`);
		assertEqual(ids(itemsOf(execution, 'Grade is bad?', 0)), bad.map((report) => report.id), 'reports on the IF node\'s true branch (score below 49)');
		assertEqual(
			ids(itemsOf(execution, 'Grade is bad?', 1)),
			inRowOrder.filter((report) => report.result >= 49).map((report) => report.id),
			'reports on the IF node\'s false branch',
		);
		assertEqual(
			reports.map((report) => report.reportUrl),
			inRowOrder.map((report) => reportUrl(server, report.id)),
			'reportUrl of each report ({Base URL}/reports/{id})',
		);
		assertEqual(
			itemsOf(execution, 'Build alert message').map((item) => [item.text, item.reportUrl]),
			bad.map((report) => [
				`SEO alert: ${report.url} scored ${Math.round(report.score)} (bad). Failed high-importance checks: ${failedHigh(report)}. Report: ${reportUrl(server, report.id)}`,
				reportUrl(server, report.id),
			]),
			'alert messages and their links',
		);

		// The file the workflow wrote: the reported rows in their order, then the failed ones with their error.
		const written = readCsv(path.join(outputFolder, RESULTS_FILE));
		const withoutError = written.map((row) => ({ ...row, error: '' }));
		assertEqual(
			withoutError,
			[...reachable.map((row, index) => resultsRow(server, row.url, inRowOrder[index])), ...unreachable.map((row) => resultsRow(server, row.url))],
			`rows of ${RESULTS_FILE} (url, result, grade, failedHighChecks, reportUrl)`,
		);
		assertEqual(
			written.map((row) => row.error.includes(`Could not resolve host: ${new URL(row.url).hostname}`)),
			[...reachable, ...unreachable].map((row) => unreachable.includes(row)),
			`rows of ${RESULTS_FILE} with an error (the .invalid row)`,
		);
		return `${rows.length} CSV rows: ${created.length} reports created, ${bad.length} bad on the IF's true branch, ${failures.length} on the error output; ${written.length} rows written to ${RESULTS_FILE}`;
	},
};

const GRADES = ['bad', 'decent', 'good'];
// The node's grade is phpRank's own band of the score, the one its `result` filter applies.
const gradeOf = resultBandOf;

const scheduledReanalysisOffline: ExampleExpectation = {
	prepare: seedReportsWithChangedPages,
	verify(execution, server, before) {
		const now = (id: number) => server.reports().find((report) => report.id === id)!;
		const newestFirst = [...before.reports].sort((a, b) => b.id - a.id);
		assertEqual(ids(itemsOf(execution, 'Get all reports')), newestFirst.map((report) => report.id), 'reports read (newest first)');
		assertEqual(
			itemsOf(execution, 'Re-analyze report').map((item) => [item.id, item.previousResult, item.result]),
			newestFirst.map((report) => [report.id, report.result, now(report.id).result]),
			'previous and new score of each re-analyzed report',
		);
		assertEqual(
			itemsOf(execution, 'Re-analyze report').map((item) => [item.id, item.reportUrl, item.newlyFailedChecks, item.newlyFailedCheckNames, item.fixedChecks, item.fixedCheckNames]),
			newestFirst.map((report) => {
				const { newlyFailedChecks, fixedChecks } = changedChecks(report, now(report.id));
				const titled = (checks: typeof fixedChecks) => ({ high: checks.high.map(checkTitle), medium: checks.medium.map(checkTitle), low: checks.low.map(checkTitle) });
				return [report.id, reportUrl(server, report.id), newlyFailedChecks, titled(newlyFailedChecks), fixedChecks, titled(fixedChecks)];
			}),
			'link and newly failing and fixed checks of each re-analyzed report, with their titles',
		);
		const gradeGotWorse = (report: Report) => GRADES.indexOf(gradeOf(now(report.id).result)) < GRADES.indexOf(gradeOf(report.result));
		const newlyFailsHigh = (report: Report) => changedChecks(report, now(report.id)).newlyFailedChecks.high.length > 0;
		const alerted = newestFirst.filter((report) => gradeGotWorse(report) || newlyFailsHigh(report));
		const worse = alerted.filter(gradeGotWorse);
		const sameGrade = alerted.filter((report) => !gradeGotWorse(report));
		assert(worse.length > 0, 'no report\'s grade got worse: the server did not change any page');
		assert(sameGrade.length > 0, 'no report kept its grade while newly failing a high-importance check: see seedReportsWithChangedPages');
		assertEqual(
			ids(itemsOf(execution, 'Got worse?', 0)),
			alerted.map((report) => report.id),
			"reports on the IF node's true branch (grade got worse, or a high-importance check newly fails)",
		);
		assertEqual(
			itemsOf(execution, 'Build alert message').map((item) => [item.text, item.reportUrl]),
			alerted.map((report) => {
				const after = now(report.id);
				const { newlyFailedChecks, fixedChecks } = changedChecks(report, after);
				const change = after.result - report.result;
				const fixed = [...fixedChecks.high, ...fixedChecks.medium, ...fixedChecks.low].map(checkTitle);
				const titles = (list: string[]) => names(list.map(checkTitle));
				const text =
					`SEO alert: ${report.url} got worse: ${report.result} → ${after.result}/100 (${change > 0 ? '+' : ''}${change}, ${gradeOf(report.result)} → ${gradeOf(after.result)}). ` +
					`Newly failing checks: high: ${titles(newlyFailedChecks.high)}; medium: ${titles(newlyFailedChecks.medium)}; low: ${titles(newlyFailedChecks.low)}.` +
					(fixed.length ? ` Fixed: ${fixed.join(', ')}.` : '') +
					` Report: ${reportUrl(server, report.id)}`;
				return [text, reportUrl(server, report.id)];
			}),
			'alert messages and their links',
		);
		return `${before.reports.length} reports re-analyzed, ${alerted.length} alerted: ${worse.length} whose grade got worse, ${sameGrade.length} newly failing a high-importance check`;
	},
};

const weeklyCleanUp: ExampleExpectation = {
	prepare: reseed,
	verify(execution, server, before) {
		// phpRank's "bad" filter: a stored score below 49.
		const bad = before.reports.filter((report) => report.result < 49).sort((a, b) => a.id - b.id);
		assert(bad.length > 0, 'the seeded server has no bad reports to clean up');
		assertEqual(ids(itemsOf(execution, 'Find bad reports')), bad.map((report) => report.id), 'reports found (bad, oldest first)');
		assertEqual(
			itemsOf(execution, 'Delete report'),
			bad.map((report) => ({ deleted: true, id: report.id })),
			'Delete report output',
		);
		const after = server.reports();
		assertEqual(after.filter((report) => report.result < 49).length, 0, 'bad reports left on the server');
		assertEqual(
			after.map((report) => report.id),
			before.reports.filter((report) => report.result >= 49).map((report) => report.id),
			'reports kept on the server',
		);
		return `${bad.length} of ${before.reports.length} reports were bad and deleted, ${after.length} kept`;
	},
};

const projectDigestOffline: ExampleExpectation = {
	prepare: reseed,
	verify(execution, _server, before) {
		const projects = before.projects;
		assert(projects.length > 1, 'the seeded server has fewer than two projects');
		assertEqual(itemsOf(execution, 'Get all projects').length, projects.length, 'projects read');
		const [digest, ...more] = itemsOf(execution, 'Build digest');
		assert(digest && more.length === 0, 'expected one digest item');
		const reportCount = projects.reduce((sum, project) => sum + project.reports, 0);
		assertEqual(digest.projectCount, projects.length, 'projectCount');
		assertEqual(digest.reportCount, reportCount, 'reportCount');

		const [header, ...lines] = String(digest.text).split('\n');
		assertEqual(
			header,
			`*phpRank weekly digest*: ${projects.length} projects, ${reportCount} reports. Lowest average score first:`,
			'digest header',
		);
		const average = (project: { reports: number; result: number }) => Math.round(project.result / Math.max(project.reports, 1));
		const expectedLines = projects.map(
			(project) => `• ${project.project}: ${average(project)}/100 on average over ${project.reports} ${project.reports === 1 ? 'report' : 'reports'}`,
		);
		assertEqual([...lines].sort(), [...expectedLines].sort(), 'one digest line per project');
		const averages = lines.map((line) => Number(/: (\d+)\/100/.exec(line)?.[1]));
		assert(
			averages.every((value, index) => index === 0 || averages[index - 1] <= value),
			`digest lines are not ordered by average score: ${averages.join(', ')}`,
		);
		return `${projects.length} projects, ${reportCount} reports, lowest average ${averages[0]}/100 first`;
	},
};

/** What Site > Audit finds of the bundled audit site (dev/server/auditSite.ts), by path. */
const AUDIT_SITE = {
	/** The indexable pages that answer 200 with HTML: what phpRank is asked about. */
	analyzed: AUDIT_SITE_ANALYZED_PATHS,
	/** Pages search engines may not index (noindex, canonicalized), and those only nofollow links lead to: never sent to phpRank. */
	notIndexable: [
		'/indexing/noindex-meta.html',
		'/indexing/noindex-header.html',
		'/indexing/canonicalized.html',
		'/indexing/two-canonicals.html',
		'/indexing/canonical-to-gone.html',
		'/indexing/canonical-to-redirect.html',
		'/indexing/canonical-to-noindex.html',
		'/indexing/hidden-by-rel.html',
		'/indexing/hidden-by-meta.html',
	],
	broken: {
		'/docs/missing.html': ['/docs/intro.html "Missing chapter"', '/docs/next.html "Read on"', '/indexing/nofollow.html "Old chapter"'],
		'/gone.html': ['/about.html "Gone"', '/docs/next.html "Old offer"', '/docs/deep/three.html "Archive"'],
	},
	urls: 31,
};

/** The weekly site audit's first run on the bundled audit site: every page analyzed, the broken links, orphan and depth in the summary. */
const siteAuditOffline: ExampleExpectation = {
	prepare(server) {
		server.reset();
	},
	verify(execution, server, before) {
		const items = itemsOf(execution, 'Audit site') as unknown as SiteAuditItem[];
		const origin = new URL(String(items[0]?.url)).origin;
		const pathOf = (url: string) => new URL(url).pathname;
		assertEqual(items.length, AUDIT_SITE.urls, 'items of Audit site, one per URL found');
		const creates = server.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/api/v1/reports'));
		assertEqual(sorted(creates.map((request) => pathOf(String((request.body as { url?: string }).url)))), sorted(AUDIT_SITE.analyzed), 'creates phpRank received: one per indexable page that answered with HTML');
		assertEqual(
			AUDIT_SITE.notIndexable.map((path) => items.find((item) => pathOf(item.url) === path)?.outcome),
			AUDIT_SITE.notIndexable.map(() => 'notAnalyzed'),
			'outcomes of the pages search engines may not index and of those only nofollow links lead to',
		);
		const summary = itemsOf(execution, 'Build summary');
		assertEqual(summary.map((item) => item.text), [siteAuditSummary(server, before.reports, { items })], 'the summary');
		const text = String(summary[0].text);
		for (const [target, linkers] of Object.entries(AUDIT_SITE.broken)) {
			const line = `• ${origin}${target} (${target === '/gone.html' ? 410 : 404}) linked from ${linkers.map((linker) => `${origin}${linker}`).join(', ')}`;
			assert(text.includes(`${line}\n`), `the summary does not name ${target} with the pages and anchor texts linking to it:\n${text}`);
		}
		assert(text.includes(`*Orphan pages* (in a sitemap, linked from no page)\n• ${origin}/orphan.html\n`), 'the summary does not name the orphan');
		assert(text.includes(`*Deepest pages* (clicks from the start page)\n• 4 clicks: ${origin}/docs/deep/four.html\n`), 'the summary does not name the page four clicks deep');
		return `${items.length} URLs, ${creates.length} analyzed; the summary names ${Object.keys(AUDIT_SITE.broken).length} broken links, the orphan and the deepest page`;
	},
	verifyDataTables(tables, execution, server) {
		const pageRows = tables[AUDIT_HISTORY_TABLES.pages.name] ?? [];
		const runRows = tables[AUDIT_HISTORY_TABLES.runs.name] ?? [];
		const runAt = String(itemsOf(execution, 'Audit settings')[0]?.runAt);
		const items = itemsOf(execution, 'Audit site') as unknown as SiteAuditItem[];
		const columns = (row: Record<string, unknown>, names: ReadonlyArray<{ name: string }>) => Object.fromEntries(names.map(({ name }) => [name, row[name]]));
		const withoutRun = ({ runId: _runId, runAt: _runAt, ...row }: Record<string, unknown>) => row;
		assertEqual(
			pageRows.map((row) => [row.runId, new Date(String(row.runAt)).toISOString()]),
			items.map(() => [runAt, runAt]),
			`${AUDIT_HISTORY_TABLES.pages.name}: a row per URL found, each with the run's start (${runAt})`,
		);
		const expectedPages = pageHistoryRows(server, items);
		assertEqual(
			pageRows.map((row) => withoutRun(columns(row, AUDIT_HISTORY_TABLES.pages.columns))),
			expectedPages,
			`${AUDIT_HISTORY_TABLES.pages.name}: each URL's status, depth, inlinks, broken and orphan flags, a broken link's linking pages, each page's score, grade, failed checks, report ID and link as the server holds them, the error of a URL that could not be audited`,
		);
		assertEqual(
			runRows.map((row) => withoutRun(columns(row, AUDIT_HISTORY_TABLES.runs.columns))),
			[runHistoryRow(expectedPages, pageRows.map((row) => Number(row.id)))],
			`${AUDIT_HISTORY_TABLES.runs.name}: one row for the site and run, with the IDs n8n gave its page rows`,
		);
		assertEqual(runRows.map((row) => [row.runId, new Date(String(row.runAt)).toISOString()]), [[runAt, runAt]], `${AUDIT_HISTORY_TABLES.runs.name}: the run's start`);
		assertEqual(
			String(itemsOf(execution, 'Build summary')[0]?.text).split('\n')[1],
			`Average score ${Number(runRows[0]?.averageScore).toFixed(1)}: first run`,
			"the summary's trend: the site's first run, its average as the runs table holds it (the run not counted as its own last)",
		);
		return `${pageRows.length} rows in ${AUDIT_HISTORY_TABLES.pages.name} (${pageRows.filter((row) => row.broken).length} broken, ${pageRows.filter((row) => row.orphan).length} orphan), ${runRows.length} in ${AUDIT_HISTORY_TABLES.runs.name} (average ${String(runRows[0]?.averageScore)})`;
	},
};

/** Checks for the examples this suite knows; any other offline example must at least run without error. */
export const EXPECTATIONS: Record<string, ExampleExpectation> = {
	'spreadsheet-to-seo-reports-offline.json': spreadsheetOffline,
	'weekly-report-clean-up.json': weeklyCleanUp,
	'project-digest-offline.json': projectDigestOffline,
	'scheduled-reanalysis-offline.json': scheduledReanalysisOffline,
	'site-audit-offline.json': siteAuditOffline,
};

export const GENERIC_EXPECTATION: ExampleExpectation = {
	prepare: reseed,
	verify(execution) {
		const ran = Object.keys(execution.data.resultData.runData);
		return `${ran.length} nodes ran`;
	},
};

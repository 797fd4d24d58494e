/**
 * The example workflows in `examples/` ready to run in n8n's engine (the demo and the tests), the
 * way n8n would run them when started from the repository folder, and the example spreadsheet.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { RESTRICT_FILE_ACCESS_TO } from 'n8n-core';
import type { DataTableColumnType, INodeExecutionData } from 'n8n-workflow';

import type { PhpRankServer, ReportState } from './server';
import { CHECK_NAMES, checkTitle, DEFAULT_POINTS, describePage, failedChecks, failedCheckTitles, scoreOf, scorePage } from './server/analysis';
import type { Points } from './server/analysis';
import { resultBandOf } from './server/listQuery';
import type { WorkflowFixture } from './engine';
import { InMemoryDataTables } from './engine/dataTables';
import { pointedAt } from './n8n/examples';

export const REPOSITORY_ROOT = path.resolve(__dirname, '..');
export const EXAMPLES_DIR = path.join(REPOSITORY_ROOT, 'examples');

/**
 * Lets the file nodes read the examples folder, and write into `outputFolders`. Must run before the first
 * workflow run: n8n reads the setting once, and the engine only fills in its own folders when nothing is set
 * yet. An existing setting (e.g. from the shell) is kept and extended.
 */
export function allowExampleFiles(...outputFolders: string[]): void {
	const allowed = (process.env[RESTRICT_FILE_ACCESS_TO] ?? '').split(';').filter(Boolean);
	const added = [EXAMPLES_DIR, ...outputFolders].filter((folder) => !allowed.includes(folder));
	process.env[RESTRICT_FILE_ACCESS_TO] = [...allowed, ...added].join(';');
}

/** The file the spreadsheet examples write their results to (in examples/data, unless moved by writingInto). */
export const RESULTS_FILE = 'urls-with-seo-reports.csv';

const READ_WRITE_FILE = 'n8n-nodes-base.readWriteFile';

/**
 * The workflow exported in `examples/<fileName>`. The file keeps repository-relative file paths,
 * which n8n resolves against the folder it was started from; here they are made absolute so that
 * the run does not depend on the current folder. With `server`, what it fetches from the bundled
 * server directly is fetched from that one, and with `site` the offline site audit audits that audit site;
 * `outputFolder` moves the files it writes there.
 */
export function loadExampleWorkflow(
	fileName: string,
	{ server, site, outputFolder }: { server?: { url: string }; site?: { url: string }; outputFolder?: string } = {},
): WorkflowFixture {
	const read = JSON.parse(readFileSync(path.join(EXAMPLES_DIR, fileName), 'utf8')) as WorkflowFixture;
	const workflow = server ? pointedAt(read, server, site) : read;
	for (const node of workflow.nodes) {
		const selector = node.parameters.fileSelector;
		if (node.type === READ_WRITE_FILE && typeof selector === 'string' && !path.isAbsolute(selector)) {
			// fast-glob wants forward slashes, on Windows too.
			node.parameters.fileSelector = path.join(REPOSITORY_ROOT, selector).split(path.sep).join('/');
		}
	}
	return outputFolder ? writingInto(workflow, outputFolder) : workflow;
}

interface FileNodes {
	nodes: Array<{ type: string; parameters: Record<string, unknown> }>;
}

/**
 * The workflow with the files its nodes write moved into `folder`, under the same names: a test or an n8n
 * started for one leaves examples/data as it is, and reads what was written from a folder of its own.
 */
export function writingInto<T extends FileNodes>(workflow: T, folder: string): T {
	const nodes = workflow.nodes.map((node) => {
		const { operation, fileName } = node.parameters;
		if (node.type !== READ_WRITE_FILE || operation !== 'write' || typeof fileName !== 'string') return node;
		return { ...node, parameters: { ...node.parameters, fileName: path.join(folder, path.basename(fileName)) } };
	});
	return { ...workflow, nodes };
}

/**
 * A CSV file's rows by their header row's column names (RFC 4180: quoted fields may hold commas, quotes, line
 * breaks). A byte order mark, which n8n's Convert to File writes, is skipped.
 */
export function readCsv(file: string): Array<Record<string, string>> {
	const records: string[][] = [[]];
	const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '').replace(/\r?\n$/, '');
	const field = /("((?:[^"]|"")*)"|[^,\r\n]*)(,|\r?\n|$)/gy;
	for (let match = field.exec(text); match; match = field.exec(text)) {
		records[records.length - 1].push(match[2] === undefined ? match[1] : match[2].replace(/""/g, '"'));
		if (match[3] === '') break;
		if (match[3] !== ',') records.push([]);
	}
	const [header, ...rows] = records;
	return rows.map((row) => Object.fromEntries(header.map((name, column) => [name, row[column] ?? ''])));
}

/** The rows of the example spreadsheet, `examples/data/urls.csv`. */
export function spreadsheetRows(): Array<{ url: string; owner: string }> {
	return readCsv(path.join(EXAMPLES_DIR, 'data', 'urls.csv')).map(({ url, owner }) => ({ url, owner }));
}

/**
 * The row the spreadsheet examples write back for a row's URL: its report's score, grade, failed high-importance
 * checks (by their titles) and link as the server holds them, or, for a row without a report, empty columns beside its `error`
 * (here empty too: its wording is the node's).
 */
export function resultsRow(server: PhpRankServer, url: string, report?: ReportState): Record<string, string> {
	if (!report) return { url, result: '', grade: '', failedHighChecks: '', reportUrl: '', error: '' };
	const failedHighChecks = failedCheckTitles(report.targetUrl, report.quality).high.join(', ');
	return { url, result: String(report.result), grade: resultBandOf(report.result), failedHighChecks, reportUrl: `${server.url}/reports/${report.id}`, error: '' };
}

/** Index of the input item an output item came from. */
export function sourceIndex(item: INodeExecutionData): number | undefined {
	const paired = Array.isArray(item.pairedItem) ? item.pairedItem[0] : item.pairedItem;
	return typeof paired === 'number' ? paired : paired?.item;
}

/**
 * The highest quality below the page's own (in steps of 0.01) at which the page newly fails a high-importance check:
 * the smallest change that does. Undefined when even that costs the page its grade.
 */
export function qualityLosingAHighCheckOnly(targetUrl: string, result: number): number | undefined {
	const failingNow = failedChecks(targetUrl).high;
	for (let hundredths = 99; hundredths >= 0; hundredths--) {
		const quality = hundredths / 100;
		if (failedChecks(targetUrl, quality).high.every((name) => failingNow.includes(name))) continue;
		// The grade is phpRank's band of the stored, rounded score.
		return resultBandOf(Math.round(scorePage(targetUrl, quality))) === resultBandOf(result) ? quality : undefined;
	}
	return undefined;
}

/**
 * A server for the re-analysis example: 20 sample reports, and pages changed since phpRank analyzed them,
 * so that re-analyzing them changes their score. Every third report not graded bad fails almost every
 * check from now on (its grade gets worse); one bad report's page passes them all; and of the others, the
 * first that can newly fails a high-importance check and keeps its grade. So both reasons for an alert
 * occur: a grade that got worse, and a high-importance check that newly fails.
 */
export function seedReportsWithChangedPages(server: PhpRankServer): void {
	server.reset();
	server.seedReports(20);
	const reports = server.reports();
	const worse = reports.filter((report) => report.result >= 49).filter((_, index) => index % 3 === 0);
	for (const report of worse) server.changePage(report.url, { quality: 0 });
	const better = reports.find((report) => report.result < 49);
	if (better) server.changePage(better.url, { quality: 1 });
	for (const report of reports) {
		if (worse.includes(report) || report === better) continue;
		const quality = qualityLosingAHighCheckOnly(report.targetUrl, report.result);
		if (quality === undefined) continue;
		server.changePage(report.url, { quality });
		break;
	}
}

/**
 * Two pages to change between two audits of a site, from its reports: its best page made worse (quality 0) and its
 * worst made better (the highest quality that does not gain it exactly what the other loses), so that each newly
 * fails or passes checks and the site's average score changes too, whatever the pages' URLs score.
 */
export function pagesToChange(reports: ReportState[]): Array<{ url: string; targetUrl: string; id: number; quality: number }> {
	const byScore = [...reports].sort((a, b) => a.result - b.result);
	const [better, worse] = [byScore[0], byScore.at(-1)!];
	const loss = worse.result - Math.round(scorePage(worse.targetUrl, 0));
	const gain = (quality: number) => Math.round(scorePage(better.targetUrl, quality)) - better.result;
	const quality = [1, 0.95, 0.9, 0.85, 0.8].find((candidate) => gain(candidate) > 0 && gain(candidate) !== loss);
	if (quality === undefined) throw new Error(`no quality makes ${better.targetUrl} better by other than ${loss} points`);
	return [
		{ url: worse.url, targetUrl: worse.targetUrl, id: worse.id, quality: 0 },
		{ url: better.url, targetUrl: better.targetUrl, id: better.id, quality },
	];
}

const IMPORTANCES = ['high', 'medium', 'low'] as const;

/** What a site audit did with a page's report: made it, analyzed it again, or found it fresh enough to keep. */
export type SiteAuditOutcome = 'created' | 'reanalyzed' | 'existing';

/**
 * What the audit did with `report`, told from the server's reports before the run: a report it did not hold was
 * created, one analyzed since was re-analyzed, one untouched was fresh. `before` must be the reports as the run found
 * them (after any ageing): generated_at counts whole seconds, so a report as it was at an earlier moment can have the
 * very generated_at its re-analysis within that second gives.
 */
export function siteAuditOutcome(before: ReportState[], report: ReportState): SiteAuditOutcome {
	const previous = before.find((candidate) => candidate.id === report.id);
	if (!previous) return 'created';
	return previous.generatedAt === report.generatedAt ? 'existing' : 'reanalyzed';
}

/**
 * The line of the site audit's summary on the site's average score: against the run before and the fourth run
 * before, their averages (`averageScore` of `phprank_audit_runs`) newest first.
 */
export function averageScoreTrend(average: number | null, previousAverages: Array<number | null>): string {
	if (average === null) return 'Average score: no page analyzed';
	const change = (then: number | null, when: string) => {
		if (then === null) return `no score ${when}`;
		const delta = Math.round((average - then) * 10) / 10;
		return `${delta > 0 ? '+' : delta < 0 ? '\u2212' : '\u00b1'}${Math.abs(delta).toFixed(1)} since ${when} (${then.toFixed(1)})`;
	};
	const [last, , , fourAgo] = previousAverages;
	const trend =
		previousAverages.length === 0
			? 'first run'
			: change(last, 'the last run') + (previousAverages.length > 3 ? `, ${change(fourAgo, 'four runs ago')}` : '; no run four runs ago yet');
	return `Average score ${average.toFixed(1)}: ${trend}`;
}

/** An item of Site > Audit, as the site audit examples read it: what the crawl found of a URL. */
export interface SiteAuditItem {
	url: string;
	outcome: string;
	reason?: string | null;
	status: number | null;
	depth: number | null;
	inlinks: number;
	linkedFrom: Array<{ url: string; text: string }>;
	orphan: boolean;
	indexability?: string;
	canonical?: string | null;
	title?: string | null;
	siteIssues?: Array<{ id: string; severity: string; urls: string[]; count: number }>;
}

/**
 * The site issues' titles the site audit examples carry (`const SITE_ISSUE_TITLES = { … }` in their Build summary),
 * by ID, in the order their summaries list them.
 */
export function siteIssueTitles(): Record<string, string> {
	return textsByIdIn('site-audit-offline.json', 'SITE_ISSUE_TITLES');
}

/** An example's Code node constant `const <name> = { id: 'text', … }` (textsByIdOf); it must have one. */
function textsByIdIn(file: string, name: string): Record<string, string> {
	const texts = textsByIdOf(JSON.parse(readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as WorkflowFixture, name);
	if (texts === undefined) throw new Error(`${file} carries no ${name}`);
	return texts;
}

/**
 * A workflow's Code node constant `const <name> = { id: 'text', … }` (an ID quoted or not), as its entries in their
 * order; undefined when no Code node has it.
 */
function textsByIdOf(workflow: { nodes: Array<{ parameters: unknown }> }, name: string): Record<string, string> | undefined {
	const start = `const ${name} = {`;
	const code = workflow.nodes.map((node) => String((node.parameters as { jsCode?: string }).jsCode ?? '')).find((text) => text.includes(start));
	const body = code?.slice(code.indexOf(start) + start.length).split('}')[0];
	return body === undefined ? undefined : Object.fromEntries([...body.matchAll(/'?([\w-]+)'?: '([^']*)'/g)].map(([, id, text]) => [id, text]));
}

/** How many URLs have each site issue, from each URL's issue IDs, by ID in alphabetical order: a run row's `siteIssues` (as JSON). */
export function siteIssueCounts(idsOfEachUrl: string[][]): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const ids of idsOfEachUrl) for (const id of ids) counts[id] = (counts[id] ?? 0) + 1;
	return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** One site issue as a summary or report lists it: `then` is its count in the run compared with (none: no counts then). */
interface SiteIssueShown {
	title: string;
	severity: string;
	count: number;
	urls: string[];
	then?: number;
}

/**
 * Site issues worded as the site audit's summary and the monthly report word them: the URLs with each issue by
 * severity, each issue with its first three URLs (the others counted) and how its count changed since `since`, and
 * the issues fixed since then (`fixed`, each with its count then; none when nothing was compared).
 */
function siteIssueLines(issues: SiteIssueShown[], fixed: Array<{ title: string; then: number }>, since: string): { totals: string; lines: string[] } {
	const total = (severity: string) => plural(issues.filter((issue) => issue.severity === severity).reduce((sum, issue) => sum + issue.count, 0), severity);
	const change = ({ count, then }: SiteIssueShown) =>
		then === undefined ? '' : then === 0 ? ' (new)' : count === then ? '' : ` (${count > then ? '+' : '\u2212'}${Math.abs(count - then)} since ${since})`;
	const lines = issues.map((issue) => {
		const shown = issue.urls.slice(0, 3);
		const more = issue.count > shown.length ? `, and ${issue.count - shown.length} more` : '';
		return `${issue.title} (${issue.severity}): ${plural(issue.count, 'URL')}${change(issue)}${shown.length ? `: ${shown.join(', ')}${more}` : ''}`;
	});
	if (fixed.length > 0) lines.push(`Fixed since ${since}: ${fixed.map((issue) => `${issue.title} (${plural(issue.then, 'URL')} then)`).join(', ')}`);
	return { totals: `${total('error')}, ${total('warning')}, ${total('notice')} (URLs with each issue)`, lines };
}

/**
 * The summary's site issues: the URLs with each issue by severity, each issue with its first three URLs, how its
 * count changed since `previous` (the run before's counts; none on a first run), and the issues that run had and
 * this one has not.
 */
function siteIssueSection(items: SiteAuditItem[], previous: Record<string, number> | undefined): string[] {
	const titles = siteIssueTitles();
	const found = new Map<string, { severity: string; urls: string[] }>();
	for (const item of items) {
		for (const issue of item.siteIssues ?? []) {
			const entry = found.get(issue.id) ?? { severity: issue.severity, urls: [] };
			entry.urls.push(item.url);
			found.set(issue.id, entry);
		}
	}
	const issues = Object.keys(titles)
		.filter((id) => found.has(id))
		.map((id) => ({ title: titles[id], ...found.get(id)!, count: found.get(id)!.urls.length, then: previous === undefined ? undefined : (previous[id] ?? 0) }));
	const fixed = previous === undefined ? [] : Object.keys(titles).filter((id) => (previous[id] ?? 0) > 0 && !found.has(id));
	const { totals, lines } = siteIssueLines(
		issues,
		fixed.map((id) => ({ title: titles[id], then: previous![id] })),
		'the last run',
	);
	return [`*Site issues*: ${totals}`, lines.length > 0 ? lines.map((line) => `• ${line}`).join('\n') : 'none'];
}

/**
 * The severities the monthly report carries for the site issues that are no warning (`const SITE_ISSUE_SEVERITIES =
 * { … }` in its Report per site), by ID.
 */
export function siteIssueSeverities(): Record<string, string> {
	return textsByIdIn('monthly-client-report.json', 'SITE_ISSUE_SEVERITIES');
}

/** A run row's site issue counts (`siteIssues`, JSON), none for a row written before runs kept them. */
function siteIssueCountsOfRow(run: HistoryRow | undefined): Record<string, number> | undefined {
	if (run === undefined || typeof run.siteIssues !== 'string' || run.siteIssues === '') return undefined;
	try {
		const counts: unknown = JSON.parse(run.siteIssues);
		return counts !== null && typeof counts === 'object' && !Array.isArray(counts) ? (counts as Record<string, number>) : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The monthly report's site issues of `run`, the month's last: its counts (its row's, else its page rows'), the URLs
 * of its page rows `pages` with each, severities as Site > Audit gives them, against the counts of `previous`, the
 * month before's last run, named `since`. Issues not titled by the site audit (a newer node's) come last, by ID.
 */
function monthlySiteIssueSection(run: HistoryRow, pages: HistoryRow[], previous: HistoryRow | undefined, since: string): string[] {
	const titles = siteIssueTitles();
	const urls = new Map<string, string[]>();
	for (const page of pages) for (const id of String(page.siteIssues ?? '').split(', ').filter(Boolean)) urls.set(id, [...(urls.get(id) ?? []), String(page.url)]);
	const counts = siteIssueCountsOfRow(run) ?? Object.fromEntries([...urls].map(([id, list]) => [id, list.length]));
	const then = siteIssueCountsOfRow(previous);
	const known = Object.keys(titles);
	const rank = (id: string) => (known.includes(id) ? known.indexOf(id) : known.length);
	const ordered = (ids: string[]) => [...ids].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
	const severities = siteIssueSeverities();
	const severityOf = (id: string): string => severities[id] ?? 'warning';
	const issues = ordered(Object.keys(counts).filter((id) => counts[id] > 0)).map((id) => ({
		title: titles[id] ?? id,
		severity: severityOf(id),
		count: counts[id],
		urls: urls.get(id) ?? [],
		then: then === undefined ? undefined : (then[id] ?? 0),
	}));
	const fixed = then === undefined ? [] : ordered(Object.keys(then).filter((id) => then[id] > 0 && !(counts[id] > 0))).map((id) => ({ title: titles[id] ?? id, then: then[id] }));
	const { totals, lines } = siteIssueLines(issues, fixed, since);
	return ['', `Site issues: ${totals}`, ...(lines.length ? lines.map((line) => `- ${line}`) : ['none'])];
}

const ANALYZED_OUTCOMES = ['created', 'existing', 'reanalyzed'];
const SHOWN = 5;
const LISTED = 10;

/** The site a URL belongs to, as phpRank names its project: the host without `www.`. */
export const siteOf = (url: string) => new URL(url).hostname.toLowerCase().replace(/^www\./, '');

const newestReport = (reports: ReportState[], url: string) =>
	reports.filter((report) => report.targetUrl === url).reduce<ReportState | undefined>((last, report) => (last && last.id > report.id ? last : report), undefined);

/**
 * What fixing each failing check on every page analyzed is worth: the average over the pages of the score each would
 * have with the check passed, less its score (phpRank's points of passed checks over all, `points` a check's worth by
 * importance), with the pages failing it. Most worth first, then most pages, importance, title.
 */
export function issuesByGain(reports: ReportState[], points: Readonly<Points> = DEFAULT_POINTS) {
	const issues = new Map<string, { title: string; importance: (typeof IMPORTANCES)[number]; pages: number; gain: number }>();
	for (const report of reports) {
		const results = describePage(report.targetUrl, report.quality);
		const passed = CHECK_NAMES.map((name) => results[name].passed);
		CHECK_NAMES.forEach((name, index) => {
			if (passed[index]) return;
			const fixed = passed.map((value, other) => value || other === index);
			const issue = issues.get(name) ?? { title: checkTitle(name), importance: results[name].importance as (typeof IMPORTANCES)[number], pages: 0, gain: 0 };
			issue.pages += 1;
			issue.gain += (scoreOf(fixed, points) - scoreOf(passed, points)) / reports.length;
			issues.set(name, issue);
		});
	}
	// Sums of unequal floats: equal gains compared as equal.
	const comparable = (gain: number) => Math.round(gain * 1e6);
	return [...issues.values()].sort(
		(a, b) => comparable(b.gain) - comparable(a.gain) || b.pages - a.pages || IMPORTANCES.indexOf(a.importance) - IMPORTANCES.indexOf(b.importance) || a.title.localeCompare(b.title),
	);
}

const plural = (count: number, word: string) => `${count} ${count === 1 ? word : `${word}s`}`;
const round1 = (value: number) => Math.round(value * 10) / 10;

/**
 * The lines the site audit's summary and the monthly report give the issues ranked by what fixing
 * them is worth: the five worth most (those tied with the fifth counted, the rest worth less counted), then every
 * check worth nothing, saying so.
 */
export function issueWorthLines(issues: Array<{ title: string; importance: string; pages: number; gain: number }>): string[] {
	const worth = issues.filter((issue) => round1(issue.gain) > 0);
	const nothing = issues.filter((issue) => round1(issue.gain) === 0);
	const tied = worth.slice(SHOWN).filter((issue) => round1(issue.gain) === round1(worth[SHOWN - 1].gain)).length;
	return [
		...worth.slice(0, SHOWN).map((issue) => `${issue.title} (${issue.importance}): +${issue.gain.toFixed(1)}, ${plural(issue.pages, 'page')}`),
		...(tied ? [`and ${tied} more at +${worth[SHOWN - 1].gain.toFixed(1)}`] : []),
		...(worth.length > SHOWN + tied ? [`and ${worth.length - SHOWN - tied} more worth less`] : []),
		...(nothing.length ? [`Worth no points, fixing them leaves the score as it is: ${nothing.map((issue) => `${issue.title} (${issue.importance}, ${plural(issue.pages, 'page')})`).join(', ')}`] : []),
	];
}

type HistoryRow = Record<string, unknown>;

/** The checks a row of `phprank_audit_pages` fails, with their importance. */
export const failingOfRow = (row: HistoryRow) =>
	IMPORTANCES.flatMap((importance) =>
		String(row[`failed${importance[0].toUpperCase()}${importance.slice(1)}`] ?? '')
			.split(', ')
			.filter(Boolean)
			.map((id) => ({ id, importance })),
	);

/**
 * What fixing each check failing on a run's pages (its rows of `phprank_audit_pages`) is worth: the average score
 * the pages analyzed would gain with it passed on each (phpRank's scoring by `points`), with the pages failing it,
 * titled by `titles`. Most worth first, then most pages, importance, title.
 */
export function issuesByGainOfRows(rows: HistoryRow[], titles: Record<string, string>, points: Readonly<Points> = DEFAULT_POINTS) {
	const analyzed = rows.filter((row) => typeof row.score === 'number');
	const issues = new Map<string, { id: string; title: string; importance: (typeof IMPORTANCES)[number]; pages: number; gain: number }>();
	for (const { id, importance } of analyzed.flatMap(failingOfRow)) {
		const issue = issues.get(id) ?? { id, title: titles[id] ?? id, importance, pages: 0, gain: 0 };
		issue.pages += 1;
		// The score of a page that passes only this check: what passing it adds to any page's score.
		issue.gain += scoreOf(CHECK_NAMES.map((name) => name === id), points) / analyzed.length;
		issues.set(id, issue);
	}
	const comparable = (gain: number) => Math.round(gain * 1e6);
	return [...issues.values()].sort(
		(a, b) => comparable(b.gain) - comparable(a.gain) || b.pages - a.pages || IMPORTANCES.indexOf(a.importance) - IMPORTANCES.indexOf(b.importance) || a.title.localeCompare(b.title),
	);
}

/** A run's broken links as its rows of `phprank_audit_pages` hold them, each with the pages linking to it. */
export function brokenLinksOfRows(rows: HistoryRow[]) {
	return rows
		.filter((row) => row.broken === true)
		.map((row) => ({
			url: String(row.url),
			status: row.status === null || row.status === undefined ? null : Number(row.status),
			inlinks: Number(row.inlinks ?? 0),
			linkedFrom: JSON.parse(String(row.linkedFrom ?? '[]')) as Array<{ url: string; text: string }>,
		}));
}

/** A broken link as the summary and the monthly report write it: the first five pages linking to it and their anchor texts. */
export const brokenLinkLine = (link: { url: string; status: number | null; inlinks: number; linkedFrom: Array<{ url: string; text: string }> }) =>
	`${link.url} (${link.status ?? 'no answer'}) linked from ${link.linkedFrom.slice(0, SHOWN).map((from) => `${from.url} "${from.text}"`).join(', ') || 'the sitemap only'}` +
	`${link.inlinks > SHOWN ? ` and ${link.inlinks - SHOWN} more pages` : ''}`;

/** The summary's history warning: n8n refused the run's write into its Data tables. */
export const HISTORY_NOT_SAVED =
	'*History not saved*\nn8n refused to write this run into its Data tables (what it had written of it is deleted again). It does so once all its Data tables together reach its size limit, N8N_DATA_TABLES_MAX_SIZE_BYTES (by default 50 MB on n8n 1.x, 200 MB on n8n 2.x): delete old runs with audit-history-pruning.json or raise the limit, and the next run is saved.';

/**
 * The message the site audit examples make of a run of Site > Audit (its items, one per URL found, in its order): the
 * pages analyzed as phpRank holds their reports after the run (`before`: its reports as the run found them, to tell
 * created, re-analyzed and fresh apart and the checks newly failing), the broken links with the pages and anchor texts
 * linking to them, orphans, the deepest pages, the issues by what fixing them is worth (`points`, phpRank's by
 * default), the worst pages, the trend against `previousAverages` (the site's earlier runs, newest first), and whether
 * the history was saved. Lists show five, or ten for broken links and orphans, with ties and the rest counted.
 */
export function siteAuditSummary(
	server: Pick<PhpRankServer, 'url' | 'reports'>,
	before: ReportState[],
	run: {
		items: SiteAuditItem[];
		previousAverages?: Array<number | null>;
		/** The run before's site issue counts (its row's `siteIssues`); none on a first run. */
		previousSiteIssues?: Record<string, number>;
		points?: Readonly<Points>;
		historyNotSaved?: boolean;
	},
): string {
	const { items } = run;
	const list = (lines: string[]) => (lines.length ? lines.join('\n') : 'none');
	const counted = (outcome: string) => items.filter((item) => item.outcome === outcome).length;
	const analyzed = items
		.filter((item) => ANALYZED_OUTCOMES.includes(item.outcome))
		.map((item) => {
			const report = newestReport(server.reports(), item.url);
			if (!report) throw new Error(`the server holds no report of ${item.url}`);
			return { ...item, report, outcome: siteAuditOutcome(before, report), grade: resultBandOf(report.result) };
		});
	const outcomes = (outcome: SiteAuditOutcome) => analyzed.filter((page) => page.outcome === outcome).length;
	const graded = (grade: string) => analyzed.filter((page) => page.grade === grade).length;
	const reportUrl = (report: ReportState) => `${server.url}/reports/${report.id}`;
	const broken = items.filter((item) => item.outcome === 'broken');
	const orphans = items.filter((item) => item.orphan);
	const failed = items.filter((item) => item.outcome === 'failed');
	const average = analyzed.length ? Math.round((analyzed.reduce((sum, page) => sum + page.report.result, 0) / analyzed.length) * 10) / 10 : null;
	const more = <T>(all: T[], shown: number, what: string) => (all.length > shown ? [`• and ${all.length - shown} more ${what}`] : []);

	const brokenLines = broken.slice(0, LISTED).map((item) => `• ${brokenLinkLine(item)}`);
	const deepFirst = analyzed.filter((page) => page.depth !== null).sort((a, b) => b.depth! - a.depth! || a.url.localeCompare(b.url));
	const tiedDeep = deepFirst.slice(SHOWN).filter((page) => page.depth === deepFirst[SHOWN - 1].depth).length;
	const worstFirst = [...analyzed].sort((a, b) => a.report.result - b.report.result || a.url.localeCompare(b.url));
	const tiedWorst = worstFirst.slice(SHOWN).filter((page) => page.report.result === worstFirst[SHOWN - 1].report.result).length;

	const issues = issuesByGain(
		analyzed.map((page) => page.report),
		run.points,
	);
	const issueLines = issueWorthLines(issues).map((line) => `• ${line}`);
	const newlyFailing = analyzed.flatMap(({ url, report, outcome }) => {
		if (outcome !== 'reanalyzed') return [];
		const previous = before.find((candidate) => candidate.id === report.id)!;
		const failedBefore = failedChecks(previous.targetUrl, previous.quality);
		const failedNow = failedChecks(report.targetUrl, report.quality);
		const parts = IMPORTANCES.map((importance) => [importance, failedNow[importance].filter((name) => !failedBefore[importance].includes(name))] as const)
			.filter(([, names]) => names.length)
			.map(([importance, names]) => `${names.map(checkTitle).join(', ')} (${importance})`);
		return parts.length ? [`• ${url}: ${parts.join('; ')} ${reportUrl(report)}`] : [];
	});
	const blocked = counted('blocked');
	const notAnalyzed = counted('notAnalyzed');
	return [
		`*SEO audit of ${siteOf(items[0].url)}*: ${plural(items.length, 'URL')} found, ${analyzed.length} analyzed: ${graded('good')} good, ${graded('decent')} decent, ${graded('bad')} bad; ` +
			`${plural(broken.length, 'broken link')}, ${plural(orphans.length, 'orphan page')}, ${plural(counted('redirected'), 'redirect')}` +
			`${blocked ? `, ${blocked} blocked by robots.txt` : ''}${notAnalyzed ? `, ${notAnalyzed} not analyzed` : ''}${failed.length ? `, ${failed.length} could not be audited` : ''}.`,
		averageScoreTrend(average, run.previousAverages ?? []),
		`Analyzed in this run: ${outcomes('created')} new, ${outcomes('reanalyzed')} re-analyzed; ${outcomes('existing')} fresh from earlier runs.`,
		...siteIssueSection(items, run.previousSiteIssues),
		'*Broken links*',
		list([...brokenLines, ...more(broken, LISTED, 'broken links')]),
		'*Orphan pages* (in a sitemap, linked from no page)',
		list([...orphans.slice(0, LISTED).map((item) => `• ${item.url}`), ...more(orphans, LISTED, 'orphan pages')]),
		'*Deepest pages* (clicks from the start page)',
		list([
			...deepFirst.slice(0, SHOWN).map((page) => `• ${plural(page.depth!, 'click')}: ${page.url}`),
			...(tiedDeep ? [`• and ${tiedDeep} more at ${plural(deepFirst[SHOWN - 1].depth!, 'click')}`] : []),
		]),
		'*Top issues by what fixing them is worth* (average score gained if fixed on every page)',
		list(issueLines),
		'*Worst pages*',
		list([
			...worstFirst.slice(0, SHOWN).map((page) => `• ${page.url}: ${page.report.result}/100 (${page.grade}) ${reportUrl(page.report)}`),
			...(tiedWorst ? [`• and ${tiedWorst} more at ${worstFirst[SHOWN - 1].report.result}/100`] : []),
		]),
		'*Checks newly failing on the re-analyzed pages*',
		list(newlyFailing),
		'*Could not be audited*',
		list(failed.map((item) => `• ${item.url}: ${String(item.reason).split('\n')[0].replace(/:$/, '')}`)),
		...(run.historyNotSaved ? [HISTORY_NOT_SAVED] : []),
	].join('\n');
}

/** Data tables as a user makes them in n8n: each one's name and its columns. */
type DataTableSchemas = Record<string, { name: string; columns: ReadonlyArray<{ name: string; type: DataTableColumnType }> }>;

/** Data tables in memory with `schemas` made, empty. */
function tablesMadeFrom(schemas: DataTableSchemas, maxSizeBytes?: number): InMemoryDataTables {
	const tables = new InMemoryDataTables(maxSizeBytes);
	for (const { name, columns } of Object.values(schemas)) tables.create(name, [...columns]);
	return tables;
}

/**
 * The Data tables the site audit examples write their history into, and the pruning example trims: one row per
 * page and run, and one per site and run (what a dashboard of runs reads without going through every page's row).
 * docs/audit-history.md describes them; a user makes them in n8n with these names and columns.
 */
export const AUDIT_HISTORY_TABLES = {
	pages: {
		name: 'phprank_audit_pages',
		columns: [
			{ name: 'runId', type: 'string' },
			{ name: 'runAt', type: 'date' },
			{ name: 'site', type: 'string' },
			{ name: 'url', type: 'string' },
			{ name: 'score', type: 'number' },
			{ name: 'grade', type: 'string' },
			{ name: 'failedHigh', type: 'string' },
			{ name: 'failedMedium', type: 'string' },
			{ name: 'failedLow', type: 'string' },
			{ name: 'reportId', type: 'number' },
			{ name: 'reportUrl', type: 'string' },
			{ name: 'error', type: 'string' },
			{ name: 'status', type: 'number' },
			{ name: 'depth', type: 'number' },
			{ name: 'inlinks', type: 'number' },
			{ name: 'broken', type: 'boolean' },
			{ name: 'orphan', type: 'boolean' },
			{ name: 'linkedFrom', type: 'string' },
			{ name: 'indexability', type: 'string' },
			{ name: 'canonical', type: 'string' },
			{ name: 'title', type: 'string' },
			{ name: 'siteIssues', type: 'string' },
		],
	},
	runs: {
		name: 'phprank_audit_runs',
		columns: [
			{ name: 'runId', type: 'string' },
			{ name: 'runAt', type: 'date' },
			{ name: 'site', type: 'string' },
			{ name: 'pages', type: 'number' },
			{ name: 'averageScore', type: 'number' },
			{ name: 'good', type: 'number' },
			{ name: 'decent', type: 'number' },
			{ name: 'bad', type: 'number' },
			{ name: 'notAnalyzed', type: 'number' },
			{ name: 'siteIssues', type: 'string' },
			{ name: 'firstPageRowId', type: 'number' },
			{ name: 'lastPageRowId', type: 'number' },
		],
	},
} as const satisfies DataTableSchemas;

/** Data tables in memory with the audit history's two tables made, empty, as a user makes them in n8n. */
export function auditHistoryTables(maxSizeBytes?: number): InMemoryDataTables {
	return tablesMadeFrom(AUDIT_HISTORY_TABLES, maxSizeBytes);
}

/**
 * The queue of the MCP site tools (examples/phprank-mcp-site-tools.json): one row per audit a model asked for, which
 * examples/site-audit-queue.json runs one at a time and marks done or failed. `id` (n8n's row ID) is the auditId the
 * tools answer with; `runId` is the run's ID in the audit history once it ran. docs/mcp-site-audits.md describes it.
 */
export const MCP_SITE_TOOLS_TABLES = {
	queue: {
		name: 'phprank_audit_queue',
		columns: [
			{ name: 'site', type: 'string' },
			{ name: 'siteUrl', type: 'string' },
			{ name: 'maxPages', type: 'number' },
			{ name: 'status', type: 'string' },
			{ name: 'requestedAt', type: 'string' },
			{ name: 'day', type: 'string' },
			{ name: 'startedAt', type: 'string' },
			{ name: 'finishedAt', type: 'string' },
			{ name: 'runId', type: 'string' },
			{ name: 'attempts', type: 'number' },
			{ name: 'reason', type: 'string' },
			{ name: 'summary', type: 'string' },
		],
	},
} as const satisfies DataTableSchemas;

/** Data tables in memory with the audit history's tables and the MCP site tools' queue made, empty. */
export function siteToolsTables(): InMemoryDataTables {
	return tablesMadeFrom({ ...AUDIT_HISTORY_TABLES, ...MCP_SITE_TOOLS_TABLES });
}

/** A row of `phprank_audit_pages` without its run's time: what the site audit writes for a URL. */
export type PageHistoryRow = Record<(typeof AUDIT_HISTORY_TABLES.pages.columns)[number]['name'], string | number | boolean | null>;

/**
 * The rows a site audit writes into `phprank_audit_pages` for one run, one per item of Site > Audit (in its order):
 * what the crawl found (status, depth, inlinks, broken, orphan, and for a broken link the first 10 pages linking to it), and for a page analyzed its score, grade, failed
 * checks and link as phpRank holds its newest report (`server.reports()`, as the run left them); for a URL that could
 * not be audited, the first line of why.
 */
export function pageHistoryRows(server: Pick<PhpRankServer, 'url' | 'reports'>, items: SiteAuditItem[]): Array<Omit<PageHistoryRow, 'runId' | 'runAt'>> {
	return items.map((item) => {
		const report = ANALYZED_OUTCOMES.includes(item.outcome) ? newestReport(server.reports(), item.url) : undefined;
		const failed = report ? failedChecks(report.targetUrl, report.quality) : undefined;
		return {
			site: siteOf(item.url),
			url: item.url,
			score: report?.result ?? null,
			grade: report ? resultBandOf(report.result) : null,
			failedHigh: failed?.high.join(', ') ?? null,
			failedMedium: failed?.medium.join(', ') ?? null,
			failedLow: failed?.low.join(', ') ?? null,
			reportId: report?.id ?? null,
			reportUrl: report ? `${server.url}/reports/${report.id}` : null,
			error: item.outcome === 'failed' ? String(item.reason).split('\n')[0].replace(/:$/, '') : null,
			status: item.status,
			depth: item.depth,
			inlinks: item.inlinks,
			broken: item.outcome === 'broken',
			orphan: item.orphan,
			linkedFrom: item.outcome === 'broken' ? JSON.stringify(item.linkedFrom.slice(0, 10)) : null,
			indexability: item.indexability ?? null,
			canonical: item.canonical && item.canonical !== item.url ? item.canonical : null,
			title: item.title ?? null,
			siteIssues: (item.siteIssues ?? []).map((issue) => issue.id).join(', ') || null,
		};
	});
}

/** The row of `phprank_audit_runs` a run writes for the site, from its rows in `phprank_audit_pages`. */
/**
 * The row of `phprank_audit_runs` a site audit writes for a site's page rows; `pageRowIds`, the IDs n8n gave those rows,
 * make its range (what the dashboard reads), null without them.
 */
export function runHistoryRow(pages: Array<Pick<PageHistoryRow, 'site' | 'score' | 'grade' | 'error' | 'siteIssues'>>, pageRowIds: number[] = []) {
	const scored = pages.filter((page) => page.score !== null);
	const grades = (grade: string) => scored.filter((page) => page.grade === grade).length;
	const average = scored.reduce((sum, page) => sum + Number(page.score), 0) / scored.length;
	return {
		site: pages[0].site,
		pages: scored.length,
		averageScore: scored.length ? Math.round(average * 10) / 10 : null,
		good: grades('good'),
		decent: grades('decent'),
		bad: grades('bad'),
		notAnalyzed: pages.filter((page) => page.error !== null).length,
		siteIssues: JSON.stringify(siteIssueCounts(pages.map((page) => (page.siteIssues ? String(page.siteIssues).split(', ') : [])))),
		firstPageRowId: pageRowIds.length ? Math.min(...pageRowIds) : null,
		lastPageRowId: pageRowIds.length ? Math.max(...pageRowIds) : null,
	};
}

const EMAIL_SEND = 'n8n-nodes-base.emailSend';

/**
 * The workflow with each Send Email node made a Set node that outputs what it would send (`from`, `to`, `subject`,
 * `text`, `html`) and the mail server's answer (`smtp`: 250), its parameters' expressions as they are: the messages
 * an example writes, read in n8n's engine without a mail server. The end-to-end suite sends them through a real SMTP
 * server. An item fails as it does in Send Email, on its own, the node's On Error setting deciding what follows:
 * without a recipient ("No recipients defined", nodemailer's words), or to an address in `refused` (the server's
 * 550). n8n's expressions swallow what they throw, so the failure is a value `smtp` cannot take: the Set node's error
 * names the answer.
 */
export function emailsAsItems(workflow: WorkflowFixture, { refused = [] }: { refused?: string[] | Record<string, string> } = {}): WorkflowFixture {
	// The mail server's reply to each refused recipient: 550 unless given (451 a temporary refusal, 501 a malformed address).
	const replies: Record<string, string> = Array.isArray(refused) ? Object.fromEntries(refused.map((to) => [to, '550 5.1.1'])) : refused;
	const nodes = workflow.nodes.map((node) => {
		if (node.type !== EMAIL_SEND) return node;
		const { fromEmail, toEmail, subject, text, html } = node.parameters as Record<string, string>;
		const recipient = /^=\{\{([\s\S]*)\}\}$/.exec(toEmail.trim());
		if (!recipient) throw new Error(`${node.name}: To Email is not one expression, so emailsAsItems cannot answer for it`);
		// nodemailer's message for a refused recipient, as n8n's Send Email node passes it on.
		const smtp =
			`={{ ((to, replies) => !String(to ?? '').trim() ? 'No recipients defined' : replies[to] ` +
			`? "Can't send mail - all recipients were rejected: " + replies[to] + " <" + to + ">: Recipient address rejected" : 250)(${recipient[1]}, ${JSON.stringify(replies)}) }}`;
		const fields = { from: fromEmail, to: toEmail, subject, text, html };
		const assignments = [
			...Object.entries(fields).map(([name, value]) => ({ id: name, name, value, type: 'string' })),
			{ id: 'smtp', name: 'smtp', value: smtp, type: 'number' },
		];
		return { ...node, type: 'n8n-nodes-base.set', typeVersion: 3.4, parameters: { mode: 'manual', assignments: { assignments }, options: {} }, credentials: undefined };
	});
	return { ...workflow, nodes };
}

const SLACK = 'n8n-nodes-base.slack';

/**
 * The workflow with each Slack node made a Set node that outputs the channel and the message text it would post,
 * its Text expression as it is: what an example says in Slack, read in n8n's engine without Slack.
 */
export function slackMessagesAsItems(workflow: WorkflowFixture): WorkflowFixture {
	const nodes = workflow.nodes.map((node) => {
		if (node.type !== SLACK) return node;
		const { channelId, text } = node.parameters as { channelId: { value: string }; text: string };
		const assignments = [
			{ id: 'channel', name: 'channel', value: channelId.value, type: 'string' },
			{ id: 'text', name: 'text', value: text, type: 'string' },
		];
		return { ...node, type: 'n8n-nodes-base.set', typeVersion: 3.4, parameters: { mode: 'manual', assignments: { assignments }, options: {} }, credentials: undefined };
	});
	return { ...workflow, nodes };
}

/**
 * The check titles an example carries, by check ID: a Code node's `const CHECK_TITLES = { title: 'Title', … }`, or an
 * expression's object literal that starts with `{ "title": "Title"`.
 */
export function checkTitlesOf(workflow: { nodes: Array<{ parameters: unknown }> }): Record<string, string> {
	const inCode = textsByIdOf(workflow, 'CHECK_TITLES');
	if (inCode) return inCode;
	const parameters = JSON.stringify(workflow.nodes.map((node) => node.parameters)).replace(/\\"/g, '"').replace(/\\n/g, '\n');
	const found = /\{ "title": "Title"[^}]*\}/.exec(parameters);
	if (!found) throw new Error('the workflow carries no check titles');
	return JSON.parse(found[0]) as Record<string, string>;
}

/**
 * The plain-text part of the monthly client report (examples/monthly-client-report.json) for `site`, from the Data
 * tables' rows: the site's last run in the month starting at `monthStart` (UTC) against its last run of the month
 * before, their pages' failed checks by `titles` (the example's own, see checkTitlesOf), the issues ranked by what
 * fixing them is worth by `points` (phpRank's by default), the site issues of the run (counts of its row against
 * the month before's, URLs of its pages), the broken links with the pages linking to them.
 */
export function monthlyReportText(
	tables: { runs: HistoryRow[]; pages: HistoryRow[] },
	{ site, monthStart, dashboardUrl, titles, points }: { site: string; monthStart: string; dashboardUrl: string; titles: Record<string, string>; points?: Readonly<Points> },
): string {
	const start = new Date(monthStart);
	const before = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() - 1, 1)).toISOString();
	const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1)).toISOString();
	const monthName = (date: Date, withYear: boolean) => date.toLocaleString('en', { month: 'long', timeZone: 'UTC', ...(withYear ? { year: 'numeric' } : {}) });
	const previousMonth = monthName(new Date(before), false);
	const runs = tables.runs.filter((run) => run.site === site).sort((a, b) => String(a.runId).localeCompare(String(b.runId)));
	const current = runs.filter((run) => String(run.runId) >= start.toISOString() && String(run.runId) < end).at(-1)!;
	const previous = runs.filter((run) => String(run.runId) >= before && String(run.runId) < start.toISOString()).at(-1);
	const pagesOf = (run?: HistoryRow) => (run ? tables.pages.filter((page) => page.site === site && page.runId === run.runId) : []);
	const failing = failingOfRow;
	const byPages = (issues: Array<{ id: string; importance: (typeof IMPORTANCES)[number] }>) =>
		[...new Set(issues.map((issue) => issue.id))]
			.map((id) => ({ title: titles[id] ?? id, importance: issues.find((issue) => issue.id === id)!.importance, pages: issues.filter((issue) => issue.id === id).length }))
			.sort((a, b) => b.pages - a.pages || IMPORTANCES.indexOf(a.importance) - IMPORTANCES.indexOf(b.importance) || a.title.localeCompare(b.title))
			.map((issue) => `- ${issue.title} (${issue.importance}): ${issue.pages} ${issue.pages === 1 ? 'page' : 'pages'}`);
	const now = pagesOf(current);
	const earlier = pagesOf(previous);
	const both = now.filter((page) => page.score !== null && earlier.some((old) => old.url === page.url && old.score !== null));
	const failedIds = (pages: HistoryRow[], url: unknown) => pages.filter((page) => page.url === url).flatMap(failing).map((issue) => issue.id);
	const section = (heading: string, lines: string[] | null) => ['', heading, ...(lines === null ? [`no run in ${previousMonth} to compare with`] : lines.length ? lines : ['none'])];
	const average = Number(current.averageScore);
	const change = previous ? Math.round((average - Number(previous.averageScore)) * 10) / 10 : null;
	const signed = (delta: number) => `${delta > 0 ? '+' : delta < 0 ? '\u2212' : '\u00b1'}${Math.abs(delta).toFixed(1)}`;
	const worstFirst = now.filter((page) => page.score !== null).sort((a, b) => Number(a.score) - Number(b.score) || String(a.url).localeCompare(String(b.url)));
	const tied = worstFirst.slice(5).filter((page) => page.score === worstFirst[4].score).length;
	return [
		`SEO report for ${site}, ${monthName(start, true)}`,
		'',
		`Average score ${average.toFixed(1)}: ${change === null ? `no run in ${previousMonth} to compare with` : `${signed(change)} since ${previousMonth} (${Number(previous!.averageScore).toFixed(1)})`}`,
		`${String(current.pages)} pages: ${String(current.good)} good, ${String(current.decent)} decent, ${String(current.bad)} bad` +
			`${current.notAnalyzed ? `; ${String(current.notAnalyzed)} could not be analyzed` : ''} (audit of ${String(current.runId).slice(0, 10)})`,
		...section('Top issues by what fixing them is worth (average score gained if fixed on every page)', issueWorthLines(issuesByGainOfRows(now, titles, points)).map((line) => `- ${line}`)),
		...monthlySiteIssueSection(current, now, previous, previousMonth),
		...section('Broken links', [
			...brokenLinksOfRows(now)
				.slice(0, LISTED)
				.map((link) => `- ${brokenLinkLine(link)}`),
			...(brokenLinksOfRows(now).length > LISTED ? [`- and ${brokenLinksOfRows(now).length - LISTED} more broken links`] : []),
		]),
		...section(`New since ${previousMonth}`, previous ? byPages(both.flatMap((page) => failing(page).filter((issue) => !failedIds(earlier, page.url).includes(issue.id)))) : null),
		...section(
			`Fixed since ${previousMonth}`,
			previous ? byPages(both.flatMap((page) => earlier.filter((old) => old.url === page.url).flatMap(failing).filter((issue) => !failedIds([page], page.url).includes(issue.id)))) : null,
		),
		'',
		'Worst pages',
		...(worstFirst.length ? worstFirst.slice(0, 5).map((page) => `- ${String(page.url)}: ${String(page.score)}/100 (${String(page.grade)}) ${String(page.reportUrl)}`) : ['none']),
		...(tied ? [`- and ${tied} more at ${String(worstFirst[4].score)}/100`] : []),
		'',
		`Your dashboard: ${dashboardUrl}?site=${encodeURIComponent(site)}`,
	].join('\n');
}

/**
 * The Data tables of the free SEO audit form (examples/free-seo-audit-form.json): one row per audit asked for, which
 * counts the audits a day per e-mail address and per host and is the queue the schedule drains, and the leads. Its
 * note names them and their columns; a user makes them in n8n so.
 */
export const AUDIT_FORM_TABLES = {
	requests: {
		name: 'phprank_audit_requests',
		columns: [
			{ name: 'email', type: 'string' },
			{ name: 'url', type: 'string' },
			{ name: 'host', type: 'string' },
			{ name: 'day', type: 'string' },
			{ name: 'status', type: 'string' },
			{ name: 'attempts', type: 'number' },
			{ name: 'retryAt', type: 'number' },
			{ name: 'score', type: 'number' },
			{ name: 'grade', type: 'string' },
			{ name: 'issues', type: 'string' },
			{ name: 'reportUrl', type: 'string' },
			{ name: 'reason', type: 'string' },
		],
	},
	leads: {
		name: 'phprank_audit_leads',
		columns: [
			{ name: 'requestId', type: 'number' },
			{ name: 'email', type: 'string' },
			{ name: 'url', type: 'string' },
			{ name: 'status', type: 'string' },
			{ name: 'score', type: 'number' },
			{ name: 'grade', type: 'string' },
			{ name: 'reportUrl', type: 'string' },
			{ name: 'submittedAt', type: 'string' },
		],
	},
} as const satisfies DataTableSchemas;

/** Data tables in memory with the audit form's two tables made, empty, as a user makes them in n8n. */
export function auditFormTables(): InMemoryDataTables {
	return tablesMadeFrom(AUDIT_FORM_TABLES);
}

/**
 * The three issues of a page's report worth most to fix, as the free SEO audit form shows them: its failed checks by
 * phpRank's points (high-importance ones 10, medium 5, low none), in the order phpRank checks them, by their titles.
 */
export function topIssues(report: Pick<ReportState, 'targetUrl' | 'quality'>): string[] {
	const failed = failedCheckTitles(report.targetUrl, report.quality);
	return [...failed.high, ...failed.medium].slice(0, 3);
}

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { AUDIT_SITE_ANALYZED_PATHS, startAuditSite, startPhpRankServer } from '../../dev/server';
import type { AuditSite, PhpRankServer, ReportState } from '../../dev/server';
import {
	AUDIT_HISTORY_TABLES,
	auditHistoryTables,
	EXAMPLES_DIR,
	HISTORY_NOT_SAVED,
	loadExampleWorkflow,
	pageHistoryRows,
	runHistoryRow,
	siteAuditSummary,
	siteIssueTitles,
} from '../../dev/examples';
import type { SiteAuditItem } from '../../dev/examples';
import { SITE_ISSUE_IDS } from '../../nodes/PhpRank/resources/site/siteIssues';
import { DEFAULT_DATA_TABLES_MAX_SIZE_BYTES, runWorkflow } from '../../dev/engine';
import type { InMemoryDataTables, RunResult, WorkflowFixture } from '../../dev/engine';
import { EXAMPLE_SITE_ORIGIN, loadExamples } from '../../dev/n8n/examples';
import { apiRequests } from '../support/phpRank';

const WORKFLOW_FILE = 'site-audit-offline.json';
const SETTINGS = 'Audit settings';
const WEEK_SECONDS = 7 * 86_400;
/** What phpRank analyzes of the audit site. */
const ANALYZED_PATHS = AUDIT_SITE_ANALYZED_PATHS;

let server: PhpRankServer;
let site: AuditSite;

beforeAll(async () => {
	[server, site] = await Promise.all([startPhpRankServer(), startAuditSite()]);
});
afterAll(async () => await Promise.all([server.close(), site.close()]));

/** The example as a user runs it on the bundled server and its site; `points` replaces the settings' points. */
async function run({ dataTables = auditHistoryTables(), points }: { dataTables?: InMemoryDataTables; points?: Record<string, number> } = {}) {
	const workflow = loadExampleWorkflow(WORKFLOW_FILE, { server, site });
	if (points) {
		const { assignments } = workflow.nodes.find((node) => node.name === SETTINGS)!.parameters.assignments as { assignments: Array<{ name: string; value: string }> };
		assignments.find((assignment) => assignment.name === 'points')!.value = `={{ ${JSON.stringify(points)} }}`;
	}
	return await runWorkflow(workflow, { credentials: { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } }, dataTables });
}
const itemsOf = (result: RunResult) => result.output('Audit site').map((item) => item.json as unknown as SiteAuditItem);
const textOf = (result: RunResult) => {
	expect(result.error).toBeUndefined();
	const summaries = result.output('Build summary');
	expect(summaries.map((item) => item.json.site)).toEqual(['127.0.0.1']);
	return String(summaries[0].json.text);
};
const runIdOf = (result: RunResult) => String(result.output(SETTINGS)[0].json.runAt);
const creates = () => apiRequests(server).filter((request) => request.method === 'POST');
const writes = () => apiRequests(server).filter((request) => request.method !== 'GET');
const withoutIds = ({ id: _id, createdAt: _createdAt, updatedAt: _updatedAt, runId: _runId, runAt: _runAt, ...row }: Record<string, unknown>) => row;

describe('examples/site-audit-offline.json', () => {
	it('is the offline variant of the Slack example: the same nodes from the settings to the summary, in under 15 nodes, its logic in Code nodes', () => {
		const read = (file: string) => JSON.parse(readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as WorkflowFixture;
		const offline = read(WORKFLOW_FILE);
		const slack = read('site-audit-slack.json');
		const steps = (workflow: WorkflowFixture) => workflow.nodes.filter((node) => node.type !== 'n8n-nodes-base.stickyNote');
		const shared = (workflow: WorkflowFixture) =>
			steps(workflow)
				.filter((node) => !/scheduleTrigger|manualTrigger|slack/.test(node.type) && node.name !== SETTINGS)
				.map(({ name, type, typeVersion, parameters, onError }) => ({ name, type, typeVersion, parameters, onError }));

		expect(shared(offline)).toEqual(shared(slack));
		expect(offline.connections).toEqual(expect.objectContaining(Object.fromEntries(Object.entries(slack.connections).filter(([from]) => from !== 'Every Monday at 06:00' && from !== 'Build summary'))));
		expect(steps(slack).length).toBeLessThan(15);
		expect(steps(offline).length).toBeLessThan(15);
		expect(['Page history rows', 'Run history row', 'Build summary'].map((name) => slack.nodes.find((node) => node.name === name)?.type)).toEqual(Array(3).fill('n8n-nodes-base.code'));
		expect(slack.nodes.find((node) => node.type === 'n8n-nodes-base.scheduleTrigger')?.parameters).toEqual({ rule: { interval: [{ field: 'weeks', triggerAtDay: [1], triggerAtHour: 6 }] } });
		// Slack's message formatting: &, < and > escaped, so that a URL with `&` or an anchor text with `<>` shows as written.
		expect(slack.nodes.find((node) => node.type === 'n8n-nodes-base.slack')?.parameters.text).toBe("={{ $json.text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;') }}");
		// The end-to-end suite runs it against the bundled server and its audit site alone.
		expect(JSON.stringify(offline.nodes.find((node) => node.name === SETTINGS))).toContain(`"value":"${EXAMPLE_SITE_ORIGIN}/"`);
		expect(loadExamples().find((example) => example.file === WORKFLOW_FILE)?.offline).toBe(true);
		// A weekly audit: a page analyzed within 6 days is not analyzed again.
		expect(offline.nodes.find((node) => node.name === 'Audit site')?.parameters).toMatchObject({
			resource: 'site',
			operation: 'audit',
			ifReportExists: 'reanalyzeIfOlder',
			olderThan: 6,
			olderThanUnit: 'days',
		});
	});

	describe('the first audit, again right away, and a week later with a page changed', () => {
		let history: InMemoryDataTables;
		let first: RunResult;
		let again: RunResult;
		let weekly: RunResult;
		let afterFirst: ReportState[];
		/** Each run's summary as the server's reports right after it make it. */
		const expected: Record<'first' | 'again' | 'weekly', string> = { first: '', again: '', weekly: '' };
		let createsFirst: number;
		let writesAgain: number;
		const changed = () => `${site.url}/about.html`;
		beforeAll(async () => {
			server.reset();
			history = auditHistoryTables();
			first = await run({ dataTables: history });
			createsFirst = creates().length;
			afterFirst = server.reports();
			expected.first = siteAuditSummary(server, [], { items: itemsOf(first) });
			const writesBefore = writes().length;
			again = await run({ dataTables: history });
			writesAgain = writes().length - writesBefore;
			const firstRun = history.rows(AUDIT_HISTORY_TABLES.runs.name)[0];
			expected.again = siteAuditSummary(server, afterFirst, {
				items: itemsOf(again),
				previousAverages: [Number(firstRun.averageScore)],
				previousSiteIssues: JSON.parse(String(firstRun.siteIssues)) as Record<string, number>,
			});
			server.ageReports(
				server.reports().filter((report) => report.targetUrl === changed()).map((report) => report.id),
				WEEK_SECONDS,
			);
			server.changePage(changed(), { quality: 0 });
			// What the weekly run finds: the changed page's report a week old. Not the reports after the first run, whose
			// generated_at (whole seconds) a re-analysis in that same second would give again.
			const beforeWeekly = server.reports();
			weekly = await run({ dataTables: history });
			const averages = history
				.rows(AUDIT_HISTORY_TABLES.runs.name)
				.filter((row) => row.runId !== runIdOf(weekly))
				.map((row) => Number(row.averageScore))
				.reverse();
			const lastRun = history.rows(AUDIT_HISTORY_TABLES.runs.name).filter((row) => row.runId !== runIdOf(weekly)).at(-1)!;
			expected.weekly = siteAuditSummary(server, beforeWeekly, {
				items: itemsOf(weekly),
				previousAverages: averages,
				previousSiteIssues: JSON.parse(String(lastRun.siteIssues)) as Record<string, number>,
			});
		});

		it("the summary: the site's pages by grade, its broken links with the pages and anchor texts linking to them, the orphan, the deepest pages, issues by what fixing them is worth, as the server's reports have them", () => {
			const text = textOf(first);
			const at = (pathname: string) => `${site.url}${pathname}`;

			expect(text).toBe(expected.first);
			expect(text.split('\n')[0]).toMatch(
				/^\*SEO audit of 127\.0\.0\.1\*: 31 URLs found, 12 analyzed: \d+ good, \d+ decent, \d+ bad; 2 broken links, 1 orphan page, 4 redirects, 1 blocked by robots\.txt, 10 not analyzed, 2 could not be audited\.$/,
			);
			expect(text).toContain(
				`*Broken links*\n• ${at('/gone.html')} (410) linked from ${at('/about.html')} "Gone", ${at('/docs/next.html')} "Old offer", ${at('/docs/deep/three.html')} "Archive"\n` +
					`• ${at('/docs/missing.html')} (404) linked from ${at('/docs/intro.html')} "Missing chapter", ${at('/docs/next.html')} "Read on", ${at('/indexing/nofollow.html')} "Old chapter"\n`,
			);
			expect(text).toContain(`*Orphan pages* (in a sitemap, linked from no page)\n• ${at('/orphan.html')}\n`);
			expect(text).toContain(`*Deepest pages* (clicks from the start page)\n• 4 clicks: ${at('/docs/deep/four.html')}\n• 3 clicks: ${at('/docs/deep/three.html')}\n`);
			expect(text).toContain('\nAverage score ');
			expect(text.split('\n')[1]).toMatch(/: first run$/);
			expect(text).not.toContain('History not saved');
		});

		it('ranks the issues by the average score gained if each were fixed on every page, the checks worth no points last and saying so', () => {
			const issues = textOf(first).split('average score gained if fixed on every page)\n')[1].split('\n*')[0].split('\n');
			const gains = issues.flatMap((line) => (/^• [^(]+ \((high|medium)\): \+(\d+\.\d), \d+ pages?$/.exec(line) ? [Number(/\+(\d+\.\d)/.exec(line)![1])] : []));

			expect(gains.length).toBe(5);
			expect(gains).toEqual([...gains].sort((a, b) => b - a));
			expect(issues.at(-1)).toMatch(/^• Worth no points, fixing them leaves the score as it is: .*\(low, \d+ pages?\)$/);
			expect(issues.at(-1)).not.toMatch(/\((high|medium),/);
		});

		it("writes a row per URL found into phprank_audit_pages (status, depth, inlinks, broken, orphan, a broken link's linking pages beside the report's figures) and a row for the site into phprank_audit_runs", () => {
			const pages = history.rows(AUDIT_HISTORY_TABLES.pages.name).filter((row) => row.runId === runIdOf(first));
			const expected = pageHistoryRows({ url: server.url, reports: () => afterFirst }, itemsOf(first));

			expect(pages.map(withoutIds)).toEqual(expected);
			expect(pages.filter((row) => row.broken).map((row) => [row.url, row.status, row.inlinks])).toEqual([
				[`${site.url}/gone.html`, 410, 3],
				[`${site.url}/docs/missing.html`, 404, 3],
			]);
			expect(pages.filter((row) => row.orphan).map((row) => [row.url, row.depth, row.inlinks])).toEqual([[`${site.url}/orphan.html`, null, 0]]);
			// Where each broken link is to be fixed; other rows keep no links.
			expect(pages.filter((row) => row.linkedFrom !== null).map((row) => [row.url, JSON.parse(String(row.linkedFrom))])).toEqual([
				[`${site.url}/gone.html`, [{ url: `${site.url}/about.html`, text: 'Gone' }, { url: `${site.url}/docs/next.html`, text: 'Old offer' }, { url: `${site.url}/docs/deep/three.html`, text: 'Archive' }]],
				[
					`${site.url}/docs/missing.html`,
					[
						{ url: `${site.url}/docs/intro.html`, text: 'Missing chapter' },
						{ url: `${site.url}/docs/next.html`, text: 'Read on' },
						{ url: `${site.url}/indexing/nofollow.html`, text: 'Old chapter' },
					],
				],
			]);
			expect(pages.filter((row) => row.score !== null).map((row) => new URL(String(row.url)).pathname).sort()).toEqual([...ANALYZED_PATHS].sort());
			const runs = history.rows(AUDIT_HISTORY_TABLES.runs.name).filter((row) => row.runId === runIdOf(first));
			expect(runs.map(withoutIds)).toEqual([runHistoryRow(expected, pages.map((row) => Number(row.id)))]);
			expect(runs[0].runAt).toEqual(new Date(runIdOf(first)));
		});

		it('sends phpRank a create per page that answered with HTML, none for broken targets, redirects, what robots.txt disallows or what search engines may not index', () => {
			expect(createsFirst).toBe(ANALYZED_PATHS.length);
			expect(afterFirst.map((report) => new URL(report.targetUrl).pathname).sort()).toEqual([...ANALYZED_PATHS].sort());
		});

		it('run again right away: every report is fresh, nothing is sent to phpRank but reads, the trend against the first run', () => {
			const text = textOf(again);

			expect(writesAgain).toBe(0);
			expect(text).toBe(expected.again);
			expect(text).toContain(`\nAnalyzed in this run: 0 new, 0 re-analyzed; ${ANALYZED_PATHS.length} fresh from earlier runs.\n`);
			expect(text.split('\n')[1]).toMatch(/: ±0\.0 since the last run \(\d+\.\d\); no run four runs ago yet$/);
		});

		it('a week later: the stale report of the changed page is analyzed again, and the checks it newly fails are listed', () => {
			const text = textOf(weekly);

			expect(text).toBe(expected.weekly);
			expect(text).toContain(`\nAnalyzed in this run: 0 new, 1 re-analyzed; ${ANALYZED_PATHS.length - 1} fresh from earlier runs.\n`);
			expect(text).toContain(`*Checks newly failing on the re-analyzed pages*\n• ${changed()}: `);
		});
	});

	it("ranks the issues by the example's own points: a check worth 0 moves to the end", async () => {
		server.reset();
		const points = { high: 10, medium: 0, low: 0 };
		const result = await run({ points });
		const text = textOf(result);

		expect(text).toBe(siteAuditSummary(server, [], { items: itemsOf(result), points }));
		expect(text.split('\n').find((line) => line.startsWith('• Worth no points'))).toMatch(/\(medium, \d+ pages?\)/);
	});

	it("compares the site's average with the last run and the run four runs before, from the runs table, whatever other sites it holds and in whatever order n8n answers the rows", async () => {
		server.reset();
		const history = auditHistoryTables();
		const earlier = [72.5, 70, 65.3, 68.2].map((averageScore, week) => ({ runId: `2026-10-0${week + 1}T06:00:00.000Z`, site: '127.0.0.1', averageScore }));
		// n8n 1.x's Get ignores a sort and answers in row ID order: rows written out of time order, the workflow orders them.
		history.insert(AUDIT_HISTORY_TABLES.runs.name, [
			...[earlier[3], earlier[0], earlier[2], earlier[1]].map((row) => ({ ...row, runAt: new Date(row.runId), pages: 8, good: 2, decent: 3, bad: 3, notAnalyzed: 2 })),
			// Another site's later run: not this site's last.
			{ runId: '2026-10-05T06:00:00.000Z', runAt: new Date('2026-10-05T06:00:00.000Z'), site: 'other.example', pages: 1, averageScore: 99, good: 1, decent: 0, bad: 0, notAnalyzed: 0 },
		]);
		const result = await run({ dataTables: history });
		const text = textOf(result);

		expect(text).toBe(siteAuditSummary(server, [], { items: itemsOf(result), previousAverages: earlier.map((row) => row.averageScore).reverse() }));
		expect(text.split('\n')[1]).toMatch(/^Average score \d+\.\d: [+\u2212\u00b1]\d+\.\d since the last run \(68\.2\), [+\u2212\u00b1]\d+\.\d since four runs ago \(72\.5\)$/);
	});

	it("site issues by severity, each with its first URLs, against the site's last run: new, more or fewer, fixed", async () => {
		server.reset();
		const history = auditHistoryTables();
		const lastWeek = '2026-11-23T06:00:00.000Z';
		const before = { broken_link: 1, duplicate_title: 2, large_page: 3, orphan_page: 1 };
		history.insert(AUDIT_HISTORY_TABLES.runs.name, [
			{ runId: lastWeek, runAt: new Date(lastWeek), site: '127.0.0.1', pages: 12, averageScore: 50, good: 0, decent: 6, bad: 6, notAnalyzed: 2, siteIssues: JSON.stringify(before) },
		]);
		const result = await run({ dataTables: history });
		const text = textOf(result);

		expect(text).toBe(siteAuditSummary(server, [], { items: itemsOf(result), previousAverages: [50], previousSiteIssues: before }));
		const section = text.slice(text.indexOf('*Site issues*'), text.indexOf('*Broken links*')).split('\n');
		const at = (pathname: string) => `${site.url}${pathname}`;
		const counted = (severity: string) => itemsOf(result).reduce((sum, item) => sum + (item.siteIssues ?? []).filter((issue) => issue.severity === severity).length, 0);
		expect(section[0]).toBe(`*Site issues*: ${counted('error')} errors, ${counted('warning')} warnings, ${counted('notice')} notices (URLs with each issue)`);
		expect(section).toContain(`• Broken internal links (error): 2 URLs (+1 since the last run): ${at('/gone.html')}, ${at('/docs/missing.html')}`);
		expect(section).toContain(`• Duplicate titles (error): 2 URLs: ${at('/docs/next.html')}, ${at('/docs/deep/three.html')}`);
		expect(section).toContain(`• Orphan pages (notice): 1 URL: ${at('/orphan.html')}`);
		expect(section.find((line) => line.startsWith('• Pages missing from sitemaps'))).toMatch(/^• Pages missing from sitemaps \(notice\): 8 URLs \(new\): \S+, \S+, \S+, and 5 more$/);
		expect(section).toContain('• Fixed since the last run: Large pages (over 2 MB) (3 URLs then)');
	});

	it("lists every site issue the node names, in the node's order, each with a title", () => {
		expect(Object.keys(siteIssueTitles())).toEqual(SITE_ISSUE_IDS);
		expect(Object.values(siteIssueTitles()).every((title) => title.length > 0)).toBe(true);
	});

	describe("a history write n8n refuses (its Data tables' size limit): the run's rows whole or absent, the summary says so", () => {
		let history: InMemoryDataTables;
		let saved: RunResult;
		let runRowRefused: RunResult;
		let pagesRefused: RunResult;
		let afterRoom: RunResult;
		let beforeRunRowRefused: ReportState[];
		const runIdsIn = (table: string) => [...new Set(history.rows(table).map((row) => String(row.runId)))];
		beforeAll(async () => {
			server.reset();
			history = auditHistoryTables();
			saved = await run({ dataTables: history });
			// Just under the limit: the page rows go in (n8n checks before a write, not what it adds), the run row is refused.
			history.maxSizeBytes = history.sizeBytes() + 1;
			beforeRunRowRefused = server.reports();
			runRowRefused = await run({ dataTables: history });
			// At the limit: the page rows are refused already.
			history.maxSizeBytes = history.sizeBytes();
			pagesRefused = await run({ dataTables: history });
			// Room made (here: the limit raised, as pruning would by deleting runs).
			history.maxSizeBytes = DEFAULT_DATA_TABLES_MAX_SIZE_BYTES;
			afterRoom = await run({ dataTables: history });
		});

		it('a run row refused after its page rows went in: those page rows are deleted again, and the summary says the history was not saved, naming the limit and the pruning example', () => {
			const text = textOf(runRowRefused);

			expect(runRowRefused.output('Save page results').map((item) => item.json)).toEqual([{ success: true, insertedRows: itemsOf(runRowRefused).length }]);
			expect(runRowRefused.output('Delete pages of this run')).toHaveLength(itemsOf(runRowRefused).length);
			expect(text).toContain(`\n${HISTORY_NOT_SAVED}`);
			expect(text).toContain('N8N_DATA_TABLES_MAX_SIZE_BYTES');
			expect(text).toContain('audit-history-pruning.json');
			// The rest of the summary as on any run: the trend against the run saved before.
			const savedRun = history.rows(AUDIT_HISTORY_TABLES.runs.name)[0];
			expect(text).toBe(
				siteAuditSummary(server, beforeRunRowRefused, {
					items: itemsOf(runRowRefused),
					previousAverages: [Number(savedRun.averageScore)],
					previousSiteIssues: JSON.parse(String(savedRun.siteIssues)) as Record<string, number>,
					historyNotSaved: true,
				}),
			);
		});

		it('page rows refused: nothing of the run is written, and the summary says so', () => {
			expect(pagesRefused.executedNodes).not.toContain('Save run summary');
			expect(textOf(pagesRefused)).toContain(`\n${HISTORY_NOT_SAVED}`);
		});

		it('the tables hold only whole runs: every run row with its pages, no page row without its run', () => {
			const saves = [saved, afterRoom].map(runIdOf);
			expect(runIdsIn(AUDIT_HISTORY_TABLES.runs.name)).toEqual(saves);
			expect(runIdsIn(AUDIT_HISTORY_TABLES.pages.name)).toEqual(saves);
			expect(history.rows(AUDIT_HISTORY_TABLES.pages.name)).toHaveLength(itemsOf(saved).length + itemsOf(afterRoom).length);
		});

		it('once there is room, the next run is saved, its trend against the last run saved', () => {
			const [first, last] = history.rows(AUDIT_HISTORY_TABLES.runs.name);
			const text = textOf(afterRoom);
			expect(text).not.toContain('History not saved');
			expect(text.split('\n')[1]).toBe(`Average score ${Number(last.averageScore).toFixed(1)}: \u00b10.0 since the last run (${Number(first.averageScore).toFixed(1)}); no run four runs ago yet`);
		});
	});
});

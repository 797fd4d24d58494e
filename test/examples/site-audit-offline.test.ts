import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { INodeExecutionData } from 'n8n-workflow';

import { startPhpRankServer } from '../../dev/server';
import type { PhpRankServer, ReportState } from '../../dev/server';
import {
	BIG_SITEMAP_FILE,
	BIG_SITEMAP_SIZE,
	bigSitemapPage,
	deepIndexFile,
	FEED_FILE,
	GONE_PAGES,
	GZIPPED_INDEX_FILE,
	NESTED_INDEX_FILE,
	SITE_INDEX_FILE,
	SITE_PAGES,
	sitemapFilesFrom,
	SITEMAPS,
} from '../../dev/server/site';
import { AUDIT_HISTORY_TABLES, auditHistoryTables, EXAMPLES_DIR, loadExampleWorkflow, pageHistoryRows, runHistoryRow, siteAuditSummary } from '../../dev/examples';
import { CHECK_NAMES, failedCheckTitles } from '../../dev/server/analysis';
import { DEFAULT_DATA_TABLES_MAX_SIZE_BYTES, runWorkflow } from '../../dev/engine';
import type { InMemoryDataTables, RunResult, WorkflowFixture } from '../../dev/engine';
import { EXAMPLE_SERVER_ORIGIN, loadExamples } from '../../dev/n8n/examples';
import { apiRequests } from '../support/phpRank';

const WORKFLOW_FILE = 'site-audit-offline.json';
const CHANGED_PAGE = 'https://www.brewshop.example/pricing';
const DAY_SECONDS = 86_400;
/** The nodes from the phpRank node on: left out where only the reading of sitemaps is checked. */
const AUDIT_NODES = ['Audit page', 'Page result', 'Pages per site', 'Rank checks and pages', 'Previous runs', 'With previous runs', 'Build summary', 'Page history row', 'Save page results', 'Run history row', 'Save run summary'];

let server: PhpRankServer;

const siteUrl = () => `${new URL(server.url).origin}/__site`;

/**
 * The example run as it is, or on another file of the fixture site; `readOnly` stops it before the phpRank node. It
 * writes its history into `dataTables`: by default, empty tables of its own.
 */
async function run(sitemapFile?: string, { readOnly = false, dataTables = auditHistoryTables() }: { readOnly?: boolean; dataTables?: InMemoryDataTables } = {}) {
	const workflow = loadExampleWorkflow(WORKFLOW_FILE, { server });
	if (sitemapFile) {
		const [assignment] = (workflow.nodes.find((node) => node.name === 'Sitemap to audit')!.parameters.assignments as { assignments: Array<{ value: string }> }).assignments;
		assignment.value = `${siteUrl()}/${sitemapFile}`;
	}
	if (readOnly) {
		workflow.nodes = workflow.nodes.filter((node) => !AUDIT_NODES.includes(node.name));
		delete workflow.connections['Each page once'];
	}
	return await runWorkflow(workflow, { credentials: { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } }, dataTables });
}
const livePages = SITE_PAGES.filter((url) => !GONE_PAGES.includes(url));
const audited = (result: RunResult) => result.output('Each page once').map((item) => String(item.json.url));
/** The items a node emitted on an output over all its runs: the nodes reading sitemaps run once per level of indexes. */
const everyRun = (result: RunResult, nodeName: string, outputIndex = 0): INodeExecutionData[] =>
	(result.run.data.resultData.runData[nodeName] ?? []).flatMap((taskData) => taskData.data?.main?.[outputIndex] ?? []);
/** The message each failed page's item carries, by page URL. */
function errorsOf(result: RunResult): Map<string, string> {
	const pages = audited(result);
	return new Map(result.output('Audit page').flatMap((item, index) => (item.json.error ? [[pages[index], String(item.json.error)]] : [])));
}
const outcomesOf = (result: RunResult) => new Map(result.output('Audit page').map((item, index) => [audited(result)[index], item.json.outcome ?? 'failed']));
const summaries = (result: RunResult) => result.output('Build summary').map((item) => item.json);
const siteRequests = () => server.requests.filter((request) => request.path.startsWith('/__site/')).map((request) => `${request.method} ${request.path} ${request.status}`);
const fetched = (files: string[]) => files.map((file) => `GET /__site/${file} 200`);
const writes = () => apiRequests(server).filter((request) => request.method !== 'GET');

beforeAll(async () => {
	server = await startPhpRankServer();
});
afterAll(async () => await server.close());

describe('examples/site-audit-offline.json', () => {
	it('is the offline variant of the Slack example: the same nodes from the sitemap to the summary, a manual trigger, the summary text at the end', () => {
		const read = (file: string) => JSON.parse(readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as WorkflowFixture;
		const offline = read(WORKFLOW_FILE);
		const slack = read('site-audit-slack.json');
		const shared = (workflow: WorkflowFixture) =>
			workflow.nodes
				.filter((node) => !/scheduleTrigger|manualTrigger|slack|stickyNote/.test(node.type) && node.name !== 'Sitemap to audit')
				.map(({ name, type, typeVersion, parameters, onError }) => ({ name, type, typeVersion, parameters, onError }));

		expect(shared(offline)).toEqual(shared(slack));
		expect(offline.connections).toEqual(expect.objectContaining(Object.fromEntries(Object.entries(slack.connections).filter(([from]) => from !== 'Every Monday at 06:00' && from !== 'Build summary'))));
		expect(slack.nodes.find((node) => node.type === 'n8n-nodes-base.scheduleTrigger')?.parameters).toEqual({
			rule: { interval: [{ field: 'weeks', triggerAtDay: [1], triggerAtHour: 6 }] },
		});
		// Slack's message formatting: &, < and > escaped, so that a URL with `&` or a site name with `<>` shows as written.
		expect(slack.nodes.find((node) => node.type === 'n8n-nodes-base.slack')?.parameters.text).toBe(
			"={{ $json.text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;') }}",
		);
		// The end-to-end suite runs it with n8n execute: it fetches from the bundled server alone.
		expect(JSON.stringify(offline)).toContain(`${EXAMPLE_SERVER_ORIGIN}/__site/sitemap.xml`);
		expect(loadExamples().find((example) => example.file === WORKFLOW_FILE)?.offline).toBe(true);
		// A weekly audit: a page analyzed within 6 days is not analyzed again.
		expect(offline.nodes.find((node) => node.name === 'Audit page')).toMatchObject({
			parameters: { ifReportExists: 'reanalyzeIfOlder', reanalyzeAfter: 6, reanalyzeAfterUnit: 'days' },
			onError: 'continueRegularOutput',
		});
	});

	describe('the first audit', () => {
		let result: RunResult;
		beforeAll(async () => {
			server.reset();
			result = await run();
		});

		it('follows the sitemap index and the gzipped index listed in it to each sitemap, once each, level by level', () => {
			expect(result.error).toBeUndefined();
			expect(siteRequests()).toEqual(
				fetched([
					'sitemap.xml',
					'sitemap-pages.xml',
					'sitemap-shop.xml.gz',
					'sitemap-blog.xml.gz',
					'sitemap-archive.xml.gz',
					'sitemap-guides.xml.gz',
					'sitemap-products.xml.gz',
					'sitemap-accessories.xml.gz',
				]),
			);
			expect(result.run.data.resultData.runData['Read sitemap']).toHaveLength(3);
		});

		it('audits every page the sitemaps list, once each: those of each gzipped sitemap too, the page listed twice once', () => {
			const listed = result.output('One item per page').map((item) => String(item.json.url));
			const pages = audited(result);

			expect(listed.length).toBe(SITE_PAGES.length + 1);
			expect([...new Set(listed)].sort()).toEqual([...SITE_PAGES].sort());
			expect([...pages].sort()).toEqual([...SITE_PAGES].sort());
			expect(new Set(pages).size).toBe(pages.length);
			for (const sitemap of SITEMAPS) expect(pages).toEqual(expect.arrayContaining(sitemap.pages));
		});

		it('unzips each file that is gzip once HTTP has undone any Content-Encoding, whatever its Content-Type, and no other', () => {
			const unzipped = everyRun(result, 'Unzip sitemap').map((item) => item.binary?.unzipped_0?.fileName);
			const gzipFiles = SITEMAPS.filter((sitemap) => sitemap.sent.gzipFile);

			// The guides sitemap is a .gz file sent with Content-Encoding: gzip too; the archive only the latter.
			expect(gzipFiles.map((sitemap) => sitemap.file)).toEqual(['sitemap-products.xml.gz', 'sitemap-accessories.xml.gz', 'sitemap-blog.xml.gz', 'sitemap-guides.xml.gz']);
			expect(unzipped).toHaveLength(gzipFiles.length + 1);
			expect(everyRun(result, 'Gzipped?', 1)).toHaveLength(3);
			expect(everyRun(result, 'Parse sitemap').filter((item) => item.json.urlset)).toHaveLength(SITEMAPS.length);
		});

		it('creates one report per page that can be fetched, and reports the gone page as failed', () => {
			expect(server.reports().map((report) => report.targetUrl).sort()).toEqual([...livePages].sort());
			expect(
				result
					.output('Audit page')
					.filter((item) => !item.json.error)
					.map((item) => item.json.outcome),
			).toEqual(livePages.map(() => 'created'));
			expect([...errorsOf(result).keys()]).toEqual(GONE_PAGES);
			expect(errorsOf(result).get(GONE_PAGES[0])).toContain('the page answered 404 Not Found');
			expect(errorsOf(result).get(GONE_PAGES[0])).not.toMatch(/[<>]/);
			expect(writes().map((request) => `${request.method} ${request.status}`).sort()).toEqual([...livePages.map(() => 'POST 201'), 'POST 422'].sort());
		});

		it('sums the site up in one message: pages by grade, what this run analyzed, the worst pages with their links, the failed page', () => {
			const [summary, ...more] = summaries(result);
			const text = String(summary.text);

			expect(more).toEqual([]);
			expect(summary.site).toBe('brewshop.example');
			expect(text).toBe(siteAuditSummary(server, [], { pages: audited(result), errors: errorsOf(result) }));
			// The fixture site has pages of every grade, so each count means something.
			expect(text).toMatch(new RegExp(`: ${livePages.length} pages: [1-9]\\d* good, [1-9]\\d* decent, [1-9]\\d* bad; 1 could not be analyzed\\.\nAverage score \\d+\\.\\d: first run\nAnalyzed in this run: ${livePages.length} new, 0 re-analyzed; 0 fresh from earlier runs\\.\n`));
			expect(text).toContain('*Checks newly failing on the re-analyzed pages*\nnone');
		});

		it('names the top issues by the pages they affect, in the words of phpRank\'s report page', () => {
			const text = String(summaries(result)[0].text);
			const [, topIssues] = /\*Top issues by pages affected\*\n(.*)\n/.exec(text) ?? [];

			expect(topIssues).toMatch(/^[A-Z0-9][^_]* \(\d+ pages?\)(, [A-Z0-9][^_]* \(\d+ pages?\)){4}/);
			const counts = [...topIssues.matchAll(/\((\d+) pages?\)/g)].map(([, count]) => Number(count));
			expect(counts).toEqual([...counts].sort((a, b) => b - a));
		});
	});

	it("compares the site's average with the run four runs before, from the runs table, whatever other sites it holds and in whatever order n8n answers the rows", async () => {
		server.reset();
		const history = auditHistoryTables();
		const earlier = [72.5, 70, 65.3, 68.2].map((averageScore, week) => ({ runId: `2026-10-0${week + 1}T06:00:00.000Z`, site: 'brewshop.example', averageScore }));
		// n8n 1.x's Get ignores a sort and answers in row ID order: rows written out of time order, the workflow orders them.
		history.insert(AUDIT_HISTORY_TABLES.runs.name, [
			...[earlier[3], earlier[0], earlier[2], earlier[1]].map((row) => ({ ...row, runAt: new Date(row.runId), pages: 14, good: 5, decent: 4, bad: 5, notAnalyzed: 1 })),
			// Another site's later run: not this site's last.
			{ runId: '2026-10-05T06:00:00.000Z', runAt: new Date('2026-10-05T06:00:00.000Z'), site: 'other.example', pages: 1, averageScore: 99, good: 1, decent: 0, bad: 0, notAnalyzed: 0 },
		]);
		const result = await run(undefined, { dataTables: history });

		expect(result.error).toBeUndefined();
		expect(String(summaries(result)[0].text)).toBe(
			siteAuditSummary(server, [], { pages: audited(result), errors: errorsOf(result), previousAverages: earlier.map((row) => row.averageScore).reverse() }),
		);
		expect(String(summaries(result)[0].text).split('\n')[1]).toMatch(/^Average score \d+\.\d: [+\u2212\u00b1]\d+\.\d since the last run \(68\.2\), [+\u2212\u00b1]\d+\.\d since four runs ago \(72\.5\)$/);
	});

	describe("a history write n8n refuses (its Data tables' size limit): the run's rows whole or absent, the summary says so", () => {
		const NOT_SAVED = '\n*History not saved*\nn8n refused to write this run into its Data tables';
		let history: InMemoryDataTables;
		let saved: RunResult;
		let runRowRefused: RunResult;
		let pagesRefused: RunResult;
		let afterRoom: RunResult;
		const runIdOf = (result: RunResult) => String(result.output('Run started')[0].json.runAt);
		const runIdsIn = (table: string) => [...new Set(history.rows(table).map((row) => String(row.runId)))];
		beforeAll(async () => {
			server.reset();
			history = auditHistoryTables();
			saved = await run(undefined, { dataTables: history });
			// Just under the limit: the page rows go in (n8n checks before a write, not what it adds), the run row is refused.
			history.maxSizeBytes = history.sizeBytes() + 1;
			runRowRefused = await run(undefined, { dataTables: history });
			// At the limit: the page rows are refused already.
			history.maxSizeBytes = history.sizeBytes();
			pagesRefused = await run(undefined, { dataTables: history });
			// Room made (here: the limit raised, as pruning would by deleting runs).
			history.maxSizeBytes = DEFAULT_DATA_TABLES_MAX_SIZE_BYTES;
			afterRoom = await run(undefined, { dataTables: history });
		});

		it('a run row refused after its page rows went in: those page rows are deleted again, and the summary says the history was not saved, naming the limit and the pruning example', () => {
			expect(runRowRefused.error).toBeUndefined();
			expect(runRowRefused.output('Save page results').map((item) => item.json)).toEqual([{ success: true, insertedRows: SITE_PAGES.length }]);
			expect(runRowRefused.output('Delete pages of this run')).toHaveLength(SITE_PAGES.length);
			const text = String(summaries(runRowRefused)[0].text);
			expect(text).toContain(NOT_SAVED);
			expect(text).toContain('N8N_DATA_TABLES_MAX_SIZE_BYTES');
			expect(text).toContain('audit-history-pruning.json');
			// The rest of the summary as on any run: the trend against the run saved before.
			expect(text.split(NOT_SAVED)[0]).toBe(siteAuditSummary(server, server.reports(), { pages: audited(runRowRefused), errors: errorsOf(runRowRefused), previousAverages: [Number(history.rows(AUDIT_HISTORY_TABLES.runs.name)[0].averageScore)] }));
		});

		it('page rows refused: nothing of the run is written, and the summary says so', () => {
			expect(pagesRefused.error).toBeUndefined();
			expect(pagesRefused.executedNodes).not.toContain('Save run summary');
			expect(String(summaries(pagesRefused)[0].text)).toContain(NOT_SAVED);
		});

		it('the tables hold only whole runs: every run row with its pages, no page row without its run', () => {
			const saves = [saved, afterRoom].map(runIdOf);
			expect(runIdsIn(AUDIT_HISTORY_TABLES.runs.name)).toEqual(saves);
			expect(runIdsIn(AUDIT_HISTORY_TABLES.pages.name)).toEqual(saves);
			expect(history.rows(AUDIT_HISTORY_TABLES.pages.name)).toHaveLength(2 * SITE_PAGES.length);
		});

		it('once there is room, the next run is saved, its trend against the last run saved', () => {
			const [first, last] = history.rows(AUDIT_HISTORY_TABLES.runs.name);
			const text = String(summaries(afterRoom)[0].text);
			expect(afterRoom.error).toBeUndefined();
			expect(text).not.toContain('History not saved');
			expect(text.split('\n')[1]).toBe(`Average score ${Number(last.averageScore).toFixed(1)}: \u00b10.0 since the last run (${Number(first.averageScore).toFixed(1)}); no run four runs ago yet`);
		});
	});

	describe('ties at the fifth place: every page fails the same checks and has the same score', () => {
		let result: RunResult;
		beforeAll(async () => {
			server.reset();
			for (const url of livePages) server.changePage(url, { quality: 0 });
			result = await run();
		});

		it('counts the checks and the pages tied with the fifth instead of cutting them, ordered by importance and title, and by URL', () => {
			const text = String(summaries(result)[0].text);
			const [score] = new Set(server.reports().map((report) => report.result));
			const byUrl = [...livePages].sort((a, b) => a.localeCompare(b));

			expect(result.error).toBeUndefined();
			expect(new Set(server.reports().map((report) => report.result)).size).toBe(1);
			expect(text).toBe(siteAuditSummary(server, [], { pages: audited(result), errors: errorsOf(result) }));
			// Every check but HTTPS encryption fails on every page: the high-importance ones first, by title.
			const everyPage = `(${livePages.length} pages)`;
			const firstFive = failedCheckTitles(livePages[0], 0).high.sort((a, b) => a.localeCompare(b)).slice(0, 5);
			expect(text).toContain(
				`*Top issues by pages affected*\n${firstFive.map((title) => `${title} ${everyPage}`).join(', ')}` +
					` and ${CHECK_NAMES.length - 1 - 5} more with ${livePages.length} pages\n`,
			);
			const worst = text.split('*Worst pages*\n')[1].split('\n*')[0].split('\n');
			expect(worst.slice(0, 5).map((line) => line.split(': ')[0])).toEqual(byUrl.slice(0, 5).map((url) => `• ${url}`));
			expect(worst.slice(5)).toEqual([`• and ${livePages.length - 5} more at ${score}/100`]);
		});
	});

	describe('reads every kind of sitemap a site publishes', () => {
		const readOnly = async (file: string) => {
			server.reset();
			const result = await run(file, { readOnly: true });
			expect(result.error).toBeUndefined();
			expect(apiRequests(server)).toEqual([]);
			return { requests: siteRequests(), pages: audited(result) };
		};
		const pagesOf = (file: string) => SITEMAPS.find((sitemap) => sitemap.file === file)!.pages;

		it('a sitemap that is not an index, as the only sitemap, read once', async () => {
			expect(await readOnly('sitemap-pages.xml')).toEqual({ requests: fetched(['sitemap-pages.xml']), pages: pagesOf('sitemap-pages.xml') });
		});

		it('a gzipped sitemap given as the top-level one', async () => {
			expect(await readOnly('sitemap-products.xml.gz')).toEqual({ requests: fetched(['sitemap-products.xml.gz']), pages: pagesOf('sitemap-products.xml.gz') });
		});

		it('a .gz sitemap sent with Content-Encoding: gzip as well, gzip inside gzip', async () => {
			expect(await readOnly('sitemap-guides.xml.gz')).toEqual({ requests: fetched(['sitemap-guides.xml.gz']), pages: pagesOf('sitemap-guides.xml.gz') });
		});

		it('a gzipped sitemap index given as the top-level one', async () => {
			const { requests, pages } = await readOnly(GZIPPED_INDEX_FILE);

			expect(requests).toEqual(fetched([GZIPPED_INDEX_FILE, ...sitemapFilesFrom(SITE_INDEX_FILE).slice(1)]));
			expect([...pages].sort()).toEqual([...SITE_PAGES].sort());
		});

		it('an index listing an index that lists sitemaps the outer one lists too: each sitemap read once', async () => {
			const { requests, pages } = await readOnly(NESTED_INDEX_FILE);

			// sitemap-nested.xml lists sitemap-products.xml.gz, sitemap.xml and sitemap-pages.xml; sitemap.xml lists
			// sitemap-pages.xml again, and its shop index sitemap-products.xml.gz again.
			expect(requests).toEqual(
				fetched([
					'sitemap-nested.xml',
					'sitemap-products.xml.gz',
					'sitemap.xml',
					'sitemap-pages.xml',
					'sitemap-shop.xml.gz',
					'sitemap-blog.xml.gz',
					'sitemap-archive.xml.gz',
					'sitemap-guides.xml.gz',
					'sitemap-accessories.xml.gz',
				]),
			);
			expect([...pages].sort()).toEqual([...SITE_PAGES].sort());
		});

		it('a sitemap of 50,000 pages, the most the protocol allows: each page once', async () => {
			const { requests, pages } = await readOnly(BIG_SITEMAP_FILE);

			expect(requests).toEqual(fetched([BIG_SITEMAP_FILE]));
			expect(pages).toHaveLength(BIG_SITEMAP_SIZE);
			expect(new Set(pages).size).toBe(BIG_SITEMAP_SIZE);
			expect([pages[0], pages[BIG_SITEMAP_SIZE - 1]]).toEqual([bigSitemapPage(1), bigSitemapPage(BIG_SITEMAP_SIZE)]);
		});
	});

	it('stops before any report, naming the index it would read, when indexes nest more than 5 levels deep', async () => {
		server.reset();
		const result = await run(deepIndexFile(1));

		expect(result.run.data.resultData.lastNodeExecuted).toBe('Too deep');
		expect(result.error?.message).toBe(
			`${siteUrl()}/${deepIndexFile(6)} would be read 6 levels down from Sitemap to audit, deeper than the 5 levels of sitemap indexes this workflow ` +
				'follows. Give Sitemap to audit the inner indexes instead, one item each; the run only read sitemaps, so running it again is safe',
		);
		expect(siteRequests()).toEqual(fetched([1, 2, 3, 4, 5].map(deepIndexFile)));
		expect(apiRequests(server)).toEqual([]);
	});

	it('stops before any report, naming the file, when a file it reads is no sitemap', async () => {
		server.reset();
		const result = await run(FEED_FILE);

		expect(result.run.data.resultData.lastNodeExecuted).toBe('Not a sitemap');
		expect(result.error?.message).toBe(
			`${siteUrl()}/${FEED_FILE} is not a sitemap: it has no <urlset> or <sitemapindex>. Give Sitemap to audit the address of a sitemap or ` +
				'sitemap index (robots.txt names it); the run only read sitemaps, so running it again is safe',
		);
		expect(siteRequests()).toEqual(fetched([FEED_FILE]));
		expect(apiRequests(server)).toEqual([]);
	});

	describe('the weekly audit, run again', () => {
		const AGED_PAGES = [CHANGED_PAGE, 'https://www.brewshop.example/blog/cold-brew', 'https://www.brewshop.example/products/french-press'];
		// Changed too, but analyzed within the 6 days: its report stays as it is until it is older.
		const CHANGED_FRESH_PAGE = 'https://www.brewshop.example/about';
		let first: ReportState[];
		let rerun: RunResult;
		let rerunRequests: string[];
		let rerunSummary: string;
		let beforeWeekly: ReportState[];
		let weekly: RunResult;
		let firstRun: RunResult;
		// The three runs write into the same Data tables, as n8n keeps them between executions.
		let history: InMemoryDataTables;
		const runRows = () => history.rows(AUDIT_HISTORY_TABLES.runs.name);
		/** The average scores the runs table holds for the runs before `result`'s, newest first. */
		const averagesBefore = (result: RunResult) => {
			const runAt = String(result.output('Run started')[0].json.runAt);
			return runRows()
				.filter((row) => String(row.runId) < runAt)
				.reverse()
				.map((row) => row.averageScore as number | null);
		};
		beforeAll(async () => {
			server.reset();
			history = auditHistoryTables();
			firstRun = await run(undefined, { dataTables: history });
			first = server.reports();
			server.clearRequests();
			rerun = await run(undefined, { dataTables: history });
			rerunRequests = apiRequests(server).map((request) => `${request.method} ${request.path} ${request.status}`);
			rerunSummary = siteAuditSummary(server, first, { pages: audited(rerun), errors: errorsOf(rerun), previousAverages: averagesBefore(rerun) });

			server.changePage(CHANGED_PAGE, { quality: 0.6 });
			server.changePage(CHANGED_FRESH_PAGE, { quality: 0 });
			server.ageReports(
				first.filter((report) => AGED_PAGES.includes(report.targetUrl)).map((report) => report.id),
				6 * DAY_SECONDS + 3600,
			);
			beforeWeekly = server.reports();
			server.clearRequests();
			weekly = await run(undefined, { dataTables: history });
		});

		it('right after a finished audit: analyzes nothing, every page fresh from the earlier run', () => {
			expect(rerun.error).toBeUndefined();
			// The one read of the site's reports; the gone page has no report, so it is tried again, and refused as before.
			expect(rerunRequests).toEqual(['GET /api/v1/reports 200', 'POST /api/v1/reports 422']);
			expect([...outcomesOf(rerun).values()].sort()).toEqual([...livePages.map(() => 'existing'), 'failed'].sort());
			expect(server.reports().filter((report) => !AGED_PAGES.includes(report.targetUrl)).map((report) => report.generatedAt)).toEqual(
				first.filter((report) => !AGED_PAGES.includes(report.targetUrl)).map((report) => report.generatedAt),
			);
			const text = String(summaries(rerun)[0].text);
			expect(text).toBe(rerunSummary);
			expect(text).toContain(`\nAnalyzed in this run: 0 new, 0 re-analyzed; ${livePages.length} fresh from earlier runs.\n`);
			expect(text).toContain('*Checks newly failing on the re-analyzed pages*\nnone');
		});

		it('a week on: re-analyzes exactly the reports analyzed more than 6 days ago, creates none', () => {
			const aged = beforeWeekly.filter((report) => AGED_PAGES.includes(report.targetUrl));

			expect(weekly.error).toBeUndefined();
			expect(server.reports().map((report) => report.id)).toEqual(first.map((report) => report.id));
			expect(writes().map((request) => `${request.method} ${request.rawPath} ${request.status}`).sort()).toEqual(
				[...aged.map((report) => `PUT /api/v1/reports/${report.id} 200`), 'POST /api/v1/reports 422'].sort(),
			);
			expect(apiRequests(server).filter((request) => request.method === 'GET')).toHaveLength(1);
			const outcomes = outcomesOf(weekly);
			expect(livePages.map((url) => outcomes.get(url))).toEqual(livePages.map((url) => (AGED_PAGES.includes(url) ? 'reanalyzed' : 'existing')));
		});

		it('says how many pages it re-analyzed and how many were fresh, and lists the checks newly failing on the re-analyzed pages only', () => {
			const text = String(summaries(weekly)[0].text);
			const changed = server.reports().find((report) => report.targetUrl === CHANGED_PAGE)!;

			expect(text).toBe(siteAuditSummary(server, beforeWeekly, { pages: audited(weekly), errors: errorsOf(weekly), previousAverages: averagesBefore(weekly) }));
			expect(text).toContain(`\nAnalyzed in this run: 0 new, ${AGED_PAGES.length} re-analyzed; ${livePages.length - AGED_PAGES.length} fresh from earlier runs.\n`);
			expect(text).toContain(`*Checks newly failing on the re-analyzed pages*\n• ${CHANGED_PAGE}: `);
			// By the titles phpRank's report page shows, not the check ids.
			expect(text.split('*Checks newly failing on the re-analyzed pages*\n')[1].split('\n*')[0]).not.toMatch(/[a-z]_[a-z]|404_page/);
			expect(text).toContain(`${server.url}/reports/${changed.id}\n*Could not be analyzed*`);
			expect(text).not.toContain(`• ${CHANGED_FRESH_PAGE}: `);
			expect(changed.result).toBeLessThan(beforeWeekly.find((report) => report.id === changed.id)!.result);
		});

		it("gives the site's average score against the last run's, as the runs table holds them, the current run not counted as its own last", () => {
			const [firstRow, rerunRow, weeklyRow] = runRows();
			const trend = (result: RunResult) => String(summaries(result)[0].text).split('\n')[1];
			const signed = (delta: number) => `${delta > 0 ? '+' : delta < 0 ? '\u2212' : '\u00b1'}${Math.abs(delta).toFixed(1)}`;
			const [average, last] = [Number(weeklyRow.averageScore), Number(rerunRow.averageScore)];

			expect(runRows()).toHaveLength(3);
			expect(trend(firstRun)).toBe(`Average score ${Number(firstRow.averageScore).toFixed(1)}: first run`);
			expect(trend(rerun)).toBe(`Average score ${Number(rerunRow.averageScore).toFixed(1)}: \u00b10.0 since the last run (${Number(firstRow.averageScore).toFixed(1)}); no run four runs ago yet`);
			// The changed page scores lower: the average fell since the last run.
			expect(average).toBeLessThan(last);
			expect(trend(weekly)).toBe(
				`Average score ${average.toFixed(1)}: ${signed(Math.round((average - last) * 10) / 10)} since the last run (${last.toFixed(1)}); no run four runs ago yet`,
			);
		});

		describe("keeps each run's result in n8n's Data tables", () => {
			const runs = () => [firstRun, rerun, weekly];
			const pageRows = () => history.rows(AUDIT_HISTORY_TABLES.pages.name);
			const runIds = () => [...new Set(pageRows().map((row) => row.runId))];
			const withoutRun = ({ id: _id, createdAt: _created, updatedAt: _updated, runId: _runId, runAt: _runAt, ...row }: Record<string, unknown>) => row;
			const rowsOf = (runId: unknown) => pageRows().filter((row) => row.runId === runId);

			it('one row per page and run, each run named by the time it started; the pages written first, the run row once they are in, the summary after both', () => {
				expect(runs().map((result) => result.error)).toEqual([undefined, undefined, undefined]);
				const order = weekly.executedNodes;
				expect(order.indexOf('Save page results')).toBeLessThan(order.indexOf('Save run summary'));
				expect(order.indexOf('Save run summary')).toBeLessThan(order.indexOf('Build summary'));
				expect(order).not.toContain('Delete pages of this run');
				expect(String(summaries(weekly)[0].text)).not.toContain('History not saved');
				expect(pageRows()).toHaveLength(3 * SITE_PAGES.length);
				expect(runIds()).toHaveLength(3);
				expect(runIds()).toEqual([...runIds()].sort());
				for (const [index, runId] of runIds().entries()) {
					expect(String(runId)).toBe(String(runs()[index].output('Run started')[0].json.runAt));
					expect(rowsOf(runId).map((row) => row.runAt)).toEqual(SITE_PAGES.map(() => new Date(String(runId))));
				}
			});

			it("each page's score, grade, failed checks by importance, report ID and link as phpRank held them after that run; the page that failed with its error", () => {
				const [firstId, rerunId, weeklyId] = runIds();
				const expected = (result: RunResult, reports: ReportState[]) => pageHistoryRows(server, reports, { pages: audited(result), errors: errorsOf(result) });

				expect(rowsOf(firstId).map(withoutRun)).toEqual(expected(firstRun, first));
				expect(rowsOf(rerunId).map(withoutRun)).toEqual(expected(rerun, first));
				expect(rowsOf(weeklyId).map(withoutRun)).toEqual(expected(weekly, server.reports()));
				expect(rowsOf(weeklyId).find((row) => row.url === GONE_PAGES[0])?.error).toMatch(/the page answered 404 Not Found/);
			});

			it('the changed page: a lower score and a check newly failing in the last run, the same report', () => {
				const [firstId, , weeklyId] = runIds();
				const changedIn = (runId: unknown) => rowsOf(runId).find((row) => row.url === CHANGED_PAGE)!;
				const failed = (row: Record<string, unknown>) => ['failedHigh', 'failedMedium', 'failedLow'].flatMap((column) => String(row[column]).split(', ').filter(Boolean));

				expect(changedIn(weeklyId).reportId).toBe(changedIn(firstId).reportId);
				expect(Number(changedIn(weeklyId).score)).toBeLessThan(Number(changedIn(firstId).score));
				expect(failed(changedIn(weeklyId)).filter((check) => !failed(changedIn(firstId)).includes(check))).not.toEqual([]);
			});

			it('one summary row per site and run: pages analyzed, average score, pages by grade, pages not analyzed', () => {
				const summaries = history.rows(AUDIT_HISTORY_TABLES.runs.name);

				expect(summaries.map((row) => [row.runId, row.runAt])).toEqual(runIds().map((runId) => [runId, new Date(String(runId))]));
				expect(summaries.map(withoutRun)).toEqual(runIds().map((runId) => runHistoryRow(rowsOf(runId).map(withoutRun) as Parameters<typeof runHistoryRow>[0])));
				expect(summaries.map((row) => [row.pages, row.notAnalyzed])).toEqual(runIds().map(() => [livePages.length, 1]));
			});
		});
	});
});

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { startPhpRankServer } from '../../dev/server';
import type { PhpRankServer, ReportState } from '../../dev/server';
import { GONE_PAGES, NESTED_INDEX_FILE, NESTED_INDEX_LISTS, SITE_PAGES, SITEMAP_FILES, SITEMAPS } from '../../dev/server/site';
import { EXAMPLES_DIR, loadExampleWorkflow, siteAuditSummary } from '../../dev/examples';
import { runWorkflow } from '../../dev/engine';
import type { RunResult, WorkflowFixture } from '../../dev/engine';
import { EXAMPLE_SERVER_ORIGIN, loadExamples } from '../../dev/n8n/examples';
import { apiRequests } from '../support/phpRank';

const WORKFLOW_FILE = 'site-audit-offline.json';
const CHANGED_PAGE = 'https://www.brewshop.example/pricing';

let server: PhpRankServer;

/** The example run as it is, or on another sitemap of the fixture site. */
async function run(sitemapFile?: string) {
	const workflow = loadExampleWorkflow(WORKFLOW_FILE, { server });
	if (sitemapFile) {
		const [assignment] = (workflow.nodes.find((node) => node.name === 'Sitemap to audit')!.parameters.assignments as { assignments: Array<{ value: string }> }).assignments;
		assignment.value = `${new URL(server.url).origin}/__site/${sitemapFile}`;
	}
	return await runWorkflow(workflow, { credentials: { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } } });
}
const livePages = SITE_PAGES.filter((url) => !GONE_PAGES.includes(url));
const audited = (result: RunResult) => result.output('Each page once').map((item) => String(item.json.url));
/** The message each failed page's item carries, by page URL. */
function errorsOf(result: RunResult): Map<string, string> {
	const pages = audited(result);
	return new Map(result.output('Audit page').flatMap((item, index) => (item.json.error ? [[pages[index], String(item.json.error)]] : [])));
}
const summaries = (result: RunResult) => result.output('Build summary').map((item) => item.json);
const siteRequests = () => server.requests.filter((request) => request.path.startsWith('/__site/')).map((request) => `${request.method} ${request.path} ${request.status}`);

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
		expect(slack.nodes.find((node) => node.type === 'n8n-nodes-base.slack')?.parameters.text).toBe('={{ $json.text }}');
		// The end-to-end suite runs it with n8n execute: it fetches from the bundled server alone.
		expect(JSON.stringify(offline)).toContain(`${EXAMPLE_SERVER_ORIGIN}/__site/sitemap.xml`);
		expect(loadExamples().find((example) => example.file === WORKFLOW_FILE)?.offline).toBe(true);
		expect(offline.nodes.find((node) => node.name === 'Audit page')).toMatchObject({
			parameters: { ifReportExists: 'reanalyzeExisting' },
			onError: 'continueRegularOutput',
		});
	});

	describe('the first audit', () => {
		let result: RunResult;
		beforeAll(async () => {
			server.reset();
			result = await run();
		});

		it('follows the sitemap index to each of its sitemaps once, the gzipped ones too', () => {
			expect(result.error).toBeUndefined();
			expect(siteRequests()).toEqual([
				'GET /__site/sitemap.xml 200',
				...SITEMAP_FILES.map((file) => `GET /__site/${file} 200`),
			]);
		});

		it('audits every page the sitemaps list, once each: those of each gzipped sitemap too, the page listed twice once', () => {
			const listed = result.output('One item per page').map((item) => String(item.json.url));
			const pages = audited(result);

			expect(listed.length).toBeGreaterThan(SITE_PAGES.length);
			expect([...new Set(listed)].sort()).toEqual([...SITE_PAGES].sort());
			expect([...pages].sort()).toEqual([...SITE_PAGES].sort());
			expect(new Set(pages).size).toBe(pages.length);
			for (const sitemap of SITEMAPS) expect(pages).toEqual(expect.arrayContaining(sitemap.pages));
		});

		it('unzips each sitemap that arrives as gzip bytes, whatever its Content-Type, and no other', () => {
			// One sent with Content-Encoding: gzip arrives as XML, its .gz name notwithstanding.
			const sentAsGzipBytes = SITEMAPS.filter((sitemap) => sitemap.gzipped && !sitemap.gzipped.encoding);

			expect(sentAsGzipBytes.map((sitemap) => sitemap.gzipped?.type)).toEqual(['application/gzip', 'application/x-gzip', 'application/octet-stream']);
			expect(result.output('Unzip sitemap')).toHaveLength(sentAsGzipBytes.length);
			expect(result.output('Gzipped?', 1)).toHaveLength(SITEMAPS.length - sentAsGzipBytes.length);
		});

		it('creates one report per page that can be fetched, and reports the gone page as failed', () => {
			const reports = server.reports();

			expect(reports.map((report) => report.targetUrl).sort()).toEqual([...livePages].sort());
			expect(
				result
					.output('Audit page')
					.filter((item) => !item.json.error)
					.map((item) => item.json.outcome),
			).toEqual(livePages.map(() => 'created'));
			expect([...errorsOf(result).keys()]).toEqual(GONE_PAGES);
			expect(errorsOf(result).get(GONE_PAGES[0])).toContain('the page answered 404 Not Found');
			expect(errorsOf(result).get(GONE_PAGES[0])).not.toMatch(/[<>]/);
			expect(apiRequests(server).filter((request) => request.method === 'POST').map((request) => request.status).sort()).toEqual(
				[...livePages.map(() => 201), 422].sort(),
			);
		});

		it('sums the site up in one message: pages by grade, the worst pages with their links, the failed page', () => {
			const [summary, ...more] = summaries(result);
			const text = String(summary.text);

			expect(more).toEqual([]);
			expect(summary.site).toBe('brewshop.example');
			expect(text).toBe(siteAuditSummary(server, [], { pages: audited(result), errors: errorsOf(result) }));
			// The fixture site has pages of every grade, so each count means something.
			expect(text).toMatch(/: 12 pages analyzed: [1-9]\d* good, [1-9]\d* decent, [1-9]\d* bad; 1 could not be analyzed\./);
			expect(text).toContain('*Checks newly failing since the last audit*\nnone');
		});
	});

	it('reads a sitemap that is not an index as the only sitemap', async () => {
		server.reset();
		const result = await run(SITEMAP_FILES[0]);

		expect(result.error).toBeUndefined();
		expect(siteRequests()).toEqual([`GET /__site/${SITEMAP_FILES[0]} 200`, `GET /__site/${SITEMAP_FILES[0]} 200`]);
		expect(audited(result)).toEqual(SITE_PAGES.slice(0, 5));
		expect(server.reports().map((report) => report.targetUrl).sort()).toEqual(SITE_PAGES.slice(0, 5).sort());
	});

	it('stops before any report with an error naming a sitemap index listed in the index, which it does not follow', async () => {
		server.reset();
		const result = await run(NESTED_INDEX_FILE);
		const innerIndex = `${new URL(server.url).origin}/__site/sitemap.xml`;

		expect(result.run.data.resultData.lastNodeExecuted).toBe('Its page URLs');
		expect(result.error?.message).toContain(`${innerIndex} is a sitemap index listed in a sitemap index, which is not followed: give Sitemap to audit the inner indexes, one item each, instead of the outer one`);
		expect(siteRequests()).toEqual([NESTED_INDEX_FILE, ...NESTED_INDEX_LISTS].map((file) => `GET /__site/${file} 200`));
		expect(apiRequests(server)).toEqual([]);
	});

	describe('the next audit, after a page changed', () => {
		let before: ReportState[];
		let result: RunResult;
		beforeAll(async () => {
			server.reset();
			await run();
			server.changePage(CHANGED_PAGE, { quality: 0.6 });
			before = server.reports();
			server.clearRequests();
			result = await run();
		});

		it('re-analyzes each report phpRank holds and creates none', () => {
			expect(result.error).toBeUndefined();
			expect(server.reports().map((report) => report.id)).toEqual(before.map((report) => report.id));
			expect(
				result
					.output('Audit page')
					.filter((item) => !item.json.error)
					.map((item) => item.json.outcome),
			).toEqual(livePages.map(() => 'reanalyzed'));
			const writes = apiRequests(server).filter((request) => request.method !== 'GET');
			expect(writes.filter((request) => request.method === 'PUT').map((request) => request.rawPath).sort()).toEqual(
				before.map((report) => `/api/v1/reports/${report.id}`).sort(),
			);
			expect(writes.filter((request) => request.method === 'POST').map((request) => request.status)).toEqual([422]);
		});

		it('lists the checks the changed page newly fails, with its link, and the pages by their new grades', () => {
			const [summary] = summaries(result);
			const changed = server.reports().find((report) => report.targetUrl === CHANGED_PAGE)!;

			expect(summary.text).toBe(siteAuditSummary(server, before, { pages: audited(result), errors: errorsOf(result) }));
			expect(summary.text).toContain(`*Checks newly failing since the last audit*\n• ${CHANGED_PAGE}: `);
			expect(summary.text).toContain(`(high)`);
			expect(summary.text).toContain(`${server.url}/reports/${changed.id}\n*Could not be analyzed*`);
			expect(changed.result).toBeLessThan(before.find((report) => report.id === changed.id)!.result);
		});
	});
});

import type { DataTableRowReturn } from 'n8n-workflow';

import { AUDIT_SITE_ISSUES, startAuditSite, startPhpRankServer } from '../../dev/server';
import type { AuditSite, PhpRankServer } from '../../dev/server';
import { AUDIT_HISTORY_TABLES, auditHistoryTables, checkTitlesOf, issuesByGainOfRows, loadExampleWorkflow, pagesToChange } from '../../dev/examples';
import { runWebhook, runWorkflow } from '../../dev/engine';
import type { InMemoryDataTables } from '../../dev/engine';
import { PHPRANK_CHECK_TITLES } from '../support/phpRankChecks';
import { SITE_ISSUE_IDS, SITE_ISSUES } from '../../nodes/PhpRank/resources/site/siteIssues';

const WORKFLOW_FILE = 'site-health-dashboard.json';
/** The bundled audit site (a page's score depends on its URL, the site's port included). */
const SITE = '127.0.0.1';
/** Its best page, which gets worse between the audits, and its worst, which gets better (pagesToChange). */
let worsePage = '';
let betterPage = '';
const HOSTILE_SITE = `<script>alert("site")</script>'&.example`;
const HOSTILE_URL = `https://x.example/"><img src=x onerror=alert(1)>`;
const DAY_SECONDS = 86_400;
const titles = checkTitlesOf(loadExampleWorkflow(WORKFLOW_FILE));
const checkNameOf = (id: string) => titles[id] ?? id;
const IMPORTANCE = { failedHigh: 'high', failedMedium: 'medium', failedLow: 'low' } as const;

let server: PhpRankServer;
let site: AuditSite;
let tables: InMemoryDataTables;

interface Page {
	status: number;
	headers: Record<string, string>;
	html: string;
}

async function serve(query: Record<string, string> = {}, workflow = loadExampleWorkflow(WORKFLOW_FILE)): Promise<Page> {
	const result = await runWebhook(workflow, { query }, { dataTables: tables });
	expect(result.error).toBeUndefined();
	const { statusCode, headers, body } = result.response ?? {};
	return { status: Number(statusCode), headers: headers as Record<string, string>, html: String(body) };
}

/** Each element of `html` matching the start tag `tag` with a `class`, as its attributes by name. */
function elements(html: string, tag: string, className: string): Array<Record<string, string>> {
	const starts = html.match(new RegExp(`<${tag} class="${className}"[^>]*>`, 'g')) ?? [];
	return starts.map((start) => Object.fromEntries([...start.matchAll(/([\w-]+)="([^"]*)"/g)].map(([, name, value]) => [name, value])));
}
const unescaped = (value: string) => value.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
const section = (html: string, heading: string) => html.split(`<h2>${heading}`)[1].split('</section>')[0];

const runRows = (site = SITE) =>
	tables
		.rows(AUDIT_HISTORY_TABLES.runs.name)
		.filter((row) => row.site === site)
		.sort((a, b) => String(a.runId).localeCompare(String(b.runId)));
const runIds = () => runRows().map((row) => String(row.runId));
const pageRows = (runId: string) => tables.rows(AUDIT_HISTORY_TABLES.pages.name).filter((row) => row.runId === runId && row.site === SITE);
const failing = (row: DataTableRowReturn) =>
	(Object.keys(IMPORTANCE) as Array<keyof typeof IMPORTANCE>).flatMap((column) =>
		String(row[column] ?? '')
			.split(', ')
			.filter(Boolean)
			.map((id) => ({ id, importance: IMPORTANCE[column] })),
	);
const order = (importance: string) => ['high', 'medium', 'low'].indexOf(importance);

/** The checks failing in a run, by pages affected, then importance and title: the first 10 and those tied with the 10th. */
function topChecks(runId: string): Array<{ id: string; pages: number }> {
	const counted = new Map<string, { id: string; importance: string; pages: number }>();
	for (const check of pageRows(runId).flatMap(failing)) {
		const entry = counted.get(check.id) ?? { ...check, pages: 0 };
		entry.pages++;
		counted.set(check.id, entry);
	}
	const sorted = [...counted.values()].sort((a, b) => b.pages - a.pages || order(a.importance) - order(b.importance) || checkNameOf(a.id).localeCompare(checkNameOf(b.id)));
	return sorted.filter((check, index) => index < 10 || check.pages === sorted[9].pages).map(({ id, pages }) => ({ id, pages }));
}

/** Check/page pairs failing in `to` and not in `from`, on pages analyzed in both, as "check page". */
function newPairs(from: string, to: string): string[] {
	const analyzed = (runId: string) => new Map(pageRows(runId).filter((row) => !row.error).map((row) => [String(row.url), failing(row).map((check) => check.id)]));
	const before = analyzed(from);
	return [...analyzed(to)].flatMap(([url, checks]) => (before.has(url) ? checks.filter((id) => !before.get(url)!.includes(id)).map((id) => `${id} ${url}`) : [])).sort();
}
const shownPairs = (html: string, kind: 'new' | 'fixed') =>
	html
		.split(`<li class="${kind}" `)
		.slice(1)
		.flatMap((item) => {
			const check = /data-check="([^"]*)"/.exec(item)![1];
			return elements(item.split('</ul>')[0], 'li', 'url').map((page) => `${check} ${unescaped(page['data-url'])}`);
		})
		.sort();

beforeAll(async () => {
	[server, site] = await Promise.all([startPhpRankServer(), startAuditSite()]);
	tables = auditHistoryTables();
	// Three weekly audits of the bundled audit site into the same tables: the third after one page got worse and one better.
	const audit = async () => {
		const result = await runWorkflow(loadExampleWorkflow('site-audit-offline.json', { server, site }), { credentials: { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } }, dataTables: tables });
		expect(result.error).toBeUndefined();
	};
	await audit();
	await audit();
	const [worse, better] = pagesToChange(server.reports());
	[worsePage, betterPage] = [worse.targetUrl, better.targetUrl];
	for (const page of [worse, better]) server.changePage(page.targetUrl, { quality: page.quality });
	server.ageReports([worse.id, better.id], 7 * DAY_SECONDS);
	await audit();
	// The run rows again, the latest run's first: the page must order the runs itself (n8n 1.x's Get ignores a sort).
	// The page rows keep their IDs, which the run rows name.
	const written = tables;
	tables = auditHistoryTables();
	const rowsOf = (name: string) => written.rows(name).map(({ id: _id, createdAt: _created, updatedAt: _updated, ...row }) => row);
	tables.insert(AUDIT_HISTORY_TABLES.pages.name, rowsOf(AUDIT_HISTORY_TABLES.pages.name));
	const runs = rowsOf(AUDIT_HISTORY_TABLES.runs.name);
	const latest = runs.filter((row) => row.runId === runs.at(-1)!.runId);
	tables.insert(AUDIT_HISTORY_TABLES.runs.name, [...latest, ...runs.filter((row) => !latest.includes(row))]);
	expect(tables.rows(AUDIT_HISTORY_TABLES.pages.name).map((row) => row.id)).toEqual(written.rows(AUDIT_HISTORY_TABLES.pages.name).map((row) => row.id));
	expect(tables.rows(AUDIT_HISTORY_TABLES.runs.name).map((row) => row.runId)).not.toEqual(runRows().map((row) => row.runId));
});
afterAll(async () => await Promise.all([server.close(), site.close()]));

describe('examples/site-health-dashboard.json', () => {
	it('answers GET /webhook/phprank-dashboard behind Basic Auth through Respond to Webhook, reading the runs table and only two runs\' pages', () => {
		const workflow = loadExampleWorkflow(WORKFLOW_FILE);
		const node = (name: string) => workflow.nodes.find((candidate) => candidate.name === name)!;

		expect(node('Dashboard request')).toMatchObject({
			type: 'n8n-nodes-base.webhook',
			parameters: { httpMethod: 'GET', path: 'phprank-dashboard', authentication: 'basicAuth', responseMode: 'responseNode' },
			credentials: { httpBasicAuth: expect.objectContaining({ name: 'phpRank dashboard login' }) },
		});
		const reads = workflow.nodes.filter((candidate) => candidate.type === 'n8n-nodes-base.dataTable').map(({ name, parameters }) => [name, parameters]);
		expect(reads).toEqual([
			['Read all runs', expect.objectContaining({ operation: 'get', dataTableId: expect.objectContaining({ value: AUDIT_HISTORY_TABLES.runs.name }) })],
			['Read site runs', expect.objectContaining({ operation: 'get', dataTableId: expect.objectContaining({ value: AUDIT_HISTORY_TABLES.runs.name }) })],
			['Read their pages', expect.objectContaining({ operation: 'get', dataTableId: expect.objectContaining({ value: AUDIT_HISTORY_TABLES.pages.name }), matchType: 'allConditions' })],
		]);
		expect((node('Read their pages').parameters.filters as { conditions: Array<{ keyName: string; condition: string }> }).conditions.map(({ keyName, condition }) => `${keyName} ${condition}`)).toEqual([
			'runId eq',
			'site eq',
			'id gte',
			'id lte',
		]);
	});

	it("names the checks as phpRank 1.5's report page does, all 33 and no other", () => {
		expect(titles).toEqual(PHPRANK_CHECK_TITLES);
	});

	describe('a site', () => {
		let page: Page;
		beforeAll(async () => {
			page = await serve({ site: SITE });
		});

		it('is one HTML page that loads nothing from elsewhere (its policy in its head, first) and fits a phone', () => {
			expect(page.status).toBe(200);
			expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
			// n8n replaces a webhook's Content-Security-Policy header with its own: the page carries its policy.
			expect(page.headers['content-security-policy']).toBeUndefined();
			expect(page.headers['x-frame-options']).toBe('DENY');
			expect(page.html).toMatch(/^<!DOCTYPE html>/);
			expect(page.html.split('<head>')[1]).toMatch(
				/^<meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'">/,
			);
			expect(page.html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
			expect(page.html).not.toMatch(/<script|<link|<img|@import|url\(|\ssrc=/i);
			expect(page.html).toMatch(/<svg viewBox="0 0 \d+ \d+" width="100%"/);
		});

		it("charts the site's average score per run, each point the runs table's row", () => {
			const points = elements(page.html, 'circle', 'point[^"]*');

			expect(runRows()).toHaveLength(3);
			expect(points.map((point) => [point['data-run'], Number(point['data-score'])])).toEqual(runRows().map((row) => [row.runId, row.averageScore]));
			// The third audit scored otherwise: a higher score is higher on the chart (a smaller y).
			expect(Number(points[2]['data-score'])).not.toBe(Number(points[1]['data-score']));
			const byScore = [...points].sort((a, b) => Number(a['data-score']) - Number(b['data-score']));
			expect(byScore.map((point) => Number(point.cy))).toEqual(byScore.map((point) => Number(point.cy)).sort((a, b) => b - a));
		});

		it('shows pages by grade for each run, newest first', () => {
			const rows = elements(page.html, 'tr', 'run');
			expect(rows.map((row) => [row['data-run'], row['data-good'], row['data-decent'], row['data-bad']])).toEqual(
				[...runRows()].reverse().map((row) => [row.runId, String(row.good), String(row.decent), String(row.bad)]),
			);
		});

		it('lists the checks failing on most pages of the latest run with their pages affected, by the titles phpRank gives them', () => {
			const html = section(page.html, 'Checks failing on most pages');
			const checks = elements(html, 'tr', 'check');

			expect(checks.map((row) => ({ id: row['data-check'], pages: Number(row['data-pages']) }))).toEqual(topChecks(runIds()[2]));
			for (const { id } of topChecks(runIds()[2])) expect(html).toContain(`data-check="${id}" data-pages="`);
			expect(html).toContain(`<td>${checkNameOf(checks[0]['data-check'])}</td>`);
			expect(html).not.toMatch(/<td>[a-z0-9]+_[a-z_]+<\/td>/);
		});

		it('ranks the failing checks of the latest run by the average score the site would gain if each were fixed on every page, those worth nothing last', () => {
			const html = section(page.html, 'Top issues by what fixing them is worth');
			const issues = issuesByGainOfRows(pageRows(runIds()[2]), titles);
			const worth = issues.filter((issue) => Math.round(issue.gain * 10) > 0);
			const shown = worth.filter((issue, index) => index < 10 || Math.round(issue.gain * 10) === Math.round(worth[9].gain * 10));

			expect(elements(html, 'tr', 'worth').map((row) => [row['data-check'], row['data-gain'], Number(row['data-pages'])])).toEqual(
				shown.map((issue) => [issue.id, issue.gain.toFixed(1), issue.pages]),
			);
			expect(html).toContain(`<td>${checkNameOf(shown[0].id)}</td><td>${shown[0].importance}</td><td class="n">+${shown[0].gain.toFixed(1)}</td>`);
			if (worth.length > shown.length) expect(html).toContain(`<p>and ${worth.length - shown.length} more worth less</p>`);
			// phpRank's points by default: a low-importance check is worth none.
			const nothing = issues.filter((issue) => Math.round(issue.gain * 10) === 0);
			expect(nothing.length).toBeGreaterThan(0);
			expect(nothing.every((issue) => issue.importance === 'low')).toBe(true);
			expect(html).toContain(
				`<p class="worthless">Worth no points, fixing them leaves the score as it is: ${nothing.map((issue) => `${issue.title} (low, ${issue.pages} page${issue.pages === 1 ? '' : 's'})`).join(', ')}</p>`,
			);
		});

		it("ranks by the points set in POINTS, at the top of Compare the runs' code, when phpRank's operator changed them", async () => {
			const points = { high: 3, medium: 5, low: 1 };
			const workflow = loadExampleWorkflow(WORKFLOW_FILE);
			const compare = workflow.nodes.find((node) => node.name === 'Compare the runs')!;
			const code = String(compare.parameters.jsCode);
			expect(code).toContain('const POINTS = { high: 10, medium: 5, low: 0 };');
			compare.parameters.jsCode = code.replace('const POINTS = { high: 10, medium: 5, low: 0 };', `const POINTS = ${JSON.stringify(points)};`);
			const html = section((await serve({ site: SITE }, workflow)).html, 'Top issues by what fixing them is worth');
			const worth = issuesByGainOfRows(pageRows(runIds()[2]), titles, points);

			expect(elements(html, 'tr', 'worth').map((row) => [row['data-check'], row['data-gain']])).toEqual(
				worth.filter((issue, index) => index < 10 || Math.round(issue.gain * 10) === Math.round(worth[9].gain * 10)).map((issue) => [issue.id, issue.gain.toFixed(1)]),
			);
			expect(html).not.toContain('Worth no points');
		});

		it('lists the broken links of the latest run with the pages and anchor texts linking to them, and its orphans', () => {
			const at = (pathname: string) => `${site.url}${pathname}`;
			const html = section(page.html, 'Broken links');
			const linking = html
				.split('<tr class="broken" ')
				.slice(1)
				.map((row) => [unescaped(/data-url="([^"]*)"/.exec(row)![1]), [...row.matchAll(/<li class="from" data-url="([^"]*)">[^<]*“([^”]*)”<\/li>/g)].map(([, url, text]) => `${unescaped(url)} ${unescaped(text)}`)]);

			expect(elements(html, 'tr', 'broken').map((row) => [row['data-url'], row['data-status'], row['data-inlinks']])).toEqual([
				[at('/docs/missing.html'), '404', '3'],
				[at('/gone.html'), '410', '3'],
			]);
			expect(linking).toEqual([
				[at('/docs/missing.html'), [`${at('/docs/intro.html')} Missing chapter`, `${at('/docs/next.html')} Read on`, `${at('/indexing/nofollow.html')} Old chapter`]],
				[at('/gone.html'), [`${at('/about.html')} Gone`, `${at('/docs/next.html')} Old offer`, `${at('/docs/deep/three.html')} Archive`]],
			]);
			expect(elements(section(page.html, 'Orphan pages'), 'li', 'orphan url').map((item) => item['data-url'])).toEqual([at('/orphan.html')]);
		});

		it('lists the issues new and fixed since the run before: each check with the pages it newly fails or passes on', () => {
			const [, second, third] = runIds();
			const html = section(page.html, 'New and fixed issues');

			expect(shownPairs(html, 'new')).toEqual(newPairs(second, third));
			expect(shownPairs(html, 'fixed')).toEqual(newPairs(third, second));
			expect(shownPairs(html, 'new').some((pair) => pair.endsWith(worsePage))).toBe(true);
			expect(shownPairs(html, 'fixed').some((pair) => pair.endsWith(betterPage))).toBe(true);
		});

		it("lists the 10 worst pages of the latest run with links to their phpRank reports", () => {
			const html = section(page.html, 'Worst pages');
			// The URLs found but not analyzed (broken targets, redirects) have no score.
			const expected = pageRows(runIds()[2])
				.filter((row) => !row.error && row.score !== null)
				.sort((a, b) => Number(a.score) - Number(b.score) || String(a.url).localeCompare(String(b.url)))
				.slice(0, 10);

			expect(elements(html, 'tr', 'page').map((row) => [unescaped(row['data-url']), Number(row['data-page-score'])])).toEqual(expected.map((row) => [row.url, row.score]));
			for (const row of expected) {
				expect(String(row.reportUrl)).toBe(`${server.url}/reports/${String(row.reportId)}`);
				expect(html).toContain(`<a href="${String(row.reportUrl)}">report</a>`);
			}
		});

		it('offers a compare of any two runs: a form of two selects sent with GET, the latest and the one before chosen', () => {
			const [, second, third] = runIds();
			const form = page.html.split('<form')[1].split('</form>')[0];

			expect(form).toMatch(/^ method="get"/);
			expect(form).toContain(`<input type="hidden" name="site" value="${SITE}">`);
			expect(form.split('<select name="from">')[1].split('</select>')[0]).toContain(`<option value="${second}" selected>`);
			expect(form.split('<select name="to">')[1].split('</select>')[0]).toContain(`<option value="${third}" selected>`);
			expect((form.match(/<option /g) ?? []).length).toBe(2 * 3);
		});
	});

	describe('the compare of two runs', () => {
		it('the first and the latest: their scores, the issues new and fixed between them, the latest run\'s checks and pages', async () => {
			const [first, second, third] = runIds();
			const page = await serve({ site: SITE, from: first, to: third });
			const summary = elements(page.html, 'p', 'summary')[0];

			expect(page.status).toBe(200);
			expect([summary['data-from'], summary['data-to']]).toEqual([first, third]);
			expect(shownPairs(page.html, 'new')).toEqual(newPairs(first, third));
			expect(shownPairs(page.html, 'fixed')).toEqual(newPairs(third, first));
			expect(elements(page.html, 'tr', 'check').map((row) => ({ id: row['data-check'], pages: Number(row['data-pages']) }))).toEqual(topChecks(third));
			// The chart still shows every run; the two compared are marked.
			expect(elements(page.html, 'circle', 'point[^"]*').map((point) => point.class)).toEqual(['point compared', 'point', 'point compared']);
			expect(second).not.toBe(first);
		});

		it('backwards, the latest against the first: what was new is fixed, and the first run\'s checks are listed', async () => {
			const [first, , third] = runIds();
			const page = await serve({ site: SITE, from: third, to: first });

			expect(shownPairs(page.html, 'fixed')).toEqual(newPairs(first, third));
			expect(elements(page.html, 'tr', 'check').map((row) => ({ id: row['data-check'], pages: Number(row['data-pages']) }))).toEqual(topChecks(first));
		});

		it('a run that is not stored: says so and shows the latest run against the one before', async () => {
			const [, second, third] = runIds();
			const page = await serve({ site: SITE, from: '2020-01-01T00:00:00.000Z' });
			const summary = elements(page.html, 'p', 'summary')[0];

			expect(page.html).toContain('<p class="notice">No run 2020-01-01T00:00:00.000Z of this site is stored');
			expect([summary['data-from'], summary['data-to']]).toEqual([second, third]);
		});
	});

	describe('site issues', () => {
		const shownIssues = (html: string) => elements(section(html, 'Site issues'), 'tr', 'site-issue');
		const firstUrls = (html: string, id: string) =>
			elements(section(html, 'Site issues').split(`data-issue="${id}"`)[1].split('</tr>')[0], 'li', 'url').map((item) => new URL(unescaped(item['data-url'])).pathname);

		it("the newest run's, by severity, each with its count from the run row and its first URLs from the page rows; unchanged since the run before", async () => {
			const page = await serve({ site: SITE });
			const rows = shownIssues(page.html);
			const expected = SITE_ISSUE_IDS.filter((id) => id in AUDIT_SITE_ISSUES);

			expect(rows.map((row) => [row['data-issue'], row['data-severity'], Number(row['data-urls'])])).toEqual(
				expected.map((id) => [id, SITE_ISSUES[id], Object.keys(AUDIT_SITE_ISSUES[id]).length]),
			);
			const latest = JSON.parse(String(runRows().at(-1)!.siteIssues)) as Record<string, number>;
			expect(rows.map((row) => Number(row['data-urls']))).toEqual(expected.map((id) => latest[id]));
			for (const id of expected) expect(firstUrls(page.html, id)).toEqual(Object.keys(AUDIT_SITE_ISSUES[id]).sort().slice(0, 10));
			// The same issues a week before: no change shown, nothing fixed.
			expect(section(page.html, 'Site issues').match(/<td class="n">(new|[+\u2212]\d+)<\/td>/g)).toBeNull();
			expect(page.html).not.toContain('fixed-site-issue');
		});

		it('against an older run with other counts: new, more, fewer and fixed; a run written before site issues shows no change', async () => {
			const written = tables;
			const older = '2026-01-05T06:00:00.000Z';
			const before = { broken_link: 1, duplicate_title: 5, large_page: 3 };
			tables = auditHistoryTables();
			for (const { name } of Object.values(AUDIT_HISTORY_TABLES)) tables.insert(name, written.rows(name).map(({ id: _id, createdAt: _created, updatedAt: _updated, ...row }) => row));
			tables.insert(AUDIT_HISTORY_TABLES.runs.name, [
				{ runId: older, runAt: new Date(older), site: SITE, pages: 12, averageScore: 50, good: 0, decent: 6, bad: 6, notAnalyzed: 2, siteIssues: JSON.stringify(before) },
				{ runId: '2026-01-12T06:00:00.000Z', runAt: new Date('2026-01-12T06:00:00.000Z'), site: SITE, pages: 12, averageScore: 50, good: 0, decent: 6, bad: 6, notAnalyzed: 2 },
			]);
			try {
				const page = await serve({ site: SITE, from: older, to: runIds().at(-1)! });
				const change = (id: string) => section(page.html, 'Site issues').split(`data-issue="${id}"`)[1].split('</tr>')[0].split('<td class="n">')[2].split('</td>')[0];

				expect([change('broken_link'), change('duplicate_title'), change('orphan_page')]).toEqual(['+1', '\u22123', 'new']);
				expect(elements(page.html, 'span', 'fixed-site-issue').map((item) => item['data-issue'])).toEqual(['large_page']);
				expect(page.html).toContain('Large pages (over 2 MB) (3 URLs then)');
				const unsaved = await serve({ site: SITE, from: '2026-01-12T06:00:00.000Z', to: runIds().at(-1)! });
				expect(section(unsaved.html, 'Site issues')).not.toContain('<th class="n">Change</th>');
			} finally {
				tables = written;
			}
		});
	});

	describe('the list of sites', () => {
		it('without ?site=: each site with its last run, linked to its page', async () => {
			const page = await serve();
			const [latest] = runRows().slice(-1);

			expect(page.status).toBe(200);
			expect(elements(page.html, 'tr', 'site').map((row) => row['data-site'])).toEqual([SITE]);
			expect(page.html).toContain(`<a href="?site=${SITE}">${SITE}</a>`);
			expect(page.html).toContain(`<td class="n">${String(latest.averageScore)}</td><td class="n">${String(latest.pages)}</td><td class="n">3</td>`);
		});

		it('a site without runs: the list, with status 404 and a notice naming it', async () => {
			const page = await serve({ site: 'unknown.example' });

			expect(page.status).toBe(404);
			expect(page.html).toContain('<p class="notice">No audit of <b>unknown.example</b> is stored');
			expect(elements(page.html, 'tr', 'site')).toHaveLength(1);
		});

		it('no audit stored yet: says to run the site audit first', async () => {
			const kept = tables;
			tables = auditHistoryTables();
			try {
				const page = await serve();
				expect(page.status).toBe(200);
				expect(page.html).toContain('No audits are stored yet: run the site audit workflow first');
			} finally {
				tables = kept;
			}
		});
	});

	describe("a run's page rows read by the IDs its run row names", () => {
		const runId = '2026-11-30T06:00:00.000Z';
		const SITE = 'interleaved.example';
		const OTHER = 'other.example';
		const page = (site: string, index: number) => ({ runId, runAt: runId, site, url: `https://${site}/page-${index}`, score: 50 + index, grade: 'decent', reportId: index + 1, reportUrl: `https://phprank.example/report/${index + 1}` });
		let kept: InMemoryDataTables;
		beforeAll(() => {
			kept = tables;
			tables = auditHistoryTables();
			// Another audit's rows written between this run's: 6 URLs, first ID 1, so its run row names 1 to 6, and its last
			// two rows got IDs 9 and 10 (two audits saving at the same moment on PostgreSQL).
			tables.insert(AUDIT_HISTORY_TABLES.pages.name, [0, 1, 2, 3].map((index) => page(SITE, index)));
			tables.insert(AUDIT_HISTORY_TABLES.pages.name, [0, 1, 2, 3].map((index) => page(OTHER, index)));
			tables.insert(AUDIT_HISTORY_TABLES.pages.name, [4, 5].map((index) => page(SITE, index)));
			tables.insert(AUDIT_HISTORY_TABLES.runs.name, [
				{ runId, runAt: runId, site: SITE, pages: 6, averageScore: 52.5, good: 0, decent: 6, bad: 0, notAnalyzed: 0, firstPageRowId: 1, lastPageRowId: 6 },
				{ runId, runAt: runId, site: OTHER, pages: 4, averageScore: 51.5, good: 0, decent: 4, bad: 0, notAnalyzed: 0, firstPageRowId: 5, lastPageRowId: 8 },
			]);
		});
		afterAll(() => {
			tables = kept;
		});

		it('reads only the rows within them: the other site\'s page shows its 4 URLs, its page rows asked for by ID from 5 to 8', async () => {
			const readsBefore = tables.reads.length;
			const other = await serve({ site: OTHER });

			const pageReads = tables.reads.slice(readsBefore).filter((read) => read.table === AUDIT_HISTORY_TABLES.pages.name);
			expect(pageReads.map((read) => read.filter?.filters.filter((condition) => condition.columnName === 'id').map(({ condition, value }) => [condition, value]))).toEqual([
				[
					['gte', 5],
					['lte', 8],
				],
			]);
			expect(elements(other.html, 'tr', 'page').map((row) => unescaped(row['data-url'])).sort()).toEqual([0, 1, 2, 3].map((index) => `https://${OTHER}/page-${index}`));
			expect(other.html).not.toContain('class="notice"');
		});

		it('rows outside them: the page says how many of the run\'s URLs it shows, not passing the rest over', async () => {
			const interleaved = await serve({ site: SITE });

			expect(elements(interleaved.html, 'tr', 'page').map((row) => unescaped(row['data-url'])).sort()).toEqual([0, 1, 2, 3].map((index) => `https://${SITE}/page-${index}`));
			expect(interleaved.html).toContain(`The run of ${runId} shows 4 of its 6 URLs: the others were saved outside the row IDs its run row names`);
		});
	});

	describe('values from the tables are escaped', () => {
		const runId = '2026-11-30T06:00:00.000Z';
		beforeAll(() => {
			tables.insert(AUDIT_HISTORY_TABLES.runs.name, [{ runId, runAt: runId, site: HOSTILE_SITE, pages: 1, averageScore: 12, good: 0, decent: 0, bad: 1, notAnalyzed: 0 }]);
			tables.insert(AUDIT_HISTORY_TABLES.pages.name, [
				{ runId, runAt: runId, site: HOSTILE_SITE, url: HOSTILE_URL, score: 12, grade: 'bad"><b>', failedHigh: '<i>new_check</i>', reportId: 1, reportUrl: 'javascript:alert(1)' },
				{ runId, runAt: runId, site: HOSTILE_SITE, url: `${HOSTILE_URL}/gone`, status: 404, inlinks: 1, broken: true, linkedFrom: JSON.stringify([{ url: HOSTILE_URL, text: '<img src=x onerror=alert(1)>' }]) },
				{ runId, runAt: runId, site: HOSTILE_SITE, url: `${HOSTILE_URL}/alone`, orphan: true },
			]);
		});
		afterAll(() => {
			tables = auditHistoryTables();
		});

		it("a hostile site name, page URL, grade, check id and report link: shown as text, never as markup, the link left out", async () => {
			const list = await serve();
			const page = await serve({ site: HOSTILE_SITE });
			const markup = /<script|<img|<i>|<b>"|javascript:|onerror=alert\(1\)>/;

			expect(list.html).not.toMatch(markup);
			expect(list.html).toContain(`<a href="?site=${encodeURIComponent(HOSTILE_SITE).replace(/'/g, '&#39;')}">&lt;script&gt;alert(&quot;site&quot;)&lt;/script&gt;&#39;&amp;.example</a>`);
			expect(page.status).toBe(200);
			expect(page.html).not.toMatch(markup);
			expect(page.html).toContain('<h1>&lt;script&gt;alert(&quot;site&quot;)&lt;/script&gt;&#39;&amp;.example</h1>');
			expect(page.html).toContain('https://x.example/&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
			expect(page.html).toContain('<td>&lt;i&gt;new check&lt;/i&gt;</td>');
			expect(elements(page.html, 'tr', 'page')).toHaveLength(1);
			expect(page.html).not.toContain('>report</a>');
			expect(elements(page.html, 'tr', 'broken').map((row) => unescaped(row['data-url']))).toEqual([`${HOSTILE_URL}/gone`]);
			expect(page.html).toContain('“&lt;img src=x onerror=alert(1)&gt;”');
			expect(elements(page.html, 'li', 'orphan url').map((item) => unescaped(item['data-url']))).toEqual([`${HOSTILE_URL}/alone`]);
		});

		it('a site with one run: its chart point, nothing to compare with yet', async () => {
			const page = await serve({ site: HOSTILE_SITE });

			expect(elements(page.html, 'circle', 'point[^"]*').map((point) => [point['data-run'], point['data-score']])).toEqual([[runId, '12']]);
			expect(page.html).toContain('The first run: nothing to compare with yet.');
		});
	});
});

import { startAuditSite, startPhpRankServer } from '../../dev/server';
import type { AuditSite, PhpRankServer } from '../../dev/server';
import { AUDIT_HISTORY_TABLES, auditHistoryTables, checkTitlesOf, emailsAsItems, loadExampleWorkflow, monthlyReportText, pagesToChange, siteIssueSeverities, siteIssueTitles } from '../../dev/examples';
import { AUDIT_SITE_ISSUES } from '../../dev/server';
import { runWorkflow } from '../../dev/engine';
import type { InMemoryDataTables, RunResult, WorkflowFixture } from '../../dev/engine';
import { PHPRANK_CHECK_TITLES } from '../support/phpRankChecks';
import { SITE_ISSUE_IDS, SITE_ISSUES } from '../../nodes/PhpRank/resources/site/siteIssues';

const FILE = 'monthly-client-report.json';
const DASHBOARD = 'https://n8n.example.com/webhook/phprank-dashboard';
const SITE = '127.0.0.1';
/** The three audits' times: two in October, the last in November; the report runs on December 1st. */
const RUN_TIMES = ['2026-10-05T06:00:00.000Z', '2026-10-26T06:00:00.000Z', '2026-11-23T06:00:00.000Z'];
const REPORT_TIME = '2026-12-01T08:00:00.000+00:00';
/** A site whose name needs escaping in HTML, audited in November only, its page's URL one phpRank stores. */
const OTHER_SITE = `tea&co's <b>"shop"</b>.example`;
const ODD_URL = "https://tea.example/search?q=%3Cb%3Ecold%3C/b%3E&who=it's";
/** Sites audited in November too: one without a client, one whose client's address the mail server refuses. */
const NO_CLIENT_SITE = 'archive.example';
const REFUSED_SITE = 'bakery.example';
const REFUSED = 'nobody@bakery.example';
const CLIENTS = { [SITE]: 'owner@brewshop.example', [OTHER_SITE]: 'tea@tea.example', [REFUSED_SITE]: REFUSED };
const TRIGGER = 'On the 1st at 08:00';

let server: PhpRankServer;
let site: AuditSite;
let history: InMemoryDataTables;
let report: RunResult;

const setting = (workflow: WorkflowFixture, name: string) =>
	(workflow.nodes.find((node) => node.name === 'Report settings')!.parameters.assignments as { assignments: Array<{ name: string; value: unknown }> }).assignments.find(
		(assignment) => assignment.name === name,
	)!;

type Row = Parameters<InMemoryDataTables['insert']>[1][number];

/** The site audit run as it is, its rows moved to `runAt` as if it had run then. */
async function auditAt(runAt: string): Promise<Record<string, Row[]>> {
	const tables = auditHistoryTables();
	const result = await runWorkflow(loadExampleWorkflow('site-audit-offline.json', { server, site }), {
		credentials: { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } },
		dataTables: tables,
	});
	expect(result.error).toBeUndefined();
	return Object.fromEntries(
		Object.values(AUDIT_HISTORY_TABLES).map(({ name }) => [
			name,
			tables.rows(name).map(({ id: _id, createdAt: _created, updatedAt: _updated, ...row }) => ({ ...row, runId: runAt, runAt: new Date(runAt) }) as Row),
		]),
	);
}

/** A run of one page of `site`, written straight into the tables. */
function onePageRun(site: string, url: string, score: number): void {
	const runId = RUN_TIMES[2];
	history.insert(AUDIT_HISTORY_TABLES.runs.name, [{ runId, runAt: new Date(runId), site, pages: 1, averageScore: score, good: 0, decent: 0, bad: 1, notAnalyzed: 0 }]);
	history.insert(AUDIT_HISTORY_TABLES.pages.name, [
		{ runId, runAt: new Date(runId), site, url, score, grade: 'bad', failedHigh: 'meta_description', failedMedium: 'charset', failedLow: 'defer_javascript', reportId: 99, reportUrl: `${server.url}/reports/99?a=1&b=2`, error: null },
	]);
}

/** The report run in the engine as of `time` (the schedule's output), its e-mails made items, `refused` refused. */
async function runReport({
	clients = CLIENTS as Record<string, string>,
	time = REPORT_TIME,
	keepOnError = true,
	points = undefined as Record<string, number> | undefined,
	dataTables = undefined as InMemoryDataTables | undefined,
} = {}): Promise<RunResult> {
	const workflow = emailsAsItems(loadExampleWorkflow(FILE), { refused: [REFUSED] });
	setting(workflow, 'clients').value = `={{ ${JSON.stringify(clients)} }}`;
	if (points) setting(workflow, 'points').value = `={{ ${JSON.stringify(points)} }}`;
	const nodes = keepOnError ? workflow.nodes : workflow.nodes.map((node) => (node.name === 'Send e-mail' ? { ...node, onError: undefined } : node));
	return await runWorkflow({ ...workflow, nodes, pinData: { [TRIGGER]: [{ json: { timestamp: time } }] } }, { dataTables: dataTables ?? history });
}

const emails = () => report.output('Send e-mail').map((item) => item.json as Record<string, string>);
const emailTo = (address: string) => emails().find((email) => email.to === address)!;
const tables = () => ({ runs: history.rows(AUDIT_HISTORY_TABLES.runs.name), pages: history.rows(AUDIT_HISTORY_TABLES.pages.name) });
const unescape = (html: string) => html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
const titles = checkTitlesOf(loadExampleWorkflow(FILE));
const plural = (count: number, word: string) => `${count} ${count === 1 ? word : `${word}s`}`;
/** The lines of the text part's site issues: its heading's line and those after it to the blank line. */
const siteIssueSection = (text: string) => text.split('\n\nSite issues: ')[1].split('\n\n')[0].split('\n');
const expectedText = (site: string) => monthlyReportText(tables(), { site, monthStart: '2026-11-01T00:00:00.000Z', dashboardUrl: DASHBOARD, titles });

beforeAll(async () => {
	[server, site] = await Promise.all([startPhpRankServer(), startAuditSite()]);
	history = auditHistoryTables();

	const audits = [await auditAt(RUN_TIMES[0]), await auditAt(RUN_TIMES[1])];
	// A month on: the site's best page got worse and its worst better, both re-analyzed (a page's score depends on its
	// URL, the site's port included: pagesToChange picks them from the reports).
	const changed = pagesToChange(server.reports());
	for (const page of changed) server.changePage(page.targetUrl, { quality: page.quality });
	server.ageReports(
		changed.map((page) => page.id),
		30 * 86_400,
	);
	audits.push(await auditAt(RUN_TIMES[2]));
	// Rows in an order that is not the runs': the report must order the runs itself (n8n 1.x's Get ignores a sort).
	for (const audit of [audits[2], audits[0], audits[1]]) for (const [name, rows] of Object.entries(audit)) history.insert(name, rows);
	onePageRun(OTHER_SITE, ODD_URL, 40);
	onePageRun(NO_CLIENT_SITE, 'https://archive.example/', 30);
	onePageRun(REFUSED_SITE, 'https://bakery.example/', 35);

	report = await runReport();
});
afterAll(async () => await Promise.all([server.close(), site.close()]));

describe('examples/monthly-client-report.json', () => {
	it('is sent on the 1st of each month at 08:00 through Send Email, with an HTML and a text part, each e-mail failing alone', () => {
		const workflow = loadExampleWorkflow(FILE);
		const send = workflow.nodes.find((node) => node.name === 'Send e-mail')!;

		expect(workflow.nodes[workflow.nodes.findIndex((node) => node.type === 'n8n-nodes-base.scheduleTrigger')].parameters).toEqual({
			rule: { interval: [{ field: 'months', triggerAtDayOfMonth: 1, triggerAtHour: 8 }] },
		});
		expect(send).toMatchObject({ type: 'n8n-nodes-base.emailSend', parameters: { emailFormat: 'both' }, onError: 'continueRegularOutput' });
		expect(setting(workflow, 'dashboardUrl').value).toBe(DASHBOARD);
	});

	it("titles the checks as phpRank 1.5's report page does, all 33 and no other", () => {
		expect(titles).toEqual(PHPRANK_CHECK_TITLES);
	});

	it("one e-mail per site audited in the month that has a client; the address the mail server refuses fails alone, the others still go", () => {
		expect(report.error).toBeUndefined();
		expect(emails().map((email) => email.error ?? [email.to, email.from])).toEqual([
			['owner@brewshop.example', 'SEO reports <seo@agency.example>'],
			expect.stringContaining(`Can't send mail - all recipients were rejected: 550 5.1.1 <${REFUSED}>: Recipient address rejected`),
			['tea@tea.example', 'SEO reports <seo@agency.example>'],
		]);
	});

	it("the run's output names the month, the e-mails sent, the one that failed and the site skipped for want of a client", () => {
		const [outcome] = report.output('What was sent').map((item) => item.json);

		expect(report.executedNodes.at(-1)).toBe('What was sent');
		expect(outcome).toEqual({
			month: 'November 2026',
			summary:
				`November 2026: 2 e-mails sent, 1 failed (${REFUSED_SITE} to ${REFUSED}: ${emails()[1].error}), ` +
				`1 site skipped (${NO_CLIENT_SITE}: no client address in Report settings).`,
			sent: [
				{ site: SITE, to: 'owner@brewshop.example' },
				{ site: OTHER_SITE, to: 'tea@tea.example' },
			],
			failed: [{ site: REFUSED_SITE, to: REFUSED, error: emails()[1].error }],
			skipped: [{ site: NO_CLIENT_SITE, reason: 'no client address in Report settings' }],
		});
	});

	it('stops at the refused address when Send e-mail stops on an error, as n8n\'s Send Email does: the emails after it are not sent', async () => {
		const stopped = await runReport({ keepOnError: false });

		expect(stopped.error?.message).toContain('all recipients were rejected');
		expect(stopped.executedNodes).not.toContain('What was sent');
	});

	it("the text part: November's last audit against October's last, from the Data tables in whatever order they hold them, checks by their titles", () => {
		const email = emailTo('owner@brewshop.example');
		const runs = tables().runs.filter((run) => run.site === SITE).sort((a, b) => String(a.runId).localeCompare(String(b.runId)));
		const [, october, november] = runs;
		const change = Math.round((Number(november.averageScore) - Number(october.averageScore)) * 10) / 10;

		expect(tables().runs.filter((run) => run.site === SITE).map((run) => run.runId)).not.toEqual(runs.map((run) => run.runId));
		expect(email.text).toBe(expectedText(SITE));
		expect(email.subject).toBe(`SEO report for ${SITE}, November 2026: average score ${Number(november.averageScore).toFixed(1)} (${change > 0 ? '+' : change < 0 ? '\u2212' : '\u00b1'}${Math.abs(change).toFixed(1)})`);
		expect(email.text).toContain(`since October (${Number(october.averageScore).toFixed(1)})`);
		// The changed page fails checks it passed; the better one passes checks it failed.
		expect(email.text.split('\nNew since October\n')[1].split('\n\n')[0]).toMatch(/^- [A-Z0-9]/);
		expect(email.text.split('\nFixed since October\n')[1].split('\n\n')[0]).toMatch(/^- [A-Z0-9]/);
		expect(email.text).not.toMatch(/[a-z]_[a-z]|404_page/);
		expect(email.text).toContain(`Your dashboard: ${DASHBOARD}?site=${SITE}`);
	});

	it("lists the site's broken links of the month's last audit with the pages and anchor texts linking to them", () => {
		const text = emailTo('owner@brewshop.example').text;
		const at = (pathname: string) => `${site.url}${pathname}`;

		expect(text).toContain(
			`\nBroken links\n- ${at('/gone.html')} (410) linked from ${at('/about.html')} "Gone", ${at('/docs/next.html')} "Old offer", ${at('/docs/deep/three.html')} "Archive"\n` +
				`- ${at('/docs/missing.html')} (404) linked from ${at('/docs/intro.html')} "Missing chapter", ${at('/docs/next.html')} "Read on", ${at('/indexing/nofollow.html')} "Old chapter"\n\n`,
		);
		expect(emailTo('tea@tea.example').text).toContain('\nBroken links\nnone\n');
	});

	it('ranks the issues by the average score gained if each were fixed on every page, the checks worth no points last and saying so', () => {
		const issues = emailTo('owner@brewshop.example').text.split('average score gained if fixed on every page)\n')[1].split('\n\n')[0].split('\n');
		const gains = issues.flatMap((line) => (/^- [^(]+ \((high|medium)\): \+(\d+\.\d), \d+ pages?$/.exec(line) ? [Number(/\+(\d+\.\d)/.exec(line)![1])] : []));

		expect(gains.length).toBe(5);
		expect(gains).toEqual([...gains].sort((a, b) => b - a));
		expect(issues.at(-1)).toMatch(/^- Worth no points, fixing them leaves the score as it is: .*\(low, \d+ pages?\)$/);
		// One page failing a high, a medium and a low check: 10 and 5 of phpRank's 175 points.
		expect(emailTo('tea@tea.example').text).toContain(
			'- Meta description (high): +5.7, 1 page\n- Character set (medium): +2.9, 1 page\n- Worth no points, fixing them leaves the score as it is: JavaScript defer (low, 1 page)\n',
		);
	});

	it("ranks them by the points set in Report settings when phpRank's operator changed them", async () => {
		const points = { high: 3, medium: 5, low: 1 };
		const workflow = loadExampleWorkflow(FILE);
		expect(setting(workflow, 'points').value).toBe('={{ { "high": 10, "medium": 5, "low": 0 } }}');
		const changed = await runReport({ points });
		const tea = changed.output('Send e-mail').map((item) => item.json as Record<string, string>).find((email) => email.to === 'tea@tea.example')!;

		// 3, 5 and 1 of 11 × 3 + 13 × 5 + 9 × 1 = 107 points.
		expect(tea.text).toContain('- Character set (medium): +4.7, 1 page\n- Meta description (high): +2.8, 1 page\n- JavaScript defer (low): +0.9, 1 page\n');
		const text = changed.output('Send e-mail').map((item) => item.json as Record<string, string>).find((email) => email.to === 'owner@brewshop.example')!.text;
		expect(text).toBe(monthlyReportText(tables(), { site: SITE, monthStart: '2026-11-01T00:00:00.000Z', dashboardUrl: DASHBOARD, titles, points }));
	});

	it('a site without a run the month before says so; its name and URL show literally in the text part', () => {
		const email = emailTo('tea@tea.example');

		expect(email.text).toBe(expectedText(OTHER_SITE));
		expect(email.text).toContain('Average score 40.0: no run in October to compare with');
		expect(email.text).toContain(`SEO report for ${OTHER_SITE}, November 2026`);
		expect(email.text).toContain(`- ${ODD_URL}: 40/100 (bad)`);
		expect(email.subject).toBe(`SEO report for ${OTHER_SITE}, November 2026: average score 40.0`);
	});

	it("carries each site issue's severity as Site > Audit gives it (a warning unless named)", () => {
		const severities = siteIssueSeverities();
		expect(SITE_ISSUE_IDS.map((id) => [id, severities[id] ?? 'warning'])).toEqual(SITE_ISSUE_IDS.map((id) => [id, SITE_ISSUES[id]]));
		expect(Object.keys(severities).filter((id) => !(SITE_ISSUE_IDS as string[]).includes(id))).toEqual([]);
	});

	it("shows the site issues of the month's last audit: the URLs with each by severity, each issue with its first three URLs in the site audit's order", () => {
		const titles = siteIssueTitles();
		const severityOf = (id: string) => (SITE_ISSUES as Record<string, string>)[id];
		const expected = Object.keys(titles).filter((id) => id in AUDIT_SITE_ISSUES);
		const total = (severity: string) => plural(expected.filter((id) => severityOf(id) === severity).reduce((sum, id) => sum + Object.keys(AUDIT_SITE_ISSUES[id]).length, 0), severity);
		const [heading, ...lines] = siteIssueSection(emailTo('owner@brewshop.example').text);

		expect(expected).toEqual(Object.keys(AUDIT_SITE_ISSUES));
		expect(heading).toBe(`${total('error')}, ${total('warning')}, ${total('notice')} (URLs with each issue)`);
		expect(heading).toBe('14 errors, 14 warnings, 14 notices (URLs with each issue)');
		// October's last run found the same issues: no change to show, none fixed.
		expect(lines).toHaveLength(expected.length);
		expected.forEach((id, index) => {
			const paths = Object.keys(AUDIT_SITE_ISSUES[id]);
			const found = new RegExp(`^- ${titles[id].replace(/[()]/g, '\\$&')} \\(${severityOf(id)}\\): ${plural(paths.length, 'URL')}: (.+?)(, and (\\d+) more)?$`).exec(lines[index]);
			expect(found).not.toBeNull();
			const urls = found![1].split(', ');
			expect(urls).toHaveLength(Math.min(3, paths.length));
			for (const url of urls) expect(paths.map((pathname) => `${site.url}${pathname}`)).toContain(url);
			expect(found![3]).toBe(paths.length > 3 ? String(paths.length - 3) : undefined);
		});
		// Between the issues by worth and the broken links.
		expect(emailTo('owner@brewshop.example').text).toMatch(/\nTop issues by [^]*\n\nSite issues: [^]*\n\nBroken links\n/);
		expect(emailTo('tea@tea.example').text).toContain('\n\nSite issues: 0 errors, 0 warnings, 0 notices (URLs with each issue)\nnone\n\nBroken links\n');
	});

	it('counts each site issue against the last run of the month before: new, more, fewer, fixed; a run row of older history shows no change', async () => {
		const runs = tables().runs.filter((run) => run.site === SITE);
		const november = runs.find((run) => run.runId === RUN_TIMES[2])!;
		const counts = JSON.parse(String(november.siteIssues)) as Record<string, number>;
		// October's last run, after the other two: one broken link fewer, two more duplicate content URLs, no duplicate
		// titles, a slow page and large pages since gone.
		const october = { ...counts, broken_link: 1, duplicate_content: 6, slow_page: 1, large_page: 3 } as Record<string, number>;
		delete october.duplicate_title;
		const crafted = auditHistoryTables();
		const without = ({ id: _id, createdAt: _created, updatedAt: _updated, ...row }: Row) => row as Row;
		for (const name of [AUDIT_HISTORY_TABLES.runs.name, AUDIT_HISTORY_TABLES.pages.name]) {
			crafted.insert(
				name,
				history.rows(name).map((row) => {
					if (row.site !== OTHER_SITE) return without(row);
					// The tea shop's page has issues, its URL one to escape in HTML.
					return without({ ...row, siteIssues: name === AUDIT_HISTORY_TABLES.runs.name ? '{"missing_from_sitemap":1,"noindex_page":1}' : 'missing_from_sitemap, noindex_page' });
				}),
			);
		}
		const octoberRun = '2026-10-30T06:00:00.000Z';
		crafted.insert(AUDIT_HISTORY_TABLES.runs.name, [
			{ ...without(november), runId: octoberRun, runAt: new Date(octoberRun), averageScore: 50, siteIssues: JSON.stringify(october) },
			// The tea shop's October run, written before runs kept their site issues.
			{ runId: octoberRun, runAt: new Date(octoberRun), site: OTHER_SITE, pages: 1, averageScore: 30, good: 0, decent: 0, bad: 1, notAnalyzed: 0 },
		]);
		const sent = (await runReport({ dataTables: crafted })).output('Send e-mail').map((item) => item.json as Record<string, string>);
		const shop = sent.find((email) => email.to === 'owner@brewshop.example')!;
		const tea = sent.find((email) => email.to === 'tea@tea.example')!;
		const lines = siteIssueSection(shop.text);
		const rows = { runs: crafted.rows(AUDIT_HISTORY_TABLES.runs.name), pages: crafted.rows(AUDIT_HISTORY_TABLES.pages.name) };
		const expectedOf = (name: string) => monthlyReportText(rows, { site: name, monthStart: '2026-11-01T00:00:00.000Z', dashboardUrl: DASHBOARD, titles });

		expect(shop.text).toBe(expectedOf(SITE));
		expect(tea.text).toBe(expectedOf(OTHER_SITE));
		expect(lines[1]).toMatch(/^- Broken internal links \(error\): 2 URLs \(\+1 since October\): http/);
		expect(lines[2]).toMatch(/^- Duplicate titles \(error\): 2 URLs \(new\): http/);
		expect(lines[3]).toMatch(/^- Duplicate content \(error\): 4 URLs \(\u22122 since October\): http\S+, http\S+, http\S+, and 1 more$/);
		expect(lines[4]).toMatch(/^- Canonical URL broken \(error\): 1 URL: http/);
		expect(lines.at(-1)).toBe('- Fixed since October: Slow pages (over 3 s) (1 URL then), Large pages (over 2 MB) (3 URLs then)');
		expect(lines.filter((line) => / since October\)| \(new\)/.test(line))).toHaveLength(3);
		// A month before without counts: the issues, no change.
		expect(siteIssueSection(tea.text)).toEqual([
			'0 errors, 0 warnings, 2 notices (URLs with each issue)',
			`- Pages missing from sitemaps (notice): 1 URL: ${ODD_URL}`,
			`- Noindex pages (notice): 1 URL: ${ODD_URL}`,
		]);
		expect(tea.text).toContain('Average score 40.0: +10.0 since October (30.0)');

		expect(shop.html).toContain('<h2>Site issues: 14 errors, 14 warnings, 14 notices (URLs with each issue)</h2><ul><li>Broken internal links (error): 2 URLs (+1 since October): ');
		expect(shop.html).toContain('<li>Fixed since October: Slow pages (over 3 s) (1 URL then), Large pages (over 2 MB) (3 URLs then)</li></ul><h2>Broken links</h2>');
		const escapedUrl = ODD_URL.replace(/&/g, '&amp;').replace(/'/g, '&#39;');
		expect(tea.html).toContain(`<li>Pages missing from sitemaps (notice): 1 URL: ${escapedUrl}</li><li>Noindex pages (notice): 1 URL: ${escapedUrl}</li>`);
		expect(tea.html).not.toContain(ODD_URL);
	});

	it('the HTML part: the same words, every value escaped, the worst pages linked to their reports', () => {
		for (const email of emails().filter((sent) => !sent.error)) {
			const text = unescape(email.html.replace(/<\/?a\b[^>]*>/g, '').replace(/<[^>]+>/g, '\n')).replace(/\n+/g, '\n');
			const lines = email.text.split('\n').filter((line) => line && !line.startsWith('Your dashboard'));
			for (const line of lines) expect(text).toContain(line.replace(/^- /, '').replace(/ http\S+$/, ''));
		}
		const tea = emailTo('tea@tea.example').html;
		expect(tea).toContain('<h1>SEO report for tea&amp;co&#39;s &lt;b&gt;&quot;shop&quot;&lt;/b&gt;.example, November 2026</h1>');
		expect(tea).toContain('search?q=%3Cb%3Ecold%3C/b%3E&amp;who=it&#39;s');
		expect(tea).not.toMatch(/<b>|"shop"/);
		expect(tea).toContain(`<a href="${server.url}/reports/99?a=1&amp;b=2">`);
		expect(tea).toContain(`<a href="${DASHBOARD}?site=${encodeURIComponent(OTHER_SITE).replace(/'/g, '&#39;')}">Your dashboard</a>`);
	});

	it('a month without audits: nothing sent, and the output says which month and why', async () => {
		const empty = await runReport({ time: '2027-02-01T08:00:00.000+00:00' });

		expect(empty.error).toBeUndefined();
		expect(empty.executedNodes).not.toContain('Send e-mail');
		expect(empty.output('Nothing to send').map((item) => item.json)).toEqual([
			{
				month: 'January 2027',
				summary: 'January 2027: nothing sent: no site has an audit in January 2027 in the Data table phprank_audit_runs (the site audit writes one row a site and run).',
				sent: [],
				failed: [],
				skipped: [],
			},
		]);
	});

	it('no client for any site audited: nothing sent, each site named', async () => {
		const none = await runReport({ clients: {} });
		const [outcome] = none.output('Nothing to send').map((item) => item.json);

		expect(none.executedNodes).not.toContain('Send e-mail');
		expect(outcome.summary).toBe(
			`November 2026: nothing sent: no site audited in November 2026 has a client address in Report settings (${SITE}, ${NO_CLIENT_SITE}, ${REFUSED_SITE}, ${OTHER_SITE}).`,
		);
		expect(outcome.skipped).toHaveLength(4);
	});
});

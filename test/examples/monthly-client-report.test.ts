import { startPhpRankServer } from '../../dev/server';
import type { PhpRankServer } from '../../dev/server';
import { AUDIT_HISTORY_TABLES, auditHistoryTables, emailsAsItems, loadExampleWorkflow, monthlyReportText } from '../../dev/examples';
import { runWorkflow } from '../../dev/engine';
import type { InMemoryDataTables, RunResult, WorkflowFixture } from '../../dev/engine';

const CHANGED_PAGE = 'https://www.brewshop.example/pricing';
const BETTER_PAGE = 'https://www.brewshop.example/blog/cold-brew';
const DASHBOARD = 'https://n8n.example.com/webhook/phprank-dashboard';
const SITE = 'brewshop.example';
/** The three audits' times: two in October, the last in November; the report runs on December 1st. */
const RUN_TIMES = ['2026-10-05T06:00:00.000Z', '2026-10-26T06:00:00.000Z', '2026-11-23T06:00:00.000Z'];
const REPORT_TIME = '2026-12-01T08:00:00.000+00:00';
/** A site whose values need escaping in HTML, audited in November only. */
const OTHER_SITE = 'tea.example';
const ODD_URL = 'https://tea.example/search?q=<b>&page="2"';

let server: PhpRankServer;
let history: InMemoryDataTables;
let report: RunResult;

const setting = (workflow: WorkflowFixture, name: string) =>
	(workflow.nodes.find((node) => node.name === 'Report settings')!.parameters.assignments as { assignments: Array<{ name: string; value: unknown }> }).assignments.find(
		(assignment) => assignment.name === name,
	)!;

/** The site audit run as it is, its rows then moved to `runAt` as if it had run then. */
async function auditAt(runAt: string, into: InMemoryDataTables): Promise<void> {
	const tables = auditHistoryTables();
	const result = await runWorkflow(loadExampleWorkflow('site-audit-offline.json', { server }), {
		credentials: { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } },
		dataTables: tables,
	});
	expect(result.error).toBeUndefined();
	for (const { name } of Object.values(AUDIT_HISTORY_TABLES)) {
		const rows = tables.rows(name).map(({ id: _id, createdAt: _created, updatedAt: _updated, ...row }) => ({ ...row, runId: runAt, runAt: new Date(runAt) }));
		into.insert(name, rows as Parameters<InMemoryDataTables['insert']>[1]);
	}
}

const emails = () => report.output('Send e-mail').map((item) => item.json as Record<string, string>);
const emailTo = (address: string) => emails().find((email) => email.to === address)!;
const tables = () => ({ runs: history.rows(AUDIT_HISTORY_TABLES.runs.name), pages: history.rows(AUDIT_HISTORY_TABLES.pages.name) });
const unescape = (html: string) => html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

beforeAll(async () => {
	server = await startPhpRankServer();
	history = auditHistoryTables();
	await auditAt(RUN_TIMES[0], history);
	await auditAt(RUN_TIMES[1], history);
	// A month on: one page got worse, one better, both re-analyzed.
	server.changePage(CHANGED_PAGE, { quality: 0.6 });
	server.changePage(BETTER_PAGE, { quality: 1 });
	server.ageReports(
		server.reports().filter((candidate) => [CHANGED_PAGE, BETTER_PAGE].includes(candidate.targetUrl)).map((candidate) => candidate.id),
		30 * 86_400,
	);
	await auditAt(RUN_TIMES[2], history);
	history.insert(AUDIT_HISTORY_TABLES.runs.name, [
		{ runId: RUN_TIMES[2], runAt: new Date(RUN_TIMES[2]), site: OTHER_SITE, pages: 1, averageScore: 40, good: 0, decent: 0, bad: 1, notAnalyzed: 0 },
	]);
	history.insert(AUDIT_HISTORY_TABLES.pages.name, [
		{ runId: RUN_TIMES[2], runAt: new Date(RUN_TIMES[2]), site: OTHER_SITE, url: ODD_URL, score: 40, grade: 'bad', failedHigh: 'meta_description', failedMedium: '', failedLow: '', reportId: 99, reportUrl: `${server.url}/reports/99?a=1&b=2`, error: null },
	]);

	const workflow = emailsAsItems(loadExampleWorkflow('monthly-client-report.json'));
	setting(workflow, 'clients').value = `={{ { "${SITE}": "owner@brewshop.example", "${OTHER_SITE}": "tea@tea.example" } }}`;
	// The clock is the trigger's: the time it fired, given as its output.
	report = await runWorkflow({ ...workflow, pinData: { 'On the 1st at 08:00': [{ json: { timestamp: REPORT_TIME } }] } }, { dataTables: history });
});
afterAll(async () => await server.close());

describe('examples/monthly-client-report.json', () => {
	it('is sent on the 1st of each month at 08:00 through Send Email, with an HTML and a text part', () => {
		const workflow = loadExampleWorkflow('monthly-client-report.json');
		const send = workflow.nodes.find((node) => node.name === 'Send e-mail')!;

		expect(workflow.nodes[workflow.nodes.findIndex((node) => node.type === 'n8n-nodes-base.scheduleTrigger')].parameters).toEqual({
			rule: { interval: [{ field: 'months', triggerAtDayOfMonth: 1, triggerAtHour: 8 }] },
		});
		expect(send).toMatchObject({ type: 'n8n-nodes-base.emailSend', parameters: { emailFormat: 'both' } });
		expect(setting(workflow, 'dashboardUrl').value).toBe(DASHBOARD);
	});

	it("one e-mail per site audited in the month, to its client's address", () => {
		expect(report.error).toBeUndefined();
		expect(emails().map((email) => [email.to, email.from])).toEqual([
			['owner@brewshop.example', 'SEO reports <seo@agency.example>'],
			['tea@tea.example', 'SEO reports <seo@agency.example>'],
		]);
	});

	it("the text part: November's last audit against October's last, from the Data tables, checks by their titles", () => {
		const email = emailTo('owner@brewshop.example');
		const [, october, november] = tables().runs.filter((run) => run.site === SITE);
		const change = Math.round((Number(november.averageScore) - Number(october.averageScore)) * 10) / 10;

		expect(email.text).toBe(monthlyReportText(tables(), { site: SITE, monthStart: '2026-11-01T00:00:00.000Z', dashboardUrl: DASHBOARD }));
		expect(email.subject).toBe(`SEO report for ${SITE}, November 2026: average score ${Number(november.averageScore).toFixed(1)} (${change > 0 ? '+' : change < 0 ? '\u2212' : '\u00b1'}${Math.abs(change).toFixed(1)})`);
		expect(email.text).toContain(`since October (${Number(october.averageScore).toFixed(1)})`);
		// The changed page fails checks it passed; the better one passes checks it failed.
		expect(email.text.split('\nNew since October\n')[1].split('\n\n')[0]).toMatch(/^- [A-Z0-9]/);
		expect(email.text.split('\nFixed since October\n')[1].split('\n\n')[0]).toMatch(/^- [A-Z0-9]/);
		expect(email.text).not.toMatch(/[a-z]_[a-z]|404_page/);
		expect(email.text).toContain(`Your dashboard: ${DASHBOARD}?site=${SITE}`);
	});

	it('a site without a run the month before says so', () => {
		const email = emailTo('tea@tea.example');

		expect(email.text).toBe(monthlyReportText(tables(), { site: OTHER_SITE, monthStart: '2026-11-01T00:00:00.000Z', dashboardUrl: DASHBOARD }));
		expect(email.text).toContain('Average score 40.0: no run in October to compare with');
	});

	it('the HTML part: the same words, every value escaped, the worst pages linked to their reports', () => {
		for (const email of emails()) {
			const text = unescape(email.html.replace(/<\/?a\b[^>]*>/g, '').replace(/<[^>]+>/g, '\n')).replace(/\n+/g, '\n');
			const lines = email.text.split('\n').filter((line) => line && !line.startsWith('Your dashboard'));
			for (const line of lines) expect(text).toContain(line.replace(/^- /, '').replace(/ http\S+$/, ''));
		}
		const tea = emailTo('tea@tea.example').html;
		expect(tea).toContain('search?q=&lt;b&gt;&amp;page=&quot;2&quot;');
		expect(tea).not.toContain('<b>');
		expect(tea).toContain(`<a href="${server.url}/reports/99?a=1&amp;b=2">`);
		expect(tea).toContain(`<a href="${DASHBOARD}?site=${OTHER_SITE}">Your dashboard</a>`);
	});
});

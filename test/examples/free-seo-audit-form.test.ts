import { startPhpRankServer } from '../../dev/server';
import type { PhpRankServer } from '../../dev/server';
import { AUDIT_FORM_TABLES, auditFormTables, emailsAsItems, loadExampleWorkflow, topIssues } from '../../dev/examples';
import { runWorkflow, submitForm } from '../../dev/engine';
import type { FormRunResult, InMemoryDataTables, WorkflowFixture } from '../../dev/engine';
import { useTestClock } from '../support/clock';

const FILE = 'free-seo-audit-form.json';
const SCHEDULE = 'Every minute';
const CONSENT = ['E-mail me the report and keep my address to follow up on it'];
/** A page whose address needs escaping in HTML (phpRank stores `&` and `'`), and a visitor's address that does too. */
const ODD_PAGE = "https://shop.example/search?q=cold&who=it's";
const ODD_EMAIL = "o'brien+seo@tea.example";
const PAGE = 'https://www.brewshop.example/';
const FROM = 'SEO audits <audits@agency.example>';
const MINUTE = 60_000;

useTestClock();

let server: PhpRankServer;
let tables: InMemoryDataTables;
const workflow: WorkflowFixture = emailsAsItems(loadExampleWorkflow(FILE));
const credentials = () => ({ phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } });

const submit = async (page: string, email = 'visitor@example.com', consent: string[] = CONSENT): Promise<FormRunResult> =>
	await submitForm(workflow, { 'Page address': page, 'Your e-mail': email, Consent: consent }, { credentials: credentials(), dataTables: tables });
const drain = async () => await runWorkflow({ ...workflow, pinData: { [SCHEDULE]: [{ json: { timestamp: new Date().toISOString() } }] } }, { credentials: credentials(), dataTables: tables, startNode: SCHEDULE });
const emails = (result: { output: FormRunResult['output'] }) => result.output('Send e-mail').map((item) => item.json as Record<string, string>);
const requestRows = () => tables.rows(AUDIT_FORM_TABLES.requests.name);
const leadRows = () => tables.rows(AUDIT_FORM_TABLES.leads.name);
const analyses = () => server.requests.filter((request) => request.method === 'POST' || (request.method === 'PUT' && /results=1/.test(request.rawBody))).length;
/** The report of a page, by the address phpRank analyzed (`'` percent-encoded in its query). */
const newestReport = (page: string) => server.reports().filter((report) => report.targetUrl === new URL(page).href).at(-1)!;
const unescape = (html: string) => html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

beforeAll(async () => {
	server = await startPhpRankServer();
});
beforeEach(() => {
	server.reset();
	server.setRateLimit(false);
	tables = auditFormTables();
});
afterAll(async () => await server.close());

describe('examples/free-seo-audit-form.json', () => {
	it("asks for the page's address, the visitor's e-mail and consent, all required, in n8n's Form Trigger", () => {
		const trigger = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.formTrigger')!;
		const fields = (trigger.parameters.formFields as { values: Array<{ fieldLabel: string; fieldType?: string; requiredField: boolean }> }).values;

		expect(fields.map((field) => [field.fieldLabel, field.fieldType ?? 'text', field.requiredField])).toEqual([
			['Page address', 'text', true],
			['Your e-mail', 'email', true],
			['Consent', 'checkbox', true],
		]);
		expect(workflow.nodes.filter((node) => node.type !== 'n8n-nodes-base.stickyNote').length).toBeLessThanOrEqual(19);
	});

	it("shows the score, grade, three issues worth most to fix and the report's link, e-mails the same, and keeps the lead", async () => {
		const result = await submit(PAGE);
		const report = newestReport(PAGE);
		const issues = topIssues(report);

		expect(result.error).toBeUndefined();
		expect(issues).toHaveLength(3);
		expect(result.completion?.title).toBe(`Your page scores ${report.result}/100`);
		const shown = unescape(result.completion!.message.replace(/<[^>]+>/g, '\n'));
		expect(shown).toContain(`${report.result}/100`);
		expect(result.completion!.message).toContain(`<b>${report.result >= 80 ? 'good' : report.result >= 49 ? 'decent' : 'bad'}</b>`);
		expect(result.completion!.message).toContain(`The three issues worth most to fix:<br />${issues.map((issue, index) => `${index + 1}. ${issue}`).join('<br />')}<br />`);
		expect(result.completion!.message).toContain(`<a href="${server.url}/reports/${report.id}" target="_blank" rel="noopener">Open the full report</a>`);

		expect(emails(result)).toEqual([
			expect.objectContaining({ from: FROM, to: 'visitor@example.com', subject: `Your SEO audit: www.brewshop.example scores ${report.result}/100`, smtp: 250 }),
		]);
		const [email] = emails(result);
		expect(email.text).toBe(
			[`SEO audit of ${PAGE}`, '', `Score: ${report.result}/100 (bad)`, '', 'The three issues worth most to fix:', ...issues.map((issue, index) => `${index + 1}. ${issue}`), '', `The full report: ${server.url}/reports/${report.id}`].join('\n'),
		);
		expect(email.html).toContain(`<ol>${issues.map((issue) => `<li>${issue}</li>`).join('')}</ol>`);

		expect(requestRows()).toEqual([expect.objectContaining({ email: 'visitor@example.com', url: PAGE, host: 'www.brewshop.example', status: 'emailed', attempts: 1, score: report.result, grade: 'bad', issues: issues.join('\n'), reportUrl: `${server.url}/reports/${report.id}`, error: '' })]);
		expect(leadRows()).toEqual([expect.objectContaining({ email: 'visitor@example.com', url: PAGE, status: 'emailed', score: report.result, grade: 'bad', reportUrl: `${server.url}/reports/${report.id}` })]);
	});

	it('escapes every value it shows in the page and the e-mail: the page address, the visitor\'s address, the issues', async () => {
		const result = await submit(ODD_PAGE, ODD_EMAIL);
		const report = newestReport(ODD_PAGE);
		const [email] = emails(result);

		expect(result.error).toBeUndefined();
		// n8n sanitizes the page's HTML again: it keeps &amp; and writes &#39; as the ' it stands for.
		expect(result.completion!.message).toContain(`<a href="https://shop.example/search?q=cold&amp;who=it's" target="_blank" rel="noopener">https://shop.example/search?q=cold&amp;who=it's</a>`);
		expect(result.completion!.message).toContain(`We have e-mailed it to o'brien+seo@tea.example too.`);
		expect(result.completion!.message).toContain(topIssues(report).map((issue, index) => `${index + 1}. ${issue}`).join('<br />'));
		expect(email.to).toBe(ODD_EMAIL);
		expect(email.html).toContain('<a href="https://shop.example/search?q=cold&amp;who=it&#39;s">https://shop.example/search?q=cold&amp;who=it&#39;s</a>');
		expect(email.html).not.toContain("it's");
		expect(email.text).toContain(`SEO audit of ${ODD_PAGE}`);
		expect(unescape(email.html)).toContain(`<ol>${topIssues(report).map((issue) => `<li>${issue}</li>`).join('')}</ol>`);
	});

	it.each([
		['ftp://example.com/file', 'The address must start with http:// or https://.'],
		['javascript:alert(1)', 'The address must start with http:// or https://.'],
		['https://example.com/a b', 'The address holds a character a web address cannot have (a space, | ^ " < or >).'],
		['http://localhost:8080/admin', 'localhost is not on the public web: it is this machine (localhost). We audit public pages only.'],
		['http://127.0.0.1/', '127.0.0.1 is not on the public web: it is this machine (a loopback address). We audit public pages only.'],
		['https://10.1.2.3/', '10.1.2.3 is not on the public web: it is a private network address. We audit public pages only.'],
		['http://172.20.0.5:3000/', '172.20.0.5 is not on the public web: it is a private network address. We audit public pages only.'],
		['192.168.1.1', '192.168.1.1 is not on the public web: it is a private network address. We audit public pages only.'],
		['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is not on the public web: it is a link-local address. We audit public pages only.'],
		['http://[::1]/', '[::1] is not on the public web: it is this machine (a loopback address). We audit public pages only.'],
		['http://[fe80::1]/', '[fe80::1] is not on the public web: it is a link-local address. We audit public pages only.'],
		['http://[fd00::5]/', '[fd00::5] is not on the public web: it is a private network address. We audit public pages only.'],
		['https://intranet/wiki', 'intranet is not on the public web: it is a name on a local network, not on the public web. We audit public pages only.'],
		['http://2130706433/', '2130706433 is not on the public web: it is a name on a local network, not on the public web. We audit public pages only.'],
	])('refuses %s before anything is asked of phpRank, and the page says why', async (page, why) => {
		const result = await submit(page);

		expect(result.error).toBeUndefined();
		expect(result.completion).toEqual({ node: 'Refusal page', title: 'We could not audit this page', message: `${why.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}<br /><br />Nothing was analyzed.` });
		expect(server.requests).toEqual([]);
		expect(emails(result)).toEqual([]);
		expect(requestRows()).toEqual([]);
		expect(leadRows()).toEqual([]);
	});

	it('refuses a visitor without consent or without a valid e-mail address', async () => {
		expect((await submit(PAGE, 'visitor@example.com', [])).completion?.message).toContain('Please agree that we e-mail you the report.');
		expect((await submit(PAGE, 'not-an-address')).completion?.message).toContain('Please enter your e-mail address: the report is sent to it.');
		expect(server.requests).toEqual([]);
	});

	it('a page phpRank cannot fetch: the page gives its reason, no e-mail, and it is not queued', async () => {
		server.injectFault({ method: 'POST', path: '/api/v1/reports', kind: 'status', status: 422, body: { message: { url: ['Client error: `GET https://gone.example/` resulted in a `404 Not Found` response'] }, status: 422 } } as never);
		const result = await submit('https://gone.example/');

		expect(result.completion?.title).toBe('We could not audit this page');
		expect(result.completion?.message).toMatch(/^phpRank (could not fetch|rejected)[^<]*\(422\)/);
		expect(emails(result)).toEqual([]);
		expect(requestRows()).toEqual([expect.objectContaining({ status: 'refused' })]);
		await drain();
		expect(server.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
	});

	it('the same page asked twice in a day: one analysis, both visitors get the report', async () => {
		const first = await submit(PAGE, 'one@example.com');
		const second = await submit(PAGE.toUpperCase().replace('HTTPS://WWW.BREWSHOP.EXAMPLE/', 'http://www.brewshop.example/'), 'two@example.com');

		expect(analyses()).toBe(1);
		expect(server.reports()).toHaveLength(1);
		expect(first.completion?.title).toBe(second.completion?.title);
		expect([...emails(first), ...emails(second)].map((email) => email.to)).toEqual(['one@example.com', 'two@example.com']);
	});

	it('gives one e-mail address and one host at most their audits a day; yesterday does not count', async () => {
		const today = new Date().toISOString().slice(0, 10);
		const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
		const row = (email: string, host: string, day: string) => ({ email, url: `https://${host}/`, host, day, status: 'emailed', attempts: 1, retryAt: 0 });
		tables.insert(AUDIT_FORM_TABLES.requests.name, [
			...[1, 2, 3].map((n) => row('busy@example.com', `site${n}.example`, today)),
			...[1, 2, 3].map((n) => row('other@example.com', `site${n}.example`, yesterday)),
			...Array.from({ length: 10 }, (_, n) => row(`v${n}@example.com`, 'popular.example', today)),
		]);

		const byEmail = await submit(PAGE, 'BUSY@example.com');
		const byHost = await submit('https://popular.example/pricing', 'new@example.com');
		const allowed = await submit(PAGE, 'other@example.com');

		expect(byEmail.completion?.message).toBe('You have had 3 free audits today, the most we offer a day. Please come back tomorrow.<br /><br />Nothing was analyzed.');
		expect(byHost.completion?.message).toBe('popular.example has had 10 free audits today, the most we offer a site a day. Please come back tomorrow.<br /><br />Nothing was analyzed.');
		expect(allowed.completion?.title).toMatch(/^Your page scores \d+\/100$/);
		expect(server.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
	});

	it("phpRank's rate limit spent: the visitor is told the report comes by e-mail; the schedule e-mails it once the limit frees, exactly once", async () => {
		server.setRateLimit({ maxAttempts: 2, decaySeconds: 60 });
		const first = await submit(PAGE, 'first@example.com');
		const queued = await submit(ODD_PAGE, ODD_EMAIL);

		expect(first.completion?.title).toMatch(/^Your page scores/);
		expect(queued.error).toBeUndefined();
		expect(queued.completion?.title).toBe('Your report is on its way');
		expect(queued.completion?.message).toBe("Our SEO service is busy right now. Your report of https://shop.example/search?q=cold&amp;who=it's comes by e-mail to o'brien+seo@tea.example in a few minutes.");
		expect(emails(queued)).toEqual([]);
		expect(requestRows()[1]).toMatchObject({ email: ODD_EMAIL, url: ODD_PAGE, status: 'queued', error: expect.stringContaining('429') });
		expect(leadRows()[1]).toMatchObject({ email: ODD_EMAIL, status: 'queued' });

		// Still spent a moment later: the drain leaves it queued and sends nothing.
		const early = await drain();
		expect(early.error).toBeUndefined();
		expect(emails(early)).toEqual([]);
		expect(requestRows()[1]).toMatchObject({ status: 'queued', attempts: 2 });
		// Tried again a minute later, and later still after each failure (a minute more each time, at most an hour).
		expect(Number(requestRows()[1].retryAt) - Date.now()).toBeGreaterThan(MINUTE - 5_000);

		jest.setSystemTime(Date.now() + MINUTE);
		const freed = await drain();
		const report = newestReport(ODD_PAGE);
		expect(emails(freed)).toEqual([expect.objectContaining({ to: ODD_EMAIL, subject: `Your SEO audit: shop.example scores ${report.result}/100` })]);
		expect(requestRows()[1]).toMatchObject({ status: 'emailed', attempts: 3, score: report.result });
		// The lead kept when the form answered now says what happened: e-mailed, with the score and the link.
		expect(leadRows()[1]).toMatchObject({ email: ODD_EMAIL, url: ODD_PAGE, status: 'emailed', score: report.result, grade: report.result >= 80 ? 'good' : report.result >= 49 ? 'decent' : 'bad', reportUrl: `${server.url}/reports/${report.id}` });
		expect(leadRows()[0]).toMatchObject({ email: 'first@example.com', status: 'emailed' });
		expect(freed.executedNodes).not.toContain('Keep the lead');
		expect(freed.executedNodes).not.toContain('Completion page');

		jest.setSystemTime(Date.now() + MINUTE);
		const after = await drain();
		expect(after.executedNodes).toEqual([SCHEDULE, 'Queued requests']);
		expect(leadRows()).toHaveLength(2);
	});

	it('phpRank down: queued, then e-mailed by the schedule once it is back; at most 10 a run, the limit\'s pace', async () => {
		await server.stop();
		const pages = Array.from({ length: 12 }, (_, n) => `https://shop-${n}.example/`);
		const visitor = (page: string) => `visitor@${new URL(page).hostname}`;
		for (const page of pages) expect((await submit(page, visitor(page))).completion?.title).toBe('Your report is on its way');
		await server.start();

		expect(requestRows().map((row) => row.status)).toEqual(pages.map(() => 'queued'));
		jest.setSystemTime(Date.now() + MINUTE);
		const firstRun = await drain();
		expect(emails(firstRun)).toHaveLength(10);
		jest.setSystemTime(Date.now() + MINUTE);
		const secondRun = await drain();
		expect(emails(secondRun)).toHaveLength(2);
		expect([...emails(firstRun), ...emails(secondRun)].map((email) => email.to).sort()).toEqual(pages.map(visitor).sort());
		expect(requestRows().map((row) => row.status)).toEqual(pages.map(() => 'emailed'));
		expect(leadRows().map((row) => [row.email, row.status, typeof row.score])).toEqual(pages.map((page) => [visitor(page), 'emailed', 'number']));
		expect(analyses()).toBe(12);
	});

	it('an e-mail the mail server refuses stays queued and is sent by the schedule, once', async () => {
		const refusing = emailsAsItems(loadExampleWorkflow(FILE), { refused: ['visitor@example.com'] });
		const result = await submitForm(refusing, { 'Page address': PAGE, 'Your e-mail': 'visitor@example.com', Consent: CONSENT }, { credentials: credentials(), dataTables: tables });

		expect(result.completion?.title).toBe('Your report is on its way');
		expect(requestRows()).toEqual([expect.objectContaining({ status: 'queued', error: expect.stringContaining('550') })]);
		jest.setSystemTime(Date.now() + MINUTE);
		const drained = await drain();
		expect(emails(drained).map((email) => email.to)).toEqual(['visitor@example.com']);
		expect(requestRows()).toEqual([expect.objectContaining({ status: 'emailed' })]);
		expect(leadRows()).toEqual([expect.objectContaining({ requestId: requestRows()[0].id, status: 'emailed' })]);
		expect(analyses()).toBe(1);
	});
});

import fc from 'fast-check';

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
const drain = async (fixture: WorkflowFixture = workflow) => await runWorkflow({ ...fixture, pinData: { [SCHEDULE]: [{ json: { timestamp: new Date().toISOString() } }] } }, { credentials: credentials(), dataTables: tables, startNode: SCHEDULE });
const emails = (result: { output: FormRunResult['output'] }) => result.output('Send e-mail').map((item) => item.json as Record<string, string>);
const requestRows = () => tables.rows(AUDIT_FORM_TABLES.requests.name);
const leadRows = () => tables.rows(AUDIT_FORM_TABLES.leads.name);
/** The address phpRank was asked to analyze, by each create. */
const analyzed = () => server.requests.filter((request) => request.method === 'POST').map((request) => new URLSearchParams(request.rawBody).get('url'));
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
		expect(workflow.nodes.filter((node) => node.type !== 'n8n-nodes-base.stickyNote').length).toBeLessThanOrEqual(22);
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

		expect(requestRows()).toEqual([expect.objectContaining({ email: 'visitor@example.com', url: PAGE, host: 'www.brewshop.example', status: 'emailed', attempts: 1, score: report.result, grade: 'bad', issues: issues.join('\n'), reportUrl: `${server.url}/reports/${report.id}`, reason: '' })]);
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

	const NOT_PUBLIC = 'is not on the public web';
	const LOOPBACK = '127.0.0.1 is not on the public web: it is this machine (a loopback address). We audit public pages only.';
	it.each([
		['ftp://example.com/file', 'The address must start with http:// or https://.'],
		['javascript:alert(1)', 'The address must start with http:// or https://.'],
		['https://example.com/a b', 'The address holds a character a web address cannot have (a space, | ^ " < or >).'],
		['http://127.0.0.1:99999/', 'This is not the address of a web page.'],
		['http://1.2.3.4.5/', 'This is not the address of a web page.'],
		['http://[::1%25eth0]/', 'This is not the address of a web page.'],
		['https://user:secret@www.brewshop.example/', 'The address holds a user name or password: please enter the address the public sees.'],
		['http://localhost:8080/admin', 'localhost is not on the public web: it is this machine (localhost). We audit public pages only.'],
		['http://127.0.0.1/', LOOPBACK],
		['https://10.1.2.3/', '10.1.2.3 is not on the public web: it is a private network address. We audit public pages only.'],
		['http://172.20.0.5:3000/', '172.20.0.5 is not on the public web: it is a private network address. We audit public pages only.'],
		['192.168.1.1', '192.168.1.1 is not on the public web: it is a private network address. We audit public pages only.'],
		['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is not on the public web: it is the cloud metadata address. We audit public pages only.'],
		['http://[::1]/', '[::1] is not on the public web: it is this machine (a loopback address). We audit public pages only.'],
		['http://[fe80::1]/', '[fe80::1] is not on the public web: it is a link-local address. We audit public pages only.'],
		['http://[fd00::5]/', '[fd00::5] is not on the public web: it is a private network address. We audit public pages only.'],
		['https://intranet/wiki', 'intranet is not on the public web: it is a name on a local network, not on the public web. We audit public pages only.'],
		// Other spellings of the same addresses, as a URL parser reads them.
		['http://127.1:8090/', LOOPBACK],
		['http://127.0.1:8090/', LOOPBACK],
		['http://0177.0.0.1:8090/', LOOPBACK],
		['http://0x7f.0.0.1/', LOOPBACK],
		['http://0x7f.1/', LOOPBACK],
		['http://2130706433/', LOOPBACK],
		['http://0x7F000001/', LOOPBACK],
		['http://017700000001/', LOOPBACK],
		['http://127.000.000.001/', LOOPBACK],
		['http://127.0.0.1./', LOOPBACK],
		['http://%31%32%37.0.0.1/', LOOPBACK],
		['http://\uff11\uff12\uff17\uff0e\uff10\uff0e\uff10\uff0e\uff11/', LOOPBACK],
		['http://visitor@127.0.0.1/', LOOPBACK],
		['http://www.brewshop.example@127.1/', LOOPBACK],
		['HTTP://127.0.0.1:80/', LOOPBACK],
		['http:\\\\127.0.0.1\\admin', LOOPBACK],
		['http:/127.0.0.1/', LOOPBACK],
		['127.1', LOOPBACK],
		['http://[0:0:0:0:0:0:0:1]:8080/', '[::1] is not on the public web: it is this machine (a loopback address). We audit public pages only.'],
		['http://[0:0::1]/', '[::1] is not on the public web: it is this machine (a loopback address). We audit public pages only.'],
		['http://[::127.0.0.1]/', '[::7f00:1] is not on the public web: it is this machine (a loopback address). We audit public pages only.'],
		['http://[::ffff:127.0.0.1]/', '[::ffff:7f00:1] is not on the public web: it is this machine (a loopback address). We audit public pages only.'],
		['http://[0:0:0:0:0:FFFF:7F00:0001]/', '[::ffff:7f00:1] is not on the public web: it is this machine (a loopback address). We audit public pages only.'],
		['http://[64:ff9b::127.0.0.1]/', '[64:ff9b::7f00:1] is not on the public web: it is this machine (a loopback address). We audit public pages only.'],
		['http://[2002:7f00:1::]/', '[2002:7f00:1::] is not on the public web: it is this machine (a loopback address). We audit public pages only.'],
		['http://LOCALHOST./', 'localhost is not on the public web: it is this machine (localhost). We audit public pages only.'],
		['http://admin.localhost/', 'admin.localhost is not on the public web: it is this machine (localhost). We audit public pages only.'],
		['http://local%C2%ADhost/', 'localhost is not on the public web: it is this machine (localhost). We audit public pages only.'],
		['http://\u24db\u24de\u24d2\u24d0\u24db\u24d7\u24de\u24e2\u24e3/', 'localhost is not on the public web: it is this machine (localhost). We audit public pages only.'],
		['http://0/', '0.0.0.0 is not on the public web: it is this machine (an unspecified address). We audit public pages only.'],
		['http://0.0.0.0:8080/', '0.0.0.0 is not on the public web: it is this machine (an unspecified address). We audit public pages only.'],
		['http://[::]/', '[::] is not on the public web: it is this machine (an unspecified address). We audit public pages only.'],
		['http://0xa9fea9fe/', '169.254.169.254 is not on the public web: it is the cloud metadata address. We audit public pages only.'],
		['http://[::ffff:169.254.169.254]/', '[::ffff:a9fe:a9fe] is not on the public web: it is the cloud metadata address. We audit public pages only.'],
		['http://169.254.1.1/', '169.254.1.1 is not on the public web: it is a link-local address. We audit public pages only.'],
		['http://012.0.0.1/', '10.0.0.1 is not on the public web: it is a private network address. We audit public pages only.'],
		['http://0xc0a80001/', '192.168.0.1 is not on the public web: it is a private network address. We audit public pages only.'],
		['http://[::ffff:10.0.0.1]/', '[::ffff:a00:1] is not on the public web: it is a private network address. We audit public pages only.'],
		['http://100.64.0.1/', '100.64.0.1 is not on the public web: it is a carrier-grade NAT address. We audit public pages only.'],
		['http://100.127.255.254/', '100.127.255.254 is not on the public web: it is a carrier-grade NAT address. We audit public pages only.'],
		['http://[fd00:ec2::254]/', '[fd00:ec2::254] is not on the public web: it is a private network address. We audit public pages only.'],
		['http://[FE80::1]/', '[fe80::1] is not on the public web: it is a link-local address. We audit public pages only.'],
		['http://224.0.0.1/', '224.0.0.1 is not on the public web: it is a reserved address, not a public one. We audit public pages only.'],
		['http://metadata.google.internal/computeMetadata/v1/', 'metadata.google.internal is not on the public web: it is a name on a local network, not on the public web. We audit public pages only.'],
	])('refuses %s before anything is asked of phpRank, and the page says why', async (page, why) => {
		const result = await submit(page);

		expect(result.error).toBeUndefined();
		expect(result.completion).toEqual({ node: 'Refusal page', title: 'We could not audit this page', message: `${why.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}<br /><br />Nothing was analyzed.` });
		expect(server.requests).toEqual([]);
		expect(emails(result)).toEqual([]);
		expect(requestRows()).toEqual([]);
		expect(leadRows()).toEqual([]);
	});

	it.each([
		['HTTPS://WWW.Brewshop.EXAMPLE.:443/', 'https://www.brewshop.example/', 'www.brewshop.example'],
		['www.brewshop.example', 'https://www.brewshop.example/', 'www.brewshop.example'],
		['https://www.brewshop.example\\shop\\tea?q=1', 'https://www.brewshop.example/shop/tea?q=1', 'www.brewshop.example'],
		['http://93.184.215.14:8080/', 'http://93.184.215.14:8080/', '93.184.215.14'],
		['http://0x5d.0xb8.0xd7.0x0e/', 'http://93.184.215.14/', '93.184.215.14'],
		['http://[2606:4700:0:0:0:0:6810:84E5]/', 'http://[2606:4700::6810:84e5]/', '[2606:4700::6810:84e5]'],
		['http://172.32.0.1/', 'http://172.32.0.1/', '172.32.0.1'],
		['http://100.128.0.1/', 'http://100.128.0.1/', '100.128.0.1'],
	])('accepts the public address %s and asks phpRank for it as parsed: %s', async (page, asked, host) => {
		const result = await submit(page);

		expect(result.completion?.title).toMatch(/^Your page scores \d+\/100$/);
		expect(analyzed()).toEqual([asked]);
		expect(requestRows()).toEqual([expect.objectContaining({ url: asked, host, status: 'emailed' })]);
	});

	it("reads every address as the URL Standard's parser does (Node.js's URL): the same host, and never a public answer for a host it reads as internal", () => {
		const code = (workflow.nodes.find((node) => node.name === 'Check the request')!.parameters as { jsCode: string }).jsCode;
		const check = (page: string) => {
			const form = { 'Page address': page, 'Your e-mail': 'visitor@example.com', Consent: CONSENT };
			const run = new Function('$', '$now', code) as (node: unknown, now: unknown) => Array<{ json: { host: string; url: string; status: string; reason: string } }>;
			return run(() => ({ first: () => ({ json: form }) }), { toUTC: () => ({ toFormat: () => '2026-12-02' }) })[0].json;
		};
		const decimal = fc.integer({ min: 0, max: 300 }).map(String);
		const octal = fc.integer({ min: 0, max: 300 }).map((n) => `0${n.toString(8)}`);
		const hex = fc.integer({ min: 0, max: 300 }).map((n) => `0x${n.toString(16)}`);
		const ipv4Part = fc.oneof(decimal, octal, hex, fc.constantFrom('0', '127', '0x7f', '0177', '255', '256', '08', '0x', ''));
		const ipv4 = fc.oneof(
			fc.array(ipv4Part, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('.')),
			fc.integer({ min: 0, max: 2 ** 32 + 5 }).map((n) => fc.sample(fc.constantFrom(String(n), `0x${n.toString(16)}`, `0${n.toString(8)}`), 1)[0]),
		);
		const piece = fc.oneof(fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16)), fc.constantFrom('0', 'ffff', 'FFFF', '7f00', '0001', 'fe80', 'fd00', '64', 'ff9b', '2002', '2001', 'db8'));
		const ipv6 = fc
			.tuple(fc.array(piece, { maxLength: 8 }), fc.boolean(), fc.array(piece, { maxLength: 7 }), fc.option(fc.constantFrom('127.0.0.1', '10.0.0.1', '169.254.169.254', '8.8.8.8', '01.2.3.4'), { nil: undefined }))
			.map(([head, compressed, tail, embedded]) => `[${head.join(':')}${compressed ? '::' : head.length && tail.length ? ':' : ''}${[...tail, ...(embedded ? [embedded] : [])].join(':')}]`);
		const name = fc.constantFrom('localhost', 'LocalHost', 'admin.localhost', 'intranet', 'www.brewshop.example', 'metadata.google.internal', 'xn--bcher-kva.de', 'b\u00fccher.de');
		const spelled = (host: string) =>
			fc.constantFrom(
				host,
				`${host}.`,
				host.toUpperCase(),
				host.replace(/[0-9.]/g, (char) => `%${char.charCodeAt(0).toString(16)}`),
				host.replace(/[0-9a-z.]/gi, (char) => (char === '.' ? '\u3002' : String.fromCharCode(char.charCodeAt(0) + 0xfee0))),
			);
		const address = fc.tuple(fc.oneof(ipv4, ipv6, name).chain(spelled), fc.constantFrom('http', 'https', 'HTTP'), fc.constantFrom('', ':8080', ':0', ':65536'), fc.constantFrom('', 'user@', 'a:b@'));

		fc.assert(
			fc.property(address, ([host, scheme, port, userinfo]) => {
				const page = `${scheme}://${userinfo}${host}${port}/path?q`;
				let parsed: URL | undefined;
				try {
					parsed = new URL(page);
				} catch {
					parsed = undefined;
				}
				const ours = check(page);
				if (parsed === undefined || /[^\x00-\x7f]/.test(parsed.hostname)) return;
				// Read as written by the parser, the address is decided on its plain form: the same host, the same answer.
				const plain = check(`${parsed.protocol}//${parsed.host}${parsed.pathname}${parsed.search}`);
				expect(plain.host).toBe(parsed.hostname.replace(/\.$/, ''));
				if (ours.status === 'refused' && ours.reason.startsWith('The address holds a user name')) return;
				// A name in another script stays so (phpRank's fetch writes it in punycode): public for the parser too.
				if (/[^\x00-\x7f]/.test(ours.host)) return expect(plain.reason).not.toContain(NOT_PUBLIC);
				expect([ours.host, ours.status, ours.reason.includes(NOT_PUBLIC)]).toEqual([plain.host, plain.status, plain.reason.includes(NOT_PUBLIC)]);
			}),
			{ numRuns: 3000, seed: 20261202 },
		);
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
		expect(requestRows()[1]).toMatchObject({ email: ODD_EMAIL, url: ODD_PAGE, status: 'queued', reason: expect.stringContaining('429') });
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

	it.each([
		['550 5.1.1', 'unknown@tea.example'],
		['501 5.1.3', 'malformed@tea.example'],
	])("an address the mail server refuses for good (%s): the visitor sees the score and why no e-mail comes; the request and the lead end as addressRefused, never tried again", async (reply, to) => {
		const refusing = emailsAsItems(loadExampleWorkflow(FILE), { refused: { [to]: reply } });
		const result = await submitForm(refusing, { 'Page address': PAGE, 'Your e-mail': to, Consent: CONSENT }, { credentials: credentials(), dataTables: tables });
		const report = newestReport(PAGE);

		expect(result.completion?.title).toBe(`Your page scores ${report.result}/100`);
		expect(result.completion?.message).toContain(`We could not e-mail it to ${to}: the mail server refused the address.`);
		expect(requestRows()).toEqual([expect.objectContaining({ status: 'addressRefused', reason: expect.stringMatching(new RegExp(`^The mail server refused the address: .*${reply}`)), score: report.result })]);
		expect(leadRows()).toEqual([expect.objectContaining({ requestId: requestRows()[0].id, status: 'addressRefused', score: report.result })]);
		const asked = server.requests.length;
		for (let run = 0; run < 3; run++) {
			jest.setSystemTime(Date.now() + 61 * MINUTE);
			expect((await drain(refusing)).executedNodes).toEqual([SCHEDULE, 'Queued requests']);
		}
		expect(server.requests.length).toBe(asked);
	});

	it('a temporary refusal (451): the visitor is told the e-mail comes in a few minutes; the schedule sends it once the mail server takes it, once', async () => {
		const busy = emailsAsItems(loadExampleWorkflow(FILE), { refused: { 'visitor@example.com': '451 4.7.1' } });
		const result = await submitForm(busy, { 'Page address': PAGE, 'Your e-mail': 'visitor@example.com', Consent: CONSENT }, { credentials: credentials(), dataTables: tables });

		expect(result.completion?.title).toMatch(/^Your page scores \d+\/100$/);
		expect(result.completion?.message).toContain('It comes by e-mail to visitor@example.com in a few minutes.');
		expect(requestRows()).toEqual([expect.objectContaining({ status: 'queued', reason: expect.stringMatching(/^E-mail try 1 of 8 failed: .*451 4\.7\.1/) })]);
		jest.setSystemTime(Date.now() + MINUTE);
		expect(emails(await drain(busy)).map((email) => email.error ?? email.smtp)).toEqual([expect.stringContaining('451 4.7.1')]);
		expect(requestRows()).toEqual([expect.objectContaining({ status: 'queued', attempts: 2, reason: expect.stringMatching(/^E-mail try 2 of 8 failed/) })]);
		jest.setSystemTime(Date.now() + 2 * MINUTE);
		const sent = await drain();
		expect(emails(sent).map((email) => [email.to, email.smtp])).toEqual([['visitor@example.com', 250]]);
		expect(requestRows()).toEqual([expect.objectContaining({ status: 'emailed', attempts: 3, reason: '' })]);
		expect(leadRows()).toEqual([expect.objectContaining({ status: 'emailed' })]);
		jest.setSystemTime(Date.now() + 61 * MINUTE);
		expect((await drain()).executedNodes).toEqual([SCHEDULE, 'Queued requests']);
		expect(analyses()).toBe(1);
	});

	it('a temporary refusal that never passes: tried 8 times in all, a phpRank look-up each, then failed, the lead too, and left alone', async () => {
		const busy = emailsAsItems(loadExampleWorkflow(FILE), { refused: { 'visitor@example.com': '421 4.3.2' } });
		await submitForm(busy, { 'Page address': PAGE, 'Your e-mail': 'visitor@example.com', Consent: CONSENT }, { credentials: credentials(), dataTables: tables });
		const tries = [requestRows()[0].reason];
		for (let run = 0; run < 10; run++) {
			jest.setSystemTime(Date.now() + 61 * MINUTE);
			await drain(busy);
			if (requestRows()[0].reason !== tries.at(-1)) tries.push(requestRows()[0].reason);
		}

		expect(tries.map((reason) => String(reason).split(':')[0])).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => `E-mail try ${n} of 8 failed`));
		expect(requestRows()).toEqual([expect.objectContaining({ status: 'failed', attempts: 8 })]);
		expect(leadRows()).toEqual([expect.objectContaining({ status: 'failed' })]);
		expect(analyses()).toBe(1);
		expect(server.requests.filter((request) => request.method === 'GET')).toHaveLength(8);
	});

	describe('a burst: requests sent at once, as n8n runs form executions in parallel', () => {
		it('six from one new e-mail address within the same moment: three audits (the first three recorded), three refused', async () => {
			const pages = Array.from({ length: 6 }, (_, n) => `https://shop-${n}.example/`);
			const results = await Promise.all(pages.map(async (page) => await submit(page, 'eager@example.com')));

			const titles = results.map((result) => result.completion?.title);
			expect(titles.filter((title) => /^Your page scores/.test(String(title)))).toHaveLength(3);
			expect(results.filter((result) => result.completion?.message.startsWith('You have had 3 free audits today'))).toHaveLength(3);
			const rows = [...requestRows()].sort((a, b) => Number(a.id) - Number(b.id));
			expect(rows.map((row) => row.status)).toEqual(['emailed', 'emailed', 'emailed', 'refused', 'refused', 'refused']);
			expect(analyses()).toBe(3);
			expect(leadRows()).toHaveLength(3);
			// The refused ones never become audits: the schedule leaves them.
			jest.setSystemTime(Date.now() + 61 * MINUTE);
			expect((await drain()).executedNodes).toEqual([SCHEDULE, 'Queued requests']);
		});

		it("twelve visitors asking for one site at once: its ten a day, two refused naming the site", async () => {
			const results = await Promise.all(Array.from({ length: 12 }, async (_, n) => await submit(`https://popular.example/page-${n}`, `v${n}@example.com`)));

			expect(results.filter((result) => /^Your page scores/.test(String(result.completion?.title)))).toHaveLength(10);
			expect(results.filter((result) => result.completion?.message.startsWith('popular.example has had 10 free audits today'))).toHaveLength(2);
			expect(analyses()).toBe(10);
		});

		it('twenty visitors at once: every one gets the form\'s answer, every e-mail is sent once, no request is left queued', async () => {
			const visitors = Array.from({ length: 20 }, (_, n) => ({ page: `https://site-${n}.example/`, email: `visitor-${n}@example.com` }));
			const results = await Promise.all(visitors.map(async ({ page, email }) => await submit(page, email)));

			expect(results.map((result) => [result.error, result.completion?.title.startsWith('Your page scores')])).toEqual(visitors.map(() => [undefined, true]));
			expect(results.flatMap((result) => emails(result).map((email) => email.to)).sort()).toEqual(visitors.map(({ email }) => email).sort());
			expect(requestRows().map((row) => row.status)).toEqual(visitors.map(() => 'emailed'));
			expect(leadRows().map((row) => row.status)).toEqual(visitors.map(() => 'emailed'));
		});
	});
});

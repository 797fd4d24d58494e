/**
 * The free SEO audit form (examples/free-seo-audit-form.json) as a visitor meets it: the workflow set up as its note
 * says (its two Data tables made, an SMTP credential on Send e-mail pointing at a real SMTP server the suite starts,
 * on n8n 1.x the tables picked in the nodes the note names) and published, its form filled in and sent in headless
 * Chromium. The completion page's score is compared with the report phpRank holds, the e-mail with what the SMTP
 * server received, the lead with the row n8n's REST API reads. With phpRank's rate limit spent, the visitor is told
 * the report comes by e-mail, and the published schedule sends it once the limit frees: one e-mail, the lead then
 * saying so. The schedule runs each minute: `startAuditFormChecks` leaves the queued request to it while the leg's
 * checks that do not touch phpRank run, and `finish` then reads what it did.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';

import { chromium, type Browser, type Page } from 'playwright-core';

import type { PhpRankServer } from '../../dev/server';
import { AUDIT_FORM_TABLES, topIssues } from '../../dev/examples';
import { dataTableRows, ensureDataTables, personalProjectId } from '../../dev/n8n/dataTables';
import { withDataTableIds, type Example, type WorkflowJson } from '../../dev/n8n/examples';
import { activateWorkflow, getExecution, listExecutions } from '../../dev/n8n/executions';
import type { N8nRest } from '../../dev/n8n/n8n';
import { majorOf } from '../../dev/n8n/n8nVersions';
import { waitFor } from '../../dev/n8n/util';
import { assert, assertEqual, type Checks } from './checks';
import { smtpCredentialFor, startSmtpInbox, type SmtpInbox } from './smtpInbox';

export const AUDIT_FORM_FILE = 'free-seo-audit-form.json';
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PAGE = 'https://www.brewshop.example/';
const VISITOR = 'visitor@example.com';
/** A page whose address needs escaping in HTML (phpRank stores `&` and `'`); n8n's form refuses an e-mail address with `'`. */
const ODD_PAGE = "https://shop.example/search?q=cold&who=it's";
const ODD_VISITOR = 'seo+tea@tea.example';
const SCHEDULE = 'Every minute';
/** Addresses the suite's mail server refuses: for good (550), and for now (451). */
const UNKNOWN_VISITOR = 'nobody@tea.example';
const BUSY_VISITOR = 'busy@tea.example';
/** Sent at once: six from one new address (its limit is 3 a day), the others from a visitor each. */
const BURST_FROM_ONE = 6;
/** How long a visitor of the burst waits for the form's answer. */
const BURST_ANSWER_MS = 180_000;
const BURST = Array.from({ length: 20 }, (_, n) => (n < BURST_FROM_ONE ? { address: `https://burst-${n}.example/`, email: 'eager@example.com' } : { address: `https://visitor-${n}.example/`, email: `visitor-${n}@example.com` }));
/** The phpRank rate-limit window the queued request waits out. */
const RATE_WINDOW_SECONDS = 20;

interface AuditFormContext {
	example: Example;
	rest: N8nRest;
	n8nUrl: string;
	n8nVersion: string;
	phpRank: PhpRankServer;
	screenshotsDir: string;
}

interface Shown {
	title: string;
	text: string;
	links: string[];
}

/** The form at `url` opened and filled in as a visitor does, not sent yet. */
async function fillForm(page: Page, url: string, address: string, email: string): Promise<void> {
	const answer = await page.goto(url);
	assertEqual(answer?.status(), 200, `status of GET ${url}`);
	await page.locator('#field-0').fill(address);
	await page.locator('#field-1').fill(email);
	await page.locator('#field-2 input[type="checkbox"]').check();
}

/** The form at `url` filled in and sent as a visitor does; what the page the visitor lands on shows. */
async function sendForm(page: Page, url: string, address: string, email: string): Promise<Shown> {
	await fillForm(page, url, address, email);
	return await submitForm(page);
}

/** Sends the form the page holds; what the page the visitor lands on shows. */
async function submitForm(page: Page, timeoutMs = 60_000): Promise<Shown> {
	// What n8n answered the form's posts: a failure says whether n8n itself refused one (503).
	const answered: string[] = [];
	page.on('response', (response) => {
		if (response.request().method() === 'POST') answered.push(`${response.status()} ${new URL(response.url()).pathname}`);
	});
	await page.locator('#submit-btn').click();
	const heading = page.locator('.card .header h1');
	// n8n's own page for an execution that failed: no need to wait out the timeout.
	const failed = page.locator('#submitted-header', { hasText: 'Problem submitting response' });
	const failure = failed.waitFor({ state: 'visible', timeout: timeoutMs }).then(
		() => Promise.reject(new Error('n8n says the execution failed')),
		// Not shown (the page answered, or closed): this side of the race never ends it.
		async () => await new Promise<void>(() => undefined),
	);
	await Promise.race([heading.waitFor({ state: 'visible', timeout: timeoutMs }), failure]).catch(async (error: unknown) => {
		const body = await page.evaluate(() => document.body.innerText.replace(/\s+/g, ' ').slice(0, 300)).catch(() => '');
		throw new Error(`no completion page after ${timeoutMs / 1000} s, n8n answering its posts ${answered.join(', ') || 'nothing'}, at ${page.url()}, which shows "${body.slice(0, 80)}": ${String(error).split('\n')[0]}`);
	});
	return await page.evaluate(() => ({
		title: document.querySelector('.card .header h1')?.textContent?.trim() ?? '',
		text: (document.querySelector('.card .header p') as HTMLElement | null)?.innerText.trim() ?? '',
		links: Array.from(document.querySelectorAll('.card .header a')).map((link) => link.getAttribute('href') ?? ''),
	}));
}

/** What is left to check once the schedule has had time to send the queued report; ends the form's run. */
export interface AuditFormChecks {
	finish: () => Promise<void>;
}

/** Why the form's executions since `time` failed: each one's node and message, for a check's failure to say. */
async function failuresSince(rest: N8nRest, workflowId: string, time: number): Promise<string> {
	const failed = (await listExecutions(rest, workflowId)).filter((execution) => ['error', 'crashed'].includes(execution.status) && Date.parse(String((execution as { startedAt?: string }).startedAt)) >= time);
	const reasons = await Promise.all(
		failed.map(async ({ id }) => {
			const { data } = await getExecution(rest, id);
			const error = data?.resultData?.error;
			return `${id} at "${error?.node?.name ?? data?.resultData?.lastNodeExecuted ?? '?'}": ${error?.message ?? 'no error kept'}`;
		}),
	);
	return reasons.length ? `; failed executions: ${reasons.join(' | ')}` : '; no failed execution';
}

/** A run of the schedule that started after `time` and has ended. */
const ranAfter = (execution: { status: string }, time: number) => {
	const { mode, startedAt } = execution as { mode?: string; startedAt?: string };
	return mode === 'trigger' && Date.parse(String(startedAt)) > time + 1000 && execution.status === 'success';
};

const creates = (phpRank: PhpRankServer) => phpRank.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/api/v1/reports')).length;

export async function startAuditFormChecks(checks: Checks, context: AuditFormContext): Promise<AuditFormChecks> {
	const { example, rest, n8nVersion, phpRank } = context;
	const startedAt = Date.now();
	const formUrl = `${context.n8nUrl}/form/${String((example.workflow.nodes.find((node) => node.type === 'n8n-nodes-base.formTrigger')?.parameters.options as { path?: string } | undefined)?.path)}`;
	let inbox: SmtpInbox | undefined;
	let browser: Browser | undefined;
	let published = false;
	const unpublish = async () => {
		await browser?.close();
		await inbox?.close();
		if (!published) return;
		// Its schedule runs every minute while published: the checks after these do without it.
		await rest.call('POST', `/rest/workflows/${example.id}/deactivate`, majorOf(n8nVersion) < 2 ? undefined : {}).catch(async () => {
			const { versionId } = await rest.call<{ versionId: string }>('GET', `/rest/workflows/${example.id}`);
			await rest.call('PATCH', `/rest/workflows/${example.id}`, { active: false, versionId });
		});
	};
	try {
		inbox = await checks.step('an SMTP server listens on 127.0.0.1 for the audit form', async () => await startSmtpInbox({ refused: { [UNKNOWN_VISITOR]: 550, [BUSY_VISITOR]: 451 } }), (started) => `port ${started.port}, refuses ${UNKNOWN_VISITOR} (550), ${BUSY_VISITOR} (451)`);
		const smtp = inbox;
		const projectId = await personalProjectId(rest);
		const ids = await ensureDataTables(rest, projectId, Object.values(AUDIT_FORM_TABLES));
		const rows = async (table: keyof typeof AUDIT_FORM_TABLES) => await dataTableRows(rest, projectId, ids[AUDIT_FORM_TABLES[table].name]);

		await checks.step(`examples/${example.file} set up as its note says and published: ${formUrl}`, async () => {
			const credential = await smtpCredentialFor(rest, smtp, "SMTP (the suite's server, audit form)");
			const stored = await rest.call<WorkflowJson & { versionId: string }>('GET', `/rest/workflows/${example.id}`);
			const picked = majorOf(n8nVersion) < 2 ? withDataTableIds(stored, ids) : stored;
			const nodes = picked.nodes.map((node) => (node.type === 'n8n-nodes-base.emailSend' ? { ...node, credentials: { smtp: { id: credential.id, name: credential.name } } } : node));
			await rest.call('PATCH', `/rest/workflows/${example.id}`, { versionId: stored.versionId, nodes });
			published = true;
			await activateWorkflow(rest, n8nVersion, { workflowId: example.id });
			return `${Object.keys(ids).join(', ')} made`;
		});
		mkdirSync(context.screenshotsDir, { recursive: true });
		const launched = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, timeout: 60_000, args: ['--disable-gpu', '--disable-quic'] });
		browser = launched;
		const page = await (await launched.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
		const shot = async (file: string) => {
			await page.screenshot({ path: path.join(context.screenshotsDir, file), fullPage: true, animations: 'disabled' });
			return file;
		};

		await checks.check(`audit form in Chromium: ${PAGE} sent, the completion page shows phpRank's score, grade, top issues and report link; the e-mail reaches the SMTP server; the lead is kept`, async () => {
			phpRank.reset();
			const shown = await sendForm(page, formUrl, PAGE, VISITOR);
			const report = phpRank.reports().find((candidate) => candidate.targetUrl === PAGE);
			assert(report, `phpRank holds no report of ${PAGE}`);
			const issues = topIssues(report);
			assertEqual(shown.title, `Your page scores ${report.result}/100`, 'completion page title');
			assert(shown.text.includes(`${report.result}/100, graded bad.`), `completion page: "${shown.text}"`);
			for (const [index, issue] of issues.entries()) assert(shown.text.includes(`${index + 1}. ${issue}`), `completion page lacks the issue "${issue}": "${shown.text}"`);
			assertEqual(shown.links, [PAGE, `${phpRank.url}/reports/${report.id}`], 'the page\'s links: the page and its report');
			const mail = await waitFor('the e-mail to the visitor', async () => smtp.received().find((candidate) => candidate.to.includes(VISITOR)), { timeoutMs: 30_000, intervalMs: 1000 });
			assertEqual(mail.subject, `Your SEO audit: www.brewshop.example scores ${report.result}/100`, 'subject');
			assert(mail.text.includes(`Score: ${report.result}/100 (bad)`) && issues.every((issue) => mail.text.includes(issue)), `the text part: ${mail.text}`);
			assert(mail.html.includes(`href="${phpRank.url}/reports/${report.id}"`), 'the HTML part does not link the report');
			const leads = (await rows('leads')).filter((lead) => lead.email === VISITOR);
			assertEqual(leads.map((lead) => [lead.url, lead.status, lead.score]), [[PAGE, 'emailed', report.result]], `${AUDIT_FORM_TABLES.leads.name}: the visitor's row`);
			return `"${shown.title}", ${issues.join(', ')}; ${await shot('audit-form-report.png')}`;
		});

		await checks.check('audit form in Chromium: the same page asked for again the same day costs no analysis; the second visitor gets the report too', async () => {
			const before = creates(phpRank);
			const shown = await sendForm(page, formUrl, PAGE, 'second@example.com');
			assert(shown.title.startsWith('Your page scores '), `completion page title "${shown.title}"`);
			assertEqual(creates(phpRank) - before, 0, 'creates phpRank received');
			assertEqual(phpRank.reports().length, 1, 'reports phpRank holds');
			await waitFor('the e-mail to the second visitor', async () => smtp.received().find((candidate) => candidate.to.includes('second@example.com')), { timeoutMs: 30_000, intervalMs: 1000 });
			return shown.title;
		});

		// Other spellings of phpRank's own address (this machine): refused as the URL parser reads them.
		const phpRankPort = new URL(phpRank.url).port;
		const loopback = '127.0.0.1 is not on the public web: it is this machine (a loopback address). We audit public pages only.';
		for (const [address, why] of [
			['ftp://example.com/file', 'The address must start with http:// or https://.'],
			['http://192.168.1.10/admin', '192.168.1.10 is not on the public web: it is a private network address. We audit public pages only.'],
			[`http://127.1:${phpRankPort}/`, loopback],
			[`http://0177.0.0.1:${phpRankPort}/`, loopback],
			[`http://%31%32%37.0.0.1:${phpRankPort}/`, loopback],
			[`http://[0:0:0:0:0:0:0:1]:${phpRankPort}/`, '[::1] is not on the public web: it is this machine (a loopback address). We audit public pages only.'],
			[`http://[::ffff:127.0.0.1]:${phpRankPort}/`, '[::ffff:7f00:1] is not on the public web: it is this machine (a loopback address). We audit public pages only.'],
			['http://0xa9fea9fe/latest/meta-data/', '169.254.169.254 is not on the public web: it is the cloud metadata address. We audit public pages only.'],
		] as const) {
			await checks.check(`audit form in Chromium: ${address} refused, the form says why, phpRank is not asked`, async () => {
				const before = phpRank.requests.length;
				const mails = smtp.received().length;
				const shown = await sendForm(page, formUrl, address, VISITOR);
				assertEqual(shown.title, 'We could not audit this page', 'completion page title');
				assertEqual(shown.text.split('\n')[0], why, 'completion page, the reason');
				assertEqual(phpRank.requests.length - before, 0, 'requests phpRank received');
				assertEqual(smtp.received().length - mails, 0, 'e-mails sent');
				return `"${why}"`;
			});
		}

		await checks.check(`audit form in Chromium: the mail server refuses ${UNKNOWN_VISITOR} (550): the page shows the score and says so; the request and the lead end as addressRefused. It answers ${BUSY_VISITOR} 451: the e-mail is said to come, the request queued for the schedule`, async () => {
			const refused = await sendForm(page, formUrl, 'https://refused.example/', UNKNOWN_VISITOR);
			assert(refused.title.startsWith('Your page scores '), `completion page title "${refused.title}"`);
			assert(refused.text.endsWith(`We could not e-mail it to ${UNKNOWN_VISITOR}: the mail server refused the address.`), `completion page: "${refused.text}"`);
			const busy = await sendForm(page, formUrl, 'https://busy.example/', BUSY_VISITOR);
			assert(busy.text.endsWith(`It comes by e-mail to ${BUSY_VISITOR} in a few minutes.`), `completion page: "${busy.text}"`);
			const requests = await rows('requests');
			const of = (email: string) => requests.filter((row) => row.email === email).map((row) => [row.status, String(row.reason).replace(/:.*/s, '')]);
			assertEqual(of(UNKNOWN_VISITOR), [['addressRefused', 'The mail server refused the address']], `${AUDIT_FORM_TABLES.requests.name}: ${UNKNOWN_VISITOR}`);
			assert(requests.some((row) => row.email === UNKNOWN_VISITOR && String(row.reason).includes('550')), 'the refusal\'s reason does not give the server\'s 550');
			assertEqual(of(BUSY_VISITOR), [['queued', 'E-mail try 1 of 8 failed']], `${AUDIT_FORM_TABLES.requests.name}: ${BUSY_VISITOR}`);
			assert(requests.some((row) => row.email === BUSY_VISITOR && String(row.reason).includes('451')), 'the busy reply\'s reason does not give the server\'s 451');
			const leads = (await rows('leads')).filter((lead) => lead.email === UNKNOWN_VISITOR);
			assertEqual(leads.map((lead) => lead.status), ['addressRefused'], `${AUDIT_FORM_TABLES.leads.name}: ${UNKNOWN_VISITOR}`);
			return `"${refused.text.slice(refused.text.lastIndexOf('We could'))}"`;
		});

		await checks.check(`audit form in Chromium: ${BURST.length} visitors send the form at once (n8n runs the executions in parallel): every one gets the form's answer; ${BURST_FROM_ONE} from one new e-mail address get 3 audits and ${BURST_FROM_ONE - 3} refusals; every e-mail sent once; no request left queued`, async () => {
			const visitors = await launched.newContext({ viewport: { width: 1000, height: 800 } });
			try {
				// Each visitor's form opened and filled in first, then all sent in the same moment.
				const pages: Page[] = [];
				for (const { address, email } of BURST) {
					const visitor = await visitors.newPage();
					await fillForm(visitor, formUrl, address, email);
					pages.push(visitor);
				}
				const sentAt = Date.now();
				// Twenty executions at once on 2 cores: an answer may take minutes on n8n 1.x; the visitor's page waits for it.
				const shown = await Promise.all(pages.map(async (visitor) => await submitForm(visitor, BURST_ANSWER_MS).catch((error: unknown) => ({ title: '', text: String(error), links: [] }))));
				const answers = shown.map((answer) =>
					answer.title.startsWith('Your page scores ') ? 'report' : answer.text.startsWith('You have had 3 free audits today') ? 'limit' : `"${answer.title}: ${answer.text.slice(0, 300)}"`,
				);
				const lost = answers.filter((answer) => answer !== 'report' && answer !== 'limit');
				const failures = lost.length > 0 ? await failuresSince(rest, example.id, sentAt) : '';
				// Started as the docs ask (n8n 2.x: DB_PING_TIMEOUT_MS; n8n 1.x: DB_SQLITE_POOL_SIZE), n8n answers every visitor.
				assertEqual(lost, [], `visitors without the form's answer${failures}`);
				const requests = (await rows('requests')).filter((row) => BURST.some(({ email }) => email === row.email));
				const count = (status: string) => requests.filter((row) => row.status === status).length;
				const fromOne = requests.filter((row) => row.email === BURST[0].email);
				const allowed = Math.min(3, fromOne.length);
				assertEqual(
					[count('queued'), count('emailed') + count('refused'), fromOne.filter((row) => row.status === 'emailed').length, count('refused')],
					[0, requests.length, allowed, fromOne.length - allowed],
					`${AUDIT_FORM_TABLES.requests.name}: the burst's rows queued, emailed or refused, the eager address's emailed, refused (${requests.length} rows)`,
				);
				const shownReports = answers.filter((answer) => answer === 'report').length;
				const shownLimits = answers.filter((answer) => answer === 'limit').length;
				assertEqual([requests.length, fromOne.length], [BURST.length, BURST_FROM_ONE], `${AUDIT_FORM_TABLES.requests.name}: the burst's rows, the eager address's`);
				assertEqual([shownReports, shownLimits], [count('emailed'), count('refused')], `reports and refusals shown, one per row (${answers.join(', ')})`);
				const emailed = requests.filter((row) => row.status === 'emailed').map((row) => String(row.email));
				await waitFor('the burst\'s e-mails', async () => (emailed.every((email) => smtp.received().some((mail) => mail.to.includes(email))) ? true : undefined), { timeoutMs: 30_000, intervalMs: 1000 });
				const mails = smtp.received().filter((mail) => BURST.some(({ email }) => mail.to.includes(email)));
				assertEqual(mails.length, emailed.length, 'e-mails the SMTP server received for the burst, one per request e-mailed');
				const leads = (await rows('leads')).filter((lead) => BURST.some(({ email }) => email === lead.email));
				assertEqual(leads.map((lead) => lead.status).sort(), emailed.map(() => 'emailed'), `${AUDIT_FORM_TABLES.leads.name}: the burst's leads`);
				// n8n answers again before the next visitor comes.
				await waitFor('n8n ready after the burst', async () => ((await fetch(`${context.n8nUrl}/healthz/readiness`)).ok ? true : undefined), { timeoutMs: 60_000, intervalMs: 1000 });
				return `${count('emailed')} reports, ${count('refused')} refused at the limit, ${mails.length} e-mails, every visitor answered`;
			} finally {
				await visitors.close();
			}
		});

		// Room for one audit a window (a look-up and the analysis), spent from this address, n8n's too; lifted once the
		// request is seen queued, so that a later run of the schedule finds phpRank answering while the leg goes on.
		const queued = await checks.step(`audit form in Chromium: phpRank's rate limit spent, the visitor is told the report comes by e-mail; the request queued, the lead kept`, async () => {
			phpRank.setRateLimit({ maxAttempts: 3, decaySeconds: RATE_WINDOW_SECONDS });
			try {
				for (let spent = 0; spent < 3; spent++) {
					await fetch(`${phpRank.url}/api/v1/account`, { headers: { authorization: `Bearer ${phpRank.apiKey}`, accept: 'application/json' } });
				}
				const shown = await sendForm(page, formUrl, ODD_PAGE, ODD_VISITOR);
				assertEqual(shown.title, 'Your report is on its way', 'completion page title');
				assertEqual(shown.text, `Our SEO service is busy right now. Your report of ${ODD_PAGE} comes by e-mail to ${ODD_VISITOR} in a few minutes.`, 'completion page text');
				// Read while the limit is still spent: a run of the schedule meanwhile finds it spent too.
				const requests = (await rows('requests')).filter((row) => row.email === ODD_VISITOR);
				assertEqual(requests.map((row) => row.status), ['queued'], `${AUDIT_FORM_TABLES.requests.name}: the request`);
				assert(String(requests[0].reason).includes('429'), `the request's reason "${String(requests[0].reason)}" is not phpRank's 429`);
				const leads = (await rows('leads')).filter((lead) => lead.email === ODD_VISITOR);
				assertEqual(leads.map((lead) => [lead.requestId, lead.status]), [[requests[0].id, 'queued']], `${AUDIT_FORM_TABLES.leads.name}: the queued visitor's lead`);
				assertEqual(smtp.received().filter((mail) => mail.to.includes(ODD_VISITOR)).length, 0, 'e-mails to the visitor while the limit is spent');
			} finally {
				phpRank.setRateLimit(false);
			}
			await shot('audit-form-queued.png');
			return { at: Date.now() };
		});
		await browser.close();
		browser = undefined;
		checks.info(`audit form: ${Math.round((Date.now() - startedAt) / 1000)} s to the queued request`);

		return {
			finish: async () => {
				const finishing = Date.now();
				try {
					await checks.check(`audit form: the schedule (*${SCHEDULE}*) sends the queued report once phpRank answers again, one e-mail, escaped; the lead then says e-mailed, with the score`, async () => {
						const mail = await waitFor('the schedule\'s e-mail to the queued visitor', async () => smtp.received().find((candidate) => candidate.to.includes(ODD_VISITOR)), {
							timeoutMs: Math.max(5_000, queued.at + 150_000 - Date.now()),
							intervalMs: 1000,
						});
						const report = phpRank.reports().find((candidate) => candidate.targetUrl === new URL(ODD_PAGE).href);
						assert(report, `phpRank holds no report of ${ODD_PAGE}`);
						assertEqual(mail.subject, `Your SEO audit: shop.example scores ${report.result}/100`, 'subject');
						assert(mail.html.includes('search?q=cold&amp;who=it&#39;s'), 'the HTML part does not show the page address escaped');
						assert(mail.text.includes(`SEO audit of ${ODD_PAGE}`), 'the text part does not show the page address as written');
						const emailed = (await rows('requests')).filter((row) => row.email === ODD_VISITOR);
						assertEqual(emailed.map((row) => [row.status, row.score]), [['emailed', report.result]], `${AUDIT_FORM_TABLES.requests.name}: the request once sent`);
						// Marked e-mailed right after the e-mail went: the run that sent it started before.
						const sentAt = Date.parse(String(emailed[0].updatedAt));
						assert(Number.isFinite(sentAt), `the request row's updatedAt "${String(emailed[0].updatedAt)}" is not a time`);
						const leads = (await rows('leads')).filter((lead) => lead.email === ODD_VISITOR);
						assertEqual(leads.map((lead) => [lead.status, lead.score, lead.reportUrl]), [['emailed', report.result, `${phpRank.url}/reports/${report.id}`]], `${AUDIT_FORM_TABLES.leads.name}: the queued visitor's lead once sent`);
						// A run of the schedule after the e-mail: nothing is sent twice.
						await waitFor(
							`a run of *${SCHEDULE}* after the e-mail`,
							async () => ((await listExecutions(rest, example.id)).some((execution) => ranAfter(execution, sentAt)) ? true : undefined),
							{ timeoutMs: 100_000, intervalMs: 2000 },
						);
						assertEqual(smtp.received().filter((candidate) => candidate.to.includes(ODD_VISITOR)).length, 1, 'e-mails to the queued visitor');
						return `"${mail.subject}" ${Math.round((sentAt - queued.at) / 1000)} s after the form`;
					});
				} finally {
					checks.info(`audit form: ${Math.round((Date.now() - finishing) / 1000)} s waiting on the schedule after the checks between`);
					await unpublish();
				}
			},
		};
	} catch (error) {
		await unpublish();
		throw error;
	}
}

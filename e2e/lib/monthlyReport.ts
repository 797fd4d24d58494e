/**
 * The monthly client report (examples/monthly-client-report.json) in a started n8n, after the site audit has written
 * its run into the Data tables: Send Email over an SMTP credential pointing at a real SMTP server the suite starts, the
 * workflow run as of the 1st of the month after that run (the schedule's output pinned), and the messages received
 * checked against the Data tables' rows. Three more sites' runs are written into the tables first, as a real history
 * has them: one without a client, one whose client's address the mail server refuses, and one whose name and page URL
 * need escaping, its runs written out of order (n8n 1.x's Data table node returns rows as written, whatever the sort).
 */
import { AUDIT_HISTORY_TABLES, checkTitlesOf, monthlyReportText } from '../../dev/examples';
import { dataTableRows, ensureDataTables, insertDataTableRows, personalProjectId } from '../../dev/n8n/dataTables';
import { withDataTableIds, type Example, type WorkflowJson, type WorkflowNode } from '../../dev/n8n/examples';
import { itemsOf, runManually, waitForExecution } from '../../dev/n8n/executions';
import type { N8nRest } from '../../dev/n8n/n8n';
import { majorOf } from '../../dev/n8n/n8nVersions';
import { assert, assertEqual, type Checks } from './checks';
import { REFUSAL, smtpCredentialFor, startSmtpInbox } from './smtpInbox';

export const MONTHLY_REPORT_FILE = 'monthly-client-report.json';
const TRIGGER = 'On the 1st at 08:00';
/** The bundled audit site, which the site audit example audits. */
const SITE = '127.0.0.1';
const CLIENT = 'owner@brewshop.example';
/** A site without a client, one whose client's address the SMTP server refuses, and one with a name to escape. */
const NO_CLIENT_SITE = 'archive.example';
const REFUSED_SITE = 'bakery.example';
const REFUSED = 'nobody@bakery.example';
export const HOSTILE_SITE = `tea&co's <b>"shop"</b>.example`;
/** A URL phpRank 1.5 stores (it refuses `"<>`): `&`, `'` and `%3C…%3E` in its query. */
export const HOSTILE_URL = "https://tea.example/search?q=%3Cb%3Ecold%3C/b%3E&who=it's";
const HOSTILE_CLIENT = 'tea@tea.example';
const HOUR = 3_600_000;

type Row = Record<string, unknown>;

/** A run of one page of `site` at `runId`, as the site audit writes it. */
function onePageRun(site: string, url: string, runId: string, score: number): { run: Row; page: Row } {
	return {
		run: { runId, runAt: runId, site, pages: 1, averageScore: score, good: 0, decent: 0, bad: 1, notAnalyzed: 0 },
		page: { runId, runAt: runId, site, url, score, grade: 'bad', failedHigh: 'meta_description', failedMedium: 'charset', failedLow: '', reportId: 99, reportUrl: 'https://phprank.example/reports/99?a=1&b=2', error: '' },
	};
}

const setting = (node: WorkflowNode | undefined, name: string) =>
	(node?.parameters.assignments as { assignments: Array<{ name: string; value: string }> } | undefined)?.assignments.find((assignment) => assignment.name === name);

export async function runMonthlyReportCheck(checks: Checks, { rest, n8nVersion, example }: { rest: N8nRest; n8nVersion: string; example: Example }): Promise<void> {
	const inbox = await checks.step('an SMTP server listens on 127.0.0.1, refusing one address', async () => await startSmtpInbox({ refused: [REFUSED] }), (started) => `port ${started.port}, refuses ${REFUSED}`);
	try {
		const projectId = await personalProjectId(rest);
		const ids = await ensureDataTables(rest, projectId, Object.values(AUDIT_HISTORY_TABLES));
		const read = async () => ({
			runs: await dataTableRows(rest, projectId, ids[AUDIT_HISTORY_TABLES.runs.name]),
			pages: await dataTableRows(rest, projectId, ids[AUDIT_HISTORY_TABLES.pages.name]),
		});
		const audited = (await read()).runs.filter((run) => run.site === SITE);
		assert(audited.length > 0, `${AUDIT_HISTORY_TABLES.runs.name} holds no run of ${SITE}: the site audit did not write its history`);
		// The report covers the month of the site's last run: it runs on the 1st of the month after.
		const lastRun = new Date(String(audited.at(-1)!.runId));
		const monthStart = new Date(Date.UTC(lastRun.getUTCFullYear(), lastRun.getUTCMonth(), 1));
		const firedAt = new Date(Date.UTC(lastRun.getUTCFullYear(), lastRun.getUTCMonth() + 1, 1, 8)).toISOString();
		const at = (offset: number) => new Date(monthStart.getTime() + offset).toISOString();

		await checks.step(`${NO_CLIENT_SITE}, ${REFUSED_SITE} and ${HOSTILE_SITE} audited that month, written into the Data tables; the last's runs the latest first`, async () => {
			const written = [
				onePageRun(NO_CLIENT_SITE, 'https://archive.example/', at(HOUR), 30),
				onePageRun(REFUSED_SITE, 'https://bakery.example/', at(HOUR), 35),
				onePageRun(HOSTILE_SITE, HOSTILE_URL, at(2 * HOUR), 55),
				onePageRun(HOSTILE_SITE, HOSTILE_URL, at(HOUR), 40),
				onePageRun(HOSTILE_SITE, HOSTILE_URL, at(-240 * HOUR), 50),
			];
			await insertDataTableRows(rest, projectId, ids[AUDIT_HISTORY_TABLES.runs.name], written.map((entry) => entry.run));
			await insertDataTableRows(rest, projectId, ids[AUDIT_HISTORY_TABLES.pages.name], written.map((entry) => entry.page));
		});

		await checks.check(`examples/${example.file}: each client's e-mail a real SMTP server received, its figures the Data tables'; the refused address fails alone`, async () => {
			const tables = await read();
			const credential = await smtpCredentialFor(rest, inbox, "SMTP (the suite's server)");
			const stored = await rest.call<WorkflowJson & { versionId: string }>('GET', `/rest/workflows/${example.id}`);
			const withTables = majorOf(n8nVersion) < 2 ? withDataTableIds(stored, ids) : stored;
			const clients = { [SITE]: CLIENT, [REFUSED_SITE]: REFUSED, [HOSTILE_SITE]: HOSTILE_CLIENT };
			// What the note tells a user: the clients in Report settings, the SMTP credential on Send e-mail.
			const nodes = withTables.nodes.map((node) => {
				if (node.type === 'n8n-nodes-base.emailSend') return { ...node, credentials: { smtp: { id: credential.id, name: credential.name } } };
				if (node.name !== 'Report settings') return node;
				const edited = structuredClone(node);
				setting(edited, 'clients')!.value = `={{ ${JSON.stringify(clients)} }}`;
				return edited;
			});
			await rest.call('PATCH', `/rest/workflows/${example.id}`, { versionId: stored.versionId, nodes, pinData: { [TRIGGER]: [{ json: { timestamp: firedAt } }] } });

			const executionId = await runManually(rest, n8nVersion, { id: example.id, nodes }, TRIGGER);
			const execution = await waitForExecution(rest, executionId, 120_000);
			const error = execution.data.resultData.error;
			assert(!error, `the run failed at "${error?.node?.name ?? execution.data.resultData.lastNodeExecuted}": ${error?.message}`);
			assertEqual(execution.status, 'success', `status of execution ${executionId}`);

			const mails = inbox.received();
			assertEqual(mails.map((mail) => mail.to), [[CLIENT], [HOSTILE_CLIENT]], 'recipients of the messages received (the refused address and the site without a client get none)');
			const dashboardUrl = String(setting(stored.nodes.find((node) => node.name === 'Report settings'), 'dashboardUrl')?.value);
			const titles = checkTitlesOf(stored);
			for (const [mail, site] of [[mails[0], SITE], [mails[1], HOSTILE_SITE]] as const) {
				const expected = monthlyReportText(tables, { site, monthStart: monthStart.toISOString(), dashboardUrl, titles });
				assertEqual(mail.text.replace(/\r\n/g, '\n').trimEnd(), expected, `the text part to ${mail.to[0]}, as the Data tables' rows give it`);
				const htmlText = mail.html.replace(/<\/?a\b[^>]*>/g, '').replace(/<[^>]+>/g, '\n').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
				const missing = expected
					.split('\n')
					.filter((line) => line && !line.startsWith('Your dashboard'))
					.map((line) => line.replace(/^- /, '').replace(/ http\S+$/, ''))
					.filter((line) => !htmlText.includes(line));
				assertEqual(missing, [], `lines of the text part to ${mail.to[0]} missing from the HTML part`);
				assert(mail.subject.startsWith(`SEO report for ${site}, `), `subject "${mail.subject}" does not name ${site}`);
			}
			// The bundled audit site's two broken links, with the pages linking to them, and the issues by what fixing them is worth.
			const brokenLines = mails[0].text.replace(/\r\n/g, '\n').split('\nBroken links\n')[1]?.split('\n\n')[0].split('\n') ?? [];
			assert(brokenLines.length === 2 && brokenLines.every((line) => / \(4\d\d\) linked from http\S+ "/.test(line)), `the broken links of ${SITE}: ${JSON.stringify(brokenLines)}`);
			assert(/\nTop issues by what fixing them is worth \(average score gained if fixed on every page\)\n- [^\n]+: \+\d+\.\d, \d+ pages?\n/.test(mails[0].text.replace(/\r\n/g, '\n')), `the issues by what fixing them is worth of ${SITE} are missing`);
			// The last run of the month was written before an earlier one: the report must still take it.
			assert(mails[1].subject.includes('average score 55.0 (+5.0)'), `subject "${mails[1].subject}": not the month's last run (55.0) against the month before's (50.0)`);
			assert(mails[0].html.includes(`href="${dashboardUrl}?site=${SITE}"`), 'the HTML part does not link the dashboard');
			const hostile = mails[1].html;
			assert(hostile.includes('SEO report for tea&amp;co&#39;s &lt;b&gt;&quot;shop&quot;&lt;/b&gt;.example'), 'the HTML part does not show the site name escaped');
			assert(hostile.includes('search?q=%3Cb%3Ecold%3C/b%3E&amp;who=it&#39;s'), 'the HTML part does not show the page URL escaped');
			assert(!/<b>|"shop"/.test(hostile), 'the site name became markup in the HTML part');
			assert(mails[1].text.includes(`- ${HOSTILE_URL}: 55/100 (bad)`), 'the text part does not show the page URL as written');

			const [outcome] = itemsOf(execution, 'What was sent');
			assertEqual(execution.data.resultData.lastNodeExecuted, 'What was sent', 'the last node run');
			assertEqual(outcome?.sent, [{ site: SITE, to: CLIENT }, { site: HOSTILE_SITE, to: HOSTILE_CLIENT }], "the run's output: sent");
			const monthEnd = new Date(Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth() + 1, 1)).toISOString();
			const withoutClient = [...new Set(tables.runs.filter((run) => String(run.runId) >= monthStart.toISOString() && String(run.runId) < monthEnd).map((run) => String(run.site)))]
				.filter((site) => !(site in clients))
				.sort();
			assert(withoutClient.includes(NO_CLIENT_SITE), `${NO_CLIENT_SITE} is not among the sites audited that month`);
			assertEqual(outcome?.skipped, withoutClient.map((site) => ({ site, reason: 'no client address in Report settings' })), "the run's output: skipped (each site audited that month without a client)");
			const failed = outcome?.failed as Array<{ site: string; to: string; error: string }> | undefined;
			assertEqual(failed?.map(({ site, to }) => ({ site, to })), [{ site: REFUSED_SITE, to: REFUSED }], "the run's output: failed");
			const refusal = failed?.[0]?.error ?? '';
			assert(refusal.includes('550') && refusal.includes(REFUSAL), `the failed e-mail's error "${refusal}" is not the SMTP server's refusal`);
			return `execution ${executionId}: "${String(outcome.summary)}"`;
		});
	} finally {
		await inbox.close();
	}
}

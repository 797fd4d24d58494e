/**
 * The monthly client report (examples/monthly-client-report.json) in a started n8n, after the site audit has written
 * its run into the Data tables: Send Email over an SMTP credential pointing at a real SMTP server the suite starts, the
 * workflow run as of the 1st of the month after that run (the schedule's output pinned), and the message received
 * checked against the Data tables' rows.
 */
import { AUDIT_HISTORY_TABLES, monthlyReportText } from '../../dev/examples';
import { dataTableRows, ensureDataTables, personalProjectId } from '../../dev/n8n/dataTables';
import { withDataTableIds, type Example, type WorkflowJson } from '../../dev/n8n/examples';
import { runManually, waitForExecution } from '../../dev/n8n/executions';
import type { N8nRest } from '../../dev/n8n/n8n';
import { majorOf } from '../../dev/n8n/n8nVersions';
import { assert, assertEqual, type Checks } from './checks';
import { startSmtpInbox } from './smtpInbox';

export const MONTHLY_REPORT_FILE = 'monthly-client-report.json';
const TRIGGER = 'On the 1st at 08:00';
const SITE = 'brewshop.example';
const CLIENT = 'owner@brewshop.example';

export async function runMonthlyReportCheck(checks: Checks, { rest, n8nVersion, example }: { rest: N8nRest; n8nVersion: string; example: Example }): Promise<void> {
	const inbox = await checks.step('an SMTP server listens on 127.0.0.1', async () => await startSmtpInbox(), (started) => `port ${started.port}`);
	try {
		await checks.check(`examples/${example.file}: the e-mail a real SMTP server received, its figures the Data tables'`, async () => {
			const projectId = await personalProjectId(rest);
			const ids = await ensureDataTables(rest, projectId, Object.values(AUDIT_HISTORY_TABLES));
			const tables = {
				runs: await dataTableRows(rest, projectId, ids[AUDIT_HISTORY_TABLES.runs.name]),
				pages: await dataTableRows(rest, projectId, ids[AUDIT_HISTORY_TABLES.pages.name]),
			};
			const siteRuns = tables.runs.filter((run) => run.site === SITE);
			assert(siteRuns.length > 0, `${AUDIT_HISTORY_TABLES.runs.name} holds no run of ${SITE}: the site audit did not write its history`);
			// The report covers the month of the site's last run: it runs on the 1st of the month after.
			const lastRun = new Date(String(siteRuns.at(-1)!.runId));
			const monthStart = new Date(Date.UTC(lastRun.getUTCFullYear(), lastRun.getUTCMonth(), 1));
			const firedAt = new Date(Date.UTC(lastRun.getUTCFullYear(), lastRun.getUTCMonth() + 1, 1, 8)).toISOString();

			const credential = await rest.call<{ id: string; name: string }>('POST', '/rest/credentials', {
				name: 'SMTP (the suite\'s server)',
				type: 'smtp',
				data: { user: '', password: '', host: inbox.host, port: inbox.port, secure: false, disableStartTls: true },
			});
			const stored = await rest.call<WorkflowJson & { versionId: string }>('GET', `/rest/workflows/${example.id}`);
			const withTables = majorOf(n8nVersion) < 2 ? withDataTableIds(stored, ids) : stored;
			const nodes = withTables.nodes.map((node) => (node.type === 'n8n-nodes-base.emailSend' ? { ...node, credentials: { smtp: { id: credential.id, name: credential.name } } } : node));
			await rest.call('PATCH', `/rest/workflows/${example.id}`, { versionId: stored.versionId, nodes, pinData: { [TRIGGER]: [{ json: { timestamp: firedAt } }] } });

			const executionId = await runManually(rest, n8nVersion, { id: example.id, nodes }, TRIGGER);
			const execution = await waitForExecution(rest, executionId, 120_000);
			const error = execution.data.resultData.error;
			assert(!error, `the run failed at "${error?.node?.name ?? execution.data.resultData.lastNodeExecuted}": ${error?.message}`);
			assertEqual(execution.status, 'success', `status of execution ${executionId}`);

			const mails = inbox.received();
			assertEqual(mails.map((mail) => mail.to), [[CLIENT]], 'recipients of the messages received (one message, to the site\'s client)');
			const [mail] = mails;
			const dashboardUrl = String(
				(stored.nodes.find((node) => node.name === 'Report settings')?.parameters.assignments as { assignments: Array<{ name: string; value: string }> }).assignments.find(
					(assignment) => assignment.name === 'dashboardUrl',
				)?.value,
			);
			const expected = monthlyReportText(tables, { site: SITE, monthStart: monthStart.toISOString(), dashboardUrl });
			const average = Number(siteRuns.at(-1)!.averageScore).toFixed(1);
			assert(mail.subject.startsWith(`SEO report for ${SITE}, `) && mail.subject.includes(`average score ${average}`), `subject "${mail.subject}" lacks the site's average score ${average}`);
			assertEqual(mail.text.replace(/\r\n/g, '\n').trimEnd(), expected, 'the text part, as the Data tables\' rows give it');
			const htmlText = mail.html.replace(/<\/?a\b[^>]*>/g, '').replace(/<[^>]+>/g, '\n').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
			const missing = expected
				.split('\n')
				.filter((line) => line && !line.startsWith('Your dashboard'))
				.map((line) => line.replace(/^- /, '').replace(/ http\S+$/, ''))
				.filter((line) => !htmlText.includes(line));
			assertEqual(missing, [], 'lines of the text part missing from the HTML part');
			assert(mail.html.includes(`href="${dashboardUrl}?site=${SITE}"`), 'the HTML part does not link the dashboard');
			return `execution ${executionId}: "${mail.subject}" to ${CLIENT}, average ${average}`;
		});
	} finally {
		await inbox.close();
	}
}

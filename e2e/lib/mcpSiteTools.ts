/**
 * The MCP server's site tools (audit_site, audit_status, site_issues, compare_audits) as a client uses them: the site
 * tools workflow and the audit queue set up as their notes and docs/mcp-site-audits.md tell a user (the queue's Data
 * table made, the tables picked on n8n 1.x, the bundled audit site the one site allowed, published), then one audit of
 * the bundled audit site asked for by two clients at once, followed until the queue's schedule has run it, and
 * answered from the audit history the leg's earlier site audits wrote.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

import { AUDIT_HISTORY_TABLES, MCP_SITE_TOOLS_TABLES } from '../../dev/examples';
import { AUDIT_SITE_ANALYZED_PATHS, AUDIT_SITE_ISSUES, type AuditSite, type PhpRankServer } from '../../dev/server';
import { dataTableRows, ensureDataTables, personalProjectId, pickDataTablesAsOn1x } from '../../dev/n8n/dataTables';
import type { Example } from '../../dev/n8n/examples';
import { activateWorkflow } from '../../dev/n8n/executions';
import type { N8nRest } from '../../dev/n8n/n8n';
import { majorOf } from '../../dev/n8n/n8nVersions';
import { seconds, sleep } from '../../dev/n8n/util';
import { assert, assertEqual, type Checks } from './checks';

export const SITE_TOOLS_FILE = 'phprank-mcp-site-tools.json';
export const AUDIT_QUEUE_FILE = 'site-audit-queue.json';
const QUEUE = MCP_SITE_TOOLS_TABLES.queue.name;
/** What the site tools' allow list ships with, replaced by the bundled audit site as a user puts in their own. */
const SHIPPED_SITE = 'https://example.com/';
/** The site as the tools and the history name it: the audit site's host, without its port. */
const SITE = '127.0.0.1';
/** Within this a tool call answers, whatever the audit does. */
const ANSWER_MS = 5_000;
/** The most characters an answer may have as the client reads it. */
const ANSWER_LIMIT = 2_000;
/** The queue's schedule runs every minute; the audit itself takes seconds. */
const AUDIT_DONE_WITHIN_MS = 240_000;
/** phpRank's time per analysis during the audit, so that audit_status finds it running for a few seconds. */
const ANALYSIS_MS = 1_000;

export interface SiteToolsContext {
	/** The examples as imported (pointed at the bundled servers). */
	examples: Example[];
	/** The audit site the leg started, which the tools may audit. */
	site: AuditSite;
}

export interface SiteToolsSetup {
	site: AuditSite;
	queueWorkflowId: string;
	projectId: string;
	ids: Record<string, string>;
}

interface ToolAnswer {
	isError?: boolean;
	content: Array<{ type: string; text?: string }>;
}

/**
 * The site tools workflow and the queue set up as a user does: the Data tables made, on n8n 1.x picked in every Data
 * table node the notes name, the audit site in *Site tools settings* in place of example.com (edited and saved
 * through the workflow update the editor makes), the site tools published first on n8n 2.x (production runs a
 * sub-workflow's published version), then the queue. Undefined when the examples are missing or this failed.
 */
export async function setUpSiteTools(checks: Checks, context: SiteToolsContext & { rest: N8nRest; n8nVersion: string }): Promise<SiteToolsSetup | undefined> {
	const { rest, n8nVersion, examples, site } = context;
	const tools = examples.find((example) => example.file === SITE_TOOLS_FILE);
	const queue = examples.find((example) => example.file === AUDIT_QUEUE_FILE);
	if (!tools || !queue) {
		checks.info(`no site tools checks: examples/${SITE_TOOLS_FILE} or examples/${AUDIT_QUEUE_FILE} is missing`);
		return undefined;
	}
	const tables = [...Object.values(AUDIT_HISTORY_TABLES), ...Object.values(MCP_SITE_TOOLS_TABLES)];
	let setup: SiteToolsSetup | undefined;
	await checks.check(
		`examples/${SITE_TOOLS_FILE} and examples/${AUDIT_QUEUE_FILE} set up as their notes say: Data tables ${tables.map((table) => table.name).join(', ')}; on n8n 1.x their tables picked by ID; the audit site the one site in Site tools settings; the site tools published first (n8n 2.x), then the queue`,
		async () => {
			const projectId = await personalProjectId(rest);
			const ids = await ensureDataTables(rest, projectId, tables);
			for (const example of [tools, queue]) await pickDataTablesAsOn1x(rest, n8nVersion, example.id, ids);
			await allowOnly(rest, tools.id, `${site.url}/`);
			if (majorOf(n8nVersion) >= 2) await activateWorkflow(rest, n8nVersion, { workflowId: tools.id });
			await activateWorkflow(rest, n8nVersion, { workflowId: queue.id });
			setup = { site, queueWorkflowId: queue.id, projectId, ids };
			return `${QUEUE} ${ids[QUEUE]}; allowed: ${site.url}/`;
		},
	);
	return setup;
}

/** *Site tools settings* edited as a user edits it: the shipped site replaced by `siteUrl`, the workflow saved. */
async function allowOnly(rest: N8nRest, workflowId: string, siteUrl: string): Promise<void> {
	type Assignment = { name: string; value: unknown };
	type Stored = { versionId: string; nodes: Array<{ name: string; parameters: { assignments?: { assignments: Assignment[] } } }> };
	const stored = await rest.call<Stored>('GET', `/rest/workflows/${workflowId}`);
	const setting = stored.nodes.find((node) => node.name === 'Site tools settings')?.parameters.assignments?.assignments.find((assignment) => assignment.name === 'allowedSites');
	assert(typeof setting?.value === 'string' && setting.value.includes(SHIPPED_SITE), `Site tools settings has no allowedSites listing ${SHIPPED_SITE} to replace`);
	setting.value = setting.value.replace(SHIPPED_SITE, siteUrl);
	await rest.call('PATCH', `/rest/workflows/${workflowId}`, { versionId: stored.versionId, nodes: stored.nodes });
}

/** The queue's schedule stopped (it runs every minute while published): the checks after these do without it. */
async function stopQueue(rest: N8nRest, n8nVersion: string, workflowId: string): Promise<void> {
	await rest.call('POST', `/rest/workflows/${workflowId}/deactivate`, majorOf(n8nVersion) < 2 ? undefined : {}).catch(async () => {
		const { versionId } = await rest.call<{ versionId: string }>('GET', `/rest/workflows/${workflowId}`);
		await rest.call('PATCH', `/rest/workflows/${workflowId}`, { active: false, versionId });
	});
}

/** `id (severity, Title): N URLs: …` → [id, severity, N]. */
const parsedIssue = (line: string) => {
	const [, id, severity, count] = /^(\w+) \((\w+), [^)]+(?:\)[^)]*)?\): (\d+) URLs?/.exec(line) ?? [];
	return [id, severity, Number(count)] as const;
};
const linesOf = (answer: Record<string, unknown>, key: string) => (Array.isArray(answer[key]) ? (answer[key] as string[]) : []);
const signed = (delta: number) => `${delta > 0 ? '+' : delta < 0 ? '\u2212' : '\u00b1'}${Math.abs(delta).toFixed(1)}`;

export async function runSiteToolChecks(
	checks: Checks,
	context: { client: Client; connect: () => Promise<Client>; rest: N8nRest; n8nVersion: string; phpRank: PhpRankServer; setup: SiteToolsSetup },
): Promise<void> {
	const { client, rest, phpRank, setup } = context;
	const { site } = setup;
	const startedAt = Date.now();
	const answered: Array<{ name: string; length: number }> = [];
	const call = async (caller: Client, name: string, args: Record<string, unknown>) => {
		const started = Date.now();
		const result = (await caller.callTool({ name, arguments: args })) as ToolAnswer;
		const ms = Date.now() - started;
		const text = result.content[0]?.text ?? '';
		answered.push({ name, length: text.length });
		assert(!result.isError, `${name} answered an error: ${text}`);
		let parsed: unknown;
		try {
			parsed = JSON.parse(text);
		} catch {
			throw new Error(`${name}(${JSON.stringify(args)}) answered what is not JSON: "${text.slice(0, 400)}"`);
		}
		const answer = (Array.isArray(parsed) ? parsed[0] : parsed) as Record<string, unknown>;
		return { answer, ms };
	};
	const queueRows = async () => await dataTableRows(rest, setup.projectId, setup.ids[QUEUE]);

	phpRank.setDeployment({ analysisMs: ANALYSIS_MS });
	try {
		let auditId: number | undefined;
		await checks.check(`audit_site: two MCP clients ask for the bundled audit site at the same moment (its start URL, its host): one audit queued, both answered with its auditId within ${seconds(ANSWER_MS)}`, async () => {
			const other = await context.connect();
			try {
				const [one, two] = await Promise.all([call(client, 'audit_site', { site: `${site.url}/` }), call(other, 'audit_site', { site: SITE })]);
				for (const made of [one, two]) assert(made.ms < ANSWER_MS, `an answer came after ${made.ms} ms: ${JSON.stringify(made.answer)}`);
				assert(typeof one.answer.auditId === 'number', `no auditId: ${JSON.stringify(one.answer)}`);
				assertEqual(two.answer.auditId, one.answer.auditId, 'the auditId of the second client');
				// One audit to follow, whatever the queue holds besides.
				auditId = Number(one.answer.auditId);
				const outcomes = [one.answer.outcome, two.answer.outcome].map(String).sort();
				assert(outcomes.includes('queued') && outcomes.some((outcome) => /^already(Queued|Running)$/.test(outcome)), `outcomes ${outcomes.join(', ')}`);
				const rows = await queueRows();
				const active = rows.filter((row) => row.site === SITE && ['queued', 'running'].includes(String(row.status)));
				assertEqual(active.map((row) => row.id), [one.answer.auditId], `queued or running audits of ${SITE} in ${QUEUE}`);
				assertEqual(one.answer.siteUrl, `${site.url}/`, 'the start page of the audit');
				const setAside = rows.filter((row) => row.status === 'duplicate').length;
				return `auditId ${auditId}, ${outcomes.join(' and ')}, ${one.ms} and ${two.ms} ms; ${setAside} row${setAside === 1 ? '' : 's'} set aside`;
			} finally {
				await other.close();
			}
		});

		await checks.check('audit_site for a host off the allow list: refused, naming the site allowed and what to do; nothing queued', async () => {
			const before = (await queueRows()).length;
			const { answer } = await call(client, 'audit_site', { site: 'https://www.competitor.example/' });
			assertEqual(
				{ refused: answer.refused, reason: answer.reason },
				{ refused: true, reason: `competitor.example is not one of the sites these tools may audit (${SITE}).` },
				'the answer',
			);
			assert(/ask the owner of this n8n to add competitor\.example to allowedSites/.test(String(answer.whatToDo)), `whatToDo: "${String(answer.whatToDo)}"`);
			assertEqual((await queueRows()).length, before, `rows in ${QUEUE}`);
			return `"${String(answer.reason)}"`;
		});

		if (auditId === undefined) return;
		let done: Record<string, unknown> | undefined;
		await checks.check(
			`audit_status followed until done (the queue's schedule runs every minute): queued, running with the pages phpRank analyzed so far, done with the summary's first lines; each answer within ${seconds(ANSWER_MS)}`,
			async () => {
				const seen: string[] = [];
				const slowest: Record<string, number> = {};
				const analyzed: number[] = [];
				const deadline = Date.now() + AUDIT_DONE_WITHIN_MS;
				while (Date.now() < deadline) {
					const { answer, ms } = await call(client, 'audit_status', { auditId });
					const status = String(answer.status);
					assert(ms < ANSWER_MS, `audit_status answered after ${ms} ms while the audit was ${status}`);
					slowest[status] = Math.max(slowest[status] ?? 0, ms);
					if (seen.at(-1) !== status) seen.push(status);
					assertEqual(answer.auditId, auditId, 'auditId');
					if (status === 'done') {
						done = answer;
						break;
					}
					assert(status === 'queued' || status === 'running', `status ${status}: ${JSON.stringify(answer)}`);
					if (status === 'running') {
						assert(typeof answer.pagesAnalyzedSoFar === 'number', `a running audit without pagesAnalyzedSoFar: ${JSON.stringify(answer)}`);
						analyzed.push(answer.pagesAnalyzedSoFar);
					}
					await sleep(status === 'running' ? 300 : 1_000);
				}
				assert(done, `not done after ${seconds(AUDIT_DONE_WITHIN_MS)}: ${seen.join(' → ')}`);
				assert(seen.includes('running'), `never seen running: ${seen.join(' → ')}`);
				assertEqual(analyzed, [...analyzed].sort((a, b) => a - b), 'pagesAnalyzedSoFar, call after call');
				assert(analyzed.every((count) => count <= AUDIT_SITE_ANALYZED_PATHS.length), `pagesAnalyzedSoFar ${analyzed.join(', ')}: more than the site's ${AUDIT_SITE_ANALYZED_PATHS.length} pages`);
				const summary = done.summary as string[];
				assert(Array.isArray(summary) && new RegExp(`^SEO audit of 127\\.0\\.0\\.1: \\d+ URLs found, ${AUDIT_SITE_ANALYZED_PATHS.length} analyzed: `).test(summary[0]), `summary: ${JSON.stringify(summary)}`);
				assert(typeof done.runId === 'string' && done.runId, `no runId: ${JSON.stringify(done)}`);
				const slowestShown = Object.entries(slowest).map(([status, ms]) => `${status} ${ms} ms`).join(', ');
				return `${seen.join(' → ')}; pages analyzed so far ${[...new Set(analyzed)].join(', ')}; slowest answers: ${slowestShown}; "${summary[0]}"`;
			},
		);
		if (!done) return;
		const runId = String(done.runId);

		await checks.check(`site_issues: the audit's site issues, each with as many URLs as the bundled site has with it (${Object.keys(AUDIT_SITE_ISSUES).length} issues), the broken links with the pages linking to them`, async () => {
			const shown = new Map<string, number>();
			let whole: Record<string, unknown> | undefined;
			for (const severity of ['', 'error', 'warning', 'notice']) {
				const { answer } = await call(client, 'site_issues', severity ? { site: SITE, severity } : { site: SITE });
				whole ??= answer;
				assertEqual(answer.runId, runId, `runId of site_issues${severity ? ` (${severity})` : ''}`);
				for (const line of linesOf(answer, 'siteIssues')) {
					const [id, lineSeverity, count] = parsedIssue(line);
					assert(id, `a line site_issues answered is not "id (severity, Title): N URLs": ${line}`);
					if (severity) assertEqual(lineSeverity, severity, `the severity of ${id}, asked for ${severity}`);
					shown.set(id, count);
				}
			}
			assertEqual(whole?.siteIssueCount, Object.keys(AUDIT_SITE_ISSUES).length, 'siteIssueCount');
			const expected = Object.fromEntries(Object.entries(AUDIT_SITE_ISSUES).map(([id, urls]) => [id, Object.keys(urls).length]));
			assertEqual(keysSortedCounts(Object.fromEntries(shown)), keysSortedCounts(expected), 'URLs per site issue, over the answers for all and for each severity');
			const broken = linesOf(whole!, 'brokenLinks').map((line) => line.split(' linked from ')[0]).sort();
			assertEqual(broken, [`${site.url}/docs/missing.html (404)`, `${site.url}/gone.html (410)`], 'the broken links');
			return `${shown.size} issues, e.g. ${[...shown].slice(0, 3).map(([id, count]) => `${id} ${count}`).join(', ')}; ${linesOf(whole!, 'checksByWorth').length} checks by worth`;
		});

		await checks.check('compare_audits: the audit against the run before it in the history (the leg\'s earlier site audits): the score change as the runs table has it', async () => {
			const runs = (await dataTableRows(rest, setup.projectId, setup.ids[AUDIT_HISTORY_TABLES.runs.name]))
				.filter((run) => run.site === SITE)
				.sort((a, b) => (String(a.runId) < String(b.runId) ? 1 : -1));
			assert(runs.length >= 2, `${runs.length} runs of ${SITE} in ${AUDIT_HISTORY_TABLES.runs.name}`);
			const [latest, previous] = runs;
			assertEqual(latest.runId, runId, 'the latest run in the history');
			const { answer } = await call(client, 'compare_audits', { site: SITE });
			const [after, before] = [Number(latest.averageScore), Number(previous.averageScore)];
			assertEqual(
				{ latest: (answer.latest as Record<string, unknown> | undefined)?.runId, previous: (answer.previous as Record<string, unknown> | undefined)?.runId, scoreChange: answer.scoreChange },
				{ latest: runId, previous: previous.runId, scoreChange: `${signed(Math.round((after - before) * 10) / 10)} (${before.toFixed(1)} \u2192 ${after.toFixed(1)})` },
				'the runs compared and the score change',
			);
			const changes = ['newSiteIssues', 'changedSiteIssues', 'fixedSiteIssues', 'newlyFailingChecks', 'fixedChecks', 'newBrokenLinks', 'fixedBrokenLinks'];
			return `"${String(answer.scoreChange)}"; ${changes.map((key) => `${key} ${linesOf(answer, key).length}`).join(', ')}`;
		});

		await checks.check(`every site tool answer the client received fits ${ANSWER_LIMIT.toLocaleString('en')} characters`, () => {
			const over = answered.filter((entry) => entry.length > ANSWER_LIMIT);
			assertEqual(over, [], 'answers over the limit');
			const longest = answered.reduce((most, entry) => (entry.length > most.length ? entry : most), answered[0]);
			return `${answered.length} answers, the longest ${longest.length} characters (${longest.name}); the site tools checks took ${seconds(Date.now() - startedAt)}`;
		});
	} finally {
		phpRank.setDeployment({});
		await stopQueue(rest, context.n8nVersion, setup.queueWorkflowId).catch(() => undefined);
	}
}

function keysSortedCounts(counts: Record<string, number>): Array<[string, number]> {
	return Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

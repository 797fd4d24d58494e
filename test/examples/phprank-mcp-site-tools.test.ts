/**
 * The site tools of examples/phprank-mcp-server.json (audit_site, audit_status, site_issues, compare_audits) and the
 * two workflows behind them, in n8n's engine against the bundled server and its audit site: each tool's call reaches
 * examples/phprank-mcp-site-tools.json as the MCP server's Call n8n Workflow Tool node sends it (its fixed `tool`, the
 * model's arguments for its `$fromAI` inputs, the defaults for the others), run as a sub-workflow by an Execute Workflow
 * node; examples/site-audit-queue.json runs the queued audits as its schedule would. The end-to-end suite calls the tools
 * through n8n's MCP Server Trigger with an MCP client.
 */
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';

import { manualWorkflow, runNode, runWorkflow, TRIGGER_NODE_NAME } from '../../dev/engine';
import type { InMemoryDataTables, RunResult, SubWorkflowRun, WorkflowFixture } from '../../dev/engine';
import {
	AUDIT_HISTORY_TABLES,
	loadExampleWorkflow,
	MCP_SITE_TOOLS_TABLES,
	pageHistoryRows,
	pagesToChange,
	runHistoryRow,
	siteAuditSummary,
	siteIssueCounts,
	siteToolsTables,
} from '../../dev/examples';
import type { SiteAuditItem } from '../../dev/examples';
import { loadExamples } from '../../dev/n8n/examples';
import { AUDIT_SITE_ANALYZED_PATHS, startAuditSite, startPhpRankServer } from '../../dev/server';
import type { AuditSite, PhpRankServer, ReportState } from '../../dev/server';
import { apiRequests } from '../support/phpRank';

const TOOLS_FILE = 'phprank-mcp-site-tools.json';
const QUEUE_FILE = 'site-audit-queue.json';
const QUEUE = MCP_SITE_TOOLS_TABLES.queue.name;
const TOOL_TYPE = '@n8n/n8n-nodes-langchain.toolWorkflow';
const SITE_TOOLS = ['audit_site', 'audit_status', 'site_issues', 'compare_audits'];
/** What a tool may answer, as the MCP client reads it. */
const ANSWER_LIMIT = 2000;
const WEEK_SECONDS = 7 * 86_400;

const mcpServer = loadExampleWorkflow('phprank-mcp-server.json');
const toolNode = (name: string) => mcpServer.nodes.find((node) => node.name === name)!;

let server: PhpRankServer;
let site: AuditSite;
let tables: InMemoryDataTables;
let subWorkflowRuns: SubWorkflowRun[];

beforeAll(async () => {
	[server, site] = await Promise.all([startPhpRankServer(), startAuditSite()]);
	tables = siteToolsTables();
});
afterAll(async () => await Promise.all([server.close(), site.close()]));

const credentials = () => ({ phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } });
/** The sites the tools may audit: the bundled audit site (as 127.0.0.1), and a shop that is never audited here. */
const allowedSites = () => [
	{ siteUrl: `${site.url}/`, maxPages: 40, auditsPerDay: 2 },
	{ siteUrl: 'https://shop.example.org/', maxPages: 100, auditsPerDay: 1 },
];

/** The site tools workflow with *Site tools settings* listing `sites` (the file lists example.com). */
function siteToolsAllowing(sites: IDataObject[]): WorkflowFixture {
	const workflow = loadExampleWorkflow(TOOLS_FILE, { server, site });
	const settings = workflow.nodes.find((node) => node.name === 'Site tools settings')!;
	const { assignments } = settings.parameters.assignments as { assignments: Array<{ name: string; value: string }> };
	assignments.find((assignment) => assignment.name === 'allowedSites')!.value = `={{ ${JSON.stringify(sites)} }}`;
	return workflow;
}

/**
 * The sub-workflow's input as the tool node makes it: each input of its Workflow Inputs, fixed or `$fromAI('key', …,
 * default)` filled with the model's argument or the default.
 */
function toolInput(name: string, args: IDataObject): IDataObject {
	const { value } = (toolNode(name).parameters.workflowInputs as { value: Record<string, string> });
	return Object.fromEntries(
		Object.entries(value).map(([input, mapped]) => {
			const fromAi = /\$fromAI\('(\w+)', '(?:[^'\\]|\\.)*', '\w+'(?:, (.+?))?\) \}\}$/.exec(mapped);
			if (!fromAi) return [input, mapped];
			const fallback = fromAi[2] === undefined ? undefined : (JSON.parse(fromAi[2].replace(/'/g, '"')) as unknown);
			return [input, args[fromAi[1]] ?? fallback ?? null];
		}),
	);
}

interface ToolCall {
	answer: IDataObject;
	/** What the MCP client receives: the items n8n's tool node returns, as JSON indented by 2. */
	text: string;
	ms: number;
	result: RunResult;
}

/** A site tool called as the model calls it through the MCP server; the sub-workflow's answer. */
async function callTool(name: string, args: IDataObject = {}, workflow = siteToolsAllowing(allowedSites())): Promise<ToolCall> {
	const caller: INode = {
		id: '00000000-0000-4000-8000-000000000010',
		name: 'Call the site tools',
		type: 'n8n-nodes-base.executeWorkflow',
		typeVersion: 1.2,
		position: [220, 0],
		parameters: { source: 'parameter', workflowJson: JSON.stringify(workflow), mode: 'once', options: { waitForSubWorkflow: true } },
	};
	subWorkflowRuns = [];
	const started = Date.now();
	const result = await runWorkflow(
		{ ...manualWorkflow([caller]), pinData: { [TRIGGER_NODE_NAME]: [{ json: toolInput(name, args) }] } },
		{ credentials: credentials(), dataTables: tables, subWorkflowRuns },
	);
	const ms = Date.now() - started;
	expect(result.error).toBeUndefined();
	const items = result.output('Call the site tools');
	expect(items).toHaveLength(1);
	const answer = items[0].json;
	return { answer, text: JSON.stringify([answer], null, 2), ms, result };
}

/** The queue workflow's run, as its schedule starts it each minute. */
async function drainQueue(): Promise<RunResult> {
	const workflow = loadExampleWorkflow(QUEUE_FILE, { server, site });
	const result = await runWorkflow(
		{ ...workflow, pinData: { 'Every minute': [{ json: { timestamp: new Date().toISOString() } }] } },
		{ credentials: credentials(), dataTables: tables, startNode: 'Every minute', timeoutMs: 60_000 },
	);
	expect(result.error).toBeUndefined();
	return result;
}

/** A queue row changed as n8n's Data table node changes it. */
async function updateQueueRow(id: number, values: IDataObject): Promise<void> {
	const schema = Object.keys(values).map((name) => ({ id: name, displayName: name, required: false, defaultMatch: false, display: true, type: 'string', readOnly: false, removed: false }));
	const { error } = await runNode({
		type: 'n8n-nodes-base.dataTable',
		typeVersion: 1,
		dataTables: tables,
		parameters: {
			resource: 'row',
			operation: 'update',
			dataTableId: { __rl: true, mode: 'name', value: QUEUE },
			matchType: 'allConditions',
			filters: { conditions: [{ keyName: 'id', condition: 'eq', keyValue: id }] },
			columns: { mappingMode: 'defineBelow', value: values, matchingColumns: [], schema, attemptToConvertTypes: false, convertFieldsToString: false },
			options: {},
		} as INodeParameters,
	});
	expect(error).toBeUndefined();
}

const queueRows = () => tables.rows(QUEUE);
const queueRow = (id: unknown) => queueRows().find((row) => row.id === id)!;
const itemsOf = (result: RunResult) => result.output('Audit site').map((item) => item.json as unknown as SiteAuditItem);
const withoutIds = ({ id: _id, createdAt: _createdAt, updatedAt: _updatedAt, runId: _runId, runAt: _runAt, ...row }: Record<string, unknown>) => row;
const at = (pathname: string) => `${site.url}${pathname}`;
const lines = (answer: IDataObject, key: string) => (answer[key] ?? []) as string[];
/** `id (severity, Title): N URLs: …` or `id (importance, Title): …, N pages: …` → [id, severity or importance, N]. */
const parsed = (line: string) => {
	const [, id, kind, count] = /^(\w+) \((\w+), [^)]+(?:\)[^)]*)?\): (?:\+\d+\.\d if fixed, )?(\d+) (?:URL|page)s?/.exec(line) ?? [];
	return [id, kind, Number(count)] as const;
};

describe('examples/phprank-mcp-server.json: the site tools', () => {
	it('are four Call n8n Workflow Tool nodes on the MCP Server Trigger, each sending its name as `tool` to the site tools workflow, whose trigger takes every input they send', () => {
		const trigger = mcpServer.nodes.find((node) => node.type === '@n8n/n8n-nodes-langchain.mcpTrigger')!;
		const tools = mcpServer.nodes.filter((node) => node.type === TOOL_TYPE);
		const siteTools = loadExampleWorkflow(TOOLS_FILE);
		const inputs = ((siteTools.nodes.find((node) => node.type === 'n8n-nodes-base.executeWorkflowTrigger')!.parameters.workflowInputs as { values: Array<{ name: string }> }).values).map(
			(input) => input.name,
		);
		const toolsWorkflowId = loadExamples().find((example) => example.file === TOOLS_FILE)!.id;

		expect(tools.map((node) => node.name)).toEqual(SITE_TOOLS);
		for (const node of tools) {
			expect(mcpServer.connections[node.name]).toEqual({ ai_tool: [[{ node: trigger.name, type: 'ai_tool', index: 0 }]] });
			expect(node.typeVersion).toBe(2.2);
			expect(node.parameters.workflowId).toMatchObject({ __rl: true, value: toolsWorkflowId });
			const { value, schema } = node.parameters.workflowInputs as { value: Record<string, string>; schema: Array<{ id: string; removed: boolean }> };
			expect(value.tool).toBe(node.name);
			expect(Object.keys(value).every((input) => inputs.includes(input))).toBe(true);
			expect(schema.filter((field) => !field.removed).map((field) => field.id).sort()).toEqual(Object.keys(value).sort());
			expect(String(node.parameters.description).length).toBeGreaterThan(100);
		}
	});

	it('offer no delete: the site tools workflow deletes no row and no report, and calls phpRank only to list reports', () => {
		const siteTools = loadExampleWorkflow(TOOLS_FILE);
		const operations = siteTools.nodes.filter((node) => node.parameters.operation !== undefined).map((node) => `${node.type.split('.').pop()}/${String(node.parameters.operation)}`);

		// The only update sets aside the row of an audit asked for twice at once.
		expect([...new Set(operations)].sort()).toEqual(['dataTable/get', 'dataTable/insert', 'dataTable/update', 'phpRank/getAll']);
	});

	it('the queue workflow writes the history with the very nodes of site-audit-offline.json', () => {
		const queue = loadExampleWorkflow(QUEUE_FILE);
		const offline = loadExampleWorkflow('site-audit-offline.json');
		const shared = ['Page history rows', 'Save page results', 'Pages saved?', 'Run history row', 'Save run summary', 'Runs saved?', 'Delete pages of this run', 'Previous runs', 'Build summary'];
		const of = (workflow: WorkflowFixture, name: string) => {
			const { type, typeVersion, parameters, onError, executeOnce, alwaysOutputData } = workflow.nodes.find((node) => node.name === name)!;
			return { type, typeVersion, parameters, onError, executeOnce, alwaysOutputData };
		};

		for (const name of shared) expect(of(queue, name)).toEqual(of(offline, name));
		expect(queue.nodes.find((node) => node.name === 'Audit site')?.parameters).toMatchObject({
			resource: 'site',
			operation: 'audit',
			maxPages: '={{ $json.maxPages }}',
			ifReportExists: 'reanalyzeIfOlder',
			olderThan: 6,
			olderThanUnit: 'days',
		});
	});

	describe('an agent audits the bundled site', () => {
		const calls: ToolCall[] = [];
		const call = async (name: string, args: IDataObject = {}, workflow?: WorkflowFixture) => {
			const made = await callTool(name, args, workflow);
			calls.push(made);
			return made;
		};
		let firstAuditId: number;
		let firstRun: RunResult;
		let afterFirst: ReportState[];

		it('audit_site queues the audit and answers at once: its auditId, first in the queue, the minutes at phpRank pace; phpRank is not asked', async () => {
			const requestsBefore = apiRequests(server).length;
			const { answer, ms } = await call('audit_site', { site: `${site.url}/` });

			firstAuditId = Number(answer.auditId);
			expect(ms).toBeLessThan(5000);
			expect(answer).toMatchObject({
				outcome: 'queued',
				site: '127.0.0.1',
				siteUrl: `${site.url}/`,
				status: 'queued',
				maxPages: 40,
				position: 1,
				auditsAhead: 0,
				// 40 pages at 60 a minute; the queue is looked at every minute.
				expectedMinutes: 1,
				minutesUntilDone: 2,
				auditsLeftToday: 1,
			});
			expect(answer.next).toBe(`Call audit_status with auditId ${firstAuditId} in about 2 minutes.`);
			expect(queueRows().map(({ id, site: host, siteUrl, maxPages, status, attempts }) => ({ id, site: host, siteUrl, maxPages, status, attempts }))).toEqual([
				{ id: firstAuditId, site: '127.0.0.1', siteUrl: `${site.url}/`, maxPages: 40, status: 'queued', attempts: 0 },
			]);
			expect(apiRequests(server).length).toBe(requestsBefore);
		});

		it('audit_site for the same site again, by its host: the audit already queued, no second one', async () => {
			const { answer } = await call('audit_site', { site: '127.0.0.1' });

			expect(answer).toMatchObject({ outcome: 'alreadyQueued', auditId: firstAuditId, position: 1, auditsLeftToday: 1 });
			expect(answer.note).toMatch(/^An audit of 127\.0\.0\.1 is already queued: this is that one, no second was queued\./);
			expect(queueRows()).toHaveLength(1);
		});

		it('audit_site for a host off the allow list: refused, naming the sites allowed and what to do, nothing queued', async () => {
			const { answer } = await call('audit_site', { site: 'https://www.competitor.example/' });

			expect(answer).toEqual({
				refused: true,
				reason: 'competitor.example is not one of the sites these tools may audit (127.0.0.1, shop.example.org).',
				whatToDo:
					'Use one of those sites, or ask the owner of this n8n to add competitor.example to allowedSites in Site tools settings of the phpRank MCP site tools workflow.',
			});
			expect(queueRows()).toHaveLength(1);
		});

		it("audit_site with more pages than the site may have: Max Pages lowered to the site's, and said; second in the queue, the minutes of the audit ahead counted", async () => {
			const { answer } = await call('audit_site', { site: 'shop.example.org', maxPages: 5000 });

			expect(answer).toMatchObject({ outcome: 'queued', site: 'shop.example.org', maxPages: 100, position: 2, auditsAhead: 1, expectedMinutes: 2, minutesUntilDone: 4 });
			expect(answer.note).toContain('maxPages lowered to 100, the most allowed for shop.example.org.');
			expect(queueRow(answer.auditId)).toMatchObject({ maxPages: 100, status: 'queued' });
		});

		it("audit_site past the site's audits a day: refused until tomorrow, pointing at the tools that answer from its last audit", async () => {
			const shop = queueRows().find((row) => row.site === 'shop.example.org')!;
			await updateQueueRow(Number(shop.id), { status: 'failed', reason: 'Not audited in this test' });
			const { answer } = await call('audit_site', { site: 'shop.example.org' });

			expect(answer).toEqual({
				refused: true,
				reason: 'shop.example.org has had 1 audit today (UTC), the most it may have a day (1).',
				whatToDo: 'Answer from its latest finished audit with site_issues and compare_audits, or audit it again tomorrow (from 00:00 UTC).',
			});
			expect(queueRows()).toHaveLength(2);
		});

		it('audit_status of a queued audit: queued, its place in the queue', async () => {
			const { answer } = await call('audit_status', { auditId: firstAuditId });

			expect(answer).toMatchObject({ auditId: firstAuditId, site: '127.0.0.1', status: 'queued', position: 1, auditsAhead: 0, maxPages: 40 });
		});

		it('the queue workflow takes the queued audit, runs Site > Audit on it, writes the history as site-audit-offline.json does and marks it done with the summary\u2019s first lines', async () => {
			server.reset();
			firstRun = await drainQueue();
			afterFirst = server.reports();
			const items = itemsOf(firstRun);
			const row = queueRow(firstAuditId);
			const runId = String(firstRun.output('Audit settings')[0].json.runAt);

			expect(items.filter((item) => typeof (item as unknown as IDataObject).result === 'number').map((item) => new URL(item.url).pathname).sort()).toEqual(
				[...AUDIT_SITE_ANALYZED_PATHS].sort(),
			);
			expect(row).toMatchObject({ status: 'done', attempts: 1, runId, startedAt: runId, reason: null });
			const summary = siteAuditSummary(server, [], { items });
			expect(row.summary).toBe(summary.split('\n').slice(0, 4).join('\n').replaceAll('*', ''));
			const pages = tables.rows(AUDIT_HISTORY_TABLES.pages.name).filter((page) => page.runId === runId);
			expect(pages.map(withoutIds)).toEqual(pageHistoryRows({ url: server.url, reports: () => afterFirst }, items));
			const runs = tables.rows(AUDIT_HISTORY_TABLES.runs.name).filter((run) => run.runId === runId);
			expect(runs.map(withoutIds)).toEqual([runHistoryRow(pageHistoryRows({ url: server.url, reports: () => afterFirst }, items), pages.map((page) => Number(page.id)))]);
			// The site's pages were sent to phpRank, at most Max Pages of them.
			expect(apiRequests(server).filter((request) => request.method === 'POST')).toHaveLength(AUDIT_SITE_ANALYZED_PATHS.length);
		});

		it('the queue workflow with nothing queued: nothing claimed, phpRank not asked', async () => {
			const requestsBefore = apiRequests(server).length;
			const result = await drainQueue();

			expect(result.executedNodes).not.toContain('Claim it');
			expect(apiRequests(server).length).toBe(requestsBefore);
		});

		it("audit_status of the finished audit: done, with the summary's first lines", async () => {
			const { answer } = await call('audit_status', { auditId: firstAuditId });

			expect(answer).toMatchObject({ auditId: firstAuditId, status: 'done', runId: queueRow(firstAuditId).runId });
			expect(answer.summary).toEqual(String(queueRow(firstAuditId).summary).split('\n'));
			expect((answer.summary as string[])[0]).toMatch(/^SEO audit of 127\.0\.0\.1: 31 URLs found, 12 analyzed: /);
		});

		it("site_issues: the run's site issues as Site > Audit found them, each with its URL count and first URLs; the checks by what fixing them is worth; the broken links with the pages linking to them", async () => {
			const { answer } = await call('site_issues', { site: '127.0.0.1' });
			const items = itemsOf(firstRun);
			const counts = siteIssueCounts(items.map((item) => (item.siteIssues ?? []).map((issue) => issue.id)));
			const severities = Object.fromEntries(items.flatMap((item) => (item.siteIssues ?? []).map((issue) => [issue.id, issue.severity])));

			expect(answer).toMatchObject({ site: '127.0.0.1', runId: queueRow(firstAuditId).runId, urlsFound: items.length, siteIssueCount: Object.keys(counts).length });
			const shown = [...lines(answer, 'siteIssues').map(parsed)];
			expect(shown.length + Number(answer.siteIssuesNotShown ?? 0)).toBe(Object.keys(counts).length);
			for (const [id, severity, count] of shown) expect([severity, count]).toEqual([severities[id], counts[id]]);
			// Each line with the first of the issue's URLs, whole: as many a line as let the answer fit.
			const urlsOf = (id: string) => items.filter((item) => (item.siteIssues ?? []).some((issue) => issue.id === id)).map((item) => item.url);
			for (const line of lines(answer, 'siteIssues')) {
				const listed = line.split(/ URLs?: /)[1].replace(/, and \d+ more$/, '').split(', ');
				expect(urlsOf(parsed(line)[0]).slice(0, listed.length)).toEqual(listed);
			}
			expect(lines(answer, 'brokenLinks').map((line) => line.split(' linked from ')[0])).toEqual([`${at('/gone.html')} (410)`, `${at('/docs/missing.html')} (404)`]);
			const gains = lines(answer, 'checksByWorth').map((line) => Number(/: \+(\d+\.\d) if fixed/.exec(line)?.[1]));
			expect(gains.length).toBeGreaterThan(0);
			expect(gains).toEqual([...gains].sort((a, b) => b - a));
		});

		it('site_issues filtered: by severity error (site issues and broken links only), by importance high (checks only), by issue ID (that one)', async () => {
			const errors = (await call('site_issues', { site: '127.0.0.1', severity: 'error' })).answer;
			const high = (await call('site_issues', { site: '127.0.0.1', severity: 'high' })).answer;
			const broken = (await call('site_issues', { site: '127.0.0.1', issue: 'broken_link' })).answer;
			const unknown = (await call('site_issues', { site: '127.0.0.1', issue: 'no_such_issue' })).answer;

			expect(lines(errors, 'siteIssues').length).toBeGreaterThan(0);
			expect(lines(errors, 'siteIssues').every((line) => parsed(line)[1] === 'error')).toBe(true);
			expect([errors.checkCount, errors.brokenLinkCount, errors.filter]).toEqual([0, 2, 'severity error']);
			expect(lines(high, 'checksByWorth').length).toBeGreaterThan(0);
			expect(lines(high, 'checksByWorth').every((line) => parsed(line)[1] === 'high')).toBe(true);
			expect([high.siteIssueCount, high.brokenLinkCount]).toEqual([0, 0]);
			expect(lines(broken, 'siteIssues')).toEqual([`broken_link (error, Broken internal links): 2 URLs: ${at('/gone.html')}, ${at('/docs/missing.html')}`]);
			expect(lines(broken, 'brokenLinks')).toEqual([
				`${at('/gone.html')} (410) linked from ${at('/about.html')}, ${at('/docs/next.html')}, ${at('/docs/deep/three.html')}`,
				`${at('/docs/missing.html')} (404) linked from ${at('/docs/intro.html')}, ${at('/docs/next.html')}, ${at('/indexing/nofollow.html')}`,
			]);
			expect(broken.brokenLinkCount).toBe(2);
			expect(unknown).toMatchObject({ found: false, reason: 'no_such_issue is not among the issues of this run.' });
			expect(unknown.issueIds).toContain('broken_link');
		});

		it('compare_audits with one finished audit: says so, and what to do', async () => {
			const { answer } = await call('compare_audits', { site: '127.0.0.1' });

			expect(answer).toMatchObject({ found: false, whatToDo: expect.stringMatching(/^Audit it again with audit_site/) });
		});

		let secondAuditId: number;
		it('audit_status of a running audit: running, the pages phpRank analyzed since it started, from its reports of the site', async () => {
			secondAuditId = Number((await call('audit_site', { site: '127.0.0.1' })).answer.auditId);
			// As the queue workflow leaves it while Site > Audit runs: this one started when the first did.
			await updateQueueRow(secondAuditId, { status: 'running', startedAt: String(queueRow(firstAuditId).startedAt) });
			const requestsBefore = apiRequests(server).length;
			const { answer } = await call('audit_status', { site: '127.0.0.1' });

			const since = Date.parse(String(queueRow(firstAuditId).startedAt));
			const analyzed = server.reports().filter((report) => report.url.startsWith('127.0.0.1') && Date.parse(report.generatedAt) >= Math.floor(since / 1000) * 1000);
			expect(answer).toMatchObject({ auditId: secondAuditId, status: 'running', pagesAnalyzedSoFar: analyzed.length, maxPages: 40, urlsFound: null });
			expect(analyzed).toHaveLength(AUDIT_SITE_ANALYZED_PATHS.length);
			const reads = apiRequests(server).slice(requestsBefore);
			expect(reads.every((request) => request.method === 'GET' && request.path === '/api/v1/reports' && request.query.project === '127.0.0.1')).toBe(true);
			expect(reads[0].query).toMatchObject({ sort_by: 'generated_at', sort: 'desc' });
		});

		it('audit_status of a failed audit: failed, with the reason', async () => {
			await updateQueueRow(secondAuditId, { status: 'failed', reason: 'phpRank could not be reached' });
			const { answer } = await call('audit_status', { auditId: secondAuditId });

			expect(answer).toMatchObject({ auditId: secondAuditId, status: 'failed', reason: 'phpRank could not be reached', whatToDo: 'Fix what the reason names, then call audit_site again.' });
		});

		it('a week later, pages changed: the audit queued again runs, and compare_audits tells the score change and what is new and fixed', async () => {
			await updateQueueRow(secondAuditId, { status: 'queued', startedAt: '', reason: '' });
			const changes = pagesToChange(server.reports());
			server.ageReports(
				server.reports().map((report) => report.id),
				WEEK_SECONDS,
			);
			for (const change of changes) server.changePage(change.url, { quality: change.quality });
			const second = await drainQueue();
			expect(queueRow(secondAuditId)).toMatchObject({ status: 'done', attempts: 1 });
			const readsBefore = tables.reads.length;
			const { answer } = await call('compare_audits', { site: '127.0.0.1' });

			const runs = tables.rows(AUDIT_HISTORY_TABLES.runs.name);
			// Each run's page rows asked for by the IDs its run row names, not read from the whole table.
			const pageReads = tables.reads.slice(readsBefore).filter((read) => read.table === AUDIT_HISTORY_TABLES.pages.name);
			expect(pageReads.map((read) => read.filter?.filters.filter((condition) => condition.columnName === 'id').map(({ value }) => value))).toEqual(
				[...runs].reverse().map((run) => [run.firstPageRowId, run.lastPageRowId]),
			);
			expect(runs.every((run) => Number.isSafeInteger(run.firstPageRowId))).toBe(true);
			const [before, after] = runs.map((run) => Number(run.averageScore));
			const change = Math.round((after - before) * 10) / 10;
			expect(runs.map((run) => run.runId)).toEqual([queueRow(firstAuditId).runId, queueRow(secondAuditId).runId]);
			expect(answer.scoreChange).toBe(`${change > 0 ? '+' : change < 0 ? '\u2212' : '\u00b1'}${Math.abs(change).toFixed(1)} (${before.toFixed(1)} \u2192 ${after.toFixed(1)})`);
			expect(change).not.toBe(0);
			// The page made worse newly fails checks, the page made better passes some it failed.
			const worse = changes.find((page) => page.quality === 0)!;
			const better = changes.find((page) => page.quality > 0)!;
			expect(lines(answer, 'newlyFailingChecks').length).toBeGreaterThan(0);
			expect(lines(answer, 'newlyFailingChecks').every((line) => line.includes(worse.targetUrl))).toBe(true);
			expect(lines(answer, 'fixedChecks').length).toBeGreaterThan(0);
			expect(lines(answer, 'fixedChecks').every((line) => line.includes(better.targetUrl))).toBe(true);
			expect(itemsOf(second).length).toBe(itemsOf(firstRun).length);
		});

		it('every answer fits about 2,000 characters as the client reads it', () => {
			expect(calls.length).toBeGreaterThan(10);
			expect(calls.filter((made) => made.text.length > ANSWER_LIMIT).map((made) => made.text.slice(0, 80))).toEqual([]);
		});
	});

	describe('the queue across failures and restarts', () => {
		const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
		const queued = (row: IDataObject) => ({ site: '127.0.0.1', siteUrl: `${site.url}/`, maxPages: 40, status: 'queued', requestedAt: minutesAgo(200), day: '2026-12-01', attempts: 0, ...row });
		let saved: InMemoryDataTables;
		beforeEach(() => {
			saved = tables;
			tables = siteToolsTables();
		});
		afterEach(() => {
			tables = saved;
		});

		it('two calls at once for one site: one audit queued, both answered with it; a row written by the later one is set aside and counts for nothing', async () => {
			const [one, other] = await Promise.all([callTool('audit_site', { site: '127.0.0.1' }), callTool('audit_site', { site: `${site.url}/` })]);

			expect(one.answer.auditId).toBe(other.answer.auditId);
			expect([one.answer.outcome, other.answer.outcome].sort()).toEqual(['alreadyQueued', 'queued']);
			expect(queueRows().filter((row) => row.status === 'queued').map((row) => row.id)).toEqual([one.answer.auditId]);
			const setAside = queueRows().filter((row) => row.status === 'duplicate');
			for (const row of setAside) {
				const { answer } = await callTool('audit_status', { auditId: row.id });
				expect(answer).toMatchObject({ status: 'duplicate', reason: 'Asked for at the same moment as an earlier audit of the site, which runs instead.' });
			}
			// The day's second audit is still allowed (2 a day): the row set aside is none.
			await updateQueueRow(Number(one.answer.auditId), { status: 'done' });
			expect((await callTool('audit_site', { site: '127.0.0.1' })).answer).toMatchObject({ outcome: 'queued', auditsLeftToday: 0 });
		});

		it("a site whose start page does not answer: Site > Audit stops, and the audit is marked failed with the node's reason", async () => {
			const [row] = tables.insert(QUEUE, [queued({ site: '127.0.0.1', siteUrl: 'http://127.0.0.1:1/' })]);
			const result = await drainQueue();

			expect(result.executedNodes).toContain('Mark it failed');
			expect(queueRow(row.id)).toMatchObject({ status: 'failed', attempts: 1 });
			expect(String(queueRow(row.id).reason)).toMatch(/^Site URL http:\/\/127\.0\.0\.1:1\/ did not answer \(/);
			expect(tables.rows(AUDIT_HISTORY_TABLES.runs.name)).toEqual([]);
			const { answer } = await callTool('audit_status', { auditId: row.id });
			expect(answer).toMatchObject({ status: 'failed', reason: queueRow(row.id).reason });
		});

		it('an audit running for a few minutes holds the queue: nothing else starts', async () => {
			tables.insert(QUEUE, [queued({ status: 'running', startedAt: minutesAgo(5), attempts: 1 }), queued({})]);
			const result = await drainQueue();

			expect(result.executedNodes).not.toContain('Claim it');
			expect(queueRows().map((row) => row.status)).toEqual(['running', 'queued']);
		});

		it('an audit left running past interruptedAfterMinutes (n8n restarted under it) runs again before the audits queued after it; one cut off too often is given up', async () => {
			const [interrupted, next] = tables.insert(QUEUE, [queued({ status: 'running', startedAt: minutesAgo(150), attempts: 1 }), queued({ site: 'shop.example.org' })]);
			await drainQueue();

			expect(queueRow(interrupted.id)).toMatchObject({ status: 'done', attempts: 2 });
			expect(queueRow(next.id)).toMatchObject({ status: 'queued', attempts: 0 });
			expect(tables.rows(AUDIT_HISTORY_TABLES.runs.name).map((run) => run.runId)).toEqual([queueRow(interrupted.id).runId]);

			const [tooOften] = tables.insert(QUEUE, [queued({ status: 'running', startedAt: minutesAgo(150), attempts: 3 })]);
			const requestsBefore = apiRequests(server).length;
			const result = await drainQueue();
			expect(queueRow(tooOften.id)).toMatchObject({ status: 'failed', attempts: 4 });
			expect(queueRow(tooOften.id).reason).toBe('It was stopped 3 times before it ended (n8n restarted, or ran out of memory), so it is not run again.');
			expect(result.executedNodes).not.toContain('Audit site');
			expect(apiRequests(server).length).toBe(requestsBefore);
		});
	});

	it('a long list of issues is cut to fit, the lines left out counted, URLs whole', async () => {
		const runId = '2026-11-30T06:00:00.000Z';
		const history = siteToolsTables();
		const urls = Array.from({ length: 60 }, (_, index) => `https://shop.example.org/catalogue/category-${index}/a-rather-long-product-name-${index}.html`);
		history.insert(AUDIT_HISTORY_TABLES.runs.name, [{ runId, runAt: new Date(runId), site: 'shop.example.org', pages: 60, averageScore: 50, good: 0, decent: 60, bad: 0, notAnalyzed: 0 }]);
		history.insert(
			AUDIT_HISTORY_TABLES.pages.name,
			urls.map((url, index) => ({
				runId,
				runAt: new Date(runId),
				site: 'shop.example.org',
				url,
				score: 50,
				grade: 'decent',
				failedHigh: ['title', 'meta_description', 'headings'][index % 3],
				failedMedium: ['favicon', 'language', 'charset', 'load_time'][index % 4],
				broken: false,
				siteIssues: ['duplicate_title', 'missing_from_sitemap', 'deep_page', 'slow_page', 'large_page'].slice(0, (index % 5) + 1).join(', '),
			})),
		);
		const saved = tables;
		tables = history;
		try {
			const { answer, text } = await callTool('site_issues', { site: 'shop.example.org' });

			expect(text.length).toBeLessThanOrEqual(ANSWER_LIMIT);
			expect(answer).toMatchObject({ siteIssueCount: 5, checkCount: 7 });
			const shown = lines(answer, 'siteIssues').length + lines(answer, 'checksByWorth').length;
			expect(shown + Number(answer.siteIssuesNotShown ?? 0) + Number(answer.checksByWorthNotShown ?? 0)).toBe(12);
			expect(shown).toBeLessThan(12);
			for (const url of text.match(/https:\/\/shop\.example\.org\/[^\s,"]*/g) ?? []) expect(urls).toContain(url);
		} finally {
			tables = saved;
		}
	});
});

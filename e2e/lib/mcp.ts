/**
 * examples/phprank-mcp-server.json served by n8n's MCP Server Trigger, checked with the official MCP client
 * (@modelcontextprotocol/sdk) as Claude Desktop or Cursor would use it: the bearer token, the tools' names,
 * descriptions and parameters (no tool deletes a project), their compact answers against what the bundled server
 * holds, reports sorted by generated_at (which phpRank 1.5's API leaves to the client), bad arguments answered as tool
 * errors, and a call with phpRank's rate limit spent answered at once.
 */
import { randomBytes } from 'node:crypto';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { INodeTypeDescription } from 'n8n-workflow';

import type { PhpRankServer, ReportState } from '../../dev/server';
import { failedChecks, failedCheckTitles } from '../../dev/server/analysis';
import { resultBandOf } from '../../dev/server/listQuery';
import { assert, assertEqual, type Checks } from './checks';
import type { Example, WorkflowNode } from '../../dev/n8n/examples';
import { activateWorkflow } from '../../dev/n8n/executions';
import type { N8nRest } from '../../dev/n8n/n8n';
import { request } from '../../dev/n8n/util';
import { runSiteToolChecks, setUpSiteTools, type SiteToolsContext } from './mcpSiteTools';

export const MCP_EXAMPLE = 'phprank-mcp-server.json';
const MCP_TRIGGER_TYPE = '@n8n/n8n-nodes-langchain.mcpTrigger';
const WORKFLOW_TOOL_TYPE = '@n8n/n8n-nodes-langchain.toolWorkflow';

/** What each tool's arguments must look like to a client: JSON Schema type, and the default when it may be left out. */
const ARGUMENTS: Record<string, Record<string, { type: string; default?: unknown }>> = {
	create_report: { url: { type: 'string' } },
	get_report: { reportId: { type: 'number' } },
	list_reports: { limit: { type: 'number', default: 20 }, search: { type: 'string', default: '' }, sortBy: { type: 'string', default: 'id' }, sortOrder: { type: 'string', default: 'desc' } },
	reanalyze_report: { reportId: { type: 'number' } },
	delete_report: { reportId: { type: 'number' } },
	list_projects: { limit: { type: 'number', default: 50 }, search: { type: 'string', default: '' } },
	// The site tools (Call n8n Workflow Tool): their `$fromAI` inputs, in the order of the Workflow Inputs.
	audit_site: { site: { type: 'string' }, maxPages: { type: 'number', default: 0 } },
	audit_status: { auditId: { type: 'number', default: 0 }, site: { type: 'string', default: '' } },
	site_issues: { site: { type: 'string' }, severity: { type: 'string', default: '' }, issue: { type: 'string', default: '' } },
	compare_audits: { site: { type: 'string' } },
};

// An MCP client's default request timeout (the SDK's): a tool call must answer before it, whatever phpRank does.
const CLIENT_TIMEOUT_MS = 60_000;

// phpRank's rate limit as a client meets it once spent: one request a window, the window longer than a tool call waits.
const SPENT_RATE_LIMIT = { maxAttempts: 1, decaySeconds: 90 };

interface ListedTool {
	name: string;
	description?: string;
	inputSchema: { type: string; properties?: Record<string, { type?: string; description?: string; default?: unknown }>; required?: string[] };
}

interface ToolAnswer {
	isError?: boolean;
	content: Array<{ type: string; text?: string }>;
}

/** The MCP server example, the trigger's token credential and what the e2e leg needs to reach it. */
export function mcpExample(examples: Example[]) {
	const example = examples.find((candidate) => candidate.file === MCP_EXAMPLE);
	assert(example, `examples/${MCP_EXAMPLE} is missing`);
	const trigger = example.workflow.nodes.find((node) => node.type === MCP_TRIGGER_TYPE);
	const reference = trigger?.credentials?.httpBearerAuth;
	assert(trigger && reference, `examples/${MCP_EXAMPLE}: no MCP Server Trigger with Bearer Auth`);
	const tools = example.workflow.nodes.filter((node) => example.workflow.connections[node.name]?.ai_tool);
	return { example, trigger, tools, credential: { ...reference, type: 'httpBearerAuth', data: { token: randomBytes(24).toString('hex') } } };
}

type McpExample = ReturnType<typeof mcpExample>;

/** What `$fromAI('key', 'description', …)` in a node's parameters tells the model about `key`. */
function fromAiDescription(node: WorkflowNode, key: string): string | undefined {
	const call = new RegExp(`\\$fromAI\\('${key}', '((?:[^'\\\\]|\\\\.)*)'`).exec(JSON.stringify(node.parameters));
	return call?.[1];
}

/** The tool's Description: the example's own, or the one the node declares for its operation. */
function descriptionOf(node: WorkflowNode, toolType: INodeTypeDescription): unknown {
	// Call n8n Workflow Tool names it `description`.
	if (node.type === WORKFLOW_TOOL_TYPE) return node.parameters.description;
	if (node.parameters.toolDescription) return node.parameters.toolDescription;
	const declared = toolType.properties.find(
		(property) =>
			property.name === 'toolDescription' &&
			property.displayOptions?.show?.resource?.includes(node.parameters.resource as string) &&
			property.displayOptions?.show?.operation?.includes(node.parameters.operation as string),
	);
	return declared?.default;
}

function answerOf(answer: ToolAnswer): Array<Record<string, unknown>> {
	assert(!answer.isError, `the tool answered an error: ${answer.content[0]?.text}`);
	const text = answer.content[0]?.text ?? '';
	const parsed = JSON.parse(text) as unknown;
	return Array.isArray(parsed) ? (parsed as Array<Record<string, unknown>>) : [parsed as Record<string, unknown>];
}

/** A report answered to the client: score, grade, failed checks and link as the server holds them, no per-check results. */
function checkCompact(item: Record<string, unknown>, stored: ReportState | undefined, phpRank: PhpRankServer): void {
	assert(stored, `report ${String(item.id)} is not on the server`);
	assertEqual(
		{ id: item.id, result: item.result, grade: item.grade, failedChecks: item.failedChecks, failedCheckNames: item.failedCheckNames, reportUrl: item.reportUrl },
		{
			id: stored.id,
			result: stored.result,
			grade: resultBandOf(stored.result),
			failedChecks: failedChecks(stored.targetUrl, stored.quality),
			failedCheckNames: failedCheckTitles(stored.targetUrl, stored.quality),
			reportUrl: `${phpRank.url}/reports/${stored.id}`,
		},
		`report ${stored.id}`,
	);
	assert(!('results' in item), `report ${stored.id} carries its per-check results`);
}

async function connect(url: string, token: string, transport: 'streamable' | 'sse'): Promise<Client> {
	const requestInit = { headers: { authorization: `Bearer ${token}` } };
	const client = new Client({ name: 'n8n-nodes-phprank-e2e', version: '1.0.0' });
	const target = new URL(url);
	await client.connect(transport === 'sse' ? new SSEClientTransport(target, { requestInit }) : new StreamableHTTPClientTransport(target, { requestInit }));
	return client;
}

export async function runMcpChecks(
	checks: Checks,
	context: { mcp: McpExample; rest: N8nRest; n8nUrl: string; n8nVersion: string; phpRank: PhpRankServer; toolType: INodeTypeDescription; siteTools?: SiteToolsContext },
): Promise<void> {
	const { mcp, rest, phpRank } = context;
	const token = mcp.credential.data.token;
	const url = `${context.n8nUrl}/mcp/${String(mcp.trigger.parameters.path)}`;
	const names = mcp.tools.map((node) => node.name).sort();

	// The workflow the site tools call, and the queue, before the MCP server: as a user sets them up.
	const siteTools = context.siteTools ? await setUpSiteTools(checks, { ...context.siteTools, rest, n8nVersion: context.n8nVersion }) : undefined;

	await checks.step(`examples/${MCP_EXAMPLE} published: the MCP Server Trigger answers on /mcp/${String(mcp.trigger.parameters.path)}`, async () => {
		await activateWorkflow(rest, context.n8nVersion, { workflowId: mcp.example.id });
		return url;
	});

	await checks.check('the MCP server refuses a client without the bearer token, or with another one (403)', async () => {
		const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } });
		const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
		for (const authorization of [undefined, 'Bearer not-the-token']) {
			const answer = await request(url, { method: 'POST', headers: { ...headers, ...(authorization && { authorization }) }, body: initialize });
			assertEqual(answer.status, 403, `status ${authorization ? 'with another token' : 'without a token'}`);
		}
	});

	phpRank.reset();
	phpRank.seedReports(20, { projects: ['example.com', 'shop.example.org'] });
	const client = await checks.step(
		'an MCP client (@modelcontextprotocol/sdk, Streamable HTTP) connects with the bearer token',
		async () => await connect(url, token, 'streamable'),
		(connected) => `server "${connected.getServerVersion()?.name}"`,
	);
	try {
		await checks.check(`tools/list: ${names.join(', ')}, each with its Description and its $fromAI parameters`, async () => {
			const { tools } = (await client.listTools()) as { tools: ListedTool[] };
			assertEqual(tools.map((tool) => tool.name).sort(), names, 'tool names');
			for (const node of mcp.tools) {
				const tool = tools.find((candidate) => candidate.name === node.name)!;
				assertEqual(tool.description, descriptionOf(node, context.toolType), `description of ${tool.name}`);
				const expected = ARGUMENTS[node.name];
				assert(expected, `no expectation for the tool ${node.name}`);
				const properties = Object.fromEntries(
					Object.entries(tool.inputSchema.properties ?? {}).map(([key, property]) => [key, { type: property.type, description: property.description, default: property.default }]),
				);
				const wanted = Object.fromEntries(Object.entries(expected).map(([key, argument]) => [key, { type: argument.type, description: fromAiDescription(node, key), default: argument.default }]));
				assertEqual(properties, wanted, `parameters of ${tool.name}`);
				const required = Object.entries(expected).filter(([, argument]) => argument.default === undefined).map(([key]) => key);
				assertEqual([...(tool.inputSchema.required ?? [])].sort(), required.sort(), `required parameters of ${tool.name}`);
			}
			return `${tools.length} tools`;
		});

		await checks.check('no tool deletes a project (phpRank 1.2 to 1.8 delete an unrelated report with it); delete_report says it cannot be undone', async () => {
			const { tools } = (await client.listTools()) as { tools: ListedTool[] };
			const projectDeletes = mcp.tools.filter((node) => node.parameters.resource === 'project' && node.parameters.operation === 'delete');
			assertEqual(projectDeletes.map((node) => node.name), [], 'tools of Project > Delete in the example');
			const deletes = tools.filter((tool) => /^delete/i.test(tool.description ?? ''));
			assertEqual(deletes.map((tool) => tool.name), ['delete_report'], 'tools whose description starts with Delete');
			assert(/cannot be undone/.test(deletes[0].description ?? ''), `delete_report's description: "${deletes[0].description}"`);
			return `"${deletes[0].description}"`;
		});

		const page = 'https://mcp-client.example.com/pricing';
		let createdId: number | undefined;
		await checks.check('create_report: a report created on the server, answered compactly; called again, the same report', async () => {
			const before = phpRank.requests.length;
			const [created] = answerOf((await client.callTool({ name: 'create_report', arguments: { url: page } })) as ToolAnswer);
			const stored = phpRank.reports().filter((report) => report.targetUrl === page);
			assertEqual(stored.length, 1, `reports of ${page} on the server`);
			checkCompact(created, stored[0], phpRank);
			assertEqual(created.outcome, 'created', 'outcome');
			const creates = phpRank.requests.slice(before).filter((entry) => entry.method === 'POST' && entry.path === '/api/v1/reports');
			assertEqual(creates.map((entry) => entry.body.url), [page], 'POST /api/v1/reports the server received');
			const [again] = answerOf((await client.callTool({ name: 'create_report', arguments: { url: page } })) as ToolAnswer);
			assertEqual({ id: again.id, outcome: again.outcome }, { id: created.id, outcome: 'existing' }, 'the second call');
			createdId = stored[0].id;
			return `report ${createdId}: ${String(created.result)} (${String(created.grade)})`;
		});

		await checks.check('get_report: the report by its ID, compact', async () => {
			assert(createdId !== undefined, 'no report was created');
			const [read] = answerOf((await client.callTool({ name: 'get_report', arguments: { reportId: createdId } })) as ToolAnswer);
			checkCompact(read, phpRank.reports().find((report) => report.id === createdId), phpRank);
			return `report ${createdId}`;
		});

		await checks.check('list_reports: the 20 newest by default; the 5 lowest scores with sortBy result, sortOrder asc', async () => {
			const stored = phpRank.reports();
			const newest = answerOf((await client.callTool({ name: 'list_reports', arguments: {} })) as ToolAnswer);
			const newestIds = [...stored].sort((a, b) => b.id - a.id).slice(0, 20).map((report) => report.id);
			assertEqual(newest.map((item) => item.id), newestIds, 'IDs listed without arguments');
			const worst = answerOf((await client.callTool({ name: 'list_reports', arguments: { sortBy: 'result', sortOrder: 'asc', limit: 5 } })) as ToolAnswer);
			assertEqual(worst.map((item) => item.result), stored.map((report) => report.result).sort((a, b) => a - b).slice(0, 5), 'the 5 lowest scores');
			for (const item of [...newest, ...worst]) checkCompact(item, stored.find((report) => report.id === item.id), phpRank);
			return `${newest.length} and ${worst.length} reports`;
		});

		await checks.check('list_reports with sortBy generated_at: the order of analysis, which phpRank 1.5 leaves to the client, descending and ascending', async () => {
			const stored = phpRank.reports();
			const byAnalysis = [...stored].sort((a, b) => Date.parse(a.generatedAt) - Date.parse(b.generatedAt) || a.id - b.id).map((report) => report.id);
			assert(byAnalysis.join() !== [...stored].sort((a, b) => a.id - b.id).map((report) => report.id).join(), 'the reports were analyzed in creation order: nothing to tell apart');
			const latest = answerOf((await client.callTool({ name: 'list_reports', arguments: { sortBy: 'generated_at', limit: 5 } })) as ToolAnswer);
			assertEqual(latest.map((item) => item.id), [...byAnalysis].reverse().slice(0, 5), 'the 5 latest analyzed');
			const earliest = answerOf((await client.callTool({ name: 'list_reports', arguments: { sortBy: 'generated_at', sortOrder: 'asc', limit: 5 } })) as ToolAnswer);
			assertEqual(earliest.map((item) => item.id), byAnalysis.slice(0, 5), 'the 5 earliest analyzed');
			return `IDs ${latest.map((item) => item.id).join(', ')} and ${earliest.map((item) => item.id).join(', ')}`;
		});

		const toolError = async (name: string, args: Record<string, unknown>, message: RegExp) => {
			const before = phpRank.requests.length;
			const answer = (await client.callTool({ name, arguments: args })) as ToolAnswer;
			const text = answer.content[0]?.text ?? '';
			assertEqual(answer.isError, true, `isError of ${name}(${JSON.stringify(args)}), answered "${text}"`);
			assert(message.test(text), `${name}(${JSON.stringify(args)}) answered "${text}", not ${message}`);
			return { text: text.split('\n')[0], requests: phpRank.requests.length - before };
		};
		await checks.check('create_report with a URL that is not absolute: a tool error naming the field, and no request', async () => {
			const { text, requests } = await toolError('create_report', { url: 'example.com/pricing' }, /URL must be an absolute http\(s\) address .*; got "example\.com\/pricing"/);
			assertEqual(requests, 0, 'requests the server received');
			return `"${text}"`;
		});
		await checks.check('get_report with an unknown report ID: a tool error saying it was not found', async () => {
			return `"${(await toolError('get_report', { reportId: 999999 }, /Report 999999 was not found/)).text}"`;
		});
		await checks.check('list_reports with an unknown sortBy: a tool error naming the field and its values, and no request', async () => {
			const { text, requests } = await toolError('list_reports', { sortBy: 'score' }, /Sort By must be one of: id \(Date Created\), generated_at .*; got "score"/);
			assertEqual(requests, 0, 'requests the server received');
			return `"${text}"`;
		});
		// Before phpRank's rate limit is spent: the node keeps waiting it out for every execution of this n8n.
		if (siteTools) {
			await runSiteToolChecks(checks, { client, connect: async () => await connect(url, token, 'streamable'), rest, n8nVersion: context.n8nVersion, phpRank, setup: siteTools });
		}
		await checks.check("create_report with phpRank's rate limit spent: the tool error at once (how long phpRank asks to wait, no report created, when to try again), no POST", async () => {
			phpRank.setRateLimit(SPENT_RATE_LIMIT);
			try {
				// Spent by another client at n8n's address: phpRank counts requests per client address.
				const spending = await request(`${phpRank.url}/api/v1/account`, { headers: { accept: 'application/json', authorization: `Bearer ${phpRank.apiKey}` } });
				assertEqual(spending.status, 200, 'the request that spends the limit');
				const startedAt = Date.now();
				const { text, requests } = await toolError(
					'create_report',
					{ url: 'https://mcp-client.example.com/rate-limited' },
					/phpRank's rate limit is spent \(429 Too Many Attempts\): phpRank asks to wait (\d+) seconds, longer than a tool call waits; no report was created or changed\. Try again in \1 seconds\./,
				);
				const tookMs = Date.now() - startedAt;
				assert(tookMs < CLIENT_TIMEOUT_MS / 2, `the tool error came after ${tookMs} ms, not well within the client's ${CLIENT_TIMEOUT_MS} ms`);
				// The lookup of the URL, or the create itself when n8n kept the site's reports from an earlier call: refused.
				const sent = phpRank.requests.slice(phpRank.requests.length - requests).map((entry) => entry.status);
				assertEqual(sent, [429], 'answers the server gave the call');
				assert(!phpRank.reports().some((report) => report.targetUrl.includes('rate-limited')), 'a report was stored');
				return `"${text}" after ${tookMs} ms`;
			} finally {
				phpRank.setRateLimit(false);
			}
		});
		await checks.check('get_report with a reportId that is not a number: a tool error, and the client can still list the tools', async () => {
			const { text } = await toolError('get_report', { reportId: 'the newest one' }, /schema/i);
			assertEqual((await client.listTools()).tools.length, names.length, 'tools listed afterwards');
			return `"${text}"`;
		});
	} finally {
		await client.close();
	}

	await checks.check('over SSE, the other transport at the same URL: the same tools, and get_report answers', async () => {
		const sse = await connect(url, token, 'sse');
		try {
			const { tools } = await sse.listTools();
			assertEqual(tools.map((tool) => tool.name).sort(), names, 'tool names');
			const stored = phpRank.reports()[0];
			const [read] = answerOf((await sse.callTool({ name: 'get_report', arguments: { reportId: stored.id } })) as ToolAnswer);
			checkCompact(read, stored, phpRank);
			return `report ${stored.id}`;
		} finally {
			await sse.close();
		}
	});
}

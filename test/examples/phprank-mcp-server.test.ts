/**
 * examples/phprank-mcp-server.json: each tool of the MCP server example called as a client's model would call it,
 * in n8n's engine against the bundled server. The end-to-end suite calls the same tools through n8n's MCP Server
 * Trigger with an MCP client.
 */
import type { IDataObject } from 'n8n-workflow';

import { runTool } from '../../dev/engine';
import { loadExampleWorkflow } from '../../dev/examples';
import { resultBandOf } from '../../dev/server/listQuery';
import { GONE_PAGES } from '../../dev/server/site';
import { TOOL_CALL_MAX_WAIT_SECONDS } from '../../nodes/PhpRank/shared/toolUse';
import { apiRequests, credentialsFor, failedCheckNamesOnServer, failedChecksOnServer, useServer } from '../support/phpRank';

const example = loadExampleWorkflow('phprank-mcp-server.json');
const TRIGGER_TYPE = '@n8n/n8n-nodes-langchain.mcpTrigger';

const server = useServer({}, (phpRank) => phpRank.seedReports(30, { projects: ['example.com', 'shop.example.org'] }));

function toolNode(name: string) {
	const node = example.nodes.find((candidate) => candidate.name === name);
	if (!node) throw new Error(`examples/phprank-mcp-server.json has no node "${name}"`);
	return node;
}

/** The tool called with these arguments; its answer parsed, or its error. */
async function callTool(name: string, args: IDataObject) {
	const node = toolNode(name);
	return await runTool({ type: node.type, parameters: node.parameters, args, credentials: credentialsFor(server()) });
}

const report = (id: unknown) => server().reports().find((candidate) => candidate.id === id)!;
const newestFirst = () => [...server().reports()].sort((a, b) => b.id - a.id);

/** What a tool answers about a stored report: score, grade, failed checks with their titles and link, without per-check results. */
function expectCompactReport(answer: IDataObject) {
	const stored = report(answer.id);
	expect(answer).toMatchObject({
		result: stored.result,
		grade: resultBandOf(stored.result),
		failedChecks: failedChecksOnServer(stored),
		failedCheckNames: failedCheckNamesOnServer(stored),
		reportUrl: `${server().url}/reports/${stored.id}`,
	});
	expect(answer).not.toHaveProperty('results');
}

describe('examples/phprank-mcp-server.json', () => {
	it('connects six phpRank tools to the MCP Server Trigger, one per operation but Update and Project > Delete (and four site tools, test/examples/phprank-mcp-site-tools.test.ts)', () => {
		const trigger = example.nodes.find((node) => node.type === TRIGGER_TYPE)!;
		const connected = Object.entries(example.connections).map(([from, outputs]) => ({ from, to: outputs.ai_tool?.flat().map((target) => target?.node) }));
		const tools = connected.filter(({ from }) => toolNode(from).type === 'n8n-nodes-phprank.phpRankTool');
		const operations = tools.map(({ from }) => `${String(toolNode(from).parameters.resource)}/${String(toolNode(from).parameters.operation)}`);

		expect(connected.every(({ to }) => to?.length === 1 && to[0] === trigger.name)).toBe(true);
		expect(connected.length - tools.length).toBe(4);
		// phpRank 1.2 to 1.8 delete an unrelated report with a project: no model is offered that.
		// A model re-analyzes a page (reanalyze_report); a report's privacy and password stay the user's to set.
		expect(operations.sort()).toEqual(['project/getAll', 'report/create', 'report/delete', 'report/get', 'report/getAll', 'report/reanalyze']);
		expect(example.nodes.filter((node) => node.type !== TRIGGER_TYPE && node.parameters.resource === 'project' && node.parameters.operation === 'delete')).toEqual([]);
	});

	it('create_report: a new URL gets a report, the same URL again returns that report', async () => {
		const url = 'https://agent.example.com/pricing';
		const created = await callTool('create_report', { url });
		const again = await callTool('create_report', { url });

		const stored = server().reports().filter((candidate) => candidate.url.includes('agent.example.com/pricing'));
		expect(stored).toHaveLength(1);
		expect(created.response).toMatchObject([{ id: stored[0].id, outcome: 'created' }]);
		expect(again.response).toMatchObject([{ id: stored[0].id, outcome: 'existing' }]);
		expectCompactReport((created.response as IDataObject[])[0]);
	});

	it('get_report: the report by its ID, compact', async () => {
		const { response } = await callTool('get_report', { reportId: 7 });

		expect(apiRequests(server()).map((request) => request.rawPath)).toEqual(['/api/v1/reports/7']);
		expectCompactReport((response as IDataObject[])[0]);
	});

	it('list_reports: 20 newest without arguments; sorted by score, ascending, for the worst pages', async () => {
		const newest = await callTool('list_reports', {});
		const worst = await callTool('list_reports', { sortBy: 'result', sortOrder: 'asc', limit: 5 });

		expect((newest.response as IDataObject[]).map((item) => item.id)).toEqual(newestFirst().slice(0, 20).map((stored) => stored.id));
		const scores = (worst.response as IDataObject[]).map((item) => item.result);
		expect(scores).toEqual(
			server()
				.reports()
				.map((stored) => stored.result)
				.sort((a, b) => a - b)
				.slice(0, 5),
		);
		for (const item of worst.response as IDataObject[]) expectCompactReport(item);
		expect(apiRequests(server()).at(-1)?.query).toMatchObject({ sort_by: 'result', sort: 'asc' });
	});

	it('list_reports: sorted by generated_at, the most recently analyzed first, though phpRank 1.5 sorts by id instead', async () => {
		const byGeneration = [...server().reports()].sort((a, b) => b.generatedAt.localeCompare(a.generatedAt) || b.id - a.id).map((stored) => stored.id);
		expect(byGeneration).not.toEqual(newestFirst().map((stored) => stored.id));

		const latest = await callTool('list_reports', { sortBy: 'generated_at', limit: 5 });
		const earliest = await callTool('list_reports', { sortBy: 'generated_at', sortOrder: 'asc', limit: 5 });

		expect((latest.response as IDataObject[]).map((item) => item.id)).toEqual(byGeneration.slice(0, 5));
		expect((earliest.response as IDataObject[]).map((item) => item.id)).toEqual([...byGeneration].reverse().slice(0, 5));
		// Each call: page 1 says phpRank sorted by id, then the whole list (30 reports) is read at 100.
		expect(apiRequests(server()).map((request) => [request.query.sort_by, request.query.per_page, request.query.page])).toEqual([
			['generated_at', '10', '1'],
			['generated_at', '100', '1'],
			['generated_at', '10', '1'],
			['generated_at', '100', '1'],
		]);
	});

	it('list_reports: a search keeps the reports whose URL contains the text', async () => {
		const { response } = await callTool('list_reports', { search: 'shop.example.org' });

		const expected = newestFirst().filter((stored) => stored.url.includes('shop.example.org'));
		expect(expected.length).toBeGreaterThan(0);
		expect((response as IDataObject[]).map((item) => item.id)).toEqual(expected.slice(0, 20).map((stored) => stored.id));
	});

	it('reanalyze_report: the page analyzed again, with what changed', async () => {
		const before = report(4);
		server().changePage(before.url, { quality: 0 });
		const { response } = await callTool('reanalyze_report', { reportId: 4 });

		const [answer] = response as IDataObject[];
		expectCompactReport(answer);
		expect(answer).toMatchObject({ previousResult: before.result, resultChange: report(4).result - before.result });
		expect(report(4).result).toBeLessThan(before.result);
	});

	it('delete_report deletes the report it names, and tells the model that this cannot be undone', async () => {
		const before = server().reports().length;
		const deleted = await callTool('delete_report', { reportId: 5 });

		expect(deleted.toolDescription).toMatch(/^Delete one phpRank SEO report by its numeric report ID\. This cannot be undone\./);
		expect(deleted.response).toEqual([{ deleted: true, id: 5 }]);
		expect(server().reports().map((stored) => stored.id)).not.toContain(5);
		expect(server().reports()).toHaveLength(before - 1);
	});

	it("create_report with phpRank's rate limit spent: at once, the tool error saying how long phpRank asks to wait and that no report was created", async () => {
		server().setRateLimit({ maxAttempts: 1, decaySeconds: 90 });
		try {
			const spending = await callTool('get_report', { reportId: 7 });
			const refused = await callTool('create_report', { url: 'https://agent.example.com/rate-limited' });

			expect(spending.error).toBeUndefined();
			const [, seconds] = /asks to wait (\d+) seconds/.exec(refused.error?.message ?? '') ?? [];
			expect(refused.error?.message).toBe(
				`phpRank's rate limit is spent (429 Too Many Attempts): phpRank asks to wait ${seconds} seconds, longer than a tool call waits; no report was created or changed. Try again in ${seconds} seconds.`,
			);
			expect(Number(seconds)).toBeGreaterThan(TOOL_CALL_MAX_WAIT_SECONDS);
			expect(apiRequests(server()).map((request) => request.status)).toEqual([200, 429]);
			expect(server().reports().some((stored) => stored.url.includes('rate-limited'))).toBe(false);
		} finally {
			server().setRateLimit(false);
		}
	});

	it('create_report for a page that answered 404: the reason in words, without the HTML phpRank quotes', async () => {
		const { error } = await callTool('create_report', { url: GONE_PAGES[0] });

		expect(error?.message).toBe(`phpRank could not fetch the page to analyze it (422): the page answered 404 Not Found (GET ${GONE_PAGES[0].replace(/^https:/, 'http:')})`);
		expect(`${error?.message} ${error?.description}`).not.toMatch(/[<>]/);
	});

	it('list_projects: the projects with their average score', async () => {
		const { response } = await callTool('list_projects', {});

		expect((response as IDataObject[]).map((item) => item.project).sort()).toEqual(['example.com', 'shop.example.org']);
	});

	it.each([
		['create_report', { url: 'example.com/pricing' }, /^URL must be an absolute http\(s\) address .*; got "example.com\/pricing"/],
		['list_reports', { sortBy: 'score' }, /^Sort By must be one of: id \(Date Created\), generated_at .*; got "score"/],
		['get_report', { reportId: 99999 }, /^Report 99999 was not found/],
	])('%s with bad arguments (%j) fails with a message naming the cause', async (name, args, message) => {
		const { error } = await callTool(name, args);

		expect(error?.message).toMatch(message);
		if (name !== 'get_report') expect(apiRequests(server())).toHaveLength(0);
	});
});

import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { runTool, toToolDescription } from '../../../../dev/engine';
import { PhpRank } from '../../../../nodes/PhpRank/PhpRank.node';
import { TOOL_CALL_MAX_WAIT_SECONDS } from '../../../../nodes/PhpRank/shared/toolUse';
import { startAuditSite } from '../../../../dev/server';
import type { AuditSite } from '../../../../dev/server';
import type { PhpRankServer } from '../../../support/phpRank';
import { apiRequests, byId, byName, credentialsFor, requestLines, runPhpRank, startServer, useServer } from '../../../support/phpRank';

const server = useServer({}, (phpRank) => phpRank.seedReports(40, { projects: ['example.com', 'shop.example.org'] }));

let site: AuditSite;
beforeAll(async () => (site = await startAuditSite()));
afterAll(async () => await site.close());

const asAgent = (parameters: IDataObject, args: IDataObject) =>
	runTool({ parameters: parameters as never, args, credentials: credentialsFor(server()) });

const node = new PhpRank().description;
const tool = toToolDescription(node);

function shownParameters(description: typeof node, parameters: IDataObject) {
	const asSaved = { parameters, typeVersion: 1 } as unknown as INode;
	return NodeHelpers.getNodeParameters(description.properties, parameters as never, true, false, asSaved, description) ?? {};
}

const reportId = { __rl: true, mode: 'id', value: '3' };

const OPERATIONS = [
	['report', 'create', /absolute http\(s\) URL/, { url: 'https://agent.example.com/' }],
	['report', 'get', /numeric report ID/, { reportId }],
	['report', 'getAll', /filtered by grade/, {}],
	['report', 'reanalyze', /numeric report ID/, { reportId }],
	['report', 'update', /numeric report ID/, { reportId, updateFields: { privacy: 1 } }],
	['report', 'delete', /numeric report ID/, { reportId }],
	['project', 'getAll', /averageResult/, {}],
	['project', 'delete', /project name/, { projectName: { __rl: true, mode: 'name', value: 'example.com' } }],
	// The bundled audit site's start page alone.
	['site', 'audit', /Site URL is the start page/, { discover: 'links', maxPages: 1 }],
] as const;

describe('what an AI agent is told about each operation', () => {
	it('offers one Description per operation on the tool only, in place of n8n\'s action-only one', () => {
		const descriptions = tool.properties.filter((property: INodeProperties) => property.name === 'toolDescription');
		expect(descriptions).toHaveLength(OPERATIONS.length);
		expect(tool.properties.some((property) => property.name === 'descriptionType')).toBe(false);
		for (const [resource, operation] of OPERATIONS) {
			expect(shownParameters(node, { resource, operation })).not.toHaveProperty('toolDescription');
			expect(shownParameters(tool, { resource, operation }).toolDescription).toEqual(expect.any(String));
		}
	});

	it.each(OPERATIONS)('%s > %s: the agent reads what it needs and what comes back', async (resource, operation, needs, parameters) => {
		const expected = shownParameters(tool, { resource, operation }).toolDescription as string;
		const siteUrl = resource === 'site' ? { siteUrl: `${site.url}/` } : {};
		const result = await asAgent({ resource, operation, ...parameters, ...siteUrl }, {});

		expect(result.toolDescription).toBe(expected);
		expect(expected).toMatch(needs);
		expect(expected).toMatch(/Returns/);
		if (resource === 'report' && operation !== 'delete') {
			expect(expected).toMatch(/result \(the SEO score, 0 to 100\), grade/);
			expect(expected).toContain('failedChecks');
			expect(expected).toContain('failedCheckNames');
			expect(expected).toMatch(/reportUrl \(the report's page in phpRank/);
			expect(expected).toMatch(/The answer is compact/);
		}
	});

	it('passes on a Description the user wrote instead', async () => {
		const written = 'Reads one SEO report of our shop by its ID.';
		const result = await asAgent({ resource: 'report', operation: 'get', reportId, toolDescription: written }, {});

		expect(result.toolDescription).toBe(written);
	});
});

describe('phpRank as an AI Agent tool', () => {
	it('reads a report whose id the model supplies through $fromAI', async () => {
		const result = await asAgent(
			{
				resource: 'report',
				operation: 'get',
				reportId: {
					__rl: true,
					mode: 'id',
					value: "={{ $fromAI('reportId', 'The numeric ID of the phpRank report', 'number') }}",
				},
			},
			{ reportId: 7 },
		);

		expect(result.error).toBeUndefined();
		expect(apiRequests(server()).map((request) => request.rawPath)).toEqual(['/api/v1/reports/7']);
		expect(JSON.stringify(result.response)).toContain('"id":7');
		expect(JSON.stringify(result.response)).toContain('"grade"');
		expect(result.toolDescription).toMatch(/report/i);
	});

	it('creates a report for the URL the model supplies', async () => {
		const result = await asAgent(
			{
				resource: 'report',
				operation: 'create',
				url: "={{ $fromAI('url', 'The absolute http(s) address of the page to analyze', 'string') }}",
			},
			{ url: 'https://agent.example.com/landing' },
		);

		expect(result.error).toBeUndefined();
		expect(apiRequests(server())[0].body).toEqual({ url: 'https://agent.example.com/landing', privacy: '0' });
		expect(JSON.stringify(result.response)).toContain('agent.example.com/landing');
	});

	it('answers compactly by default: 50 reports without their per-check results, with score, grade, failed checks and link', async () => {
		server().seedReports(50);
		const parameters = {
			resource: 'report',
			operation: 'getAll',
			limit: "={{ $fromAI('limit', 'How many reports to return', 'number') }}",
		};
		const compact = await asAgent(parameters, { limit: 50 });
		const detailed = await asAgent({ ...parameters, options: { includeResults: true } }, { limit: 50 });

		const compactText = JSON.stringify(compact.response);
		const detailedText = JSON.stringify(detailed.response);
		expect(compactText).not.toContain('"results"');
		expect(detailedText).toContain('"results"');
		for (const key of ['"result"', '"grade"', '"failedChecks"', `"reportUrl":"${server().url}/reports/`]) expect(compactText).toContain(key);
		expect(compactText.length * 4).toBeLessThan(detailedText.length);
	});

	it('answers compactly without Include Per-Check Results, and with the per-check results once the option is added as the editor adds it', async () => {
		const parameters = { resource: 'report', operation: 'get', reportId };
		const option = (node.properties.find((property) => property.name === 'options' && property.displayOptions?.show?.operation?.includes('get'))!
			.options as INodeProperties[]).find((candidate) => candidate.name === 'includeResults')!;
		const without = await asAgent(parameters, {});
		const added = await asAgent({ ...parameters, options: { includeResults: option.default } }, {});

		expect(without.error).toBeUndefined();
		expect(JSON.stringify(without.response)).not.toContain('"results"');
		expect(JSON.stringify(without.response)).toContain('"failedChecks"');
		expect(added.error).toBeUndefined();
		expect(JSON.stringify(added.response)).toContain('"results"');
	});

	it('lets the model ask for the per-check results through $fromAI', async () => {
		const parameters = {
			resource: 'report',
			operation: 'get',
			reportId,
			options: { includeResults: "={{ $fromAI('includeResults', 'Whether to return every check of the report', 'boolean') }}" },
		};
		const asked = await asAgent(parameters, { includeResults: true });
		const notAsked = await asAgent(parameters, { includeResults: false });

		expect(asked.error).toBeUndefined();
		expect(JSON.stringify(asked.response)).toContain('"results"');
		expect(JSON.stringify(notAsked.response)).not.toContain('"results"');
		expect(JSON.stringify(notAsked.response)).toContain('"failedChecks"');
	});

	it('hands the model a readable error when its input is wrong', async () => {
		const result = await asAgent(
			{
				resource: 'report',
				operation: 'get',
				reportId: { __rl: true, mode: 'id', value: "={{ $fromAI('reportId', 'The numeric ID', 'string') }}" },
			},
			{ reportId: 'the newest one' },
		);

		expect(JSON.stringify(result.response ?? result.error?.message)).toMatch(/Report ID must be a positive whole number/);
		expect(apiRequests(server())).toHaveLength(0);
	});
});

/** What a tool call's error says first, before n8n's "Details:" with its description. */
const saidFirst = (result: { error?: Error }) => result.error?.message.split('\n')[0];

const TOOL_CALL_WAIT = new RegExp(`^A tool call waits for phpRank at most ${TOOL_CALL_MAX_WAIT_SECONDS} seconds in all .* an MCP client, which gives up after 60 seconds, gets this answer\\.$`);

describe('a tool call answers before an MCP client gives up (60 s), with why and when to call again', () => {
	// A server that refuses connections, beside the one of this file.
	let own: PhpRankServer | undefined;
	afterEach(async () => {
		await own?.close();
		own = undefined;
	});

	it.each([
		['report', 'create', { url: 'https://agent.example.com/' }, '; no report was created or changed'],
		['report', 'update', { reportId: byId(3), updateFields: { reanalyze: true } }, '; Report 3 was not changed'],
		['report', 'delete', { reportId: byId(3) }, '; Report 3 was not deleted'],
		['project', 'delete', { projectName: byName('example.com') }, '; Project "example.com" was not deleted'],
		['report', 'get', { reportId: byId(3) }, ''],
	])('%s > %s facing a 429 with Retry-After 90: the tool error at once, saying what was not done', async (resource, operation, parameters, notDone) => {
		server().injectFault({ path: /^\/api\/v1\//, kind: 'status', status: 429, headers: { 'Retry-After': '90' } });
		const before = server().reports();

		const result = await asAgent({ resource, operation, ...parameters }, {});

		expect(saidFirst(result)).toBe(
			`phpRank's rate limit is spent (429 Too Many Attempts): phpRank asks to wait 90 seconds, longer than a tool call waits${notDone}. Try again in 90 seconds.`,
		);
		expect(result.error?.description).toMatch(TOOL_CALL_WAIT);
		expect(apiRequests(server())).toHaveLength(1);
		expect(server().reports()).toEqual(before);
	});

	it('does not say that nothing was created after a create of the call went unanswered', async () => {
		server().injectFault({ path: '/api/v1/reports', method: 'POST', kind: 'drop' });
		// The lookup before the create passes; the one after it, which would settle it, meets the rate limit.
		server().injectFault({ path: '/api/v1/reports', method: 'GET', kind: 'status', status: 429, headers: { 'Retry-After': '90' }, skip: 1 });

		const result = await asAgent({ resource: 'report', operation: 'create', url: 'https://agent.example.com/lost', ifReportExists: 'returnExisting' }, {});

		expect(requestLines(server()).map((line) => line.split('?')[0])).toEqual(['GET /api/v1/reports', 'POST /api/v1/reports', 'GET /api/v1/reports']);
		expect(saidFirst(result)).toBe(
			"phpRank's rate limit is spent (429 Too Many Attempts): phpRank asks to wait 90 seconds, longer than a tool call waits; phpRank may have created the report already (a request of this call got no answer). Try again in 90 seconds.",
		);
	});

	it(`does not wait for a Retry-After beyond its ${TOOL_CALL_MAX_WAIT_SECONDS} seconds, whatever Max Wait; a workflow may wait as long as Max Wait`, async () => {
		const beyond = TOOL_CALL_MAX_WAIT_SECONDS + 1;
		const get = { resource: 'report', operation: 'get', reportId: byId(1), options: { maxWait: 60 } };
		server().injectFault({ path: '/api/v1/reports/1', kind: 'status', status: 429, headers: { 'Retry-After': String(beyond) }, times: 2 });
		server().injectFault({ path: '/api/v1/reports/1', kind: 'status', status: 429, headers: { 'Retry-After': '90' } });

		const asTool = await runTool({ parameters: get, credentials: credentialsFor(server()) });
		const asToolWithLongestWait = await runTool({ parameters: { ...get, options: { maxWait: 3600 } }, credentials: credentialsFor(server()) });
		const inWorkflow = await runPhpRank(server(), get);

		for (const result of [asTool, asToolWithLongestWait]) {
			expect(saidFirst(result)).toBe(
				`phpRank's rate limit is spent (429 Too Many Attempts): phpRank asks to wait ${beyond} seconds, longer than a tool call waits. Try again in ${beyond} seconds.`,
			);
		}
		// The workflow's item may wait the whole Max Wait, 60 seconds: it failed only as phpRank asked for longer.
		expect(inWorkflow.error?.message).toBe("phpRank's rate limit was reached (429 Too Many Attempts): the server asked to wait 90 seconds; running this row again is safe");
		expect(inWorkflow.error?.description).toMatch(/^That is beyond the 60 seconds this item may wait \(Options > Max Wait\)/);
		expect(apiRequests(server())).toHaveLength(3);
	});

	it('facing a phpRank that refuses connections, ends within its wait saying so; a workflow says it as before', async () => {
		own = await startServer();
		const create = { resource: 'report', operation: 'create', url: 'https://agent.example.com/', options: { maxWait: 1 } };
		await own.stop();

		const asTool = await runTool({ parameters: create, credentials: credentialsFor(own) });
		const inWorkflow = await runPhpRank(own, create);

		const host = new globalThis.URL(own.url).host.replace(/\./g, '\\.');
		expect(saidFirst(asTool)).toMatch(
			new RegExp(`^phpRank cannot be reached: phpRank at ${host} refused the connection( for \\d+ seconds?)?; no report was created or changed\\. Try again in 30 seconds\\.$`),
		);
		expect(asTool.error?.description).toMatch(TOOL_CALL_WAIT);
		expect(inWorkflow.error?.message).toMatch(new RegExp(`^phpRank at ${host} refused the connection( for \\d+ seconds?)?; running this row again is safe$`));
		expect(inWorkflow.error?.description).toMatch(/as long as Options > Max Wait allows \(1 second/);
		await own.start();
		expect(own.reports()).toEqual([]);
	});

	it('facing a phpRank that fails every request (its database down), ends within its wait saying so and when to try again', async () => {
		const create = { resource: 'report', operation: 'create', url: 'https://agent.example.com/', options: { maxWait: 1 } };
		server().stopStore();

		const asTool = await runTool({ parameters: create, credentials: credentialsFor(server()) });
		const inWorkflow = await runPhpRank(server(), create);
		server().startStore();

		const host = new globalThis.URL(server().url).host.replace(/\./g, '\\.');
		expect(saidFirst(asTool)).toMatch(
			new RegExp(
				`^phpRank at ${host} answered every request with 500 \\(its database or PHP failing as a whole\\)( for \\d+ seconds?)?; no report was created or changed\\. Try again in 30 seconds\\.$`,
			),
		);
		expect(inWorkflow.error?.message).toMatch(new RegExp(`^phpRank at ${host} answered every request with 500 .*; running this row again is safe`));
		expect(server().reports().filter((report) => report.project === 'agent.example.com')).toEqual([]);
	});
});

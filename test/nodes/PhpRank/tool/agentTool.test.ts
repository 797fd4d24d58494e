import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { runTool, toToolDescription } from '../../../../dev/engine';
import { PhpRank } from '../../../../nodes/PhpRank/PhpRank.node';
import { apiRequests, credentialsFor, useServer } from '../../../support/phpRank';

const server = useServer({}, (phpRank) => phpRank.seedReports(40, { projects: ['example.com', 'shop.example.org'] }));

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
	['report', 'update', /numeric report ID/, { reportId, updateFields: { reanalyze: true } }],
	['report', 'delete', /numeric report ID/, { reportId }],
	['project', 'getAll', /averageResult/, {}],
	['project', 'delete', /project name/, { projectName: { __rl: true, mode: 'name', value: 'example.com' } }],
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
		const result = await asAgent({ resource, operation, ...parameters }, {});

		expect(result.toolDescription).toBe(expected);
		expect(expected).toMatch(needs);
		expect(expected).toMatch(/Returns/);
		if (resource === 'report' && operation !== 'delete') {
			expect(expected).toMatch(/result \(the SEO score, 0 to 100\), grade/);
			expect(expected).toContain('failedChecks');
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
		const detailed = await asAgent({ ...parameters, options: { omitResults: false } }, { limit: 50 });

		const compactText = JSON.stringify(compact.response);
		const detailedText = JSON.stringify(detailed.response);
		expect(compactText).not.toContain('"results"');
		expect(detailedText).toContain('"results"');
		for (const key of ['"result"', '"grade"', '"failedChecks"', `"reportUrl":"${server().url}/reports/`]) expect(compactText).toContain(key);
		expect(compactText.length * 4).toBeLessThan(detailedText.length);
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

import type { IDataObject } from 'n8n-workflow';
import { runTool } from '../../../../dev/engine';
import { apiRequests, credentialsFor, useServer } from '../../../support/phpRank';

const server = useServer({}, (phpRank) => phpRank.seedReports(40, { projects: ['example.com', 'shop.example.org'] }));

const asAgent = (parameters: IDataObject, args: IDataObject) =>
	runTool({ parameters: parameters as never, args, credentials: credentialsFor(server()) });

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

	it('lists bad reports without the per-check results so the agent\'s context is not flooded', async () => {
		const parameters = {
			resource: 'report',
			operation: 'getAll',
			limit: "={{ $fromAI('limit', 'How many reports to return', 'number') }}",
			filters: { grade: 'bad' },
		};
		const full = await asAgent(parameters, { limit: 5 });
		const lean = await asAgent({ ...parameters, options: { omitResults: true } }, { limit: 5 });

		const fullText = JSON.stringify(full.response);
		const leanText = JSON.stringify(lean.response);
		expect(fullText).toContain('"results"');
		expect(leanText).not.toContain('"results"');
		expect(leanText).toContain('"grade":"bad"');
		expect(leanText.length * 5).toBeLessThan(fullText.length);
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

import { manualWorkflow, runWorkflow, TRIGGER_NODE_NAME } from '../../../../dev/engine';
import { sourceIndex } from '../../../../dev/examples';
import { apiRequests, credentialsFor, useServer } from '../../../support/phpRank';

const server = useServer();

const ROWS = [
	{ row: 1, url: 'https://www.example.com/' },
	{ row: 2, url: 'www.example.com/no-scheme' },
	{ row: 3, url: 'https://intranet.example.invalid/' },
];

/** Rows → Create (On Error: Continue (using error output)) → a Set node reading each failed item's row. */
async function createWithErrorOutput() {
	const workflow = manualWorkflow(
		[
			{
				id: '00000000-0000-4000-8000-000000000002',
				name: 'Create SEO report',
				type: 'n8n-nodes-phprank.phpRank',
				typeVersion: 1,
				position: [220, 0],
				parameters: { resource: 'report', operation: 'create', url: '={{ $json.url }}' },
				credentials: { phpRankApi: { id: 'phprank', name: 'phpRank' } },
				onError: 'continueErrorOutput',
			},
			{
				id: '00000000-0000-4000-8000-000000000003',
				name: 'Row of the failure',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [440, 100],
				parameters: {
					mode: 'manual',
					assignments: {
						assignments: [
							{ id: 'a', name: 'row', value: `={{ $('${TRIGGER_NODE_NAME}').item.json.row }}`, type: 'number' },
							{ id: 'b', name: 'error', value: '={{ $json.error }}', type: 'string' },
						],
					},
					options: {},
				},
			},
		],
		{ 'Create SEO report': { main: [[], [{ node: 'Row of the failure', type: 'main', index: 0 }]] } },
	);
	return await runWorkflow({ ...workflow, pinData: { [TRIGGER_NODE_NAME]: ROWS.map((json) => ({ json })) } }, { credentials: credentialsFor(server()) });
}

describe('a failed item on the error output', () => {
	it('is paired with its input item, for bad input and for a failed request alike, so that later nodes read its row', async () => {
		const result = await createWithErrorOutput();

		expect(result.error).toBeUndefined();
		expect(result.output('Create SEO report', 0).map(sourceIndex)).toEqual([0]);
		expect(result.output('Create SEO report', 1).map(sourceIndex)).toEqual([1, 2]);
		expect(result.output('Row of the failure').map((item) => item.json)).toEqual([
			{ row: 2, error: expect.stringMatching(/^URL must be/) },
			{ row: 3, error: expect.stringContaining('Could not resolve host: intranet.example.invalid') },
		]);
		// The bad input was refused before any request.
		expect(apiRequests(server()).map((request) => request.body.url)).toEqual([ROWS[0].url, ROWS[2].url]);
	});
});

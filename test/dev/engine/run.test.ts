import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { ICredentialType, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';

import { producedText, runNode } from '../../../dev/engine';
import type { SubWorkflowRun } from '../../../dev/engine';

// What the engine adds to n8n-core that the node tests lean on: the error instance a node threw
// (the run data keeps only a plain copy) and one text of everything a run produced, which the
// secret tests search. If either came back empty, "the key appears nowhere" would pass unseen.
// What the engine rebuilds from n8n's server (credential tests, tool variants, the editor's list
// calls) is compared with a real n8n by the end-to-end suite instead (e2e/lib/parity.ts).

const GOOD_KEY = 'sk-engine-good-0123456789';

const ITEMS = [
	{ id: 1, name: 'alpha', score: 80 },
	{ id: 2, name: 'beta', score: 20 },
];

let server: http.Server;
let baseUrl: string;

function reply(res: http.ServerResponse, status: number, body: unknown): void {
	res.writeHead(status, { 'content-type': 'application/json' });
	res.end(JSON.stringify(body));
}

beforeAll(async () => {
	server = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		if (req.headers.authorization !== `Bearer ${GOOD_KEY}`) return reply(res, 401, { message: 'Unauthenticated.' });
		if (url.pathname === '/api/items') return reply(res, 200, { data: ITEMS });
		const match = /^\/api\/items\/(\d+)$/.exec(url.pathname);
		const item = match && ITEMS.find(({ id }) => id === Number(match[1]));
		return item ? reply(res, 200, { data: item }) : reply(res, 404, { message: 'No such item.' });
	});
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	server.closeAllConnections();
	server.close();
	await once(server, 'close');
});

const demoApi: ICredentialType = {
	name: 'engineDemoApi',
	displayName: 'Engine Demo API',
	properties: [
		{ displayName: 'API Key', name: 'apiKey', type: 'string', typeOptions: { password: true }, default: '' },
		{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: '' },
	],
	authenticate: { type: 'generic', properties: { headers: { Authorization: '=Bearer {{$credentials.apiKey}}' } } },
};

const demoDescription: INodeTypeDescription = {
	displayName: 'Engine Demo',
	name: 'engineDemo',
	group: ['transform'],
	version: 1,
	description: 'Reads items from the demo API',
	defaults: { name: 'Engine Demo' },
	inputs: [NodeConnectionTypes.Main],
	outputs: [NodeConnectionTypes.Main],
	credentials: [{ name: 'engineDemoApi', required: true }],
	requestDefaults: { baseURL: '={{$credentials.baseUrl}}', headers: { Accept: 'application/json' } },
	properties: [
		{
			displayName: 'Item ID',
			name: 'itemId',
			type: 'string',
			default: '',
			routing: {
				request: { method: 'GET', url: '=/api/items{{ $value ? "/" + $value : "" }}' },
				output: { postReceive: [{ type: 'rootProperty', properties: { property: 'data' } }] },
			},
		},
	],
};

const DEMO_TYPE = 'n8n-nodes-engine-test.engineDemo';
const demoNode: INodeType = { description: demoDescription };
const run = async (itemId: string) =>
	await runNode({
		type: DEMO_TYPE,
		nodeTypes: { [DEMO_TYPE]: demoNode },
		credentialTypes: [demoApi],
		parameters: { itemId },
		credentials: { engineDemoApi: { apiKey: GOOD_KEY, baseUrl } },
	});

describe('runNode', () => {
	it('returns the NodeApiError the node threw, and everything the failed run produced as one text', async () => {
		const result = await run('999');

		expect(result.items).toEqual([]);
		expect(result.error).toBeInstanceOf(NodeApiError);
		expect(result.error).toMatchObject({ httpCode: '404' });
		expect(result.run.data.resultData.error?.message).toBe(result.error?.message);
		expect(result.logs.some((line) => line.message === 'Running node "Node under test" started')).toBe(true);
		expect(producedText(result)).toContain('No such item.');
		expect(producedText(result)).toContain('Running node "Node under test" started');
		expect(producedText(result)).not.toContain(GOOD_KEY);
	});

	it('puts the items a run output into that text', async () => {
		const result = await run('');

		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual(ITEMS);
		expect(producedText(result)).toContain('"name":"alpha"');
		expect(producedText(result)).toContain('"name":"beta"');
	});
});

/** A sub-workflow as an Execute Workflow node holds it (Source: Define Below): its trigger, then `node`. */
function subWorkflow(node: Record<string, unknown>): string {
	return JSON.stringify({
		nodes: [
			{ id: 's1', name: 'When Executed by Another Workflow', type: 'n8n-nodes-base.executeWorkflowTrigger', typeVersion: 1.1, position: [0, 0], parameters: { inputSource: 'passthrough' } },
			{ id: 's2', name: 'Last', position: [220, 0], ...node },
		],
		connections: { 'When Executed by Another Workflow': { main: [[{ node: 'Last', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1', saveDataSuccessExecution: 'none' },
	});
}

describe('runNode with a sub-workflow (Execute Workflow, Source: Define Below)', () => {
	const callSub = (workflowJson: string, subWorkflowRuns: SubWorkflowRun[] = []) =>
		runNode({
			type: 'n8n-nodes-base.executeWorkflow',
			typeVersion: 1.2,
			parameters: { source: 'parameter', workflowJson, mode: 'once', options: { waitForSubWorkflow: true } },
			items: ITEMS,
			subWorkflowRuns,
		});

	it('runs it as an execution of its own on the items, and outputs what its last node output', async () => {
		const subWorkflowRuns: SubWorkflowRun[] = [];
		const doubled = subWorkflow({
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			parameters: { mode: 'manual', assignments: { assignments: [{ id: 'a', name: 'double', value: '={{ $json.score * 2 }}', type: 'number' }] }, options: {} },
		});

		const result = await callSub(doubled, subWorkflowRuns);

		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual(ITEMS.map((item) => ({ double: item.score * 2 })));
		expect(subWorkflowRuns).toHaveLength(1);
		expect(result.run.data.resultData.runData['Node under test'][0].metadata?.subExecution?.executionId).toBe(subWorkflowRuns[0].executionId);
		expect(subWorkflowRuns[0].workflow.settings).toEqual({ executionOrder: 'v1', saveDataSuccessExecution: 'none' });
		expect(Object.keys(subWorkflowRuns[0].run.data.resultData.runData)).toEqual(['When Executed by Another Workflow', 'Last']);
	});

	it('fails the calling node with the error that stopped the sub-workflow', async () => {
		const failing = subWorkflow({ type: 'n8n-nodes-base.stopAndError', typeVersion: 1, parameters: { errorMessage: 'Nothing to delete here' } });

		const result = await callSub(failing);

		expect(result.items).toEqual([]);
		expect(result.error?.message).toContain('Nothing to delete here');
	});
});

describe("runNode with n8n's Code node (JavaScript, as its task runner runs it)", () => {
	const code = (parameters: Record<string, unknown>, continueOnFail = false) =>
		runNode({ type: 'n8n-nodes-base.code', typeVersion: 2, parameters: { language: 'javaScript', ...parameters }, items: ITEMS, continueOnFail });

	it('runs once for all items: `$input.all()` and `items`, returning new items', async () => {
		const result = await code({ mode: 'runOnceForAllItems', jsCode: 'const total = $input.all().reduce((sum, item) => sum + item.json.score, 0);\nreturn [{ json: { total, names: items.map((item) => item.json.name) } }];' });

		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual([{ total: 100, names: ['alpha', 'beta'] }]);
	});

	it('runs once for each item: `$json` of each, paired with it', async () => {
		const result = await code({ mode: 'runOnceForEachItem', jsCode: "return { json: { label: `${$json.name}: ${$json.score}` } };" });

		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => [item.json, item.pairedItem])).toEqual([
			[{ label: 'alpha: 80' }, { item: 0 }],
			[{ label: 'beta: 20' }, { item: 1 }],
		]);
	});

	it("fails the node with the code's error, or keeps it on the item under Continue On Fail", async () => {
		const failing = { mode: 'runOnceForEachItem', jsCode: "if ($json.score < 50) throw new Error(`${$json.name} is too low`);\nreturn { json: { ok: $json.name } };" };

		const stopped = await code(failing);
		const continued = await code(failing, true);

		expect(stopped.error?.message).toContain('beta is too low');
		expect(continued.items.map((item) => item.json)).toEqual([{ ok: 'alpha' }, { error: expect.stringContaining('beta is too low') }]);
	});
});

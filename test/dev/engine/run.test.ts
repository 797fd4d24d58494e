import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { ICredentialType, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';

import { producedText, runNode } from '../../../dev/engine';

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

import { writeFileSync } from 'node:fs';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

import type {
	ICredentialType,
	INode,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';

import { WorkflowHasIssuesError } from 'n8n-core';

import {
	harnessFilesDir,
	HarnessNodeTypes,
	producedText,
	runNode,
	runTool,
	runWorkflow,
	testCredential,
} from './index';
import type { WorkflowFixture } from './index';

const GOOD_KEY = 'sk-harness-good-0123456789';
const READ_ONLY_KEY = 'sk-harness-read-only-9876';

interface ReceivedRequest {
	method: string;
	path: string;
	query: URLSearchParams;
	headers: http.IncomingHttpHeaders;
}

const ITEMS = [
	{ id: 1, name: 'alpha', score: 80 },
	{ id: 2, name: 'beta', score: 20 },
];

let server: http.Server;
let baseUrl: string;
let received: ReceivedRequest[] = [];

function reply(res: http.ServerResponse, status: number, body: unknown): void {
	res.writeHead(status, { 'content-type': 'application/json' });
	res.end(JSON.stringify(body));
}

beforeAll(async () => {
	server = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		received.push({
			method: req.method ?? '',
			path: url.pathname,
			query: url.searchParams,
			headers: req.headers,
		});

		const auth = req.headers.authorization;
		if (auth !== `Bearer ${GOOD_KEY}` && auth !== `Bearer ${READ_ONLY_KEY}`) {
			return reply(res, 401, { message: 'Unauthenticated.' });
		}
		if (url.pathname === '/api/account') {
			return auth === `Bearer ${READ_ONLY_KEY}`
				? reply(res, 403, { message: 'Forbidden.' })
				: reply(res, 200, { data: { email: 'owner@example.test' } });
		}
		if (url.pathname === '/api/items') return reply(res, 200, { data: ITEMS });
		if (url.pathname === '/api/items/slow') return; // never answers
		const match = /^\/api\/items\/(\d+)$/.exec(url.pathname);
		if (match) {
			const item = ITEMS.find(({ id }) => id === Number(match[1]));
			return item ? reply(res, 200, { data: item }) : reply(res, 404, { message: 'No such item.' });
		}
		return reply(res, 404, { message: 'Unknown route.' });
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

beforeEach(() => {
	received = [];
});

const demoApi: ICredentialType = {
	name: 'harnessDemoApi',
	displayName: 'Harness Demo API',
	properties: [
		{ displayName: 'API Key', name: 'apiKey', type: 'string', typeOptions: { password: true }, default: '' },
		{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: 'http://127.0.0.1:1' },
	],
	authenticate: {
		type: 'generic',
		properties: {
			headers: { Authorization: '=Bearer {{$credentials.apiKey}}' },
			qs: { client: 'n8n' },
		},
	},
	test: {
		request: { baseURL: '={{$credentials.baseUrl}}', url: '/api/account' },
		rules: [
			{ type: 'responseCode', properties: { value: 403, message: 'The API key may only read' } },
		],
	},
};

const demoDescription: INodeTypeDescription = {
	displayName: 'Harness Demo',
	name: 'harnessDemo',
	group: ['transform'],
	version: 1,
	description: 'Reads items from the demo API',
	defaults: { name: 'Harness Demo' },
	usableAsTool: true,
	inputs: [NodeConnectionTypes.Main],
	outputs: [NodeConnectionTypes.Main],
	credentials: [{ name: 'harnessDemoApi', required: true }],
	requestDefaults: {
		baseURL: '={{$credentials.baseUrl}}',
		headers: { Accept: 'application/json' },
	},
	properties: [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			default: 'getAll',
			options: [
				{
					name: 'Get Many',
					value: 'getAll',
					action: 'Get many items',
					routing: {
						request: { method: 'GET', url: '/api/items' },
						output: { postReceive: [{ type: 'rootProperty', properties: { property: 'data' } }] },
					},
				},
				{
					name: 'Get',
					value: 'get',
					action: 'Get an item',
					routing: {
						request: { method: 'GET', url: '=/api/items/{{$parameter.itemId}}' },
						output: { postReceive: [{ type: 'rootProperty', properties: { property: 'data' } }] },
					},
				},
			],
		},
		{
			displayName: 'Item ID',
			name: 'itemId',
			type: 'string',
			default: '',
			displayOptions: { show: { operation: ['get'] } },
		},
	],
};

class HarnessDemo implements INodeType {
	description = demoDescription;
}

const DEMO_TYPE = 'n8n-nodes-harness-test.harnessDemo';
const demoNode = new HarnessDemo();
const extras = { nodeTypes: { [DEMO_TYPE]: demoNode }, credentialTypes: [demoApi] };
const goodCredentials = () => ({ harnessDemoApi: { apiKey: GOOD_KEY, baseUrl } });

describe('runNode', () => {
	it('runs a declarative node in the engine, authenticating with the generic credential', async () => {
		const { items, error } = await runNode({
			...extras,
			type: DEMO_TYPE,
			parameters: { operation: 'getAll' },
			credentials: goodCredentials(),
		});

		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual(ITEMS);
		expect(received).toHaveLength(1);
		expect(received[0].method).toBe('GET');
		expect(received[0].path).toBe('/api/items');
		expect(received[0].headers.authorization).toBe(`Bearer ${GOOD_KEY}`);
		expect(received[0].headers.accept).toBe('application/json');
		expect(received[0].query.get('client')).toBe('n8n');
	});

	it('sends one request per input item, resolving expressions against each item', async () => {
		const { items } = await runNode({
			...extras,
			type: DEMO_TYPE,
			parameters: { operation: 'get', itemId: '={{ $json.wanted }}' },
			items: [{ wanted: 2 }, { wanted: 1 }],
			credentials: goodCredentials(),
		});

		expect(received.map((request) => request.path).sort()).toEqual(['/api/items/1', '/api/items/2']);
		expect(items.map((item) => item.json.name)).toEqual(['beta', 'alpha']);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it('fills unset credential fields from the credential type defaults', async () => {
		const withDefaultBaseUrl: ICredentialType = {
			...demoApi,
			properties: demoApi.properties.map((property) =>
				property.name === 'baseUrl' ? { ...property, default: baseUrl } : property,
			),
		};
		const { items, error } = await runNode({
			...extras,
			credentialTypes: [withDefaultBaseUrl],
			type: DEMO_TYPE,
			parameters: { operation: 'getAll' },
			credentials: { harnessDemoApi: { apiKey: GOOD_KEY } },
		});

		expect(error).toBeUndefined();
		expect(items).toHaveLength(2);
		expect(received.map((request) => request.path)).toEqual(['/api/items']);
	});

	it('rejects, as n8n refuses to start, when a node has parameter issues', async () => {
		const withRequiredId: INodeType = {
			description: {
				...demoDescription,
				properties: demoDescription.properties.map((property) =>
					property.name === 'itemId' ? { ...property, required: true } : property,
				),
			},
		};
		await expect(
			runNode({
				...extras,
				nodeTypes: { [DEMO_TYPE]: withRequiredId },
				type: DEMO_TYPE,
				parameters: { operation: 'get' },
				credentials: goodCredentials(),
			}),
		).rejects.toThrow(WorkflowHasIssuesError);
		expect(received).toHaveLength(0);
	});

	it('returns the NodeApiError the node threw, and no items, when the API fails', async () => {
		const result = await runNode({
			...extras,
			type: DEMO_TYPE,
			parameters: { operation: 'get', itemId: '999' },
			credentials: goodCredentials(),
		});

		expect(result.items).toEqual([]);
		expect(result.error).toBeInstanceOf(NodeApiError);
		expect(result.error).toMatchObject({ httpCode: '404' });
		expect(result.error?.message).toMatch(/resource you are requesting could not be found/i);
		expect(result.run.data.resultData.error?.message).toBe(result.error?.message);
		expect(result.logs.some((line) => line.message === 'Running node "Node under test" started')).toBe(true);
		expect(producedText(result)).toContain('No such item.');
		expect(producedText(result)).not.toContain(GOOD_KEY);
	});

	it('passes the error on as an item when the node continues on fail', async () => {
		const { items, error } = await runNode({
			...extras,
			type: DEMO_TYPE,
			parameters: { operation: 'get', itemId: '={{ $json.wanted }}' },
			items: [{ wanted: 999 }, { wanted: 1 }],
			continueOnFail: true,
			credentials: goodCredentials(),
		});

		expect(error).toBeUndefined();
		expect(items).toHaveLength(2);
		expect(items[0].error).toBeInstanceOf(NodeApiError);
		expect(items[0].json.error).toEqual(items[0].error?.message);
		expect(items[1].json).toEqual(ITEMS[0]);
	});

	it('fails like n8n does when the referenced credential does not exist', async () => {
		const { error } = await runNode({
			...extras,
			type: DEMO_TYPE,
			parameters: { operation: 'getAll' },
			nodeCredentials: { harnessDemoApi: { id: '42', name: 'gone' } },
		});

		expect(error?.message).toBe('Credential with ID "42" does not exist for type "harnessDemoApi".');
		expect(received).toHaveLength(0);
	});
});

describe('runWorkflow', () => {
	const fixture = (): WorkflowFixture => ({
		name: 'Scores',
		nodes: [
			{
				id: 'a1',
				name: 'When clicking ‘Execute workflow’',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'a2',
				name: 'Get many items',
				type: DEMO_TYPE,
				typeVersion: 1,
				position: [220, 0],
				parameters: { operation: 'getAll' },
				credentials: { harnessDemoApi: { id: '1', name: 'Demo account' } },
			},
			{
				id: 'a3',
				name: 'High score?',
				type: 'n8n-nodes-base.if',
				typeVersion: 2.2,
				position: [440, 0],
				parameters: {
					conditions: {
						options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
						conditions: [
							{
								id: 'c1',
								leftValue: '={{ $json.score }}',
								rightValue: 50,
								operator: { type: 'number', operation: 'gt' },
							},
						],
						combinator: 'and',
					},
					options: {},
				},
			},
		] as INode[],
		connections: {
			'When clicking ‘Execute workflow’': {
				main: [[{ node: 'Get many items', type: 'main', index: 0 }]],
			},
			'Get many items': { main: [[{ node: 'High score?', type: 'main', index: 0 }]] },
		},
	});

	it('runs the package node between n8n-nodes-base nodes and exposes every output', async () => {
		const result = await runWorkflow(fixture(), { ...extras, credentials: goodCredentials() });

		expect(result.error).toBeUndefined();
		expect(result.run.status).toBe('success');
		expect(result.executedNodes).toEqual([
			'When clicking ‘Execute workflow’',
			'Get many items',
			'High score?',
		]);
		expect(result.output('High score?', 0).map((item) => item.json.name)).toEqual(['alpha']);
		expect(result.output('High score?', 1).map((item) => item.json.name)).toEqual(['beta']);
		expect(received.map((request) => request.headers.authorization)).toEqual([`Bearer ${GOOD_KEY}`]);
		expect(() => result.output('No such node')).toThrow('no node named "No such node"');
	});

	it('stops at the failing node and reports its error', async () => {
		const result = await runWorkflow(fixture(), {
			...extras,
			credentials: { harnessDemoApi: { apiKey: 'sk-wrong', baseUrl } },
		});

		expect(result.run.status).toBe('error');
		expect(result.error).toBeInstanceOf(NodeApiError);
		expect(result.error).toMatchObject({ httpCode: '401' });
		expect(result.executedNodes).toEqual(['When clicking ‘Execute workflow’', 'Get many items']);
		expect(result.output('High score?')).toEqual([]);
	});

	it('cancels the run and rejects when it exceeds its time limit', async () => {
		const workflow = fixture();
		workflow.nodes[1].parameters = { operation: 'get', itemId: 'slow' };

		await expect(
			runWorkflow(workflow, { ...extras, credentials: goodCredentials(), timeoutMs: 300 }),
		).rejects.toThrow('Workflow run did not finish within 300 ms');
		expect(received.map((request) => request.path)).toEqual(['/api/items/slow']);
	});

	it('runs n8n-nodes-base file and data nodes, with binary data and the file-access sandbox', async () => {
		const csvFile = path.join(harnessFilesDir(), 'scores.csv');
		writeFileSync(csvFile, 'name,score\nalpha,80\nbeta,20\n');
		const chain: Array<Pick<INode, 'name' | 'type' | 'typeVersion' | 'parameters'>> = [
			{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} },
			{
				name: 'Read CSV',
				type: 'n8n-nodes-base.readWriteFile',
				typeVersion: 1.1,
				parameters: { operation: 'read', fileSelector: csvFile, options: {} },
			},
			{
				name: 'Parse CSV',
				type: 'n8n-nodes-base.extractFromFile',
				typeVersion: 1.1,
				parameters: { operation: 'csv', options: {} },
			},
			{
				name: 'High scores',
				type: 'n8n-nodes-base.filter',
				typeVersion: 2.2,
				parameters: {
					conditions: {
						options: { caseSensitive: true, leftValue: '', typeValidation: 'loose', version: 2 },
						conditions: [
							{
								id: 'c1',
								leftValue: '={{ $json.score }}',
								rightValue: 50,
								operator: { type: 'number', operation: 'gt' },
							},
						],
						combinator: 'and',
					},
					looseTypeValidation: true,
					options: {},
				},
			},
			{
				name: 'Shape',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				parameters: {
					assignments: {
						assignments: [{ id: 'a1', name: 'who', value: '={{ $json.name.toUpperCase() }}', type: 'string' }],
					},
					options: {},
				},
			},
			{ name: 'Done', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} },
		];
		const nodes = chain.map(
			(node, index) => ({ ...node, id: `n${index}`, position: [index * 220, 0] }) as INode,
		);
		const connections = Object.fromEntries(
			chain.slice(0, -1).map(({ name }, index) => [
				name,
				{ main: [[{ node: chain[index + 1].name, type: NodeConnectionTypes.Main, index: 0 }]] },
			]),
		);

		const result = await runWorkflow({ nodes, connections });

		expect(result.error).toBeUndefined();
		expect(result.output('Read CSV')[0].binary?.data).toMatchObject({
			fileName: 'scores.csv',
			mimeType: 'text/csv',
		});
		expect(result.output('Parse CSV').map((item) => item.json)).toEqual([
			{ name: 'alpha', score: '80' },
			{ name: 'beta', score: '20' },
		]);
		expect(result.output('Done').map((item) => item.json)).toEqual([{ who: 'ALPHA' }]);

		// Outside the allowed folders, as on an instance with the default file-access restriction.
		nodes[1].parameters.fileSelector = '/etc/hostname';
		const blocked = await runWorkflow({ nodes, connections });
		expect(blocked.error?.message).toBe('Access to the file is not allowed.');
	});

	it('uses pinned data on the trigger as its output', async () => {
		const workflow = fixture();
		workflow.nodes[1].parameters = { operation: 'get', itemId: '={{ $json.wanted }}' };
		workflow.pinData = { 'When clicking ‘Execute workflow’': [{ json: { wanted: 1 } }] };

		const result = await runWorkflow(workflow, { ...extras, credentials: goodCredentials() });

		expect(received.map((request) => request.path)).toEqual(['/api/items/1']);
		expect(result.output('High score?', 0).map((item) => item.json.name)).toEqual(['alpha']);
	});
});

describe('testCredential', () => {
	it('reports OK when the test request succeeds', async () => {
		await expect(testCredential('harnessDemoApi', { apiKey: GOOD_KEY, baseUrl }, extras)).resolves.toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		expect(received).toHaveLength(1);
		expect(received[0].path).toBe('/api/account');
		expect(received[0].headers.authorization).toBe(`Bearer ${GOOD_KEY}`);
	});

	it('reports the HTTP status text for a rejected key', async () => {
		await expect(testCredential('harnessDemoApi', { apiKey: 'sk-wrong', baseUrl }, extras)).resolves.toEqual({
			status: 'Error',
			message: 'Unauthorized',
		});
	});

	it('applies the credential test rules', async () => {
		await expect(
			testCredential('harnessDemoApi', { apiKey: READ_ONLY_KEY, baseUrl }, extras),
		).resolves.toEqual({ status: 'Error', message: 'The API key may only read' });
	});

	it('reports the network error code when the server cannot be reached', async () => {
		await expect(testCredential('harnessDemoApi', { apiKey: GOOD_KEY }, extras)).resolves.toEqual({
			status: 'Error',
			message: 'ECONNREFUSED',
		});
	});
});

describe('runTool', () => {
	it('lets an agent call the tool variant, filling $fromAI parameters from its arguments', async () => {
		const result = await runTool({
			...extras,
			type: `${DEMO_TYPE}Tool`,
			parameters: {
				operation: 'get',
				itemId: "={{ $fromAI('itemId', 'ID of the item to read', 'number') }}",
			},
			args: { itemId: 2 },
			credentials: goodCredentials(),
		});

		expect(result.error).toBeUndefined();
		expect(received.map((request) => request.path)).toEqual(['/api/items/2']);
		expect(received[0].headers.authorization).toBe(`Bearer ${GOOD_KEY}`);
		expect(result.response).toEqual([ITEMS[1]]);
		expect(result.toolName).toBe('Tool_under_test');
	});

	it('returns the error the tool node threw', async () => {
		const result = await runTool({
			...extras,
			type: `${DEMO_TYPE}Tool`,
			parameters: { operation: 'get', itemId: "={{ $fromAI('itemId') }}" },
			args: { itemId: '999' },
			credentials: goodCredentials(),
		});

		expect(result.response).toBeUndefined();
		expect(result.error).toBeInstanceOf(NodeApiError);
		expect(result.error).toMatchObject({ httpCode: '404' });
	});
});

describe('HarnessNodeTypes', () => {
	it('serves the tool variant of a node that is usable as a tool', () => {
		const nodeTypes = new HarnessNodeTypes(extras);
		const tool = nodeTypes.getByNameAndVersion(`${DEMO_TYPE}Tool`, 1);

		expect(tool.description.name).toBe('harnessDemoTool');
		expect(tool.description.inputs).toEqual([]);
		expect(tool.description.outputs).toEqual([NodeConnectionTypes.AiTool]);
		expect(tool.description.properties.map((property) => property.name)).toEqual(
			expect.arrayContaining(['descriptionType', 'toolDescription', 'operation']),
		);
		expect(typeof tool.execute).toBe('function');
		// The base node keeps its own description.
		expect(nodeTypes.getByNameAndVersion(DEMO_TYPE, 1).description.outputs).toEqual([NodeConnectionTypes.Main]);
	});

	it('adds the standard declarative request options once, as n8n does when loading a node', () => {
		const requestOptionNames = (nodeTypes: HarnessNodeTypes, type: string) => {
			const { properties } = nodeTypes.getByNameAndVersion(type, 1).description;
			const requestOptions = properties.filter((property) => property.name === 'requestOptions');
			expect(requestOptions).toHaveLength(1);
			return (requestOptions[0].options ?? []).map((option) => option.name);
		};

		const names = requestOptionNames(new HarnessNodeTypes(extras), DEMO_TYPE);
		expect(names).toEqual(expect.arrayContaining(['batching', 'proxy', 'timeout']));

		// A type derived from an already prepared one is not extended twice.
		const derived: INodeType = {
			description: { ...demoDescription, properties: [...demoDescription.properties] },
		};
		const again = requestOptionNames(
			new HarnessNodeTypes({ nodeTypes: { 'x.derived': derived } }),
			'x.derived',
		);
		expect(again).toEqual(names);
	});

	it('loads versioned n8n-nodes-base nodes by version', () => {
		const nodeTypes = new HarnessNodeTypes();
		expect(nodeTypes.getByNameAndVersion('n8n-nodes-base.if', 1).description.version).toBe(1);
		expect(nodeTypes.getByNameAndVersion('n8n-nodes-base.if', 2.2).description.version).toEqual(
			expect.arrayContaining([2.2]),
		);
		expect(() => nodeTypes.getByNameAndVersion('n8n-nodes-base.doesNotExist')).toThrow(
			'Unrecognized node type: n8n-nodes-base.doesNotExist',
		);
	});
});

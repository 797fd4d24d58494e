/**
 * The jobs run as n8n runs them: in n8n-core's WorkflowExecute (through dev/engine), from a
 * Manual Trigger with the input items pinned on it. The phpRank node is the built one from `dist/`,
 * as an n8n instance loads it; the HTTP Request node comes from n8n-nodes-base.
 */
import path from 'node:path';

import type { ICredentialType, INode, INodeParameters, INodeProperties, INodeType, IVersionedNodeType } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { runNode, runWorkflow, TRIGGER_NODE_NAME } from '../../dev/engine';
import type { WorkflowFixture } from '../../dev/engine';
import { FLOOR_NODE_TYPE, hiddenProperties, PhpRankFloor } from '../floor/PhpRankFloor';
import type { Job, Target } from '../plan';
import { builtPackage, inputItems, LARGEST_PAGE_SIZE } from '../plan';

const RUN_TIMEOUT_MS = 600_000;

/** A prepared run: everything is loaded and built, only the run itself is left (and timed). */
export type Run = () => Promise<number>;

function loadBuiltNode(fresh: boolean): { node: INodeType; credentials: ICredentialType } {
	const built = builtPackage();
	// A fresh copy of the node's modules has learnt nothing yet about the server's rate limit, as in an
	// n8n process that has not talked to this phpRank in the last minute.
	if (fresh) for (const file of Object.keys(require.cache)) if (file.startsWith(built.directory + path.sep)) delete require.cache[file];
	const { PhpRank } = require(built.node) as { PhpRank: new () => INodeType };
	const { PhpRankApi } = require(built.credentials) as { PhpRankApi: new () => ICredentialType };
	return { node: new PhpRank(), credentials: new PhpRankApi() };
}

function phpRankParameters(job: Job): INodeParameters {
	switch (job.kind) {
		case 'list': {
			const resource = job.resource === 'reports' ? 'report' : 'project';
			const amount = job.limit === undefined ? { returnAll: true } : { returnAll: false, limit: job.limit };
			return { resource, operation: 'getAll', ...amount };
		}
		case 'create':
			return { resource: 'report', operation: 'create', url: '={{ $json.url }}' };
		case 'get':
			return { resource: 'report', operation: 'get', reportId: { __rl: true, mode: 'id', value: '={{ $json.id }}' } };
	}
}

/** The declared properties n8n shows for these parameters, as the editor and the engine judge it. */
function shownProperties(nodeType: INodeType, parameters: INodeParameters): INodeProperties[] {
	const { description } = nodeType;
	const node = { typeVersion: 1, parameters } as unknown as INode;
	const values = NodeHelpers.getNodeParameters(description.properties, parameters, true, false, node, description) ?? {};
	return description.properties.filter((property) => NodeHelpers.displayParameter(values, property, node, description));
}

/** The same node type declaring other properties. */
function withProperties(nodeType: INodeType, properties: INodeProperties[]): INodeType {
	return Object.assign(Object.create(nodeType) as INodeType, { description: { ...nodeType.description, properties } });
}

/** One node run in n8n's engine with the phpRank credential, counting its output items; a failed run or item fails the benchmark. */
type NodeSetup = { type: string; nodeType: INodeType; parameters: INodeParameters; credentialType: ICredentialType };

function nodeRun(job: Job, target: Target, run: NodeSetup): Run {
	return async () => {
		const result = await runNode({
			type: run.type,
			parameters: run.parameters,
			items: inputItems(job),
			nodeTypes: { [run.type]: run.nodeType },
			credentialTypes: [run.credentialType],
			credentials: { phpRankApi: { baseUrl: target.url, apiKey: target.apiKey } },
			timeoutMs: RUN_TIMEOUT_MS,
		});
		if (result.error) throw result.error;
		const failed = result.items.filter((item) => item.error).length;
		if (failed > 0) throw new Error(`${failed} items failed`);
		return result.items.length;
	};
}

/**
 * phpRank: the node's modules loaded anew, so that it sends its lone first request; phpRankKnownLimit: as loaded
 * before. phpRankShownOnly: the node as if it declared only what n8n shows for the job's operation. Not a node anyone
 * could use (every other operation, and the AI tool's Descriptions, are gone): a reference that tells what the node's
 * own code costs per item from what n8n's engine spends on each declared property, shown or not.
 */
export function preparePhpRankNode(job: Job, target: Target, variant: 'phpRank' | 'phpRankKnownLimit' | 'phpRankShownOnly'): Run {
	const built = loadBuiltNode(variant !== 'phpRankKnownLimit');
	const parameters = phpRankParameters(job);
	const nodeType = variant === 'phpRankShownOnly' ? withProperties(built.node, shownProperties(built.node, parameters)) : built.node;
	return nodeRun(job, target, { type: 'n8n-nodes-phprank.phpRank', nodeType, parameters, credentialType: built.credentials });
}

/**
 * The floor (bench/floor): the least a declarative node makes the engine do for the same
 * request per item, with the phpRank node's credential type as built. `padded` declares as many more
 * hidden properties as the phpRank node hides for the job beyond the floor's own: what n8n's engine alone
 * spends on them.
 */
export function prepareFloorNode(job: Job, target: Target, { padded = false } = {}): Run {
	if (job.kind === 'list') throw new Error('The floor node only creates and gets reports');
	const { node: phpRank, credentials } = loadBuiltNode(false);
	const parameters: INodeParameters =
		job.kind === 'create' ? { operation: 'create', url: '={{ $json.url }}' } : { operation: 'get', reportId: '={{ $json.id }}' };
	const floor = new PhpRankFloor();
	const hiddenCount = (nodeType: INodeType, values: INodeParameters) =>
		nodeType.description.properties.length - shownProperties(nodeType, values).length;
	const extra = padded ? hiddenCount(phpRank, phpRankParameters(job)) - hiddenCount(floor, parameters) : 0;
	const nodeType = extra > 0 ? withProperties(floor, [...floor.description.properties, ...hiddenProperties(extra)]) : floor;
	return nodeRun(job, target, { type: FLOOR_NODE_TYPE, nodeType, parameters, credentialType: credentials });
}

/** How the user tells the HTTP Request node's pagination that it is done: an empty page, or meta's last page. */
type CompleteWhen = 'dataEmpty' | 'lastPage';

/**
 * The HTTP Request node set up as n8n's documentation shows: generic Header Auth credential
 * (Authorization: Bearer <key>), an Accept header, and for lists Pagination > "Update a Parameter
 * in Each Request" with page = {{ $pageCount + 1 }} and pages of 100; a Split Out node turns each
 * page into one item per record, and for a limit, Max Pages plus a Limit node keep that many.
 */
function httpRequestWorkflow(job: Job, target: Target, completeWhen: CompleteWhen): WorkflowFixture {
	const common: INodeParameters = {
		authentication: 'genericCredentialType',
		genericAuthType: 'httpHeaderAuth',
		sendHeaders: true,
		headerParameters: { parameters: [{ name: 'Accept', value: 'application/json' }] },
	};
	let parameters: INodeParameters;
	const after: INode[] = [];
	if (job.kind === 'list') {
		const pages = job.limit === undefined ? undefined : Math.ceil(job.limit / LARGEST_PAGE_SIZE);
		parameters = {
			method: 'GET',
			url: `${target.url}/api/v1/${job.resource}`,
			...common,
			sendQuery: true,
			queryParameters: { parameters: [{ name: 'per_page', value: String(LARGEST_PAGE_SIZE) }] },
			options: {
				pagination: {
					pagination: {
						paginationMode: 'updateAParameterInEachRequest',
						parameters: { parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }] },
						paginationCompleteWhen: 'other',
						completeExpression:
							completeWhen === 'dataEmpty'
								? '={{ $response.body.data.length === 0 }}'
								: '={{ $response.body.meta.current_page >= $response.body.meta.last_page }}',
						...(pages === undefined ? {} : { limitPagesFetched: true, maxRequests: pages }),
					},
				},
			},
		};
		after.push(node('Split Out', 'n8n-nodes-base.splitOut', { fieldToSplitOut: 'data' }));
		if (job.limit !== undefined) after.push(node('Limit', 'n8n-nodes-base.limit', { maxItems: job.limit }));
	} else if (job.kind === 'create') {
		parameters = {
			method: 'POST',
			url: `${target.url}/api/v1/reports`,
			...common,
			sendBody: true,
			contentType: 'form-urlencoded',
			bodyParameters: {
				parameters: [
					{ name: 'url', value: '={{ $json.url }}' },
					{ name: 'privacy', value: '0' },
				],
			},
			options: {},
		};
	} else {
		parameters = { method: 'GET', url: `=${target.url}/api/v1/reports/{{ $json.id }}`, ...common, options: {} };
	}
	// The version a user gets when adding the node today.
	const { HttpRequest } = require('n8n-nodes-base/dist/nodes/HttpRequest/HttpRequest.node.js') as {
		HttpRequest: new () => IVersionedNodeType;
	};
	const typeVersion = new HttpRequest().description.defaultVersion ?? 1;
	const credentials = { httpHeaderAuth: { id: '1', name: 'phpRank key' } };
	const http = { ...node('HTTP Request', 'n8n-nodes-base.httpRequest', parameters), typeVersion, credentials };
	const chain = [node(TRIGGER_NODE_NAME, 'n8n-nodes-base.manualTrigger', {}), http, ...after];
	const connections: WorkflowFixture['connections'] = {};
	for (let index = 0; index < chain.length - 1; index++) {
		connections[chain[index].name] = { main: [[{ node: chain[index + 1].name, type: 'main', index: 0 }]] };
	}
	return { nodes: chain, connections, pinData: { [TRIGGER_NODE_NAME]: inputItems(job) } };
}

function node(name: string, type: string, parameters: INodeParameters): INode {
	return { id: `bench-${name.replace(/\W/g, '-').toLowerCase()}`, name, type, typeVersion: 1, position: [0, 0], parameters };
}

export function prepareHttpRequest(job: Job, target: Target, completeWhen: CompleteWhen): Run {
	const workflow = httpRequestWorkflow(job, target, completeWhen);
	const lastNode = workflow.nodes[workflow.nodes.length - 1].name;
	return async () => {
		const result = await runWorkflow(workflow, {
			credentials: { httpHeaderAuth: { name: 'Authorization', value: `Bearer ${target.apiKey}` } },
			timeoutMs: RUN_TIMEOUT_MS,
		});
		if (result.error) throw result.error;
		const items = result.output(lastNode);
		const failed = items.filter((item) => item.error || item.json.error).length;
		if (failed > 0) throw new Error(`${failed} items failed`);
		return items.length;
	};
}

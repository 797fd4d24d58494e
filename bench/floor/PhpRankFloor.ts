/**
 * The floor of the 1,000-item jobs: the least a declarative node can make n8n's engine do to send the same one
 * request per item as the phpRank node (POST /api/v1/reports with a form body of `url` and `privacy`, or GET
 * /api/v1/reports/{id}), with the same credential type. Whatever the phpRank node costs beyond it is the node's own
 * doing; what the floor costs is the engine's. What makes it the least (RoutingNode's two passes over every declared
 * property per item, BENCHMARKS.md): the item's value declared without `routing` and read once more in a preSend
 * function (three evaluations), the base URL set by the credential instead of an expression in `requestDefaults`,
 * only the properties the requests need, and n8n's own request path and error handling.
 */
import type { IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties, INodeType, INodeTypeDescription } from 'n8n-workflow';

/** The type name workflows give the floor node (served to the engine as an extra node type). */
export const FLOOR_NODE_TYPE = 'n8n-nodes-phprank-bench.phpRankFloor';

async function createBody(this: IExecuteSingleFunctions, options: IHttpRequestOptions): Promise<IHttpRequestOptions> {
	return { ...options, body: { url: this.getNodeParameter('url'), privacy: 0 } };
}

async function reportPath(this: IExecuteSingleFunctions, options: IHttpRequestOptions): Promise<IHttpRequestOptions> {
	return { ...options, url: `/reports/${encodeURIComponent(String(this.getNodeParameter('reportId')))}` };
}

export class PhpRankFloor implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'phpRank (floor)',
		name: 'phpRankFloor',
		group: ['transform'],
		version: 1,
		description: 'The least a declarative node makes n8n do to create or get a phpRank report',
		defaults: { name: 'phpRank (floor)' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'phpRankApi', required: true }],
		requestDefaults: {
			headers: { Accept: 'application/json' },
		},
		properties: [
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Create',
						value: 'create',
						routing: {
							request: { method: 'POST', url: '/reports', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } },
							send: { preSend: [createBody] },
							output: { postReceive: [{ type: 'rootProperty', properties: { property: 'data' } }] },
						},
					},
					{
						name: 'Get',
						value: 'get',
						routing: {
							request: { method: 'GET' },
							send: { preSend: [reportPath] },
							output: { postReceive: [{ type: 'rootProperty', properties: { property: 'data' } }] },
						},
					},
				],
				default: 'create',
			},
			{ displayName: 'URL', name: 'url', type: 'string', default: '', displayOptions: { show: { operation: ['create'] } } },
			{ displayName: 'Report ID', name: 'reportId', type: 'string', default: '', displayOptions: { show: { operation: ['get'] } } },
		],
	};
}

/**
 * `count` string properties that no operation shows, as a node declares the fields of its other operations:
 * the engine still walks them for every item.
 */
export function hiddenProperties(count: number): INodeProperties[] {
	return Array.from({ length: count }, (_, index): INodeProperties => ({
		displayName: `Hidden ${index + 1}`,
		name: `hidden${index + 1}`,
		type: 'string',
		default: '',
		displayOptions: { show: { operation: ['none'] } },
	}));
}

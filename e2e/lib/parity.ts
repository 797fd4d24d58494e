/**
 * What dev/engine rebuilds of n8n's server, because n8n-core does not offer it, next to what the installed n8n
 * answers for the same input: the credential test, the tool variant n8n makes of the phpRank node, and the
 * editor's list search and dropdown. The node tests run through these rebuilds, so they must answer as n8n does.
 */
import { deepStrictEqual } from 'node:assert/strict';

import type { INodeParameters, INodeTypeDescription } from 'n8n-workflow';

import { loadOptions, testCredential, toToolDescription } from '../../dev/engine';
import { DEMO_CREDENTIAL as credential } from '../../dev/n8n/examples';
import type { N8nRest } from '../../dev/n8n/n8n';
import { errorMessage } from '../../dev/n8n/util';
import type { PhpRankServer, RecordedRequest } from '../../dev/server';
import type { Checks } from './checks';

interface ParityOptions {
	rest: N8nRest;
	/** The server the demo credential stored in n8n points at. */
	phpRank: PhpRankServer;
	/** The phpRank node's full type name, e.g. `n8n-nodes-phprank.phpRank`. */
	nodeType: string;
}

// More reports than one page of the report list search holds (50), so that its next page is compared too.
const SEEDED_REPORTS = 60;
/** Throws unless both are the same once sent as JSON, as n8n's REST API sends them (object keys in any order). */
function assertSame(engine: unknown, n8n: unknown, what: string): void {
	const asJson = (value: unknown) => JSON.parse(JSON.stringify(value ?? null)) as unknown;
	try {
		deepStrictEqual(asJson(engine), asJson(n8n));
	} catch (error) {
		// Node's diff: "+ actual" is what dev/engine answered, "- expected" what n8n did.
		throw new Error(`${what} differ: ${errorMessage(error)}`);
	}
}

/** A request as compared: what the credential decides (address, authentication, content type). */
function requestSeen(request: RecordedRequest | undefined) {
	return request && {
		method: request.method,
		path: request.path,
		query: request.query,
		authorization: request.headers.authorization,
		accept: request.headers.accept,
	};
}

export async function runParityChecks(checks: Checks, options: ParityOptions): Promise<void> {
	const { rest, phpRank, nodeType } = options;
	const toolType = `${nodeType}Tool`;
	phpRank.reset();
	phpRank.seedReports(SEEDED_REPORTS);
	const credentialData = { baseUrl: phpRank.url, apiKey: phpRank.apiKey };

	const lastRequest = async <T>(call: () => Promise<T>): Promise<{ result: T; request?: RecordedRequest }> => {
		const before = phpRank.requests.length;
		const result = await call();
		return { result, request: phpRank.requests.slice(before).at(-1) };
	};

	for (const [name, data] of [
		['the API key', credentialData],
		['a wrong API key', { ...credentialData, apiKey: 'not-the-key' }],
	] as const) {
		await checks.check(`credential test with ${name}: dev/engine answers as POST /rest/credentials/test does`, async () => {
			const n8n = await lastRequest(async () =>
				await rest.call<{ status: string; message: string }>('POST', '/rest/credentials/test', {
					credentials: { ...credential, data },
				}),
			);
			const engine = await lastRequest(async () => await testCredential(credential.type, data));
			assertSame(engine.result, n8n.result, 'the test results');
			assertSame(requestSeen(engine.request), requestSeen(n8n.request), 'the requests phpRank received');
			return `${n8n.result.status}, "${n8n.result.message}"`;
		});
	}

	await checks.check(`tool variant: dev/engine turns ${nodeType} into ${toolType} as n8n does (GET /types/nodes.json)`, async () => {
		const nodeTypes = await rest.call<INodeTypeDescription[]>('GET', '/types/nodes.json');
		const find = (name: string) => {
			const found = nodeTypes.find((type) => type.name === name);
			if (!found) throw new Error(`${name} is not among n8n's ${nodeTypes.length} node types`);
			return found;
		};
		// From n8n's own description of the node, which carries what n8n adds to every node (Custom API Call).
		assertSame(toToolDescription(find(nodeType)), find(toolType), 'the tool descriptions');
		const properties = find(toolType).properties.map((property) => property.name);
		return `${properties.length} parameters: ${properties.slice(0, 4).join(', ')}, …`;
	});

	const editorCall = { nodeTypeAndVersion: { name: nodeType, version: 1 }, credentials: { [credential.type]: { id: credential.id, name: credential.name } } };
	const engineCall = { type: nodeType, typeVersion: 1, credentials: { [credential.type]: credentialData } };
	/** One list search of the editor's, through n8n's REST API and through dev/engine; the two must be the same. */
	const listSearch = async (search: { methodName: string; path: string; parameters: INodeParameters; filter?: string; paginationToken?: string }) => {
		const { methodName, path, parameters, filter, paginationToken } = search;
		// Sent as JSON, where a filter or page left undefined is left out.
		const body = { ...editorCall, path, methodName, currentNodeParameters: parameters, filter, paginationToken };
		const n8n = await rest.call<{ results: unknown[]; paginationToken?: string }>('POST', '/rest/dynamic-node-parameters/resource-locator-results', body);
		const engine = await loadOptions({ ...engineCall, method: 'listSearch', name: methodName, parameters, filter, paginationToken });
		assertSame(engine, n8n, 'the list search results');
		return n8n;
	};

	const parameters = { resource: 'report', operation: 'get' };
	let nextPage: string | undefined;
	for (const [what, filter, page] of [
		['the first page', undefined, () => undefined],
		['the next page', undefined, () => nextPage],
		['a search', 'shop', () => undefined],
	] as const) {
		await checks.check(`report list search, ${what}: dev/engine answers as POST /rest/dynamic-node-parameters/resource-locator-results does`, async () => {
			const n8n = await listSearch({ methodName: 'searchReports', path: 'parameters.reportId', parameters, filter, paginationToken: page() });
			nextPage ??= n8n.paginationToken;
			return `${n8n.results.length} reports${n8n.paginationToken ? `, next page "${n8n.paginationToken}"` : ''}`;
		});
	}

	await checks.check('project filter search: dev/engine answers as POST /rest/dynamic-node-parameters/resource-locator-results does', async () => {
		const parameters = { resource: 'report', operation: 'getAll', filters: { project: { __rl: true, mode: 'list', value: '' } } };
		const n8n = await listSearch({ methodName: 'searchProjects', path: 'parameters.filters.project', parameters });
		return `${n8n.results.length} projects`;
	});
}

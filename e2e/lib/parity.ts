/**
 * What dev/engine rebuilds of n8n's server, because n8n-core does not offer it, next to what the installed n8n
 * answers for the same input: the credential test, the tool variant n8n makes of the phpRank node, and the
 * editor's list search and dropdown. The node tests run through these rebuilds, so they must answer as n8n does.
 */
import type { INodeTypeDescription } from 'n8n-workflow';

import { loadOptions, testCredential, toToolDescription } from '../../dev/engine';
import type { N8nRest } from '../../dev/n8n/n8n';
import type { PhpRankServer, RecordedRequest } from '../../dev/server';
import type { Checks } from './checks';

export interface ParityOptions {
	rest: N8nRest;
	phpRank: PhpRankServer;
	/** A credential stored in n8n for `phpRank`. */
	credential: { id: string; name: string; type: string };
	/** The phpRank node's full type name, e.g. `n8n-nodes-phprank.phpRank`. */
	nodeType: string;
}

// More reports than one page of the report list search holds (50), so that its next page is compared too.
const SEEDED_REPORTS = 60;
const MAX_DIFFERENCES = 8;

/** Where two JSON values differ, object keys in any order. */
function differences(engine: unknown, n8n: unknown, path = '', found: string[] = []): string[] {
	if (found.length >= MAX_DIFFERENCES) return found;
	const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
	if (isObject(engine) && isObject(n8n) && Array.isArray(engine) === Array.isArray(n8n)) {
		const keys = [...new Set([...Object.keys(engine), ...Object.keys(n8n)])].sort();
		for (const key of keys) differences(engine[key], n8n[key], path ? `${path}.${key}` : key, found);
	} else if (JSON.stringify(engine) !== JSON.stringify(n8n)) {
		const show = (value: unknown) => (value === undefined ? 'nothing' : JSON.stringify(value).slice(0, 160));
		found.push(`${path || 'the value'}: dev/engine ${show(engine)}, n8n ${show(n8n)}`);
	}
	return found;
}

/** Throws unless both are the same once sent as JSON, as n8n's REST API sends them. */
function assertSame(engine: unknown, n8n: unknown, what: string): void {
	const asJson = (value: unknown) => JSON.parse(JSON.stringify(value ?? null)) as unknown;
	const found = differences(asJson(engine), asJson(n8n));
	if (found.length) throw new Error(`${what} differ:\n${found.join('\n')}`);
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
	const { rest, phpRank, credential, nodeType } = options;
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
	const parameters = { resource: 'report', operation: 'get' };
	let nextPage: string | undefined;
	for (const [what, filter, page] of [
		['the first page', undefined, () => undefined],
		['the next page', undefined, () => nextPage],
		['a search', 'shop', () => undefined],
	] as const) {
		await checks.check(`report list search, ${what}: dev/engine answers as POST /rest/dynamic-node-parameters/resource-locator-results does`, async () => {
			const paginationToken = page();
			const n8n = await rest.call<{ results: unknown[]; paginationToken?: string }>('POST', '/rest/dynamic-node-parameters/resource-locator-results', {
				...editorCall,
				path: 'parameters.reportId',
				methodName: 'searchReports',
				currentNodeParameters: parameters,
				...(filter === undefined ? {} : { filter }),
				...(paginationToken === undefined ? {} : { paginationToken }),
			});
			const engine = await loadOptions({ ...engineCall, method: 'listSearch', name: 'searchReports', parameters, filter, paginationToken });
			assertSame(engine, n8n, 'the list search results');
			nextPage ??= n8n.paginationToken;
			return `${n8n.results.length} reports${n8n.paginationToken ? `, next page "${n8n.paginationToken}"` : ''}`;
		});
	}

	await checks.check('project filter search: dev/engine answers as POST /rest/dynamic-node-parameters/resource-locator-results does', async () => {
		const filterParameters = { resource: 'report', operation: 'getAll', filters: { project: { __rl: true, mode: 'list', value: '' } } };
		const n8n = await rest.call<{ results: unknown[]; paginationToken?: string }>('POST', '/rest/dynamic-node-parameters/resource-locator-results', {
			...editorCall,
			path: 'parameters.filters.project',
			methodName: 'searchProjects',
			currentNodeParameters: filterParameters,
		});
		const engine = await loadOptions({ ...engineCall, method: 'listSearch', name: 'searchProjects', parameters: filterParameters });
		assertSame(engine, n8n, 'the project list search results');
		return `${n8n.results.length} projects`;
	});
}

/** The example workflows under examples/, prepared for `n8n import:workflow`, and the demo credential they use. */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { EXAMPLES_DIR } from './util';

/** The credential every phpRank node in the examples refers to. */
export const DEMO_CREDENTIAL = { id: 'phprank-demo', name: 'phpRank (bundled server)', type: 'phpRankApi' } as const;

/** The demo credential as `n8n import:credentials` reads it, pointing at a phpRank server. */
export const demoCredential = (server: { url: string; apiKey: string }) => ({ ...DEMO_CREDENTIAL, data: { baseUrl: server.url, apiKey: server.apiKey } });

export const PACKAGE_NODE_PREFIX = 'n8n-nodes-phprank.';

/**
 * Where the offline examples that fetch from the bundled server directly (the site audit's sitemap) expect it:
 * `npm run server -- --port 8088`. The credential names it for the phpRank nodes.
 */
export const EXAMPLE_SERVER_ORIGIN = 'http://127.0.0.1:8088';

/**
 * Where the offline site audit expects the bundled server's site with a known link graph (dev/server/auditSite.ts): a
 * host of its own, as a site's robots.txt lives at its host's root. `npm start` starts it there.
 */
export const EXAMPLE_SITE_ORIGIN = 'http://127.0.0.1:8089';

/**
 * The workflow with the bundled server's expected address replaced by that of the server given, and with `site`, the
 * audit site's too.
 */
export function pointedAt<T>(workflow: T, server: { url: string }, site?: { url: string }): T {
	let text = JSON.stringify(workflow).replaceAll(EXAMPLE_SERVER_ORIGIN, new URL(server.url).origin);
	if (site) text = text.replaceAll(EXAMPLE_SITE_ORIGIN, new URL(site.url).origin);
	return JSON.parse(text) as T;
}

/**
 * Node types that need neither the internet nor a credential, so that a workflow made of them and of
 * phpRank nodes runs against the bundled server alone.
 */
const OFFLINE_NODE_TYPES = new Set(
	[
		'manualTrigger',
		'scheduleTrigger',
		'stickyNote',
		'noOp',
		'set',
		'if',
		'filter',
		'switch',
		'merge',
		'sort',
		'limit',
		'aggregate',
		'summarize',
		'splitOut',
		'removeDuplicates',
		'xml',
		'compression',
		'splitInBatches',
		'wait',
		'dateTime',
		'readWriteFile',
		'extractFromFile',
		'convertToFile',
		'compareDatasets',
		'renameKeys',
		'itemLists',
		'stopAndError',
		'code',
		'dataTable',
	].map((name) => `n8n-nodes-base.${name}`),
);

export interface WorkflowNode {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	position?: [number, number];
	webhookId?: string;
	onError?: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
}

export interface WorkflowJson {
	id: string;
	name: string;
	nodes: WorkflowNode[];
	/** By source node, then by connection type (`main`, `ai_tool`, …). */
	connections: Record<string, Partial<Record<string, Array<Array<{ node: string }> | null>>>>;
	[key: string]: unknown;
}

export interface Example {
	/** File name under examples/. */
	file: string;
	workflow: WorkflowJson;
	/** The workflow ID in n8n (also in `workflow`): the file's own, or one derived from the file name. */
	id: string;
	/** Whether `n8n execute` can run it here: it starts by hand and needs nothing but the bundled server. */
	offline: boolean;
	/** Why it is not run offline. */
	onlineBecause?: string;
	/** The n8n Data tables its Data Table nodes name: they must exist in n8n before it runs. */
	dataTables: string[];
}

const DATA_TABLE_NODE_TYPE = 'n8n-nodes-base.dataTable';
const STICKY_NOTE_NODE_TYPE = 'n8n-nodes-base.stickyNote';

/** The names of the Data tables the workflow's Data Table nodes select by name. */
function dataTablesOf(workflow: WorkflowJson): string[] {
	const names = workflow.nodes
		.filter((node) => node.type === DATA_TABLE_NODE_TYPE)
		.map((node) => node.parameters.dataTableId as { mode?: string; value?: unknown } | undefined)
		.flatMap((locator) => (locator?.mode === 'name' && typeof locator.value === 'string' ? [locator.value] : []));
	return [...new Set(names)];
}

/**
 * The Data Table nodes the workflow's notes tell an n8n 1.x user to pick a table in: the *italic* node names in
 * each note's sentences that speak of n8n 1.x. n8n 1.x's node finds a table by ID only, so these are all the picks
 * a user following the notes makes.
 */
export function dataTableNodesNamedFor1x(workflow: WorkflowJson): string[] {
	const dataTableNodes = new Set(workflow.nodes.filter((node) => node.type === DATA_TABLE_NODE_TYPE).map((node) => node.name));
	const notes = workflow.nodes.filter((node) => node.type === STICKY_NOTE_NODE_TYPE).map((node) => String(node.parameters.content ?? ''));
	const sentences = notes.flatMap((text) => text.split(/(?<=[.:])\s+(?=[A-Z*])|\n/)).filter((sentence) => /n8n 1\.x/.test(sentence));
	const unbolded = sentences.map((sentence) => sentence.replace(/\*\*([^*]+)\*\*/g, '$1'));
	const named = unbolded.flatMap((sentence) => [...sentence.matchAll(/\*([^*]+)\*/g)].map((match) => match[1]));
	return [...new Set(named.filter((name) => dataTableNodes.has(name)))];
}

/**
 * The workflow as an n8n 1.x user leaves it after following its notes: the Data Table nodes the notes name
 * (`dataTableNodesNamedFor1x`) select their table by the ID given for its name, as picking it from the list does;
 * any other keeps its By Name choice, which n8n 1.x cannot resolve.
 */
export function withDataTableIds<T extends WorkflowJson>(workflow: T, ids: Record<string, string>): T {
	const picked = new Set(dataTableNodesNamedFor1x(workflow));
	const nodes = workflow.nodes.map((node) => {
		const locator = node.parameters.dataTableId as { mode?: string; value?: unknown } | undefined;
		if (!picked.has(node.name) || locator?.mode !== 'name' || typeof locator.value !== 'string' || !ids[locator.value]) return node;
		return { ...node, parameters: { ...node.parameters, dataTableId: { __rl: true, mode: 'id', value: ids[locator.value] } } };
	});
	return { ...workflow, nodes };
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A stable 16-character workflow ID for an example file (n8n's IDs are at most 21 characters). */
function exampleWorkflowId(file: string): string {
	const digest = createHash('sha256').update(`n8n-nodes-phprank/examples/${file}`).digest();
	return Array.from(digest.subarray(0, 16), (byte) => ID_ALPHABET[byte % ID_ALPHABET.length]).join('');
}

const HTTP_REQUEST_NODE_TYPE = 'n8n-nodes-base.httpRequest';

/** Whether every web address in the workflow's node parameters is the bundled server's: its HTTP Requests fetch from it alone. */
function addressesOnlyTheServer(workflow: WorkflowJson): boolean {
	const parameters = JSON.stringify(workflow.nodes.filter((node) => node.type !== STICKY_NOTE_NODE_TYPE).map((node) => node.parameters));
	return (parameters.match(/https?:\/\/[^\s"'`]+/g) ?? []).every((address) => address.startsWith(`${EXAMPLE_SERVER_ORIGIN}/`));
}

function classify(workflow: WorkflowJson): { offline: boolean; onlineBecause?: string } {
	if (!workflow.nodes.some((node) => node.type === 'n8n-nodes-base.manualTrigger')) {
		return { offline: false, onlineBecause: 'no manual trigger: it starts from an event' };
	}
	const online = workflow.nodes.filter(
		(node) =>
			!node.type.startsWith(PACKAGE_NODE_PREFIX) &&
			!OFFLINE_NODE_TYPES.has(node.type) &&
			!(node.type === HTTP_REQUEST_NODE_TYPE && addressesOnlyTheServer(workflow)),
	);
	if (online.length) return { offline: false, onlineBecause: `needs ${online.map((node) => `${node.name} (${node.type})`).join(', ')}` };
	return { offline: true };
}

/** Every workflow under examples/ (the top level; examples/data holds their input files). */
export function loadExamples(): Example[] {
	return readdirSync(EXAMPLES_DIR)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => {
			const workflow = JSON.parse(readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as WorkflowJson;
			const id = workflow.id || exampleWorkflowId(file);
			return { file, workflow: { ...workflow, id }, id, ...classify(workflow), dataTables: dataTablesOf(workflow) };
		});
}

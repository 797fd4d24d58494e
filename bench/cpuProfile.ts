/**
 * Where a client's CPU time goes, from a V8 CPU profile (the inspector's Profiler): every sample
 * is put in one group by its stack.
 *
 * The rule, in order:
 * 1. The garbage collector's samples are GC; idle samples (waiting for the network) are left out.
 * 2. A sample with any frame in n8n's expression engine (n8n-workflow's Expression,
 *    WorkflowExpression, WorkflowDataProxy and the extensions and libraries they call) is the
 *    expression engine, wherever it was called from: its cost is that of the expression, not of
 *    whoever asked for it. Its caller is kept apart (EXPRESSION_CALLERS) to say who asked.
 * 3. Otherwise the stack is walked from the leaf towards the root, and the first frame that
 *    belongs to a group decides: JSON (the JSON builtins, n8n's jsonParse), the HTTP client (axios, Node's
 *    http/net/stream/tls, undici), the node's own code (the built nodes and credentials, the
 *    floor, n8n-nodes-base's nodes), the engine's parameter passes (RoutingNode's walk over the
 *    properties and its base URL check, NodeHelpers, getNodeParameter), n8n's request helper and
 *    credentials (httpRequestWithAuthentication, getCredentials, the credential's authenticate),
 *    and the rest of the engine (WorkflowExecute, the execution contexts, RoutingNode's request
 *    path). Frames of general libraries (lodash, n8n-workflow's utilities, native code) decide
 *    nothing: their time goes to the caller that did decide. What no frame claims is "other".
 */

export interface CpuProfile {
	nodes: Array<{
		id: number;
		callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
		children?: number[];
	}>;
	samples: number[];
	timeDeltas: number[];
}

export const GROUPS = [
	'expression',
	'parameters',
	'node',
	'requestHelper',
	'http',
	'json',
	'gc',
	'engine',
	'other',
] as const;

export type Group = (typeof GROUPS)[number];

export const GROUP_LABELS: Record<Group, string> = {
	expression: "n8n's expression engine",
	parameters: "the engine's parameter passes",
	node: "the node's own code",
	requestHelper: "n8n's request helper and credentials",
	http: 'the HTTP client (axios, http, sockets)',
	json: 'JSON',
	gc: 'GC',
	engine: "the rest of n8n's engine",
	other: 'other (runtime, promises, timers)',
};

interface Frame {
	functionName: string;
	url: string;
}

const EXPRESSION_FILE =
	/n8n-workflow[\\/]dist[\\/](?:cjs|esm)[\\/](?:expression[^\\/]*|workflow-expression|workflow-data-proxy[^\\/]*|augment-object|native-methods[\\/].*|extensions[\\/].*|expressions[\\/].*)\.js$|@n8n[\\/](?:tournament|expression-runtime)[\\/]|[\\/]luxon[\\/]|[\\/]jmespath[\\/]/;

/** RoutingNode's request path: the rest of RoutingNode is the walk over the parameters. */
const ROUTING_REQUEST_PATH = new Set(['makeRequest', 'rawRoutingRequest', 'postProcessResponseData', 'runPostReceiveAction', 'makeRoutingRequest']);

const PARAMETER_FILE =
	/n8n-workflow[\\/]dist[\\/](?:cjs|esm)[\\/](?:node-helpers|node-parameters[\\/].*)\.js$|n8n-core[\\/]dist[\\/]execution-engine[\\/]node-execution-context[\\/]utils[\\/](?:cleanup-parameter-data|extract-value|ensure-type|validate-value-against-schema|get-additional-keys)\.js$/;

/** getNodeParameter and its variants in n8n-core's execution contexts (ExecuteContext.getNodeParameter, _getNodeParameter). */
const PARAMETER_FUNCTION = /(?:^|\.)_?getNodeParameter$/;

const REQUEST_HELPER_FILE =
	/@n8n[\\/]backend-network[\\/]|n8n-core[\\/]dist[\\/](?:execution-engine[\\/]node-execution-context[\\/]utils[\\/](?:request-helper-functions|request-helpers)|credentials)|[\\/]harness[\\/]credentials\.ts$|n8n-workflow[\\/]dist[\\/](?:cjs|esm)[\\/]credential-domain-restrictions\.js$/;

const HTTP_FILE =
	/[\\/]node_modules[\\/](?:axios|follow-redirects|form-data|proxy-from-env|undici|agent-base|http-proxy-agent|https-proxy-agent|combined-stream|asynckit|mime-types)[\\/]|^node:(?:_http_|http|https|net|tls|dns|stream|zlib|internal[\\/](?:http|streams|stream_base_commons|net|dns|tls|deps[\\/]undici))/;

const NODE_FILE = /[\\/]dist[\\/](?:nodes|credentials)[\\/]|[\\/]phprank-bench-[^\\/]+[\\/]|[\\/]bench[\\/]floor[\\/]|n8n-nodes-base[\\/]dist[\\/](?:nodes|credentials)[\\/]/;

const ENGINE_FILE = /n8n-core[\\/]dist[\\/]|[\\/]harness[\\/]|n8n-workflow[\\/]dist[\\/](?:cjs|esm)[\\/](?:workflow|interfaces|run-execution-data[\\/].*)\.js$/;

const JSON_BUILTINS = new Set(['parse', 'stringify']);

function frameGroup(frame: Frame): Group | undefined {
	const { functionName, url } = frame;
	if (url === '') return JSON_BUILTINS.has(functionName) ? 'json' : undefined;
	// n8n-workflow's wrapper of JSON.parse (the HTTP Request node parses answers with it).
	if (functionName === 'jsonParse' && /n8n-workflow[\\/]dist[\\/](?:cjs|esm)[\\/]utils\.js$/.test(url)) return 'json';
	if (HTTP_FILE.test(url)) return 'http';
	if (NODE_FILE.test(url)) return 'node';
	if (/routing-node\.js$/.test(url)) return ROUTING_REQUEST_PATH.has(functionName) ? 'engine' : 'parameters';
	if (PARAMETER_FILE.test(url)) return 'parameters';
	if (PARAMETER_FUNCTION.test(functionName) && /n8n-core[\\/]dist[\\/]/.test(url)) return 'parameters';
	if (REQUEST_HELPER_FILE.test(url)) return 'requestHelper';
	if (ENGINE_FILE.test(url)) return 'engine';
	return undefined;
}

/** Who asked for an expression: the nearest frame outside the expression engine that says. */
export const EXPRESSION_CALLERS = ['request pass', 'base URL check pass', 'node code', 'credential (auth header)', 'pagination and other'] as const;

export type ExpressionCaller = (typeof EXPRESSION_CALLERS)[number];

function expressionCaller(stack: Frame[]): ExpressionCaller {
	for (const frame of stack) {
		if (EXPRESSION_FILE.test(frame.url)) continue;
		if (frame.functionName === 'resolveBaseUrl') return 'base URL check pass';
		if (/authenticate|resolveAuthValue/.test(frame.functionName) || /[\\/]harness[\\/]credentials\.ts$/.test(frame.url)) return 'credential (auth header)';
		if (NODE_FILE.test(frame.url)) return 'node code';
		// RoutingNode's helpers serve both passes: the pass is the function they were called from.
		if (/routing-node\.js$/.test(frame.url) && ['runNode', 'makeRequest'].includes(frame.functionName)) return 'request pass';
	}
	return 'pagination and other';
}

/**
 * Samples, counted. Every sample counts the same: the time between two samples (timeDeltas) also
 * holds the time the process waited for a CPU on a loaded machine, which has nothing to do with the
 * code it was in, so counts measure the CPU the code took where time deltas would add noise.
 */
export interface Breakdown {
	/** Samples by group (idle left out). */
	groups: Record<Group, number>;
	/** Expression-engine samples by who asked. */
	expressionCallers: Record<ExpressionCaller, number>;
	/** Samples by group and leaf function ("name file"), for the detail lists. */
	functions: Record<Group, Record<string, number>>;
	idle: number;
	/** Samples taken (idle included). */
	samples: number;
}

export function emptyBreakdown(): Breakdown {
	return {
		groups: Object.fromEntries(GROUPS.map((group) => [group, 0])) as Record<Group, number>,
		expressionCallers: Object.fromEntries(EXPRESSION_CALLERS.map((caller) => [caller, 0])) as Record<ExpressionCaller, number>,
		functions: Object.fromEntries(GROUPS.map((group) => [group, {}])) as unknown as Record<Group, Record<string, number>>,
		idle: 0,
		samples: 0,
	};
}

function shortUrl(url: string): string {
	return url
		.replace(/^file:\/\//, '')
		.replace(/.*[\\/]node_modules[\\/]/, '')
		.replace(/.*[\\/]phprank-bench-[^\\/]+[\\/]/, 'dist/')
		.replace(/.*[\\/](bench|test)[\\/]/, '$1/');
}

/** Adds one profile's samples to `into`. */
export function classify(profile: CpuProfile, into: Breakdown = emptyBreakdown()): Breakdown {
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const parentOf = new Map<number, number>();
	for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
	const decided = new Map<number, { group: Group; caller?: ExpressionCaller } | 'idle'>();
	const decide = (id: number) => {
		const known = decided.get(id);
		if (known) return known;
		const leaf = byId.get(id)!.callFrame;
		const stack: Frame[] = [];
		for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) stack.push(byId.get(at)!.callFrame);
		let result: { group: Group; caller?: ExpressionCaller } | 'idle';
		if (leaf.functionName === '(idle)') result = 'idle';
		else if (leaf.functionName === '(garbage collector)') result = { group: 'gc' };
		else if (stack.some((frame) => EXPRESSION_FILE.test(frame.url))) result = { group: 'expression', caller: expressionCaller(stack) };
		else result = { group: stack.map(frameGroup).find((group) => group !== undefined) ?? 'other' };
		decided.set(id, result);
		return result;
	};
	for (const id of profile.samples) {
		const count = 1;
		into.samples++;
		const result = decide(id);
		if (result === 'idle') {
			into.idle += count;
			continue;
		}
		into.groups[result.group] += count;
		if (result.caller) into.expressionCallers[result.caller] += count;
		const leaf = byId.get(id)!.callFrame;
		const key = `${leaf.functionName || '(anonymous)'} ${shortUrl(leaf.url)}`.trim();
		into.functions[result.group][key] = (into.functions[result.group][key] ?? 0) + count;
	}
	return into;
}

export function busySamples(breakdown: Breakdown): number {
	return GROUPS.reduce((sum, group) => sum + breakdown.groups[group], 0);
}

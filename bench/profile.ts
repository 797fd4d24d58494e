/**
 * `npm run bench:profile`: where the per-item time goes in the 1,000-item jobs (each item creating
 * or getting a report), for the phpRank node, the declarative floor (bench/floor) and n8n's HTTP
 * Request node. Each client runs in a process of its own against the bundled server (as in
 * `npm run bench`), under V8's sampling CPU profiler during the profiled runs only; every sample is
 * then put in one group by its stack, which is what a .cpuprofile in Chrome DevTools does not tell. Options:
 * --runs, --items, --jobs create,get, --clients phpRank,floor,httpRequest, --keep <folder> (keeps every .cpuprofile).
 *
 * Shares of samples are what to compare: they hold on a loaded machine, where times do not. Every
 * sample counts the same: the time between two samples also holds the time the process waited for
 * a CPU, which has nothing to do with the code it was in.
 *
 * The grouping, in order:
 * 1. The garbage collector's samples are GC; idle samples (waiting for the network) are left out.
 * 2. A sample with any frame in n8n's expression engine (n8n-workflow's Expression, WorkflowExpression,
 *    WorkflowDataProxy and the extensions and libraries they call) is the expression engine, wherever it
 *    was called from: its cost is that of the expression, not of whoever asked for it (`npm run bench`
 *    counts who asked).
 * 3. Otherwise the stack is walked from the leaf towards the root, and the first frame that belongs to
 *    a group decides: JSON (the JSON builtins, n8n's jsonParse), the HTTP client (axios, Node's
 *    http/net/stream/tls, undici), the node's own code (the built nodes and credentials, the floor,
 *    n8n-nodes-base's nodes), the engine's parameter passes (RoutingNode's walk over the properties and
 *    its base URL check, NodeHelpers, getNodeParameter), n8n's request helper and credentials, and the
 *    rest of the engine (WorkflowExecute, the execution contexts, RoutingNode's request path). Frames of
 *    general libraries (lodash, n8n-workflow's utilities, native code) decide nothing: their time goes
 *    to the caller that did decide. What no frame claims is "other".
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Profiler, Runtime } from 'node:inspector';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

import type { Job, VariantId } from './plan';
import { describeJob, primingJob, VARIANT_LABELS } from './plan';
import {
	closeWorkers,
	describeRun,
	LATENCY_MS,
	loadAverage,
	log,
	markdownTable,
	median,
	runScript,
	snapshotBuild,
	startServer,
	startWorkers,
} from './processes';

const PROFILED: VariantId[] = ['phpRank', 'floor', 'httpRequest'];

const GROUP_LABELS = {
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

type Group = keyof typeof GROUP_LABELS;

type CallFrame = Runtime.CallFrame;

const EXPRESSION_FILE =
	/n8n-workflow[\\/]dist[\\/](?:cjs|esm)[\\/](?:expression[^\\/]*|workflow-expression|workflow-data-proxy[^\\/]*|augment-object|native-methods[\\/].*|extensions[\\/].*|expressions[\\/].*)\.js$|@n8n[\\/](?:tournament|expression-runtime)[\\/]|[\\/]luxon[\\/]|[\\/]jmespath[\\/]/;

/** RoutingNode's request path: the rest of RoutingNode is the walk over the parameters. */
const ROUTING_REQUEST_PATH = new Set([
	'makeRequest',
	'rawRoutingRequest',
	'postProcessResponseData',
	'runPostReceiveAction',
	'makeRoutingRequest',
]);

const PARAMETER_FILE =
	/n8n-workflow[\\/]dist[\\/](?:cjs|esm)[\\/](?:node-helpers|node-parameters[\\/].*)\.js$|n8n-core[\\/]dist[\\/]execution-engine[\\/]node-execution-context[\\/]utils[\\/](?:cleanup-parameter-data|extract-value|ensure-type|validate-value-against-schema|get-additional-keys)\.js$/;

/** getNodeParameter and its variants in n8n-core's execution contexts (ExecuteContext.getNodeParameter, _getNodeParameter). */
const PARAMETER_FUNCTION = /(?:^|\.)_?getNodeParameter$/;

const REQUEST_HELPER_FILE =
	/@n8n[\\/]backend-network[\\/]|n8n-core[\\/]dist[\\/](?:execution-engine[\\/]node-execution-context[\\/]utils[\\/](?:request-helper-functions|request-helpers)|credentials)|[\\/]dev[\\/]engine[\\/]credentials\.ts$|n8n-workflow[\\/]dist[\\/](?:cjs|esm)[\\/]credential-domain-restrictions\.js$/;

const HTTP_FILE =
	/[\\/]node_modules[\\/](?:axios|follow-redirects|form-data|proxy-from-env|undici|agent-base|http-proxy-agent|https-proxy-agent|combined-stream|asynckit|mime-types)[\\/]|^node:(?:_http_|http|https|net|tls|dns|stream|zlib|internal[\\/](?:http|streams|stream_base_commons|net|dns|tls|deps[\\/]undici))/;

const NODE_FILE =
	/[\\/]dist[\\/](?:nodes|credentials)[\\/]|[\\/]phprank-bench-[^\\/]+[\\/]|[\\/]bench[\\/]floor[\\/]|n8n-nodes-base[\\/]dist[\\/](?:nodes|credentials)[\\/]/;

const ENGINE_FILE =
	/n8n-core[\\/]dist[\\/]|[\\/]dev[\\/]engine[\\/]|n8n-workflow[\\/]dist[\\/](?:cjs|esm)[\\/](?:workflow|interfaces|run-execution-data[\\/].*)\.js$/;

function frameGroup({ functionName, url }: CallFrame): Group | undefined {
	if (url === '') return ['parse', 'stringify'].includes(functionName) ? 'json' : undefined;
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

function shortUrl(url: string): string {
	return url
		.replace(/^file:\/\//, '')
		.replace(/.*[\\/]node_modules[\\/]/, '')
		.replace(/.*[\\/]phprank-bench-[^\\/]+[\\/]/, 'dist/')
		.replace(/.*[\\/](bench|test)[\\/]/, '$1/');
}

/** One client's samples over all its profiled runs: by group, and by group and leaf function ("name file"). */
interface ClientProfile {
	variant: VariantId;
	samples: Map<Group | 'idle', number>;
	functions: Map<Group, Map<string, number>>;
	cpuMs: number[];
	ms: number[];
}

const add = <K>(counts: Map<K, number>, key: K) => counts.set(key, (counts.get(key) ?? 0) + 1);

/** Adds one profile's samples to `into`. */
function classify(profile: Profiler.Profile, into: ClientProfile): void {
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const parentOf = new Map<number, number>();
	for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
	const decided = new Map<number, Group | 'idle'>();
	const decide = (id: number): Group | 'idle' => {
		const leaf = byId.get(id)!.callFrame;
		if (leaf.functionName === '(idle)') return 'idle';
		if (leaf.functionName === '(garbage collector)') return 'gc';
		const stack: CallFrame[] = [];
		for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) stack.push(byId.get(at)!.callFrame);
		if (stack.some((frame) => EXPRESSION_FILE.test(frame.url))) return 'expression';
		return stack.map(frameGroup).find((group) => group !== undefined) ?? 'other';
	};
	for (const id of profile.samples ?? []) {
		const group = decided.get(id) ?? decide(id);
		decided.set(id, group);
		add(into.samples, group);
		if (group === 'idle') continue;
		const leaf = byId.get(id)!.callFrame;
		if (!into.functions.has(group)) into.functions.set(group, new Map());
		add(into.functions.get(group)!, `${leaf.functionName || '(anonymous)'} ${shortUrl(leaf.url)}`.trim());
	}
}

function settingsFromArguments() {
	const { values } = parseArgs({
		options: {
			runs: { type: 'string', default: '3' },
			items: { type: 'string', default: '1000' },
			jobs: { type: 'string', default: 'create,get' },
			clients: { type: 'string', default: PROFILED.join(',') },
			keep: { type: 'string' },
		},
	});
	const count = (name: 'runs' | 'items') => {
		if (!/^[1-9]\d*$/.test(values[name])) throw new Error(`--${name} must be a positive whole number; got ${values[name]}`);
		return Number(values[name]);
	};
	const list = <T extends string>(name: 'jobs' | 'clients', allowed: readonly T[]): T[] => {
		const given = values[name].split(',').map((entry) => entry.trim());
		const unknown = given.filter((entry) => !allowed.includes(entry as T));
		if (unknown.length) throw new Error(`--${name}: unknown ${unknown.join(', ')} (one or more of ${allowed.join(', ')})`);
		return given as T[];
	};
	return {
		runs: count('runs'),
		items: count('items'),
		jobs: list('jobs', ['create', 'get'] as const),
		clients: list('clients', PROFILED),
		keep: values.keep,
	};
}

type Settings = ReturnType<typeof settingsFromArguments>;

/** Runs of one job, interleaved as in npm run bench: run n of every client before run n + 1 of any. */
async function profileJob(
	job: Job & { kind: 'create' | 'get' },
	at: { settings: Settings; distCopy: string; directory: string },
): Promise<ClientProfile[]> {
	const server = await startServer(job.kind === 'get' ? { seedReports: job.items } : {});
	const target = { url: server.url, apiKey: server.apiKey };
	const workers = await startWorkers(at.settings.clients, at.distCopy);
	for (const worker of workers.values()) await worker.run({ job: primingJob(job), target, phase: 'prime' });
	const profiles = at.settings.clients.map(
		(variant): ClientProfile => ({ variant, samples: new Map(), functions: new Map(), cpuMs: [], ms: [] }),
	);
	for (let run = 1; run <= at.settings.runs; run++) {
		for (const profile of profiles) {
			if (job.kind === 'create') server.reset();
			const profileFile = path.join(at.directory, `${job.kind}-${profile.variant}-${run}.cpuprofile`);
			const reply = await workers.get(profile.variant)!.run({ job, target, phase: 'profile', profileFile });
			classify(JSON.parse(readFileSync(profileFile, 'utf8')) as Profiler.Profile, profile);
			profile.cpuMs.push(reply.cpuMs);
			profile.ms.push(reply.ms);
		}
	}
	await closeWorkers(workers);
	await server.close();
	return profiles;
}

const busy = (profile: ClientProfile) => [...profile.samples].reduce((sum, [group, count]) => sum + (group === 'idle' ? 0 : count), 0);
const percent = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)} %` : '');

function groupTable(profiles: ClientProfile[], items: number): string[] {
	// Client CPU per item, spread over the groups by their share of the busy samples.
	const cell = (profile: ClientProfile, group: Group) => {
		const samples = profile.samples.get(group) ?? 0;
		const cpuMs = profile.cpuMs.reduce((sum, ms) => sum + ms, 0);
		const micros = busy(profile) > 0 ? ((samples / busy(profile)) * cpuMs * 1000) / (profile.cpuMs.length * items) : 0;
		return `${percent(samples, busy(profile))}, ${micros.toFixed(0)}`;
	};
	const groups = Object.keys(GROUP_LABELS) as Group[];
	return markdownTable(
		['Group', ...profiles.map((profile) => `${VARIANT_LABELS[profile.variant]}: share, ≈ CPU µs per item`)],
		[
			...groups.map((group) => [GROUP_LABELS[group], ...profiles.map((profile) => cell(profile, group))]),
			['Client CPU per run, ms (median)', ...profiles.map((profile) => median(profile.cpuMs).toFixed(0))],
			['Time per run, ms (median)', ...profiles.map((profile) => median(profile.ms).toFixed(0))],
			['Samples: busy (idle)', ...profiles.map((profile) => `${busy(profile)} (${profile.samples.get('idle') ?? 0})`)],
		],
	);
}

async function main(): Promise<void> {
	const settings = settingsFromArguments();
	const distCopy = snapshotBuild(log);
	const directory = settings.keep ? path.resolve(settings.keep) : mkdtempSync(path.join(os.tmpdir(), 'phprank-profile-'));
	mkdirSync(directory, { recursive: true });
	if (!settings.keep) process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
	log(
		`Where the per-item time goes: V8 CPU profiles of ${settings.runs} runs per client and job, ${settings.items} items, bundled server (rate limit off, ${LATENCY_MS} ms latency) in this process`,
		...describeRun('bench:profile'),
		'Grouping (bench/profile.ts): samples counted; any frame in the expression engine makes it the expression engine; else the first frame from the leaf that belongs to a group; idle left out.',
		"≈ CPU µs per item: the client process's CPU time per item, spread over the groups by their share of the busy samples.",
		'',
	);
	for (const kind of settings.jobs) {
		const job = { kind, items: settings.items };
		const profiles = await profileJob(job, { settings, distCopy, directory });
		log(describeJob(job), '', ...groupTable(profiles, settings.items), '');
		for (const profile of profiles) {
			log(`Top functions (self), ${VARIANT_LABELS[profile.variant]}:`);
			for (const group of ['expression', 'parameters', 'node', 'http', 'engine', 'other'] as const) {
				const top = [...(profile.functions.get(group) ?? [])].sort((a, b) => b[1] - a[1]).slice(0, 6);
				const shares = top.map(([name, samples]) => `${name} ${percent(samples, busy(profile))}`).join('; ');
				if (shares) log(`  ${GROUP_LABELS[group]}: ${shares}`);
			}
		}
		log();
	}
	log(`Load average at the end: ${loadAverage()}`);
	if (settings.keep) log(`Profiles kept in ${directory}`);
}

runScript(main);

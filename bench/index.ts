/**
 * `npm run bench`: the phpRank node against the fewest requests each job allows, a raw undici
 * client doing the same job, and n8n's HTTP Request node set up as n8n's documentation shows, all
 * against the bundled phpRank-compatible server (rate limit off, a fixed latency per request).
 *
 *   npm run bench                        full run: 5 timed runs per client, one process per case and client
 *   npm run bench -- --short             short run (BENCH_SHORT=1 too): 3 timed runs, fewer records
 *                                        and items, the node, undici and the HTTP Request node only,
 *                                        one process per client for all cases
 *   npm run bench -- --json out.json     also writes every figure as JSON
 *
 * The server runs in this process and counts the requests and records of every run; each client
 * runs in a process of its own (bench/worker.ts), so that its memory is its own. Benchmarks are
 * not tests: a missed goal is printed, never turned into an exit code. Only a crash, or a client
 * that did not do the whole job, fails the run.
 */
import { execFileSync, fork, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { startPhpRankServer } from '../dev/server';
import type { PhpRankServer, PhpRankServerOptions, RecordedRequest } from '../dev/server';
import type { ExpressionTally } from './clients/expressions';
import { builtPackage, installedNodesBase, REPOSITORY_ROOT } from './clients/n8n';
import type { Fewest, Job, VariantId } from './plan';
import {
	describeJob,
	describeWindows,
	expectedOutput,
	fewestPossible,
	onePageSizeWindows,
	primingJob,
	recordsOnPage,
	recordsServed,
	VARIANT_LABELS,
} from './plan';
import type { Command, Phase, Reply } from './worker';

const LATENCY_MS = 2;
const WORKER = path.join(__dirname, 'worker.ts');

const GOALS = { timeRatio: 1.2, memoryRatio: 1.5 };
/**
 * Below this, two processes' RSS growth cannot be told apart: V8 commits heap in steps of
 * megabytes, so a job that allocates little shows 0 MB or a step, whoever runs it.
 */
const MEMORY_NOISE_FLOOR = 5 * 1024 * 1024;

interface Settings {
	short: boolean;
	timedRuns: number;
	jsonFile?: string;
}

function settingsFromArguments(argv: string[]): Settings {
	const short = argv.includes('--short') || ['1', 'true'].includes(process.env.BENCH_SHORT ?? '');
	const json = argv.indexOf('--json');
	return { short, timedRuns: short ? 3 : 5, jsonFile: json >= 0 ? argv[json + 1] : undefined };
}

interface CaseSpec {
	id: string;
	title: string;
	server: PhpRankServerOptions;
	/** Wipe the server before every run (creates would otherwise pile up). */
	resetEachRun?: boolean;
	jobs: Array<{ job: Job; variants: VariantId[] }>;
}

/** Clients that depend on something outside this repository: when they fail, they are left out, not the run. */
const OPTIONAL: VariantId[] = ['httpRequestInstalled'];

/** Clients whose n8n expression evaluations are counted in one extra run, to show where their time goes. */
const EXPLAINED: VariantId[] = ['phpRank', 'httpRequest'];

function plan(settings: Settings): CaseSpec[] {
	const reports = settings.short ? 1_000 : 10_000;
	const projects = settings.short ? 300 : 1_000;
	const items = settings.short ? 100 : 1_000;
	// Short runs keep to the node, the baseline and the HTTP Request node as documented; the other
	// clients are references for the full run.
	const full = (variants: VariantId[]) => (settings.short ? [] : variants);
	const installed = full(installedNodesBase().directory ? ['httpRequestInstalled'] : []);
	const listVariants: VariantId[] = ['phpRank', 'undici', 'httpRequest', ...full(['httpRequestMeta']), ...installed];
	const itemVariants: VariantId[] = ['phpRank', 'undici', 'httpRequest', ...installed];
	// What the lone first request costs while the node has not learnt the server's rate limit.
	const getVariants: VariantId[] = ['phpRank', ...full(['phpRankKnownLimit']), 'undici', 'httpRequest', ...installed];
	const limitJob = (limit: number): CaseSpec['jobs'][number] => {
		const job: Job = { kind: 'list', resource: 'reports', total: reports, limit };
		const oneSize = onePageSizeWindows(limit, reports).reduce((sum, window) => sum + recordsOnPage(window, reports), 0);
		// Where mixing page sizes fetches fewer records, a client doing so shows what that is worth.
		const fewest: VariantId[] = full(fewestPossible(job).records < oneSize ? ['undiciFewest'] : []);
		return { job, variants: ['phpRank', 'undici', ...fewest, 'httpRequest', ...installed] };
	};
	return [
		{
			id: '1',
			title: `Return All over ${reports} reports`,
			server: { seedReports: reports },
			jobs: [{ job: { kind: 'list', resource: 'reports', total: reports }, variants: listVariants }],
		},
		{
			id: '2',
			title: `Limit 1, 10, 101 and 250 over ${reports} reports`,
			server: { seedReports: reports },
			jobs: [1, 10, 101, 250].map(limitJob),
		},
		{
			id: '3',
			title: `Project Get Many, Return All over ${projects} projects`,
			server: { seedProjects: projects },
			jobs: [{ job: { kind: 'list', resource: 'projects', total: projects }, variants: listVariants }],
		},
		{
			id: '4a',
			title: `${items} items each creating a report (rate limit off)`,
			server: {},
			resetEachRun: true,
			jobs: [{ job: { kind: 'create', items }, variants: itemVariants }],
		},
		{
			id: '4b',
			title: `${items} items each getting a report`,
			server: { seedReports: items },
			jobs: [{ job: { kind: 'get', items }, variants: getVariants }],
		},
	];
}

interface RunFigures {
	ms: number;
	/** CPU time of the client's process (user and system) during the run. */
	cpuMs: number;
	requests: number;
	records: number;
	failedRequests: number;
}

interface Measurement {
	caseId: string;
	job: Job;
	variant: VariantId;
	fewest: Fewest;
	output: number;
	/** The measured (memory) run and the timed runs. */
	runs: RunFigures[];
	timedMs: number[];
	timedCpuMs: number[];
	baseRss: number;
	peakRss: number;
	maxRss: number;
	expressions?: { tally: ExpressionTally; ms: number };
}

/** A client process, driven one command at a time. */
class Worker {
	private readonly child: ChildProcess;

	private pending: ((reply: Reply) => void) | undefined;

	private readonly exited: Promise<number | null>;

	constructor(variant: VariantId, distCopy: string) {
		this.child = fork(WORKER, [variant], {
			cwd: REPOSITORY_ROOT,
			execArgv: ['--expose-gc', '--import', 'tsx'],
			// The copy of dist/ lives outside the repository: its require('n8n-workflow') finds the
			// repository's through NODE_PATH, the same module the engine uses.
			env: { ...process.env, BENCH_DIST: distCopy, NODE_PATH: path.join(REPOSITORY_ROOT, 'node_modules') },
			stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
		});
		this.child.on('message', (reply: Reply) => {
			const pending = this.pending;
			this.pending = undefined;
			pending?.(reply);
		});
		this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
		void this.exited.then((code) => this.pending?.({ type: 'failed', message: `the client process ended (exit code ${code})` }));
	}

	async next(command?: Command): Promise<Reply> {
		const reply = new Promise<Reply>((resolve) => (this.pending = resolve));
		if (command) this.child.send(command);
		return await reply;
	}

	async close(): Promise<void> {
		if (this.child.connected) this.child.send({ type: 'exit' } satisfies Command);
		// A client that keeps a timer or socket open after its last run is ended after a grace period.
		const timer = setTimeout(() => this.child.kill(), 10_000);
		await this.exited;
		clearTimeout(timer);
	}
}

function countRecords(job: Job, requests: RecordedRequest[]): number {
	if (job.kind !== 'list') return requests.filter((request) => request.status !== undefined && request.status < 300).length;
	return requests.reduce((sum, request) => sum + (request.status === 200 ? recordsServed(request.query, job.total) : 0), 0);
}

type Done = Extract<Reply, { type: 'done' }>;

/** One run of one job by one client; the server's count of what it received goes with it. */
async function runOnce(spec: CaseSpec, server: PhpRankServer, worker: Worker, job: Job, variant: VariantId, phase: Phase): Promise<{ reply: Done; figures: RunFigures }> {
	if (spec.resetEachRun) server.reset();
	server.clearRequests();
	const runJob = phase === 'prime' ? primingJob(job) : job;
	const reply = await worker.next({ type: 'run', job: runJob, target: { url: server.url, apiKey: server.apiKey }, phase });
	if (reply.type !== 'done') {
		throw new Error(`${VARIANT_LABELS[variant]}, ${describeJob(job)}: ${reply.type === 'failed' ? reply.message : 'no answer'}`);
	}
	if (reply.output !== expectedOutput(runJob)) {
		throw new Error(`${VARIANT_LABELS[variant]}, ${describeJob(runJob)}: output ${reply.output} items, expected ${expectedOutput(runJob)}`);
	}
	const requests = server.requests;
	return {
		reply,
		figures: {
			ms: reply.ms,
			cpuMs: reply.cpuMs,
			requests: requests.length,
			records: countRecords(job, requests),
			failedRequests: requests.filter((request) => request.status === undefined || request.status >= 300).length,
		},
	};
}

/**
 * One job by all its clients. Memory first, each client on its own; then the timed runs
 * interleaved, run n of every client before run n + 1 of any, so that a change in the machine's
 * load (other processes) falls on all clients alike instead of on whichever ran then.
 */
async function measureJob(
	spec: CaseSpec,
	server: PhpRankServer,
	job: Job,
	workers: Map<VariantId, Worker>,
	settings: Settings,
	leftOut: Map<VariantId, string>,
): Promise<Measurement[]> {
	const measurements = new Map<VariantId, Measurement>();
	const active = () => [...workers.keys()].filter((variant) => !leftOut.has(variant));
	// Runs one phase; an optional client that fails is left out from then on.
	const attempt = async (variant: VariantId, phase: Phase) => {
		try {
			return await runOnce(spec, server, workers.get(variant)!, job, variant, phase);
		} catch (error) {
			if (!OPTIONAL.includes(variant)) throw error;
			leftOut.set(variant, (error as Error).message.split('\n')[0]);
			measurements.delete(variant);
			return undefined;
		}
	};
	for (const variant of active()) {
		if (!(await attempt(variant, 'prime'))) continue;
		const memory = await attempt(variant, 'memory');
		if (!memory) continue;
		measurements.set(variant, {
			caseId: spec.id,
			job,
			variant,
			fewest: fewestPossible(job),
			output: memory.reply.output,
			runs: [memory.figures],
			timedMs: [],
			timedCpuMs: [],
			baseRss: memory.reply.baseRss ?? 0,
			peakRss: memory.reply.peakRss ?? 0,
			maxRss: memory.reply.maxRss,
		});
	}
	for (let run = 0; run < settings.timedRuns; run++) {
		for (const variant of active()) {
			const timed = await attempt(variant, 'timed');
			const measurement = measurements.get(variant);
			if (!timed || !measurement) continue;
			measurement.runs.push(timed.figures);
			measurement.timedMs.push(timed.figures.ms);
			measurement.timedCpuMs.push(timed.figures.cpuMs);
		}
	}
	const explain = (job.kind !== 'list' || job.limit === undefined) && spec.id !== '3';
	for (const variant of active().filter((v) => explain && EXPLAINED.includes(v))) {
		const { reply } = (await attempt(variant, 'expressions'))!;
		measurements.get(variant)!.expressions = { tally: reply.expressions!, ms: reply.ms };
	}
	return [...measurements.values()];
}

async function startWorkers(variants: VariantId[], distCopy: string, leftOut: Map<VariantId, string>): Promise<Map<VariantId, Worker>> {
	const workers = new Map(variants.filter((variant) => !leftOut.has(variant)).map((variant) => [variant, new Worker(variant, distCopy)] as const));
	await Promise.all(
		[...workers].map(async ([variant, worker]) => {
			const ready = await worker.next();
			if (ready.type === 'ready') return;
			const reason = `the client process did not start (${ready.type === 'failed' ? ready.message : ''})`;
			if (!OPTIONAL.includes(variant)) throw new Error(`${VARIANT_LABELS[variant]}: ${reason}`);
			leftOut.set(variant, reason);
		}),
	);
	return workers;
}

/**
 * The item jobs open a thousand connections at once (the server closes each after its answer).
 * Node's default listen backlog, 511, would overflow: the kernel drops the connections beyond it
 * and their clients retry a second later, which would measure TCP, not the clients. The bundled
 * server is started with the system's largest backlog instead.
 */
const LISTEN_BACKLOG = 4096;

async function startServer(options: PhpRankServerOptions): Promise<PhpRankServer> {
	const listen = net.Server.prototype.listen;
	type Listen = (this: net.Server, ...args: unknown[]) => net.Server;
	(net.Server.prototype as unknown as { listen: Listen }).listen = function (this: net.Server, ...args: unknown[]) {
		const [port, host, callback] = args;
		if (args.length === 3 && typeof port === 'number' && typeof host === 'string' && typeof callback === 'function') {
			return (listen as Listen).call(this, port, host, LISTEN_BACKLOG, callback);
		}
		return (listen as Listen).apply(this, args);
	};
	try {
		return await startPhpRankServer({ ...options, latencyMs: LATENCY_MS, rateLimit: false });
	} finally {
		net.Server.prototype.listen = listen;
	}
}

/** The kernel's count of connections dropped because a listen queue was full (all processes). */
function listenOverflows(): number | undefined {
	try {
		const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
		const header = lines.find((line) => line.startsWith('TcpExt:') && line.includes('ListenOverflows'));
		const values = lines.find((line) => line.startsWith('TcpExt:') && line !== header);
		if (!header || !values) return undefined;
		return Number(values.split(/\s+/)[header.split(/\s+/).indexOf('ListenOverflows')]);
	} catch {
		return undefined;
	}
}

/**
 * Full runs: fresh processes for every case, one per client, so that every case's memory is a
 * fresh process's. Short runs: one process per client for all cases, to keep process start-ups
 * (about 2 s each with n8n loaded) out of the minute; their memory figures are indicative only.
 */
async function runAll(
	cases: CaseSpec[],
	settings: Settings,
	distCopy: string,
	leftOut: Map<VariantId, string>,
	log: (line: string) => void,
): Promise<Measurement[]> {
	const started = Date.now();
	const servers = new Map<string, PhpRankServer>();
	const results: Measurement[] = [];
	let shared: Map<VariantId, Worker> | undefined;
	const closeAll = async (workers?: Map<VariantId, Worker>) => {
		for (const worker of workers?.values() ?? []) await worker.close();
	};
	try {
		for (const spec of cases) servers.set(spec.id, await startServer(spec.server));
		const variantsOf = (specs: CaseSpec[]) => [...new Set(specs.flatMap((spec) => spec.jobs.flatMap((entry) => entry.variants)))];
		if (settings.short) shared = await startWorkers(variantsOf(cases), distCopy, leftOut);
		for (const spec of cases) {
			const own = shared ? undefined : await startWorkers(variantsOf([spec]), distCopy, leftOut);
			try {
				for (const { job, variants } of spec.jobs) {
					const pool = (shared ?? own)!;
					const workers = new Map(variants.filter((variant) => pool.has(variant)).map((variant) => [variant, pool.get(variant)!] as const));
					for (const m of await measureJob(spec, servers.get(spec.id)!, job, workers, settings, leftOut)) {
						results.push(m);
						log(
							`  ${`${spec.id} ${describeJob(job)}`.padEnd(44)} ${VARIANT_LABELS[m.variant].padEnd(26)} ` +
								`${formatMs(median(m.timedMs)).padStart(8)} ms   (${((Date.now() - started) / 1000).toFixed(0)} s)`,
						);
					}
				}
			} finally {
				await closeAll(own);
			}
		}
	} finally {
		await closeAll(shared);
		for (const server of servers.values()) await server.close();
	}
	return results;
}

// ---------------------------------------------------------------------------------------------
// Case 5: loading the node.

interface LoadFigures {
	/** require() of the node in a fresh process, n8n-workflow included. */
	coldMs: number;
	/** require() of the node when n8n-workflow is already loaded, as in n8n. */
	nodeMs: number;
	descriptionBytes: number;
}

const LOAD_SCRIPT = `
const { performance } = require('node:perf_hooks');
const [file, exportName, versioned] = process.argv.slice(1);
let started = performance.now();
if (process.env.BENCH_PRELOAD === '1') { require('n8n-workflow'); started = performance.now(); }
const type = new (require(file)[exportName])();
const ms = performance.now() - started;
const description = versioned === 'versioned' ? type.nodeVersions[type.description.defaultVersion].description : type.description;
process.stdout.write(JSON.stringify({ ms, bytes: Buffer.byteLength(JSON.stringify(description)) }));
`;

function loadOnce(file: string, exportName: string, versioned: boolean, preload: boolean): { ms: number; bytes: number } {
	const output = execFileSync(process.execPath, ['-e', LOAD_SCRIPT, file, exportName, versioned ? 'versioned' : 'plain'], {
		cwd: REPOSITORY_ROOT,
		env: { ...process.env, BENCH_PRELOAD: preload ? '1' : '0', NODE_PATH: path.join(REPOSITORY_ROOT, 'node_modules') },
		encoding: 'utf8',
	});
	return JSON.parse(output) as { ms: number; bytes: number };
}

function measureLoading(file: string, exportName: string, versioned: boolean, runs: number): LoadFigures {
	const cold: number[] = [];
	const warm: number[] = [];
	let bytes = 0;
	for (let run = 0; run < runs; run++) {
		cold.push(loadOnce(file, exportName, versioned, false).ms);
		const figures = loadOnce(file, exportName, versioned, true);
		warm.push(figures.ms);
		bytes = figures.bytes;
	}
	return { coldMs: median(cold), nodeMs: median(warm), descriptionBytes: bytes };
}

// ---------------------------------------------------------------------------------------------
// Figures, goals and tables.

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function formatMs(ms: number): string {
	return ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const jobRss = (m: Measurement) => Math.max(0, m.peakRss - m.baseRss);
const times = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a');

function sameOrRange(values: number[]): string {
	const low = Math.min(...values);
	const high = Math.max(...values);
	return low === high ? String(low) : `${low}-${high}`;
}

function jobKey(job: Job): string {
	return JSON.stringify(job);
}

function find(results: Measurement[], job: Job, variant: VariantId): Measurement | undefined {
	return results.find((m) => m.variant === variant && jobKey(m.job) === jobKey(job));
}

function mainTable(results: Measurement[]): string[] {
	const header = [
		'Case',
		'Client',
		'Requests',
		'Fewest',
		'Records fetched',
		'Fewest',
		'Time ms, median (min-max)',
		'× undici',
		'Client CPU ms (× undici)',
		'Job RSS MB (× undici)',
		'Peak RSS MB',
	];
	const lines = [`| ${header.join(' | ')} |`, `|${header.map((_, index) => (index < 2 ? '---' : '---:')).join('|')}|`];
	for (const m of results) {
		const baseline = find(results, m.job, 'undici');
		const time = median(m.timedMs);
		lines.push(
			`| ${m.caseId} ${describeJob(m.job)} | ${VARIANT_LABELS[m.variant]} | ${sameOrRange(m.runs.map((run) => run.requests))} | ${m.fewest.requests} | ` +
				`${sameOrRange(m.runs.map((run) => run.records))} | ${m.fewest.records} | ` +
				`${formatMs(time)} (${formatMs(Math.min(...m.timedMs))}-${formatMs(Math.max(...m.timedMs))}) | ` +
				`${baseline ? times(time, median(baseline.timedMs)) : ''} | ` +
				`${formatMs(median(m.timedCpuMs))}${baseline ? ` (${times(median(m.timedCpuMs), median(baseline.timedCpuMs))})` : ''} | ` +
				`${mb(jobRss(m))}${baseline ? ` (${times(jobRss(m), jobRss(baseline))})` : ''} | ${mb(m.peakRss)} |`,
		);
	}
	return lines;
}

interface Verdict {
	goal: string;
	met: boolean;
	detail: string;
}

function verdicts(results: Measurement[], job: Job): Verdict[] {
	const node = find(results, job, 'phpRank');
	const raw = find(results, job, 'undici');
	const http = find(results, job, 'httpRequest');
	if (!node || !raw) return [];
	const requests = Math.max(...node.runs.map((run) => run.requests));
	const time = median(node.timedMs);
	const rawTime = median(raw.timedMs);
	const memory = jobRss(node);
	const rawMemory = jobRss(raw);
	const list: Verdict[] = [
		{ goal: 'requests = fewest possible', met: requests === node.fewest.requests, detail: `${requests} vs ${node.fewest.requests} (${node.fewest.how})` },
	];
	if (job.kind === 'list') {
		const records = Math.max(...node.runs.map((run) => run.records));
		list.push({ goal: 'records fetched = fewest possible', met: records === node.fewest.records, detail: `${records} vs ${node.fewest.records}` });
	}
	list.push(
		{
			goal: `time ≤ ${GOALS.timeRatio}× undici`,
			met: time <= GOALS.timeRatio * rawTime,
			detail: `${formatMs(time)} vs ${formatMs(rawTime)} ms, ${times(time, rawTime)}; client CPU ${formatMs(median(node.timedCpuMs))} vs ${formatMs(median(raw.timedCpuMs))} ms`,
		},
		{
			goal: `job memory ≤ ${GOALS.memoryRatio}× undici`,
			met: memory <= Math.max(GOALS.memoryRatio * rawMemory, rawMemory + MEMORY_NOISE_FLOOR),
			detail:
				`${mb(memory)} vs ${mb(rawMemory)} MB, ${times(memory, rawMemory)}` +
				(memory > GOALS.memoryRatio * rawMemory && memory <= rawMemory + MEMORY_NOISE_FLOOR ? ` (within ${mb(MEMORY_NOISE_FLOOR)} MB: below what RSS tells apart)` : '') +
				`; whole process ${mb(node.peakRss)} vs ${mb(raw.peakRss)} MB, ${times(node.peakRss, raw.peakRss)}`,
		},
	);
	if (http) {
		const httpRequests = Math.max(...http.runs.map((run) => run.requests));
		const httpTime = median(http.timedMs);
		const equal = (a: number, b: number, fewest: number) => (a !== b ? '' : a === fewest ? ' (equal: both at the fewest possible)' : ' (equal)');
		list.push(
			{ goal: 'fewer requests than HTTP Request', met: requests < httpRequests, detail: `${requests} vs ${httpRequests}${equal(requests, httpRequests, node.fewest.requests)}` },
			{ goal: 'less time than HTTP Request', met: time < httpTime, detail: `${formatMs(time)} vs ${formatMs(httpTime)} ms, ${times(time, httpTime)}` },
		);
	}
	return list;
}

function expressionLines(results: Measurement[]): string[] {
	const explained = results.filter((m) => m.expressions);
	if (explained.length === 0) return [];
	const lines = [
		'| Case | Client | Evaluations | Per item (page) | Who asked | Time in evaluations | Share of that run |',
		'|---|---|---:|---:|---|---:|---:|',
	];
	for (const m of explained) {
		const { tally, ms } = m.expressions!;
		const units = m.job.kind === 'list' ? Math.max(1, Math.max(...m.runs.map((run) => run.requests))) : m.job.items;
		const who = Object.entries(tally.bySource)
			.sort((a, b) => b[1] - a[1])
			.map(([source, count]) => `${source} ${(count / units).toFixed(count % units ? 2 : 0)}`)
			.join('; ');
		lines.push(
			`| ${m.caseId} ${describeJob(m.job)} | ${VARIANT_LABELS[m.variant]} | ${tally.evaluations} | ${(tally.evaluations / units).toFixed(1)} | ${who} | ` +
				`${formatMs(tally.ms)} ms (${(tally.ms / tally.evaluations).toFixed(2)} ms each) | ${((100 * tally.ms) / ms).toFixed(0)} % of ${formatMs(ms)} ms |`,
		);
	}
	return lines;
}

function machine(): string[] {
	const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
	const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
	let nproc = String(os.availableParallelism());
	try {
		nproc = execFileSync('nproc', { encoding: 'utf8' }).trim();
	} catch {
		// nproc is not everywhere; Node's count stands in.
	}
	const version = (name: string) => (JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string }).version;
	return [
		`Machine: ${nproc} CPUs (nproc), ${model}, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB memory, ${os.platform()} ${os.release()}`,
		`Node ${process.version}; n8n-core ${version('n8n-core')}, n8n-workflow ${version('n8n-workflow')}, n8n-nodes-base ${version('n8n-nodes-base')}, undici ${version('undici')}`,
	];
}

const loadAverage = () => os.loadavg().map((load) => load.toFixed(2)).join(', ');

/** Builds dist/ if it is missing, and copies it: a rebuild in the tree during the run cannot touch what is measured. */
function snapshotBuild(log: (line: string) => void): string {
	const dist = builtPackage(path.join(REPOSITORY_ROOT, 'dist'));
	if (!existsSync(dist.node)) {
		log('dist/ is missing: npm run build');
		const build = spawnSync('npm', ['run', 'build'], { cwd: REPOSITORY_ROOT, stdio: 'inherit' });
		if (build.status !== 0) throw new Error('npm run build failed');
	} else {
		const built = Math.floor(statSync(dist.node).mtimeMs / 1000);
		const newer = execFileSync('find', ['nodes', 'credentials', '-name', '*.ts', '-newermt', `@${built}`], { cwd: REPOSITORY_ROOT, encoding: 'utf8' }).trim();
		if (newer) log(`Note: sources changed after dist/ was built (${newer.split('\n')[0]}…); npm run build to measure them.`);
	}
	const copy = mkdtempSync(path.join(os.tmpdir(), 'phprank-bench-'));
	process.once('exit', () => rmSync(copy, { recursive: true, force: true }));
	cpSync(dist.directory, copy, { recursive: true });
	return copy;
}

async function main(): Promise<void> {
	const settings = settingsFromArguments(process.argv.slice(2));
	const log = (line: string) => console.log(line);
	const started = Date.now();
	const distCopy = snapshotBuild(log);
	log(`phpRank node benchmarks${settings.short ? ' (short run)' : ''}: bundled phpRank-compatible server, rate limit off, ${LATENCY_MS} ms latency per request`);
	for (const line of machine()) log(line);
	log(`Load average at the start: ${loadAverage()}`);
	log(`Command: npm run bench${settings.short ? ' -- --short' : ''}`);
	log('Baseline: undici with pages of 100 for Return All, the smallest page holding the limit, every item at once for the item jobs.');
	log(`HTTP Request node: n8n-nodes-base from the dev dependencies, set up as n8n's docs show (Header Auth, Accept, pagination by {{ $pageCount + 1 }}).`);
	const installed = installedNodesBase();
	log(
		settings.short
			? 'Real n8n installation: not used by the short run (nor the HTTP Request meta check, the fewest-records client, the known rate limit).'
			: installed.directory
				? `Real n8n installation: ${installed.reason}; its HTTP Request node is measured as well.`
				: `Real n8n installation: HTTP Request comparison with it skipped, ${installed.reason}.`,
	);
	log(
		`Each client runs in ${settings.short ? 'one process for all cases (memory figures indicative only)' : 'a fresh process per case'}; ` +
			`per job: a priming run, a measured run (memory), ${settings.timedRuns} timed runs.`,
	);
	log('');

	const cases = plan(settings);
	for (const spec of cases) log(`${spec.id}. ${spec.title}`);
	log('');
	const overflowsBefore = listenOverflows();
	const leftOut = new Map<VariantId, string>();
	const results = await runAll(cases, settings, distCopy, leftOut, log);
	const overflowsAfter = listenOverflows();

	const loadRuns = settings.short ? 2 : 5;
	const nodeLoad = measureLoading(builtPackage(distCopy).node, 'PhpRank', false, loadRuns);
	const httpFile = path.join(path.dirname(require.resolve('n8n-nodes-base/package.json')), 'dist/nodes/HttpRequest/HttpRequest.node.js');
	const httpLoad = measureLoading(httpFile, 'HttpRequest', true, loadRuns);

	log('');
	for (const line of mainTable(results)) log(line);
	log('');
	log(`5. Loading the node: median of ${loadRuns} fresh processes each (plain node, no TypeScript loader)`);
	log('');
	log('| Node | require() in a fresh process, ms | require() with n8n-workflow loaded, ms | Description, JSON bytes |');
	log('|---|---:|---:|---:|');
	log(`| phpRank (dist/nodes/PhpRank/PhpRank.node.js) | ${formatMs(nodeLoad.coldMs)} | ${formatMs(nodeLoad.nodeMs)} | ${nodeLoad.descriptionBytes} |`);
	log(`| HTTP Request, default version (n8n-nodes-base), for reference | ${formatMs(httpLoad.coldMs)} | ${formatMs(httpLoad.nodeMs)} | ${httpLoad.descriptionBytes} |`);
	log('');
	log('Where the n8n clients spend their time: n8n expression evaluations in one extra run, counted and timed');
	log('');
	for (const line of expressionLines(results)) log(line);
	log('');
	log('Goals (the phpRank node; time and memory against undici, requests and time against the HTTP Request node):');
	const seen = new Set<string>();
	for (const m of results) {
		if (seen.has(jobKey(m.job))) continue;
		seen.add(jobKey(m.job));
		log(`- ${m.caseId} ${describeJob(m.job)}`);
		for (const verdict of verdicts(results, m.job)) log(`    ${verdict.met ? 'met   ' : 'MISSED'}  ${verdict.goal}: ${verdict.detail}`);
		const fewest = find(results, m.job, 'undiciFewest');
		if (fewest && m.job.kind === 'list') {
			const raw = find(results, m.job, 'undici')!;
			log(
				`    note    the fewest records take mixed page sizes (${m.fewest.how}): undici so ${formatMs(median(fewest.timedMs))} ms, ` +
					`with one page size (${describeWindows(onePageSizeWindows(m.job.limit ?? m.job.total, m.job.total))}) ${formatMs(median(raw.timedMs))} ms`,
			);
		}
		const known = find(results, m.job, 'phpRankKnownLimit');
		if (known) {
			const node = find(results, m.job, 'phpRank')!;
			log(`    note    the lone first request (rate limit not yet known): ${formatMs(median(node.timedMs))} ms, limit already known: ${formatMs(median(known.timedMs))} ms`);
		}
	}
	for (const [variant, reason] of leftOut) log(`Note: ${VARIANT_LABELS[variant]} was left out after an error: ${reason}`);
	const failed = results.filter((m) => m.runs.some((run) => run.failedRequests > 0));
	for (const m of failed) log(`Note: ${VARIANT_LABELS[m.variant]}, ${describeJob(m.job)}: the server answered some requests with an error`);
	if (overflowsBefore !== undefined && overflowsAfter !== undefined) {
		log(`Connections dropped by full listen queues on this machine during the runs (all processes): ${overflowsAfter - overflowsBefore}`);
	}
	log('');
	log(`Load average at the end: ${loadAverage()}; ${((Date.now() - started) / 1000).toFixed(0)} s in all.`);

	if (settings.jsonFile) {
		writeFileSync(settings.jsonFile, JSON.stringify({ settings, results, load: { phpRank: nodeLoad, httpRequest: httpLoad } }, null, 2));
		log(`Figures written to ${settings.jsonFile}`);
	}
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);

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
 *   npm run bench -- --cases 4a,4b       only these cases (5, loading the node, is always measured)
 *   npm run bench -- --cases 6           only the slow phpRank behind a proxy (bench/slowServer.ts)
 *
 * The server runs in this process and counts the requests and records of every run; each client
 * runs in a process of its own (bench/worker.ts), so that its memory is its own. Benchmarks are
 * not tests: a missed goal is printed, never turned into an exit code. Only a crash, or a client
 * that did not do the whole job, fails the run.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

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
import { LATENCY_MS, listenOverflows, loadAverage, machine, median, runScript, snapshotBuild, startServer, Worker } from './processes';
import type { Phase, Reply } from './worker';
import { measureSlowServer, slowServerTable, slowServerTitle, slowServerVerdicts } from './slowServer';

const SLOW_SERVER_CASE = '6';

/**
 * What the node should reach. Lists: time within 1.2× and job memory within 1.5× of raw undici,
 * fewer requests and less time than the HTTP Request node. The item jobs, where every n8n client is
 * bound by n8n's work per item: time at most the HTTP Request node's or, where the declarative
 * engine's own floor (bench/floor) is above that, within 1.1× of the floor; job memory at most 1.3×
 * the HTTP Request node's.
 */
const GOALS = { timeRatio: 1.2, memoryRatio: 1.5, floorRatio: 1.1, itemMemoryRatioToHttp: 1.3 };
/**
 * Below this, two processes' RSS growth cannot be told apart: V8 commits heap in steps of
 * megabytes, so a job that allocates little shows 0 MB or a step, whoever runs it.
 */
const MEMORY_NOISE_FLOOR = 5 * 1024 * 1024;

interface Settings {
	short: boolean;
	timedRuns: number;
	/** Fresh client processes per case that asks for rounds: each gives one memory figure. */
	rounds: number;
	/** Case ids to run; all when not given. */
	cases?: string[];
	jsonFile?: string;
}

function settingsFromArguments(argv: string[]): Settings {
	const short = argv.includes('--short') || ['1', 'true'].includes(process.env.BENCH_SHORT ?? '');
	const json = argv.indexOf('--json');
	const cases = argv.indexOf('--cases');
	return {
		short,
		timedRuns: short ? 3 : 6,
		rounds: short ? 1 : 3,
		cases: cases >= 0 ? argv[cases + 1]?.split(',').map((id) => id.trim()) : undefined,
		jsonFile: json >= 0 ? argv[json + 1] : undefined,
	};
}

interface CaseSpec {
	id: string;
	title: string;
	server: PhpRankServerOptions;
	/** Wipe the server before every run (creates would otherwise pile up). */
	resetEachRun?: boolean;
	/**
	 * Measure in several rounds of fresh processes (full runs), the timed runs spread over them: a
	 * process's memory can be measured once only (V8 keeps what it took), so this repeats it.
	 */
	inRounds?: boolean;
	jobs: Array<{ job: Job; variants: VariantId[] }>;
}

/** Clients that depend on something outside this repository: when they fail, they are left out, not the run. */
const OPTIONAL: VariantId[] = ['httpRequestInstalled'];

/** Clients whose n8n expression evaluations are counted in one extra run, to show where their time goes. */
const EXPLAINED: VariantId[] = ['phpRank', 'floor', 'httpRequest'];

function plan(settings: Settings): CaseSpec[] {
	const reports = settings.short ? 1_000 : 10_000;
	const projects = settings.short ? 300 : 1_000;
	const items = settings.short ? 100 : 1_000;
	// Short runs leave out the installed n8n's HTTP Request node, the meta check, the fewest-records client
	// and the known rate limit: references for the full run.
	const full = (variants: VariantId[]) => (settings.short ? [] : variants);
	const installed = full(installedNodesBase().directory ? ['httpRequestInstalled'] : []);
	const listVariants: VariantId[] = ['phpRank', 'undici', 'httpRequest', ...full(['httpRequestMeta']), ...installed];
	// The floor: the least a declarative node makes n8n do for the same request per item. The node with only
	// its shown properties and the floor with the node's hidden ones: what the engine spends on declared properties.
	const declaredProperties: VariantId[] = ['phpRankShownOnly', 'floorPadded'];
	const itemVariants: VariantId[] = ['phpRank', ...declaredProperties, 'floor', 'undici', 'httpRequest', ...installed];
	// What the lone first request costs while the node has not learnt the server's rate limit.
	const getVariants: VariantId[] = ['phpRank', ...full(['phpRankKnownLimit']), ...declaredProperties, 'floor', 'undici', 'httpRequest', ...installed];
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
			inRounds: true,
			jobs: [{ job: { kind: 'create', items }, variants: itemVariants }],
		},
		{
			id: '4b',
			title: `${items} items each getting a report`,
			server: { seedReports: items },
			inRounds: true,
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
	/** The measured (memory) runs and the timed runs. */
	runs: RunFigures[];
	/**
	 * The timed runs in order. Run n of every client of a job ran before run n + 1 of any, so the
	 * clients' runs with the same index saw the same load: ratios are taken run by run.
	 */
	timedMs: number[];
	timedCpuMs: number[];
	/** One measured run per fresh process (round): the primed, collected RSS and the peak during the run. */
	memory: Array<{ baseRss: number; peakRss: number }>;
	/** The median round's figures (also in `memory`), as bench/compare.ts reads them. */
	baseRss: number;
	peakRss: number;
	maxRss: number;
	expressions?: { tally: ExpressionTally; ms: number };
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
 * One job by all its clients, in one set of processes. Memory first, each client on its own; then the
 * timed runs interleaved, run n of every client before run n + 1 of any, so that a change in the
 * machine's load (other processes) falls on all clients alike instead of on whichever ran then.
 * Figures add to `measurements` (one per client), so that rounds in fresh processes accumulate.
 */
async function measureJob(
	spec: CaseSpec,
	server: PhpRankServer,
	job: Job,
	workers: Map<VariantId, Worker>,
	runs: { timed: number; explain: boolean },
	leftOut: Map<VariantId, string>,
	measurements: Map<VariantId, Measurement>,
): Promise<void> {
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
		const rss = { baseRss: memory.reply.baseRss ?? 0, peakRss: memory.reply.peakRss ?? 0 };
		const measurement = measurements.get(variant) ?? {
			caseId: spec.id,
			job,
			variant,
			fewest: fewestPossible(job),
			output: memory.reply.output,
			runs: [],
			timedMs: [],
			timedCpuMs: [],
			memory: [],
			...rss,
			maxRss: 0,
		};
		measurement.runs.push(memory.figures);
		measurement.memory.push(rss);
		const byJob = [...measurement.memory].sort((a, b) => a.peakRss - a.baseRss - (b.peakRss - b.baseRss));
		Object.assign(measurement, byJob[Math.floor((byJob.length - 1) / 2)]);
		measurement.maxRss = Math.max(measurement.maxRss, memory.reply.maxRss);
		measurements.set(variant, measurement);
	}
	for (let run = 0; run < runs.timed; run++) {
		for (const variant of active()) {
			const timed = await attempt(variant, 'timed');
			const measurement = measurements.get(variant);
			if (!timed || !measurement) continue;
			measurement.runs.push(timed.figures);
			measurement.timedMs.push(timed.figures.ms);
			measurement.timedCpuMs.push(timed.figures.cpuMs);
		}
	}
	if (!runs.explain) return;
	for (const variant of active().filter((v) => EXPLAINED.includes(v))) {
		const { reply } = (await attempt(variant, 'expressions'))!;
		measurements.get(variant)!.expressions = { tally: reply.expressions!, ms: reply.ms };
	}
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
			const rounds = shared || !spec.inRounds ? 1 : settings.rounds;
			const byJob = new Map(spec.jobs.map(({ job }) => [job, new Map<VariantId, Measurement>()] as const));
			for (let round = 0; round < rounds; round++) {
				const own = shared ? undefined : await startWorkers(variantsOf([spec]), distCopy, leftOut);
				try {
					for (const { job, variants } of spec.jobs) {
						const pool = (shared ?? own)!;
						const workers = new Map(variants.filter((variant) => pool.has(variant)).map((variant) => [variant, pool.get(variant)!] as const));
						// Expressions are counted once, in the last round, where the item jobs and Return All show where the time goes.
						const explain = round === rounds - 1 && (job.kind !== 'list' || job.limit === undefined) && spec.id !== '3';
						const timed = Math.ceil(settings.timedRuns / rounds);
						await measureJob(spec, servers.get(spec.id)!, job, workers, { timed, explain }, leftOut, byJob.get(job)!);
					}
				} finally {
					await closeAll(own);
				}
			}
			for (const [job, measurements] of byJob) {
				for (const m of measurements.values()) {
					results.push(m);
					log(
						`  ${`${spec.id} ${describeJob(job)}`.padEnd(44)} ${VARIANT_LABELS[m.variant].padEnd(26)} ` +
							`${formatMs(median(m.timedMs)).padStart(8)} ms   (${((Date.now() - started) / 1000).toFixed(0)} s)`,
					);
				}
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
	/** Left out for a figure shown beside the goals. */
	met?: boolean;
	detail: string;
}

/** Ratios of two clients' figures taken pairwise (same index: measured back to back, or in the same round). */
interface Ratio {
	median: number;
	min: number;
	max: number;
}

function pairwise(a: number[], b: number[]): Ratio | undefined {
	const ratios = a.slice(0, b.length).flatMap((value, index) => (b[index] > 0 ? [value / b[index]] : []));
	if (ratios.length === 0) return undefined;
	return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

const roundRss = (m: Measurement) => m.memory.map(({ baseRss, peakRss }) => Math.max(0, peakRss - baseRss));

function ratios(m: Measurement, reference: Measurement | undefined) {
	if (!reference || reference === m) return undefined;
	return {
		time: pairwise(m.timedMs, reference.timedMs),
		cpu: pairwise(m.timedCpuMs, reference.timedCpuMs),
		memory: pairwise(roundRss(m), roundRss(reference)),
	};
}

function formatRatio(ratio: Ratio | undefined, missing = 'n/a'): string {
	if (!ratio) return missing;
	return ratio.min === ratio.max ? `${ratio.median.toFixed(2)}×` : `${ratio.median.toFixed(2)}× (${ratio.min.toFixed(2)}-${ratio.max.toFixed(2)})`;
}

/** The jobs the goals compare clients on run by run: Return All over the reports and the item jobs. */
const comparedRunByRun = (job: Job) => job.kind !== 'list' || (job.resource === 'reports' && job.limit === undefined);

function ratioTable(results: Measurement[]): string[] {
	const references: VariantId[] = ['floor', 'httpRequest', 'undici'];
	const header = ['Case', 'Client', ...['Time', 'Client CPU', 'Job RSS'].flatMap((what) => references.map((ref) => `${what} × ${VARIANT_LABELS[ref]}`))];
	const lines = [`| ${header.join(' | ')} |`, `|${header.map((_, index) => (index < 2 ? '---' : '---:')).join('|')}|`];
	for (const m of results.filter((result) => comparedRunByRun(result.job))) {
		if (references.includes(m.variant)) continue;
		const against = references.map((ref) => ratios(m, find(results, m.job, ref)));
		lines.push(
			`| ${m.caseId} ${describeJob(m.job)} | ${VARIANT_LABELS[m.variant]} | ` +
				`${(['time', 'cpu', 'memory'] as const).flatMap((what) => against.map((r) => (r ? formatRatio(r[what]) : ''))).join(' | ')} |`,
		);
	}
	return lines;
}

function verdicts(results: Measurement[], job: Job): Verdict[] {
	const node = find(results, job, 'phpRank');
	const raw = find(results, job, 'undici');
	const http = find(results, job, 'httpRequest');
	const floor = find(results, job, 'floor');
	if (!node || !raw) return [];
	const requests = Math.max(...node.runs.map((run) => run.requests));
	const time = median(node.timedMs);
	const rawTime = median(raw.timedMs);
	const memory = jobRss(node);
	const rawMemory = jobRss(raw);
	const cpu = (m: Measurement) => `client CPU ${formatRatio(pairwise(node.timedCpuMs, m.timedCpuMs))}`;
	const list: Verdict[] = [
		{ goal: 'requests = fewest possible', met: requests === node.fewest.requests, detail: `${requests} vs ${node.fewest.requests} (${node.fewest.how})` },
	];
	if (job.kind === 'list') {
		const records = Math.max(...node.runs.map((run) => run.records));
		list.push({ goal: 'records fetched = fewest possible', met: records === node.fewest.records, detail: `${records} vs ${node.fewest.records}` });
	}
	if (job.kind !== 'list' && http && floor) {
		// The item jobs: against n8n's own clients, as raw undici is out of reach of any n8n node.
		const toHttp = pairwise(node.timedMs, http.timedMs)!;
		const toFloor = pairwise(node.timedMs, floor.timedMs)!;
		const floorToHttp = pairwise(floor.timedMs, http.timedMs)!;
		const floorAbove = floorToHttp.median > 1;
		const memoryToHttp = pairwise(roundRss(node), roundRss(http));
		list.push(
			{
				goal: `time ≤ HTTP Request node's, or ≤ ${GOALS.floorRatio}× the floor where the floor is above it`,
				met: toHttp.median <= 1 || (floorAbove && toFloor.median <= GOALS.floorRatio),
				detail:
					`${formatMs(time)} ms: ${formatRatio(toHttp)} HTTP Request (${formatMs(median(http.timedMs))} ms; ${cpu(http)}), ` +
					`${formatRatio(toFloor)} the floor (${formatMs(median(floor.timedMs))} ms; ${cpu(floor)}); ` +
					`the floor is ${formatRatio(floorToHttp)} HTTP Request`,
			},
			{
				goal: `job memory ≤ ${GOALS.itemMemoryRatioToHttp}× HTTP Request node's`,
				met: memory <= Math.max(GOALS.itemMemoryRatioToHttp * jobRss(http), jobRss(http) + MEMORY_NOISE_FLOOR),
				detail:
					`${mb(memory)} vs ${mb(jobRss(http))} MB (${node.memory.length === 1 ? 'one memory run each' : `median of ${node.memory.length} fresh processes each`}), ${formatRatio(memoryToHttp)}; ` +
					`the floor ${mb(jobRss(floor))} MB, ${formatRatio(pairwise(roundRss(node), roundRss(floor)))}`,
			},
		);
		const shownOnly = find(results, job, 'phpRankShownOnly');
		const padded = find(results, job, 'floorPadded');
		if (shownOnly && padded) {
			const against = (m: Measurement, reference: Measurement) =>
				`time ${formatRatio(pairwise(m.timedMs, reference.timedMs))}, job memory ${formatRatio(pairwise(roundRss(m), roundRss(reference)))}`;
			list.push({
				goal: 'declared properties n8n does not show for this operation',
				detail:
					`the node against the node with its shown properties only: ${against(node, shownOnly)}; ` +
					`the floor with as many hidden properties against the floor: ${against(padded, floor)}; ` +
					`the node with its shown properties only against HTTP Request: ${against(shownOnly, http)}`,
			});
		}
		list.push({
			goal: 'against raw undici',
			detail: `time ${formatRatio(pairwise(node.timedMs, raw.timedMs))}, ${cpu(raw)}, job memory ${formatRatio(pairwise(roundRss(node), roundRss(raw)))}`,
		});
		return list;
	}
	// Where the goals compare run by run, the verdict reads the median of the run-by-run ratios.
	const timeRatio = comparedRunByRun(job) ? pairwise(node.timedMs, raw.timedMs)!.median : time / rawTime;
	list.push(
		{
			goal: `time ≤ ${GOALS.timeRatio}× undici`,
			met: timeRatio <= GOALS.timeRatio,
			detail:
				`${formatMs(time)} vs ${formatMs(rawTime)} ms, ${comparedRunByRun(job) ? formatRatio(pairwise(node.timedMs, raw.timedMs)) : times(time, rawTime)}; ` +
				`client CPU ${formatMs(median(node.timedCpuMs))} vs ${formatMs(median(raw.timedCpuMs))} ms`,
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

async function main(): Promise<void> {
	const settings = settingsFromArguments(process.argv.slice(2));
	const log = (line: string) => console.log(line);
	const started = Date.now();
	const distCopy = snapshotBuild(log);
	log(`phpRank node benchmarks${settings.short ? ' (short run)' : ''}: bundled phpRank-compatible server, rate limit off, ${LATENCY_MS} ms latency per request`);
	for (const line of machine()) log(line);
	log(`Load average at the start: ${loadAverage()}`);
	log(`Command: npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`);
	log('Baseline: undici with pages of 100 for Return All, the smallest page holding the limit, every item at once for the item jobs.');
	log(`HTTP Request node: n8n-nodes-base from the dev dependencies, set up as n8n's docs show (Header Auth, Accept, pagination by {{ $pageCount + 1 }}).`);
	log('Declarative floor (item jobs): bench/floor, the least a declarative node makes n8n do for the same request per item, with the phpRank credential.');
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
			`per job: a priming run, a measured run (memory), ${settings.timedRuns} timed runs` +
			(settings.short ? '.' : `; the item jobs in ${settings.rounds} rounds of fresh processes (${settings.rounds} memory runs, ${Math.ceil(settings.timedRuns / settings.rounds)} timed runs each).`),
	);
	log('');

	const planned = plan(settings);
	const unknown = settings.cases?.filter((id) => id !== SLOW_SERVER_CASE && !planned.some((spec) => spec.id === id)) ?? [];
	if (unknown.length) throw new Error(`--cases: no case ${unknown.join(', ')} (cases: ${[...planned.map((spec) => spec.id), SLOW_SERVER_CASE].join(', ')})`);
	const cases = planned.filter((spec) => !settings.cases || settings.cases.includes(spec.id));
	const slowServer = !settings.cases || settings.cases.includes(SLOW_SERVER_CASE);
	for (const spec of cases) log(`${spec.id}. ${spec.title}`);
	if (slowServer) log(`${SLOW_SERVER_CASE}. ${slowServerTitle()}`);
	log('');
	const overflowsBefore = listenOverflows();
	const leftOut = new Map<VariantId, string>();
	const results = await runAll(cases, settings, distCopy, leftOut, log);
	const overflowsAfter = listenOverflows();
	// In this process, after the other cases' clients have ended: the node as tests run it, against the server's own pace.
	const slowServerFigures = slowServer ? [await measureSlowServer(2), await measureSlowServer(8)] : [];

	const loadRuns = settings.short ? 2 : 5;
	const nodeLoad = measureLoading(builtPackage(distCopy).node, 'PhpRank', false, loadRuns);
	const httpFile = path.join(path.dirname(require.resolve('n8n-nodes-base/package.json')), 'dist/nodes/HttpRequest/HttpRequest.node.js');
	const httpLoad = measureLoading(httpFile, 'HttpRequest', true, loadRuns);

	log('');
	for (const line of mainTable(results)) log(line);
	log('');
	log('Ratios, run by run: median (min-max) of the ratios of runs with the same index (time, CPU) or of the same round (job RSS)');
	log('');
	for (const line of ratioTable(results)) log(line);
	log('');
	log(`5. Loading the node: median of ${loadRuns} fresh processes each (plain node, no TypeScript loader)`);
	log('');
	log('| Node | require() in a fresh process, ms | require() with n8n-workflow loaded, ms | Description, JSON bytes |');
	log('|---|---:|---:|---:|');
	log(`| phpRank (dist/nodes/PhpRank/PhpRank.node.js) | ${formatMs(nodeLoad.coldMs)} | ${formatMs(nodeLoad.nodeMs)} | ${nodeLoad.descriptionBytes} |`);
	log(`| HTTP Request, default version (n8n-nodes-base), for reference | ${formatMs(httpLoad.coldMs)} | ${formatMs(httpLoad.nodeMs)} | ${httpLoad.descriptionBytes} |`);
	log('');
	if (slowServer) {
		log(`${SLOW_SERVER_CASE}. ${slowServerTitle()}: one run each, the node from source in this process`);
		log('');
		for (const line of slowServerTable(slowServerFigures)) log(line);
		log('');
	}
	log('Where the n8n clients spend their time: n8n expression evaluations in one extra run, counted and timed');
	log('');
	for (const line of expressionLines(results)) log(line);
	log('');
	log(
		'Goals (the phpRank node): lists, time and memory against undici, requests and time against the HTTP Request node; ' +
			'the item jobs, time against the HTTP Request node or the declarative floor and memory against the HTTP Request node. ' +
			'Ratios taken run by run (runs of the same index ran back to back; memory: round by round, fresh processes): median (min-max).',
	);
	const seen = new Set<string>();
	for (const m of results) {
		if (seen.has(jobKey(m.job))) continue;
		seen.add(jobKey(m.job));
		log(`- ${m.caseId} ${describeJob(m.job)}`);
		for (const verdict of verdicts(results, m.job)) {
			log(`    ${verdict.met === undefined ? 'note  ' : verdict.met ? 'met   ' : 'MISSED'}  ${verdict.goal}: ${verdict.detail}`);
		}
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
	if (slowServer) {
		log(`- ${SLOW_SERVER_CASE} slow phpRank behind a proxy`);
		for (const line of slowServerVerdicts(slowServerFigures)) log(line);
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
		writeFileSync(settings.jsonFile, JSON.stringify({ settings, results, load: { phpRank: nodeLoad, httpRequest: httpLoad }, slowServer: slowServerFigures }, null, 2));
		log(`Figures written to ${settings.jsonFile}`);
	}
}

runScript(main);

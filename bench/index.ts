/**
 * `npm run bench`: the phpRank node against the fewest requests each job allows, raw undici and n8n's HTTP Request
 * node (options, cases and goals: BENCHMARKS.md). The server runs in this process and counts the requests and
 * records of every run; each client runs in a process of its own (bench/worker.ts), so that its memory is its own.
 * A missed goal is printed, never turned into an exit code: only a crash, or a client that did not do the whole
 * job, fails the run.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { REPOSITORY_ROOT } from '../dev/n8n/util';
import type { PhpRankServer, PhpRankServerOptions, RecordedRequest } from '../dev/server';
import { reportListQuery } from '../dev/server/listQuery';
import type { ExpressionTally } from './clients/expressions';
import type { Fewest, Job, VariantId } from './plan';
import {
	builtPackage,
	describeJob,
	describeWindows,
	fewestPossible,
	onePageSizeWindows,
	primingJob,
	recordsOnPage,
	VARIANT_LABELS,
} from './plan';
import type { Worker } from './processes';
import {
	closeWorkers,
	describeRun,
	LATENCY_MS,
	listenOverflows,
	loadAverage,
	log,
	markdownTable,
	median,
	runScript,
	snapshotBuild,
	startServer,
	startWorkers,
} from './processes';
import { measureOneSite, oneSiteTable, oneSiteTitle, oneSiteVerdicts } from './oneSite';
import { measureSlowServer, slowServerTable, SLOW_SERVER_TITLE, slowServerVerdicts } from './slowServer';
import type { Done, Phase } from './worker';

const SLOW_SERVER_CASE = '6';
const ONE_SITE_CASE = '7';

/** What the node should reach (BENCHMARKS.md, Goals). */
const GOALS = { timeRatio: 1.2, memoryRatio: 1.5, floorRatio: 1.1, itemMemoryRatioToHttp: 1.3 };
/**
 * Below this, two processes' RSS growth cannot be told apart: V8 commits heap in steps of
 * megabytes, so a job that allocates little shows 0 MB or a step, whoever runs it.
 */
const MEMORY_NOISE_FLOOR = 5 * 1024 * 1024;

/** Clients whose n8n expression evaluations are counted in one extra run, to show where their time goes. */
const EXPLAINED: VariantId[] = ['phpRank', 'floor', 'httpRequest'];

function settingsFromArguments() {
	const { values } = parseArgs({
		options: { short: { type: 'boolean', default: false }, json: { type: 'string' }, cases: { type: 'string' } },
	});
	const { short } = values;
	return {
		short,
		timedRuns: short ? 3 : 6,
		/** Fresh client processes per case that asks for rounds: each gives one memory figure. */
		rounds: short ? 1 : 3,
		/** Case ids to run; all when not given. */
		cases: values.cases?.split(',').map((id) => id.trim()),
		jsonFile: values.json,
	};
}

type Settings = ReturnType<typeof settingsFromArguments>;

type CaseSpec = { id: string; title: string; server: PhpRankServerOptions; jobs: Array<{ job: Job; variants: VariantId[] }> };

function plan(settings: Settings): CaseSpec[] {
	const reports = settings.short ? 1_000 : 10_000;
	const projects = settings.short ? 300 : 1_000;
	const items = settings.short ? 100 : 1_000;
	// References for the full run only (main() names them for the short run).
	const full = (variants: VariantId[]) => (settings.short ? [] : variants);
	const listVariants: VariantId[] = ['phpRank', 'undici', 'httpRequest', ...full(['httpRequestMeta'])];
	// The node with only its shown properties and the floor with the node's hidden ones: what the engine spends on them.
	const declaredProperties: VariantId[] = ['phpRankShownOnly', 'floorPadded'];
	const itemVariants: VariantId[] = ['phpRank', ...declaredProperties, 'floor', 'undici', 'httpRequest'];
	// What the lone first request costs while the node has not learnt the server's rate limit.
	const getVariants: VariantId[] = ['phpRank', ...full(['phpRankKnownLimit']), ...declaredProperties, 'floor', 'undici', 'httpRequest'];
	const limitJob = (limit: number): CaseSpec['jobs'][number] => {
		const job: Job = { kind: 'list', resource: 'reports', total: reports, limit };
		const oneSize = onePageSizeWindows(limit, reports).reduce((sum, window) => sum + recordsOnPage(window, reports), 0);
		// Where mixing page sizes fetches fewer records, a client doing so shows what that is worth.
		const fewest: VariantId[] = full(fewestPossible(job).records < oneSize ? ['undiciFewest'] : []);
		return { job, variants: ['phpRank', 'undici', ...fewest, 'httpRequest'] };
	};
	const [create, get]: Job[] = [
		{ kind: 'create', items },
		{ kind: 'get', items },
	];
	const returnAll = (resource: 'reports' | 'projects', total: number) => [
		{ job: { kind: 'list', resource, total } as Job, variants: listVariants },
	];
	return [
		{ id: '1', title: `Return All over ${reports} reports`, server: { seedReports: reports }, jobs: returnAll('reports', reports) },
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
			jobs: returnAll('projects', projects),
		},
		{ id: '4a', title: `${items} items each creating a report (rate limit off)`, server: {}, jobs: [{ job: create, variants: itemVariants }] },
		{ id: '4b', title: `${items} items each getting a report`, server: { seedReports: items }, jobs: [{ job: get, variants: getVariants }] },
	];
}

type RunFigures = Pick<Done, 'ms' | 'cpuMs'> & { requests: number; records: number; failedRequests: number };

export interface Measurement {
	caseId: string;
	job: Job;
	variant: VariantId;
	fewest: Fewest;
	/** The measured (memory) runs and the timed runs. */
	runs: RunFigures[];
	/** The timed runs in order, interleaved between clients (measureJob): ratios are taken run by run. */
	timedMs: number[];
	timedCpuMs: number[];
	/** One measured run per fresh process (round): the primed, collected RSS and the peak during the run. */
	memory: Array<{ baseRss: number; peakRss: number }>;
	/** The median round's figures (also in `memory`), as bench/compare.ts reads them. */
	baseRss: number;
	peakRss: number;
	expressions?: { tally: ExpressionTally; ms: number };
}

/** One job of one case, in one set of client processes. */
type JobRun = { spec: CaseSpec; server: PhpRankServer; job: Job; workers: Map<VariantId, Worker> };

const failed = (request: RecordedRequest) => request.status === undefined || request.status >= 300;

/** One run of the job by one client; the server's count of what it received goes with it. */
async function runOnce(at: JobRun, worker: Worker, phase: Phase) {
	// Creates would otherwise pile up.
	if (at.job.kind === 'create') at.server.reset();
	at.server.clearRequests();
	const job = phase === 'prime' ? primingJob(at.job) : at.job;
	const reply = await worker.run({ job, target: { url: at.server.url, apiKey: at.server.apiKey }, phase });
	const requests = at.server.requests;
	const { job: measured } = at;
	// A list request's records: its page as the server reads `per_page` and `page`.
	const served = (request: RecordedRequest) =>
		measured.kind === 'list' ? recordsOnPage(reportListQuery(request.query), measured.total) : 1;
	const records = requests.reduce((sum, request) => sum + (failed(request) ? 0 : served(request)), 0);
	const failedRequests = requests.filter(failed).length;
	const figures: RunFigures = { ms: reply.ms, cpuMs: reply.cpuMs, requests: requests.length, records, failedRequests };
	return { reply, figures };
}

/**
 * One job by all its clients. Memory first, each client on its own; then the timed runs interleaved,
 * run n of every client before run n + 1 of any, so that a change in the machine's load (other
 * processes) falls on all clients alike instead of on whichever ran then. Figures add to
 * `measurements` (one per client), so that rounds in fresh processes accumulate.
 */
async function measureJob(at: JobRun, runs: { timed: number; explain: boolean }, measurements: Map<VariantId, Measurement>): Promise<void> {
	const { spec, job } = at;
	for (const [variant, worker] of at.workers) {
		await runOnce(at, worker, 'prime');
		const { reply, figures } = await runOnce(at, worker, 'memory');
		const rss = { baseRss: reply.baseRss ?? 0, peakRss: reply.peakRss ?? 0 };
		const m = measurements.get(variant) ?? {
			caseId: spec.id,
			job,
			variant,
			fewest: fewestPossible(job),
			runs: [],
			timedMs: [],
			timedCpuMs: [],
			memory: [],
			...rss,
		};
		m.runs.push(figures);
		m.memory.push(rss);
		const byJob = [...m.memory].sort((a, b) => a.peakRss - a.baseRss - (b.peakRss - b.baseRss));
		Object.assign(m, byJob[Math.floor((byJob.length - 1) / 2)]);
		measurements.set(variant, m);
	}
	for (let run = 0; run < runs.timed; run++) {
		for (const [variant, worker] of at.workers) {
			const { figures } = await runOnce(at, worker, 'timed');
			const m = measurements.get(variant)!;
			m.runs.push(figures);
			m.timedMs.push(figures.ms);
			m.timedCpuMs.push(figures.cpuMs);
		}
	}
	for (const [variant, worker] of at.workers) {
		if (!runs.explain || !EXPLAINED.includes(variant)) continue;
		const { reply } = await runOnce(at, worker, 'expressions');
		measurements.get(variant)!.expressions = { tally: reply.expressions!, ms: reply.ms };
	}
}

/**
 * Full runs: fresh processes for every case, one per client, so that every case's memory is a
 * fresh process's. Short runs: one process per client for all cases, to keep process start-ups
 * (about 2 s each with n8n loaded) out of the minute; their memory figures are indicative only.
 */
async function runAll(cases: CaseSpec[], settings: Settings, distCopy: string): Promise<Measurement[]> {
	const started = Date.now();
	const results: Measurement[] = [];
	const variantsOf = (specs: CaseSpec[]) => [...new Set(specs.flatMap((spec) => spec.jobs.flatMap((entry) => entry.variants)))];
	const shared = settings.short ? await startWorkers(variantsOf(cases), distCopy) : undefined;
	for (const spec of cases) {
		const server = await startServer(spec.server);
		// The item jobs in several rounds of fresh processes (full runs), the timed runs spread over them: a process's
		// memory can be measured once only (V8 keeps what it took), so this repeats it.
		const rounds = shared || spec.jobs.every(({ job }) => job.kind === 'list') ? 1 : settings.rounds;
		const byJob = new Map(spec.jobs.map(({ job }) => [job, new Map<VariantId, Measurement>()] as const));
		for (let round = 0; round < rounds; round++) {
			const pool = shared ?? (await startWorkers(variantsOf([spec]), distCopy));
			for (const { job, variants } of spec.jobs) {
				const workers = new Map(variants.map((variant) => [variant, pool.get(variant)!] as const));
				// Expressions are counted once, in the last round, where the item jobs and Return All show where the time goes.
				const explain = round === rounds - 1 && (job.kind !== 'list' || job.limit === undefined) && spec.id !== '3';
				await measureJob({ spec, server, job, workers }, { timed: Math.ceil(settings.timedRuns / rounds), explain }, byJob.get(job)!);
			}
			if (!shared) await closeWorkers(pool);
		}
		await server.close();
		for (const m of [...byJob.values()].flatMap((measurements) => [...measurements.values()])) {
			results.push(m);
			const elapsed = ((Date.now() - started) / 1000).toFixed(0);
			log(`  ${caseLabel(m).padEnd(44)} ${VARIANT_LABELS[m.variant].padEnd(26)} ${medianMs(m).padStart(8)} ms   (${elapsed} s)`);
		}
	}
	if (shared) await closeWorkers(shared);
	return results;
}

// Case 5: loading the node.

const LOAD_SCRIPT = `
const { performance } = require('node:perf_hooks');
const [file, exportName] = process.argv.slice(1);
let started = performance.now();
if (process.env.BENCH_PRELOAD === '1') { require('n8n-workflow'); started = performance.now(); }
const type = new (require(file)[exportName])();
const ms = performance.now() - started;
const description = type.nodeVersions ? type.nodeVersions[type.description.defaultVersion].description : type.description;
process.stdout.write(JSON.stringify({ ms, bytes: Buffer.byteLength(JSON.stringify(description)) }));
`;

/**
 * require() of the node in a fresh process, n8n-workflow included (cold), and when n8n-workflow is
 * already loaded, as in n8n; then the size of the node's description (of its default version).
 */
function measureLoading(file: string, exportName: string, runs: number) {
	const load = (preload: boolean) =>
		JSON.parse(
			execFileSync(process.execPath, ['-e', LOAD_SCRIPT, file, exportName], {
				cwd: REPOSITORY_ROOT,
				env: { ...process.env, BENCH_PRELOAD: preload ? '1' : '0', NODE_PATH: path.join(REPOSITORY_ROOT, 'node_modules') },
				encoding: 'utf8',
			}),
		) as { ms: number; bytes: number };
	const figures = Array.from({ length: runs }, () => [load(false), load(true)]);
	return {
		coldMs: median(figures.map(([cold]) => cold.ms)),
		nodeMs: median(figures.map(([, warm]) => warm.ms)),
		descriptionBytes: figures[0][1].bytes,
	};
}

const loadRow = (label: string, f: ReturnType<typeof measureLoading>) => [label, formatMs(f.coldMs), formatMs(f.nodeMs), f.descriptionBytes];

// Figures, goals and tables.

const formatMs = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const medianMs = (m: Measurement) => formatMs(median(m.timedMs));
const caseLabel = (m: Measurement) => `${m.caseId} ${describeJob(m.job)}`;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const jobRss = (m: Measurement) => Math.max(0, m.peakRss - m.baseRss);
const roundRss = (m: Measurement) => m.memory.map(({ baseRss, peakRss }) => Math.max(0, peakRss - baseRss));
const times = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a');
const most = (m: Measurement, figure: 'requests' | 'records') => Math.max(...m.runs.map((run) => run[figure]));

const sameOrRange = (values: number[]) => [...new Set([Math.min(...values), Math.max(...values)])].join('-');
const find = (results: Measurement[], job: Job, variant: VariantId) =>
	results.find((m) => m.variant === variant && JSON.stringify(m.job) === JSON.stringify(job));

/** Ratios of two clients' figures taken pairwise (same index: measured back to back, or in the same round). */
type Ratio = { median: number; min: number; max: number };

function pairwise(a: number[], b: number[]): Ratio | undefined {
	const ratios = a.slice(0, b.length).flatMap((value, index) => (b[index] > 0 ? [value / b[index]] : []));
	if (ratios.length === 0) return undefined;
	return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

/** A client's time, client CPU and job memory against another's, run by run (memory: round by round). */
function against(m: Measurement, reference: Measurement) {
	return {
		time: pairwise(m.timedMs, reference.timedMs),
		cpu: pairwise(m.timedCpuMs, reference.timedCpuMs),
		memory: pairwise(roundRss(m), roundRss(reference)),
	};
}

function formatRatio(ratio: Ratio | undefined): string {
	if (!ratio) return 'n/a';
	return ratio.min === ratio.max
		? `${ratio.median.toFixed(2)}×`
		: `${ratio.median.toFixed(2)}× (${ratio.min.toFixed(2)}-${ratio.max.toFixed(2)})`;
}

function mainTable(results: Measurement[]): string[] {
	const header = ['Case', 'Client', 'Requests', 'Fewest', 'Records fetched', 'Fewest', 'Time ms, median (min-max)', '× undici'];
	header.push('Client CPU ms (× undici)', 'Job RSS MB (× undici)', 'Peak RSS MB');
	const rows = results.map((m) => {
		const raw = find(results, m.job, 'undici');
		const vsRaw = (value: number, of: (m: Measurement) => number) => (raw ? ` (${times(value, of(raw))})` : '');
		const [time, cpu] = [median(m.timedMs), median(m.timedCpuMs)];
		return [
			caseLabel(m),
			VARIANT_LABELS[m.variant],
			sameOrRange(m.runs.map((run) => run.requests)),
			m.fewest.requests,
			sameOrRange(m.runs.map((run) => run.records)),
			m.fewest.records,
			`${formatMs(time)} (${formatMs(Math.min(...m.timedMs))}-${formatMs(Math.max(...m.timedMs))})`,
			raw ? times(time, median(raw.timedMs)) : '',
			`${formatMs(cpu)}${vsRaw(cpu, (r) => median(r.timedCpuMs))}`,
			`${mb(jobRss(m))}${vsRaw(jobRss(m), jobRss)}`,
			mb(m.peakRss),
		];
	});
	return markdownTable(header, rows, [0, 1]);
}

/** The jobs the goals compare clients on run by run: Return All over the reports and the item jobs. */
const comparedRunByRun = (job: Job) => job.kind !== 'list' || (job.resource === 'reports' && job.limit === undefined);

function ratioTable(results: Measurement[]): string[] {
	const references: VariantId[] = ['floor', 'httpRequest', 'undici'];
	const figures = { time: 'Time', cpu: 'Client CPU', memory: 'Job RSS' } as const;
	const header = ['Case', 'Client', ...Object.values(figures).flatMap((what) => references.map((ref) => `${what} × ${VARIANT_LABELS[ref]}`))];
	const compared = results.filter((m) => comparedRunByRun(m.job) && !references.includes(m.variant));
	const rows = compared.map((m) => {
		const ratios = references.map((ref) => find(results, m.job, ref)).map((reference) => reference && against(m, reference));
		return [
			caseLabel(m),
			VARIANT_LABELS[m.variant],
			...(Object.keys(figures) as Array<keyof typeof figures>).flatMap((figure) => ratios.map((r) => (r ? formatRatio(r[figure]) : ''))),
		];
	});
	return markdownTable(header, rows, [0, 1]);
}

/** `met` is left out for a figure shown beside the goals. */
type Verdict = { goal: string; met?: boolean; detail: string };

/** The item jobs: against n8n's own clients, as raw undici is out of reach of any n8n node. */
function itemVerdicts(results: Measurement[], job: Job): Verdict[] {
	const [node, raw, http, floor, shownOnly, padded] = (
		['phpRank', 'undici', 'httpRequest', 'floor', 'phpRankShownOnly', 'floorPadded'] as const
	).map((variant) => find(results, job, variant)!);
	const [toHttp, toFloor, toRaw] = [against(node, http), against(node, floor), against(node, raw)];
	const floorToHttp = pairwise(floor.timedMs, http.timedMs)!;
	const timeAndMemory = ({ time, memory }: ReturnType<typeof against>) => `time ${formatRatio(time)}, job memory ${formatRatio(memory)}`;
	const memoryRuns = node.memory.length === 1 ? 'one memory run each' : `median of ${node.memory.length} fresh processes each`;
	return [
		{
			goal: `time ≤ HTTP Request node's, or ≤ ${GOALS.floorRatio}× the floor where the floor is above it`,
			met: toHttp.time!.median <= 1 || (floorToHttp.median > 1 && toFloor.time!.median <= GOALS.floorRatio),
			detail:
				`${medianMs(node)} ms: ${formatRatio(toHttp.time)} HTTP Request (${medianMs(http)} ms; client CPU ${formatRatio(toHttp.cpu)}), ` +
				`${formatRatio(toFloor.time)} the floor (${medianMs(floor)} ms; client CPU ${formatRatio(toFloor.cpu)}); ` +
				`the floor is ${formatRatio(floorToHttp)} HTTP Request`,
		},
		{
			goal: `job memory ≤ ${GOALS.itemMemoryRatioToHttp}× HTTP Request node's`,
			met: jobRss(node) <= Math.max(GOALS.itemMemoryRatioToHttp * jobRss(http), jobRss(http) + MEMORY_NOISE_FLOOR),
			detail:
				`${mb(jobRss(node))} vs ${mb(jobRss(http))} MB (${memoryRuns}), ${formatRatio(toHttp.memory)}; ` +
				`the floor ${mb(jobRss(floor))} MB, ${formatRatio(toFloor.memory)}`,
		},
		{
			goal: 'declared properties n8n does not show for this operation',
			detail:
				`the node against the node with its shown properties only: ${timeAndMemory(against(node, shownOnly))}; ` +
				`the floor with as many hidden properties against the floor: ${timeAndMemory(against(padded, floor))}; ` +
				`the node with its shown properties only against HTTP Request: ${timeAndMemory(against(shownOnly, http))}`,
		},
		{
			goal: 'against raw undici',
			detail: `time ${formatRatio(toRaw.time)}, client CPU ${formatRatio(toRaw.cpu)}, job memory ${formatRatio(toRaw.memory)}`,
		},
	];
}

function listVerdicts(results: Measurement[], job: Job): Verdict[] {
	const [node, raw, http] = (['phpRank', 'undici', 'httpRequest'] as const).map((variant) => find(results, job, variant)!);
	const [time, rawTime, memory, rawMemory] = [median(node.timedMs), median(raw.timedMs), jobRss(node), jobRss(raw)];
	// Where the goals compare run by run, the verdict reads the median of the run-by-run ratios.
	const runByRun = comparedRunByRun(job) ? pairwise(node.timedMs, raw.timedMs) : undefined;
	const belowNoise = memory > GOALS.memoryRatio * rawMemory && memory <= rawMemory + MEMORY_NOISE_FLOOR;
	const [requests, httpRequests] = [most(node, 'requests'), most(http, 'requests')];
	const httpTime = median(http.timedMs);
	const equal = requests !== httpRequests ? '' : requests === node.fewest.requests ? ' (equal: both at the fewest possible)' : ' (equal)';
	return [
		{
			goal: `time ≤ ${GOALS.timeRatio}× undici`,
			met: (runByRun?.median ?? time / rawTime) <= GOALS.timeRatio,
			detail:
				`${formatMs(time)} vs ${formatMs(rawTime)} ms, ${runByRun ? formatRatio(runByRun) : times(time, rawTime)}; ` +
				`client CPU ${formatMs(median(node.timedCpuMs))} vs ${formatMs(median(raw.timedCpuMs))} ms`,
		},
		{
			goal: `job memory ≤ ${GOALS.memoryRatio}× undici`,
			met: memory <= Math.max(GOALS.memoryRatio * rawMemory, rawMemory + MEMORY_NOISE_FLOOR),
			detail:
				`${mb(memory)} vs ${mb(rawMemory)} MB, ${times(memory, rawMemory)}` +
				(belowNoise ? ` (within ${mb(MEMORY_NOISE_FLOOR)} MB: below what RSS tells apart)` : '') +
				`; whole process ${mb(node.peakRss)} vs ${mb(raw.peakRss)} MB, ${times(node.peakRss, raw.peakRss)}`,
		},
		{ goal: 'fewer requests than HTTP Request', met: requests < httpRequests, detail: `${requests} vs ${httpRequests}${equal}` },
		{ goal: 'less time than HTTP Request', met: time < httpTime, detail: `${formatMs(time)} vs ${formatMs(httpTime)} ms, ${times(time, httpTime)}` },
	];
}

function verdicts(results: Measurement[], job: Job): Verdict[] {
	const node = find(results, job, 'phpRank')!;
	const { fewest } = node;
	const ms = (variant: VariantId) => medianMs(find(results, job, variant)!);
	const [requests, records] = [most(node, 'requests'), most(node, 'records')];
	const all: Verdict[] = [
		{ goal: 'requests = fewest possible', met: requests === fewest.requests, detail: `${requests} vs ${fewest.requests} (${fewest.how})` },
	];
	if (job.kind !== 'list') all.push(...itemVerdicts(results, job));
	else {
		all.push(
			{ goal: 'records fetched = fewest possible', met: records === fewest.records, detail: `${records} vs ${fewest.records}` },
			...listVerdicts(results, job),
		);
		if (find(results, job, 'undiciFewest')) {
			const oneSize = describeWindows(onePageSizeWindows(job.limit ?? job.total, job.total));
			all.push({
				goal: `the fewest records take mixed page sizes (${fewest.how})`,
				detail: `undici so ${ms('undiciFewest')} ms, with one page size (${oneSize}) ${ms('undici')} ms`,
			});
		}
	}
	if (find(results, job, 'phpRankKnownLimit')) {
		all.push({
			goal: 'the lone first request (rate limit not yet known)',
			detail: `${ms('phpRank')} ms, limit already known: ${ms('phpRankKnownLimit')} ms`,
		});
	}
	return all;
}

function expressionTable(results: Measurement[]): string[] {
	const rows = results.flatMap((m) => {
		if (!m.expressions) return [];
		const { tally, ms } = m.expressions;
		const units = m.job.kind === 'list' ? Math.max(1, most(m, 'requests')) : m.job.items;
		const who = Object.entries(tally.bySource)
			.sort((a, b) => b[1] - a[1])
			.map(([source, count]) => `${source} ${(count / units).toFixed(count % units ? 2 : 0)}`)
			.join('; ');
		const each = `${formatMs(tally.ms)} ms (${(tally.ms / tally.evaluations).toFixed(2)} ms each)`;
		const share = `${((100 * tally.ms) / ms).toFixed(0)} % of ${formatMs(ms)} ms`;
		return [[caseLabel(m), VARIANT_LABELS[m.variant], tally.evaluations, (tally.evaluations / units).toFixed(1), who, each, share]];
	});
	const header = ['Case', 'Client', 'Evaluations', 'Per item (page)', 'Who asked', 'Time in evaluations', 'Share of that run'];
	return rows.length ? markdownTable(header, rows, [0, 1, 4]) : [];
}

async function main(): Promise<void> {
	const settings = settingsFromArguments();
	const started = Date.now();
	const distCopy = snapshotBuild(log);
	const { short, timedRuns, rounds } = settings;
	log(
		`phpRank node benchmarks${short ? ' (short run)' : ''}: bundled phpRank-compatible server, rate limit off, ${LATENCY_MS} ms latency per request`,
		...describeRun('bench'),
		'Baseline: undici with pages of 100 for Return All, the smallest page holding the limit, every item at once for the item jobs.',
		`HTTP Request node: n8n-nodes-base from the dev dependencies, set up as n8n's docs show (Header Auth, Accept, pagination by {{ $pageCount + 1 }}).`,
		'Declarative floor (item jobs): bench/floor, the least a declarative node makes n8n do for the same request per item, with the phpRank credential.',
		...(short
			? ['Not used by the short run: the HTTP Request meta check, the fewest-records client, the known rate limit, case 6 against 2 PHP workers; case 7 with 200 rows.']
			: []),
		`Each client runs in ${short ? 'one process for all cases (memory figures indicative only)' : 'a fresh process per case'}; ` +
			`per job: a priming run, a measured run (memory), ${timedRuns} timed runs` +
			(short ? '.' : `; the item jobs in ${rounds} rounds of fresh processes (${rounds} memory runs, ${Math.ceil(timedRuns / rounds)} timed runs each).`),
		'',
	);

	const planned = plan(settings);
	const known = [...planned.map((spec) => spec.id), SLOW_SERVER_CASE, ONE_SITE_CASE];
	const unknown = settings.cases?.filter((id) => !known.includes(id)) ?? [];
	if (unknown.length) throw new Error(`--cases: no case ${unknown.join(', ')} (cases: ${known.join(', ')})`);
	const chosen = (id: string) => !settings.cases || settings.cases.includes(id);
	const cases = planned.filter((spec) => chosen(spec.id));
	const slowServer = chosen(SLOW_SERVER_CASE);
	const oneSite = chosen(ONE_SITE_CASE);
	const oneSiteRows = settings.short ? 200 : 1000;
	for (const spec of cases) log(`${spec.id}. ${spec.title}`);
	if (slowServer) log(`${SLOW_SERVER_CASE}. ${SLOW_SERVER_TITLE}`);
	if (oneSite) log(`${ONE_SITE_CASE}. ${oneSiteTitle(oneSiteRows)}`);
	log();
	const overflowsBefore = listenOverflows();
	const results = await runAll(cases, settings, distCopy);
	const overflowsAfter = listenOverflows();
	// In this process, after the other cases' clients have ended: the node as tests run it, against the server's own pace.
	// The short run keeps the case working with 8 workers, whose run the rate limit paces: half the time of 2 workers.
	const slowServerFigures = slowServer ? [...(short ? [] : [await measureSlowServer(2)]), await measureSlowServer(8)] : [];
	const oneSiteRounds = settings.short ? 1 : 3;
	const oneSiteFigures = oneSite ? await measureOneSite(oneSiteRows, oneSiteRounds) : undefined;

	const loadRuns = settings.short ? 2 : 5;
	const nodeLoad = measureLoading(builtPackage(distCopy).node, 'PhpRank', loadRuns);
	const httpLoad = measureLoading(require.resolve('n8n-nodes-base/dist/nodes/HttpRequest/HttpRequest.node.js'), 'HttpRequest', loadRuns);

	const section = (title: string, lines: string[]) => log(title, '', ...lines, '');
	log('', ...mainTable(results), '');
	section(
		'Ratios, run by run: median (min-max) of the ratios of runs with the same index (time, CPU) or of the same round (job RSS)',
		ratioTable(results),
	);
	section(
		`5. Loading the node: median of ${loadRuns} fresh processes each (plain node, no TypeScript loader)`,
		markdownTable(
			['Node', 'require() in a fresh process, ms', 'require() with n8n-workflow loaded, ms', 'Description, JSON bytes'],
			[
				loadRow('phpRank (dist/nodes/PhpRank/PhpRank.node.js)', nodeLoad),
				loadRow('HTTP Request, default version (n8n-nodes-base), for reference', httpLoad),
			],
		),
	);
	if (slowServer) {
		section(
			`${SLOW_SERVER_CASE}. ${SLOW_SERVER_TITLE}: one run each, the node from source in this process`,
			slowServerTable(slowServerFigures),
		);
	}
	if (oneSiteFigures) {
		section(
			`${ONE_SITE_CASE}. ${oneSiteTitle(oneSiteRows)}: ${oneSiteRounds} round(s), each run on a new server but the re-run, the node from source in this process`,
			oneSiteTable(oneSiteFigures),
		);
	}
	section(
		'Where the n8n clients spend their time: n8n expression evaluations in one extra run, counted and timed',
		expressionTable(results),
	);
	log(
		'Goals (the phpRank node): lists, time and memory against undici, requests and time against the HTTP Request node; ' +
			'the item jobs, time against the HTTP Request node or the declarative floor and memory against the HTTP Request node. ' +
			'Ratios taken run by run (runs of the same index ran back to back; memory: round by round, fresh processes): median (min-max).',
	);
	const printVerdicts = (heading: string, list: Verdict[]) => {
		const mark = (met?: boolean) => (met === undefined ? 'note  ' : met ? 'met   ' : 'MISSED');
		log(`- ${heading}`, ...list.map(({ met, goal, detail }) => `    ${mark(met)}  ${goal}: ${detail}`));
	};
	for (const m of results.filter((result) => result.variant === 'phpRank')) printVerdicts(caseLabel(m), verdicts(results, m.job));
	if (slowServer) printVerdicts(`${SLOW_SERVER_CASE} slow phpRank behind a proxy`, slowServerVerdicts(slowServerFigures));
	if (oneSiteFigures) printVerdicts(`${ONE_SITE_CASE} rows of one site with Return the Existing Report`, oneSiteVerdicts(oneSiteFigures));
	for (const m of results.filter((result) => result.runs.some((run) => run.failedRequests > 0))) {
		log(`Note: ${VARIANT_LABELS[m.variant]}, ${describeJob(m.job)}: the server answered some requests with an error`);
	}
	if (overflowsBefore !== undefined && overflowsAfter !== undefined) {
		log(`Connections dropped by full listen queues on this machine during the runs (all processes): ${overflowsAfter - overflowsBefore}`);
	}
	log();
	log(`Load average at the end: ${loadAverage()}; ${((Date.now() - started) / 1000).toFixed(0)} s in all.`);

	if (settings.jsonFile) {
		const figures = { settings, results, load: { phpRank: nodeLoad, httpRequest: httpLoad }, slowServer: slowServerFigures, oneSite: oneSiteFigures };
		writeFileSync(settings.jsonFile, JSON.stringify(figures, null, 2));
		log(`Figures written to ${settings.jsonFile}`);
	}
}

runScript(main);

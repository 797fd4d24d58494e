/**
 * `npm run bench:profile`: where the per-item time goes in the 1,000-item jobs (each item creating
 * or getting a report), for the phpRank node, the declarative floor (bench/floor) and n8n's HTTP
 * Request node. Each client runs in a process of its own against the bundled server (as in
 * `npm run bench`), under V8's sampling CPU profiler; the samples are grouped by bench/cpuProfile.ts.
 *
 *   npm run bench:profile                                 3 profiled runs per client and job, 1,000 items
 *   npm run bench:profile -- --runs 5 --items 500
 *   npm run bench:profile -- --jobs get --clients phpRank,floor
 *   npm run bench:profile -- --keep profiles/             also keeps every .cpuprofile (opens in Chrome DevTools)
 *   npm run bench:profile -- --json profile.json          also writes the figures as JSON
 *
 * Shares of samples are what to compare: they hold on a loaded machine, where times do not.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { PhpRankServer } from '../dev/server';
import type { Breakdown, Group } from './cpuProfile';
import { busySamples, classify, emptyBreakdown, EXPRESSION_CALLERS, GROUP_LABELS, GROUPS } from './cpuProfile';
import type { Job, VariantId } from './plan';
import { describeJob, primingJob, VARIANT_LABELS } from './plan';
import { LATENCY_MS, loadAverage, machine, median, runScript, snapshotBuild, startServer, Worker } from './processes';

const PROFILED: VariantId[] = ['phpRank', 'floor', 'httpRequest'];

interface Settings {
	items: number;
	runs: number;
	jobs: Array<'create' | 'get'>;
	clients: VariantId[];
	keep?: string;
	jsonFile?: string;
}

function settingsFromArguments(argv: string[]): Settings {
	const value = (name: string) => {
		const index = argv.indexOf(`--${name}`);
		return index >= 0 ? argv[index + 1] : undefined;
	};
	const list = <T extends string>(name: string, allowed: readonly T[], fallback: T[]): T[] => {
		const given = value(name)?.split(',').map((entry) => entry.trim());
		if (!given) return fallback;
		const unknown = given.filter((entry) => !allowed.includes(entry as T));
		if (unknown.length) throw new Error(`--${name}: unknown ${unknown.join(', ')} (one or more of ${allowed.join(', ')})`);
		return given as T[];
	};
	const count = (name: string, fallback: number) => {
		const given = value(name);
		if (given === undefined) return fallback;
		if (!/^[1-9]\d*$/.test(given)) throw new Error(`--${name} must be a positive whole number; got ${given}`);
		return Number(given);
	};
	return {
		items: count('items', 1_000),
		runs: count('runs', 3),
		jobs: list('jobs', ['create', 'get'] as const, ['create', 'get']),
		clients: list('clients', PROFILED, PROFILED),
		keep: value('keep'),
		jsonFile: value('json'),
	};
}

/** CPU time of the whole machine (all processes), from /proc/stat, to tell how loaded it was. */
function machineCpu(): { busy: number; total: number } | undefined {
	try {
		const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
		const idle = fields[3] + (fields[4] ?? 0);
		const total = fields.reduce((sum, field) => sum + field, 0);
		return { busy: total - idle, total };
	} catch {
		return undefined;
	}
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

interface ClientProfile {
	variant: VariantId;
	breakdown: Breakdown;
	cpuMs: number[];
	ms: number[];
}

interface JobProfile {
	job: Job;
	clients: ClientProfile[];
	/** CPU the rest of the machine used while the profiled runs went on, in CPUs (e.g. 0.8 of 2). */
	othersCpus?: number;
}

async function profileJob(job: Job & { kind: 'create' | 'get' }, settings: Settings, distCopy: string, profileDirectory: string): Promise<JobProfile> {
	const server: PhpRankServer = await startServer(job.kind === 'get' ? { seedReports: job.items } : {});
	const workers = new Map(settings.clients.map((variant) => [variant, new Worker(variant, distCopy)] as const));
	const target = { url: server.url, apiKey: server.apiKey };
	const profiles = new Map(settings.clients.map((variant) => [variant, { variant, breakdown: emptyBreakdown(), cpuMs: [] as number[], ms: [] as number[] }]));
	let ownCpuMs = 0;
	let machineStart: ReturnType<typeof machineCpu>;
	let serverCpu = process.cpuUsage();
	// Each process says it is ready once, right after it starts: listen for all of them at once.
	const readiness = [...workers].map(async ([variant, worker]) => {
		const ready = await worker.next();
		if (ready.type !== 'ready') throw new Error(`${VARIANT_LABELS[variant]}: the client process did not start`);
	});
	try {
		await Promise.all(readiness);
		for (const [variant, worker] of workers) {
			const primed = await worker.next({ type: 'run', job: primingJob(job), target, phase: 'prime' });
			if (primed.type !== 'done') throw new Error(`${VARIANT_LABELS[variant]}: ${primed.type === 'failed' ? primed.message : 'no answer'}`);
		}
		machineStart = machineCpu();
		serverCpu = process.cpuUsage();
		// Interleaved, as in npm run bench: run n of every client before run n + 1 of any.
		for (let run = 0; run < settings.runs; run++) {
			for (const [variant, worker] of workers) {
				if (job.kind === 'create') server.reset();
				const file = path.join(profileDirectory, `${job.kind}-${variant}-${run + 1}.cpuprofile`);
				const reply = await worker.next({ type: 'run', job, target, phase: 'profile', profileFile: file });
				if (reply.type !== 'done') throw new Error(`${VARIANT_LABELS[variant]}: ${reply.type === 'failed' ? reply.message : 'no answer'}`);
				if (reply.output !== job.items) throw new Error(`${VARIANT_LABELS[variant]}: output ${reply.output} items, expected ${job.items}`);
				const profile = profiles.get(variant)!;
				classify(JSON.parse(readFileSync(file, 'utf8')), profile.breakdown);
				profile.cpuMs.push(reply.cpuMs);
				profile.ms.push(reply.ms);
				ownCpuMs += reply.cpuMs;
			}
		}
	} finally {
		for (const worker of workers.values()) await worker.close();
		await server.close();
	}
	const machineEnd = machineCpu();
	const { user, system } = process.cpuUsage(serverCpu);
	ownCpuMs += (user + system) / 1000;
	let othersCpus: number | undefined;
	if (machineStart && machineEnd) {
		const elapsedCpuMs = ((machineEnd.total - machineStart.total) * TICK_MS) / os.availableParallelism();
		othersCpus = Math.max(0, ((machineEnd.busy - machineStart.busy) * TICK_MS - ownCpuMs) / elapsedCpuMs);
	}
	return { job, clients: [...profiles.values()], othersCpus };
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const percent = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)} %` : '');

/** Client CPU per item spread over the groups by their share of the samples. */
function microsPerItem(profile: ClientProfile, part: number, items: number): number {
	const busy = busySamples(profile.breakdown);
	return busy > 0 ? ((part / busy) * sum(profile.cpuMs) * 1000) / (profile.cpuMs.length * items) : 0;
}

function groupTable(result: JobProfile, items: number): string[] {
	const { clients } = result;
	const header = ['Group', ...clients.map((client) => `${VARIANT_LABELS[client.variant]}: share, ≈ CPU µs per item`)];
	const lines = [`| ${header.join(' | ')} |`, `|---|${clients.map(() => '---:').join('|')}|`];
	const row = (label: string, part: (client: ClientProfile) => number) =>
		lines.push(
			`| ${label} | ${clients
				.map((client) => `${percent(part(client), busySamples(client.breakdown))}, ${microsPerItem(client, part(client), items).toFixed(0)}`)
				.join(' | ')} |`,
		);
	for (const group of GROUPS) row(GROUP_LABELS[group], (client) => client.breakdown.groups[group]);
	for (const caller of EXPRESSION_CALLERS) {
		if (clients.every((client) => client.breakdown.expressionCallers[caller] === 0)) continue;
		row(`&nbsp;&nbsp;expressions asked by: ${caller}`, (client) => client.breakdown.expressionCallers[caller]);
	}
	lines.push(
		`| Client CPU per run, ms (median) | ${clients.map((client) => median(client.cpuMs).toFixed(0)).join(' | ')} |`,
		`| Time per run, ms (median) | ${clients.map((client) => median(client.ms).toFixed(0)).join(' | ')} |`,
		`| Samples: busy (idle) | ${clients.map((client) => `${busySamples(client.breakdown)} (${client.breakdown.idle})`).join(' | ')} |`,
	);
	return lines;
}

function topFunctions(profile: ClientProfile, group: Group, count: number): string {
	const busy = busySamples(profile.breakdown);
	return Object.entries(profile.breakdown.functions[group])
		.sort((a, b) => b[1] - a[1])
		.slice(0, count)
		.map(([name, samples]) => `${name} ${percent(samples, busy)}`)
		.join('; ');
}

async function main(): Promise<void> {
	const settings = settingsFromArguments(process.argv.slice(2));
	const log = (line: string) => console.log(line);
	const distCopy = snapshotBuild(log);
	const profileDirectory = settings.keep ? path.resolve(settings.keep) : mkdtempSync(path.join(os.tmpdir(), 'phprank-profile-'));
	mkdirSync(profileDirectory, { recursive: true });
	if (!settings.keep) process.once('exit', () => rmSync(profileDirectory, { recursive: true, force: true }));
	log(`Where the per-item time goes: V8 CPU profiles of ${settings.runs} runs per client and job, ${settings.items} items, bundled server (rate limit off, ${LATENCY_MS} ms latency) in this process`);
	for (const line of machine()) log(line);
	log(`Load average at the start: ${loadAverage()}`);
	log(`Command: npm run bench:profile${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`);
	log('Grouping (bench/cpuProfile.ts): samples counted; any frame in the expression engine makes it the expression engine; else the first frame from the leaf that belongs to a group; idle left out.');
	log('≈ CPU µs per item: the client process\'s CPU time per item, spread over the groups by their share of the busy samples.');
	log('');
	const results: JobProfile[] = [];
	for (const kind of settings.jobs) {
		const job = { kind, items: settings.items } as Job & { kind: 'create' | 'get' };
		const result = await profileJob(job, settings, distCopy, profileDirectory);
		results.push(result);
		log(`${describeJob(job)}${result.othersCpus === undefined ? '' : ` (other processes used ${result.othersCpus.toFixed(2)} of ${os.availableParallelism()} CPUs meanwhile)`}`);
		log('');
		for (const line of groupTable(result, settings.items)) log(line);
		log('');
		for (const client of result.clients) {
			log(`Top functions (self), ${VARIANT_LABELS[client.variant]}:`);
			for (const group of ['expression', 'parameters', 'node', 'http', 'engine', 'other'] as const) {
				if (client.breakdown.groups[group] > 0) log(`  ${GROUP_LABELS[group]}: ${topFunctions(client, group, 6)}`);
			}
		}
		log('');
	}
	log(`Load average at the end: ${loadAverage()}`);
	if (settings.keep) log(`Profiles kept in ${profileDirectory}`);
	if (settings.jsonFile) {
		writeFileSync(settings.jsonFile, JSON.stringify({ settings, results }, null, 2));
		log(`Figures written to ${settings.jsonFile}`);
	}
}

runScript(main);

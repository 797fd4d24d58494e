/**
 * One client in a process of its own, so that what one client loads and allocates never shows in another's figures.
 * The parent (bench/index.ts, bench/profile.ts) runs the phpRank server, sends one run at a time and counts what the
 * server received; this process only does the job and reports its time and memory (for the memory run: the RSS the
 * run adds on top of the primed process).
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

import type { ExpressionTally } from './clients/expressions';
import type { Run } from './clients/n8n';
import type { Job, Target, VariantId } from './plan';

export type Phase = 'prime' | 'memory' | 'timed' | 'expressions' | 'profile';

export interface RunCommand {
	job: Job;
	target: Target;
	phase: Phase;
	/** For the profile phase: where to write the V8 CPU profile of the run (.cpuprofile JSON). */
	profileFile?: string;
}

export type Command = ({ type: 'run' } & RunCommand) | { type: 'exit' };

export interface Done {
	type: 'done';
	ms: number;
	/** CPU time of this process (user and system) during the run. */
	cpuMs: number;
	output: number;
	baseRss?: number;
	peakRss?: number;
	expressions?: ExpressionTally;
}

export type Reply = { type: 'ready' } | Done | { type: 'failed'; message: string };

const MEMORY_SAMPLE_MS = 1;

/** Microseconds between the profiler's samples: fine enough for 1,000 items, coarse enough to cost little. */
const PROFILE_SAMPLE_US = 500;

/**
 * V8's sampling CPU profiler (the inspector's Profiler, in this process), started before the run's
 * clock and stopped after it, so that the profile holds the run only (not the process's start-up and
 * priming, as `node --cpu-prof` would) and the figures leave out writing it.
 */
async function startProfiler(): Promise<(file: string) => Promise<void>> {
	const { Session } = await import('node:inspector/promises');
	const inspector = new Session();
	inspector.connect();
	await inspector.post('Profiler.enable');
	await inspector.post('Profiler.setSamplingInterval', { interval: PROFILE_SAMPLE_US });
	await inspector.post('Profiler.start');
	return async (file) => {
		writeFileSync(file, JSON.stringify((await inspector.post('Profiler.stop')).profile));
		inspector.disconnect();
	};
}

async function prepare(variant: VariantId, job: Job, target: Target): Promise<Run> {
	if (variant === 'undici' || variant === 'undiciFewest') {
		const { runUndici } = await import('./clients/undici');
		return () => runUndici(job, target, { fewestRecords: variant === 'undiciFewest' });
	}
	const n8n = await import('./clients/n8n');
	if (variant === 'floor' || variant === 'floorPadded') return n8n.prepareFloorNode(job, target, { padded: variant === 'floorPadded' });
	if (variant === 'httpRequest' || variant === 'httpRequestMeta') {
		return n8n.prepareHttpRequest(job, target, variant === 'httpRequestMeta' ? 'lastPage' : 'dataEmpty');
	}
	return n8n.preparePhpRankNode(job, target, variant);
}

const collectGarbage = (): void => (global as { gc?: () => void }).gc?.();

let baseRss: number | undefined;

async function execute(variant: VariantId, command: RunCommand): Promise<Done> {
	const run = await prepare(variant, command.job, command.target);
	const tally = command.phase === 'expressions' ? (await import('./clients/expressions')).tallyExpressions : undefined;
	// Every run starts from a collected heap: no run pays for the garbage of the one before.
	collectGarbage();
	let peakRss = 0;
	const sampleRss = () => (peakRss = Math.max(peakRss, process.memoryUsage.rss()));
	const sampler = command.phase === 'memory' ? setInterval(sampleRss, MEMORY_SAMPLE_MS) : undefined;
	let expressions: ExpressionTally | undefined;
	const stopProfiler = command.phase === 'profile' ? await startProfiler() : undefined;
	const cpu = process.cpuUsage();
	const started = performance.now();
	let output: number;
	if (tally) ({ result: output, tally: expressions } = await tally(run));
	else output = await run();
	const ms = performance.now() - started;
	const { user, system } = process.cpuUsage(cpu);
	await stopProfiler?.(command.profileFile!);
	clearInterval(sampler);
	sampleRss();
	const reply: Done = { type: 'done', ms, cpuMs: (user + system) / 1000, output, expressions };
	if (command.phase === 'prime') {
		collectGarbage();
		baseRss = process.memoryUsage.rss();
	}
	return command.phase === 'memory' ? { ...reply, baseRss, peakRss } : reply;
}

function main(): void {
	const variant = process.argv[2] as VariantId;
	const send = (reply: Reply) => process.send!(reply);
	let queue = Promise.resolve();
	process.on('message', (command: Command) => {
		queue = queue.then(async () => {
			if (command.type === 'exit') {
				process.disconnect();
				return;
			}
			try {
				send(await execute(variant, command));
			} catch (error) {
				send({
					type: 'failed',
					message: error instanceof Error ? `${error.message}${error.stack ? `\n${error.stack}` : ''}` : String(error),
				});
			}
		});
	});
	send({ type: 'ready' });
}

main();

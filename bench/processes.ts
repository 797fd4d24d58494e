/**
 * What the benchmark scripts share: the client processes (bench/worker.ts), the phpRank server
 * they talk to, the snapshot of dist/ they measure, the description of the machine and the tables.
 */
import { execFileSync, fork, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { REPOSITORY_ROOT } from '../dev/n8n/util';
import { startPhpRankServer } from '../dev/server';
import type { PhpRankServer, PhpRankServerOptions } from '../dev/server';
import type { VariantId } from './plan';
import { builtPackage, describeJob, expectedOutput, VARIANT_LABELS } from './plan';
import type { Command, Done, Reply, RunCommand } from './worker';

export const LATENCY_MS = 2;

/** A client process, driven one command at a time. */
export class Worker {
	private readonly child: ChildProcess;

	private readonly exited: Promise<Reply>;

	/** The process's first message: ready, or why it did not start. */
	readonly ready: Promise<Reply>;

	constructor(
		private readonly variant: VariantId,
		distCopy: string,
	) {
		this.child = fork(path.join(__dirname, 'worker.ts'), [variant], {
			cwd: REPOSITORY_ROOT,
			execArgv: ['--expose-gc', '--import', 'tsx'],
			// The copy of dist/ lives outside the repository: its require('n8n-workflow') finds the
			// repository's through NODE_PATH, the same module the engine uses.
			env: { ...process.env, BENCH_DIST: distCopy, NODE_PATH: path.join(REPOSITORY_ROOT, 'node_modules') },
			stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
		});
		this.exited = once(this.child, 'exit').then(([code]) => ({ type: 'failed', message: `the client process ended (exit code ${code})` }));
		this.ready = this.next();
	}

	/** The process's next message, or a failure when it ends first. */
	private async next(command?: Command): Promise<Reply> {
		const reply = once(this.child, 'message').then(([message]) => message as Reply);
		if (command) this.child.send(command);
		return await Promise.race([reply, this.exited]);
	}

	/** One run; a client that fails or does not output every item fails the benchmark. */
	async run(command: RunCommand): Promise<Done> {
		const reply = await this.next({ type: 'run', ...command });
		const what = `${VARIANT_LABELS[this.variant]}, ${describeJob(command.job)}`;
		if (reply.type !== 'done') throw new Error(`${what}: ${reply.type === 'failed' ? reply.message : 'no answer'}`);
		if (reply.output !== expectedOutput(command.job))
			throw new Error(`${what}: output ${reply.output} items, expected ${expectedOutput(command.job)}`);
		return reply;
	}

	async close(): Promise<void> {
		if (this.child.connected) this.child.send({ type: 'exit' } satisfies Command);
		// A client that keeps a timer or socket open after its last run is ended after a grace period.
		const timer = setTimeout(() => this.child.kill(), 10_000);
		await this.exited;
		clearTimeout(timer);
	}
}

/**
 * One process per client, ready to run. When the benchmark fails, runScript ends this process, and the
 * clients end with their IPC channel.
 */
export async function startWorkers(variants: VariantId[], distCopy: string): Promise<Map<VariantId, Worker>> {
	const workers = new Map(variants.map((variant) => [variant, new Worker(variant, distCopy)] as const));
	await Promise.all(
		[...workers].map(async ([variant, worker]) => {
			const ready = await worker.ready;
			if (ready.type === 'failed') throw new Error(`${VARIANT_LABELS[variant]}: the client process did not start (${ready.message})`);
		}),
	);
	return workers;
}

export async function closeWorkers(workers: Map<VariantId, Worker>): Promise<void> {
	await Promise.all([...workers.values()].map(async (worker) => await worker.close()));
}

/**
 * The item jobs open a thousand connections at once (the server closes each after its answer).
 * Node's default listen backlog, 511, would overflow: the kernel drops the connections beyond it
 * and their clients retry a second later, which would measure TCP, not the clients. The bundled
 * server is started with the system's largest backlog instead.
 */
const LISTEN_BACKLOG = 4096;

export async function startServer(options: PhpRankServerOptions): Promise<PhpRankServer> {
	const listen = net.Server.prototype.listen;
	// The server listens on (port, host[, callback]): the backlog goes after the host.
	net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
		const [port, host, ...rest] = args;
		const withBacklog = typeof port === 'number' && typeof host === 'string' ? [port, host, LISTEN_BACKLOG, ...rest] : args;
		return listen.apply(this, withBacklog as [never]);
	} as typeof listen;
	try {
		return await startPhpRankServer({ ...options, latencyMs: LATENCY_MS, rateLimit: false });
	} finally {
		net.Server.prototype.listen = listen;
	}
}

/** The kernel's count of connections dropped because a listen queue was full (all processes). */
export function listenOverflows(): number | undefined {
	try {
		const [header, values] = readFileSync('/proc/net/netstat', 'utf8')
			.split('\n')
			.filter((line) => line.startsWith('TcpExt:'))
			.map((line) => line.split(/\s+/));
		const at = header.indexOf('ListenOverflows');
		return at > 0 ? Number(values[at]) : undefined;
	} catch {
		return undefined;
	}
}

export const loadAverage = () =>
	os
		.loadavg()
		.map((load) => load.toFixed(2))
		.join(', ');

/** The machine, the versions measured and the command, for the top of a benchmark's output. */
export function describeRun(script: string): string[] {
	const version = (name: string) => (require(`${name}/package.json`) as { version: string }).version;
	const versions = ['n8n-core', 'n8n-workflow', 'n8n-nodes-base', 'undici'].map((name) => `${name} ${version(name)}`).join(', ');
	const argv = process.argv.slice(2);
	return [
		`Machine: ${os.availableParallelism()} CPUs, ${os.cpus()[0]?.model ?? 'unknown'}, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB memory, ${os.platform()} ${os.release()}`,
		`Node ${process.version}; ${versions}`,
		`Load average at the start: ${loadAverage()}`,
		`Command: npm run ${script}${argv.length ? ` -- ${argv.join(' ')}` : ''}`,
	];
}

/** Builds dist/ if it is missing, and copies it: a rebuild in the tree during the run cannot touch what is measured. */
export function snapshotBuild(log: (line: string) => void): string {
	const dist = builtPackage(path.join(REPOSITORY_ROOT, 'dist'));
	if (!existsSync(dist.node)) {
		log('dist/ is missing: npm run build');
		const build = spawnSync('npm', ['run', 'build'], { cwd: REPOSITORY_ROOT, stdio: 'inherit' });
		if (build.status !== 0) throw new Error('npm run build failed');
	} else {
		const built = Math.floor(statSync(dist.node).mtimeMs / 1000);
		const newer = execFileSync('find', ['nodes', 'credentials', '-name', '*.ts', '-newermt', `@${built}`], {
			cwd: REPOSITORY_ROOT,
			encoding: 'utf8',
		}).trim();
		if (newer) log(`Note: sources changed after dist/ was built (${newer.split('\n')[0]}…); npm run build to measure them.`);
	}
	const copy = mkdtempSync(path.join(os.tmpdir(), 'phprank-bench-'));
	process.once('exit', () => rmSync(copy, { recursive: true, force: true }));
	cpSync(dist.directory, copy, { recursive: true });
	return copy;
}

export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** A Markdown table: the text columns (by index) left-aligned, the figures right-aligned. */
export function markdownTable(header: string[], rows: Array<Array<string | number>>, textColumns = [0]): string[] {
	const line = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
	return [line(header), `|${header.map((_, index) => (textColumns.includes(index) ? '---' : '---:')).join('|')}|`, ...rows.map(line)];
}

export const log = (...lines: string[]) => console.log(lines.join('\n'));

/** Runs a benchmark script's main function: exit code 0 when it is done, 1 (with the error) when it throws. */
export function runScript(main: () => Promise<void>): void {
	main().then(
		() => process.exit(0),
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}

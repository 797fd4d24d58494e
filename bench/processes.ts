/**
 * What the benchmark scripts share: the client processes (bench/worker.ts), the phpRank server
 * they talk to, the snapshot of dist/ they measure, and the description of the machine.
 */
import { execFileSync, fork, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { startPhpRankServer } from '../dev/server';
import type { PhpRankServer, PhpRankServerOptions } from '../dev/server';
import { builtPackage, REPOSITORY_ROOT } from './clients/n8n';
import type { VariantId } from './plan';
import type { Command, Reply } from './worker';

export const LATENCY_MS = 2;
const WORKER = path.join(__dirname, 'worker.ts');

/** A client process, driven one command at a time. */
export class Worker {
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

/**
 * The item jobs open a thousand connections at once (the server closes each after its answer).
 * Node's default listen backlog, 511, would overflow: the kernel drops the connections beyond it
 * and their clients retry a second later, which would measure TCP, not the clients. The bundled
 * server is started with the system's largest backlog instead.
 */
const LISTEN_BACKLOG = 4096;

export async function startServer(options: PhpRankServerOptions): Promise<PhpRankServer> {
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
export function listenOverflows(): number | undefined {
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

export function machine(): string[] {
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

export const loadAverage = () => os.loadavg().map((load) => load.toFixed(2)).join(', ');

/** Builds dist/ if it is missing, and copies it: a rebuild in the tree during the run cannot touch what is measured. */
export function snapshotBuild(log: (line: string) => void): string {
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

export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

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

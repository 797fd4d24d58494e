/**
 * Child processes with bounded waits, their output kept for error messages and written to a log file, and
 * cleaned up on exit: every child gets its own process group, so stopping it also stops what it started
 * (n8n's task runner, npm's scripts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';

import { seconds, waitFor } from './util';

const MAX_KEPT_OUTPUT = 2_000_000;
const STOP_GRACE_MS = 20_000;

export interface ProcessOptions {
	cwd?: string;
	env?: NodeJS.ProcessEnv;
	/** Output is appended to this file as well. */
	logFile?: string;
}

export type StartedProcess = ReturnType<typeof startProcess>;

/** Every child started, with how to stop it, until it is stopped. */
const running = new Map<ChildProcess, () => Promise<void>>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	try {
		if (child.pid !== undefined) process.kill(-child.pid, signal);
	} catch {
		// already gone
	}
}

/** The last lines of some output, indented, for an error message. */
export function tail(text: string, lines = 25): string {
	const last = text.trimEnd().split('\n').slice(-lines);
	return last.length && last[0] !== '' ? `:\n${last.map((line) => `    ${line}`).join('\n')}` : '';
}

/** Starts `[command, ...args]`. Stop it with `stop()`; it is killed anyway when this process exits. */
function startProcess(name: string, [command, ...args]: string[], options: ProcessOptions = {}) {
	if (options.logFile) mkdirSync(path.dirname(options.logFile), { recursive: true });
	const log = options.logFile ? createWriteStream(options.logFile, { flags: 'a' }) : undefined;
	log?.write(`\n$ ${[command, ...args].map((part) => (/[\s"']/.test(part) ? JSON.stringify(part) : part)).join(' ')}\n`);
	const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
	let output = '';
	let stdout = '';
	let exited = false;
	const collect = (text: string) => {
		output = (output + text).slice(-MAX_KEPT_OUTPUT);
		log?.write(text);
	};
	child.stdout.on('data', (chunk: Buffer) => {
		stdout = (stdout + chunk.toString('utf8')).slice(-MAX_KEPT_OUTPUT);
		collect(chunk.toString('utf8'));
	});
	child.stderr.on('data', (chunk: Buffer) => collect(chunk.toString('utf8')));
	const exitedPromise = new Promise<number | null>((resolve) => {
		const end = (code: number | null) => {
			if (exited) return;
			exited = true;
			log?.end();
			resolve(code);
		};
		child.once('error', (error) => {
			collect(`\n[${name}: ${error.message}]\n`);
			end(null);
		});
		child.once('close', end);
	});
	/** SIGTERM to the process, then SIGKILL to its group after a grace period or once it has ended. */
	const stop = async () => {
		if (!exited) {
			// The process alone first: n8n shuts down its task runner itself, and hangs if the runner is gone first.
			child.kill('SIGTERM');
			const timer = setTimeout(() => killGroup(child, 'SIGKILL'), STOP_GRACE_MS);
			await exitedPromise;
			clearTimeout(timer);
		}
		// Whatever the process started and left behind in its group.
		killGroup(child, 'SIGKILL');
		running.delete(child);
	};
	// Listed until stop(), even once exited: what it started may still run in its group.
	running.set(child, stop);
	return {
		pid: child.pid,
		/** Everything written so far, stdout and stderr interleaved. */
		output: () => output,
		/** What it wrote to stdout alone (`npm pack --json`, `n8n execute --rawOutput`). */
		stdout: () => stdout,
		/** Resolves with the exit code once the process has ended. */
		exited: exitedPromise,
		hasExited: () => exited,
		stop,
	};
}

/** Runs `[command, ...args]` to its end, within `timeoutMs`; rejects on a non-zero exit or the timeout. */
export async function runProcess(name: string, commandLine: string[], options: ProcessOptions & { timeoutMs: number }): Promise<StartedProcess> {
	const started = startProcess(name, commandLine, options);
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		void started.stop();
	}, options.timeoutMs);
	const code = await started.exited;
	clearTimeout(timer);
	await started.stop();
	if (timedOut) throw new Error(`${name} did not finish within ${seconds(options.timeoutMs)}${tail(started.output())}`);
	if (code !== 0) throw new Error(`${name} failed (exit code ${code})${tail(started.output())}`);
	return started;
}

/**
 * Starts a server and resolves once `ready` says it is, within `timeoutMs`; stops it when it exits before or
 * does not get ready in time.
 */
export async function startServer(
	name: string,
	commandLine: string[],
	options: ProcessOptions & { ready: () => Promise<boolean>; timeoutMs: number },
): Promise<StartedProcess> {
	const server = startProcess(name, commandLine, options);
	try {
		await waitFor(`${name} to be ready`, async () => ((await options.ready()) ? true : undefined), {
			timeoutMs: options.timeoutMs,
			intervalMs: 1_000,
			abort: () => (server.hasExited() ? `${name} exited${tail(server.output())}` : undefined),
		});
		return server;
	} catch (error) {
		await server.stop();
		throw error;
	}
}

/** Stops every process still running, gracefully, then by force. */
export async function stopAll(): Promise<void> {
	await Promise.all([...running.values()].map(async (stop) => await stop()));
}

/** Kills every child process group when this process ends, however it ends. Called once, at start-up. */
export function installCleanup(onSignal?: () => Promise<void>): void {
	process.on('exit', () => {
		for (const child of running.keys()) killGroup(child, 'SIGKILL');
	});
	let stopping = false;
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		// `on`, not `once`: Ctrl+C reaches this process both from the terminal and relayed by tsx or npm.
		process.on(signal, () => {
			if (stopping) return;
			stopping = true;
			setTimeout(() => process.exit(130), 30_000).unref();
			void (onSignal ? onSignal() : Promise.resolve())
				.catch(() => undefined)
				.then(() => stopAll())
				.finally(() => process.exit(130));
		});
	}
}

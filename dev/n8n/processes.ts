/**
 * Child processes with bounded waits, their output kept for error messages and written to a log file, and
 * cleaned up on exit: every child gets its own process group, so stopping it also stops what it started
 * (n8n's task runner, npm's scripts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import path from 'node:path';

const MAX_KEPT_OUTPUT = 2_000_000;

export interface ProcessOptions {
	cwd?: string;
	env?: NodeJS.ProcessEnv;
	/** Output is appended to this file as well. */
	logFile?: string;
	/** Called with every chunk of output, e.g. to show progress. */
	onOutput?: (text: string) => void;
}

export interface RunOptions extends ProcessOptions {
	timeoutMs: number;
	/** Piped to the process' standard input. */
	input?: string;
}

export interface RunResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
	durationMs: number;
}

export class ProcessError extends Error {
	constructor(
		message: string,
		readonly result: Partial<RunResult>,
	) {
		super(message);
	}
}

export interface StartedProcess {
	readonly child: ChildProcess;
	readonly name: string;
	/** Everything written so far, stdout and stderr interleaved. */
	output(): string;
	/** Resolves with the exit code once the process has ended. */
	readonly exited: Promise<number | null>;
	hasExited(): boolean;
	/** SIGTERM to the process, then SIGKILL to its group after the grace period or once it has ended. */
	stop(graceMs?: number): Promise<void>;
}

const running = new Set<StartedProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		try {
			child.kill(signal);
		} catch {
			// already gone
		}
	}
}

function openLog(logFile: string | undefined, header: string): WriteStream | undefined {
	if (!logFile) return undefined;
	mkdirSync(path.dirname(logFile), { recursive: true });
	const stream = createWriteStream(logFile, { flags: 'a' });
	stream.write(`\n$ ${header}\n`);
	return stream;
}

function describe(command: string, args: string[]): string {
	return [command, ...args].map((part) => (/[\s"']/.test(part) ? JSON.stringify(part) : part)).join(' ');
}

/** Starts a long-running process (a server). Stop it with `stop()`; it is killed anyway when this process exits. */
export function startProcess(name: string, command: string, args: string[], options: ProcessOptions = {}): StartedProcess {
	const log = openLog(options.logFile, describe(command, args));
	const child = spawn(command, args, {
		cwd: options.cwd,
		env: options.env ?? process.env,
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true,
	});
	let output = '';
	let exited = false;
	const collect = (chunk: Buffer) => {
		const text = chunk.toString('utf8');
		output = (output + text).slice(-MAX_KEPT_OUTPUT);
		log?.write(text);
		options.onOutput?.(text);
	};
	child.stdout?.on('data', collect);
	child.stderr?.on('data', collect);
	const exitedPromise = new Promise<number | null>((resolve) => {
		child.once('error', (error) => {
			collect(Buffer.from(`\n[${name}: ${error.message}]\n`));
			exited = true;
			resolve(null);
		});
		child.once('close', (code) => {
			exited = true;
			log?.end();
			resolve(code);
		});
	});
	const started: StartedProcess = {
		child,
		name,
		output: () => output,
		exited: exitedPromise,
		hasExited: () => exited,
		stop: async (graceMs = 15_000) => {
			if (!exited) {
				// The process alone first: n8n shuts down its task runner itself, and hangs if the runner is gone first.
				try {
					child.kill('SIGTERM');
				} catch {
					// already gone
				}
				const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
				await exitedPromise;
				clearTimeout(timer);
			}
			// Whatever the process started and left behind in its group.
			killGroup(child, 'SIGKILL');
			running.delete(started);
		},
	};
	// Listed until stop(), even once exited: what it started may still run in its group.
	running.add(started);
	return started;
}

/** Runs a command to its end, within `timeoutMs`; rejects on a non-zero exit, a signal or the timeout. */
export async function runProcess(name: string, command: string, args: string[], options: RunOptions): Promise<RunResult> {
	const log = openLog(options.logFile, describe(command, args));
	const startedAt = Date.now();
	const child = spawn(command, args, {
		cwd: options.cwd,
		env: options.env ?? process.env,
		stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
		detached: true,
	});
	const started: StartedProcess = {
		child,
		name,
		output: () => stdout + stderr,
		exited: Promise.resolve(null),
		hasExited: () => false,
		stop: async () => killGroup(child, 'SIGKILL'),
	};
	running.add(started);
	let stdout = '';
	let stderr = '';
	child.stdout?.on('data', (chunk: Buffer) => {
		const text = chunk.toString('utf8');
		stdout = (stdout + text).slice(-MAX_KEPT_OUTPUT);
		log?.write(text);
		options.onOutput?.(text);
	});
	child.stderr?.on('data', (chunk: Buffer) => {
		const text = chunk.toString('utf8');
		stderr = (stderr + text).slice(-MAX_KEPT_OUTPUT);
		log?.write(text);
		options.onOutput?.(text);
	});
	if (options.input !== undefined) child.stdin?.end(options.input);

	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		killGroup(child, 'SIGTERM');
		setTimeout(() => killGroup(child, 'SIGKILL'), 5_000).unref();
	}, options.timeoutMs);

	try {
		const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
			child.once('error', reject);
			child.once('close', (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal }));
		});
		const result: RunResult = { code, signal, stdout, stderr, durationMs: Date.now() - startedAt };
		if (timedOut) {
			throw new ProcessError(`${name} did not finish within ${Math.round(options.timeoutMs / 1000)} s${tail(stdout + stderr)}`, result);
		}
		if (code !== 0) {
			throw new ProcessError(`${name} failed (${signal ? `signal ${signal}` : `exit code ${code}`})${tail(stdout + stderr)}`, result);
		}
		return result;
	} finally {
		clearTimeout(timer);
		killGroup(child, 'SIGKILL');
		running.delete(started);
		log?.end();
	}
}

/** The last lines of some output, indented, for an error message. */
export function tail(text: string, lines = 25): string {
	const last = text.trimEnd().split('\n').slice(-lines);
	return last.length && last[0] !== '' ? `:\n${last.map((line) => `    ${line}`).join('\n')}` : '';
}

/** Stops every process still running, gracefully, then by force. */
export async function stopAll(graceMs = 10_000): Promise<void> {
	await Promise.all([...running].map((started) => started.stop(graceMs)));
}

let installed = false;

/** Kills every child process group when this process ends, however it ends. */
export function installCleanup(onSignal?: () => Promise<void>): void {
	if (installed) return;
	installed = true;
	process.on('exit', () => {
		for (const started of running) killGroup(started.child, 'SIGKILL');
	});
	let stopping = false;
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		// `on`, not `once`: Ctrl+C reaches this process both from the terminal and relayed by tsx or npm.
		process.on(signal, () => {
			if (stopping) return;
			stopping = true;
			const forced = setTimeout(() => process.exit(130), 30_000);
			forced.unref();
			void (onSignal ? onSignal() : Promise.resolve())
				.catch(() => undefined)
				.then(() => stopAll())
				.finally(() => process.exit(130));
		});
	}
}

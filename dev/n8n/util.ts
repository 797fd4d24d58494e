import { createServer } from 'node:net';
import path from 'node:path';

export const REPOSITORY_ROOT = path.resolve(__dirname, '..', '..');
export const EXAMPLES_DIR = path.join(REPOSITORY_ROOT, 'examples');
export const ARTIFACTS_DIR = path.join(REPOSITORY_ROOT, '.artifacts', 'e2e');
export const LOGS_DIR = path.join(ARTIFACTS_DIR, 'logs');

/** Listens on `port` of 127.0.0.1 (0: any) and closes again: the port listened on, or undefined when it is taken. */
async function listenOnce(port: number): Promise<number | undefined> {
	return await new Promise((resolve) => {
		const server = createServer().unref();
		server.once('error', () => resolve(undefined));
		server.listen(port, '127.0.0.1', () => {
			const address = server.address();
			server.close(() => resolve(typeof address === 'object' && address ? address.port : undefined));
		});
	});
}

/** A TCP port nobody listens on right now, on 127.0.0.1. */
export async function freePort(): Promise<number> {
	const port = await listenOnce(0);
	if (port === undefined) throw new Error('no free port on 127.0.0.1');
	return port;
}

export const portIsFree = async (port: number): Promise<boolean> => (await listenOnce(port)) === port;

export const sleep = async (ms: number) => await new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `probe` until it returns a value other than undefined, for at most `timeoutMs`. `abort` is asked
 * before each attempt and ends the wait early with its message (e.g. the process being waited for died).
 */
export async function waitFor<T>(
	what: string,
	probe: () => Promise<T | undefined>,
	options: { timeoutMs: number; intervalMs?: number; abort?: () => string | undefined },
): Promise<T> {
	const deadline = Date.now() + options.timeoutMs;
	let lastError: unknown;
	for (;;) {
		const aborted = options.abort?.();
		if (aborted) throw new Error(`${what}: ${aborted}`);
		try {
			const value = await probe();
			if (value !== undefined) return value;
		} catch (error) {
			lastError = error;
		}
		if (Date.now() >= deadline) {
			const reason = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
			throw new Error(`${what}: not within ${seconds(options.timeoutMs)}${reason}`);
		}
		await sleep(options.intervalMs ?? 500);
	}
}

/** fetch with a timeout. */
export async function request(url: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<Response> {
	const { timeoutMs = 30_000, ...rest } = init;
	return await fetch(url, { ...rest, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
}

export function seconds(ms: number): string {
	return ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function errorMessage(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

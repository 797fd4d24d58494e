import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import { PhpRankServer, PhpRankServerOptions, startPhpRankServer } from '../../../dev/server';

export interface Reply {
	status: number;
	headers: Record<string, string>;
	text: string;
	json: any;
}

export interface CallOptions {
	/** API key to send as Bearer token; null sends no Authorization header. Defaults to the server's key. */
	key?: string | null;
	/** Send Accept: application/json (default true). */
	accept?: boolean;
	headers?: Record<string, string>;
	form?: Record<string, string>;
	json?: unknown;
	body?: string;
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
	const flat: Record<string, string> = {};
	for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
	return flat;
}

/** Calls the server over real HTTP; `path` is relative to server.url (which includes basePath). */
export async function call(server: PhpRankServer, method: string, path: string, options: CallOptions = {}): Promise<Reply> {
	const headers: Record<string, string> = {};
	const key = options.key === undefined ? server.apiKey : options.key;
	if (key !== null) headers.authorization = `Bearer ${key}`;
	if (options.accept !== false) headers.accept = 'application/json';
	let body = options.body;
	if (options.form) {
		headers['content-type'] = 'application/x-www-form-urlencoded';
		body = new URLSearchParams(options.form).toString();
	} else if (options.json !== undefined) {
		headers['content-type'] = 'application/json';
		body = JSON.stringify(options.json);
	}
	Object.assign(headers, options.headers);
	const response = await request(`${server.url}${path}`, { method: method as 'GET', headers, body });
	const text = await response.body.text();
	let json: unknown;
	try {
		json = text ? JSON.parse(text) : undefined;
	} catch {
		json = undefined;
	}
	return { status: response.statusCode, headers: flatten(response.headers), text, json };
}

/** Starts a server for the file's tests and closes it afterwards. */
export function useServer(options: PhpRankServerOptions = {}): () => PhpRankServer {
	let server: PhpRankServer | undefined;
	beforeAll(async () => {
		server = await startPhpRankServer(options);
	});
	afterAll(async () => {
		await server?.close();
	});
	return () => {
		if (!server) throw new Error('The server has not started');
		return server;
	};
}

export const ISO_MICROSECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000000Z$/;

const ROOT = join(__dirname, '..', '..', '..');

/** Runs dev/server/cli.ts with `args`, its stdout piped. */
export function spawnCli(args: string[], stderr: 'inherit' | 'pipe' = 'inherit'): ChildProcess {
	// tsx loaded into the server's own process, not tsx's command line: that one runs the server in a child of its own
	// and does not always pass a signal on, which can leave the server running after the test.
	return spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'dev', 'server', 'cli.ts'), ...args], {
		cwd: ROOT,
		stdio: ['ignore', 'pipe', stderr],
	});
}

/** Runs dev/server/cli.ts with `args` and reads the JSON line it prints once it listens. */
export async function startCli(args: string[]): Promise<{ child: ChildProcess; url: string; apiKey: string }> {
	const child = spawnCli(args);
	const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
	const [line] = (await once(lines, 'line')) as [string];
	lines.close();
	return { child, ...JSON.parse(line) };
}

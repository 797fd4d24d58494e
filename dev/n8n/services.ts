/**
 * Redis and PostgreSQL from the operating system's packages (Debian: `apt-get install redis-server postgresql`),
 * each started on 127.0.0.1 on a free port with its data in a new temporary folder, for n8n's queue mode.
 *
 * PostgreSQL refuses to run as root: as root, its programs run as the `postgres` user the Debian package creates.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { runProcess, startServer, type StartedProcess } from './processes';
import { freePort } from './util';

export interface RunningService {
	port: number;
	/** e.g. "Redis 7.0.15". */
	version: string;
	stop(): Promise<void>;
}

export interface RunningPostgres extends RunningService {
	user: string;
	database: string;
}

/** The first version number `<program> --version` prints. */
async function versionOf(program: string): Promise<string> {
	const stdout = (await runProcess(`${program} --version`, [program, '--version'], { timeoutMs: 10_000 })).stdout();
	return /\d+\.\d+(\.\d+)?/.exec(stdout)?.[0] ?? stdout.trim();
}

/** A server with its data in `dir`, which goes when it stops. */
function service(server: StartedProcess, dir: string): Pick<RunningService, 'stop'> {
	return {
		stop: async () => {
			await server.stop();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

export async function startRedis(options: { logFile: string }): Promise<RunningService> {
	const version = `Redis ${await versionOf('redis-server')}`;
	const dir = mkdtempSync(path.join(os.tmpdir(), 'phprank-e2e-redis-'));
	const port = await freePort();
	const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no'];
	const redis = await startServer('redis-server', ['redis-server', ...args], {
		logFile: options.logFile,
		ready: async () => (await runProcess('redis-cli ping', ['redis-cli', '-p', String(port), 'ping'], { timeoutMs: 5_000 })).stdout().trim() === 'PONG',
		timeoutMs: 30_000,
	}).catch((error: unknown) => {
		rmSync(dir, { recursive: true, force: true });
		throw error;
	});
	return { port, version, ...service(redis, dir) };
}

export async function startPostgres(options: { logFile: string }): Promise<RunningPostgres> {
	// Debian installs the server programs off PATH, one folder per major version: the newest; elsewhere, PATH.
	const debian = '/usr/lib/postgresql';
	const majors = existsSync(debian) ? readdirSync(debian).filter((entry) => existsSync(path.join(debian, entry, 'bin', 'postgres'))) : [];
	const newest = majors.sort((a, b) => Number(b) - Number(a))[0];
	const program = (name: string) => (newest ? path.join(debian, newest, 'bin', name) : name);
	const asPostgres = process.getuid?.() === 0;
	const command = (name: string, args: string[]) => [...(asPostgres ? ['runuser', '-u', 'postgres', '--'] : []), program(name), ...args];
	const version = `PostgreSQL ${await versionOf(program('postgres'))}`;
	const dir = mkdtempSync(path.join(os.tmpdir(), 'phprank-e2e-postgres-'));
	// The postgres user must reach the folder: a folder of its own right under the temporary directory.
	if (asPostgres) chmodSync(dir, 0o777);
	const data = path.join(dir, 'data');
	const user = 'n8n';
	const port = await freePort();
	try {
		await runProcess('initdb', command('initdb', ['-D', data, '-U', user, '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync']), {
			cwd: dir,
			logFile: options.logFile,
			timeoutMs: 120_000,
		});
		// A throw-away database: durability costs time and buys nothing here.
		const settings = ['listen_addresses=127.0.0.1', 'unix_socket_directories=', 'fsync=off', 'synchronous_commit=off', 'full_page_writes=off'];
		const server = await startServer('postgres', command('postgres', ['-D', data, '-p', String(port), ...settings.flatMap((setting) => ['-c', setting])]), {
			cwd: dir,
			logFile: options.logFile,
			ready: async () => {
				await runProcess('pg_isready', [program('pg_isready'), '-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', 'postgres'], { timeoutMs: 10_000 });
				return true;
			},
			timeoutMs: 60_000,
		});
		// n8n's tables go into the `postgres` database initdb creates.
		return { port, version, user, database: 'postgres', ...service(server, dir) };
	} catch (error) {
		rmSync(dir, { recursive: true, force: true });
		throw error;
	}
}

/**
 * Redis and PostgreSQL from the operating system's packages (Debian: `apt-get install redis-server postgresql`),
 * each started on 127.0.0.1 on a free port with its data in a new temporary folder, for n8n's queue mode.
 *
 * PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user the Debian package creates.
 */
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { runProcess, startProcess, tail, type StartedProcess } from './processes';
import { freePort, waitFor } from './util';

export interface RunningService {
	port: number;
	process: StartedProcess;
	/** e.g. "Redis 7.0.15". */
	version: string;
	stop(): Promise<void>;
}

function onPath(command: string): string | undefined {
	for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
		const candidate = path.join(dir, command);
		if (dir && existsSync(candidate)) return candidate;
	}
	return undefined;
}

/** Sends one command to Redis and resolves with the first line of its answer. */
async function redisCommand(port: number, command: string): Promise<string> {
	return await new Promise((resolve, reject) => {
		const socket = connect({ host: '127.0.0.1', port });
		let answer = '';
		socket.setTimeout(3_000, () => socket.destroy(new Error('no answer')));
		socket.once('error', reject);
		socket.on('data', (chunk) => {
			answer += chunk.toString('utf8');
			if (answer.includes('\r\n')) {
				socket.end();
				resolve(answer.split('\r\n')[0]);
			}
		});
		socket.write(`${command}\r\n`);
	});
}

export async function startRedis(options: { logFile: string }): Promise<RunningService> {
	const binary = onPath('redis-server');
	if (!binary) throw new Error('redis-server is not installed: apt-get install -y redis-server');
	const dir = mkdtempSync(path.join(os.tmpdir(), 'phprank-e2e-redis-'));
	const port = await freePort();
	const redis = startProcess('redis-server', binary, [
		'--port', String(port),
		'--bind', '127.0.0.1',
		'--dir', dir,
		'--save', '',
		'--appendonly', 'no',
		'--daemonize', 'no',
	], { logFile: options.logFile });
	const stop = async () => {
		await redis.stop(5_000);
		rmSync(dir, { recursive: true, force: true });
	};
	try {
		await waitFor('Redis to answer PING', async () => ((await redisCommand(port, 'PING')) === '+PONG' ? true : undefined), {
			timeoutMs: 30_000,
			abort: () => (redis.hasExited() ? `redis-server exited${tail(redis.output())}` : undefined),
		});
	} catch (error) {
		await stop();
		throw error;
	}
	const { stdout } = await runProcess('redis-server --version', binary, ['--version'], { timeoutMs: 10_000 });
	const version = /v=([\d.]+)/.exec(stdout)?.[1];
	return { port, process: redis, version: `Redis ${version ?? stdout.trim()}`, stop };
}

/** The newest PostgreSQL server programs Debian installed (they are not on PATH), or those on PATH. */
function postgresBinDir(): string {
	const debian = '/usr/lib/postgresql';
	const versions = existsSync(debian)
		? readdirSync(debian)
				.filter((entry) => existsSync(path.join(debian, entry, 'bin', 'postgres')))
				.sort((a, b) => Number(b) - Number(a))
		: [];
	if (versions.length) return path.join(debian, versions[0], 'bin');
	const initdb = onPath('initdb');
	if (initdb && existsSync(path.join(path.dirname(initdb), 'postgres'))) return path.dirname(initdb);
	throw new Error('PostgreSQL is not installed: apt-get install -y postgresql');
}

/** The user PostgreSQL's programs run as: this one, or `postgres` when this process is root. */
function postgresUser(): { uid: number; gid: number; name: string } | undefined {
	if (process.getuid?.() !== 0) return undefined;
	const line = readFileSync('/etc/passwd', 'utf8')
		.split('\n')
		.find((entry) => entry.startsWith('postgres:'));
	if (!line) throw new Error('running as root, and there is no postgres user to run PostgreSQL as (apt-get install -y postgresql creates it)');
	const [name, , uid, gid] = line.split(':');
	return { name, uid: Number(uid), gid: Number(gid) };
}

export interface RunningPostgres extends RunningService {
	user: string;
	database: string;
}

export async function startPostgres(options: { logFile: string; database: string }): Promise<RunningPostgres> {
	const bin = postgresBinDir();
	const runAs = postgresUser();
	// The postgres user must reach the folder: a folder of its own right under the temporary directory.
	const dir = mkdtempSync(path.join(os.tmpdir(), 'phprank-e2e-postgres-'));
	if (runAs) chownSync(dir, runAs.uid, runAs.gid);
	const data = path.join(dir, 'data');
	const command = (program: string, args: string[]): [string, string[]] =>
		runAs ? ['runuser', ['-u', runAs.name, '--', path.join(bin, program), ...args]] : [path.join(bin, program), args];
	const user = 'n8n';

	const [initdb, initdbArgs] = command('initdb', ['-D', data, '-U', user, '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync']);
	await runProcess('initdb', initdb, initdbArgs, { cwd: dir, logFile: options.logFile, timeoutMs: 120_000 });

	const port = await freePort();
	const [postgres, postgresArgs] = command('postgres', [
		'-D', data,
		'-p', String(port),
		'-c', 'listen_addresses=127.0.0.1',
		'-c', 'unix_socket_directories=',
		// A throw-away database: durability costs time and buys nothing here.
		'-c', 'fsync=off',
		'-c', 'synchronous_commit=off',
		'-c', 'full_page_writes=off',
	]);
	const server = startProcess('postgres', postgres, postgresArgs, { cwd: dir, logFile: options.logFile });
	const stop = async () => {
		await server.stop(10_000);
		rmSync(dir, { recursive: true, force: true });
	};
	try {
		const client = (program: string) => path.join(bin, program);
		await waitFor(
			'PostgreSQL to accept connections',
			async () => {
				await runProcess('pg_isready', client('pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', 'postgres'], { timeoutMs: 10_000 });
				return true;
			},
			{ timeoutMs: 60_000, abort: () => (server.hasExited() ? `postgres exited${tail(server.output())}` : undefined) },
		);
		await runProcess('createdb', client('createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', user, options.database], {
			logFile: options.logFile,
			timeoutMs: 30_000,
		});
		const { stdout } = await runProcess('postgres --version', client('postgres'), ['--version'], { timeoutMs: 10_000 });
		const version = /(\d+(\.\d+)?)/.exec(stdout)?.[1] ?? stdout.trim();
		return { port, process: server, version: `PostgreSQL ${version}`, user, database: options.database, stop };
	} catch (error) {
		await stop();
		throw error;
	}
}

/**
 * Running n8n from the cached installation: its command line, its server, its workers in queue mode, and its
 * REST API as the editor uses it.
 *
 * Queue mode: a main process takes webhooks, runs triggers and pollers and puts executions on a Redis queue;
 * workers (`n8n worker`) take executions from it; all of them share one PostgreSQL database. Every process has a
 * user folder of its own, with the community package installed in it, as separate machines or containers would.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import type { N8nInstallation } from './n8nInstall';
import { runProcess, startServer, type StartedProcess } from './processes';
import type { RunningPostgres, RunningService } from './services';
import { EXAMPLES_DIR, freePort, LOGS_DIR, REPOSITORY_ROOT, request } from './util';

interface QueueSetup {
	redis: RunningService;
	postgres: RunningPostgres;
	/** Shared by every process: each decrypts the credentials the others stored. */
	encryptionKey: string;
}

interface N8nOptions {
	/** N8N_USER_FOLDER: n8n keeps its data in `<userFolder>/.n8n`, community packages in `.n8n/nodes`. */
	userFolder: string;
	/** Where its logs go: the start of their paths under .artifacts/e2e/logs, e.g. `2.41.1/` or `start-`. */
	logs: string;
	/** Queue mode, with these Redis and PostgreSQL. */
	queue?: QueueSetup;
	/** A folder the workflows may write files into, besides examples/ which they read. */
	outputFolder?: string;
	/** n8n settings of this process's own, e.g. `N8N_DATA_TABLES_MAX_SIZE_BYTES`. */
	env?: NodeJS.ProcessEnv;
}

/** Keys from the calling environment that would change how n8n behaves. */
const INHERITED_KEYS = /^(N8N_|DB_|EXECUTIONS_|QUEUE_|GENERIC_TIMEZONE$|WEBHOOK_URL$|NODE_OPTIONS$|NODE_PATH$|npm_|INIT_CWD$)/i;

export type RunningN8n = StartedProcess & { url: string };

/** Whether every URL answers 200: how n8n's processes tell they are ready. */
async function answer(urls: string[]): Promise<boolean> {
	for (const url of urls) if ((await request(url, { timeoutMs: 5_000 })).status !== 200) return false;
	return true;
}

/** One n8n process's setup: the installation, its user folder, and queue mode or not. */
export class N8n {
	constructor(
		readonly install: N8nInstallation,
		readonly options: N8nOptions,
	) {}

	private async env(extra: NodeJS.ProcessEnv = {}): Promise<NodeJS.ProcessEnv> {
		const env: NodeJS.ProcessEnv = {};
		for (const [key, value] of Object.entries(process.env)) if (!INHERITED_KEYS.test(key)) env[key] = value;
		const { userFolder, queue, outputFolder } = this.options;
		const { disabledModules, env: asDocumented } = this.install.runtime;
		return {
			...env,
			PATH: `${path.dirname(this.install.nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`,
			N8N_USER_FOLDER: userFolder,
			// Each n8n process starts a task broker; the default port 5679 would clash.
			N8N_RUNNERS_BROKER_PORT: String(await freePort()),
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_HOST: '127.0.0.1',
			N8N_PROTOCOL: 'http',
			N8N_SECURE_COOKIE: 'false',
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_HIRING_BANNER_ENABLED: 'false',
			...(disabledModules.length ? { N8N_DISABLED_MODULES: disabledModules.join(',') } : {}),
			// The examples read examples/data/urls.csv, relative to the folder n8n runs in (the repository).
			N8N_RESTRICT_FILE_ACCESS_TO: [EXAMPLES_DIR, ...(outputFolder ? [outputFolder] : [])].join(';'),
			N8N_LOG_LEVEL: 'info',
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
			...asDocumented,
			...(queue && {
				EXECUTIONS_MODE: 'queue',
				QUEUE_BULL_REDIS_HOST: '127.0.0.1',
				QUEUE_BULL_REDIS_PORT: String(queue.redis.port),
				DB_TYPE: 'postgresdb',
				DB_POSTGRESDB_HOST: '127.0.0.1',
				DB_POSTGRESDB_PORT: String(queue.postgres.port),
				DB_POSTGRESDB_USER: queue.postgres.user,
				DB_POSTGRESDB_DATABASE: queue.postgres.database,
				N8N_ENCRYPTION_KEY: queue.encryptionKey,
				// n8n 1.x runs executions started from the editor in the main process unless told otherwise; 2.x offloads them.
				OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
			}),
			...this.options.env,
			...extra,
		};
	}

	private command(name: string): { cwd: string; logFile: string } {
		return { cwd: REPOSITORY_ROOT, logFile: path.join(LOGS_DIR, `${this.options.logs}n8n-${name}.log`) };
	}

	/** `n8n <args>` to its end, from the repository folder; its output goes to the log `n8n-cli`. */
	async cli(args: string[], timeoutMs = 180_000): Promise<StartedProcess> {
		const { nodeBin, n8nBin } = this.install;
		return await runProcess(`n8n ${args[0]}`, [nodeBin, n8nBin, ...args], { ...this.command('cli'), env: await this.env(), timeoutMs });
	}

	/** `n8n import:credentials` or `n8n import:workflow` of these, through a file that goes afterwards: what n8n said. */
	async import(what: 'credentials' | 'workflow', entries: unknown[]): Promise<string> {
		const file = path.join(this.options.userFolder, `import-${what}.json`);
		mkdirSync(this.options.userFolder, { recursive: true });
		// Credentials are in plain text here, until n8n has encrypted them.
		writeFileSync(file, JSON.stringify(entries), { mode: 0o600 });
		try {
			return (await this.cli([`import:${what}`, `--input=${file}`])).output();
		} finally {
			rmSync(file, { force: true });
		}
	}

	/**
	 * `n8n start`, resolved once the editor and API answer. n8n 1.x reports itself ready as soon as its database
	 * is, before it has set up its REST API: the settings the editor loads first tell when it is. `env` adds to its
	 * environment (e.g. `N8N_DATA_TABLES_MAX_SIZE_BYTES`).
	 */
	async start(port: number, env: NodeJS.ProcessEnv = {}): Promise<RunningN8n> {
		const url = `http://127.0.0.1:${port}`;
		const started = await startServer('n8n start', [this.install.nodeBin, this.install.n8nBin, 'start'], {
			...this.command('start'),
			env: await this.env({ ...env, N8N_PORT: String(port) }),
			ready: async () => await answer([`${url}/healthz/readiness`, `${url}/rest/settings`]),
			timeoutMs: 180_000,
		});
		return { ...started, url };
	}

	/** `n8n worker`, resolved once its health endpoint says it is ready; `concurrency` executions at once. */
	async worker(concurrency: number): Promise<StartedProcess> {
		const healthPort = await freePort();
		return await startServer('n8n worker', [this.install.nodeBin, this.install.n8nBin, 'worker', `--concurrency=${concurrency}`], {
			...this.command('worker'),
			env: await this.env({ QUEUE_HEALTH_CHECK_ACTIVE: 'true', QUEUE_HEALTH_CHECK_PORT: String(healthPort), N8N_WORKER_SERVER_ADDRESS: '127.0.0.1' }),
			ready: async () => await answer([`http://127.0.0.1:${healthPort}/healthz/readiness`]),
			timeoutMs: 180_000,
		});
	}
}

export interface Owner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

/** n8n's REST API with a signed-in session cookie, the way the editor calls it. */
export class N8nRest {
	private cookie = '';

	constructor(readonly url: string) {}

	async call<T = unknown>(method: string, pathAndQuery: string, body?: unknown): Promise<T> {
		const response = await request(`${this.url}${pathAndQuery}`, {
			method,
			headers: {
				accept: 'application/json',
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
				...(this.cookie ? { cookie: this.cookie } : {}),
				// n8n's browser-id check binds the session to this header.
				'browser-id': 'n8n-nodes-phprank-e2e',
			},
			body: body === undefined ? undefined : JSON.stringify(body),
			timeoutMs: 60_000,
		});
		const auth = response.headers.getSetCookie().map((line) => line.split(';')[0]).find((pair) => pair.startsWith('n8n-auth='));
		if (auth) this.cookie = auth;
		const text = await response.text();
		if (!response.ok) throw new Error(`${method} ${pathAndQuery} answered ${response.status}: ${text.slice(0, 300)}`);
		const parsed = text ? (JSON.parse(text) as unknown) : undefined;
		// The REST endpoints wrap answers in { data }; /types/*.json do not.
		return (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && 'data' in parsed ? (parsed as { data: T }).data : parsed) as T;
	}

	/** Whether the instance still waits for its owner account. */
	async needsOwnerSetup(): Promise<boolean> {
		const settings = await this.call<{ userManagement?: { showSetupOnFirstLoad?: boolean } }>('GET', '/rest/settings');
		return settings.userManagement?.showSetupOnFirstLoad === true;
	}

	async login(owner: Owner): Promise<void> {
		await this.call('POST', '/rest/login', { emailOrLdapLoginId: owner.email, password: owner.password });
	}
}

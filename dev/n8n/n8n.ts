/** Running n8n from the cached installation: its command line, its server, and its REST API as the editor uses it. */
import path from 'node:path';

import type { N8nInstallation } from './n8nInstall';
import { knownModules } from './n8nVersions';
import { runProcess, startProcess, tail, type RunResult, type StartedProcess } from './processes';
import { EXAMPLES_DIR, LOGS_DIR, REPOSITORY_ROOT, request, waitFor } from './util';

export interface N8nEnvOptions {
	/** N8N_USER_FOLDER: n8n keeps its data in `<userFolder>/.n8n`, community packages in `.n8n/nodes`. */
	userFolder: string;
	/** Port of n8n's task broker (each n8n process starts one; the default 5679 would clash). */
	brokerPort: number;
	/** Port of the editor and API (only for `n8n start`). */
	port?: number;
}

/** The modules that call out to the internet at start-up: turned off where this n8n has them. */
const ONLINE_MODULES = ['mcp-registry'];

/** Keys from the calling environment that would change how n8n behaves. */
const INHERITED_KEYS = /^(N8N_|DB_|EXECUTIONS_|QUEUE_|GENERIC_TIMEZONE$|WEBHOOK_URL$|NODE_OPTIONS$|NODE_PATH$|npm_|INIT_CWD$)/i;

export function n8nEnv(install: N8nInstallation, options: N8nEnvOptions): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) if (!INHERITED_KEYS.test(key)) env[key] = value;
	const known = knownModules(install.dir);
	const disabledModules = ONLINE_MODULES.filter((name) => known.includes(name));
	return {
		...env,
		PATH: `${path.dirname(install.nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`,
		N8N_USER_FOLDER: options.userFolder,
		N8N_RUNNERS_BROKER_PORT: String(options.brokerPort),
		...(options.port ? { N8N_PORT: String(options.port) } : {}),
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
		N8N_RESTRICT_FILE_ACCESS_TO: EXAMPLES_DIR,
		N8N_LOG_LEVEL: 'info',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
	};
}

/** `n8n <args>`, run with the installation's Node.js from the repository folder. */
export async function n8nCli(
	install: N8nInstallation,
	env: NodeJS.ProcessEnv,
	args: string[],
	options: { timeoutMs?: number; logName?: string } = {},
): Promise<RunResult> {
	return await runProcess(`n8n ${args[0]}`, install.nodeBin, [install.n8nBin, ...args], {
		cwd: REPOSITORY_ROOT,
		env,
		timeoutMs: options.timeoutMs ?? 180_000,
		logFile: path.join(LOGS_DIR, `${options.logName ?? 'n8n-cli'}.log`),
	});
}

/** The execution `n8n execute --rawOutput` prints after its log lines. */
export interface CliExecution {
	status: string;
	finished?: boolean;
	data: {
		resultData: {
			error?: { message?: string; description?: string; node?: { name?: string } };
			lastNodeExecuted?: string;
			runData: Record<string, Array<{ executionStatus?: string; data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> } }>>;
		};
	};
}

export function parseCliExecution(stdout: string): CliExecution {
	// Log lines come before and after it (the task runner registers while the run goes on): the execution is
	// the JSON document from a line "{" to a line "}", both at the start of the line.
	const starts = [...stdout.matchAll(/^\{[ \t]*$/gm)].map((match) => match.index ?? 0);
	const ends = [...stdout.matchAll(/^\}[ \t]*$/gm)].map((match) => (match.index ?? 0) + 1);
	for (const start of starts) {
		for (const end of ends.filter((candidate) => candidate > start).reverse()) {
			try {
				const parsed = JSON.parse(stdout.slice(start, end)) as CliExecution;
				if (parsed?.data?.resultData) return parsed;
			} catch {
				// not this one
			}
		}
	}
	throw new Error(`no execution data in the output of n8n execute${tail(stdout, 15)}`);
}

/** Items a node sent out of one of its outputs in its first run, or [] when it did not run. */
export function nodeOutput(execution: CliExecution, node: string, output = 0): Array<Record<string, unknown>> {
	const run = execution.data.resultData.runData[node]?.[0];
	return (run?.data?.main?.[output] ?? []).map((item) => item.json);
}

export interface RunningN8n {
	process: StartedProcess;
	url: string;
	stop(): Promise<void>;
}

/**
 * `n8n start`, resolved once the editor and API answer, within `timeoutMs`. n8n 1.x reports itself ready as soon
 * as its database is, before it has set up its REST API: the settings the editor loads first tell when it is.
 */
export async function startN8n(
	install: N8nInstallation,
	env: NodeJS.ProcessEnv,
	options: { port: number; timeoutMs?: number; logName?: string },
): Promise<RunningN8n> {
	const n8nProcess = startProcess('n8n start', install.nodeBin, [install.n8nBin, 'start'], {
		cwd: REPOSITORY_ROOT,
		env,
		logFile: path.join(LOGS_DIR, `${options.logName ?? 'n8n-start'}.log`),
	});
	const url = `http://127.0.0.1:${options.port}`;
	const running: RunningN8n = { process: n8nProcess, url, stop: async () => await n8nProcess.stop(20_000) };
	try {
		await waitFor(
			'n8n to answer on /healthz/readiness and /rest/settings',
			async () => {
				if ((await request(`${url}/healthz/readiness`, { timeoutMs: 5_000 })).status !== 200) return undefined;
				return (await request(`${url}/rest/settings`, { timeoutMs: 5_000 })).status === 200 ? true : undefined;
			},
			{
				timeoutMs: options.timeoutMs ?? 180_000,
				intervalMs: 1_000,
				abort: () => (n8nProcess.hasExited() ? `n8n exited${tail(n8nProcess.output())}` : undefined),
			},
		);
	} catch (error) {
		await running.stop();
		throw error;
	}
	return running;
}

export interface Owner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

export class N8nApiError extends Error {
	constructor(
		message: string,
		readonly status: number,
		readonly body: string,
	) {
		super(message);
	}
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
		const setCookie = response.headers.getSetCookie?.() ?? [];
		const auth = setCookie.map((line) => line.split(';')[0]).find((pair) => pair.startsWith('n8n-auth='));
		if (auth) this.cookie = auth;
		const text = await response.text();
		if (!response.ok) throw new N8nApiError(`${method} ${pathAndQuery} answered ${response.status}: ${text.slice(0, 300)}`, response.status, text);
		const parsed = text ? (JSON.parse(text) as unknown) : undefined;
		// The REST endpoints wrap answers in { data }; /types/*.json do not.
		return (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && 'data' in parsed ? (parsed as { data: T }).data : parsed) as T;
	}

	/** Whether the instance still waits for its owner account. */
	async needsOwnerSetup(): Promise<boolean> {
		const settings = await this.call<{ userManagement?: { showSetupOnFirstLoad?: boolean } }>('GET', '/rest/settings');
		return settings.userManagement?.showSetupOnFirstLoad === true;
	}

	async setupOwner(owner: Owner): Promise<void> {
		await this.call('POST', '/rest/owner/setup', owner);
	}

	async login(email: string, password: string): Promise<void> {
		await this.call('POST', '/rest/login', { emailOrLdapLoginId: email, password });
	}
}

/**
 * n8n in queue mode: a main process that takes webhooks, runs triggers and pollers and puts executions on a Redis
 * queue, and workers (`n8n worker`) that take executions from it; all of them share one Postgres database.
 * Every process has a user folder of its own, with the community package installed in it, as separate machines
 * or containers would.
 */
import path from 'node:path';

import { n8nEnv } from './n8n';
import type { N8nInstallation } from './n8nInstall';
import { startProcess, tail, type StartedProcess } from './processes';
import type { RunningPostgres, RunningService } from './services';
import { freePort, LOGS_DIR, REPOSITORY_ROOT, request, waitFor } from './util';

export interface QueueSetup {
	redis: RunningService;
	postgres: RunningPostgres;
	/** Shared by every process: each decrypts the credentials the others stored. */
	encryptionKey: string;
}

/** The environment of one process of the queue-mode installation. */
export async function queueEnv(install: N8nInstallation, setup: QueueSetup, options: { userFolder: string; port?: number }): Promise<NodeJS.ProcessEnv> {
	return {
		...n8nEnv(install, { userFolder: options.userFolder, brokerPort: await freePort(), port: options.port }),
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(setup.redis.port),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(setup.postgres.port),
		DB_POSTGRESDB_USER: setup.postgres.user,
		DB_POSTGRESDB_DATABASE: setup.postgres.database,
		N8N_ENCRYPTION_KEY: setup.encryptionKey,
		// n8n 1.x runs executions started from the editor in the main process unless told otherwise; 2.x offloads them.
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
	};
}

export interface RunningWorker {
	name: string;
	process: StartedProcess;
	/** The IDs of the executions this worker has started so far, read from its log. */
	executionsStarted(): string[];
	stop(): Promise<void>;
}

/**
 * `n8n worker`, resolved once its health endpoint says it is ready. `concurrency` is how many executions it runs
 * at once.
 */
export async function startWorker(
	install: N8nInstallation,
	env: NodeJS.ProcessEnv,
	options: { name: string; concurrency: number; logName: string; timeoutMs?: number },
): Promise<RunningWorker> {
	const healthPort = await freePort();
	const worker = startProcess(`n8n worker (${options.name})`, install.nodeBin, [install.n8nBin, 'worker', `--concurrency=${options.concurrency}`], {
		cwd: REPOSITORY_ROOT,
		env: {
			...env,
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
			QUEUE_HEALTH_CHECK_PORT: String(healthPort),
			N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
		},
		logFile: path.join(LOGS_DIR, `${options.logName}.log`),
	});
	const running: RunningWorker = {
		name: options.name,
		process: worker,
		executionsStarted: () => [...worker.output().matchAll(/Worker started execution (\d+)/g)].map((match) => match[1]),
		stop: async () => await worker.stop(20_000),
	};
	try {
		await waitFor(
			`${options.name} to be ready`,
			async () => ((await request(`http://127.0.0.1:${healthPort}/healthz/readiness`, { timeoutMs: 5_000 })).status === 200 ? true : undefined),
			{
				timeoutMs: options.timeoutMs ?? 180_000,
				intervalMs: 1_000,
				abort: () => (worker.hasExited() ? `the worker exited${tail(worker.output())}` : undefined),
			},
		);
	} catch (error) {
		await running.stop();
		throw error;
	}
	return running;
}

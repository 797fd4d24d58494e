/**
 * The package in n8n's queue mode, as users run n8n once one process is not enough: Redis and Postgres, a main
 * process and two workers, each with the package installed in its own user folder.
 *
 * - both workers load the node: each runs executions that go through it;
 * - the spreadsheet example, then two runs of a 150-row create workflow at once, one on each worker, against the
 *   bundled server limited to 60 requests a window: exactly one report per row and no failed item, with the
 *   requests, 429s and time each worker took (each n8n process paces itself from phpRank's rate-limit headers);
 * - an active workflow with the phpRank Trigger, polled by the main process and run by the workers, fires once
 *   for every report created between its polls: none twice, none missed.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';

import { startPhpRankServer, type PhpRankServer, type RecordedRequest } from '../../dev/server';
import { assert, assertEqual } from '../lib/checks';
import { installIntoUserFolder } from '../../dev/n8n/communityPackage';
import { DEMO_CREDENTIAL, writeCredentialFile, writeImportFolder, type Example, type WorkflowJson } from '../../dev/n8n/examples';
import { activateWorkflow, getExecution, itemsOf, listExecutions, runManually, waitForExecution, type ExecutionDetail } from '../../dev/n8n/executions';
import { EXPECTATIONS, snapshot } from '../lib/expectations';
import { n8nCli, N8nRest, startN8n, type CliExecution, type RunningN8n } from '../../dev/n8n/n8n';
import { queueEnv, startWorker, type QueueSetup, type RunningWorker } from '../../dev/n8n/queue';
import { startPostgres, startRedis, type RunningPostgres, type RunningService } from '../../dev/n8n/services';
import { freePort, LOGS_DIR, request, seconds, waitFor } from '../../dev/n8n/util';
import { NODE_TYPE, OWNER, TRIGGER_NODE_TYPE, type LegContext, type NodeTypeDescription } from './singleInstance';

const WORKERS = 2;
const ROWS_PER_RUN = 150;
const RUNS = ['a', 'b'] as const;
/** phpRank's default: 60 requests a minute per client. E2E_RATE_WINDOW_SECONDS shortens the window for a quicker run. */
const RATE_LIMIT = { maxAttempts: 60, decaySeconds: Number(process.env.E2E_RATE_WINDOW_SECONDS ?? 60) };
/** Seconds of the minute the trigger polls at: n8n 2.x refuses a poll time more often than once a minute, so six. */
const POLL_SECONDS = [0, 10, 20, 30, 40, 50];
const POLL_INTERVAL_MS = 10_000;
/** Reports created on the server between polls, round by round: one page's worth and more in the last. */
const TRIGGER_ROUNDS = [3, 1, 0, 30];

const BULK_CREATE = { id: 'phprankQueueBulk1', name: 'phpRank queue mode: create a report per row', webhookPath: 'phprank-e2e-bulk-create' };
const NEW_REPORTS = { id: 'phprankQueueTrig1', name: 'phpRank queue mode: new reports' };
const SPREADSHEET = 'spreadsheet-to-seo-reports-offline.json';

const credentials = { phpRankApi: { id: DEMO_CREDENTIAL.id, name: DEMO_CREDENTIAL.name } };

/** A main connection to the first input of `node`. */
function to(node: string): WorkflowJson['connections'][string] {
	const target = { node, type: 'main', index: 0 };
	return { main: [[target]] };
}

function bulkCreateWorkflow(): WorkflowJson {
	return {
		id: BULK_CREATE.id,
		name: BULK_CREATE.name,
		nodes: [
			{
				id: randomUUID(),
				name: 'Rows arrive',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { httpMethod: 'POST', path: BULK_CREATE.webhookPath, responseMode: 'onReceived', options: {} },
			},
			{ id: randomUUID(), name: 'One item per row', type: 'n8n-nodes-base.splitOut', typeVersion: 1, position: [220, 0], parameters: { fieldToSplitOut: 'body.rows', options: {} } },
			{
				id: randomUUID(),
				name: 'Create SEO report',
				type: NODE_TYPE,
				typeVersion: 1,
				position: [440, 0],
				parameters: { resource: 'report', operation: 'create', url: '={{ $json.url }}' },
				credentials,
				onError: 'continueErrorOutput',
			},
		],
		connections: { 'Rows arrive': to('One item per row'), 'One item per row': to('Create SEO report') },
		settings: { executionOrder: 'v1' },
	};
}

function newReportsWorkflow(): WorkflowJson {
	return {
		id: NEW_REPORTS.id,
		name: NEW_REPORTS.name,
		nodes: [
			{
				id: randomUUID(),
				name: 'New report',
				type: TRIGGER_NODE_TYPE,
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					event: 'newReport',
					pollTimes: { item: POLL_SECONDS.map((second) => ({ mode: 'custom', cronExpression: `${second} * * * * *` })) },
				},
				credentials,
			},
			{ id: randomUUID(), name: 'Received', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [220, 0], parameters: {} },
		],
		connections: { 'New report': to('Received') },
		settings: { executionOrder: 'v1' },
	};
}

const bare = (url: string) => url.replace(/^https?:\/\//, '').replace(/\/$/, '');
const rowsOf = (run: string) => Array.from({ length: ROWS_PER_RUN }, (_, index) => ({ url: `https://run-${run}.queue.example/page-${index}` }));
const runOfUrl = (url: unknown) => /run-([a-z])\.queue\.example/.exec(String(url))?.[1];

function count<T>(values: T[]): Map<T, number> {
	const counts = new Map<T, number>();
	for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
	return counts;
}

/** Requests a run sent to create its reports, told apart by the URLs of its rows. */
function createRequests(server: PhpRankServer, run: string, since: number): RecordedRequest[] {
	return server.requests.filter((entry) => entry.time >= since && entry.method === 'POST' && entry.path === '/api/v1/reports' && runOfUrl(entry.body.url) === run);
}

export async function proveQueueMode(leg: Omit<LegContext, 'screenshotsDir'>): Promise<void> {
	const { checks, install, packed, examples, work } = leg;
	const logFile = (name: string) => path.join(LOGS_DIR, leg.logPrefix, `${name}.log`);
	const logName = (name: string) => `${leg.logPrefix}/${name}`;
	let redis: RunningService | undefined;
	let postgres: RunningPostgres | undefined;
	let phpRank: PhpRankServer | undefined;
	let main: RunningN8n | undefined;
	const workers: RunningWorker[] = [];
	try {
		redis = await checks.step('Redis from the system packages runs on 127.0.0.1', async () => await startRedis({ logFile: logFile('redis') }), (started) => `${started.version}, port ${started.port}`);
		postgres = await checks.step(
			'PostgreSQL from the system packages runs on 127.0.0.1, in a new data folder',
			async () => await startPostgres({ logFile: logFile('postgres'), database: 'n8n' }),
			(started) => `${started.version}, port ${started.port}, database ${started.database}`,
		);
		const setup: QueueSetup = { redis, postgres, encryptionKey: randomBytes(24).toString('hex') };
		const server = await checks.step(
			`bundled phpRank-compatible server listens, limited to ${RATE_LIMIT.maxAttempts} requests a ${RATE_LIMIT.decaySeconds}-second window`,
			async () => await startPhpRankServer({ host: '127.0.0.1', port: 0, rateLimit: RATE_LIMIT }),
			(started) => started.url,
		);
		phpRank = server;

		const processes = ['main', ...Array.from({ length: WORKERS }, (_, index) => `worker-${index + 1}`)];
		const userFolders = Object.fromEntries(processes.map((name) => [name, path.join(work, name)]));
		await checks.step(`npm install <tarball> in the user folder of each process (${processes.join(', ')})`, async () => {
			for (const folder of Object.values(userFolders)) await installIntoUserFolder(folder, packed);
		});

		const mainPort = await freePort();
		const mainEnv = await queueEnv(install, setup, { userFolder: userFolders.main, port: mainPort });
		const credentialFile = writeCredentialFile(path.join(work, 'credentials.json'), { baseUrl: server.url, apiKey: server.apiKey });
		const spreadsheet = examples.find((example) => example.file === SPREADSHEET);
		assert(spreadsheet, `examples/${SPREADSHEET} is missing`);
		const imported: Example[] = [
			spreadsheet,
			{ file: 'bulk-create.json', workflow: bulkCreateWorkflow(), id: BULK_CREATE.id, offline: false },
			{ file: 'new-reports.json', workflow: newReportsWorkflow(), id: NEW_REPORTS.id, offline: false },
		];
		await checks.step('n8n import:credentials and import:workflow into Postgres: the spreadsheet example, a 150-row create workflow, a phpRank Trigger workflow', async () => {
			await n8nCli(install, mainEnv, ['import:credentials', `--input=${credentialFile}`], { logName: logName('n8n-import') });
			const importDir = writeImportFolder(imported, path.join(work, 'workflows'));
			const { stdout, stderr } = await n8nCli(install, mainEnv, ['import:workflow', '--separate', `--input=${importDir}`], { logName: logName('n8n-import') });
			assert(new RegExp(`Successfully imported ${imported.length} workflows`).test(stdout + stderr), 'n8n did not report the import');
		});

		main = await checks.step(
			'n8n start (main process, EXECUTIONS_MODE=queue) answers on 127.0.0.1',
			async () => await startN8n(install, mainEnv, { port: mainPort, logName: logName('n8n-main') }),
			(running) => running.url,
		);
		for (const name of processes.slice(1)) {
			const env = await queueEnv(install, setup, { userFolder: userFolders[name] });
			// One execution at a time, so that two runs started together are taken by the two workers.
			const worker = await checks.step(
				`n8n worker (${name}) is ready`,
				async () => await startWorker(install, env, { name, concurrency: 1, logName: logName(`n8n-${name}`) }),
				() => 'concurrency 1',
			);
			workers.push(worker);
		}
		const rest = new N8nRest(main.url);
		await checks.step('owner set up and signed in', async () => {
			await rest.setupOwner(OWNER);
			await rest.login(OWNER.email, OWNER.password);
		});
		await checks.check('the main process runs in queue mode and knows the phpRank node and trigger', async () => {
			const settings = await rest.call<{ executionMode?: string }>('GET', '/rest/settings');
			assertEqual(settings.executionMode, 'queue', 'executionMode in /rest/settings');
			const types = await rest.call<NodeTypeDescription[]>('GET', '/types/nodes.json');
			for (const type of [NODE_TYPE, TRIGGER_NODE_TYPE]) assert(types.some((candidate) => candidate.name === type), `${type} is not registered`);
		});

		const workerOf = (executionId: string) => workers.find((worker) => worker.executionsStarted().includes(executionId))?.name;

		// The spreadsheet example, started as the editor does; n8n hands it to a worker.
		await checks.check(`examples/${SPREADSHEET} runs on a worker: one report per reachable row`, async () => {
			const expectation = EXPECTATIONS[SPREADSHEET];
			expectation.prepare(server);
			const before = snapshot(server);
			const trigger = spreadsheet.workflow.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger');
			assert(trigger, 'no manual trigger');
			const executionId = await runManually(rest, install.n8nVersion, spreadsheet.id, trigger.name);
			const execution = await waitForExecution(rest, executionId, 300_000);
			assertEqual(execution.status, 'success', `status of execution ${executionId}`);
			const ranOn = workerOf(executionId);
			assert(ranOn, `no worker's log says it started execution ${executionId}`);
			return `${ranOn}, execution ${executionId}: ${expectation.verify(execution as unknown as CliExecution, server, before)}`;
		});

		// Two runs of 150 rows at once, one per worker, against one rate limit.
		let bulkExecutions: ExecutionDetail[] = [];
		const bulkStartedAt = Date.now();
		await checks.step(`two runs of ${ROWS_PER_RUN} rows started together through the production webhook`, async () => {
			server.reset();
			server.setRateLimit(RATE_LIMIT);
			await activateWorkflow(rest, install.n8nVersion, BULK_CREATE.id);
			const answers = await Promise.all(
				RUNS.map(async (run) =>
					await request(`${main!.url}/webhook/${BULK_CREATE.webhookPath}`, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ rows: rowsOf(run) }),
					}),
				),
			);
			for (const answer of answers) assertEqual(answer.status, 200, `webhook answer (${await answer.text()})`);
			const limit = (RATE_LIMIT.decaySeconds * ((2 * ROWS_PER_RUN) / RATE_LIMIT.maxAttempts + 3) + 120) * 1000;
			const ids = await waitFor(
				'both runs to finish',
				async () => {
					const found = await listExecutions(rest, BULK_CREATE.id);
					return found.length >= RUNS.length && found.every((execution) => !['new', 'running', 'waiting'].includes(execution.status)) ? found.map((execution) => execution.id) : undefined;
				},
				{ timeoutMs: limit, intervalMs: 2_000 },
			);
			bulkExecutions = await Promise.all(ids.map(async (id) => await getExecution(rest, id)));
			return `executions ${ids.join(', ')}, ${seconds(Date.now() - bulkStartedAt)}`;
		});

		const runOfExecution = (execution: ExecutionDetail) => {
			const body = itemsOf(execution, 'Rows arrive')[0]?.body as { rows?: Array<{ url?: string }> } | undefined;
			return runOfUrl(body?.rows?.[0]?.url);
		};
		await checks.check('the two runs were taken by different workers', () => {
			const placed = bulkExecutions.map((execution) => `execution ${execution.id} (run ${runOfExecution(execution)}) on ${workerOf(execution.id) ?? 'no worker'}`);
			const ranOn = new Set(bulkExecutions.map((execution) => workerOf(execution.id)));
			assert(bulkExecutions.every((execution) => workerOf(execution.id)), `not every run is in a worker's log: ${placed.join('; ')}`);
			assertEqual(ranOn.size, WORKERS, `workers that ran the ${RUNS.length} runs (${placed.join('; ')})`);
			return placed.join('; ');
		});
		for (const execution of bulkExecutions) {
			const run = runOfExecution(execution) ?? '?';
			await checks.check(`run ${run}: ${ROWS_PER_RUN} reports out of "Create SEO report", no item on its error output`, () => {
				assertEqual(execution.status, 'success', 'execution status');
				const created = itemsOf(execution, 'Create SEO report', 0);
				const failed = itemsOf(execution, 'Create SEO report', 1);
				assertEqual(failed.length, 0, `failed items${failed.length ? ` (first: ${JSON.stringify(failed[0]).slice(0, 300)})` : ''}`);
				assertEqual(created.length, ROWS_PER_RUN, 'created items');
				assertEqual(new Set(created.map((item) => item.id)).size, ROWS_PER_RUN, 'distinct report IDs');
				return `execution ${execution.id} on ${workerOf(execution.id)}`;
			});
		}
		await checks.check(`the server holds exactly one report per row: ${RUNS.length * ROWS_PER_RUN} reports, each URL once`, () => {
			const reports = server.reports();
			const expected = RUNS.flatMap((run) => rowsOf(run).map((row) => bare(row.url)));
			const stored = count(reports.map((report) => bare(report.targetUrl)));
			const twice = [...stored].filter(([, times]) => times > 1).map(([url]) => url);
			const missing = expected.filter((url) => !stored.has(url));
			assert(twice.length === 0, `created more than once: ${twice.slice(0, 5).join(', ')}${twice.length > 5 ? ` and ${twice.length - 5} more` : ''}`);
			assert(missing.length === 0, `missing: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}`);
			assertEqual(reports.length, expected.length, 'reports on the server');
			return `${reports.length} reports`;
		});
		await checks.check('the rate limit was waited out: only 429s were sent again', () => {
			const lines: string[] = [];
			const all = server.requests.filter((entry) => entry.method === 'POST' && entry.path === '/api/v1/reports');
			for (const execution of bulkExecutions) {
				const run = runOfExecution(execution) ?? '?';
				const sent = createRequests(server, run, bulkStartedAt);
				const statuses = count(sent.map((entry) => entry.status));
				const unexpected = [...statuses.keys()].filter((status) => status !== 201 && status !== 429);
				assert(unexpected.length === 0, `run ${run} got answers other than 201 and 429: ${unexpected.join(', ')}`);
				const span = sent.length ? sent[sent.length - 1].time - sent[0].time : 0;
				lines.push(`${workerOf(execution.id)} (run ${run}): ${sent.length} requests, ${statuses.get(201) ?? 0} created, ${statuses.get(429) ?? 0} × 429, ${seconds(span)}`);
			}
			const refused = all.filter((entry) => entry.status === 429).length;
			const span = all.length ? all[all.length - 1].time - all[0].time : 0;
			const created = all.filter((entry) => entry.status === 201).length;
			// With the first request opening a window, the limit lets n requests through in (ceil(n / max) - 1) windows.
			const least = (Math.ceil(created / RATE_LIMIT.maxAttempts) - 1) * RATE_LIMIT.decaySeconds * 1000;
			lines.push(`together: ${all.length} requests, ${created} created, ${refused} × 429, ${seconds(span)} (the limit allows it in ${seconds(least)} at best)`);
			for (const line of lines) checks.info(line);
			return `${refused} × 429 waited out, ${seconds(span)}`;
		});

		// The phpRank Trigger: polled by the main process, its executions run by the workers.
		const triggerGets = () => server.requests.filter((entry) => entry.method === 'GET' && entry.path === '/api/v1/reports').length;
		const createdByRound: number[][] = [];
		let pollsAtActivation = 0;
		await checks.step(`phpRank Trigger workflow activated, polling every ${POLL_INTERVAL_MS / 1000} seconds (${POLL_SECONDS.length} poll times a minute)`, async () => {
			const before = triggerGets();
			pollsAtActivation = before;
			// Activation polls once to note where phpRank stands (reports before it are not new) and publishes when
			// that poll has an answer: right after the bulk runs have used up the window, a 429 first, waited out.
			const aWindowAndMore = (RATE_LIMIT.decaySeconds + 60) * 1000;
			await activateWorkflow(rest, install.n8nVersion, NEW_REPORTS.id, { timeoutMs: aWindowAndMore });
			await waitFor('the first poll', async () => (triggerGets() > before ? true : undefined), { timeoutMs: aWindowAndMore });
		});
		const triggerItems = async () => {
			const executions = await listExecutions(rest, NEW_REPORTS.id);
			const details = await Promise.all(executions.map(async (execution) => await getExecution(rest, execution.id)));
			return details.map((execution) => ({ execution, ids: itemsOf(execution, 'New report').map((item) => Number(item.id)) }));
		};
		const waitForPolls = async (polls: number) => {
			const target = triggerGets() + polls;
			await waitFor(`${polls} more polls`, async () => (triggerGets() >= target ? true : undefined), { timeoutMs: POLL_INTERVAL_MS * (polls + 3) });
		};
		const finished = (entry: { execution: ExecutionDetail }) => !['new', 'running', 'waiting'].includes(entry.execution.status);
		for (const [round, reports] of TRIGGER_ROUNDS.entries()) {
			const what =
				reports === 0
					? 'no report created between polls: no execution'
					: `${reports} ${reports === 1 ? 'report created between polls reaches' : 'reports created between polls reach'} an execution`;
			await checks.check(`trigger round ${round + 1}: ${what}`, async () => {
				await waitForPolls(1);
				const before = (await triggerItems()).length;
				if (reports === 0) {
					await waitForPolls(2);
					const after = await triggerItems();
					assertEqual(after.length, before, 'trigger executions after two polls with nothing new');
					return `${after.length} executions so far`;
				}
				const ids = server.seedReports(reports);
				createdByRound.push(ids);
				const seen = await waitFor(
					'the new reports to reach an execution',
					async () => {
						const found = await triggerItems();
						const all = found.flatMap((entry) => entry.ids);
						return ids.every((id) => all.includes(id)) && found.every(finished) ? found : undefined;
					},
					{ timeoutMs: 120_000, intervalMs: 2_000 },
				);
				const carrying = seen.filter((entry) => ids.some((id) => entry.ids.includes(id))).map((entry) => entry.execution.id);
				return `${ids.length > 1 ? `reports ${ids[0]}–${ids[ids.length - 1]}` : `report ${ids[0]}`} in execution ${carrying.join(', ')}`;
			});
		}
		await checks.check('after two more polls: every report created since activation emitted exactly once, none from before', async () => {
			await waitForPolls(2);
			const found = await triggerItems();
			assert(found.every(finished), 'an execution is still running');
			const emitted = found.flatMap((entry) => entry.ids);
			const expected = createdByRound.flat();
			const twice = [...count(emitted)].filter(([, times]) => times > 1).map(([id]) => id);
			assert(twice.length === 0, `emitted more than once: ${twice.join(', ')}`);
			const missed = expected.filter((id) => !emitted.includes(id));
			assert(missed.length === 0, `never emitted: ${missed.join(', ')}`);
			const unexpected = emitted.filter((id) => !expected.includes(id));
			assert(unexpected.length === 0, `emitted although created before activation: ${unexpected.join(', ')}`);
			return `${emitted.length} reports in ${found.length} executions over ${triggerGets() - pollsAtActivation} poll requests`;
		});
		await checks.check('every trigger execution succeeded on a worker, each report in creation order', async () => {
			const found = await triggerItems();
			for (const { execution, ids } of found) {
				assertEqual(execution.status, 'success', `status of execution ${execution.id}`);
				assert(workerOf(execution.id), `no worker's log says it started execution ${execution.id}`);
				assertEqual(ids, [...ids].sort((a, b) => a - b), `order of the reports in execution ${execution.id}`);
			}
			const perWorker = count(found.map(({ execution }) => workerOf(execution.id)));
			return `${found.length} executions, ${found.reduce((sum, entry) => sum + entry.ids.length, 0)} reports; ${[...perWorker].map(([name, times]) => `${name}: ${times}`).join(', ')}`;
		});

		await checks.check('both workers loaded the phpRank node and ran executions through it', async () => {
			const lines: string[] = [];
			for (const worker of workers) {
				const started = worker.executionsStarted();
				const withPhpRank: string[] = [];
				for (const id of started) {
					const execution = await getExecution(rest, id);
					const ranPhpRank = Object.keys(execution.data.resultData.runData).some((name) =>
						['Create SEO report', 'New report'].includes(name) && itemsOf(execution, name).length > 0,
					);
					if (ranPhpRank && execution.status === 'success') withPhpRank.push(id);
				}
				assert(withPhpRank.length > 0, `${worker.name} ran no successful execution through a phpRank node (started: ${started.join(', ') || 'none'})`);
				assert(!/Unrecognized node type|is not known/i.test(worker.process.output()), `${worker.name}'s log reports an unknown node type`);
				lines.push(`${worker.name}: ${withPhpRank.length} of ${started.length}`);
			}
			return lines.join(', ');
		});
	} finally {
		for (const worker of workers) await worker.stop().catch(() => undefined);
		await main?.stop().catch(() => undefined);
		await phpRank?.close().catch(() => undefined);
		await postgres?.stop().catch(() => undefined);
		await redis?.stop().catch(() => undefined);
	}
}

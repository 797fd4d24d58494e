/**
 * The package in n8n's queue mode, as users run n8n once one process is not enough: Redis and Postgres, a main
 * process and two workers, each with the package installed in its own user folder.
 *
 * - both workers load the node: each runs executions that go through it;
 * - the spreadsheet example, then two runs of a 90-row create workflow at once, one on each worker, against the
 *   bundled server limited to 60 requests a window: exactly one report per row and no failed item, with the
 *   requests, 429s and time each worker took (each n8n process paces itself from phpRank's rate-limit headers);
 * - an active workflow with the phpRank Trigger, polled by the main process and run by the workers, fires once
 *   for every report created between its polls: none twice, none missed.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';

import type { INodeTypeDescription } from 'n8n-workflow';

import { startPhpRankServer } from '../../dev/server';
import { assert, assertEqual } from '../lib/checks';
import { installIntoUserFolder } from '../../dev/n8n/communityPackage';
import { writingInto } from '../../dev/examples';
import { demoCredential } from '../../dev/n8n/examples';
import {
	activateWorkflow,
	getExecution,
	isFinished,
	itemsOf,
	listExecutions,
	runManually,
	waitForExecution,
	type Execution,
} from '../../dev/n8n/executions';
import { EXPECTATIONS, snapshot } from '../lib/expectations';
import { N8n, N8nRest } from '../../dev/n8n/n8n';
import type { StartedProcess } from '../../dev/n8n/processes';
import { startPostgres, startRedis } from '../../dev/n8n/services';
import { freePort, LOGS_DIR, request, seconds, waitFor } from '../../dev/n8n/util';
import { chain, DEMO_REFERENCE, importWorkflows, NODE_TYPE, outputFolderIn, OWNER, TRIGGER_NODE_TYPE, type LegContext } from './singleInstance';

const WORKERS = 2;
/**
 * Rows a run: more than a window's worth, so that each worker alone paces itself on the headers; the two runs
 * together need three windows, so that each meets the other's requests and waits out 429s more than once.
 */
const ROWS_PER_RUN = 90;
const RUNS = ['a', 'b'] as const;
/** phpRank's default: 60 requests a minute per client. E2E_RATE_WINDOW_SECONDS shortens the window for a quicker run. */
const RATE_LIMIT = { maxAttempts: 60, decaySeconds: Number(process.env.E2E_RATE_WINDOW_SECONDS ?? 60) };
/**
 * Seconds of the minute the trigger polls at: n8n 2.x refuses a poll time more often than once a minute, so twelve.
 * Each round needs a poll before and after it: the shorter the interval, the quicker the rounds; what they prove
 * (every report created between polls emitted once, none twice) does not depend on it.
 */
const POLL_INTERVAL_MS = 5_000;
const POLL_SECONDS = Array.from({ length: 60_000 / POLL_INTERVAL_MS }, (_, index) => (index * POLL_INTERVAL_MS) / 1000);
/** Reports created on the server between polls, round by round: one page's worth and more in the last. */
const TRIGGER_ROUNDS = [3, 1, 0, 30];

const BULK_CREATE = { id: 'phprankQueueBulk1', name: 'phpRank queue mode: create a report per row', webhookPath: 'phprank-e2e-bulk-create' };
const NEW_REPORTS = { id: 'phprankQueueTrig1', name: 'phpRank queue mode: new reports' };
const SPREADSHEET = 'spreadsheet-to-seo-reports-offline.json';

const bulkCreateWorkflow = () =>
	chain(BULK_CREATE, [
		{
			name: 'Rows arrive',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			webhookId: randomUUID(),
			parameters: { httpMethod: 'POST', path: BULK_CREATE.webhookPath, responseMode: 'onReceived', options: {} },
		},
		{ name: 'One item per row', type: 'n8n-nodes-base.splitOut', parameters: { fieldToSplitOut: 'body.rows', options: {} } },
		{
			name: 'Create SEO report',
			type: NODE_TYPE,
			parameters: { resource: 'report', operation: 'create', url: '={{ $json.url }}' },
			credentials: DEMO_REFERENCE,
			onError: 'continueErrorOutput',
		},
	]);

const newReportsWorkflow = () =>
	chain(NEW_REPORTS, [
		{
			name: 'New report',
			type: TRIGGER_NODE_TYPE,
			parameters: {
				event: 'newReport',
				pollTimes: { item: POLL_SECONDS.map((second) => ({ mode: 'custom', cronExpression: `${second} * * * * *` })) },
			},
			credentials: DEMO_REFERENCE,
		},
		{ name: 'Received', type: 'n8n-nodes-base.noOp', parameters: {} },
	]);

const bare = (url: string) => url.replace(/^https?:\/\//, '').replace(/\/$/, '');
const rowsOf = (run: string) => Array.from({ length: ROWS_PER_RUN }, (_, index) => ({ url: `https://run-${run}.queue.example/page-${index}` }));
const runOfUrl = (url: unknown) => /run-([a-z])\.queue\.example/.exec(String(url))?.[1];

function count<T>(values: T[]): Map<T, number> {
	const counts = new Map<T, number>();
	for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
	return counts;
}

export async function proveQueueMode(leg: LegContext): Promise<void> {
	const { checks, install, examples, work } = leg;
	const logFile = (name: string) => path.join(LOGS_DIR, leg.logs, `${name}.log`);
	// What was started, stopped the other way round at the end: the workers first, Redis last.
	const started: Array<() => Promise<unknown>> = [];
	const workers: Array<{ name: string; process: StartedProcess }> = [];
	try {
		const redis = await checks.step(
			'Redis from the system packages runs on 127.0.0.1',
			async () => await startRedis({ logFile: logFile('redis') }),
			(service) => `${service.version}, port ${service.port}`,
		);
		started.push(redis.stop);
		const postgres = await checks.step(
			'PostgreSQL from the system packages runs on 127.0.0.1, in a new data folder',
			async () => await startPostgres({ logFile: logFile('postgres') }),
			(service) => `${service.version}, port ${service.port}, database ${service.database}`,
		);
		started.push(postgres.stop);
		const queue = { redis, postgres, encryptionKey: randomBytes(24).toString('hex') };
		const server = await checks.step(
			`bundled phpRank-compatible server listens, limited to ${RATE_LIMIT.maxAttempts} requests a ${RATE_LIMIT.decaySeconds}-second window`,
			async () => await startPhpRankServer({ host: '127.0.0.1', port: 0, rateLimit: RATE_LIMIT }),
			(listening) => listening.url,
		);
		started.push(async () => await server.close());

		const processes = ['main', ...Array.from({ length: WORKERS }, (_, index) => `worker-${index + 1}`)];
		// One folder for the files the examples write, whichever process runs them: all run on this machine.
		const outputFolder = outputFolderIn(work);
		const setups = processes.map((name) => new N8n(install, { userFolder: path.join(work, name), logs: `${leg.logs}/${name}-`, queue, outputFolder }));
		await checks.step(`npm install <tarball> in the user folder of each process (${processes.join(', ')})`, async () => {
			for (const setup of setups) await installIntoUserFolder(setup.options.userFolder, leg.packed);
		});

		const spreadsheet = examples.find((example) => example.file === SPREADSHEET);
		assert(spreadsheet, `examples/${SPREADSHEET} is missing`);
		await checks.step(`n8n import:credentials and import:workflow into Postgres: the spreadsheet example, a ${ROWS_PER_RUN}-row create workflow, a phpRank Trigger workflow`, async () => {
			await setups[0].import('credentials', [demoCredential(server)]);
			await importWorkflows(setups[0], [writingInto(spreadsheet.workflow, outputFolder), bulkCreateWorkflow(), newReportsWorkflow()]);
		});

		// The main process and the workers start together: the import has set up the database, and each needs only
		// Redis and Postgres. Each is reported by its own step; one failing first must not end the suite unreported.
		const mainPort = await freePort();
		const mainStarting = setups[0].start(mainPort);
		mainStarting.catch(() => undefined);
		const starting = processes.slice(1).map((name, index) => {
			// One execution at a time, so that two runs started together are taken by the two workers.
			const worker = setups[index + 1].worker(1);
			worker.catch(() => undefined);
			return { name, worker };
		});
		const main = await checks.step('n8n start (main process, EXECUTIONS_MODE=queue) answers on 127.0.0.1', async () => await mainStarting, (running) => running.url);
		started.push(main.stop);
		for (const { name, worker } of starting) {
			const ready = await checks.step(`n8n worker (${name}) is ready`, async () => await worker, () => 'concurrency 1');
			workers.push({ name, process: ready });
			started.push(ready.stop);
		}
		const rest = new N8nRest(main.url);
		await checks.step('owner set up and signed in', async () => {
			await rest.call('POST', '/rest/owner/setup', OWNER);
			await rest.login(OWNER);
		});
		await checks.check('the main process runs in queue mode and knows the phpRank node and trigger', async () => {
			const settings = await rest.call<{ executionMode?: string }>('GET', '/rest/settings');
			assertEqual(settings.executionMode, 'queue', 'executionMode in /rest/settings');
			const types = await rest.call<INodeTypeDescription[]>('GET', '/types/nodes.json');
			for (const type of [NODE_TYPE, TRIGGER_NODE_TYPE]) assert(types.some((candidate) => candidate.name === type), `${type} is not registered`);
		});

		/** The IDs of the executions a worker has started so far, read from its log. */
		const executionsStarted = (worker: StartedProcess) => [...worker.output().matchAll(/Worker started execution (\d+)/g)].map((match) => match[1]);
		const workerOf = (executionId: string) => workers.find((worker) => executionsStarted(worker.process).includes(executionId))?.name;

		// The spreadsheet example, started as the editor does; n8n hands it to a worker.
		await checks.check(`examples/${SPREADSHEET} runs on a worker: one report per reachable row`, async () => {
			const expectation = EXPECTATIONS[SPREADSHEET];
			expectation.prepare(server);
			const before = snapshot(server);
			const executionId = await runManually(rest, install.n8nVersion, spreadsheet.workflow);
			const execution = await waitForExecution(rest, executionId, 300_000);
			assertEqual(execution.status, 'success', `status of execution ${executionId}`);
			const ranOn = workerOf(executionId);
			assert(ranOn, `no worker's log says it started execution ${executionId}`);
			return `${ranOn}, execution ${executionId}: ${expectation.verify(execution, server, before, outputFolder)}`;
		});

		// Two runs at once, one per worker, against one rate limit.
		let bulkExecutions: Execution[] = [];
		const bulkStartedAt = Date.now();
		await checks.step(`two runs of ${ROWS_PER_RUN} rows started together through the production webhook`, async () => {
			server.reset();
			server.setRateLimit(RATE_LIMIT);
			await activateWorkflow(rest, install.n8nVersion, { workflowId: BULK_CREATE.id });
			const answers = await Promise.all(
				RUNS.map(async (run) =>
					await request(`${main.url}/webhook/${BULK_CREATE.webhookPath}`, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ rows: rowsOf(run) }),
					}),
				),
			);
			for (const answer of answers) assertEqual(answer.status, 200, `webhook answer (${await answer.text()})`);
			const limit = (RATE_LIMIT.decaySeconds * ((2 * ROWS_PER_RUN) / RATE_LIMIT.maxAttempts + 3) + 120) * 1000;
			const done = await waitFor(
				'both runs to finish',
				async () => {
					const found = await listExecutions(rest, BULK_CREATE.id);
					return found.length >= RUNS.length && found.every(isFinished) ? found : undefined;
				},
				{ timeoutMs: limit, intervalMs: 2_000 },
			);
			bulkExecutions = await Promise.all(done.map(async ({ id }) => await getExecution(rest, id)));
			return `executions ${done.map(({ id }) => id).join(', ')}, ${seconds(Date.now() - bulkStartedAt)}`;
		});

		const runOfExecution = (execution: Execution) => {
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
		const firstFive = (list: unknown[]) => `${list.slice(0, 5).join(', ')}${list.length > 5 ? ` and ${list.length - 5} more` : ''}`;
		await checks.check(`the server holds exactly one report per row: ${RUNS.length * ROWS_PER_RUN} reports, each URL once`, () => {
			const reports = server.reports();
			const expected = RUNS.flatMap((run) => rowsOf(run).map((row) => bare(row.url)));
			const stored = count(reports.map((report) => bare(report.targetUrl)));
			const twice = [...stored].filter(([, times]) => times > 1).map(([url]) => url);
			const missing = expected.filter((url) => !stored.has(url));
			assert(twice.length === 0, `created more than once: ${firstFive(twice)}`);
			assert(missing.length === 0, `missing: ${firstFive(missing)}`);
			assertEqual(reports.length, expected.length, 'reports on the server');
			return `${reports.length} reports`;
		});
		await checks.check('the rate limit was waited out: only 429s were sent again', () => {
			const all = server.requests.filter((entry) => entry.method === 'POST' && entry.path === '/api/v1/reports');
			const spanOf = (sent: typeof all) => (sent.length ? sent[sent.length - 1].time - sent[0].time : 0);
			for (const execution of bulkExecutions) {
				const run = runOfExecution(execution) ?? '?';
				// The requests a run sent to create its reports, told apart by the URLs of its rows.
				const sent = all.filter((entry) => entry.time >= bulkStartedAt && runOfUrl(entry.body.url) === run);
				const statuses = count(sent.map((entry) => entry.status));
				const unexpected = [...statuses.keys()].filter((status) => status !== 201 && status !== 429);
				assert(unexpected.length === 0, `run ${run} got answers other than 201 and 429: ${unexpected.join(', ')}`);
				checks.info(`${workerOf(execution.id)} (run ${run}): ${sent.length} requests, ${statuses.get(201) ?? 0} created, ${statuses.get(429) ?? 0} × 429, ${seconds(spanOf(sent))}`);
			}
			const refused = all.filter((entry) => entry.status === 429).length;
			const created = all.filter((entry) => entry.status === 201).length;
			// With the first request opening a window, the limit lets n requests through in (ceil(n / max) - 1) windows.
			const least = (Math.ceil(created / RATE_LIMIT.maxAttempts) - 1) * RATE_LIMIT.decaySeconds * 1000;
			checks.info(`together: ${all.length} requests, ${created} created, ${refused} × 429, ${seconds(spanOf(all))} (the limit allows it in ${seconds(least)} at best)`);
			return `${refused} × 429 waited out, ${seconds(spanOf(all))}`;
		});

		// The phpRank Trigger: polled by the main process, its executions run by the workers.
		const triggerGets = () => server.requests.filter((entry) => entry.method === 'GET' && entry.path === '/api/v1/reports').length;
		const createdByRound: number[][] = [];
		const pollsAtActivation = triggerGets();
		const waitForPolls = async (polls: number) => {
			const target = triggerGets() + polls;
			await waitFor(`${polls} more polls`, async () => (triggerGets() >= target ? true : undefined), { timeoutMs: POLL_INTERVAL_MS * (polls + 3) });
		};
		await checks.step(`phpRank Trigger workflow activated, polling every ${POLL_INTERVAL_MS / 1000} seconds (${POLL_SECONDS.length} poll times a minute)`, async () => {
			// Activation polls once to note where phpRank stands (reports before it are not new) and publishes when
			// that poll has an answer: right after the bulk runs have used up the window, a 429 first, waited out.
			const aWindowAndMore = (RATE_LIMIT.decaySeconds + 60) * 1000;
			await activateWorkflow(rest, install.n8nVersion, { workflowId: NEW_REPORTS.id, timeoutMs: aWindowAndMore });
			await waitFor('the first poll', async () => (triggerGets() > pollsAtActivation ? true : undefined), { timeoutMs: aWindowAndMore });
		});
		const triggerItems = async () => {
			const executions = await Promise.all((await listExecutions(rest, NEW_REPORTS.id)).map(async ({ id }) => await getExecution(rest, id)));
			return executions.map((execution) => ({ execution, ids: itemsOf(execution, 'New report').map((item) => Number(item.id)) }));
		};
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
						return ids.every((id) => all.includes(id)) && found.every((entry) => isFinished(entry.execution)) ? found : undefined;
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
			assert(found.every((entry) => isFinished(entry.execution)), 'an execution is still running');
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
				const started = executionsStarted(worker.process);
				const executions = await Promise.all(started.map(async (id) => await getExecution(rest, id)));
				const ranPhpRank = (execution: Execution) => ['Create SEO report', 'New report'].some((name) => itemsOf(execution, name).length > 0);
				const withPhpRank = executions.filter((execution) => ranPhpRank(execution) && execution.status === 'success');
				assert(withPhpRank.length > 0, `${worker.name} ran no successful execution through a phpRank node (started: ${started.join(', ') || 'none'})`);
				assert(!/Unrecognized node type|is not known/i.test(worker.process.output()), `${worker.name}'s log reports an unknown node type`);
				lines.push(`${worker.name}: ${withPhpRank.length} of ${started.length}`);
			}
			return lines.join(', ');
		});
	} finally {
		for (const stop of started.reverse()) await stop().catch(() => undefined);
	}
}

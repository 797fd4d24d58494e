import { setTimeout as sleep } from 'node:timers/promises';
import type { IDataObject } from 'n8n-workflow';
import { createPoller, loadOptions } from '../../../../dev/engine';
import { apiRequests, byId, credentialsFor, reportsPerUrl, runPhpRank, serverPerTest } from '../../../support/phpRank';
import type { PhpRankServer } from '../../../support/phpRank';

// Scaled down from a 15 s restart: what is proven (no row lost, nothing twice, one probe at a time) is the same.
const OUTAGE_MS = 1500;

const createReturningExisting = (options: IDataObject = {}) => ({
	resource: 'report',
	operation: 'create',
	url: '={{ $json.url }}',
	ifReportExists: 'returnExisting',
	options,
});
const rows = (count: number, host: string) => Array.from({ length: count }, (_, index) => ({ url: `https://${host}/page-${index}` }));

/** Resolves once the server has stored `count` reports: the outage starts in the middle of a run, whatever the machine's speed. */
async function storedReports(server: PhpRankServer, count: number): Promise<void> {
	while (server.reports().length < count) await sleep(5);
}

/** Stops PHP once the run has stored `after` reports, and starts it again `ms` later. */
async function restartDuring(server: PhpRankServer, { after, ms }: { after: number; ms: number }) {
	await storedReports(server, after);
	await server.stop();
	const stoppedAt = Date.now();
	await sleep(ms);
	await server.start();
	return { stoppedAt, startedAt: Date.now() };
}

const phpRank = serverPerTest();

describe.each<[string, { gatewayTimeoutMs?: number }]>([
	['directly', {}],
	['behind its proxy', { gatewayTimeoutMs: 60_000 }],
])('phpRank restarted in the middle of a run, reached %s', (reached, proxy) => {
	it('loses no row and creates nothing twice: every item waits until phpRank answers again', async () => {
		// Two PHP workers and a tenth of a second per analysis: the run is under way when PHP stops.
		const server = await phpRank({ workers: 2, analysisMs: 100, ...proxy });
		const input = rows(30, `restart-${reached.replace(/ /g, '-')}.example.com`);

		const [{ items, error }, outage] = await Promise.all([
			runPhpRank(server, createReturningExisting(), { items: input, continueOnFail: true, timeoutMs: 60_000 }),
			restartDuring(server, { after: 5, ms: OUTAGE_MS }),
		]);

		expect(error).toBeUndefined();
		expect(items.filter((item) => item.json.error !== undefined).map((item) => item.json.error)).toEqual([]);
		expect(items.map((item) => item.json.url)).toEqual(input.map((row) => row.url.replace('https://', '')));
		const held = reportsPerUrl(server);
		expect([...held.keys()].sort()).toEqual(input.map((row) => row.url.replace('https://', '')).sort());
		expect([...held.values()].every((count) => count === 1)).toBe(true);
		// While PHP was down, requests went one at a time, after pauses, not one per waiting item. Without a proxy the
		// port refused them: only a request on a connection opened before the stop can arrive, and it is dropped.
		const duringOutage = apiRequests(server).filter((request) => request.time > outage.stoppedAt && request.time < outage.startedAt);
		expect(duringOutage.filter((request) => request.startedAt !== undefined)).toEqual([]);
		expect(duringOutage.map((request) => request.status)).toEqual(duringOutage.map(() => (proxy.gatewayTimeoutMs === undefined ? undefined : 502)));
		expect(duringOutage.length).toBeLessThan(input.length / 2);
	}, 60_000);

	it('reads: every item gets its report, the ones cut off by the stop included', async () => {
		// Two PHP workers and 50 ms a request: reads are under way, some waiting for a worker, when PHP stops.
		const server = await phpRank({ workers: 2, latencyMs: 50, seedReports: 30, ...proxy });
		const ids = Array.from({ length: 30 }, (_, index) => ({ id: index + 1 }));
		const answered = async () => {
			while (apiRequests(server).filter((request) => request.status === 200).length < 5) await sleep(5);
			await server.outage(OUTAGE_MS);
		};

		const [{ items, error }] = await Promise.all([
			runPhpRank(server, { resource: 'report', operation: 'get', reportId: byId('={{ $json.id }}') }, { items: ids, continueOnFail: true, timeoutMs: 60_000 }),
			answered(),
		]);

		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.error ?? item.json.id)).toEqual(ids.map(({ id }) => id));
	}, 60_000);

	it('fails items, saying so, once Max Wait is spent, and sends nothing twice', async () => {
		const server = await phpRank(proxy);
		server.seedReports(3);
		await runPhpRank(server, { resource: 'report', operation: 'get', reportId: byId('1') });
		await server.stop();
		const input = rows(4, 'long-outage.example.com');

		const { items } = await runPhpRank(server, createReturningExisting({ maxWait: 2 }), { items: input, continueOnFail: true });

		const host = new URL(server.url).host.replace(/\./g, '\\.');
		const said =
			proxy.gatewayTimeoutMs === undefined
				? new RegExp(`^phpRank at ${host} refused the connection( for \\d+ seconds?)?; running this row again is safe$`)
				: new RegExp(`^phpRank at ${host} was down( for \\d+ seconds?)?: a proxy in front of it answered 502 Bad Gateway; running this row again is safe$`);
		expect(items).toHaveLength(input.length);
		for (const item of items) expect(item.json.error).toMatch(said);
		await server.start();
		expect(server.reports()).toHaveLength(3);
		// Nothing reached PHP while it was down: the row runs again safely.
		expect(apiRequests(server).filter((request) => request.startedAt !== undefined && request.method === 'POST')).toEqual([]);
		const again = await runPhpRank(server, createReturningExisting(), { items: input, continueOnFail: true });
		expect(again.items.map((item) => item.json.outcome)).toEqual(input.map(() => 'created'));
		expect([...reportsPerUrl(server).values()].every((count) => count === 1)).toBe(true);
	}, 30_000);
});

describe('phpRank unreachable outside a run', () => {
	it('a trigger poll and an editor list wait for phpRank to answer again', async () => {
		const server = await phpRank({ seedReports: 3 });
		const poller = createPoller({ parameters: { event: 'newReport' }, credentials: credentialsFor(server) });
		expect(await poller.poll()).toBeNull();
		await server.stop();

		const [polled, listed] = await Promise.all([
			poller.poll(),
			loadOptions({
				method: 'listSearch',
				name: 'searchReports',
				parameters: { resource: 'report', operation: 'get', reportId: { __rl: true, mode: 'list', value: '' } },
				credentials: credentialsFor(server),
			}),
			sleep(1000).then(async () => await server.start()),
		]);

		expect(polled).toBeNull();
		expect((listed as { results: unknown[] }).results).toHaveLength(3);
	}, 30_000);
});

describe('cancelling the execution', () => {
	it('stops every wait for an unreachable phpRank', async () => {
		const server = await phpRank();
		await runPhpRank(server, { resource: 'report', operation: 'getAll', returnAll: true });
		await server.stop();
		const stop = new AbortController();

		const running = runPhpRank(server, createReturningExisting({ maxWait: 600 }), {
			items: rows(5, 'cancelled.example.com'),
			cancelSignal: stop.signal,
			timeoutMs: 700_000,
		});
		// The items are waiting: their wait is ten minutes long.
		await sleep(1500);
		stop.abort();
		const ended = await Promise.race([running.then(({ run }) => run.status), sleep(10_000, 'still waiting', { ref: false })]);

		expect(ended).toBe('canceled');
		await server.start();
		expect(apiRequests(server).filter((request) => request.method === 'POST')).toEqual([]);
	}, 30_000);

	it('stops every wait for the rate limit, and sends nothing after the stop', async () => {
		// One request a ten-minute window: the first create gets the 429, every item then waits for the window.
		const server = await phpRank({ rateLimit: { maxAttempts: 1, decaySeconds: 600 } });
		await runPhpRank(server, { resource: 'report', operation: 'getAll', limit: 1 });
		const stop = new AbortController();

		const running = runPhpRank(server, { resource: 'report', operation: 'create', url: '={{ $json.url }}', options: { maxWait: 900 } }, {
			items: rows(3, 'cancelled-at-limit.example.com'),
			cancelSignal: stop.signal,
			timeoutMs: 700_000,
		});
		while (!apiRequests(server).some((request) => request.status === 429)) await sleep(5);
		const sentBeforeStop = apiRequests(server).length;
		stop.abort();
		const { run, items } = await running;

		expect(run.status).toBe('canceled');
		expect(items.filter((item) => item.json.error !== undefined)).toEqual([]);
		await sleep(100);
		expect(apiRequests(server)).toHaveLength(sentBeforeStop);
		expect(server.reports()).toEqual([]);
	}, 30_000);

	it('ends as cancelled when it stops a request under way, saying the create may have been carried out', async () => {
		const server = await phpRank();
		server.injectFault({ method: 'POST', path: '/api/v1/reports', kind: 'hold' });
		const stop = new AbortController();

		const running = runPhpRank(server, { resource: 'report', operation: 'create', url: 'https://cancelled-under-way.example.com/' }, { cancelSignal: stop.signal, timeoutMs: 60_000 });
		await server.untilHeld();
		stop.abort();
		const { run, error } = await running;
		server.releaseHeld();

		expect(run.status).toBe('canceled');
		expect(error?.message).toBe('The execution was canceled while phpRank worked on the request; running this row again is safe with Return the Existing Report');
		expect(error?.description).toBe('phpRank may have created the report before the request was stopped.');
		expect(apiRequests(server).filter((request) => request.method === 'POST')).toHaveLength(1);
	}, 30_000);
});

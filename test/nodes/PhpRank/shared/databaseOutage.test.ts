import { setTimeout as sleep } from 'node:timers/promises';
import type { IDataObject } from 'n8n-workflow';
import { apiRequests, byId, reportsPerUrl, runPhpRank, serverPerTest } from '../../../support/phpRank';
import type { PhpRankServer, RecordedRequest } from '../../../support/phpRank';

// Scaled down from a 12 s database restart: what is proven (no row lost, nothing twice, one probe at a time) is the same.
const OUTAGE_MS = 1000;

const SERVER_ERROR = { message: 'Server Error' };

const createReturningExisting = (options: IDataObject = {}) => ({
	resource: 'report',
	operation: 'create',
	url: '={{ $json.url }}',
	ifReportExists: 'returnExisting',
	options,
});
const rows = (count: number, host: string) => Array.from({ length: count }, (_, index) => ({ url: `https://${host}/page-${index}` }));
const shown = (row: { url: string }) => row.url.replace('https://', '');

const isProbe = (request: RecordedRequest) => request.method === 'GET' && request.path.endsWith('/api/v1/account');

/** Resolves once a probe found the database down: the node knows phpRank fails every request. */
async function probedWhileDown(server: PhpRankServer): Promise<void> {
	while (!apiRequests(server).some((request) => isProbe(request) && request.status === 500)) await sleep(5);
}

/** Stops the database once `until` resolves, and starts it again `ms` later, once a probe has found it down. */
async function databaseDownDuring(server: PhpRankServer, { until, ms }: { until: Promise<void>; ms: number }) {
	await until;
	server.stopStore();
	const stoppedAt = Date.now();
	await Promise.all([sleep(ms), probedWhileDown(server)]);
	server.startStore();
	return { stoppedAt, startedAt: Date.now() };
}

/** Every probe was sent after the one before it was answered: one at a time. */
function oneAtATime(probes: RecordedRequest[]): boolean {
	return probes.every((probe, index) => index === 0 || probe.time >= (probes[index - 1].answeredAt ?? Infinity));
}

const phpRank = serverPerTest();

describe.each<[string, { gatewayTimeoutMs?: number }]>([
	['directly', {}],
	['behind its proxy', { gatewayTimeoutMs: 60_000 }],
])('phpRank\'s database restarted in the middle of a run, reached %s', (reached, proxy) => {
	it('loses no row and creates nothing twice: one probe at a time finds phpRank failing, every item waits for it', async () => {
		// Two PHP workers and a tenth of a second per analysis: the run is under way when the database stops.
		const server = await phpRank({ workers: 2, analysisMs: 100, ...proxy });
		const input = rows(30, `database-${reached.replace(/ /g, '-')}.example.com`);
		const storedFive = (async () => {
			while (server.reports().length < 5) await sleep(5);
		})();

		const [{ items, error }, outage] = await Promise.all([
			runPhpRank(server, createReturningExisting(), { items: input, continueOnFail: true, timeoutMs: 60_000 }),
			databaseDownDuring(server, { until: storedFive, ms: OUTAGE_MS }),
		]);

		expect(error).toBeUndefined();
		expect(items.filter((item) => item.json.error !== undefined).map((item) => item.json.error)).toEqual([]);
		expect(items.map((item) => item.json.url)).toEqual(input.map(shown));
		const held = reportsPerUrl(server);
		expect([...held.keys()].sort()).toEqual(input.map(shown).sort());
		expect([...held.values()].every((count) => count === 1)).toBe(true);
		// phpRank itself answered 500 "Server Error" while its database was down: no proxy page.
		const failed = apiRequests(server).filter((request) => request.status === 500);
		expect(failed.length).toBeGreaterThan(0);
		expect(failed.every((request) => request.startedAt !== undefined && request.handledStatus === 500)).toBe(true);
		// The creates that got it were settled by a lookup once phpRank was back, then sent once more.
		expect(items.filter((item) => item.json.outcome === 'created')).toHaveLength(input.length);
		// While it failed, one probe at a time found out, not one request per waiting item.
		const duringOutage = apiRequests(server).filter((request) => request.time > outage.stoppedAt && request.time < outage.startedAt);
		const probes = duringOutage.filter(isProbe);
		expect(probes.length).toBeGreaterThan(0);
		expect(oneAtATime(probes)).toBe(true);
		expect(duringOutage.length).toBeLessThan(input.length / 2);
	}, 60_000);

	it('reads: every item gets its report, those answered 500 read again once phpRank is back', async () => {
		const server = await phpRank({ workers: 2, latencyMs: 20, seedReports: 30, ...proxy });
		const ids = Array.from({ length: 30 }, (_, index) => ({ id: index + 1 }));
		const answeredFive = (async () => {
			while (apiRequests(server).filter((request) => request.status === 200).length < 5) await sleep(5);
		})();

		const [{ items, error }] = await Promise.all([
			runPhpRank(server, { resource: 'report', operation: 'get', reportId: byId('={{ $json.id }}') }, { items: ids, continueOnFail: true, timeoutMs: 60_000 }),
			databaseDownDuring(server, { until: answeredFive, ms: OUTAGE_MS }),
		]);

		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.error ?? item.json.id)).toEqual(ids.map(({ id }) => id));
		expect(apiRequests(server).some((request) => request.path.match(/\/reports\/\d+$/) && request.status === 500)).toBe(true);
	}, 60_000);

	it('repeats an update and a delete phpRank failed while its database was down: they did nothing', async () => {
		const server = await phpRank({ seedReports: 2, ...proxy });
		// Each test starts with phpRank answering, as it left the last.
		await runPhpRank(server, { resource: 'report', operation: 'get', reportId: byId('1') });
		server.clearRequests();
		server.stopStore();
		const restarted = probedWhileDown(server).then(() => server.startStore());

		const [updated, deleted] = await Promise.all([
			runPhpRank(server, { resource: 'report', operation: 'update', reportId: byId('1'), updateFields: { privacy: 1 } }),
			runPhpRank(server, { resource: 'report', operation: 'delete', reportId: byId('2') }),
			restarted,
		]);

		expect(updated.error).toBeUndefined();
		expect(deleted.error).toBeUndefined();
		expect(server.reports().map((report) => ({ id: report.id, privacy: report.privacy }))).toEqual([{ id: 1, privacy: 1 }]);
		const writes = apiRequests(server).filter((request) => request.method !== 'GET');
		// Each write was sent again only after phpRank failed it and a probe found phpRank failing every request.
		for (const method of ['PUT', 'DELETE']) {
			const sent = writes.filter((request) => request.method === method).map((request) => request.status);
			expect(sent[sent.length - 1]).toBe(200);
			expect(sent.slice(0, -1).every((status) => status === 500)).toBe(true);
		}
	}, 30_000);

	it('fails items once Max Wait is spent, saying phpRank answered 500 to everything and that running again is safe', async () => {
		const server = await phpRank(proxy);
		await runPhpRank(server, { resource: 'report', operation: 'get', reportId: byId('1') });
		server.stopStore();
		const input = rows(4, `database-down-${reached.replace(/ /g, '-')}.example.com`);

		const [waitingOff, spent] = await Promise.all([
			runPhpRank(server, createReturningExisting({ maxWait: 0 }), { items: input, continueOnFail: true }),
			runPhpRank(server, { resource: 'report', operation: 'create', url: 'https://another.example.com/', options: { maxWait: 1 } }, { continueOnFail: true }),
		]);

		const host = new URL(server.url).host.replace(/\./g, '\\.');
		const failing = `^phpRank at ${host} answered every request with 500 \\(its database or PHP failing as a whole\\)`;
		expect(waitingOff.items).toHaveLength(input.length);
		for (const item of waitingOff.items) {
			expect(item.json.error).toMatch(new RegExp(`${failing}( for \\d+ seconds?)?; running this row again is safe( with Return the Existing Report)?$`));
		}
		// The create itself got the 500: running it again is safe once its URL is looked up first.
		expect(spent.items[0].json.error).toMatch(new RegExp(`${failing}( for \\d+ seconds?)?; running this row again is safe with Return the Existing Report$`));
		server.startStore();
		expect(server.reports()).toEqual([]);
		const again = await runPhpRank(server, createReturningExisting(), { items: input, continueOnFail: true });
		expect(again.items.map((item) => item.json.outcome)).toEqual(input.map(() => 'created'));
		expect([...reportsPerUrl(server).values()].every((count) => count === 1)).toBe(true);
	}, 30_000);
});

describe('a 500 that phpRank gives one request only', () => {
	it('fails that item at once with its message: the probe finds phpRank answering, the read is not sent again', async () => {
		const server = await phpRank({ seedReports: 3 });
		await runPhpRank(server, { resource: 'report', operation: 'get', reportId: byId('1') });
		server.clearRequests();
		server.injectFault({ method: 'GET', path: '/api/v1/reports/2', kind: 'status', status: 500, body: SERVER_ERROR, times: Infinity });

		const { items } = await runPhpRank(server, { resource: 'report', operation: 'get', reportId: byId('={{ $json.id }}') }, {
			items: [{ id: 2 }],
			continueOnFail: true,
		});

		expect(items[0].json.error).toBe('phpRank failed to process the request (500): Server Error; running this row again is safe');
		expect(apiRequests(server).map((request) => `${request.method} ${request.path} ${request.status}`)).toEqual([
			'GET /api/v1/reports/2 500',
			'GET /api/v1/account 200',
		]);
	});

	it('a create: fails at once with its message, sent once, and the other rows are created', async () => {
		const server = await phpRank();
		await runPhpRank(server, { resource: 'report', operation: 'getAll', returnAll: true });
		// phpRank cannot analyze one page: the third create fails, the others are carried out.
		server.injectFault({ method: 'POST', path: '/api/v1/reports', kind: 'status', status: 500, body: SERVER_ERROR, skip: 2 });
		const input = rows(6, 'one-page-fails.example.com');

		const { items } = await runPhpRank(server, createReturningExisting(), { items: input, continueOnFail: true });

		const failedItems = items.filter((item) => item.json.error !== undefined);
		expect(failedItems.map((item) => item.json.error)).toEqual([
			'phpRank failed to process the request (500): Server Error; running this row again is safe with Return the Existing Report',
		]);
		expect(server.reports()).toHaveLength(input.length - 1);
		expect(apiRequests(server).filter((request) => request.method === 'POST')).toHaveLength(input.length);
		// One probe decided, at most: the other rows' answers may have told already.
		expect(apiRequests(server).filter(isProbe).length).toBeLessThanOrEqual(1);
	});
});

describe('a create with Create Another Report while phpRank fails every request', () => {
	it('is not sent again without a lookup: it fails once phpRank is back, saying running the row again is safe with Return the Existing Report', async () => {
		const server = await phpRank();
		await runPhpRank(server, { resource: 'report', operation: 'getAll', returnAll: true });
		server.stopStore();
		const restarted = probedWhileDown(server).then(() => server.startStore());

		const [{ items }] = await Promise.all([
			runPhpRank(server, { resource: 'report', operation: 'create', url: 'https://example.com/' }, { continueOnFail: true }),
			restarted,
		]);

		expect(items[0].json.error).toBe(
			'phpRank answered every request with 500 (its database or PHP failing as a whole) when the report for https://example.com/ was asked for; running this row again is safe with Return the Existing Report',
		);
		expect(apiRequests(server).filter((request) => request.method === 'POST')).toHaveLength(1);
		expect(server.reports()).toEqual([]);
	});
});

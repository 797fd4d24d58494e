/**
 * A phpRank deployed as most are: a proxy in front with a timeout, a small PHP worker pool behind it, and creates
 * that take an analysis each. Times are scaled down; no assertion depends on how fast the machine is.
 */
import type { RecordedRequest } from '../../../support/phpRank';
import { apiRequests, byId, requestLines, runPhpRank, useServer } from '../../../support/phpRank';

const server = useServer({}, (phpRank) => {
	phpRank.setDeployment({});
	phpRank.seedReports(3);
});

const create = (parameters: Record<string, unknown> = {}) => ({
	resource: 'report',
	operation: 'create',
	url: '={{ $json.url }}',
	...parameters,
});
const urls = (count: number) => Array.from({ length: count }, (_, index) => ({ url: `https://slow.example.com/page-${index}` }));

/** The most requests the server held at once, answered or not: from arrival to its answer (or the proxy's). */
function mostAtOnce(requests: RecordedRequest[]): number {
	const events = requests.flatMap((request) => [
		{ at: request.time, change: 1 },
		{ at: request.answeredAt ?? Infinity, change: -1 },
	]);
	events.sort((a, b) => a.at - b.at || a.change - b.change);
	let held = 0;
	let most = 0;
	for (const { change } of events) {
		held += change;
		most = Math.max(most, held);
	}
	return most;
}

const proxyAnswers = (requests: RecordedRequest[]) => requests.filter((request) => request.status === 504);

describe('bulk creates against 2 PHP workers behind a proxy', () => {
	const ROWS = 24;
	// An analysis well above the latency the node takes for noise (200 ms), as a real one (seconds) is.
	const twoWorkers = { workers: 2, analysisMs: 800, gatewayTimeoutMs: 8 * 800 };

	it('keeps only as many creates in flight as the server answers without queueing: no 504, no failed row, no duplicate', async () => {
		// The proxy gives up after 8 analyses: sent all at once, the last rows would wait 12.
		server().setDeployment(twoWorkers);

		const { items, error } = await runPhpRank(server(), create(), { items: urls(ROWS), timeoutMs: 120_000 });

		expect(error).toBeUndefined();
		expect(items.filter((item) => item.error !== undefined)).toEqual([]);
		expect(items.map((item) => item.json.outcome)).toEqual(urls(ROWS).map(() => 'created'));
		const creates = apiRequests(server()).filter((request) => request.method === 'POST');
		expect(proxyAnswers(creates)).toEqual([]);
		expect(creates.map((request) => request.status)).toEqual(urls(ROWS).map(() => 201));
		const stored = server().reports().filter((report) => report.project === 'slow.example.com');
		expect(stored.map((report) => report.url).sort()).toEqual(urls(ROWS).map((row) => row.url.slice(8)).sort());
		expect(mostAtOnce(creates)).toBeLessThan(ROWS / 2);
	}, 120_000);

	it('shares what it learnt between executions: a second run starts where the first ended', async () => {
		server().setDeployment(twoWorkers);
		await runPhpRank(server(), create(), { items: urls(8), timeoutMs: 120_000 });
		server().clearRequests();

		const { error } = await runPhpRank(server(), create(), { items: urls(8), timeoutMs: 120_000 });

		expect(error).toBeUndefined();
		const creates = apiRequests(server()).filter((request) => request.method === 'POST');
		// A fresh start sends one create alone; the learnt limit sends more than one from the first.
		expect(creates.filter((request) => request.time < creates[0].answeredAt!).length).toBeGreaterThan(1);
		expect(proxyAnswers(creates)).toEqual([]);
	}, 120_000);
});

/** One worker that analyzes longer than the proxy waits: every create is answered 504, and stored all the same. */
const proxyGivesUp = () => server().setDeployment({ workers: 1, analysisMs: 500, gatewayTimeoutMs: 150 });

describe.each(['returnExisting', 'reanalyzeExisting'])('Report > Create with %s, when the proxy answers 504', (choice) => {
	it('looks the URL up and returns the report the create made: no second create', async () => {
		proxyGivesUp();

		const { items, error } = await runPhpRank(server(), create({ url: 'https://example.com/slow', ifReportExists: choice }));

		expect(error).toBeUndefined();
		expect(requestLines(server())).toEqual(['GET /api/v1/reports', 'POST /api/v1/reports', 'GET /api/v1/reports']);
		expect(apiRequests(server()).map((request) => request.status)).toEqual([200, 504, 200]);
		const stored = server().reports().filter((report) => report.url === 'example.com/slow');
		expect(stored).toHaveLength(1);
		expect(items[0].json).toMatchObject({ id: stored[0].id, outcome: 'created' });
	});
});

describe('writes a proxy answered: the error says what phpRank may have done and how to run the item again', () => {
	it('Create Another Report: may have created the report; re-run with Return the Existing Report', async () => {
		proxyGivesUp();

		const { error } = await runPhpRank(server(), create({ url: 'https://example.com/slow' }));

		expect(error?.message).toBe(
			'phpRank may have created the report: a proxy in front of it answered 504 Gateway Time-out in its place; running this row again is safe with Return the Existing Report',
		);
		expect(error?.description).toMatch(/set If the URL Already Has a Report to Return the Existing Report/);
		expect(requestLines(server())).toEqual(['POST /api/v1/reports']);
		await server().idle();
		expect(server().reports().filter((report) => report.url === 'example.com/slow')).toHaveLength(1);
	});

	it('Update with Re-Analyze: may have re-analyzed the report; running it again is safe', async () => {
		proxyGivesUp();

		const { error } = await runPhpRank(server(), {
			resource: 'report',
			operation: 'update',
			reportId: byId('2'),
			updateFields: { reanalyze: true },
		});

		expect(error?.message).toBe(
			'phpRank may have re-analyzed Report 2: a proxy in front of it answered 504 Gateway Time-out in its place; running this row again is safe',
		);
		expect(error?.description).toMatch(/a re-analysis analyzes the page once more/);
		expect(requestLines(server())).toEqual(['PUT /api/v1/reports/2']);
	});

	it('Update of the privacy only: may have carried it out; a 502 is not sent again', async () => {
		server().injectFault({ method: 'PUT', path: '/api/v1/reports/2', kind: 'html', status: 502 });

		const { error } = await runPhpRank(server(), {
			resource: 'report',
			operation: 'update',
			reportId: byId('2'),
			updateFields: { privacy: 1 },
		});

		expect(error?.message).toBe('phpRank may have updated Report 2: a proxy in front of it answered 502 Bad Gateway in its place; running this row again is safe');
		expect(requestLines(server())).toEqual(['PUT /api/v1/reports/2']);
		// The proxy said phpRank is down: the next request waits for a read to find it back.
		server().clearRequests();
		await runPhpRank(server(), { resource: 'report', operation: 'update', reportId: byId('2'), updateFields: { privacy: 1 } });
		expect(requestLines(server())).toEqual(['GET /api/v1/account', 'PUT /api/v1/reports/2']);
	});
});

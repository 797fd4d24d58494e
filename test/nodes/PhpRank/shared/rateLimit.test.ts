import { NodeApiError } from 'n8n-workflow';
import { apiRequests, byId, runPhpRank, useServer } from '../../../support/phpRank';

const server = useServer({}, (phpRank) => phpRank.seedReports(3));
const limited = useServer({ rateLimit: { maxAttempts: 60, decaySeconds: 0.5, preciseRetryAfter: true } });

const create = (parameters: Record<string, unknown> = {}) => ({
	resource: 'report',
	operation: 'create',
	url: '={{ $json.url }}',
	...parameters,
});
const urls = (count: number, host = 'example.com') =>
	Array.from({ length: count }, (_, index) => ({ url: `https://${host}/page-${index}` }));

describe('429 Too Many Attempts', () => {
	it('waits out Retry-After and sends the same request again, once', async () => {
		server().injectFault({ path: '/api/v1/reports', method: 'POST', kind: 'status', status: 429, headers: { 'Retry-After': '0.3' } });

		const { items, error } = await runPhpRank(server(), create(), { items: urls(1) });

		expect(error).toBeUndefined();
		const [refused, accepted] = apiRequests(server());
		expect(apiRequests(server())).toHaveLength(2);
		expect([refused.status, accepted.status]).toEqual([429, 201]);
		expect(accepted.rawBody).toBe(refused.rawBody);
		expect(accepted.time - refused.time).toBeGreaterThanOrEqual(300);
		expect(server().reports().filter((report) => report.url === 'example.com/page-0')).toHaveLength(1);
		expect(items[0].json.url).toBe('example.com/page-0');
	});

	it('waits until X-RateLimit-Reset when no Retry-After is given', async () => {
		const reset = (Date.now() + 400) / 1000;
		server().injectFault({
			path: '/api/v1/reports/2',
			kind: 'status',
			status: 429,
			headers: { 'X-RateLimit-Reset': reset.toFixed(3) },
		});

		const { error } = await runPhpRank(server(), { resource: 'report', operation: 'get', reportId: byId('2') });

		expect(error).toBeUndefined();
		const [refused, accepted] = apiRequests(server());
		expect(accepted.time).toBeGreaterThanOrEqual(Math.floor(reset * 1000) - 5);
		expect(refused.status).toBe(429);
	});

	it('fails the item, saying how long phpRank asked to wait, when that is beyond Max Wait', async () => {
		server().injectFault({ path: '/api/v1/reports', method: 'POST', kind: 'status', status: 429, headers: { 'Retry-After': '120' } });

		const { error } = await runPhpRank(server(), create({ options: { maxWait: 60 } }), { items: urls(1) });

		expect(error).toBeInstanceOf(NodeApiError);
		expect(error?.message).toBe("phpRank's rate limit was reached (429 Too Many Attempts): the server asked to wait 120 seconds; running this row again is safe");
		expect(error?.description).toMatch(/beyond the 60 seconds this item may wait/);
		expect(apiRequests(server())).toHaveLength(1);
		expect(server().reports()).toHaveLength(3);
	});

	it('does not wait at all with Max Wait 0', async () => {
		server().injectFault({ path: '/api/v1/reports/2', kind: 'status', status: 429, headers: { 'Retry-After': '1' } });

		const { error } = await runPhpRank(server(), {
			resource: 'report',
			operation: 'get',
			reportId: byId('2'),
			options: { maxWait: 0 },
		});

		expect(error?.message).toBe("phpRank's rate limit was reached (429 Too Many Attempts): the server asked to wait 1 second; running this row again is safe");
		expect(error?.description).toMatch(/Waiting is off/);
		expect(apiRequests(server())).toHaveLength(1);
	});
});

describe('pacing against a rate-limited phpRank', () => {
	it('creates 300 reports from 300 items, each URL exactly once, at 60 requests a (compressed) minute', async () => {
		const rows = urls(300, 'paced.example.com');

		const { items, error } = await runPhpRank(limited(), create(), { items: rows, timeoutMs: 60_000 });

		expect(error).toBeUndefined();
		expect(items).toHaveLength(300);
		expect(items.every((item) => item.error === undefined && typeof item.json.id === 'number')).toBe(true);
		const created = limited()
			.reports()
			.filter((report) => report.project === 'paced.example.com')
			.map((report) => report.url);
		expect(created.sort()).toEqual(rows.map((row) => row.url.replace('https://', '')).sort());
		const answers = apiRequests(limited()).map((request) => request.status);
		expect(answers.filter((status) => status === 201)).toHaveLength(300);
		// Paced, the node meets the limit about once a window instead of firing every waiting item at it.
		expect(answers.filter((status) => status === 429).length).toBeLessThanOrEqual(6);
	}, 60_000);
});

describe('nothing but a 429 is sent twice', () => {
	// A proxy's 503 leaves phpRank known to be down: a read tells the node it answers again.
	afterEach(async () => await runPhpRank(server(), { resource: 'report', operation: 'get', reportId: byId('1') }));

	it.each([
		['a 500', { kind: 'status', status: 500 } as const, /^phpRank failed to process the request \(500\).*; running this row again is safe with Return the Existing Report$/],
		[
			'a 503 HTML page',
			{ kind: 'html', status: 503 } as const,
			/^phpRank may have created the report: a proxy in front of it answered 503 Service Unavailable in its place; running this row again is safe with Return the Existing Report$/,
		],
		[
			'a dropped connection',
			{ kind: 'drop' } as const,
			/^The connection to phpRank ended before it answered; phpRank may have created the report: running this row again is safe with Return the Existing Report$/,
		],
	])('fails a create that got %s, warning it may have been carried out', async (_, fault, message) => {
		server().injectFault({ path: '/api/v1/reports', method: 'POST', ...fault });

		const { error } = await runPhpRank(server(), create(), { items: urls(1) });

		expect(error?.message).toMatch(message);
		if (fault.kind === 'drop') expect(error?.description).toMatch(/may have carried it out .* it was not sent again/);
		// After phpRank's own 500 a probe (GET /account) found phpRank answering: the create's failure is its own.
		const probes = fault.kind === 'status' ? ['GET /api/v1/account'] : [];
		expect(apiRequests(server()).map((request) => `${request.method} ${request.path}`)).toEqual(['POST /api/v1/reports', ...probes]);
	});

	it('says "1 second" for a wait of one second', async () => {
		server().injectFault({ path: '/api/v1/reports', method: 'POST', kind: 'status', status: 429, headers: { 'Retry-After': '1' } });

		const { error } = await runPhpRank(server(), create({ options: { maxWait: 0.5 } }), { items: urls(1) });

		expect(error?.message).toBe("phpRank's rate limit was reached (429 Too Many Attempts): the server asked to wait 1 second; running this row again is safe");
		expect(error?.description).toMatch(/beyond the 0\.5 seconds this item may wait/);
		expect(apiRequests(server())).toHaveLength(1);
	});

	it('fails an update that timed out, without sending it again', async () => {
		server().injectFault({ path: '/api/v1/reports/2', method: 'PUT', kind: 'delay', delayMs: 1500 });

		const { error } = await runPhpRank(server(), {
			resource: 'report',
			operation: 'update',
			reportId: byId('2'),
			updateFields: { privacy: 1 },
			requestOptions: { timeout: 300 },
		});

		expect(error?.message).toBe('phpRank did not answer within 300 ms; it may have updated Report 2: running this row again is safe');
		expect(error?.description).toMatch(/may have carried it out .* it was not sent again/);
		expect(apiRequests(server())).toHaveLength(1);
	});
});

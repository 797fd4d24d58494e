import { setTimeout as sleep } from 'node:timers/promises';
import { startPhpRankServer } from '../../../dev/server';
import type { PhpRankServer } from '../../../dev/server';
import { call } from './helpers';

// phpRank's own answer while its database is down: Laravel's generic 500, pretty-printed (CONTRACT.md).
const SERVER_ERROR = '{\n    "message": "Server Error"\n}';

let server: PhpRankServer | undefined;
afterEach(async () => await server?.close());

describe.each([
	['directly', {}],
	['behind the proxy', { gatewayTimeoutMs: 60_000 }],
])('the database stopped and started again, reached %s', (_, proxy) => {
	it('every API request gets 500 "Server Error" from PHP, nothing is stored, and the same data is there afterwards', async () => {
		server = await startPhpRankServer({ seedReports: 2, rateLimit: { maxAttempts: 60, decaySeconds: 60 }, ...proxy });

		server.stopStore();
		expect(server.storeStopped).toBe(true);
		const answers = [
			await call(server, 'GET', '/api/v1/account'),
			await call(server, 'GET', '/api/v1/reports'),
			await call(server, 'GET', '/api/v1/reports/1'),
			await call(server, 'POST', '/api/v1/reports', { form: { url: 'https://example.com/new' } }),
			await call(server, 'PUT', '/api/v1/reports/1', { form: { results: '1' } }),
			await call(server, 'DELETE', '/api/v1/reports/2'),
			await call(server, 'GET', '/api/v1/account', { key: 'not-the-key' }),
		];
		server.startStore();
		const after = await call(server, 'GET', '/api/v1/account');

		for (const answer of answers) {
			expect({ status: answer.status, text: answer.text, type: answer.headers['content-type'] }).toEqual({
				status: 500,
				text: SERVER_ERROR,
				type: 'application/json',
			});
			expect(answer.headers['x-ratelimit-limit']).toBeUndefined();
		}
		expect(server.storeStopped).toBe(false);
		expect(after.status).toBe(200);
		// The 500s were not counted by the rate limit: PHP failed before it.
		expect(after.headers['x-ratelimit-remaining']).toBe('59');
		expect(server.reports().map((report) => report.id)).toEqual([1, 2]);
		// PHP worked on every request: no proxy answered in its place.
		expect(server.requests.every((request) => request.startedAt !== undefined && request.handledStatus === request.status)).toBe(true);
	});

	it('a create being analyzed when the database stops stores nothing and gets the 500', async () => {
		server = await startPhpRankServer({ analysisMs: 300, ...proxy });
		const creating = call(server, 'POST', '/api/v1/reports', { form: { url: 'https://example.com/working' } });
		while (server.requests[0]?.startedAt === undefined) await sleep(5);

		server.stopStore();
		const answer = await creating;
		server.startStore();

		expect({ status: answer.status, text: answer.text }).toEqual({ status: 500, text: SERVER_ERROR });
		expect(server.reports()).toEqual([]);
	});
});

describe('the database stopped', () => {
	it('a browser gets phpRank\'s error page', async () => {
		server = await startPhpRankServer();
		server.stopStore();

		const page = await call(server, 'GET', '/', { accept: false });

		expect(page.status).toBe(500);
		expect(page.text).toMatch(/<title>Server Error<\/title>/);
	});

	it('POST /__sim/store-outage answers, stops the database for that long and starts it again', async () => {
		server = await startPhpRankServer();

		const ordered = await call(server, 'POST', '/__sim/store-outage', { key: null, json: { ms: 300 } });
		const during = await call(server, 'GET', '/api/v1/account');
		while (server.storeStopped) await sleep(5);
		const refused = await call(server, 'POST', '/__sim/store-outage', { key: null, json: { ms: -1 } });

		expect(ordered.json).toEqual({ ok: true });
		expect(during.status).toBe(500);
		expect((await call(server, 'GET', '/api/v1/account')).status).toBe(200);
		expect(refused.status).toBe(400);
	});
});

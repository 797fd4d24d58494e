import { scorePage } from '../../../dev/server/analysis';
import { call, Reply, useServer } from './helpers';

describe('control API under {basePath}/__sim', () => {
	const server = useServer({ basePath: '/phprank' });
	beforeEach(() => server().reset());

	const control = (method: string, path: string, json?: unknown): Promise<Reply> =>
		call(server(), method, `/__sim${path}`, { key: null, accept: false, json });

	it('seeds reports and projects and reports the totals', async () => {
		const seeded = await control('POST', '/seed', { reports: 30, projects: 5 });
		expect(seeded.status).toBe(200);
		expect(seeded.json).toEqual({ reports: 30, projects: 5 });
		const more = await control('POST', '/seed', { reports: 4 });
		expect(more.json).toEqual({ reports: 34, projects: 5 + 4 });
		expect(server().reports()).toHaveLength(34);
	});

	it('resets everything', async () => {
		await control('POST', '/seed', { reports: 3 });
		await call(server(), 'GET', '/api/v1/reports');
		expect((await control('POST', '/reset')).json).toEqual({ ok: true });
		expect(server().reports()).toHaveLength(0);
		expect(server().requests).toHaveLength(0);
	});

	it('injects faults from JSON, with a RegExp given as pathPattern, and clears them', async () => {
		const added = await control('POST', '/faults', { pathPattern: '^/api/v1/reports/\\d+$', kind: 'status', status: 500, times: 'Infinity' });
		expect(added.status).toBe(201);
		expect(added.json).toEqual({ id: expect.any(Number) });
		expect((await call(server(), 'GET', '/api/v1/reports/1')).status).toBe(500);
		expect((await call(server(), 'GET', '/api/v1/reports/2')).status).toBe(500);
		expect((await call(server(), 'GET', '/api/v1/reports')).status).toBe(200);
		expect((await control('DELETE', '/faults')).status).toBe(200);
		expect((await call(server(), 'GET', '/api/v1/reports/1')).status).toBe(404);
	});

	it('injects query-matched faults', async () => {
		await control('POST', '/faults', { path: '/api/v1/reports', query: { page: '2' }, kind: 'malformedJson' });
		expect((await call(server(), 'GET', '/api/v1/reports?page=1')).status).toBe(200);
		expect((await call(server(), 'GET', '/api/v1/reports?page=2')).text).toBe('{"data": [');
	});

	it('rejects malformed faults with 400', async () => {
		expect((await control('POST', '/faults', { kind: 'explode' })).status).toBe(400);
		expect((await control('POST', '/faults', { kind: 'status' })).json).toEqual({ error: 'A status fault needs a numeric "status"' });
		const broken = await call(server(), 'POST', '/__sim/faults', { key: null, body: '{nope', headers: { 'content-type': 'application/json' } });
		expect(broken.status).toBe(400);
	});

	it('lists and clears the recorded requests, leaving its own calls out', async () => {
		await call(server(), 'GET', '/api/v1/reports?page=2');
		const listed = await control('GET', '/requests');
		expect(listed.status).toBe(200);
		expect(listed.json).toHaveLength(1);
		expect(listed.json[0]).toMatchObject({ method: 'GET', path: '/phprank/api/v1/reports', query: { page: '2' }, status: 200 });
		await control('DELETE', '/requests');
		expect(server().requests).toHaveLength(0);
	});

	it('sets and lifts the rate limit', async () => {
		expect((await control('POST', '/rate-limit', { maxAttempts: 1, decaySeconds: 10, preciseRetryAfter: true })).status).toBe(200);
		await call(server(), 'GET', '/api/v1/account');
		const refused = await call(server(), 'GET', '/api/v1/account');
		expect(refused.status).toBe(429);
		expect(refused.headers['retry-after']).toMatch(/^\d+\.\d{3}$/);
		await control('POST', '/rate-limit', false);
		expect((await call(server(), 'GET', '/api/v1/account')).status).toBe(200);
		await control('POST', '/rate-limit', { maxAttempts: 1, decaySeconds: 10 });
		await control('POST', '/rate-limit', { enabled: false });
		expect((await call(server(), 'GET', '/api/v1/account')).headers['x-ratelimit-limit']).toBeUndefined();
		expect((await control('POST', '/rate-limit', { maxAttempts: 'many' })).status).toBe(400);
	});

	it('injects after-handling faults on a share of requests from JSON', async () => {
		expect((await control('POST', '/faults', { path: '/api/v1/reports', kind: 'delayAfterHandling', every: 2, times: 'Infinity' })).status).toBe(400);
		expect((await control('POST', '/faults', { path: '/api/v1/reports', kind: 'delayAfterHandling', delayMs: 1, every: 2, times: 'Infinity' })).status).toBe(201);
		for (let i = 0; i < 4; i++) expect((await call(server(), 'GET', '/api/v1/reports')).status).toBe(200);
		expect(server().requests.map((request) => request.fault?.kind)).toEqual([undefined, 'delayAfterHandling', undefined, 'delayAfterHandling']);
	});

	it('changes a page, so that its re-analysis scores the changed page, and restores it', async () => {
		await call(server(), 'POST', '/api/v1/reports', { form: { url: 'https://www.example.com/' } });
		const before = server().reports()[0];
		expect((await control('POST', '/pages', { url: 'example.com', quality: 0 })).status).toBe(200);
		const worse = await call(server(), 'PUT', '/api/v1/reports/1', { form: { results: '1' } });
		expect(worse.json.data.result).toBe(scorePage('https://www.example.com/', 0));
		expect(Object.values(worse.json.data.results as Record<string, { passed: boolean }>).filter((check) => check.passed)).toHaveLength(1);
		expect((await control('POST', '/pages', { url: 'https://example.com/', quality: null })).status).toBe(200);
		const restored = await call(server(), 'PUT', '/api/v1/reports/1', { form: { results: '1' } });
		expect(restored.json.data.result).toBe(before.score);
		expect((await control('POST', '/pages', { url: 'example.com', quality: 2 })).json).toEqual({ error: 'A changed page needs a "quality" from 0 to 1' });
		expect((await control('POST', '/pages', { quality: 1 })).status).toBe(400);
	});

	it('answers 404 for unknown control endpoints and is not part of the API', async () => {
		expect((await control('GET', '/nothing')).status).toBe(404);
		expect((await call(server(), 'POST', '/api/v1/__sim/reset')).status).toBe(404);
	});
});

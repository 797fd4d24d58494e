import { DEFAULT_API_KEY } from '../../../dev/server';
import { call, ISO_MICROSECONDS, useServer } from './helpers';

describe('routing, authentication and envelopes', () => {
	const server = useServer({ seedReports: 3 });

	it('answers the account of the key owner', async () => {
		const reply = await call(server(), 'GET', '/api/v1/account');
		expect(reply.status).toBe(200);
		expect(reply.headers['content-type']).toBe('application/json');
		expect(reply.json).toEqual({
			data: {
				id: 1,
				name: 'Ada',
				email: 'ada@example.test',
				locale: 'en',
				timezone: 'UTC',
				plan: { id: 1, name: 'Default', features: { reports: -1 } },
				created_at: '2026-11-21T23:56:03.000000Z',
			},
			status: 200,
		});
	});

	it('uses a fixed 60-character key for the default user', () => {
		expect(DEFAULT_API_KEY).toHaveLength(60);
		expect(server().apiKey).toBe(DEFAULT_API_KEY);
	});

	it('closes the connection after every answer', async () => {
		for (const path of ['/api/v1/account', '/api/v1/nothing', '/api/v1/reports/999']) {
			const reply = await call(server(), 'GET', path);
			expect(reply.headers.connection).toBe('close');
		}
	});

	it.each([
		['no Authorization header', null, undefined],
		['an unknown key', 'x'.repeat(60), undefined],
		['a lower-case bearer', undefined, { authorization: `bearer ${DEFAULT_API_KEY}` }],
		['a Basic scheme', undefined, { authorization: `Basic ${DEFAULT_API_KEY}` }],
	])('answers 401 Unauthenticated for %s', async (_name, key, headers) => {
		const reply = await call(server(), 'GET', '/api/v1/account', { key, headers });
		expect(reply.status).toBe(401);
		expect(reply.json).toEqual({ message: 'Unauthenticated.' });
	});

	it('finds the token after the last "Bearer " like Laravel', async () => {
		const reply = await call(server(), 'GET', '/api/v1/account', { headers: { authorization: `Basic abc, Bearer ${DEFAULT_API_KEY}` } });
		expect(reply.status).toBe(200);
	});

	it.each(['/api/v1/unknown', '/api/v1/reports/abc', '/api/v1/reports/1/extra', '/api/v2/reports', '/api/v1', '/api/v1/reports/-1'])(
		'answers 404 Resource not found for %s',
		async (path) => {
			const reply = await call(server(), 'GET', path);
			expect(reply.status).toBe(404);
			expect(reply.json).toEqual({ message: 'Resource not found.', status: 404 });
		},
	);

	it('matches routes before checking the key, so unknown paths are 404 even without one', async () => {
		const reply = await call(server(), 'GET', '/api/v1/unknown', { key: null });
		expect(reply.status).toBe(404);
	});

	it('ignores a trailing slash', async () => {
		const reply = await call(server(), 'GET', '/api/v1/account/');
		expect(reply.status).toBe(200);
	});

	it.each([
		['POST', '/api/v1/account', 'GET, HEAD'],
		['DELETE', '/api/v1/reports', 'GET, HEAD, POST'],
		['POST', '/api/v1/reports/1', 'GET, HEAD, PUT, PATCH, DELETE'],
		['GET', '/api/v1/projects/example.com', 'DELETE'],
		['PUT', '/api/v1/projects', 'GET, HEAD'],
	])('answers %s %s with 405 and Allow: %s', async (method, path, allow) => {
		const reply = await call(server(), method, path);
		expect(reply.status).toBe(405);
		expect(reply.headers.allow).toBe(allow);
		expect(reply.headers['content-type']).toBe('application/json');
		expect(reply.json).toEqual({ message: `The ${method} method is not supported for this route. Supported methods: ${allow}.`, status: 405 });
	});

	it('answers OPTIONS with the allowed methods, as Laravel does', async () => {
		const reply = await call(server(), 'OPTIONS', '/api/v1/reports/1');
		expect(reply.status).toBe(200);
		expect(reply.headers.allow).toBe('GET, HEAD, PUT, PATCH, DELETE');
		expect(reply.text).toBe('');
	});

	it('answers HEAD on read routes without a body', async () => {
		const reply = await call(server(), 'HEAD', '/api/v1/reports/1');
		expect(reply.status).toBe(200);
		expect(reply.text).toBe('');
		expect(Number(reply.headers['content-length'])).toBeGreaterThan(1000);
	});

	it('wraps one record in data with status 200 and ISO dates with microseconds', async () => {
		const reply = await call(server(), 'GET', '/api/v1/reports/2');
		expect(reply.status).toBe(200);
		expect(Object.keys(reply.json)).toEqual(['data', 'status']);
		expect(reply.json.status).toBe(200);
		const report = reply.json.data;
		expect(Object.keys(report)).toEqual(['id', 'url', 'project', 'result', 'results', 'privacy', 'password', 'generated_at', 'created_at', 'updated_at']);
		expect(report.id).toBe(2);
		expect(Number.isInteger(report.result)).toBe(true);
		expect(typeof report.privacy).toBe('number');
		expect(typeof report.password).toBe('boolean');
		for (const field of ['generated_at', 'created_at', 'updated_at']) expect(report[field]).toMatch(ISO_MICROSECONDS);
	});

	it('records every request with raw and decoded path, query, headers and body', async () => {
		server().clearRequests();
		await call(server(), 'DELETE', '/api/v1/projects/my%20site.example?x=1&x=2&y=%C3%A9');
		await call(server(), 'POST', '/api/v1/reports', { form: { url: 'https://example.com/a b', privacy: '1' } });
		const [first, second] = server().requests;
		expect(first).toMatchObject({
			method: 'DELETE',
			path: '/api/v1/projects/my site.example',
			rawPath: '/api/v1/projects/my%20site.example',
			query: { x: '2', y: 'é' },
			rawQuery: 'x=1&x=2&y=%C3%A9',
			status: 404,
			remoteAddress: '127.0.0.1',
		});
		expect(first.headers.authorization).toBe(`Bearer ${DEFAULT_API_KEY}`);
		expect(typeof first.time).toBe('number');
		expect(second).toMatchObject({
			method: 'POST',
			rawBody: 'url=https%3A%2F%2Fexample.com%2Fa+b&privacy=1',
			body: { url: 'https://example.com/a b', privacy: '1' },
			// A form's + is a space, which phpRank's url rule refuses.
			status: 422,
		});
		expect(second.headers['content-type']).toBe('application/x-www-form-urlencoded');
		expect(first.fault).toBeUndefined();
	});

	it('builds absolute links from the Host header', async () => {
		const reply = await call(server(), 'GET', '/api/v1/reports', { headers: { host: 'seo.example.com' } });
		expect(reply.status).toBe(200);
		expect(reply.json.meta.path).toBe('http://seo.example.com/api/v1/reports');
		expect(reply.json.links.first).toBe('http://seo.example.com/api/v1/reports?page=1');
	});
});

describe('latency', () => {
	const server = useServer({ latencyMs: 120 });

	it('delays every answer, faults included', async () => {
		let started = Date.now();
		expect((await call(server(), 'GET', '/api/v1/account')).status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(115);

		server().injectFault({ kind: 'empty', status: 503 });
		started = Date.now();
		expect((await call(server(), 'GET', '/api/v1/account')).status).toBe(503);
		expect(Date.now() - started).toBeGreaterThanOrEqual(115);
	});
});

import { request } from 'undici';
import { call, useServer } from './helpers';

describe('fault injection', () => {
	const server = useServer({ seedReports: 40, basePath: '/phprank' });
	afterEach(() => {
		server().clearFaults();
		server().setRateLimit(false);
	});

	const list = (query = '') => call(server(), 'GET', `/api/v1/reports${query}`);

	describe('kinds', () => {
		it('status: any status with a JSON body and extra headers', async () => {
			server().injectFault({ kind: 'status', status: 503, body: { message: 'Down for maintenance' }, headers: { 'Retry-After': '7' } });
			const reply = await list();
			expect(reply.status).toBe(503);
			expect(reply.headers['content-type']).toBe('application/json');
			expect(reply.headers['retry-after']).toBe('7');
			expect(reply.json).toEqual({ message: 'Down for maintenance' });
		});

		it('status: a text body, and phpRank’s own body when none is given', async () => {
			server().injectFault({ kind: 'status', status: 502, body: 'Bad Gateway' });
			const text = await list();
			expect(text.status).toBe(502);
			expect(text.headers['content-type']).toBe('text/plain; charset=UTF-8');
			expect(text.text).toBe('Bad Gateway');
			server().injectFault({ kind: 'status', status: 500 });
			expect((await list()).json).toEqual({ message: 'An unexpected error has occurred, please try again.', status: 500 });
			server().injectFault({ kind: 'status', status: 429, headers: { 'Retry-After': '1' } });
			const limited = await list();
			expect(limited.json).toEqual({ message: 'Too Many Attempts.' });
			expect(limited.headers['retry-after']).toBe('1');
		});

		it('html: an HTML page, 200 unless told otherwise', async () => {
			server().injectFault({ kind: 'html' });
			const page = await list();
			expect(page.status).toBe(200);
			expect(page.headers['content-type']).toBe('text/html; charset=UTF-8');
			expect(page.text).toContain('<!DOCTYPE html>');
			server().injectFault({ kind: 'html', status: 502, html: '<h1>nginx</h1>' });
			const gateway = await list();
			expect(gateway.status).toBe(502);
			expect(gateway.text).toBe('<h1>nginx</h1>');
		});

		it('empty: a status with an empty body', async () => {
			server().injectFault({ kind: 'empty', status: 500 });
			const reply = await list();
			expect(reply.status).toBe(500);
			expect(reply.text).toBe('');
			expect(reply.headers['content-length']).toBe('0');
		});

		it('malformedJson: 200 with truncated JSON', async () => {
			server().injectFault({ kind: 'malformedJson' });
			const reply = await list();
			expect(reply.status).toBe(200);
			expect(reply.headers['content-type']).toBe('application/json');
			expect(reply.text).toBe('{"data": [');
			expect(() => JSON.parse(reply.text)).toThrow();
		});

		it('drop: closes the socket without answering', async () => {
			server().injectFault({ kind: 'drop' });
			await expect(list()).rejects.toThrow();
			const recorded = server().requests.at(-1);
			expect(recorded?.fault?.kind).toBe('drop');
			expect(recorded?.status).toBeUndefined();
			expect((await list()).status).toBe(200);
		});

		it.each(['delay', 'delayAfterHandling'] as const)('%s: holds the answer, then answers normally', async (kind) => {
			server().injectFault({ kind, delayMs: 300 });
			const started = Date.now();
			const reply = await list();
			expect(Date.now() - started).toBeGreaterThanOrEqual(290);
			expect(reply.status).toBe(200);
			expect(reply.json.meta.total).toBe(40);
			expect(server().requests.at(-1)?.fault?.kind).toBe(kind);
		});

		it('delay: lets a client time out', async () => {
			server().injectFault({ kind: 'delay', delayMs: 2000 });
			await expect(
				request(`${server().url}/api/v1/reports`, { headersTimeout: 100, headers: { authorization: `Bearer ${server().apiKey}` } }),
			).rejects.toThrow(/timeout/i);
		});

		it('dropAfterHandling: carries the create out, then closes the socket without the answer', async () => {
			server().injectFault({ method: 'POST', path: '/api/v1/reports', kind: 'dropAfterHandling' });
			const before = server().reports().length;
			await expect(call(server(), 'POST', '/api/v1/reports', { form: { url: 'https://dropped.example.com/' } })).rejects.toThrow();
			expect(server().reports().length).toBe(before + 1);
			expect(server().reports().at(-1)?.url).toBe('dropped.example.com');
			const recorded = server().requests.at(-1);
			expect(recorded?.fault?.kind).toBe('dropAfterHandling');
			expect(recorded?.status).toBeUndefined();
		});

		it('delayAfterHandling: carries the create out, then holds the answer so a client times out', async () => {
			server().injectFault({ method: 'POST', path: '/api/v1/reports', kind: 'delayAfterHandling', delayMs: 1500 });
			const before = server().reports().length;
			await expect(
				request(`${server().url}/api/v1/reports`, {
					method: 'POST',
					headersTimeout: 200,
					headers: { authorization: `Bearer ${server().apiKey}`, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
					body: 'url=https%3A%2F%2Fheld.example.com%2Fpage',
				}),
			).rejects.toThrow(/timeout/i);
			// The client gave up before the answer; on a busy machine the create itself may still be running then.
			await server().idle();
			expect(server().reports().length).toBe(before + 1);
			expect(server().reports().at(-1)?.url).toBe('held.example.com/page');
			expect(server().requests.at(-1)?.fault?.kind).toBe('delayAfterHandling');
		});

		it('after-handling kinds pass by requests the API refused, without counting them', async () => {
			server().injectFault({ method: 'POST', path: '/api/v1/reports', kind: 'dropAfterHandling' });
			const refused = await call(server(), 'POST', '/api/v1/reports', { form: { url: 'not a url' } });
			expect(refused.status).toBe(422);
			expect(server().requests.at(-1)?.fault).toBeUndefined();
			await expect(call(server(), 'POST', '/api/v1/reports', { form: { url: 'https://example.com/next' } })).rejects.toThrow();
		});

		it('redirectLogin: 302 to the login page with an HTML body', async () => {
			server().injectFault({ kind: 'redirectLogin' });
			const reply = await list();
			expect(reply.status).toBe(302);
			expect(reply.headers.location).toBe(`${server().url}/login`);
			expect(reply.headers['content-type']).toBe('text/html; charset=UTF-8');
			expect(reply.text).toContain('Redirecting to');
		});

		it('redirect: anywhere, with the status asked for', async () => {
			server().injectFault({ kind: 'redirect', status: 307, location: 'https://elsewhere.example/api/v1/reports' });
			const reply = await list();
			expect(reply.status).toBe(307);
			expect(reply.headers.location).toBe('https://elsewhere.example/api/v1/reports');
		});
	});

	describe('matching', () => {
		it('matches method, exact path after the base path and query, and records the fault', async () => {
			const { id } = server().injectFault({ method: 'get', path: '/api/v1/reports', query: { page: '3' }, kind: 'status', status: 500 });
			expect((await list('?page=2')).status).toBe(200);
			expect((await call(server(), 'POST', '/api/v1/reports?page=3', { form: { url: 'https://example.com' } })).status).toBe(201);
			expect((await list('?page=3&per_page=10')).status).toBe(500);
			expect(server().requests.at(-1)?.fault).toEqual({ id, kind: 'status' });
			expect((await list('?page=3')).status).toBe(200);
		});

		it('matches a RegExp path', async () => {
			server().injectFault({ path: /^\/api\/v1\/reports\/\d+$/, kind: 'status', status: 418, times: Infinity });
			expect((await call(server(), 'GET', '/api/v1/reports/1')).status).toBe(418);
			expect((await call(server(), 'GET', '/api/v1/reports/2')).status).toBe(418);
			expect((await list()).status).toBe(200);
		});

		it('fires `times` times after letting `skip` requests through', async () => {
			server().injectFault({ kind: 'empty', status: 503, skip: 1, times: 2 });
			const statuses: number[] = [];
			for (let i = 0; i < 4; i++) statuses.push((await list()).status);
			expect(statuses).toEqual([200, 503, 503, 200]);
		});

		it('fires on every Nth matching request with every, times counting the firings', async () => {
			server().injectFault({ path: '/api/v1/reports', kind: 'status', status: 503, every: 3, times: 2 });
			const statuses: number[] = [];
			for (let i = 0; i < 9; i++) statuses.push((await list()).status);
			expect(statuses).toEqual([200, 200, 503, 200, 200, 503, 200, 200, 200]);
		});

		it('refuses an every that is not a whole number from 1', () => {
			expect(() => server().injectFault({ kind: 'drop', every: 0 })).toThrow('"every" must be a whole number, 1 or more');
			expect(() => server().injectFault({ kind: 'drop', every: 2.5 })).toThrow('"every" must be a whole number, 1 or more');
		});

		it('fires forever with times: Infinity until cleared', async () => {
			server().injectFault({ kind: 'status', status: 500, times: Infinity });
			for (let i = 0; i < 3; i++) expect((await list()).status).toBe(500);
			server().clearFaults();
			expect((await list()).status).toBe(200);
		});

		it('consults faults in the order they were injected', async () => {
			server().injectFault({ kind: 'status', status: 501 });
			server().injectFault({ kind: 'status', status: 502 });
			expect((await list()).status).toBe(501);
			expect((await list()).status).toBe(502);
			expect((await list()).status).toBe(200);
		});

		it('answers before the rate limit, which does not count the faulted request', async () => {
			server().setRateLimit({ maxAttempts: 1, decaySeconds: 5 });
			server().injectFault({ kind: 'status', status: 503 });
			const faulted = await list();
			expect(faulted.status).toBe(503);
			expect(faulted.headers['x-ratelimit-limit']).toBeUndefined();
			expect((await list()).status).toBe(200);
			expect((await list()).status).toBe(429);
		});

		it('is wiped by reset', async () => {
			server().injectFault({ kind: 'status', status: 500, times: Infinity });
			server().reset();
			const reply = await list();
			expect(reply.status).toBe(200);
			expect(reply.json.meta.total).toBe(0);
			expect(server().requests).toHaveLength(1);
		});
	});
});

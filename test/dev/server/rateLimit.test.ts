import { connect } from 'node:net';
import { Agent, request } from 'undici';
import { call, useServer } from './helpers';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('rate limit', () => {
	const server = useServer({ seedReports: 1 });
	afterEach(() => server().setRateLimit(false));

	it('is off by default: no rate-limit headers', async () => {
		const reply = await call(server(), 'GET', '/api/v1/account');
		expect(reply.headers['x-ratelimit-limit']).toBeUndefined();
		expect(reply.headers['x-ratelimit-remaining']).toBeUndefined();
	});

	it('counts down per window and answers 429 with Retry-After and X-RateLimit-Reset', async () => {
		server().setRateLimit({ maxAttempts: 3, decaySeconds: 2 });
		const remaining: string[] = [];
		for (let i = 0; i < 3; i++) {
			const reply = await call(server(), 'GET', '/api/v1/account');
			expect(reply.status).toBe(200);
			expect(reply.headers['x-ratelimit-limit']).toBe('3');
			remaining.push(reply.headers['x-ratelimit-remaining']);
		}
		expect(remaining).toEqual(['2', '1', '0']);
		const refused = await call(server(), 'GET', '/api/v1/account');
		expect(refused.status).toBe(429);
		expect(refused.json).toEqual({ message: 'Too Many Attempts.' });
		expect(refused.headers['retry-after']).toMatch(/^[12]$/);
		expect(refused.headers['x-ratelimit-remaining']).toBe('0');
		const reset = Number(refused.headers['x-ratelimit-reset']);
		expect(Number.isInteger(reset)).toBe(true);
		expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
		expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 2);
	});

	it('opens a new window once the old one has passed', async () => {
		// A window long enough for three calls on a busy machine.
		server().setRateLimit({ maxAttempts: 2, decaySeconds: 1.5 });
		await call(server(), 'GET', '/api/v1/account');
		await call(server(), 'GET', '/api/v1/account');
		expect((await call(server(), 'GET', '/api/v1/account')).status).toBe(429);
		await sleep(1550);
		const reply = await call(server(), 'GET', '/api/v1/account');
		expect(reply.status).toBe(200);
		expect(reply.headers['x-ratelimit-remaining']).toBe('1');
	});

	it('rounds a fractional wait up to whole seconds unless asked for precision', async () => {
		server().setRateLimit({ maxAttempts: 1, decaySeconds: 0.9 });
		await call(server(), 'GET', '/api/v1/account');
		expect((await call(server(), 'GET', '/api/v1/account')).headers['retry-after']).toBe('1');

		server().setRateLimit({ maxAttempts: 1, decaySeconds: 0.9, preciseRetryAfter: true });
		await call(server(), 'GET', '/api/v1/account');
		const refused = await call(server(), 'GET', '/api/v1/account');
		expect(refused.headers['retry-after']).toMatch(/^0\.\d{3}$/);
		expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
		expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(0.9);
		expect(refused.headers['x-ratelimit-reset']).toMatch(/^\d{10}\.\d{3}$/);
		expect(Number(refused.headers['x-ratelimit-reset']) * 1000).toBeGreaterThan(Date.now());
	});

	it('counts every API request, failed ones included, but not other pages', async () => {
		server().setRateLimit({ maxAttempts: 3, decaySeconds: 5 });
		expect((await call(server(), 'GET', '/api/v1/nowhere')).headers['x-ratelimit-remaining']).toBe('2');
		expect((await call(server(), 'GET', '/api/v1/account', { key: 'bad' })).headers['x-ratelimit-remaining']).toBe('1');
		const login = await call(server(), 'GET', '/login', { accept: false });
		expect(login.status).toBe(200);
		expect(login.headers['x-ratelimit-remaining']).toBeUndefined();
		expect((await call(server(), 'GET', '/api/v1/reports/404')).headers['x-ratelimit-remaining']).toBe('0');
		expect((await call(server(), 'GET', '/api/v1/account')).status).toBe(429);
	});

	it('does nothing for a refused request, so repeating it is safe', async () => {
		server().setRateLimit({ maxAttempts: 1, decaySeconds: 5 });
		await call(server(), 'GET', '/api/v1/account');
		const refused = await call(server(), 'POST', '/api/v1/reports', { form: { url: 'https://example.com/once' } });
		expect(refused.status).toBe(429);
		expect(server().reports()).toHaveLength(1);
	});

	it('answers 429 as an HTML page, keeping Retry-After, without Accept: application/json', async () => {
		server().setRateLimit({ maxAttempts: 1, decaySeconds: 5 });
		await call(server(), 'GET', '/api/v1/account');
		const refused = await call(server(), 'GET', '/api/v1/account', { accept: false });
		expect(refused.status).toBe(429);
		expect(refused.headers['content-type']).toBe('text/html; charset=UTF-8');
		expect(refused.text).toContain('429 | Too Many Requests');
		expect(refused.headers['retry-after']).toMatch(/^\d+$/);
	});

	it('keeps one window per client address', async () => {
		server().setRateLimit({ maxAttempts: 1, decaySeconds: 5 });
		await call(server(), 'GET', '/api/v1/account');
		expect((await call(server(), 'GET', '/api/v1/account')).status).toBe(429);
		// undici does not pass localAddress on, so the second client opens its own sockets.
		const otherClient = new Agent({
			connect: (options, done) => {
				const socket = connect({ host: options.hostname, port: Number(options.port), localAddress: '127.0.0.2' });
				socket.once('connect', () => done(null, socket));
				socket.once('error', (error) => done(error, null));
				return socket;
			},
		});
		try {
			const reply = await request(`${server().url}/api/v1/account`, {
				dispatcher: otherClient,
				headers: { accept: 'application/json', authorization: `Bearer ${server().apiKey}` },
			});
			await reply.body.text();
			expect(reply.statusCode).toBe(200);
			expect(server().requests.at(-1)?.remoteAddress).toBe('127.0.0.2');
		} finally {
			await otherClient.close();
		}
	});

	it('can be configured at start-up', async () => {
		const { startPhpRankServer } = await import('../../../dev/server');
		const limited = await startPhpRankServer({ rateLimit: { maxAttempts: 60, decaySeconds: 60 } });
		try {
			const reply = await call(limited, 'GET', '/api/v1/account');
			expect(reply.headers['x-ratelimit-limit']).toBe('60');
			expect(reply.headers['x-ratelimit-remaining']).toBe('59');
		} finally {
			await limited.close();
		}
	});
});

import { once } from 'node:events';
import { request } from 'undici';
import { PhpRankServer, RecordedRequest, startPhpRankServer } from '../../../dev/server';
import { call, Reply, spawnCli, startCli, useServer } from './helpers';

const NGINX_504 =
	'<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 Gateway Time-out</h1></center><hr><center>nginx</center></body></html>';

const create = (server: PhpRankServer, page: number): Promise<Reply> =>
	call(server, 'POST', '/api/v1/reports', { form: { url: `https://example.com/page-${page}` } });

/** Sends `count` creates at once. */
const creates = (server: PhpRankServer, count: number): Promise<Reply[]> =>
	Promise.all(Array.from({ length: count }, (_, index) => create(server, index + 1)));

/** The most requests worked on at one moment: a request is worked on from startedAt until answeredAt. */
function mostAtOnce(requests: RecordedRequest[]): number {
	const during = (request: RecordedRequest, at: number) => request.startedAt! <= at && at < request.answeredAt!;
	return Math.max(...requests.map((request) => requests.filter((other) => during(other, request.startedAt!)).length));
}

const byStart = (requests: RecordedRequest[]) => [...requests].sort((a, b) => a.startedAt! - b.startedAt!);

function expectNginx504(reply: Reply): void {
	expect(reply.status).toBe(504);
	expect(reply.text).toBe(NGINX_504);
	expect(reply.headers['content-type']).toBe('text/html');
	expect(reply.headers['x-ratelimit-limit']).toBeUndefined();
	expect(reply.headers['x-ratelimit-remaining']).toBeUndefined();
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 20000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await check())) {
		if (Date.now() > deadline) throw new Error('timed out waiting');
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}

describe('a slow deployment: PHP worker pool and proxy timeout', () => {
	const server = useServer();
	beforeEach(async () => {
		await server().idle();
		server().setDeployment({});
		server().setRateLimit(false);
		server().reset();
	});

	it('works on at most `workers` requests at once, starting the waiting ones in arrival order', async () => {
		server().setDeployment({ workers: 2, analysisMs: 300 });
		const replies = await creates(server(), 4);
		expect(replies.map((reply) => reply.status)).toEqual([201, 201, 201, 201]);
		const requests = server().requests;
		expect(requests.every((request) => request.handledStatus === 201 && request.answeredAt! >= request.startedAt!)).toBe(true);
		expect(mostAtOnce(requests)).toBeLessThanOrEqual(2);
		// FIFO: requests are recorded in arrival order, and start in that order.
		const starts = requests.map((request) => request.startedAt!);
		expect(starts).toEqual([...starts].sort((a, b) => a - b));
		// The third and fourth only started once an earlier one had been answered.
		const [first, second, third, fourth] = byStart(requests);
		const firstAnswer = Math.min(first.answeredAt!, second.answeredAt!);
		expect(third.startedAt).toBeGreaterThanOrEqual(firstAnswer);
		expect(fourth.startedAt).toBeGreaterThanOrEqual(firstAnswer);
		expect(server().reports()).toHaveLength(4);
	});

	it("answers nginx's 504 page once the proxy gives up, while PHP goes on and stores every report", async () => {
		server().setDeployment({ workers: 1, analysisMs: 500, gatewayTimeoutMs: 200 });
		server().setRateLimit({ maxAttempts: 60, decaySeconds: 60 });
		const replies = await creates(server(), 3);
		replies.forEach(expectNginx504);
		await server().idle();
		expect(
			server()
				.reports()
				.map((report) => report.url)
				.sort(),
		).toEqual(['example.com/page-1', 'example.com/page-2', 'example.com/page-3']);
		const requests = server().requests;
		expect(requests.map((request) => [request.status, request.handledStatus])).toEqual([
			[504, 201],
			[504, 201],
			[504, 201],
		]);
		// The last one was cut off while it still waited for a worker, and was worked on all the same.
		const last = byStart(requests)[2];
		expect(last.answeredAt).toBeLessThan(last.startedAt!);
	});

	it('leaves answers given in time alone, and records when and what they were', async () => {
		server().setDeployment({ workers: 1, gatewayTimeoutMs: 20000 });
		const reply = await create(server(), 1);
		expect(reply.status).toBe(201);
		expect(reply.headers['cache-control']).toBe('no-cache, private');
		const [request] = server().requests;
		expect(request).toMatchObject({ status: 201, handledStatus: 201 });
		expect(request.answeredAt).toBeGreaterThanOrEqual(request.startedAt!);
		expect(request.startedAt).toBeGreaterThanOrEqual(request.time);
	});

	it('counts a request against the rate limit when a worker takes it, even after the proxy answered 504', async () => {
		server().setDeployment({ workers: 1, analysisMs: 300, gatewayTimeoutMs: 100 });
		server().setRateLimit({ maxAttempts: 2, decaySeconds: 60 });
		(await creates(server(), 3)).forEach(expectNginx504);
		await server().idle();
		const requests = byStart(server().requests);
		expect(requests.map((request) => request.handledStatus)).toEqual([201, 201, 429]);
		expect(requests[2].answeredAt).toBeLessThan(requests[2].startedAt!);
		expect(server().reports()).toHaveLength(2);
	});

	it('opens a rate-limit window when PHP starts on a request, not when it arrives', async () => {
		// One attempt per 0.3 s window; each create holds the only worker 0.4 s, so every one starts in a new window.
		// Counted on arrival, the three sent at once would share one window and two would be refused.
		server().setDeployment({ workers: 1, analysisMs: 400 });
		server().setRateLimit({ maxAttempts: 1, decaySeconds: 0.3 });
		const replies = await creates(server(), 3);
		expect(replies.map((reply) => reply.status)).toEqual([201, 201, 201]);
		expect(replies.map((reply) => reply.headers['x-ratelimit-remaining'])).toEqual(['0', '0', '0']);
	});

	it('takes a new deployment at run time, keeps it through reset() and drops left-out settings', async () => {
		server().setDeployment({ workers: 1, analysisMs: 300, gatewayTimeoutMs: 100 });
		server().reset();
		expectNginx504(await create(server(), 1));
		await server().idle();
		expect(server().reports()).toHaveLength(1);
		server().setDeployment({ workers: 1 });
		expect((await create(server(), 2)).status).toBe(201);
		expect(() => server().setDeployment({ workers: 0 })).toThrow('"workers" must be a whole number, 1 or more');
		expect(() => server().setDeployment({ gatewayTimeoutMs: -1 })).toThrow('"gatewayTimeoutMs"');
	});

	it('needs a worker for web pages too', async () => {
		server().setDeployment({ workers: 1, analysisMs: 2000, gatewayTimeoutMs: 100 });
		const pending = create(server(), 1);
		await until(() => server().requests[0]?.startedAt !== undefined);
		// The only worker is busy for 2 s: the page waits, and the proxy gives up on it.
		expectNginx504(await call(server(), 'GET', '/login', { accept: false, key: null }));
		expectNginx504(await pending);
		await server().idle();
		expect(server().requests.map((request) => request.handledStatus)).toEqual([201, 200]);
	});

	it('sets the deployment over the control API, whose own calls need no worker', async () => {
		const control = (json: unknown) => call(server(), 'POST', '/__sim/deployment', { key: null, accept: false, json });
		const set = await control({ workers: 1, analysisMs: 2000, gatewayTimeoutMs: 100 });
		expect(set.status).toBe(200);
		expect(set.json).toEqual({ ok: true });
		const pending = create(server(), 1);
		await until(() => server().requests[0]?.startedAt !== undefined);
		// The only worker is busy for 2 s; the control API answers meanwhile.
		const listed = await call(server(), 'GET', '/__sim/requests', { key: null, accept: false });
		expect(listed.json[0]).toMatchObject({ method: 'POST', startedAt: expect.any(Number) });
		expect(listed.json[0].handledStatus).toBeUndefined();
		expectNginx504(await pending);
		await server().idle();
		expect(server().requests[0]).toMatchObject({ status: 504, handledStatus: 201, answeredAt: expect.any(Number) });

		expect((await control({ workers: null, analysisMs: null, gatewayTimeoutMs: null })).status).toBe(200);
		expect((await create(server(), 2)).status).toBe(201);
		expect((await control({ workers: 0 })).status).toBe(400);
		expect((await control({ workers: 'two' })).json).toEqual({ error: '"workers" must be a number or null' });
	});
});

describe('standalone server with a slow deployment', () => {
	it('takes --workers and --gateway-timeout', async () => {
		const { child, url, apiKey } = await startCli(['--port', '0', '--workers', '1', '--gateway-timeout', '100', '--analysis', '300']);
		try {
			const post = async (page: number) => {
				const reply = await request(`${url}/api/v1/reports`, {
					method: 'POST',
					headers: { accept: 'application/json', authorization: `Bearer ${apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
					body: `url=https://example.com/page-${page}`,
				});
				return { status: reply.statusCode, text: await reply.body.text() };
			};
			expect(await Promise.all([post(1), post(2)])).toEqual([
				{ status: 504, text: NGINX_504 },
				{ status: 504, text: NGINX_504 },
			]);
			let requests: RecordedRequest[] = [];
			await until(async () => {
				requests = (await (await request(`${url}/__sim/requests`)).body.json()) as RecordedRequest[];
				return requests.every((recorded) => recorded.handledStatus !== undefined);
			});
			expect(requests.map((recorded) => recorded.handledStatus)).toEqual([201, 201]);
			// One worker: the second create started only once the first had spent its 300 ms of analysis (less timer rounding).
			const [first, second] = byStart(requests);
			expect(second.startedAt! - first.startedAt!).toBeGreaterThanOrEqual(290);
		} finally {
			child.kill('SIGTERM');
		}
		await once(child, 'exit');
	}, 30000);

	it('refuses a pool without workers', async () => {
		const child = spawnCli(['--port', '0', '--workers', '0'], 'pipe');
		let stderr = '';
		child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		const [code] = await once(child, 'exit');
		expect(code).toBe(2);
		expect(stderr).toContain('"workers" must be a whole number, 1 or more');
		expect(stderr).toContain('--gateway-timeout <ms>');
	}, 30000);
});

describe('startPhpRankServer', () => {
	it('takes the deployment as options', async () => {
		const server = await startPhpRankServer({ workers: 1, analysisMs: 300, gatewayTimeoutMs: 100 });
		try {
			expectNginx504(await create(server, 1));
			await server.idle();
			expect(server.requests[0].handledStatus).toBe(201);
		} finally {
			await server.close();
		}
	});

	it('refuses a pool without workers', async () => {
		await expect(startPhpRankServer({ workers: 1.5 })).rejects.toThrow('"workers" must be a whole number, 1 or more');
	});
});

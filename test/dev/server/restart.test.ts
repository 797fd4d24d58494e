import { setTimeout as sleep } from 'node:timers/promises';
import { startPhpRankServer } from '../../../dev/server';
import type { PhpRankServer } from '../../../dev/server';
import { call } from './helpers';

const create = (server: PhpRankServer, url: string) => call(server, 'POST', '/api/v1/reports', { form: { url } });

/** Whatever the request got: its status, or the connection error's code. */
async function outcome(reply: Promise<{ status: number }>): Promise<number | string> {
	try {
		return (await reply).status;
	} catch (error) {
		return String((error as { code?: string }).code ?? (error as Error).message);
	}
}

let server: PhpRankServer | undefined;
afterEach(async () => await server?.close());

describe('PHP stopped and started again (a restart)', () => {
	it('without a proxy: connections are refused, then the same port answers with the data it had', async () => {
		server = await startPhpRankServer({ seedReports: 2 });
		const { port } = server;

		await server.stop();
		expect(server.stopped).toBe(true);
		expect(await outcome(call(server, 'GET', '/api/v1/reports'))).toBe('ECONNREFUSED');
		await server.start();

		expect(server.port).toBe(port);
		expect((await call(server, 'GET', '/api/v1/reports')).status).toBe(200);
		expect(server.reports()).toHaveLength(2);
		expect(server.requests.map((request) => request.status)).toEqual([200]);
	});

	it('behind the proxy: nginx answers 502 at once, PHP never sees the request', async () => {
		server = await startPhpRankServer({ gatewayTimeoutMs: 60_000 });

		await server.stop();
		const refused = await call(server, 'POST', '/api/v1/reports', { form: { url: 'https://example.com/' } });
		await server.start();
		const stored = await create(server, 'https://example.com/');

		expect(refused.status).toBe(502);
		expect(refused.text).toMatch(/<title>502 Bad Gateway<\/title>.*nginx/);
		expect(stored.status).toBe(201);
		expect(server.reports()).toHaveLength(1);
		expect(server.requests.map(({ status, startedAt, handledStatus }) => ({ status, worked: startedAt !== undefined, handledStatus }))).toEqual([
			{ status: 502, worked: false, handledStatus: undefined },
			{ status: 201, worked: true, handledStatus: 201 },
		]);
	});

	it.each([
		// undici's code for a connection closed before its answer.
		['without a proxy', {}, 'UND_ERR_SOCKET'],
		['behind the proxy', { gatewayTimeoutMs: 60_000 }, 502],
	])('%s: the create being worked on is stored, its answer lost; the one waiting for a worker is never worked on', async (_, proxy, cutOff) => {
		server = await startPhpRankServer({ workers: 1, analysisMs: 300, ...proxy });
		const working = outcome(create(server, 'https://example.com/working'));
		while (server.requests.length === 0 || server.requests[0].startedAt === undefined) await sleep(5);
		const waiting = outcome(create(server, 'https://example.com/waiting'));
		while (server.requests.length < 2) await sleep(5);

		await server.stop();
		const answers = await Promise.all([working, waiting]);
		await server.idle();
		await server.start();

		expect(answers).toEqual([cutOff, cutOff]);
		expect(server.reports().map((report) => report.url)).toEqual(['example.com/working']);
		expect(server.requests.map((request) => request.startedAt !== undefined)).toEqual([true, false]);
	});

	it('POST /__sim/outage answers, stops PHP for that long and starts it again', async () => {
		server = await startPhpRankServer();

		const ordered = await call(server, 'POST', '/__sim/outage', { key: null, accept: false, json: { ms: 300 } });
		while (!server.stopped) await sleep(5);
		expect(await outcome(call(server, 'GET', '/api/v1/reports'))).toBe('ECONNREFUSED');
		while (server.stopped) await sleep(5);

		expect(ordered.json).toEqual({ ok: true });
		expect((await call(server, 'GET', '/api/v1/reports')).status).toBe(200);
	});
});

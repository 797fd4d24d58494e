import { setTimeout as sleep } from 'node:timers/promises';
import { startPhpRankServer } from '../../../dev/server';
import type { PhpRankServer } from '../../../dev/server';
import { call } from './helpers';

/** Whatever the request got: its status, or the connection error's code. */
async function outcome(reply: Promise<{ status: number }>): Promise<number | string> {
	try {
		return (await reply).status;
	} catch (error) {
		return String((error as { code?: string }).code ?? (error as Error).message);
	}
}

async function until(check: () => boolean): Promise<void> {
	while (!check()) await sleep(5);
}

const create = (server: PhpRankServer, url: string) => call(server, 'POST', '/api/v1/reports', { form: { url } });

let server: PhpRankServer | undefined;
afterEach(async () => await server?.close());

// What one test leaves under way (an answer it stopped waiting for) must not change the next test's data.
describe('reset() cuts off the requests under way', () => {
	it('a delayed delete: its connection closes, and the report it named stays in the new data', async () => {
		const phpRank = (server = await startPhpRankServer({ seedReports: 3 }));
		phpRank.injectFault({ method: 'DELETE', path: '/api/v1/reports/1', kind: 'delay', delayMs: 200 });
		const deleting = outcome(call(phpRank, 'DELETE', '/api/v1/reports/1'));
		await until(() => phpRank.requests[0]?.startedAt !== undefined);

		phpRank.reset();
		phpRank.seedReports(3);

		expect(await deleting).toBe('UND_ERR_SOCKET');
		await phpRank.idle();
		expect(phpRank.reports().map((report) => report.id)).toEqual([1, 2, 3]);
		expect(phpRank.requests).toEqual([]);
	});

	it('a create being analyzed: its report goes with the data the reset discarded', async () => {
		const phpRank = (server = await startPhpRankServer({ analysisMs: 200 }));
		const creating = outcome(create(phpRank, 'https://example.com/'));
		await until(() => phpRank.requests[0]?.startedAt !== undefined);

		phpRank.reset();

		expect(await creating).toBe('UND_ERR_SOCKET');
		await phpRank.idle();
		expect(phpRank.reports()).toEqual([]);
	});

	it('a held create: released by the reset, it is never carried out', async () => {
		const phpRank = (server = await startPhpRankServer());
		phpRank.injectFault({ method: 'POST', path: '/api/v1/reports', kind: 'hold' });
		const creating = outcome(create(phpRank, 'https://example.com/'));
		await phpRank.untilHeld();

		phpRank.reset();

		expect(await creating).toBe('UND_ERR_SOCKET');
		await phpRank.idle();
		expect(phpRank.reports()).toEqual([]);
	});

	it('requests after the reset are answered as usual', async () => {
		const phpRank = (server = await startPhpRankServer({ analysisMs: 50 }));
		phpRank.reset();
		expect(await outcome(create(phpRank, 'https://example.com/'))).toBe(201);
		expect(phpRank.reports()).toHaveLength(1);
	});
});

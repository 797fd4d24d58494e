/**
 * Reads a proxy in front of phpRank answered in its place are sent again, after the node's own pauses, within Max
 * Wait. The proxy's answers are injected, so the pauses run on the test's clock.
 */
import type { INodeListSearchResult } from 'n8n-workflow';
import { createPoller, loadOptions } from '../../../../dev/engine';
import { useTestClock } from '../../../support/clock';
import { apiRequests, byId, credentialsFor, requestLines, runPhpRank, useServer } from '../../../support/phpRank';

useTestClock();

const server = useServer({}, (phpRank) => phpRank.seedReports(3));

describe('reads a proxy answered are sent again, within Max Wait', () => {
	// After a 504 phpRank is slow: a second's pause. After a 502 or 503 it is down: the next probe, half a second later.
	it.each([
		['a 504 HTML page', { kind: 'html', status: 504 } as const, 1000],
		['a 503 HTML page', { kind: 'html', status: 503 } as const, 500],
		['a 502 JSON answer', { kind: 'status', status: 502, body: { message: 'Bad Gateway' } } as const, 500],
	])('Report > Get after %s: the same request again, then the report', async (_, fault, pauseMs) => {
		server().injectFault({ method: 'GET', path: '/api/v1/reports/2', ...fault });

		const { items, error } = await runPhpRank(server(), { resource: 'report', operation: 'get', reportId: byId('2') });

		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.id)).toEqual([2]);
		const [refused, answered] = apiRequests(server());
		expect(apiRequests(server())).toHaveLength(2);
		expect(answered.rawQuery).toBe(refused.rawQuery);
		expect(answered.time - refused.answeredAt!).toBeGreaterThanOrEqual(pauseMs - 100);
	});

	it('Report > Get fails once Max Wait is spent, saying how often a proxy answered', async () => {
		server().injectFault({ method: 'GET', path: '/api/v1/reports/2', kind: 'html', status: 504, times: Infinity });

		const { error } = await runPhpRank(server(), { resource: 'report', operation: 'get', reportId: byId('2'), options: { maxWait: 2 } });

		const sent = requestLines(server());
		expect(error?.message).toBe(
			`A proxy in front of phpRank answered 504 Gateway Time-out in its place, ${sent.length} times over ${error?.message.match(/over (\d+ seconds?)/)?.[1]}; running this row again is safe`,
		);
		expect(sent.length).toBeGreaterThanOrEqual(2);
		expect(new Set(sent)).toEqual(new Set(['GET /api/v1/reports/2']));
	});

	it('Report > Get Many reads the page a proxy answered again and outputs the whole list', async () => {
		server().seedReports(150);
		server().injectFault({ method: 'GET', path: '/api/v1/reports', query: { page: '2' }, kind: 'html', status: 502 });

		const { items, error } = await runPhpRank(server(), { resource: 'report', operation: 'getAll', returnAll: true });

		expect(error).toBeUndefined();
		expect(items).toHaveLength(153);
		expect(apiRequests(server()).map((request) => `${request.query.page} ${request.status}`)).toEqual(['1 200', '2 502', '2 200']);
	});

	it("the trigger's poll reads again", async () => {
		server().injectFault({ method: 'GET', path: '/api/v1/reports', kind: 'html', status: 503 });
		const poller = createPoller({ parameters: { event: 'newReport' }, credentials: credentialsFor(server()) });

		expect(await poller.poll()).toBeNull();

		expect(poller.nodeStaticData()).toEqual({ lastReportId: 3 });
		expect(apiRequests(server()).map((request) => request.status)).toEqual([503, 200]);
	});

	it("the editor's report list reads again", async () => {
		server().injectFault({ method: 'GET', path: '/api/v1/reports', kind: 'html', status: 504 });

		const list = (await loadOptions({
			method: 'listSearch',
			name: 'searchReports',
			parameters: { resource: 'report', operation: 'get', reportId: { __rl: true, mode: 'list', value: '' } },
			credentials: credentialsFor(server()),
		})) as INodeListSearchResult;

		expect(list.results.map((result) => result.value)).toEqual(['3', '2', '1']);
		expect(apiRequests(server()).map((request) => request.status)).toEqual([504, 200]);
	});
});

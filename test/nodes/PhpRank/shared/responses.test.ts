import { NodeApiError } from 'n8n-workflow';
import type { Fault } from '../../../../dev/server';
import { apiRequests, byId, credentialsFor, runPhpRank, startServer, useServer } from '../../../support/phpRank';

const server = useServer({}, (phpRank) => phpRank.seedReports(3));

const getReport = { resource: 'report', operation: 'get', reportId: byId('2') };
const onReport2 = { path: '/api/v1/reports/2' };

describe('phpRank error answers become errors a user can act on', () => {
	it('says the key was refused on 401', async () => {
		const { error } = await runPhpRank(server(), getReport, {
			credentials: credentialsFor(server(), { apiKey: 'not-the-key' }),
		});

		expect(error).toBeInstanceOf(NodeApiError);
		expect(error?.message).toBe('phpRank refused the API key (401 Unauthenticated)');
		expect(error?.description).toMatch(/API key in the phpRank credential/);
	});

	it.each<[string, Fault, RegExp]>([
		['a 403', { ...onReport2, kind: 'status', status: 403 }, /^phpRank refused the request \(403\): This action is unauthorized\.$/],
		[
			'a 500 with its JSON message',
			{ ...onReport2, kind: 'status', status: 500 },
			/^phpRank failed to process the request \(500\): An unexpected error has occurred, please try again; running this row again is safe$/,
		],
		['a 500 with an empty body', { ...onReport2, kind: 'empty', status: 500 }, /^phpRank failed to process the request \(500\) and answered with an empty body; running this row again is safe$/],
		['a 200 HTML page', { ...onReport2, kind: 'html', status: 200 }, /^phpRank answered 200 with an HTML page instead of JSON$/],
		['malformed JSON', { ...onReport2, kind: 'malformedJson' }, /^phpRank answered 200 with an answer that is not JSON instead of JSON$/],
		['a redirect to the login page', { ...onReport2, kind: 'redirectLogin' }, /^phpRank redirected to its login page \(302\)/],
		['JSON without a record', { ...onReport2, kind: 'status', status: 200, body: { ok: true } }, /^phpRank answered with JSON that has no report in "data"$/],
	])('explains %s', async (_, fault, message) => {
		server().injectFault(fault);

		const { error } = await runPhpRank(server(), getReport);

		expect(error).toBeInstanceOf(NodeApiError);
		expect(error?.message).toMatch(message);
		expect(error?.description).toEqual(expect.any(String));
		// After phpRank's own 5xx a probe (GET /account) found phpRank answering: the failure is the request's own.
		const probes = fault.kind !== 'html' && 'status' in fault && fault.status !== undefined && fault.status >= 500 ? ['GET /api/v1/account'] : [];
		expect(apiRequests(server()).map((request) => `${request.method} ${request.path}`)).toEqual(['GET /api/v1/reports/2', ...probes]);
	});

	it('points at the base URL when the answer is not phpRank\'s', async () => {
		server().injectFault({ ...onReport2, kind: 'html', status: 200 });

		const { error } = await runPhpRank(server(), getReport);

		expect(error?.description).toMatch(/base URL probably points at the wrong place/);
	});

	it('does not follow a redirect, so the key goes nowhere else', async () => {
		const elsewhere = await startServer();
		try {
			server().injectFault({ ...onReport2, kind: 'redirect', location: `${elsewhere.url}/api/v1/reports/2` });

			const { error } = await runPhpRank(server(), getReport);

			expect(error?.message).toMatch(/^phpRank answered with a redirect \(302 to http:\/\/127\.0\.0\.1:\d+\/api\/v1\/reports\/2\)/);
			expect(elsewhere.requests).toHaveLength(0);
		} finally {
			await elsewhere.close();
		}
	});

	it('fails the item when the connection drops every time, once Max Wait is spent', async () => {
		server().injectFault({ ...onReport2, kind: 'drop', times: Infinity });

		const { error, items } = await runPhpRank(server(), { ...getReport, options: { maxWait: 1 } });

		expect(error).toBeInstanceOf(NodeApiError);
		expect(error?.message).toBe('The connection to phpRank ended before it answered; running this row again is safe');
		expect(items).toHaveLength(0);
	});

	it('fails Return All as a whole when a later page fails, handing on no partial list', async () => {
		server().seedReports(400);
		server().injectFault({ path: '/api/v1/reports', query: { page: '3' }, kind: 'status', status: 500 });

		const { error, items } = await runPhpRank(server(), { resource: 'report', operation: 'getAll', returnAll: true });

		expect(error?.message).toMatch(/^phpRank failed to process the request \(500\)/);
		expect(items).toHaveLength(0);
		expect(apiRequests(server()).map((request) => request.query.page)).toEqual(['1', '2', '3']);
	});
});

describe('Continue On Fail', () => {
	it('turns each failing item into an error item and goes on with the others', async () => {
		const { items, error } = await runPhpRank(
			server(),
			{ resource: 'report', operation: 'get', reportId: byId('={{ $json.id }}') },
			{ continueOnFail: true, items: [{ id: 1 }, { id: 99 }, { id: 'x' }, { id: 3 }] },
		);

		expect(error).toBeUndefined();
		expect(items).toHaveLength(4);
		expect(items.map((item) => item.json.id ?? null)).toEqual([1, null, null, 3]);
		expect(items[1].json.error).toBe('Report 99 was not found (404)');
		expect(items[2].json.error).toBe('Report ID must be a positive whole number; got "x"');
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
		expect(apiRequests(server()).map((request) => request.rawPath)).toEqual(
			expect.arrayContaining(['/api/v1/reports/1', '/api/v1/reports/99', '/api/v1/reports/3']),
		);
		expect(apiRequests(server())).toHaveLength(3);
	});
});

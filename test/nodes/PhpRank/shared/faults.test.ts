import { NodeApiError } from 'n8n-workflow';
import type { FaultAction } from '../../../../dev/server';
import { producedText } from '../../../../dev/engine';
import { useTestClock } from '../../../support/clock';
import { apiRequests, byId, byName, runPhpRank, useServer } from '../../../support/phpRank';

const PASSWORD = 'pw-Secret-4711';

useTestClock();

const server = useServer({}, (phpRank) =>
	phpRank.seedReports(6, { projects: ['example.com', 'shop.example.org'] }),
);

interface Operation {
	name: string;
	method: string;
	path: string;
	parameters: Record<string, unknown>;
}

const operations: Operation[] = [
	{
		name: 'Report > Create',
		method: 'POST',
		path: '/api/v1/reports',
		parameters: { resource: 'report', operation: 'create', url: 'https://example.com/new', privacy: 2, password: PASSWORD },
	},
	{ name: 'Report > Get', method: 'GET', path: '/api/v1/reports/2', parameters: { resource: 'report', operation: 'get', reportId: byId('2') } },
	{
		name: 'Report > Get Many',
		method: 'GET',
		path: '/api/v1/reports',
		parameters: { resource: 'report', operation: 'getAll', returnAll: true },
	},
	{
		name: 'Report > Update',
		method: 'PUT',
		path: '/api/v1/reports/2',
		parameters: {
			resource: 'report',
			operation: 'update',
			reportId: byId('2'),
			updateFields: { privacy: 2, password: PASSWORD },
		},
	},
	{ name: 'Report > Delete', method: 'DELETE', path: '/api/v1/reports/2', parameters: { resource: 'report', operation: 'delete', reportId: byId('2') } },
	{
		name: 'Project > Get Many',
		method: 'GET',
		path: '/api/v1/projects',
		parameters: { resource: 'project', operation: 'getAll', returnAll: true },
	},
	{
		name: 'Project > Delete',
		method: 'DELETE',
		path: '/api/v1/projects/shop.example.org',
		parameters: { resource: 'project', operation: 'delete', projectName: byName('shop.example.org') },
	},
];

const faults: Array<[string, FaultAction, RegExp]> = [
	['500 with JSON', { kind: 'status', status: 500 }, /^phpRank failed to process the request \(500\): An unexpected error.*; running this row again is safe/],
	['an empty body', { kind: 'empty', status: 200 }, /^phpRank answered 200 with an empty body instead of JSON$/],
	['malformed JSON', { kind: 'malformedJson' }, /^phpRank answered 200 with an answer that is not JSON instead of JSON$/],
	['a timeout', { kind: 'delay', delayMs: 3000 }, /^phpRank did not answer within 1 second; (it may have .*: )?running this row again is safe/],
	['a 302 to the login page', { kind: 'redirectLogin' }, /^phpRank redirected to its login page \(302\)/],
];

const secretsIn = (text: string) =>
	[server().apiKey, PASSWORD].filter((secret) => text.includes(secret)).map((secret) => secret.slice(0, 4));

describe.each(operations)('$name under faults', ({ method, path, parameters }) => {
	it.each(faults)('fails clearly on %s, sends nothing twice and leaks no secret', async (_, fault, message) => {
		server().injectFault({ method, path, ...fault });

		// A timeout that every other answer meets on a busy machine.
		const result = await runPhpRank(server(), { ...parameters, requestOptions: { timeout: 1000 } });

		expect(result.error).toBeInstanceOf(NodeApiError);
		expect(result.error?.message).toMatch(message);
		expect(result.error?.description).toEqual(expect.any(String));
		expect(result.items).toHaveLength(0);
		// After phpRank's own 500 a probe (GET /account) tells whether phpRank fails every request: it is not the request.
		expect(apiRequests(server()).filter((request) => request.method === method && request.path === path)).toHaveLength(1);
		expect(secretsIn(producedText(result))).toEqual([]);
	});

	it('fails only the faulty item under Continue On Fail', async () => {
		server().injectFault({ method, path, kind: 'status', status: 500 });

		const result = await runPhpRank(server(), parameters, { continueOnFail: true, items: [{ row: 1 }, { row: 2 }] });

		expect(result.error).toBeUndefined();
		const failed = result.items.filter((item) => item.json.error !== undefined);
		expect(failed).toHaveLength(1);
		expect(failed[0].json.error).toMatch(/^phpRank failed to process the request \(500\)/);
		expect(result.items.length).toBeGreaterThan(1);
		expect(secretsIn(producedText(result))).toEqual([]);
	});
});

describe.each(operations)('$name when its connection drops', ({ method, path, parameters }) => {
	it(method === 'GET' ? 'sends the read again, as it changes nothing' : 'fails, saying what phpRank may have done, and sends nothing twice', async () => {
		server().injectFault({ method, path, kind: 'drop' });

		const result = await runPhpRank(server(), parameters);

		const sent = apiRequests(server()).filter((request) => request.method === method);
		if (method === 'GET') {
			expect(result.error).toBeUndefined();
			expect(sent.map((request) => request.fault?.kind)).toEqual(['drop', ...sent.slice(1).map(() => undefined)]);
			expect(sent[1].rawQuery).toBe(sent[0].rawQuery);
		} else {
			expect(result.error?.message).toMatch(/^The connection to phpRank ended before it answered; phpRank may have .*: running this row again is safe/);
			expect(result.error?.description).toMatch(/it was not sent again/);
			expect(sent).toHaveLength(1);
		}
		expect(secretsIn(producedText(result))).toEqual([]);
	});
});

describe.each(operations)('$name when a proxy answers in phpRank\'s place, every time', ({ method, path, parameters }) => {
	// Each test leaves phpRank known to be down, as a proxy said so: a read tells the node it answers again.
	afterEach(async () => await runPhpRank(server(), { resource: 'report', operation: 'get', reportId: byId('1') }));

	it.each([502, 503])('sends reads %s again until Max Wait is spent, writes once, saying what phpRank may have done, and leaks no secret', async (status) => {
		server().injectFault({ method, path, kind: 'html', status, times: Infinity });

		const result = await runPhpRank(server(), { ...parameters, options: { maxWait: 2 } });

		expect(result.error).toBeInstanceOf(NodeApiError);
		expect(result.items).toHaveLength(0);
		const sent = apiRequests(server()).filter((request) => request.method === method && request.path === path);
		if (method === 'GET') {
			const reason = status === 502 ? '502 Bad Gateway' : '503 Service Unavailable';
			expect(result.error?.message).toMatch(new RegExp(`^phpRank at [^ ]+ was down for \\d+ seconds?: a proxy in front of it answered ${reason}; running this row again is safe$`));
			expect(sent.length).toBeGreaterThan(1);
		} else {
			expect(result.error?.message).toMatch(new RegExp(`^phpRank may have .*: a proxy in front of it answered ${status} .* in its place; running this row again is safe`));
			expect(sent).toHaveLength(1);
		}
		expect(secretsIn(producedText(result))).toEqual([]);
	});
});

describe.each([
	['report', '/api/v1/reports', 450],
	['project', '/api/v1/projects', 0],
])('Return All %ss when page 3 of 5 fails', (resource, path, reports) => {
	beforeEach(() => {
		if (reports) server().seedReports(reports);
		else server().seedProjects(450);
	});

	it.each(faults)('fails as a whole on %s, handing on no partial list', async (_, fault, message) => {
		server().injectFault({ path, query: { page: '3' }, ...fault });

		const result = await runPhpRank(server(), {
			resource,
			operation: 'getAll',
			returnAll: true,
			requestOptions: { timeout: 1000 },
		});

		expect(result.error?.message).toMatch(message);
		expect(result.items).toHaveLength(0);
		expect(apiRequests(server()).map((request) => request.query.page)).toEqual(['1', '2', '3']);
		expect(secretsIn(producedText(result))).toEqual([]);
	});

	it('reads page 3 again when its connection drops, and hands on the whole list', async () => {
		server().injectFault({ path, query: { page: '3' }, kind: 'drop' });

		const result = await runPhpRank(server(), { resource, operation: 'getAll', returnAll: true });

		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(resource === 'report' ? server().reports().length : server().projects().length);
		expect(apiRequests(server()).map((request) => request.query.page)).toEqual(['1', '2', '3', '3', '4', '5']);
	});
});

describe('the key goes only to the credential host', () => {
	it('never follows a page answer that points elsewhere', async () => {
		server().injectFault({
			path: '/api/v1/reports',
			kind: 'status',
			status: 200,
			body: {
				data: Array.from({ length: 100 }, (_, index) => ({ id: 1000 - index, url: `example.com/${index}`, result: 50 })),
				links: { next: 'http://127.0.0.2:9/api/v1/reports?page=2' },
				meta: { current_page: 1, last_page: 2, path: 'http://127.0.0.2:9/api/v1/reports' },
				status: 200,
			},
		});

		const { items, error } = await runPhpRank(server(), { resource: 'report', operation: 'getAll', returnAll: true });

		expect(error).toBeUndefined();
		expect(apiRequests(server()).map((request) => `${request.path}?page=${request.query.page}`)).toEqual([
			'/api/v1/reports?page=1',
			'/api/v1/reports?page=2',
		]);
		expect(items.length).toBeGreaterThan(0);
	});
});

describe('pages that contradict themselves', () => {
	it('fails rather than guess when a page is short yet says more pages follow', async () => {
		server().injectFault({
			path: '/api/v1/reports',
			kind: 'status',
			status: 200,
			body: { data: [{ id: 1, url: 'example.com/', result: 50 }], meta: { current_page: 1, last_page: 2 }, status: 200 },
		});

		const { items, error } = await runPhpRank(server(), { resource: 'report', operation: 'getAll', returnAll: true });

		expect(error?.message).toBe('phpRank answered with JSON that has no full page 1 of 2 (it sent 1 of 100 records)');
		expect(items).toHaveLength(0);
		expect(apiRequests(server())).toHaveLength(1);
	});
});

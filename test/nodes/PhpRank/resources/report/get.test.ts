import type { INodeProperties } from 'n8n-workflow';
import { PhpRank } from '../../../../../nodes/PhpRank/PhpRank.node';
import { apiRequests, byId, failedCheckNamesOnServer, failedChecksOnServer, fromList, inputErrorOf, runPhpRank, useServer } from '../../../../support/phpRank';

const server = useServer({}, (phpRank) => phpRank.seedReports(12));

function includeResultsOption(): INodeProperties {
	const options = new PhpRank().description.properties.find((property) => property.name === 'options' && property.displayOptions?.show?.operation?.includes('get'));
	return (options!.options as INodeProperties[]).find((option) => option.name === 'includeResults')!;
}

const get = (reportId: unknown) => ({ resource: 'report', operation: 'get', reportId });

describe('Report > Get', () => {
	it.each([
		['typed as an id', byId('7')],
		['picked from the list', fromList('7')],
		['mapped as a number', byId('={{ 7 }}')],
		['mapped as text', byId('={{ "7" }}')],
	])('reads the report %s and adds its grade', async (_, reportId) => {
		const { items, error } = await runPhpRank(server(), get(reportId));

		expect(error).toBeUndefined();
		expect(apiRequests(server()).map((request) => `${request.method} ${request.rawPath}`)).toEqual([
			'GET /api/v1/reports/7',
		]);
		const stored = server().reports().find((report) => report.id === 7)!;
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ id: 7, url: stored.url, result: stored.result, privacy: stored.privacy });
		expect(items[0].json.grade).toBe(stored.result > 79 ? 'good' : stored.result >= 49 ? 'decent' : 'bad');
	});

	it('shows the grade right after the score, and leaves out the per-check results when asked', async () => {
		const full = (await runPhpRank(server(), get(byId('7')))).items[0].json;
		const lean = (await runPhpRank(server(), { ...get(byId('7')), options: { includeResults: false } })).items[0].json;

		expect(Object.keys(full).slice(0, 5)).toEqual(['id', 'url', 'project', 'result', 'grade']);
		expect(Object.keys(full.results as object).length).toBeGreaterThan(30);
		const { results: _results, ...rest } = full;
		expect(lean).toEqual(rest);
	});

	it('keeps the per-check results when Include Per-Check Results is added from Options as the editor adds it, and leaves them out turned off', async () => {
		// The editor adds an option with its default.
		const added = { includeResults: includeResultsOption().default };
		const without = (await runPhpRank(server(), get(byId('7')))).items[0].json;
		const withAdded = (await runPhpRank(server(), { ...get(byId('7')), options: added })).items[0].json;
		const turnedOff = (await runPhpRank(server(), { ...get(byId('7')), options: { includeResults: false } })).items[0].json;

		expect(withAdded).toEqual(without);
		expect(Object.keys(without.results as object).length).toBeGreaterThan(30);
		expect(turnedOff).not.toHaveProperty('results');
		expect(turnedOff.failedChecks).toEqual(without.failedChecks);
	});

	it('lists the checks the report failed by importance, in phpRank\'s order, also without the per-check results', async () => {
		const full = (await runPhpRank(server(), get(byId('7')))).items[0].json;
		const lean = (await runPhpRank(server(), { ...get(byId('7')), options: { includeResults: false } })).items[0].json;

		const results = full.results as Record<string, { passed: boolean; importance: string }>;
		const failedIn = (importance: string) =>
			Object.entries(results)
				.filter(([, check]) => check.passed === false && check.importance === importance)
				.map(([name]) => name);
		expect(full.failedChecks).toEqual({ high: failedIn('high'), medium: failedIn('medium'), low: failedIn('low') });
		expect(full.failedChecks).toEqual(failedChecksOnServer(server().reports().find((report) => report.id === 7)!));
		expect(Object.keys(full).slice(3, 6)).toEqual(['result', 'grade', 'failedChecks']);
		expect(lean.failedChecks).toEqual(full.failedChecks);
	});

	it('names each failed check right after the ids, as phpRank\'s report page titles it, also without the per-check results', async () => {
		const full = (await runPhpRank(server(), get(byId('7')))).items[0].json;
		const lean = (await runPhpRank(server(), { ...get(byId('7')), options: { includeResults: false } })).items[0].json;

		const keys = Object.keys(full);
		expect(keys.indexOf('failedCheckNames')).toBe(keys.indexOf('failedChecks') + 1);
		expect(full.failedCheckNames).toEqual(failedCheckNamesOnServer(server().reports().find((report) => report.id === 7)!));
		expect(Object.values(full.failedCheckNames as object).flat().length).toBeGreaterThan(0);
		expect(lean.failedCheckNames).toEqual(full.failedCheckNames);
		expect(lean).not.toHaveProperty('results');
	});

	it('names a check this node does not know by its id made readable, and the checks it knows by their titles', async () => {
		const results = {
			meta_description: { passed: false, importance: 'high' },
			some_new_check: { passed: false, importance: 'high' },
			minified: { passed: false, importance: 'medium' },
			x: { passed: false, importance: 'low' },
			'404_page': { passed: false, importance: 'low' },
			favicon: { passed: true, importance: 'medium' },
		};
		server().injectFault({ path: '/api/v1/reports/7', kind: 'status', status: 200, body: { data: { id: 7, url: 'example.com/', result: 50, results }, status: 200 } });

		const { items } = await runPhpRank(server(), get(byId('7')));

		expect(items[0].json.failedChecks).toEqual({ high: ['meta_description', 'some_new_check'], medium: ['minified'], low: ['x', '404_page'] });
		expect(items[0].json.failedCheckNames).toEqual({ high: ['Meta description', 'Some new check'], medium: ['Minified'], low: ['X', '404 page'] });
	});

	it.each([
		['an empty map, which PHP sends as []', [], { high: [], medium: [], low: [] }, { high: [], medium: [], low: [] }],
		['checks of an unknown importance or without a verdict', { a: { passed: false, importance: 'urgent' }, b: { importance: 'high' }, c: null, d: { passed: false, importance: 'low' } }, { high: [], medium: [], low: ['d'] }, { high: [], medium: [], low: ['D'] }],
	])('reads %s', async (_, results, failedChecks, failedCheckNames) => {
		server().injectFault({ path: '/api/v1/reports/7', kind: 'status', status: 200, body: { data: { id: 7, url: 'example.com/', result: 50, results }, status: 200 } });

		const { items } = await runPhpRank(server(), get(byId('7')));

		expect(items[0].json.failedChecks).toEqual(failedChecks);
		expect(items[0].json.failedCheckNames).toEqual(failedCheckNames);
	});

	it('adds no failed checks to a report without per-check results', async () => {
		server().injectFault({ path: '/api/v1/reports/7', kind: 'status', status: 200, body: { data: { id: 7, url: 'example.com/', result: 50 }, status: 200 } });

		const { items } = await runPhpRank(server(), get(byId('7')));

		expect(items[0].json).toEqual({ id: 7, url: 'example.com/', result: 50, grade: 'decent', reportUrl: `${server().url}/reports/7` });
	});

	it.each(['0', '-3', '1.5', 'abc', '1/../../account', '7?x=1', ''])(
		'refuses the report id %p before any request',
		async (id) => {
			const { error } = await runPhpRank(server(), get(byId(`={{ ${JSON.stringify(id)} }}`)));

			expect(inputErrorOf(error).message).toBe(`Report ID must be a positive whole number; got ${JSON.stringify(id)}`);
			expect(apiRequests(server())).toHaveLength(0);
		},
	);

	it('names the report that was not found', async () => {
		const { error } = await runPhpRank(server(), get(byId('9999')));

		expect(error?.message).toBe('Report 9999 was not found (404)');
		expect(error?.description).toBe('Resource not found.');
		expect(apiRequests(server())).toHaveLength(1);
	});
});

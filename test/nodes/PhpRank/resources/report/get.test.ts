import { apiRequests, byId, fromList, inputErrorOf, runPhpRank, useServer } from '../../../../support/phpRank';

const server = useServer({}, (phpRank) => phpRank.seedReports(12));

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
		const lean = (await runPhpRank(server(), { ...get(byId('7')), options: { omitResults: true } })).items[0].json;

		expect(Object.keys(full).slice(0, 5)).toEqual(['id', 'url', 'project', 'result', 'grade']);
		expect(Object.keys(full.results as object).length).toBeGreaterThan(30);
		const { results: _results, ...rest } = full;
		expect(lean).toEqual(rest);
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

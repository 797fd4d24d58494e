import { apiRequests, byId, changedChecksOnServer, failedChecksOnServer, inputErrorOf, requestLines, runPhpRank, useServer } from '../../../../support/phpRank';

const server = useServer({}, (phpRank) => phpRank.seedReports(3));

const reanalyze = (reportId: unknown = byId('2'), options: Record<string, unknown> = {}) => ({ resource: 'report', operation: 'reanalyze', reportId, options });

const stored = (id: number) => server().reports().find((report) => report.id === id)!;

describe('Report > Re-Analyze', () => {
	it('has phpRank analyze the page again with one form PUT of results=1, and outputs the refreshed report', async () => {
		const before = stored(2);
		server().changePage(before.url, { quality: 0 });

		const { items, error } = await runPhpRank(server(), reanalyze());

		expect(error).toBeUndefined();
		const requests = apiRequests(server());
		expect(requestLines(server())).toEqual(['PUT /api/v1/reports/2']);
		expect(requests[0].headers['content-type']).toBe('application/x-www-form-urlencoded');
		expect(requests[0].body).toEqual({ results: '1' });
		const after = stored(2);
		expect(after.result).toBeLessThan(before.result);
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ id: 2, result: after.result, failedChecks: failedChecksOnServer(after) });
		expect(items[0].json).not.toHaveProperty('previousResult');
	});

	it('with Add Previous Score reads the report first and says what changed', async () => {
		const before = stored(2);
		server().changePage(before.url, { quality: 0 });

		const { items, error } = await runPhpRank(server(), reanalyze(byId('2'), { includePreviousScore: true }));

		expect(error).toBeUndefined();
		expect(requestLines(server())).toEqual(['GET /api/v1/reports/2', 'PUT /api/v1/reports/2']);
		const after = stored(2);
		expect(items[0].json).toMatchObject({
			id: 2,
			previousResult: before.result,
			resultChange: after.result - before.result,
			...changedChecksOnServer(before, after),
		});
	});

	it('takes the Report ID from an expression, as Update and Get do', async () => {
		const { items, error } = await runPhpRank(server(), reanalyze({ __rl: true, mode: 'id', value: '={{ 1 + 2 }}' }));

		expect(error).toBeUndefined();
		expect(requestLines(server())).toEqual(['PUT /api/v1/reports/3']);
		expect(items[0].json.id).toBe(3);
	});

	it('refuses a Report ID that is not a positive whole number, naming the field, before any request', async () => {
		const { error } = await runPhpRank(server(), reanalyze(byId('={{ "2/../../projects/x" }}')));

		expect(inputErrorOf(error).message).toBe('Report ID must be a positive whole number; got "2/../../projects/x"');
		expect(apiRequests(server())).toHaveLength(0);
	});

	it("explains phpRank's 403 for a report that is missing, as Update does", async () => {
		const { error } = await runPhpRank(server(), reanalyze(byId('404')));

		expect(error?.message).toBe('Report 404 does not exist or does not belong to the account of this API key (403)');
		expect(requestLines(server())).toEqual(['PUT /api/v1/reports/404']);
	});
});

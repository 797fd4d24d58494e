import { apiRequests, byId, inputErrorOf, runPhpRank, useServer } from '../../../../support/phpRank';

const server = useServer({}, (phpRank) => phpRank.seedReports(5));

const remove = (reportId: unknown) => ({ resource: 'report', operation: 'delete', reportId });

describe('Report > Delete', () => {
	it('deletes the report and outputs { deleted: true, id }', async () => {
		const { items, error } = await runPhpRank(server(), remove(byId('5')));

		expect(error).toBeUndefined();
		expect(apiRequests(server()).map((request) => `${request.method} ${request.rawPath}`)).toEqual([
			'DELETE /api/v1/reports/5',
		]);
		expect(items.map((item) => item.json)).toEqual([{ deleted: true, id: 5 }]);
		expect(server().reports().map((report) => report.id)).toEqual([1, 2, 3, 4]);
	});

	it('deletes one report per input item, ids mapped from the items', async () => {
		const { items, error } = await runPhpRank(server(), remove(byId('={{ $json.id }}')), {
			items: [{ id: 2 }, { id: '4' }],
		});

		expect(error).toBeUndefined();
		expect(items.map((item) => [item.json, item.pairedItem])).toEqual([
			[{ deleted: true, id: 2 }, { item: 0 }],
			[{ deleted: true, id: 4 }, { item: 1 }],
		]);
		expect(server().reports().map((report) => report.id)).toEqual([1, 3, 5]);
	});

	it('names the report that was not found', async () => {
		const { error } = await runPhpRank(server(), remove(byId('77')));

		expect(error?.message).toBe('Report 77 was not found (404)');
	});

	it('refuses an id that is not a positive whole number before any request', async () => {
		const { error } = await runPhpRank(server(), remove(byId('={{ "5/../../projects/x" }}')));

		expect(inputErrorOf(error).message).toMatch(/^Report ID must be a positive whole number/);
		expect(apiRequests(server())).toHaveLength(0);
		expect(server().reports()).toHaveLength(5);
	});
});

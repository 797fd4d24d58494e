/**
 * Report > Get Many sorted by Date Generated. phpRank 1.5's API sorts by id when asked for generated_at, and its
 * page links say sort_by=id: the node then reads the whole list and sorts it itself. A phpRank whose API applies
 * generated_at is read as any other order is.
 */
import type { PhpRankServer, ReportState } from '../../../../../dev/server';
import { apiRequests, runPhpRank, useServer } from '../../../../support/phpRank';

const REPORTS = 250;

const getMany = (parameters: Record<string, unknown>) => ({ resource: 'report', operation: 'getAll', ...parameters });
const pagesAsked = (server: PhpRankServer) => apiRequests(server).map((request) => [request.query.per_page, request.query.page]);

const byGeneration = (a: ReportState, b: ReportState) => a.generatedAt.localeCompare(b.generatedAt) || a.id - b.id;

/** The report ids in generated_at order, ties by id, as phpRank's web pages sort them. */
function generationOrder(server: PhpRankServer, sort: 'asc' | 'desc'): number[] {
	const ascending = [...server.reports()].sort(byGeneration).map((report) => report.id);
	return sort === 'asc' ? ascending : ascending.reverse();
}

function expectEveryPageAskedFor(server: PhpRankServer, sort: string) {
	for (const request of apiRequests(server)) expect(request.query).toMatchObject({ sort_by: 'generated_at', sort });
}

describe('Report > Get Many by Date Generated, from a phpRank that sorts by id instead (1.5)', () => {
	const server = useServer({}, (phpRank) => phpRank.seedReports(REPORTS));

	it('has reports whose generated_at order is not their id order', () => {
		const byId = server().reports().map((report) => report.id);
		expect(generationOrder(server(), 'asc')).not.toEqual(byId);
	});

	it.each(['asc', 'desc'] as const)('Return All, %s: every report in generated_at order, every page read at 100', async (sort) => {
		const { items, error } = await runPhpRank(server(), getMany({ returnAll: true, options: { sortBy: 'generated_at', sort } }));

		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.id)).toEqual(generationOrder(server(), sort));
		expect(pagesAsked(server())).toEqual([
			['100', '1'],
			['100', '2'],
			['100', '3'],
		]);
		expectEveryPageAskedFor(server(), sort);
	});

	it('Return All at the Page Size the user chose reads every page at that size', async () => {
		const { items } = await runPhpRank(server(), getMany({ returnAll: true, options: { sortBy: 'generated_at', sort: 'asc', perPage: 50 } }));

		expect(items.map((item) => item.json.id)).toEqual(generationOrder(server(), 'asc'));
		expect(pagesAsked(server())).toEqual(['1', '2', '3', '4', '5'].map((page) => ['50', page]));
	});

	it.each(['asc', 'desc'] as const)(
		'Limit 30, %s: the first 30 in generated_at order; page 1 (of 50) tells, then every page at 100',
		async (sort) => {
			const { items, error } = await runPhpRank(server(), getMany({ limit: 30, options: { sortBy: 'generated_at', sort } }));

			expect(error).toBeUndefined();
			expect(items.map((item) => item.json.id)).toEqual(generationOrder(server(), sort).slice(0, 30));
			expect(pagesAsked(server())).toEqual([
				['50', '1'],
				['100', '1'],
				['100', '2'],
				['100', '3'],
			]);
			expectEveryPageAskedFor(server(), sort);
		},
	);

	it.each(['asc', 'desc'] as const)('Limit 150, %s: page 1 at 100 is kept, every page read once', async (sort) => {
		const { items } = await runPhpRank(server(), getMany({ limit: 150, options: { sortBy: 'generated_at', sort } }));

		expect(items.map((item) => item.json.id)).toEqual(generationOrder(server(), sort).slice(0, 150));
		expect(pagesAsked(server())).toEqual([
			['100', '1'],
			['100', '2'],
			['100', '3'],
		]);
	});

	it('sorts the filtered list only: a project by Date Generated, newest first', async () => {
		const project = server().reports()[0].project;

		const { items } = await runPhpRank(server(), getMany({ limit: 5, filters: { project }, options: { sortBy: 'generated_at' } }));

		const expected = generationOrder(server(), 'desc').filter((id) => server().reports().find((report) => report.id === id)?.project === project);
		expect(items.map((item) => item.json.id)).toEqual(expected.slice(0, 5));
		expect(apiRequests(server()).every((request) => request.query.project === project)).toBe(true);
	});

	it('sorts by the other keys on the server, reading only what the limit needs', async () => {
		const { items } = await runPhpRank(server(), getMany({ limit: 30, options: { sortBy: 'id', sort: 'asc' } }));

		expect(items.map((item) => item.json.id)).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
		expect(pagesAsked(server())).toEqual([['50', '1']]);
	});
});

describe('Report > Get Many by Date Generated, from a phpRank that applies it', () => {
	const server = useServer({ sortsByGeneratedAt: true }, (phpRank) => phpRank.seedReports(REPORTS));

	it.each(['asc', 'desc'] as const)('Return All, %s: phpRank\'s order, in as many requests as any order', async (sort) => {
		const { items } = await runPhpRank(server(), getMany({ returnAll: true, options: { sortBy: 'generated_at', sort } }));

		expect(items.map((item) => item.json.id)).toEqual(generationOrder(server(), sort));
		expect(pagesAsked(server())).toEqual([
			['100', '1'],
			['100', '2'],
			['100', '3'],
		]);
	});

	it.each(['asc', 'desc'] as const)('Limit 30, %s: one request of 50, as for any order', async (sort) => {
		const { items } = await runPhpRank(server(), getMany({ limit: 30, options: { sortBy: 'generated_at', sort } }));

		expect(items.map((item) => item.json.id)).toEqual(generationOrder(server(), sort).slice(0, 30));
		expect(pagesAsked(server())).toEqual([['50', '1']]);
	});
});

import { apiRequests, inputErrorOf, runPhpRank, useServer } from '../../../../support/phpRank';

const server = useServer();

const getMany = (parameters: Record<string, unknown> = {}) => ({ resource: 'project', operation: 'getAll', ...parameters });
const pagesAsked = () => apiRequests(server()).map((request) => [request.query.per_page, request.query.page]);

describe('Project > Get Many', () => {
	it('reads all of 1,000 projects in 10 requests of 100, each project once', async () => {
		const names = server().seedProjects(1000);

		const { items, error } = await runPhpRank(server(), getMany({ returnAll: true }));

		expect(error).toBeUndefined();
		expect(pagesAsked()).toEqual(Array.from({ length: 10 }, (_, index) => ['100', String(index + 1)]));
		expect(apiRequests(server()).every((request) => request.path === '/api/v1/projects')).toBe(true);
		expect(items.map((item) => item.json.project).sort()).toEqual([...names].sort());
		expect(items[0].json).toEqual(
			expect.objectContaining({ project: expect.any(String), reports: 1, result: expect.any(String) }),
		);
	});

	it("keeps phpRank's report count and summed score, and adds the average score and its grade", async () => {
		server().seedReports(40, { projects: ['example.com', 'shop.example.org', 'blog.example.net'] });

		const { items } = await runPhpRank(server(), getMany({ returnAll: true }));

		expect(items).toHaveLength(3);
		for (const { json } of items) {
			const reports = server().reports().filter((report) => report.project === json.project);
			const sum = reports.reduce((total, report) => total + report.result, 0);
			const average = Math.round(sum / reports.length);
			expect(json).toEqual({
				project: json.project,
				reports: reports.length,
				result: String(sum),
				averageResult: average,
				grade: average > 79 ? 'good' : average >= 49 ? 'decent' : 'bad',
				created_at: expect.any(String),
			});
		}
	});

	it('reads at the page size the user chose', async () => {
		server().seedProjects(25);

		const { items } = await runPhpRank(server(), getMany({ returnAll: true, options: { perPage: 10 } }));

		expect(items).toHaveLength(25);
		expect(pagesAsked()).toEqual([
			['10', '1'],
			['10', '2'],
			['10', '3'],
		]);
	});

	it.each([
		[5, [['10', '1']]],
		[30, [['50', '1']]],
		[150, [['100', '1'], ['50', '3']]],
	])('limit %i reads the fewest pages and records: %j (per_page, page)', async (limit, pages) => {
		server().seedProjects(400);

		const { items } = await runPhpRank(server(), getMany({ limit }));

		expect(items).toHaveLength(limit);
		expect(new Set(items.map((item) => item.json.project)).size).toBe(limit);
		expect(pagesAsked()).toEqual(pages);
	});

	it('searches by name and sorts on the server', async () => {
		server().seedReports(40, { projects: ['alpha.example.com', 'beta.example.com', 'gamma.example.org'] });

		const { items } = await runPhpRank(
			server(),
			getMany({
				returnAll: true,
				filters: { search: 'example.com', searchBy: 'project' },
				options: { sortBy: 'project', sort: 'asc' },
			}),
		);

		expect(apiRequests(server())[0].query).toMatchObject({
			search: 'example.com',
			search_by: 'project',
			sort_by: 'project',
			sort: 'asc',
		});
		expect(items.map((item) => item.json.project)).toEqual(['alpha.example.com', 'beta.example.com']);
	});

	it('sorts by date created, newest first', async () => {
		server().seedProjects(30);

		const { items } = await runPhpRank(server(), getMany({ returnAll: true, options: { sortBy: 'created_at', sort: 'desc' } }));

		const dates = items.map((item) => item.json.created_at as string);
		expect(dates).toEqual([...dates].sort().reverse());
	});

	it('refuses a sort key that is not documented for projects', async () => {
		const { error } = await runPhpRank(server(), getMany({ options: { sortBy: '={{ "url" }}' } }));

		expect(inputErrorOf(error).message).toBe(
			'Sort By must be one of: created_at (Date Created), project (Name); got "url"',
		);
		expect(apiRequests(server())).toHaveLength(0);
	});
});

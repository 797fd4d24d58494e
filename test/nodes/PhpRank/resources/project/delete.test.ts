import { apiRequests, byName, fromList, inputErrorOf, runPhpRank, useServer } from '../../../../support/phpRank';

const server = useServer({}, (phpRank) => phpRank.seedReports(9, { projects: ['example.com', 'shop.example.org', 'blog.example.net'] }));

const remove = (projectName: unknown) => ({ resource: 'project', operation: 'delete', projectName });

describe('Project > Delete', () => {
	it.each([
		['picked from the list', fromList('shop.example.org')],
		['typed by name', byName('shop.example.org')],
	])('deletes the project %s and outputs { deleted: true, id: name }', async (_, projectName) => {
		const { items, error } = await runPhpRank(server(), remove(projectName));

		expect(error).toBeUndefined();
		expect(apiRequests(server()).map((request) => `${request.method} ${request.rawPath}`)).toEqual([
			'DELETE /api/v1/projects/shop.example.org',
		]);
		expect(items.map((item) => item.json)).toEqual([{ deleted: true, id: 'shop.example.org' }]);
		expect(server().projects().map((project) => project.project)).not.toContain('shop.example.org');
	});

	it.each(['a/b', 'what?x=1', 'frag#ment', 'with space', '../account', '%2e%2e', 'ünïcode.example'])(
		'sends the name %p as one encoded path segment',
		async (name) => {
			await runPhpRank(server(), remove(byName(name)));

			const [request] = apiRequests(server());
			expect(request.rawPath).toBe(`/api/v1/projects/${encodeURIComponent(name)}`);
			expect(request.path).toBe(`/api/v1/projects/${name}`);
			expect(request.rawQuery).toBe('');
		},
	);

	it.each(['.', '..', '   '])('refuses the name %p before any request', async (name) => {
		const { error } = await runPhpRank(server(), remove(byName(`={{ ${JSON.stringify(name)} }}`)));

		expect(inputErrorOf(error).message).toMatch(/^Project Name /);
		expect(apiRequests(server())).toHaveLength(0);
	});

	it('names the project that was not found', async () => {
		const { error } = await runPhpRank(server(), remove(byName('nowhere.example')));

		expect(error?.message).toBe('Project "nowhere.example" was not found (404)');
	});
});

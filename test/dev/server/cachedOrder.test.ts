import { call, useServer } from './helpers';

// Page speed over large data sets is measured by `npm run bench`; these tests guard the cached sort
// orders that make it fast.
describe('cached list orders over 10,000 reports and 1,000 projects', () => {
	const server = useServer({ seedReports: 10000, seedProjects: 1000 });

	it('pages through every report exactly once in a sorted order', async () => {
		const seen: string[] = [];
		for (let page = 1; page <= 100; page++) {
			const reply = await call(server(), 'GET', `/api/v1/reports?page=${page}&per_page=100&sort_by=url&sort=asc`);
			expect(reply.status).toBe(200);
			seen.push(...reply.json.data.map((report: { url: string; id: number }) => `${report.url}#${report.id}`));
		}
		expect(new Set(seen).size).toBe(10000);
		const urls = seen.map((key) => key.split('#')[0]);
		expect(urls).toEqual([...urls].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
	});

	it('pages through every project exactly once by name', async () => {
		const names: string[] = [];
		for (let page = 1; page <= 10; page++) {
			const reply = await call(server(), 'GET', `/api/v1/projects?page=${page}&per_page=100&sort_by=project&sort=asc`);
			names.push(...reply.json.data.map((project: { project: string }) => project.project));
		}
		expect(new Set(names).size).toBe(1000);
	});

	it('stays consistent after a change invalidates the cached order', async () => {
		const before = await call(server(), 'GET', '/api/v1/reports?sort_by=url&sort=asc&per_page=100');
		const first = before.json.data[0];
		await call(server(), 'DELETE', `/api/v1/reports/${first.id}`);
		const after = await call(server(), 'GET', '/api/v1/reports?sort_by=url&sort=asc&per_page=100');
		expect(after.json.meta.total).toBe(before.json.meta.total - 1);
		expect(after.json.data[0].id).toBe(before.json.data[1].id);
	});
});

import { call, useServer } from './helpers';

describe('performance with 10,000 reports over 1,000 projects', () => {
	const server = useServer({ seedReports: 10000, seedProjects: 1000 });

	async function timePages(query: (page: number) => string): Promise<number> {
		// Warm up: the first request builds the sorted order and lets the JIT settle.
		await call(server(), 'GET', `/api/v1/reports${query(1)}`);
		const started = performance.now();
		for (let page = 1; page <= 100; page++) {
			const reply = await call(server(), 'GET', `/api/v1/reports${query(page)}`);
			expect(reply.status).toBe(200);
			expect(reply.json.data.length).toBeGreaterThan(0);
		}
		return performance.now() - started;
	}

	it('answers 100 sequential pages in well under a second', async () => {
		expect(await timePages((page) => `?page=${page}`)).toBeLessThan(1000);
	});

	it('keeps sorted and filtered pages fast too', async () => {
		expect(await timePages((page) => `?page=${page}&sort_by=url&sort=asc`)).toBeLessThan(1000);
		expect(await timePages((page) => `?page=${page % 20 + 1}&result=decent&search=example`)).toBeLessThan(1000);
	});

	it('lists 1,000 projects page by page quickly', async () => {
		const started = performance.now();
		for (let page = 1; page <= 100; page++) {
			const reply = await call(server(), 'GET', `/api/v1/projects?page=${page}&sort_by=project`);
			expect(reply.json.data).toHaveLength(10);
		}
		expect(performance.now() - started).toBeLessThan(1000);
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

/**
 * A phpRank that does not apply a list value answers with its own in its place, status 200, and its page links say
 * which. Played here by answering the list asked for with the list phpRank would apply instead, as the bundled
 * server answers it. Every list read fails with a message naming the value, before anything is output or created.
 */
import type { PhpRankServer } from '../../../../../dev/server';
import { apiRequests, runPhpRank, useServer } from '../../../../support/phpRank';

const server = useServer({}, (phpRank) => phpRank.seedReports(40, { projects: ['example.com', 'shop.example.org'] }));

/** Requests to `path` with the `asked` query are answered with the page the server answers to `applied`. */
async function answerInstead(phpRank: PhpRankServer, path: string, asked: Record<string, string>, applied: string) {
	const response = await fetch(`${phpRank.url}${path}?${applied}`, {
		headers: { Authorization: `Bearer ${phpRank.apiKey}`, Accept: 'application/json' },
	});
	phpRank.injectFault({ path, query: asked, kind: 'status', status: 200, body: await response.json(), times: Infinity });
	phpRank.clearRequests();
}

describe('a list value phpRank replaced', () => {
	it('Report > Get Many sorted by URL from a phpRank that sorts by id instead: fails naming Sort By, nothing output', async () => {
		await answerInstead(server(), '/api/v1/reports', { sort_by: 'url' }, 'sort_by=id&sort=asc&per_page=10&page=1');

		const { items, error } = await runPhpRank(server(), { resource: 'report', operation: 'getAll', limit: 10, options: { sortBy: 'url', sort: 'asc' } });

		expect(error?.message).toBe('This phpRank version does not apply Sort By "url": it applied sort_by "id" instead; running this row again is safe');
		expect(items).toHaveLength(0);
		expect(apiRequests(server())).toHaveLength(1);
	});

	it('Report > Get Many with Return All from a phpRank that allows pages of 10 only: fails naming Page Size', async () => {
		await answerInstead(server(), '/api/v1/reports', { per_page: '100' }, 'per_page=10&page=1');

		const { error } = await runPhpRank(server(), { resource: 'report', operation: 'getAll', returnAll: true });

		expect(error?.message).toBe('This phpRank version does not apply Page Size "100": it applied per_page "10" instead; running this row again is safe');
		expect(apiRequests(server())).toHaveLength(1);
	});

	it('Report > Get Many by Grade from a phpRank that filters another grade: fails naming Grade, under Continue On Fail too', async () => {
		await answerInstead(server(), '/api/v1/reports', { result: 'decent' }, 'result=bad&per_page=10&page=1');

		const { items } = await runPhpRank(server(), { resource: 'report', operation: 'getAll', limit: 5, filters: { grade: 'decent' } }, { continueOnFail: true });

		expect(items.map((item) => item.json)).toEqual([
			{ error: 'This phpRank version does not apply Grade "decent": it applied result "bad" instead; running this row again is safe' },
		]);
	});

	it('Project > Get Many sorted by Name from a phpRank that sorts by date instead: fails naming Sort By', async () => {
		await answerInstead(server(), '/api/v1/projects', { sort_by: 'project' }, 'sort_by=created_at&sort=asc&per_page=10&page=1');

		const { error } = await runPhpRank(server(), { resource: 'project', operation: 'getAll', limit: 5, options: { sortBy: 'project', sort: 'asc' } });

		expect(error?.message).toBe('This phpRank version does not apply Sort By "project": it applied sort_by "created_at" instead; running this row again is safe');
	});

	it('Report > Create with Return the Existing Report, from a phpRank that does not sort by URL: fails before creating', async () => {
		const known = server().reports()[3];
		await answerInstead(server(), '/api/v1/reports', { sort_by: 'url' }, `search=${encodeURIComponent(known.url)}&project=${known.project}&sort_by=id&sort=asc&per_page=100&page=1`);

		const { error } = await runPhpRank(server(), {
			resource: 'report',
			operation: 'create',
			url: `https://${known.url}`,
			ifReportExists: 'returnExisting',
		});

		expect(error?.message).toBe('This phpRank version does not apply Sort By "url": it applied sort_by "id" instead; running this row again is safe');
		expect(apiRequests(server()).map((request) => request.method)).toEqual(['GET']);
		expect(server().reports()).toHaveLength(40);
	});
});

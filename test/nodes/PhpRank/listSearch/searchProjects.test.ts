import { NodeApiError } from 'n8n-workflow';
import type { INodeListSearchResult } from 'n8n-workflow';
import { loadOptions } from '../../../../dev/engine';
import { apiRequests, credentialsFor, startServer, useServer } from '../../../support/phpRank';
import type { PhpRankServer, RecordedRequest } from '../../../support/phpRank';

const server = useServer();

/** The "Project" resource locator of Project > Delete, as the editor asks for its list. */
async function searchProjects(
	on: PhpRankServer,
	options: { filter?: string; paginationToken?: string; baseUrl?: string; apiKey?: string } = {},
): Promise<INodeListSearchResult> {
	const { filter, paginationToken, ...credentialOverrides } = options;
	return await loadOptions({
		method: 'listSearch',
		name: 'searchProjects',
		filter,
		paginationToken,
		parameters: { resource: 'project', operation: 'delete', projectName: { __rl: true, mode: 'list', value: '' } },
		credentials: credentialsFor(on, credentialOverrides),
	});
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What the list should show: every project by its name, which is also what gets picked. */
const shownFor = (names: string[]) => [...names].sort(byName).map((name) => ({ name, value: name }));

const LIST_QUERY = { sort_by: 'project', sort: 'asc', per_page: '100' };

function expectAuthorisedGet(request: RecordedRequest, apiKey = server().apiKey) {
	expect(request.method).toBe('GET');
	expect(request.headers.authorization).toBe(`Bearer ${apiKey}`);
	expect(request.headers.accept).toBe('application/json');
}

describe('listSearch.searchProjects', () => {
	it('lists the projects by name, A to Z, picked by name', async () => {
		server().seedReports(24, { projects: ['gamma.example.org', 'alpha.example.com', 'beta.example.com'] });

		const { results, paginationToken } = await searchProjects(server());

		expect(results).toEqual([
			{ name: 'alpha.example.com', value: 'alpha.example.com' },
			{ name: 'beta.example.com', value: 'beta.example.com' },
			{ name: 'gamma.example.org', value: 'gamma.example.org' },
		]);
		expect(paginationToken).toBeUndefined();

		const requests = apiRequests(server());
		expect(requests).toHaveLength(1);
		expectAuthorisedGet(requests[0]);
		expect(requests[0].path).toBe('/api/v1/projects');
		expect(requests[0].query).toEqual({ ...LIST_QUERY, page: '1' });
	});

	it('shows an empty list, without a token, when there are no projects', async () => {
		const result = await searchProjects(server());

		expect(result).toEqual({ results: [], paginationToken: undefined });
		expect(apiRequests(server()).map((request) => request.query)).toEqual([{ ...LIST_QUERY, page: '1' }]);
	});

	it('hands what the user types to phpRank as a project search', async () => {
		const names = server().seedProjects(30);
		const matching = names.filter((name) => name.includes('site2'));
		expect(matching).toEqual(expect.arrayContaining(['site2.example.com', 'site20.example.com']));
		expect(matching.length).toBeLessThan(30);

		const { results, paginationToken } = await searchProjects(server(), { filter: 'site2' });

		expect(results).toEqual(shownFor(matching));
		expect(paginationToken).toBeUndefined();
		expect(apiRequests(server()).map((request) => request.query)).toEqual([
			{ search: 'site2', search_by: 'project', ...LIST_QUERY, page: '1' },
		]);
	});

	it('sends the search text intact, whatever characters it has', async () => {
		server().seedProjects(3);
		const filter = 'a&b=c #?/é+%20';

		const { results } = await searchProjects(server(), { filter });

		expect(results).toEqual([]);
		expect(apiRequests(server())[0].query).toEqual({ search: filter, search_by: 'project', ...LIST_QUERY, page: '1' });
	});

	it('hands out a token while more pages exist, follows it, and hands none on the last page', async () => {
		const names = server().seedProjects(250);

		const first = await searchProjects(server());
		const second = await searchProjects(server(), { paginationToken: first.paginationToken });
		const third = await searchProjects(server(), { paginationToken: second.paginationToken });

		expect([first, second, third].map((page) => [page.results.length, page.paginationToken])).toEqual([
			[100, '2'],
			[100, '3'],
			[50, undefined],
		]);
		expect(apiRequests(server()).map((request) => [request.path, request.query])).toEqual(
			['1', '2', '3'].map((page) => ['/api/v1/projects', { ...LIST_QUERY, page }]),
		);
		apiRequests(server()).forEach((request) => expectAuthorisedGet(request));
		// Scrolling through the whole list shows every project once, in order.
		expect([...first.results, ...second.results, ...third.results]).toEqual(shownFor(names));
	});

	it('keeps the search on the following pages', async () => {
		const names = server().seedProjects(250);
		const matching = names.filter((name) => name.includes('1'));
		expect(matching.length).toBeGreaterThan(100);
		expect(matching.length).toBeLessThan(200);

		const first = await searchProjects(server(), { filter: '1' });
		const second = await searchProjects(server(), { filter: '1', paginationToken: first.paginationToken });

		expect([first.paginationToken, second.paginationToken]).toEqual(['2', undefined]);
		expect([...first.results, ...second.results]).toEqual(shownFor(matching));
		expect(apiRequests(server()).map((request) => request.query)).toEqual(
			['1', '2'].map((page) => ({ search: '1', search_by: 'project', ...LIST_QUERY, page })),
		);
	});

	describe('with phpRank in a sub-folder', () => {
		let inSubFolder: PhpRankServer;

		beforeAll(async () => {
			inSubFolder = await startServer({ basePath: '/phprank', seedProjects: 2 });
		});
		afterAll(async () => await inSubFolder.close());
		beforeEach(() => inSubFolder.clearRequests());

		it.each([
			['the installation address', ''],
			['the API address', '/api/v1/'],
		])('reaches {sub-folder}/api/v1 when the base URL is %s', async (_, suffix) => {
			const baseUrl = `${inSubFolder.url}${suffix}`;
			expect(baseUrl).toMatch(/\/phprank(\/api\/v1\/)?$/);

			const { results } = await searchProjects(inSubFolder, { baseUrl });

			expect(results).toEqual(shownFor(inSubFolder.projects().map((project) => project.project)));
			expect(results).toHaveLength(2);
			expect(inSubFolder.requests.map((request) => request.rawPath)).toEqual(['/phprank/api/v1/projects']);
			expectAuthorisedGet(inSubFolder.requests[0], inSubFolder.apiKey);
		});
	});

	it('fails with a clear error when phpRank refuses the API key', async () => {
		server().seedProjects(3);
		const wrongKey = 'not-the-key-0123456789';

		const error = await searchProjects(server(), { apiKey: wrongKey }).catch((caught: unknown) => caught);

		expect(error).toBeInstanceOf(NodeApiError);
		expect(error).toMatchObject({
			message: 'phpRank refused the API key (401 Unauthenticated)',
			httpCode: '401',
			description: expect.stringContaining('Check the API key'),
		});
		const requests = apiRequests(server());
		expect(requests).toHaveLength(1);
		expectAuthorisedGet(requests[0], wrongKey);
		expect(requests[0].status).toBe(401);
	});

	it('fails, rather than showing an empty list, when phpRank answers with its login page', async () => {
		server().seedProjects(3);
		server().injectFault({ path: '/api/v1/projects', kind: 'redirectLogin' });

		const error = await searchProjects(server()).catch((caught: unknown) => caught);

		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as NodeApiError).message).toMatch(/^phpRank redirected to its login page \(30\d\)/);
		// Redirects are not followed, so the key goes nowhere else.
		expect(server().requests.map((request) => request.path)).toEqual(['/api/v1/projects']);
	});
});

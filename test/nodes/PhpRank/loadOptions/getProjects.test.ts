import { NodeApiError } from 'n8n-workflow';
import type { INodePropertyOptions } from 'n8n-workflow';
import { loadOptions } from '../../../../dev/engine';
import { apiRequests, credentialsFor, startServer, useServer } from '../../../support/phpRank';
import type { PhpRankServer } from '../../../support/phpRank';

const server = useServer();

/** The "Project Name or ID" filter of Report > Get Many, as the editor fills its dropdown. */
async function getProjects(
	on: PhpRankServer,
	options: { baseUrl?: string; apiKey?: string; filters?: Record<string, string> } = {},
): Promise<INodePropertyOptions[]> {
	const { filters = {}, ...credentialOverrides } = options;
	return await loadOptions({
		method: 'loadOptions',
		name: 'getProjects',
		parameters: { resource: 'report', operation: 'getAll', filters },
		credentials: credentialsFor(on, credentialOverrides),
	});
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const optionsFor = (names: string[]) => [...names].sort(byName).map((name) => ({ name, value: name }));
const pagesAsked = (on: PhpRankServer = server()) => apiRequests(on).map((request) => request.query.page);
const LIST_QUERY = { sort_by: 'project', sort: 'asc', per_page: '100' };

describe('loadOptions.getProjects', () => {
	it('offers every project, A to Z, by name', async () => {
		server().seedReports(24, { projects: ['gamma.example.org', 'alpha.example.com', 'beta.example.com'] });

		const options = await getProjects(server());

		expect(options).toEqual(optionsFor(['alpha.example.com', 'beta.example.com', 'gamma.example.org']));
		const requests = apiRequests(server());
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({ method: 'GET', path: '/api/v1/projects', query: { ...LIST_QUERY, page: '1' } });
		expect(requests[0].headers.authorization).toBe(`Bearer ${server().apiKey}`);
	});

	it('offers nothing, after one request, when there are no projects', async () => {
		expect(await getProjects(server())).toEqual([]);
		expect(pagesAsked()).toEqual(['1']);
	});

	it('reads all 250 projects in 3 requests of 100, losing and repeating none', async () => {
		const names = server().seedProjects(250);

		const options = await getProjects(server());

		expect(options).toHaveLength(250);
		expect(new Set(options.map((option) => option.value)).size).toBe(250);
		expect(options).toEqual(optionsFor(names));
		expect(apiRequests(server()).map((request) => [request.path, request.query])).toEqual(
			['1', '2', '3'].map((page) => ['/api/v1/projects', { ...LIST_QUERY, page }]),
		);
		expect(apiRequests(server()).every((request) => request.headers.authorization === `Bearer ${server().apiKey}`)).toBe(
			true,
		);
	});

	it.each([
		[100, ['1']],
		[101, ['1', '2']],
		[200, ['1', '2']],
		[201, ['1', '2', '3']],
	])('reads %i projects in pages %j', async (count, pages) => {
		const names = server().seedProjects(count);

		const options = await getProjects(server());

		expect(options).toEqual(optionsFor(names));
		expect(pagesAsked()).toEqual(pages);
	});

	it('offers all projects whatever else the filters hold', async () => {
		const names = server().seedProjects(5);

		const options = await getProjects(server(), { filters: { search: 'site1', search_by: 'url' } });

		expect(options).toEqual(optionsFor(names));
		expect(apiRequests(server()).map((request) => request.query)).toEqual([{ ...LIST_QUERY, page: '1' }]);
	});

	it('stops at the last page even when phpRank keeps answering with the first one', async () => {
		// A cache in front of phpRank that ignores the query string answers every page with page 1.
		const pageOne = {
			data: [{ project: 'alpha.example.com', reports: 1, result: '80' }],
			meta: { current_page: 1, last_page: 3, per_page: 100, total: 201 },
		};
		server().injectFault({ path: '/api/v1/projects', kind: 'status', status: 200, body: pageOne, times: 20 });

		await getProjects(server());

		expect(pagesAsked()).toEqual(['1', '2', '3']);
	});

	describe('with phpRank in a sub-folder', () => {
		let inSubFolder: PhpRankServer;

		beforeAll(async () => {
			inSubFolder = await startServer({ basePath: '/phprank', seedProjects: 150 });
		});
		afterAll(async () => await inSubFolder.close());
		beforeEach(() => inSubFolder.clearRequests());

		it.each([
			['the installation address', ''],
			['the API address', '/api/v1/'],
		])('reaches {sub-folder}/api/v1 for every page when the base URL is %s', async (_, suffix) => {
			const options = await getProjects(inSubFolder, { baseUrl: `${inSubFolder.url}${suffix}` });

			expect(options).toEqual(optionsFor(inSubFolder.projects().map((project) => project.project)));
			expect(options).toHaveLength(150);
			expect(inSubFolder.requests.map((request) => [request.rawPath, request.query.page])).toEqual([
				['/phprank/api/v1/projects', '1'],
				['/phprank/api/v1/projects', '2'],
			]);
		});
	});

	it('fails with a clear error when phpRank refuses the API key', async () => {
		server().seedProjects(3);
		const wrongKey = 'not-the-key-0123456789';

		const error = await getProjects(server(), { apiKey: wrongKey }).catch((caught: unknown) => caught);

		expect(error).toBeInstanceOf(NodeApiError);
		expect(error).toMatchObject({
			message: 'phpRank refused the API key (401 Unauthenticated)',
			httpCode: '401',
			description: expect.stringContaining('Check the API key'),
		});
		expect(apiRequests(server()).map((request) => [request.headers.authorization, request.status])).toEqual([
			[`Bearer ${wrongKey}`, 401],
		]);
	});

	it('fails, rather than offering part of the list, when a later page fails', async () => {
		server().seedProjects(250);
		server().injectFault({
			path: '/api/v1/projects',
			query: { page: '2' },
			kind: 'status',
			status: 500,
			body: { message: 'Server Error' },
		});

		const error = await getProjects(server()).catch((caught: unknown) => caught);

		expect(error).toBeInstanceOf(NodeApiError);
		expect(error).toMatchObject({ message: 'phpRank failed to process the request (500): Server Error', httpCode: '500' });
		expect(pagesAsked()).toEqual(['1', '2']);
	});
});

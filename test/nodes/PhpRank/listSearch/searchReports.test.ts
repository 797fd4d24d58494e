import { NodeApiError } from 'n8n-workflow';
import type { INodeListSearchResult } from 'n8n-workflow';
import { loadOptions } from '../../../../dev/engine';
import { apiRequests, credentialsFor, startServer, useServer } from '../../../support/phpRank';
import type { PhpRankServer, RecordedRequest } from '../../../support/phpRank';

const server = useServer();

/** The "Report" resource locator of Report > Get, as the editor asks for its list. */
async function searchReports(
	on: PhpRankServer,
	options: { filter?: string; paginationToken?: string; baseUrl?: string; apiKey?: string } = {},
): Promise<INodeListSearchResult> {
	const { filter, paginationToken, ...credentialOverrides } = options;
	return await loadOptions({
		method: 'listSearch',
		name: 'searchReports',
		filter,
		paginationToken,
		parameters: { resource: 'report', operation: 'get', reportId: { __rl: true, mode: 'list', value: '' } },
		credentials: credentialsFor(on, credentialOverrides),
	});
}

/** What the list should show for reports, newest first as phpRank lists them. */
function shownFor(reports: Array<{ id: number; url: string }>) {
	return [...reports]
		.sort((a, b) => b.id - a.id)
		.map((report) => ({ name: `${report.url} (#${report.id})`, value: String(report.id) }));
}

const pagesAsked = () => apiRequests(server()).map((request) => request.query.page);

function expectAuthorisedGet(request: RecordedRequest, apiKey = server().apiKey) {
	expect(request.method).toBe('GET');
	expect(request.headers.authorization).toBe(`Bearer ${apiKey}`);
	expect(request.headers.accept).toBe('application/json');
}

describe('listSearch.searchReports', () => {
	it('lists the reports newest first, each shown by URL and id, picked by id', async () => {
		server().seedReports(5);

		const { results, paginationToken } = await searchReports(server());

		expect(results).toEqual(shownFor(server().reports()));
		expect(results[0]).toEqual({ name: expect.stringMatching(/^[a-z.]+\/\S* \(#5\)$/), value: '5' });
		expect(paginationToken).toBeUndefined();

		const requests = apiRequests(server());
		expect(requests).toHaveLength(1);
		expectAuthorisedGet(requests[0]);
		expect(requests[0].path).toBe('/api/v1/reports');
		expect(requests[0].query).toEqual({ per_page: '50', page: '1' });
	});

	it('shows an empty list, without a token, when there are no reports', async () => {
		const result = await searchReports(server());

		expect(result).toEqual({ results: [], paginationToken: undefined });
		expect(apiRequests(server()).map((request) => request.query)).toEqual([{ per_page: '50', page: '1' }]);
	});

	it('hands what the user types to phpRank as a URL search', async () => {
		server().seedReports(40);
		const matching = server().reports().filter((report) => report.url.includes('pricing'));
		expect(matching.length).toBeGreaterThan(0);
		expect(matching.length).toBeLessThan(40);

		const { results, paginationToken } = await searchReports(server(), { filter: 'pricing' });

		expect(results).toEqual(shownFor(matching));
		expect(paginationToken).toBeUndefined();
		expect(apiRequests(server()).map((request) => request.query)).toEqual([
			{ search: 'pricing', search_by: 'url', per_page: '50', page: '1' },
		]);
	});

	it('sends the search text intact, whatever characters it has', async () => {
		server().seedReports(3);
		const filter = 'a&b=c #?/é+%20';

		const { results } = await searchReports(server(), { filter });

		expect(results).toEqual([]);
		expect(apiRequests(server())[0].query).toEqual({ search: filter, search_by: 'url', per_page: '50', page: '1' });
	});

	it('hands out a token while more pages exist, follows it, and hands none on the last page', async () => {
		server().seedReports(120);

		const first = await searchReports(server());
		const second = await searchReports(server(), { paginationToken: first.paginationToken });
		const third = await searchReports(server(), { paginationToken: second.paginationToken });

		expect([first, second, third].map((page) => [page.results.length, page.paginationToken])).toEqual([
			[50, '2'],
			[50, '3'],
			[20, undefined],
		]);
		expect(apiRequests(server()).map((request) => [request.path, request.query.per_page, request.query.page])).toEqual([
			['/api/v1/reports', '50', '1'],
			['/api/v1/reports', '50', '2'],
			['/api/v1/reports', '50', '3'],
		]);
		apiRequests(server()).forEach((request) => expectAuthorisedGet(request));
		// Scrolling through the whole list shows every report once, in order.
		expect([...first.results, ...second.results, ...third.results]).toEqual(shownFor(server().reports()));
	});

	it('hands no token past the last page, even when the answer claims to be page 1', async () => {
		// A cache in front of phpRank that ignores the query string answers every page with page 1.
		const pageOne = {
			data: [{ id: 7, url: 'example.com/pricing' }],
			meta: { current_page: 1, last_page: 3, per_page: 50, total: 101 },
		};
		server().injectFault({ path: '/api/v1/reports', kind: 'status', status: 200, body: pageOne, times: Infinity });

		const second = await searchReports(server(), { paginationToken: '2' });
		const third = await searchReports(server(), { paginationToken: '3' });

		expect([second.paginationToken, third.paginationToken]).toEqual(['3', undefined]);
		expect(third.results).toEqual([{ name: 'example.com/pricing (#7)', value: '7' }]);
		expect(pagesAsked()).toEqual(['2', '3']);
	});

	it('keeps the search on the following pages', async () => {
		server().seedReports(260);
		const matching = server().reports().filter((report) => report.url.includes('example.co'));
		expect(matching.length).toBeGreaterThan(50);
		expect(matching.length).toBeLessThan(260);

		const pages: INodeListSearchResult[] = [];
		let paginationToken: string | undefined;
		do {
			const page = await searchReports(server(), { filter: 'example.co', paginationToken });
			pages.push(page);
			paginationToken = page.paginationToken;
		} while (paginationToken && pages.length < 10);

		expect(pages.flatMap((page) => page.results)).toEqual(shownFor(matching));
		expect(apiRequests(server()).map((request) => request.query)).toEqual(
			Array.from({ length: Math.ceil(matching.length / 50) }, (_, index) => ({
				search: 'example.co',
				search_by: 'url',
				per_page: '50',
				page: String(index + 1),
			})),
		);
	});

	describe('with phpRank in a sub-folder', () => {
		let inSubFolder: PhpRankServer;

		beforeAll(async () => {
			inSubFolder = await startServer({ basePath: '/phprank', seedReports: 3 });
		});
		afterAll(async () => await inSubFolder.close());
		beforeEach(() => inSubFolder.clearRequests());

		it.each([
			['the installation address', ''],
			['the API address', '/api/v1/'],
		])('reaches {sub-folder}/api/v1 when the base URL is %s', async (_, suffix) => {
			const baseUrl = `${inSubFolder.url}${suffix}`;
			expect(baseUrl).toMatch(/\/phprank(\/api\/v1\/)?$/);

			const { results } = await searchReports(inSubFolder, { baseUrl });

			expect(results.map((result) => result.value)).toEqual(['3', '2', '1']);
			expect(inSubFolder.requests.map((request) => request.rawPath)).toEqual(['/phprank/api/v1/reports']);
			expectAuthorisedGet(inSubFolder.requests[0], inSubFolder.apiKey);
		});

		it('fails, rather than showing an empty list, when the base URL misses the sub-folder', async () => {
			const withoutSubFolder = inSubFolder.url.replace(/\/phprank$/, '');

			const error = await searchReports(inSubFolder, { baseUrl: withoutSubFolder }).catch((caught: unknown) => caught);

			expect(error).toBeInstanceOf(NodeApiError);
			expect((error as NodeApiError).httpCode).toBe('404');
			expect((error as NodeApiError).message).toBe('The report list was not found (404)');
			expect((error as NodeApiError).description).toMatch(/^phpRank has no list at this address\. Check the Base URL/);
			expect(inSubFolder.requests.map((request) => [request.rawPath, request.status])).toEqual([['/api/v1/reports', 404]]);
		});
	});

	it('fails with a clear error when phpRank refuses the API key', async () => {
		server().seedReports(3);
		const wrongKey = 'not-the-key-0123456789';

		const error = await searchReports(server(), { apiKey: wrongKey }).catch((caught: unknown) => caught);

		expect(error).toBeInstanceOf(NodeApiError);
		expect(error).toMatchObject({
			message: 'phpRank refused the API key (401 Unauthenticated)',
			httpCode: '401',
			description: expect.stringContaining('Check the API key'),
		});
		expect((error as NodeApiError).node?.type).toBe('n8n-nodes-phprank.phpRank');
		const requests = apiRequests(server());
		expect(requests).toHaveLength(1);
		expectAuthorisedGet(requests[0], wrongKey);
		expect(requests[0].status).toBe(401);
	});

	it('fails with the server() fault rather than showing an empty list', async () => {
		server().seedReports(3);
		server().injectFault({ path: '/api/v1/reports', kind: 'status', status: 500, body: { message: 'Server Error' } });

		const error = await searchReports(server()).catch((caught: unknown) => caught);

		expect(error).toBeInstanceOf(NodeApiError);
		expect(error).toMatchObject({ message: 'phpRank failed to process the request (500): Server Error; running this row again is safe', httpCode: '500' });
	});
});

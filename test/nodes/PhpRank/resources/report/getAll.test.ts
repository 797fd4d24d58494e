import type { IDataObject, IPairedItemData } from 'n8n-workflow';
import { apiRequests, byName, failedCheckNamesOnServer, failedChecksOnServer, fromList, inputErrorOf, runPhpRank, useServer } from '../../../../support/phpRank';

const server = useServer();

const getMany = (parameters: IDataObject = {}) => ({ resource: 'report', operation: 'getAll', ...parameters });
const pagesAsked = () => apiRequests(server()).map((request) => [request.query.per_page, request.query.page]);

describe('Report > Get Many: Return All', () => {
	it.each([
		[0, 1],
		[1, 1],
		[100, 1],
		[101, 2],
		[10_000, 100],
	])('reads all of %i reports in %i request(s) of 100', async (count, requests) => {
		server().seedReports(count);

		const { items, error } = await runPhpRank(server(), getMany({ returnAll: true }));

		expect(error).toBeUndefined();
		expect(items).toHaveLength(count);
		expect(new Set(items.map((item) => item.json.id)).size).toBe(count);
		expect(pagesAsked()).toEqual(Array.from({ length: requests }, (_, index) => ['100', String(index + 1)]));
		expect(items.every((item) => ['good', 'decent', 'bad'].includes(item.json.grade as string))).toBe(true);
		expect(items.every((item) => (item.pairedItem as IPairedItemData).item === 0)).toBe(true);
	});

	it('reads at the page size the user chose', async () => {
		server().seedReports(60);

		const { items } = await runPhpRank(server(), getMany({ returnAll: true, options: { perPage: 25 } }));

		expect(items).toHaveLength(60);
		expect(pagesAsked()).toEqual([
			['25', '1'],
			['25', '2'],
			['25', '3'],
		]);
	});

	it('lists every report once, newest first, in the order phpRank sends them', async () => {
		server().seedReports(230);

		const { items } = await runPhpRank(server(), getMany({ returnAll: true }));

		const expected = server().reports().map((report) => report.id).sort((a, b) => b - a);
		expect(items.map((item) => item.json.id)).toEqual(expected);
	});
});

describe('Report > Get Many: Limit', () => {
	beforeEach(() => server().seedReports(10_000));

	it.each([
		[1, [['10', '1']]],
		[10, [['10', '1']]],
		[11, [['25', '1']]],
		[50, [['50', '1']]],
		[100, [['100', '1']]],
		[101, [['100', '1'], ['10', '11']]],
		[250, [['100', '1'], ['100', '2'], ['50', '5']]],
	])('limit %i reads the fewest pages and records: %j (per_page, page)', async (limit, pages) => {
		const { items, error } = await runPhpRank(server(), getMany({ returnAll: false, limit }));

		expect(error).toBeUndefined();
		expect(items).toHaveLength(limit);
		expect(pagesAsked()).toEqual(pages);
		expect(pages.length).toBe(Math.ceil(limit / 100));
		// The least records any client fetches with that many requests and the allowed page sizes.
		const fewestRecords = limit <= 100 ? [10, 25, 50, 100].find((size) => size >= limit) : Math.floor(limit / 100) * 100 + ([10, 25, 50, 100].find((size) => size >= limit % 100) ?? 0) * Number(limit % 100 > 0);
		expect(pages.reduce((fetched, [perPage]) => fetched + Number(perPage), 0)).toBe(fewestRecords);
		expect(items.map((item) => item.json.id)).toEqual(
			Array.from({ length: limit }, (_, index) => 10_000 - index),
		);
	});

	it('stops at the last page when fewer records exist than the limit', async () => {
		server().reset();
		server().seedReports(30);

		const { items } = await runPhpRank(server(), getMany({ returnAll: false, limit: 500 }));

		expect(items).toHaveLength(30);
		expect(pagesAsked()).toEqual([['100', '1']]);
	});

	it.each([0, -1, 2.5, 'ten'])('refuses the limit %p before any request', async (limit) => {
		const { error } = await runPhpRank(server(), getMany({ limit: `={{ ${JSON.stringify(limit)} }}` }));

		expect(inputErrorOf(error).message).toBe(`Limit must be a positive whole number; got ${JSON.stringify(limit)}`);
		expect(apiRequests(server())).toHaveLength(0);
	});
});

describe('Report > Get Many: filters and options', () => {
	beforeEach(() => server().seedReports(300, { projects: ['example.com', 'shop.example.org', 'blog.example.net'] }));

	it.each(['good', 'decent', 'bad'])('filters by grade %s, sent as the result filter the API documents', async (grade) => {
		const { items } = await runPhpRank(server(), getMany({ returnAll: true, filters: { grade } }));

		expect(apiRequests(server())[0].query.result).toBe(grade);
		expect(items.length).toBeGreaterThan(0);
		expect(items.every((item) => item.json.grade === grade)).toBe(true);
	});

	it.each([
		['picked from the list', fromList('blog.example.net')],
		['typed by name', byName('blog.example.net')],
		['mapped by an expression', byName('={{ "blog." + "example.net" }}')],
	])('filters by a project %s', async (_how, project) => {
		const { items } = await runPhpRank(server(), getMany({ returnAll: true, filters: { project } }));

		expect(apiRequests(server())[0].query.project).toBe('blog.example.net');
		expect(items.length).toBe(server().reports().filter((report) => report.project === 'blog.example.net').length);
	});

	it('treats a project filter added but left empty as no filter', async () => {
		await runPhpRank(server(), getMany({ limit: 10, filters: { project: fromList('') } }));

		expect(apiRequests(server())[0].query).not.toHaveProperty('project');
	});

	it('shows grade right after the score in every report, and can leave out the per-check results', async () => {
		const { items } = await runPhpRank(server(), getMany({ limit: 3, options: { includeResults: false } }));

		for (const { json } of items) {
			const keys = Object.keys(json);
			expect(keys.indexOf('grade')).toBe(keys.indexOf('result') + 1);
			expect(json).not.toHaveProperty('results');
		}
	});

	it('lists the failed checks of every report by importance, with or without the per-check results', async () => {
		const full = await runPhpRank(server(), getMany({ returnAll: true, filters: { project: 'example.com' } }));
		const lean = await runPhpRank(server(), getMany({ returnAll: true, filters: { project: 'example.com' }, options: { includeResults: false } }));

		expect(full.items.length).toBeGreaterThan(1);
		for (const [index, { json }] of full.items.entries()) {
			const keys = Object.keys(json);
			expect(keys.indexOf('failedChecks')).toBe(keys.indexOf('grade') + 1);
			expect(keys.indexOf('failedCheckNames')).toBe(keys.indexOf('failedChecks') + 1);
			expect(json.failedChecks).toEqual(failedChecksOnServer(server().reports().find((report) => report.id === json.id)!));
			expect(json.failedCheckNames).toEqual(failedCheckNamesOnServer(server().reports().find((report) => report.id === json.id)!));
			expect(lean.items[index].json.failedChecks).toEqual(json.failedChecks);
			expect(lean.items[index].json.failedCheckNames).toEqual(json.failedCheckNames);
		}
	});

	it('filters by search text in the URL and by project', async () => {
		const { items } = await runPhpRank(
			server(),
			getMany({ returnAll: true, filters: { search: 'shop', searchBy: 'url', project: 'shop.example.org' } }),
		);

		expect(apiRequests(server())[0].query).toMatchObject({
			search: 'shop',
			search_by: 'url',
			project: 'shop.example.org',
		});
		expect(items.length).toBe(server().reports().filter((report) => report.project === 'shop.example.org').length);
		expect(items.every((item) => item.json.project === 'shop.example.org')).toBe(true);
	});

	it.each([
		['id', 'asc'],
		['id', 'desc'],
		['url', 'asc'],
		['result', 'desc'],
	])('sorts by %s %s on the server', async (sortBy, sort) => {
		const { items } = await runPhpRank(server(), getMany({ limit: 40, options: { sortBy, sort } }));

		expect(apiRequests(server())[0].query).toMatchObject({ sort_by: sortBy, sort });
		const keys = items.map((item) => item.json[sortBy] as string | number);
		const sorted = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
		expect(keys).toEqual(sort === 'asc' ? sorted : sorted.reverse());
	});

	it.each([
		['Sort By', { options: { sortBy: '={{ "created" }}' } }, 'id (Date Created), generated_at (Date Generated), url (URL), result (Result)'],
		['Sort Order', { options: { sort: '={{ "ASC" }}' } }, 'desc (Descending), asc (Ascending)'],
		['Grade', { filters: { grade: '={{ "terrible" }}' } }, 'good (Good), decent (Decent), bad (Bad)'],
		['Search By', { filters: { searchBy: '={{ "title" }}' } }, 'url (URL)'],
		['Page Size', { returnAll: true, options: { perPage: '={{ 20 }}' } }, '10, 25, 50, 100'],
	])('refuses an undocumented %s value that phpRank would silently replace', async (field, parameters, allowed) => {
		const { error } = await runPhpRank(server(), getMany(parameters));

		expect(inputErrorOf(error).message).toMatch(`${field} must be one of: ${allowed}; got`);
		expect(apiRequests(server())).toHaveLength(0);
	});

	it('refuses a project filter that is not text', async () => {
		const { error } = await runPhpRank(server(), getMany({ filters: { project: '={{ { name: "x" } }}' } }));

		expect(inputErrorOf(error).message).toBe('Project must be text; got {"name":"x"}');
		expect(apiRequests(server())).toHaveLength(0);
	});

	it('refuses a search holding half a surrogate pair, which would reach phpRank as another text', async () => {
		const { error } = await runPhpRank(server(), getMany({ filters: { search: '={{ "a\\udc00b" }}' } }));

		expect(inputErrorOf(error).message).toBe('Search holds a broken character (half of a UTF-16 surrogate pair)');
		expect(apiRequests(server())).toHaveLength(0);
	});

	it('lists once per input item, each list paired to its item', async () => {
		const { items } = await runPhpRank(
			server(),
			getMany({ limit: 5, filters: { project: '={{ $json.project }}' } }),
			{ items: [{ project: 'example.com' }, { project: 'blog.example.net' }] },
		);

		expect(apiRequests(server()).map((request) => request.query.project).sort()).toEqual([
			'blog.example.net',
			'example.com',
		]);
		expect(items.map((item) => [item.json.project, (item.pairedItem as IPairedItemData).item])).toEqual([
			...Array(5).fill(['example.com', 0]),
			...Array(5).fill(['blog.example.net', 1]),
		]);
	});
});

import { call, useServer } from './helpers';

type Item = { id: number; url: string; project: string; result: number; generated_at: string };

describe('report list', () => {
	const server = useServer();
	let base: string;

	beforeAll(() => {
		server().seedReports(16);
		base = `${server().url}/api/v1/reports`;
	});

	const list = async (query = '') => {
		const reply = await call(server(), 'GET', `/api/v1/reports${query}`);
		expect(reply.status).toBe(200);
		return reply.json;
	};
	const ids = (page: { data: Item[] }) => page.data.map((report) => report.id);

	it('answers the first page of 10, newest first, in Laravel’s paginator shape', async () => {
		const page = await list();
		expect(Object.keys(page)).toEqual(['data', 'links', 'meta', 'status']);
		expect(ids(page)).toEqual([16, 15, 14, 13, 12, 11, 10, 9, 8, 7]);
		expect(page.links).toEqual({ first: `${base}?page=1`, last: `${base}?page=2`, prev: null, next: `${base}?page=2` });
		expect(page.meta).toEqual({
			current_page: 1,
			from: 1,
			last_page: 2,
			links: [
				{ url: null, label: '&laquo; Previous', active: false },
				{ url: `${base}?page=1`, label: '1', active: true },
				{ url: `${base}?page=2`, label: '2', active: false },
				{ url: `${base}?page=2`, label: 'Next &raquo;', active: false },
			],
			path: base,
			per_page: 10,
			to: 10,
			total: 16,
		});
		expect(page.status).toBe(200);
		expect(page.data[0].results).toBeDefined();
	});

	it('answers the last page with a prev link and no next link', async () => {
		const page = await list('?page=2');
		expect(ids(page)).toEqual([6, 5, 4, 3, 2, 1]);
		expect(page.links.prev).toBe(`${base}?page=1`);
		expect(page.links.next).toBeNull();
		expect(page.meta).toMatchObject({ current_page: 2, from: 11, to: 16 });
	});

	it('answers a page past the end with 200 and no data', async () => {
		const page = await list('?page=5');
		expect(page.data).toEqual([]);
		expect(page.meta).toMatchObject({ current_page: 5, from: null, to: null, total: 16, last_page: 2 });
		expect(page.links.prev).toBe(`${base}?page=4`);
		expect(page.links.next).toBeNull();
	});

	it('answers an empty result with from and to null and one page', async () => {
		const page = await list('?search=nothing-matches-this');
		expect(page.data).toEqual([]);
		expect(page.meta).toMatchObject({ current_page: 1, from: null, to: null, total: 0, last_page: 1 });
		expect(page.links).toEqual({
			first: `${base}?search=nothing-matches-this&page=1`,
			last: `${base}?search=nothing-matches-this&page=1`,
			prev: null,
			next: null,
		});
	});

	it.each([
		['25', 16, 25],
		['100', 16, 100],
		['7', 10, 10],
		['abc', 10, 10],
		['025', 16, 25],
	])('reads per_page=%s leniently', async (perPage, count, expected) => {
		const page = await list(`?per_page=${perPage}`);
		expect(page.data).toHaveLength(count);
		expect(page.meta.per_page).toBe(expected);
	});

	it.each(['abc', '0', '-1', '1.5', ''])('treats page=%j as page 1', async (value) => {
		const page = await list(`?page=${value}`);
		expect(page.meta.current_page).toBe(1);
		expect(ids(page)[0]).toBe(16);
	});

	it('sorts ascending by id, and anything but asc means descending', async () => {
		expect(ids(await list('?sort=asc'))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
		expect(ids(await list('?sort=ASC'))[0]).toBe(16);
		expect(ids(await list('?sort=up'))[0]).toBe(16);
	});

	it.each([
		['url', (a: Item, b: Item) => (a.url < b.url ? -1 : a.url > b.url ? 1 : a.id - b.id)],
		['result', (a: Item, b: Item) => a.result - b.result || a.id - b.id],
	])('sorts by %s in both directions', async (sortBy, order) => {
		const ascending = (await list(`?sort_by=${sortBy}&sort=asc&per_page=100`)).data as Item[];
		expect(ascending.map((r) => r.id)).toEqual([...ascending].sort(order).map((r) => r.id));
		const descending = (await list(`?sort_by=${sortBy}&per_page=100`)).data as Item[];
		expect(descending.map((r) => r.id)).toEqual(ascending.map((r) => r.id).reverse());
	});

	it('falls back to id for an unknown sort_by', async () => {
		expect(ids(await list('?sort_by=created_at'))).toEqual(ids(await list()));
	});

	it('seeds reports whose generated_at order is not their id order, some generated in the same second', async () => {
		const reports = (await list('?per_page=100&sort=asc')).data as Item[];
		const byGeneration = [...reports].sort((a, b) => a.generated_at.localeCompare(b.generated_at) || a.id - b.id);
		expect(byGeneration.map((r) => r.id)).not.toEqual(reports.map((r) => r.id));
		expect(new Set(reports.map((r) => r.generated_at)).size).toBeLessThan(reports.length);
	});

	it('sorts by generated_at as phpRank 1.5 does: by id, its links saying sort_by=id', async () => {
		for (const sort of ['asc', 'desc']) {
			const page = await list(`?sort_by=generated_at&sort=${sort}&per_page=100`);
			expect(ids(page)).toEqual(ids(await list(`?sort_by=id&sort=${sort}&per_page=100`)));
			expect(page.links.first).toBe(`${base}?sort_by=id&sort=${sort}&per_page=100&page=1`);
		}
	});

	it('carries the values it applied into the links, not those it was sent', async () => {
		const page = await list('?search=e%20x&search_by=title&result=excellent&sort_by=created_at&sort=up&per_page=7');
		const applied = 'search=e%20x&search_by=url&result=bad&sort_by=id&sort=desc&per_page=10';
		expect(page.links).toMatchObject({ first: `${base}?${applied}&page=1`, last: `${base}?${applied}&page=1` });
		expect(page.meta.links[1].url).toBe(`${base}?${applied}&page=1`);
		expect((await list('?per_page=025')).links.first).toBe(`${base}?per_page=25&page=1`);
	});

	it('searches URLs by substring, case-insensitively, whatever search_by says', async () => {
		const all = (await list('?per_page=100')).data as Item[];
		const expected = all.filter((r) => r.url.includes('blog')).map((r) => r.id);
		expect(expected.length).toBeGreaterThan(0);
		expect(ids(await list('?search=BLOG&per_page=100'))).toEqual(expected);
		expect(ids(await list('?search=blog&search_by=project&per_page=100'))).toEqual(expected);
	});

	it('filters by exact project', async () => {
		const page = await list('?project=example.com&per_page=100');
		expect(page.data.length).toBeGreaterThan(0);
		expect(page.data.every((r: Item) => r.project === 'example.com')).toBe(true);
		expect((await list('?project=example')).meta.total).toBe(0);
	});

	it('filters by result band; an unknown band means bad', async () => {
		const totals: Record<string, number> = {};
		for (const band of ['good', 'decent', 'bad']) {
			const page = await list(`?result=${band}&per_page=100`);
			totals[band] = page.meta.total;
			for (const report of page.data as Item[]) {
				if (band === 'good') expect(report.result).toBeGreaterThan(79);
				if (band === 'decent') expect(report.result >= 49 && report.result <= 79).toBe(true);
				if (band === 'bad') expect(report.result).toBeLessThan(49);
			}
		}
		expect(totals.good + totals.decent + totals.bad).toBe(16);
		expect(Object.values(totals).every((total) => total > 0)).toBe(true);
		expect((await list('?result=excellent')).meta.total).toBe(totals.bad);
	});

	it('carries every list parameter that was sent into the links, then page', async () => {
		const page = await list('?foo=bar&per_page=10&result=decent&search=e%20x&sort=asc&sort_by=url&project=example.com');
		const carried = 'search=e%20x&project=example.com&result=decent&sort_by=url&sort=asc&per_page=10';
		expect(page.links.first).toBe(`${base}?${carried}&page=1`);
		expect(page.meta.path).toBe(base);
	});
});

describe('report list of a phpRank whose API sorts by generated_at', () => {
	const server = useServer({ seedReports: 16, sortsByGeneratedAt: true });

	it('sorts by generated_at in both directions, ties by id, its links saying sort_by=generated_at', async () => {
		const base = `${server().url}/api/v1/reports`;
		const ascending = (await call(server(), 'GET', '/api/v1/reports?sort_by=generated_at&sort=asc&per_page=100')).json;
		const order = (a: Item, b: Item) => a.generated_at.localeCompare(b.generated_at) || a.id - b.id;
		const ids = (page: { data: Item[] }) => page.data.map((report) => report.id);
		expect(ids(ascending)).toEqual([...(ascending.data as Item[])].sort(order).map((r) => r.id));
		expect(ids(ascending)).not.toEqual([...ids(ascending)].sort((a, b) => a - b));
		expect(ascending.links.first).toBe(`${base}?sort_by=generated_at&sort=asc&per_page=100&page=1`);
		const descending = (await call(server(), 'GET', '/api/v1/reports?sort_by=generated_at&per_page=100')).json;
		expect(ids(descending)).toEqual(ids(ascending).reverse());
	});
});

describe('page links window', () => {
	const server = useServer({ seedReports: 200 });
	const labels = async (page: number) => {
		const reply = await call(server(), 'GET', `/api/v1/reports?page=${page}`);
		return (reply.json.meta.links as Array<{ label: string; url: string | null; active: boolean }>).map((link) =>
			link.active ? `[${link.label}]` : link.label,
		);
	};
	const PREV = '&laquo; Previous';
	const NEXT = 'Next &raquo;';

	it('lists the beginning and the last two pages near the start', async () => {
		expect(await labels(1)).toEqual([PREV, '[1]', '2', '3', '4', '5', '6', '7', '8', '9', '10', '...', '19', '20', NEXT]);
	});

	it('slides a window of three on each side in the middle', async () => {
		expect(await labels(10)).toEqual([PREV, '1', '2', '...', '7', '8', '9', '[10]', '11', '12', '13', '...', '19', '20', NEXT]);
	});

	it('lists the first two and the end near the end', async () => {
		expect(await labels(19)).toEqual([PREV, '1', '2', '...', '11', '12', '13', '14', '15', '16', '17', '18', '[19]', '20', NEXT]);
	});

	it('gives gaps no URL', async () => {
		const reply = await call(server(), 'GET', '/api/v1/reports?page=10');
		const gaps = reply.json.meta.links.filter((link: { label: string }) => link.label === '...');
		expect(gaps).toEqual([
			{ url: null, label: '...', active: false },
			{ url: null, label: '...', active: false },
		]);
	});
});

describe('project list', () => {
	const server = useServer();
	let base: string;

	beforeAll(() => {
		server().seedReports(3, { projects: ['beta.example', 'alpha.example'] });
		server().seedProjects(12);
		base = `${server().url}/api/v1/projects`;
	});

	const list = async (query = '') => (await call(server(), 'GET', `/api/v1/projects${query}`)).json;

	it('answers projects newest first with report counts and summed scores as strings', async () => {
		const page = await list();
		expect(page.meta).toMatchObject({ total: 14, per_page: 10, last_page: 2, from: 1, to: 10, path: base });
		expect(page.data[0].project).toBe('site12.example.com');
		const alpha = (await list('?search=alpha')).data[0];
		const reports = server().reports().filter((r) => r.project === 'alpha.example');
		expect(alpha).toEqual({
			project: 'alpha.example',
			reports: 1,
			result: String(reports.reduce((sum, r) => sum + r.result, 0)),
			created_at: server().projects().find((p) => p.project === 'alpha.example')?.createdAt,
		});
		const beta = (await list('?search=beta')).data[0];
		expect(beta.reports).toBe(2);
		expect(typeof beta.result).toBe('string');
	});

	it('sorts by name or creation date; unknown sort_by means created_at', async () => {
		const byName = (await list('?sort_by=project&sort=asc&per_page=25')).data.map((p: { project: string }) => p.project);
		expect(byName).toEqual([...byName].sort());
		expect(byName[0]).toBe('alpha.example');
		const oldest = (await list('?sort=asc')).data[0].project;
		expect(oldest).toBe('beta.example');
		expect((await list('?sort_by=reports&sort=asc')).data[0].project).toBe('beta.example');
	});

	it('pages with per_page and carries the list parameters', async () => {
		const page = await list('?per_page=25&search=site&sort_by=project');
		expect(page.data).toHaveLength(12);
		expect(page.links.first).toBe(`${base}?search=site&sort_by=project&per_page=25&page=1`);
		expect((await list('?per_page=3')).meta.per_page).toBe(10);
	});

	it('carries the values it applied into the links, not those it was sent', async () => {
		const page = await list('?search=site&search_by=url&sort_by=reports&sort=ASC&per_page=3');
		expect(page.links.first).toBe(`${base}?search=site&search_by=project&sort_by=created_at&sort=desc&per_page=10&page=1`);
	});
});

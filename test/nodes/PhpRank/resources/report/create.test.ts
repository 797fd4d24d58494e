import { apiRequests, changedChecksOnServer, failedCheckNamesOnServer, failedChecksOnServer, inputErrorOf, requestLines, runPhpRank, useServer } from '../../../../support/phpRank';
import { GONE_PAGES, sitePageFailure } from '../../../../../dev/server/site';

const server = useServer();

const create = (parameters: Record<string, unknown> = {}) => ({
	resource: 'report',
	operation: 'create',
	url: 'https://example.com/blog/',
	...parameters,
});

describe('Report > Create', () => {
	it('posts the URL as a form with privacy 0 and outputs the report with its grade', async () => {
		const { items, error } = await runPhpRank(server(), create());

		expect(error).toBeUndefined();
		const [request] = apiRequests(server());
		expect(apiRequests(server())).toHaveLength(1);
		expect(request.method).toBe('POST');
		expect(request.path).toBe('/api/v1/reports');
		expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
		expect(request.body).toEqual({ url: 'https://example.com/blog/', privacy: '0' });

		const [stored] = server().reports();
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ id: stored.id, url: 'example.com/blog/', project: 'example.com' });
		// phpRank answers a create with the unrounded score and stores it rounded, as every later read shows it.
		expect(stored.score % 1).not.toBe(0);
		expect(items[0].json.result).toBe(Math.round(stored.score));
		expect(items[0].json.result).toBe(stored.result);
		expect(items[0].json.grade).toBe(stored.score > 79 ? 'good' : stored.score >= 49 ? 'decent' : 'bad');
		expect(Object.keys(items[0].json.results as object).length).toBeGreaterThan(30);
		expect(items[0].pairedItem).toEqual({ item: 0 });
		expect(Object.keys(items[0].json).slice(0, 8)).toEqual(['id', 'url', 'project', 'result', 'grade', 'outcome', 'failedChecks', 'failedCheckNames']);
		expect(items[0].json.outcome).toBe('created');
		expect(items[0].json.failedChecks).toEqual(failedChecksOnServer(stored));
		expect(items[0].json.failedCheckNames).toEqual(failedCheckNamesOnServer(stored));
	});

	it('keeps the failed checks when the per-check results are left out', async () => {
		const { items, error } = await runPhpRank(server(), create({ options: { includeResults: false } }));

		expect(error).toBeUndefined();
		expect(items[0].json.results).toBeUndefined();
		expect(items[0].json.failedChecks).toEqual(failedChecksOnServer(server().reports()[0]));
		expect(items[0].json.failedCheckNames).toEqual(failedCheckNamesOnServer(server().reports()[0]));
	});

	it.each([
		[1, 'Private'],
		[0, 'Public'],
	])('sends privacy %s (%s) and never a password with it', async (privacy) => {
		const { error } = await runPhpRank(server(), create({ privacy, password: 'left-over-secret' }));

		expect(error).toBeUndefined();
		expect(apiRequests(server())[0].body).toEqual({ url: 'https://example.com/blog/', privacy: String(privacy) });
	});

	it('sends the password with privacy 2 and never outputs it', async () => {
		const { items, error } = await runPhpRank(server(), create({ privacy: 2, password: 'open sesame' }));

		expect(error).toBeUndefined();
		expect(apiRequests(server())[0].body).toEqual({
			url: 'https://example.com/blog/',
			privacy: '2',
			password: 'open sesame',
		});
		expect(server().reports()[0]).toMatchObject({ privacy: 2, password: 'open sesame' });
		expect(items[0].json.password).toBe(true);
		expect(JSON.stringify(items)).not.toContain('open sesame');
	});

	it('creates one report per input item, URLs mapped by expression, each paired to its item', async () => {
		const urls = ['https://a.example.com/', 'https://b.example.org/pricing', 'http://c.example.net/x?y=1'];
		const { items, error } = await runPhpRank(server(), create({ url: '={{ $json.address }}' }), {
			items: urls.map((address) => ({ address })),
		});

		expect(error).toBeUndefined();
		expect(apiRequests(server()).map((request) => request.body.url).sort()).toEqual([...urls].sort());
		expect(items.map((item) => [item.json.project, item.pairedItem])).toEqual([
			['a.example.com', { item: 0 }],
			['b.example.org', { item: 1 }],
			['c.example.net', { item: 2 }],
		]);
	});

	it.each(['example.com/blog', 'ftp://example.com/file', 'javascript:alert(1)', 'https://', '   ', 'https://example.com/a\u0001b', 'https://example.com/\u007f'])(
		'refuses the URL %p before any request',
		async (url) => {
			const { error } = await runPhpRank(server(), create({ url: `={{ ${JSON.stringify(url)} }}` }));

			expect(inputErrorOf(error).message).toMatch(/^URL must be an absolute http\(s\) address/);
			expect(apiRequests(server())).toHaveLength(0);
		},
	);

	it.each(['', '={{ "" }}'])('refuses privacy Password without a password (%p)', async (password) => {
		const { error } = await runPhpRank(server(), create({ privacy: 2, password }));

		expect(inputErrorOf(error).message).toBe('Password is required when Privacy is Password (2)');
		expect(apiRequests(server())).toHaveLength(0);
	});

	it('refuses a privacy value outside 0, 1 and 2, naming the allowed values', async () => {
		const { error } = await runPhpRank(server(), create({ privacy: '={{ 5 }}' }));

		expect(inputErrorOf(error).message).toBe(
			'Privacy must be one of: 0 (Public), 1 (Private), 2 (Password); got 5',
		);
		expect(apiRequests(server())).toHaveLength(0);
	});

	it('accepts privacy mapped as text by an expression', async () => {
		const { error } = await runPhpRank(server(), create({ privacy: '={{ "1" }}' }));

		expect(error).toBeUndefined();
		expect(apiRequests(server())[0].body).toEqual({ url: 'https://example.com/blog/', privacy: '1' });
	});

	it('says the page could not be fetched when phpRank cannot reach it', async () => {
		const { error } = await runPhpRank(server(), create({ url: 'https://unreachable.invalid/' }));

		expect(error?.message).toBe(
			'phpRank could not fetch the page to analyze it (422): cURL error 6: Could not resolve host: unreachable.invalid',
		);
		expect(error?.description).toMatch(/could not load it/);
		expect(error?.description).not.toMatch(/fix the fields/i);
		expect((error as { httpCode?: string }).httpCode).toBe('422');
	});

	it('gives the reason of a page that answered 404 in words, without the HTML phpRank quotes of it', async () => {
		const { error } = await runPhpRank(server(), create({ url: GONE_PAGES[0] }));

		expect(apiRequests(server()).map((request) => request.status)).toEqual([422]);
		expect(sitePageFailure(GONE_PAGES[0])).toContain('<title>404 Not Found</title>');
		expect(error?.message).toBe(`phpRank could not fetch the page to analyze it (422): the page answered 404 Not Found (GET ${GONE_PAGES[0].replace(/^https:/, 'http:')})`);
		expect(error?.description).toMatch(/could not load it.* The page began: "404 Not Found 404 Not Found nginx"\.$/);
		expect(`${error?.message} ${error?.description}`).not.toMatch(/[<>]|truncated/);
	});

	it("reports phpRank's validation messages field by field", async () => {
		server().injectFault({
			path: '/api/v1/reports',
			method: 'POST',
			kind: 'status',
			status: 422,
			body: { message: { url: ['The url format is invalid.'], privacy: ['The privacy must be between 0 and 2.'] }, status: 422 },
		});
		const { error } = await runPhpRank(server(), create());

		expect(error?.message).toBe(
			'phpRank rejected the input (422): url: The url format is invalid.; privacy: The privacy must be between 0 and 2.',
		);
		expect(error?.description).toBe('Fix the fields named above and run the node again.');
	});
});

const URL = 'https://example.com/blog/';

/** Reports phpRank already holds, created the way an earlier run would have. */
async function existingReports(...urls: string[]): Promise<number[]> {
	const { items, error } = await runPhpRank(server(), create({ url: '={{ $json.url }}' }), { items: urls.map((url) => ({ url })) });
	expect(error).toBeUndefined();
	server().clearRequests();
	return items.map((item) => item.json.id as number);
}

const lookup = (url: string, project: string) =>
	`GET /api/v1/reports?${new URLSearchParams({ search: url, search_by: 'url', project, sort_by: 'url', sort: 'asc', per_page: '100', page: '1' })}`;

const sent = () => apiRequests(server()).map((request) => `${request.method} ${request.rawPath}${request.rawQuery ? `?${request.rawQuery}` : ''}`);

describe('Report > Create: If the URL Already Has a Report', () => {
	describe('Create Another Report (the default)', () => {
		it('posts once, without a lookup, even when the URL has a report', async () => {
			await existingReports(URL);

			const { items, error } = await runPhpRank(server(), create({ ifReportExists: 'createAnother' }));

			expect(error).toBeUndefined();
			expect(requestLines(server())).toEqual(['POST /api/v1/reports']);
			expect(server().reports()).toHaveLength(2);
			expect(items[0].json).toMatchObject({ id: 2, outcome: 'created' });
		});
	});

	describe('Return the Existing Report', () => {
		it('looks the URL up once and outputs the report phpRank holds, creating nothing', async () => {
			const [id] = await existingReports(URL);

			const { items, error } = await runPhpRank(server(), create({ ifReportExists: 'returnExisting' }));

			expect(error).toBeUndefined();
			expect(sent()).toEqual([lookup('example.com/blog/', 'example.com')]);
			expect(server().reports()).toHaveLength(1);
			const stored = server().reports()[0];
			expect(items[0].json).toMatchObject({ id, url: 'example.com/blog/', result: stored.result, outcome: 'existing' });
			expect(Object.keys(items[0].json).slice(3, 9)).toEqual(['result', 'grade', 'outcome', 'ageHours', 'failedChecks', 'failedCheckNames']);
			expect(items[0].json.ageHours).toBeGreaterThanOrEqual(0);
			expect(items[0].json.failedChecks).toEqual(failedChecksOnServer(stored));
			expect(items[0].pairedItem).toEqual({ item: 0 });
		});

		it('creates the report when there is none: one lookup, then the POST', async () => {
			const { items, error } = await runPhpRank(server(), create({ ifReportExists: 'returnExisting' }));

			expect(error).toBeUndefined();
			expect(sent()).toEqual([lookup('example.com/blog/', 'example.com'), 'POST /api/v1/reports']);
			expect(items[0].json).toMatchObject({ id: server().reports()[0].id, outcome: 'created' });
		});

		it('applies Privacy and Password only to a report it creates', async () => {
			await existingReports(URL);
			const parameters = create({ ifReportExists: 'returnExisting', privacy: 2, password: 'open sesame' });

			const existing = await runPhpRank(server(), parameters);
			const created = await runPhpRank(server(), { ...parameters, url: 'https://example.com/new' });

			expect(existing.items[0].json).toMatchObject({ outcome: 'existing', privacy: 0, password: false });
			expect(created.items[0].json).toMatchObject({ outcome: 'created', password: true });
			expect(server().reports().map((report) => [report.url, report.privacy, report.password])).toEqual([
				['example.com/blog/', 0, null],
				['example.com/new', 2, 'open sesame'],
			]);
			expect(JSON.stringify([existing.items, created.items])).not.toContain('open sesame');
		});

		it('returns the newest of several reports of the URL', async () => {
			const ids = await existingReports(URL, 'https://example.com/blog/more', URL);

			const { items } = await runPhpRank(server(), create({ ifReportExists: 'returnExisting' }));

			expect(items[0].json).toMatchObject({ id: Math.max(ids[0], ids[2]), outcome: 'existing' });
		});

		it('creates one report for rows of one run that share a URL, returning it for the later rows', async () => {
			const rows = [{ url: URL }, { url: 'http://www.example.com/blog/' }, { url: 'https://example.com/other' }, { url: URL }];

			const { items, error } = await runPhpRank(server(), create({ url: '={{ $json.url }}', ifReportExists: 'returnExisting' }), {
				items: rows,
			});

			expect(error).toBeUndefined();
			expect(server().reports().map((report) => report.url).sort()).toEqual(['example.com/blog/', 'example.com/other']);
			expect(apiRequests(server()).filter((request) => request.method === 'POST')).toHaveLength(2);
			expect(items.map((item) => [item.json.url, item.json.outcome, item.pairedItem])).toEqual([
				['example.com/blog/', 'created', { item: 0 }],
				['example.com/blog/', 'existing', { item: 1 }],
				['example.com/other', 'created', { item: 2 }],
				['example.com/blog/', 'existing', { item: 3 }],
			]);
		});

		it.each([
			['the scheme', 'https://example.com/blog/', 'http://example.com/blog/'],
			['www.', 'https://www.example.com/blog/', 'https://example.com/blog/'],
			['www. the other way round', 'https://example.com/blog/', 'https://www.example.com/blog/'],
			['a trailing slash on a bare host', 'https://example.com/', 'https://example.com'],
			['a trailing slash on a bare host the other way round', 'http://www.example.com', 'https://example.com/'],
			['the case of the host', 'https://Example.COM/blog/', 'https://example.com/blog/'],
			['a fragment', 'https://example.com/blog/#top', 'https://example.com/blog/'],
			['the default port', 'https://example.com:443/blog/', 'https://example.com/blog/'],
			['the same query string', 'https://example.com/search?q=seo&page=2', 'http://www.example.com/search?q=seo&page=2'],
			['a query string on a bare host', 'https://example.com/?ref=mail', 'https://www.example.com/?ref=mail'],
		])('finds the report whatever %s', async (_, storedAs, typed) => {
			const [id] = await existingReports(storedAs);

			const { items, error } = await runPhpRank(server(), create({ url: typed, ifReportExists: 'returnExisting' }));

			expect(error).toBeUndefined();
			expect(requestLines(server())).toEqual(['GET /api/v1/reports']);
			expect(items[0].json).toMatchObject({ id, outcome: 'existing' });
		});

		it.each([
			['a trailing slash on a path', 'https://example.com/blog/', 'https://example.com/blog'],
			['the case of a path', 'https://example.com/Blog/', 'https://example.com/blog/'],
			['another query string', 'https://example.com/search?q=seo', 'https://example.com/search?q=SEO'],
			['a query string left out', 'https://example.com/search?q=seo', 'https://example.com/search'],
			['a sub-domain', 'https://blog.example.com/', 'https://example.com/'],
			['another port', 'https://example.com:8443/', 'https://example.com/'],
			['a longer path', 'https://example.com/blog/post', 'https://example.com/blog/'],
		])('creates a report when only %s differs', async (_, storedAs, typed) => {
			await existingReports(storedAs);

			const { items, error } = await runPhpRank(server(), create({ url: typed, ifReportExists: 'returnExisting' }));

			expect(error).toBeUndefined();
			expect(requestLines(server())).toEqual(['GET /api/v1/reports', 'POST /api/v1/reports']);
			expect(items[0].json.outcome).toBe('created');
			expect(server().reports()).toHaveLength(2);
		});

		describe('when a full page of other URLs containing this one comes first', () => {
			const others = (count: number) => Array.from({ length: count }, (_, index) => `https://example.com/a?ref=example.com/blog/${index}`);

			it('reads the next page, and finds the report there', async () => {
				await existingReports(...others(100));
				const [id] = await existingReports(URL);

				const { items } = await runPhpRank(server(), create({ ifReportExists: 'returnExisting' }));

				expect(apiRequests(server()).map((request) => `${request.method} page ${request.query.page ?? '-'}`)).toEqual(['GET page 1', 'GET page 2']);
				expect(items[0].json).toMatchObject({ id, outcome: 'existing' });
			});

			it('reads only the page there is when it is full, and creates the report', async () => {
				await existingReports(...others(100));

				await runPhpRank(server(), create({ ifReportExists: 'returnExisting' }));

				expect(apiRequests(server()).map((request) => `${request.method} page ${request.query.page ?? '-'}`)).toEqual(['GET page 1', 'POST page -']);
			});

			it('reads the next page, and creates the report when it is not there', async () => {
				await existingReports(...others(130));

				const { items } = await runPhpRank(server(), create({ ifReportExists: 'returnExisting' }));

				expect(apiRequests(server()).map((request) => `${request.method} page ${request.query.page ?? '-'}`)).toEqual([
					'GET page 1',
					'GET page 2',
					'POST page -',
				]);
				expect(items[0].json.outcome).toBe('created');
			});
		});

		it('fails the item when the lookup fails, creating nothing', async () => {
			server().injectFault({ method: 'GET', path: '/api/v1/reports', kind: 'status', status: 500 });

			const { error } = await runPhpRank(server(), create({ ifReportExists: 'returnExisting' }));

			expect(error?.message).toMatch(/^phpRank failed to process the request \(500\)/);
			// A probe found phpRank answering: the lookup's 500 is its own.
			expect(requestLines(server())).toEqual(['GET /api/v1/reports', 'GET /api/v1/account']);
			expect(server().reports()).toHaveLength(0);
		});
	});

	describe('Re-Analyze the Existing Report', () => {
		it('looks the URL up and re-analyzes the report: the lookup and one PUT, with the previous score', async () => {
			const [id] = await existingReports(URL);
			const before = server().reports()[0];
			server().changePage(URL, { quality: 0 });

			const { items, error } = await runPhpRank(server(), create({ ifReportExists: 'reanalyzeExisting' }));

			expect(error).toBeUndefined();
			expect(sent()).toEqual([lookup('example.com/blog/', 'example.com'), `PUT /api/v1/reports/${id}`]);
			expect(apiRequests(server())[1].body).toEqual({ results: '1' });
			const after = server().reports()[0];
			expect(after.result).toBeLessThan(before.result);
			expect(items[0].json).toMatchObject({
				id,
				result: after.result,
				grade: 'bad',
				outcome: 'reanalyzed',
				previousResult: before.result,
				previousGrade: before.result > 79 ? 'good' : before.result >= 49 ? 'decent' : 'bad',
				resultChange: after.result - before.result,
			});
			expect(Object.keys(items[0].json).slice(3, 15)).toEqual([
				'result',
				'grade',
				'outcome',
				'previousResult',
				'previousGrade',
				'resultChange',
				'newlyFailedChecks',
				'newlyFailedCheckNames',
				'fixedChecks',
				'fixedCheckNames',
				'failedChecks',
				'failedCheckNames',
			]);
			expect(items[0].json.failedChecks).toEqual(failedChecksOnServer(after));
			expect(items[0].json.failedCheckNames).toEqual(failedCheckNamesOnServer(after));
			// From the lookup's answer and the re-analysis's: no request more.
			expect(items[0].json).toMatchObject(changedChecksOnServer(before, after));
			expect(Object.values(items[0].json.newlyFailedChecks as Record<string, string[]>).flat().length).toBeGreaterThan(0);
			expect(server().reports()).toHaveLength(1);
		});

		it('says the change is 0 when the page did not change', async () => {
			await existingReports(URL);

			const { items } = await runPhpRank(server(), create({ ifReportExists: 'reanalyzeExisting' }));

			expect(items[0].json).toMatchObject({ outcome: 'reanalyzed', previousResult: items[0].json.result, resultChange: 0 });
		});

		it('creates the report when there is none: one lookup, then the POST, with no previous score', async () => {
			const { items, error } = await runPhpRank(server(), create({ ifReportExists: 'reanalyzeExisting', privacy: 1 }));

			expect(error).toBeUndefined();
			expect(requestLines(server())).toEqual(['GET /api/v1/reports', 'POST /api/v1/reports']);
			expect(apiRequests(server())[1].body).toEqual({ url: URL, privacy: '1' });
			expect(items[0].json.outcome).toBe('created');
			expect(items[0].json).not.toHaveProperty('previousResult');
			expect(items[0].json).not.toHaveProperty('newlyFailedCheckNames');
		});

		it('never sends Privacy or Password with the re-analysis', async () => {
			await existingReports(URL);

			await runPhpRank(server(), create({ ifReportExists: 'reanalyzeExisting', privacy: 2, password: 'open sesame' }));

			expect(apiRequests(server())[1].rawBody).toBe('results=1');
			expect(server().reports()[0]).toMatchObject({ privacy: 0, password: null });
		});
	});

	it('refuses a choice it does not know, naming the allowed ones, before any request', async () => {
		const { error } = await runPhpRank(server(), create({ ifReportExists: '={{ "skip" }}' }));

		expect(error?.message).toBe('If the URL Already Has a Report must be one of its 4 choices; got "skip"');
		expect(inputErrorOf(error).description).toBe(
			'The choices: createAnother (Create Another Report), reanalyzeIfOlder (Re-Analyze if Older Than), reanalyzeExisting (Re-Analyze the Existing Report), returnExisting (Return the Existing Report).',
		);
		expect(apiRequests(server())).toHaveLength(0);
	});

	it('takes the choice from an expression per item', async () => {
		await existingReports(URL);

		const { items } = await runPhpRank(server(), create({ ifReportExists: '={{ $json.choice }}' }), {
			items: [{ choice: 'returnExisting' }, { choice: 'createAnother' }],
		});

		expect(items.map((item) => item.json.outcome)).toEqual(['existing', 'created']);
	});
});

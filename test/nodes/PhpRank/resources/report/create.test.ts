import { apiRequests, inputErrorOf, runPhpRank, useServer } from '../../../../support/phpRank';

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

	it.each(['example.com/blog', 'ftp://example.com/file', 'javascript:alert(1)', 'https://', '   '])(
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

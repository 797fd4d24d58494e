/**
 * Creates whose answer never came: phpRank stored the report and the connection dropped, or the answer
 * came after the node had stopped waiting. With a duplicate-safe choice the node asks phpRank what
 * happened; with Create Another Report it fails the item, as it may have been carried out.
 */
import type { PhpRankServer } from '../../../../support/phpRank';
import { apiRequests, requestLines, runPhpRank, useServer } from '../../../../support/phpRank';

const server = useServer();
// phpRank's 60 requests a minute, sped up: an answer held back past the timeout still fits in a window, as with phpRank.
const limited = useServer({ rateLimit: { maxAttempts: 500, decaySeconds: 5, preciseRetryAfter: true } });

const URL = 'https://example.com/blog/';
const TIMEOUT_MS = 1000;

const create = (ifReportExists: string, parameters: Record<string, unknown> = {}) => ({
	resource: 'report',
	operation: 'create',
	url: URL,
	ifReportExists,
	requestOptions: { timeout: TIMEOUT_MS },
	...parameters,
});

const onCreate = { method: 'POST', path: '/api/v1/reports' } as const;

describe.each(['returnExisting', 'reanalyzeExisting'])('Report > Create with %s, when no answer came', (choice) => {
	it.each([
		['the connection dropped after phpRank stored the report', { kind: 'dropAfterHandling' } as const],
		['the answer came after the timeout, the report stored', { kind: 'delayAfterHandling', delayMs: TIMEOUT_MS + 500 } as const],
	])('returns the report this create made when %s: one lookup more, no second create', async (_, fault) => {
		server().injectFault({ ...onCreate, ...fault });

		const { items, error } = await runPhpRank(server(), create(choice));

		expect(error).toBeUndefined();
		expect(requestLines(server())).toEqual(['GET /api/v1/reports', 'POST /api/v1/reports', 'GET /api/v1/reports']);
		expect(server().reports().map((report) => report.url)).toEqual(['example.com/blog/']);
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ id: server().reports()[0].id, result: server().reports()[0].result, outcome: 'created' });
		expect(items[0].json).not.toHaveProperty('previousResult');
	});

	it('settles a 502 HTML page as a create without an answer: looks up, and creates as phpRank holds none', async () => {
		server().injectFault({ ...onCreate, kind: 'html', status: 502 });

		const { items, error } = await runPhpRank(server(), create(choice));

		expect(error).toBeUndefined();
		expect(requestLines(server())).toEqual(['GET /api/v1/reports', 'POST /api/v1/reports', 'GET /api/v1/reports', 'POST /api/v1/reports']);
		expect(apiRequests(server()).map((request) => request.status)).toEqual([200, 502, 200, 201]);
		expect(server().reports()).toHaveLength(1);
		expect(items[0].json).toMatchObject({ id: server().reports()[0].id, outcome: 'created' });
	});

	it('sends the create once more when phpRank holds no report after the connection dropped', async () => {
		server().injectFault({ ...onCreate, kind: 'drop' });

		const { items, error } = await runPhpRank(server(), create(choice));

		expect(error).toBeUndefined();
		expect(requestLines(server())).toEqual([
			'GET /api/v1/reports',
			'POST /api/v1/reports',
			'GET /api/v1/reports',
			'POST /api/v1/reports',
		]);
		expect(server().reports()).toHaveLength(1);
		expect(items[0].json).toMatchObject({ id: server().reports()[0].id, outcome: 'created' });
	});

	it('sends it once more only: a second create without an answer fails the item, saying a re-run is safe', async () => {
		server().injectFault({ ...onCreate, kind: 'drop', times: 3 });

		const { error } = await runPhpRank(server(), create(choice));

		expect(error?.message).toBe(
			'The connection to phpRank ended before it answered; phpRank may have created the report: running this row again is safe with Return the Existing Report',
		);
		expect(error?.description).toMatch(/^The create got no answer twice\. .* Running this item again is safe/);
		expect(apiRequests(server()).filter((request) => request.method === 'POST')).toHaveLength(2);
	});

	it.each([
		['a 500', { kind: 'status', status: 500 } as const],
		['a 422', { kind: 'status', status: 422, body: { message: { url: ['The url format is invalid.'] }, status: 422 } } as const],
	])('fails on %s, an answer, without asking phpRank again', async (_, fault) => {
		server().injectFault({ ...onCreate, ...fault });

		const { error } = await runPhpRank(server(), create(choice));

		expect(error?.message).toMatch(/^phpRank (failed|rejected)/);
		// After the 500 a probe found phpRank answering: the create's failure is its own.
		const probes = fault.status === 500 ? ['GET /api/v1/account'] : [];
		expect(requestLines(server())).toEqual(['GET /api/v1/reports', 'POST /api/v1/reports', ...probes]);
	});
});

describe('Report > Create with Create Another Report, when no answer came', () => {
	it.each([
		[
			'the connection dropped',
			{ kind: 'dropAfterHandling' } as const,
			/^The connection to phpRank ended before it answered; phpRank may have created the report: running this row again is safe with Return the Existing Report$/,
		],
		[
			'the answer came too late',
			{ kind: 'delayAfterHandling', delayMs: TIMEOUT_MS + 500 } as const,
			/^phpRank did not answer within 1 second; it may have created the report: running this row again is safe with Return the Existing Report$/,
		],
	])('fails the item when %s, saying it may have been carried out, and never sends it twice', async (_, fault, message) => {
		server().injectFault({ ...onCreate, ...fault });

		const { error } = await runPhpRank(server(), create('createAnother'));

		expect(error?.message).toMatch(message);
		expect(error?.description).toMatch(/may have carried it out .* it was not sent again/);
		expect(requestLines(server())).toEqual(['POST /api/v1/reports']);
		// It was: the reason the node does not send it again.
		expect(server().reports()).toHaveLength(1);
	});
});

const ROWS = 400;
const SITES = 7;
const rows = Array.from({ length: ROWS }, (_, index) => ({ url: `https://www.shop${index % SITES}.example.com/product-${index}?ref=sheet` }));

const TIMEOUT_OF_RUN_MS = 6_000;

/**
 * Every 10th create loses its answer after phpRank stored it, and every 7th of the others is answered only
 * after the node stopped waiting. All rows are sent at once, as far as phpRank's window allows: answers
 * are slow to come on a busy machine (the server answers each within a tenth of a second, with a core busy
 * elsewhere), hence a timeout of seconds. The run waits it out once per window, for the answers held back.
 */
function loseAnswersOfAShareOfCreates(phpRank: PhpRankServer): void {
	phpRank.injectFault({ ...onCreate, kind: 'dropAfterHandling', every: 10, times: Infinity });
	phpRank.injectFault({ ...onCreate, kind: 'delayAfterHandling', delayMs: 2 * TIMEOUT_OF_RUN_MS, every: 7, times: Infinity });
}

async function runRows(phpRank: PhpRankServer) {
	const parameters = create('returnExisting', { url: '={{ $json.url }}', requestOptions: { timeout: TIMEOUT_OF_RUN_MS } });
	return await runPhpRank(phpRank, parameters, { items: rows, timeoutMs: 240_000 });
}

function reportsPerUrl(phpRank: PhpRankServer): number[] {
	const perUrl = new Map<string, number>();
	for (const report of phpRank.reports()) perUrl.set(report.url, (perUrl.get(report.url) ?? 0) + 1);
	return rows.map((row) => perUrl.get(row.url.replace('https://www.', '')) ?? 0);
}

const byMethod = (phpRank: PhpRankServer, method: string) => apiRequests(phpRank).filter((request) => request.method === method);

async function expectOneReportPerUrl(phpRank: PhpRankServer): Promise<void> {
	loseAnswersOfAShareOfCreates(phpRank);

	const { items, error } = await runRows(phpRank);

	expect(error).toBeUndefined();
	expect(items).toHaveLength(ROWS);
	expect(items.filter((item) => item.error !== undefined)).toEqual([]);
	expect(items.map((item) => item.json.outcome)).toEqual(rows.map(() => 'created'));
	expect(reportsPerUrl(phpRank).every((reports) => reports === 1)).toBe(true);
	expect(phpRank.reports()).toHaveLength(ROWS);
	const posts = byMethod(phpRank, 'POST');
	const unanswered = posts.filter((request) => request.fault !== undefined);
	expect(unanswered.filter((request) => request.fault?.kind === 'dropAfterHandling')).toHaveLength(ROWS / 10);
	// Every 7th create of those not dropped is held back at least.
	expect(unanswered.filter((request) => request.fault?.kind === 'delayAfterHandling').length).toBeGreaterThanOrEqual(Math.floor((ROWS - ROWS / 10) / 7));
	// Each create went out once (a 429, which did nothing, aside). Each site was read once, holding nothing yet,
	// and only the creates that lost their answer cost a lookup more: of their own URL, not of what was read.
	expect(posts.filter((request) => request.status !== 429)).toHaveLength(ROWS);
	const reads = byMethod(phpRank, 'GET').filter((request) => request.status !== 429);
	expect(reads.filter((request) => request.query.search === undefined).map((request) => request.query.project).sort()).toEqual(
		Array.from({ length: SITES }, (_, site) => `shop${site}.example.com`),
	);
	expect(reads.filter((request) => request.query.search !== undefined)).toHaveLength(unanswered.length);
}

describe(`a spreadsheet run of ${ROWS} rows with Return the Existing Report while a share of the creates lose their answer`, () => {
	it('ends with exactly one report per URL and no failed item, and creates nothing when run again', async () => {
		await expectOneReportPerUrl(server());
		server().clearFaults();
		server().clearRequests();

		const again = await runRows(server());

		expect(again.error).toBeUndefined();
		expect(byMethod(server(), 'POST')).toEqual([]);
		// Each site's reports read once, 100 a page, instead of a lookup a row.
		const projects = server().reports().map((report) => report.project);
		const pagesPerSite = [...new Set(projects)].map((project) => Math.ceil(projects.filter((held) => held === project).length / 100));
		expect(byMethod(server(), 'GET')).toHaveLength(pagesPerSite.reduce((sum, pages) => sum + pages, 0));
		expect(again.items.map((item) => item.json.outcome)).toEqual(rows.map(() => 'existing'));
		expect(reportsPerUrl(server()).every((reports) => reports === 1)).toBe(true);
	}, 300_000);

	it('ends the same with the rate limit on', async () => {
		await expectOneReportPerUrl(limited());
	}, 300_000);
});

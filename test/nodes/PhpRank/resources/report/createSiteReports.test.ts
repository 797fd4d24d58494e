/**
 * Report > Create with Return or Re-Analyze the Existing Report, for the rows of one site: the site's reports are
 * read once per execution, 100 a page, whenever that takes fewer requests than looking each row's URL up.
 */
import type { INode, INodeParameters } from 'n8n-workflow';
import { credentialReferences, manualWorkflow, runWorkflow, TRIGGER_NODE_NAME } from '../../../../../dev/engine';
import type { PhpRankServer } from '../../../../support/phpRank';
import { apiRequests, credentialsFor, runPhpRank, useServer } from '../../../../support/phpRank';

const server = useServer();

const SITE = 'example.com';

const createRows = (ifReportExists: string, urls: string[]) =>
	runPhpRank(
		server(),
		{ resource: 'report', operation: 'create', url: '={{ $json.url }}', ifReportExists },
		{ items: urls.map((url) => ({ url })) },
	);

/** The newest report phpRank holds of each URL as it writes them, by id. */
function newestByUrl(phpRank: PhpRankServer): Map<string, number> {
	const newest = new Map<string, number>();
	for (const report of phpRank.reports()) newest.set(report.url, Math.max(report.id, newest.get(report.url) ?? 0));
	return newest;
}

const reads = () => apiRequests(server()).filter((request) => request.method === 'GET');
const siteReads = () => reads().filter((request) => request.query.search === undefined);
const lookups = () => reads().filter((request) => request.query.search !== undefined);
const creates = () => apiRequests(server()).filter((request) => request.method === 'POST');

interface Rows {
	held: number;
	heldRows: number;
	newRows: number;
	/** Whether the first row is the bare host, whose newest report is among the newest 100 (one in nine seeded is). */
	bareHost?: boolean;
}

/** `held` reports of the site, and rows for `heldRows` of their URLs (the oldest first) and `newRows` new ones. */
function prepare({ held, heldRows, newRows, bareHost = false }: Rows): string[] {
	server().seedReports(held, { projects: [SITE] });
	const withPaths = [...new Set(server().reports().map((report) => report.url))].filter((url) => url !== SITE);
	const heldUrls = [...(bareHost ? [SITE] : []), ...withPaths].slice(0, heldRows);
	expect(heldUrls).toHaveLength(heldRows);
	const newUrls = Array.from({ length: newRows }, (_, index) => `new-page-${index}`);
	return [...heldUrls, ...newUrls].map((url) => `https://www.${url.startsWith(SITE) ? url : `${SITE}/${url}`}`);
}

describe('Report > Create: the rows of one site', () => {
	it.each([
		// rows, reports held, reads expected: the site read whole, or page 1 and a lookup per row it left open.
		{ heldRows: 1, newRows: 0, held: 250, bareHost: false, expected: { siteReads: 0, lookups: 1 } },
		{ heldRows: 0, newRows: 12, held: 0, bareHost: false, expected: { siteReads: 1, lookups: 0 } },
		{ heldRows: 4, newRows: 8, held: 90, bareHost: false, expected: { siteReads: 1, lookups: 0 } },
		{ heldRows: 5, newRows: 0, held: 250, bareHost: false, expected: { siteReads: 3, lookups: 0 } },
		{ heldRows: 30, newRows: 30, held: 250, bareHost: false, expected: { siteReads: 3, lookups: 0 } },
		{ heldRows: 3, newRows: 0, held: 1000, bareHost: false, expected: { siteReads: 1, lookups: 3 } },
		{ heldRows: 2, newRows: 1, held: 1000, bareHost: false, expected: { siteReads: 1, lookups: 3 } },
		{ heldRows: 3, newRows: 0, held: 1000, bareHost: true, expected: { siteReads: 1, lookups: 2 } },
	])(
		'$heldRows rows with a report (bare host first: $bareHost) and $newRows without, of a site holding $held: at most min(rows, pages) + 2 reads',
		async ({ expected, ...rows }) => {
			const { held, newRows } = rows;
			const urls = prepare(rows);
			const newestBefore = newestByUrl(server());
			server().clearRequests();

			const { items, error } = await createRows('returnExisting', urls);

			expect(error).toBeUndefined();
			expect({ siteReads: siteReads().length, lookups: lookups().length }).toEqual(expected);
			expect(reads().length).toBeLessThanOrEqual(Math.min(urls.length, Math.ceil(held / 100)) + 2);
			expect(creates()).toHaveLength(newRows);
			expect(siteReads().map((request) => request.query)).toEqual(
				siteReads().map((_, index) => ({ project: SITE, sort_by: 'id', sort: 'desc', per_page: '100', page: String(index + 1) })),
			);
			const newestAfter = newestByUrl(server());
			expect(items.map((item) => [item.json.url, item.json.id, item.json.outcome])).toEqual(
				urls.map((url) => {
					const stored = url.replace('https://www.', '');
					const before = newestBefore.get(stored);
					return before === undefined ? [stored, newestAfter.get(stored), 'created'] : [stored, before, 'existing'];
				}),
			);
		},
	);

	it('matches the rows against the site read whole as phpRank writes URLs: scheme, www., host case, a bare host\'s slash', async () => {
		server().seedReports(150, { projects: [SITE] });
		const blog = (await createRows('createAnother', ['https://example.com/blog/', 'https://example.com/', 'https://example.com/?ref=mail'])).items;
		server().clearRequests();

		const { items, error } = await createRows('returnExisting', [
			'http://www.Example.COM/blog/',
			'https://EXAMPLE.com',
			'http://example.com/?ref=mail',
			'https://example.com/blog',
			'https://example.com/Blog/',
		]);

		expect(error).toBeUndefined();
		expect(siteReads()).toHaveLength(2);
		expect(lookups()).toHaveLength(0);
		expect(items.map((item) => [item.json.id, item.json.outcome])).toEqual([
			[blog[0].json.id, 'existing'],
			[blog[1].json.id, 'existing'],
			[blog[2].json.id, 'existing'],
			[expect.any(Number), 'created'],
			[expect.any(Number), 'created'],
		]);
		expect(server().reports().map((report) => report.url)).toEqual(expect.arrayContaining(['example.com/blog', 'example.com/Blog/']));
	});

	it('reads each site of a run apart, and looks the single row of a site up', async () => {
		server().seedReports(120, { projects: ['one.example', 'two.example'] });
		server().clearRequests();

		const { error } = await createRows('returnExisting', [
			'https://one.example/a',
			'https://two.example/a',
			'https://one.example/b',
			'https://three.example/',
		]);

		expect(error).toBeUndefined();
		expect(siteReads().map((request) => `${request.query.project} page ${request.query.page}`)).toEqual(['one.example page 1']);
		expect(lookups().map((request) => request.query.search).sort()).toEqual(['three.example', 'two.example/a']);
	});

	it('re-analyzes the newest report of each row found in the site read, with its previous score', async () => {
		const urls = prepare({ held: 130, heldRows: 3, newRows: 1 });
		const newestBefore = newestByUrl(server());
		const scoreBefore = new Map(server().reports().map((report) => [report.id, report.result]));
		server().clearRequests();

		const { items, error } = await createRows('reanalyzeExisting', urls);

		expect(error).toBeUndefined();
		expect(siteReads()).toHaveLength(2);
		expect(lookups()).toHaveLength(0);
		const updates = apiRequests(server()).filter((request) => request.method === 'PUT');
		expect(updates.map((request) => request.path).sort()).toEqual(
			urls.slice(0, 3).map((url) => `/api/v1/reports/${newestBefore.get(url.replace('https://www.', ''))}`).sort(),
		);
		expect(items.map((item) => item.json.outcome)).toEqual(['reanalyzed', 'reanalyzed', 'reanalyzed', 'created']);
		for (const item of items.slice(0, 3)) expect(item.json.previousResult).toBe(scoreBefore.get(item.json.id as number));
	});

	it('finds the report an earlier row of the run created, and makes one report of rows sharing a URL', async () => {
		const urls = ['https://example.com/a', 'https://example.com/b', 'http://www.example.com/a', 'https://example.com/b', 'https://example.com/a'];

		const { items, error } = await createRows('returnExisting', urls);

		expect(error).toBeUndefined();
		expect(reads()).toHaveLength(1);
		expect(creates()).toHaveLength(2);
		expect(server().reports().map((report) => report.url).sort()).toEqual(['example.com/a', 'example.com/b']);
		expect(items.map((item) => item.json.outcome)).toEqual(['created', 'created', 'existing', 'existing', 'existing']);
	});

	it('reads the site again in the next execution: what was read is kept for the execution only', async () => {
		const urls = ['https://example.com/a', 'https://example.com/b'];
		await createRows('returnExisting', urls);
		await runPhpRank(server(), { resource: 'report', operation: 'delete', reportId: { __rl: true, mode: 'id', value: server().reports()[0].id } });
		server().clearRequests();

		const { items } = await createRows('returnExisting', urls);

		expect(siteReads()).toHaveLength(1);
		expect(items.map((item) => item.json.outcome)).toEqual(['created', 'existing']);
	});

	it('does not see a report another client creates after the site was read: the row creates a second one', async () => {
		const urls = ['https://example.com/a', 'https://example.com/b'];
		server().injectFault({ method: 'POST', path: '/api/v1/reports', kind: 'hold' });

		const run = createRows('returnExisting', urls);
		await server().untilHeld();
		const heldUrl = String(creates()[0].body.url);
		const otherUrl = urls.find((url) => url !== heldUrl)!;
		const other = await fetch(`${server().url}/api/v1/reports`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${server().apiKey}`, Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
			body: new URLSearchParams({ url: otherUrl }),
		});
		expect(other.status).toBe(201);
		server().releaseHeld();
		const { items, error } = await run;

		expect(error).toBeUndefined();
		expect(siteReads()).toHaveLength(1);
		expect(lookups()).toHaveLength(0);
		expect(items.map((item) => item.json.outcome)).toEqual(['created', 'created']);
		expect(server().reports().filter((report) => report.url === otherUrl.replace('https://', ''))).toHaveLength(2);
	});

	it('re-analyzes or creates anew when another client deleted a report found in the site read', async () => {
		server().seedReports(3, { projects: [SITE] });
		const [held] = server().reports();
		server().clearRequests();
		server().injectFault({ method: 'PUT', kind: 'hold', path: `/api/v1/reports/${held.id}` });

		const run = createRows('reanalyzeExisting', [`https://${held.url}`, 'https://example.com/new']);
		await server().untilHeld();
		const deleted = await fetch(`${server().url}/api/v1/reports/${held.id}`, {
			method: 'DELETE',
			headers: { Authorization: `Bearer ${server().apiKey}`, Accept: 'application/json' },
		});
		expect(deleted.status).toBe(200);
		server().releaseHeld();
		const { items, error } = await run;

		expect(error).toBeUndefined();
		// The refused update (403) changed nothing; a lookup of the URL then found no report, so one was created.
		const sent = (method: string) => apiRequests(server()).filter((request) => request.method === method);
		expect(sent('PUT').map((request) => request.status)).toEqual([403]);
		expect(lookups().map((request) => request.query.search)).toEqual([held.url]);
		expect(sent('POST').map((request) => request.status)).toEqual([201, 201]);
		expect(server().reports().filter((report) => report.url === held.url).map((report) => report.id)).toEqual([expect.any(Number)]);
		expect(server().reports().some((report) => report.id === held.id)).toBe(false);
		expect(items.map((item) => [item.json.url, item.json.outcome])).toEqual([
			[held.url, 'created'],
			['example.com/new', 'created'],
		]);
	});
});

describe('Report > Create: one execution, several phpRank nodes', () => {
	/** Create (Return the Existing Report) → `between` → Create again, for the rows, in one execution. */
	async function createThenAgain(urls: string[], between: { name: string; parameters: Record<string, unknown> }) {
		const credentials = credentialsFor(server());
		const node = (name: string, x: number, parameters: Record<string, unknown>): INode => ({
			id: `00000000-0000-4000-8000-00000000010${x}`,
			name,
			type: 'n8n-nodes-phprank.phpRank',
			typeVersion: 1,
			position: [x * 220, 0],
			parameters: parameters as INodeParameters,
			...credentialReferences(credentials),
		});
		const createFrom = (url: string) => ({ resource: 'report', operation: 'create', url, ifReportExists: 'returnExisting' });
		const nodes = [
			node('Create', 1, createFrom('={{ $json.url }}')),
			node(between.name, 2, between.parameters),
			node('Create again', 3, createFrom("=https://{{ $('Create').item.json.url }}")),
		];
		const workflow = manualWorkflow(nodes, {
			Create: { main: [[{ node: between.name, type: 'main', index: 0 }]] },
			[between.name]: { main: [[{ node: 'Create again', type: 'main', index: 0 }]] },
		});
		return await runWorkflow({ ...workflow, pinData: { [TRIGGER_NODE_NAME]: urls.map((url) => ({ json: { url } })) } }, { credentials });
	}

	it('reads the site once, and a later node returns the reports as an earlier one re-analyzed them', async () => {
		const urls = ['https://example.com/a', 'https://example.com/b'];
		await createRows('createAnother', urls);
		server().changePage('example.com/a', { quality: 0 });
		server().clearRequests();

		const result = await createThenAgain(urls, {
			name: 'Re-analyze',
			parameters: { resource: 'report', operation: 'update', reportId: '={{ $json.id }}', updateFields: { reanalyze: true } },
		});

		expect(result.error).toBeUndefined();
		expect(reads()).toHaveLength(1);
		const reanalyzed = result.output('Re-analyze').map((item) => [item.json.id, item.json.result]);
		expect(reanalyzed[0][1]).not.toEqual(result.output('Create')[0].json.result);
		expect(result.output('Create again').map((item) => [item.json.id, item.json.result, item.json.outcome])).toEqual(
			reanalyzed.map(([id, score]) => [id, score, 'existing']),
		);
	});

	it('looks up the URLs whose reports an earlier node deleted, and creates them anew', async () => {
		const urls = ['https://example.com/a', 'https://example.com/b'];
		await createRows('createAnother', urls);
		server().clearRequests();

		const result = await createThenAgain(urls, {
			name: 'Delete',
			parameters: { resource: 'report', operation: 'delete', reportId: '={{ $json.id }}' },
		});

		expect(result.error).toBeUndefined();
		expect(siteReads()).toHaveLength(1);
		expect(lookups().map((request) => request.query.search).sort()).toEqual(['example.com/a', 'example.com/b']);
		expect(result.output('Create again').map((item) => item.json.outcome)).toEqual(['created', 'created']);
		expect(server().reports()).toHaveLength(2);
	});
});

describe('Report > Create: executions at once in one n8n process', () => {
	it('make one report of a URL that rows of both ask for', async () => {
		const [first, second] = await Promise.all([
			createRows('returnExisting', ['https://example.com/a', 'https://example.com/b', 'https://example.com/c']),
			createRows('returnExisting', ['https://example.com/b', 'https://example.com/c', 'https://example.com/d']),
		]);

		expect([first.error, second.error]).toEqual([undefined, undefined]);
		expect(server().reports().map((report) => report.url).sort()).toEqual(['a', 'b', 'c', 'd'].map((page) => `example.com/${page}`));
		const outcomes = [...first.items, ...second.items].map((item) => `${String(item.json.url)} ${String(item.json.outcome)}`).sort();
		expect(outcomes).toEqual([
			'example.com/a created',
			'example.com/b created',
			'example.com/b existing',
			'example.com/c created',
			'example.com/c existing',
			'example.com/d created',
		]);
	});
});

/**
 * Report > Create with an Existing Report choice finds again every URL phpRank accepts, matched as phpRank stores it
 * (CONTRACT.md, "A report"): a second run of the same rows creates nothing; the URLs phpRank refuses fail the row.
 */
import { apiRequests, inputErrorOf, runPhpRank, useServer } from '../../../../support/phpRank';
import { PHPRANK_URL_SHAPES, UPPER_CASE_SHAPE } from '../../../../support/phpRankUrls';

const server = useServer();

const HOST = 'example.com';
const ACCEPTED = [
	...PHPRANK_URL_SHAPES.flatMap(([sent, stored]) => (stored === undefined ? [] : [{ sent: `https://www.${HOST}${sent}`, stored: `${HOST}${stored}` }])),
	{ sent: UPPER_CASE_SHAPE.sent(`www.${HOST}`), stored: UPPER_CASE_SHAPE.stored(HOST) },
];
const REFUSED = PHPRANK_URL_SHAPES.flatMap(([sent, stored]) => (stored === undefined ? [`https://${HOST}${sent}`] : []));

const createRows = (urls: string[], ifReportExists: string) =>
	runPhpRank(
		server(),
		{ resource: 'report', operation: 'create', url: '={{ $json.url }}', ifReportExists, olderThan: 7, olderThanUnit: 'days' },
		{ items: urls.map((url) => ({ url })), continueOnFail: true },
	);

const posts = () => apiRequests(server()).filter((request) => request.method === 'POST');
const writes = () => apiRequests(server()).filter((request) => request.method !== 'GET');

describe('Report > Create: URLs as phpRank stores them', () => {
	it.each(['returnExisting', 'reanalyzeIfOlder'])('%s: a second run of the same rows finds every accepted URL and creates nothing', async (ifReportExists) => {
		const first = await createRows(ACCEPTED.map((shape) => shape.sent), ifReportExists);

		expect(first.error).toBeUndefined();
		expect(first.items.map((item) => [item.json.url, item.json.outcome])).toEqual(ACCEPTED.map((shape) => [shape.stored, 'created']));
		expect(posts()).toHaveLength(ACCEPTED.length);
		const created = first.items.map((item) => item.json.id);
		server().clearRequests();

		const again = await createRows(ACCEPTED.map((shape) => shape.sent), ifReportExists);

		expect(again.error).toBeUndefined();
		expect(writes()).toEqual([]);
		expect(again.items.map((item) => [item.json.id, item.json.outcome])).toEqual(created.map((id) => [id, 'existing']));
		expect(server().reports()).toHaveLength(ACCEPTED.length);
	});

	it('finds each accepted URL again when it is looked up on its own', async () => {
		for (const shape of ACCEPTED) await createRows([shape.sent], 'returnExisting');
		server().clearRequests();

		for (const shape of ACCEPTED) {
			const { items, error } = await createRows([shape.sent], 'returnExisting');
			expect(error).toBeUndefined();
			expect([shape.sent, items[0].json.url, items[0].json.outcome]).toEqual([shape.sent, shape.stored, 'existing']);
		}
		expect(posts()).toEqual([]);
		// Each looked up by its own search, not by reading the site.
		expect(apiRequests(server()).filter((request) => request.query.search !== undefined)).toHaveLength(ACCEPTED.length);
	});

	it('fails each row whose URL phpRank refuses, naming the character and its escape, and sends nothing for it', async () => {
		const { items, error } = await createRows(REFUSED, 'returnExisting');

		expect(error).toBeUndefined();
		expect(items).toHaveLength(REFUSED.length);
		for (const [index, item] of items.entries()) {
			expect(item.json.error).toBe(`URL holds a character phpRank refuses (a space, | ^ " < >); got ${JSON.stringify(REFUSED[index])}`);
		}
		expect(apiRequests(server())).toEqual([]);
		expect(server().reports()).toEqual([]);

		const { error: alone } = await runPhpRank(server(), { resource: 'report', operation: 'create', url: REFUSED[1], ifReportExists: 'returnExisting' });
		expect(inputErrorOf(alone).description).toBe('Write it percent-encoded: a space as %20, | as %7C, ^ as %5E, " as %22, < as %3C, > as %3E.');
	});
});

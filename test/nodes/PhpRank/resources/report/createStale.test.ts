/**
 * Report > Create with Re-Analyze if Older Than: a report analyzed within that age is output
 * as it is, an older one is analyzed again, a URL without one gets one. What phpRank holds is read once a
 * site, so a run right after a finished one sends no analysis and an interrupted run, run again, finishes the rest.
 */
import { apiRequests, inputErrorOf, runPhpRank, useServer } from '../../../../support/phpRank';

const server = useServer();

const HOUR = 3600;
const DAY = 24 * HOUR;

const PAGES = Array.from({ length: 30 }, (_, index) => `https://www.example.com/page-${index}`);

const audit = (urls: string[], age: { olderThan?: unknown; olderThanUnit?: unknown } = { olderThan: 6 }) =>
	runPhpRank(
		server(),
		{ resource: 'report', operation: 'create', url: '={{ $json.url }}', ifReportExists: 'reanalyzeIfOlder', ...age },
		{ items: urls.map((url) => ({ url })) },
	);

const analyses = () => apiRequests(server()).filter((request) => request.method !== 'GET');
const reads = () => apiRequests(server()).filter((request) => request.method === 'GET');
const reanalyzedIds = () =>
	analyses()
		.filter((request) => request.method === 'PUT')
		.map((request) => Number(request.path.split('/').pop()));

/** A first audit of the rows: each gets its report. Returns the report ids, in row order. */
async function firstAudit(urls: string[]): Promise<number[]> {
	const { items, error } = await audit(urls);
	expect(error).toBeUndefined();
	expect(items.map((item) => item.json.outcome)).toEqual(urls.map(() => 'created'));
	server().clearRequests();
	return items.map((item) => item.json.id as number);
}

describe('Report > Create: Re-Analyze if Older Than', () => {
	it('a run right after a finished one sends no analysis: one read of the site, every report output as it is with its age', async () => {
		const ids = await firstAudit(PAGES);

		const { items, error } = await audit(PAGES);

		expect(error).toBeUndefined();
		expect(analyses()).toHaveLength(0);
		expect(reads()).toHaveLength(1);
		expect(reads()[0].query).toMatchObject({ project: 'example.com', per_page: '100' });
		expect(items.map((item) => [item.json.id, item.json.outcome])).toEqual(ids.map((id) => [id, 'existing']));
		for (const item of items) {
			expect(item.json.ageHours).toBeGreaterThanOrEqual(0);
			expect(item.json.ageHours).toBeLessThan(1);
		}
	});

	it('re-analyzes exactly the reports last analyzed longer ago than the age, each output with its previous score', async () => {
		const ids = await firstAudit(PAGES);
		const stale = [ids[3], ids[7], ids[12], ids[29]];
		server().ageReports(stale, 7 * DAY);
		server().ageReports([ids[4], ids[8]], 5 * DAY);
		const scoreBefore = new Map(server().reports().map((report) => [report.id, report.result]));

		const { items, error } = await audit(PAGES);

		expect(error).toBeUndefined();
		expect(reanalyzedIds().sort((a, b) => a - b)).toEqual(stale);
		expect(analyses()).toHaveLength(stale.length);
		expect(analyses().every((request) => request.body.results === '1')).toBe(true);
		expect(reads()).toHaveLength(1);
		expect(items.map((item) => [item.json.id, item.json.outcome])).toEqual(ids.map((id) => [id, stale.includes(id) ? 'reanalyzed' : 'existing']));
		for (const item of items.filter((item) => item.json.outcome === 'reanalyzed')) {
			expect(item.json.previousResult).toBe(scoreBefore.get(item.json.id as number));
		}
		const ages = new Map(items.map((item) => [item.json.id, item.json.ageHours]));
		expect(ages.get(ids[4])).toBeGreaterThanOrEqual(5 * 24);
		expect(ages.get(ids[4])).toBeLessThan(5 * 24 + 1);
		expect(ages.get(ids[0])).toBeLessThan(1);
	});

	it('an interrupted run, run again, analyzes only the pages it had not reached', async () => {
		const reached = PAGES.slice(0, 18);
		const reachedIds = await firstAudit(reached);

		const { items, error } = await audit(PAGES);

		expect(error).toBeUndefined();
		expect(analyses().map((request) => [request.method, request.body.url])).toEqual(PAGES.slice(18).map((url) => ['POST', url]));
		expect(items.map((item) => item.json.outcome)).toEqual(PAGES.map((_, index) => (index < 18 ? 'existing' : 'created')));
		expect(items.slice(0, 18).map((item) => item.json.id)).toEqual(reachedIds);
		expect(server().reports()).toHaveLength(PAGES.length);
	});

	it('takes the age in hours too', async () => {
		const ids = await firstAudit(PAGES.slice(0, 3));
		server().ageReports([ids[0]], 3 * HOUR);
		server().ageReports([ids[1]], 1 * HOUR);

		const { items, error } = await audit(PAGES.slice(0, 3), { olderThan: 2, olderThanUnit: 'hours' });

		expect(error).toBeUndefined();
		expect(reanalyzedIds()).toEqual([ids[0]]);
		expect(items.map((item) => item.json.outcome)).toEqual(['reanalyzed', 'existing', 'existing']);
	});

	it('looks a single URL up the same way, and an age of 0 re-analyzes every report', async () => {
		const [id] = await firstAudit([PAGES[0]]);

		const fresh = await audit([PAGES[0]], { olderThan: 1, olderThanUnit: 'hours' });
		expect(fresh.items.map((item) => [item.json.id, item.json.outcome])).toEqual([[id, 'existing']]);
		expect(analyses()).toHaveLength(0);

		const always = await audit([PAGES[0]], { olderThan: 0 });
		expect(always.items.map((item) => [item.json.id, item.json.outcome])).toEqual([[id, 'reanalyzed']]);
		expect(reanalyzedIds()).toEqual([id]);
	});

	it.each([
		[{ olderThan: -1 }, /Re-Analyze if Older Than must be a number, 0 or more; got -1/],
		[{ olderThan: 'a week' }, /Re-Analyze if Older Than must be a number, 0 or more; got "a week"/],
		[{ olderThan: 1, olderThanUnit: 'weeks' }, /Unit of Re-Analyze if Older Than must be one of: days \(Days\), hours \(Hours\); got "weeks"/],
	])('refuses %j before any request, naming the field and what it takes', async (age, message) => {
		server().seedReports(3, { projects: ['example.com'] });

		const { error } = await audit(PAGES.slice(0, 2), age);

		expect(inputErrorOf(error).message).toMatch(message);
		expect(apiRequests(server())).toHaveLength(0);
	});
});

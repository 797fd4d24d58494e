import type { IDataObject } from 'n8n-workflow';
import { createPoller } from '../../../../dev/engine';
import { apiRequests, credentialsFor, failedCheckNamesOnServer, failedChecksOnServer, useServer } from '../../../support/phpRank';
import { createReports, deleteReport } from './phpRankApi';

const server = useServer({}, (phpRank) => phpRank.seedReports(20));

const newReportPoller = (parameters: IDataObject = {}, staticData?: IDataObject) =>
	createPoller({ parameters: { event: 'newReport', ...parameters }, credentials: credentialsFor(server()), staticData });

const urls = (count: number, prefix = 'new') =>
	Array.from({ length: count }, (_, index) => `https://${prefix}.example.com/page-${index}`);

const emitted = (result: Array<Array<{ json: IDataObject }>> | null) => (result ?? [[]])[0].map((item) => item.json);

describe('phpRank Trigger: New Report', () => {
	it('records where it stands on activation instead of replaying history', async () => {
		const poller = newReportPoller();

		expect(await poller.poll()).toBeNull();
		expect(poller.nodeStaticData()).toEqual({ lastReportId: 20 });
		expect(apiRequests(server())).toHaveLength(1);
	});

	it('makes one request when nothing is new', async () => {
		const poller = newReportPoller();
		await poller.poll();
		server().clearRequests();

		expect(await poller.poll()).toBeNull();
		expect(apiRequests(server()).map((request) => request.query)).toEqual([
			{ sort_by: 'id', sort: 'desc', per_page: '25', page: '1' },
		]);
	});

	it('emits each new report once, oldest first, shaped like the phpRank node output', async () => {
		const poller = newReportPoller();
		await poller.poll();
		const ids = await createReports(server(), urls(3));

		const reports = emitted(await poller.poll());

		expect(reports.map((report) => report.id)).toEqual(ids);
		expect(reports.every((report) => ['good', 'decent', 'bad'].includes(report.grade as string))).toBe(true);
		expect(reports[0]).toEqual(expect.objectContaining({ url: 'new.example.com/page-0', results: expect.any(Object) }));
		for (const report of reports) {
			expect(report.failedChecks).toEqual(failedChecksOnServer(server().reports().find((stored) => stored.id === report.id)!));
			expect(report.failedCheckNames).toEqual(failedCheckNamesOnServer(server().reports().find((stored) => stored.id === report.id)!));
		}
		expect(await poller.poll()).toBeNull();
	});

	it('reads only the pages it needs to reach the last report it had seen', async () => {
		const poller = newReportPoller();
		await poller.poll();
		const ids = await createReports(server(), urls(60));
		server().clearRequests();

		const reports = emitted(await poller.poll());

		expect(reports.map((report) => report.id)).toEqual(ids);
		expect(apiRequests(server()).map((request) => request.query.page)).toEqual(['1', '2', '3']);
	});

	it('loses no report and emits none twice when reports are deleted between polls', async () => {
		const poller = newReportPoller();
		await poller.poll();
		const ids = await createReports(server(), urls(5));
		await deleteReport(server(), 20);
		await deleteReport(server(), 3);
		await deleteReport(server(), ids[2]);

		const first = emitted(await poller.poll());
		const laterIds = await createReports(server(), urls(2, 'later'));
		await deleteReport(server(), ids[4]);
		const second = emitted(await poller.poll());

		expect(first.map((report) => report.id)).toEqual([ids[0], ids[1], ids[3], ids[4]]);
		expect(second.map((report) => report.id)).toEqual(laterIds);
	});

	it('emits nothing and keeps its place when a poll fails half-way, then emits all on the next', async () => {
		const poller = newReportPoller();
		await poller.poll();
		const ids = await createReports(server(), urls(40));
		server().injectFault({ path: '/api/v1/reports', query: { page: '2' }, kind: 'status', status: 500 });

		await expect(poller.poll()).rejects.toThrow(/^phpRank failed to process the request \(500\)/);
		expect(poller.nodeStaticData()).toEqual({ lastReportId: 20 });

		expect(emitted(await poller.poll()).map((report) => report.id)).toEqual(ids);
	});

	it('reads again when a report is deleted while its pages are read, so none is skipped', async () => {
		const poller = newReportPoller();
		await poller.poll();
		const ids = await createReports(server(), urls(30));
		server().injectFault({ path: '/api/v1/reports', query: { page: '2' }, kind: 'delay', delayMs: 400, times: 1 });

		const polling = poller.poll();
		await new Promise((resolve) => setTimeout(resolve, 150));
		await deleteReport(server(), ids[29]);
		const reports = emitted(await polling);

		expect(reports.map((report) => report.id)).toEqual(ids.slice(0, 29));
		expect(apiRequests(server()).filter((request) => request.path === '/api/v1/reports' && request.method === 'GET').length).toBeGreaterThan(3);
	});

	it('filters by grade and project on the server', async () => {
		const poller = newReportPoller({ filters: { grade: 'bad', project: 'new.example.com' } });
		await poller.poll();
		await createReports(server(), [...urls(12), ...urls(4, 'other')]);

		const reports = emitted(await poller.poll());

		const expected = server()
			.reports()
			.filter((report) => report.project === 'new.example.com' && report.result < 49)
			.map((report) => report.id);
		expect(reports.map((report) => report.id)).toEqual(expected);
		expect(reports.every((report) => report.grade === 'bad')).toBe(true);
		const listings = apiRequests(server()).filter((request) => request.method === 'GET');
		expect(listings.every((request) => request.query.result === 'bad' && request.query.project === 'new.example.com')).toBe(true);
	});

	it('refuses a grade that is not good, decent or bad', async () => {
		const poller = newReportPoller({ filters: { grade: '={{ "awful" }}' } });

		await expect(poller.poll()).rejects.toThrow('Grade must be one of: good (Good), decent (Decent), bad (Bad); got "awful"');
		expect(apiRequests(server())).toHaveLength(0);
	});

	it('returns the latest matching report on a manual test, leaving its place untouched', async () => {
		const poller = newReportPoller();
		await poller.poll();
		await createReports(server(), urls(2));

		const reports = emitted(await poller.poll('manual'));

		expect(reports.map((report) => report.id)).toEqual([22]);
		expect(poller.nodeStaticData()).toEqual({ lastReportId: 20 });
		expect(emitted(await poller.poll()).map((report) => report.id)).toEqual([21, 22]);
	});

	it('goes on where it stopped after a restart, from the static data n8n saved', async () => {
		const before = newReportPoller();
		await before.poll();
		await createReports(server(), urls(2));
		const saved = before.staticData();

		const after = newReportPoller({}, saved);

		expect(emitted(await after.poll()).map((report) => report.id)).toEqual([21, 22]);
	});
});

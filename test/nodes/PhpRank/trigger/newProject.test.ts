import type { IDataObject } from 'n8n-workflow';
import { createPoller } from '../../../../dev/engine';
import { apiRequests, credentialsFor, useServer } from '../../../support/phpRank';
import { createReports } from './phpRankApi';

const server = useServer({}, (phpRank) => phpRank.seedReports(12, { projects: ['old-a.example.com', 'old-b.example.com'] }));

const newProjectPoller = (staticData?: IDataObject) =>
	createPoller({ parameters: { event: 'newProject' }, credentials: credentialsFor(server()), staticData });

const emitted = (result: Array<Array<{ json: IDataObject }>> | null) => (result ?? [[]])[0].map((item) => item.json);

describe('phpRank Trigger: New Project', () => {
	it('records where it stands on activation, then emits each new project once, oldest first', async () => {
		const poller = newProjectPoller();
		expect(await poller.poll()).toBeNull();

		await createReports(server(), ['https://first.example.com/', 'https://old-a.example.com/again']);
		await createReports(server(), ['https://second.example.org/', 'https://first.example.com/pricing']);
		const projects = emitted(await poller.poll());

		expect(projects.map((project) => project.project)).toEqual(['first.example.com', 'second.example.org']);
		expect(projects[0]).toEqual(expect.objectContaining({ reports: expect.any(Number), created_at: expect.any(String) }));
		expect(await poller.poll()).toBeNull();
	});

	it('tells apart projects created in the same second across polls', async () => {
		const poller = newProjectPoller();
		await poller.poll();
		await createReports(server(), ['https://a.example.net/']);
		const first = emitted(await poller.poll());
		await createReports(server(), ['https://b.example.net/', 'https://c.example.net/']);
		const second = emitted(await poller.poll());

		expect([...first, ...second].map((project) => project.project).sort()).toEqual([
			'a.example.net',
			'b.example.net',
			'c.example.net',
		]);
		expect(first.map((project) => project.project)).toEqual(['a.example.net']);
	});

	it('makes one request when nothing is new and reads past the first page only for many new projects', async () => {
		const poller = newProjectPoller();
		await poller.poll();
		server().clearRequests();
		expect(await poller.poll()).toBeNull();
		expect(apiRequests(server())).toHaveLength(1);

		await createReports(server(), Array.from({ length: 30 }, (_, index) => `https://site-${index}.example.com/`));
		server().clearRequests();
		expect(emitted(await poller.poll())).toHaveLength(30);
		expect(apiRequests(server()).map((request) => request.query)).toEqual([
			{ sort_by: 'created_at', sort: 'desc', per_page: '25', page: '1' },
			{ sort_by: 'created_at', sort: 'desc', per_page: '25', page: '2' },
		]);
	});

	it('returns the newest project on a manual test', async () => {
		const poller = newProjectPoller();
		await poller.poll();
		await createReports(server(), ['https://manual.example.com/']);

		expect(emitted(await poller.poll('manual')).map((project) => project.project)).toEqual(['manual.example.com']);
		expect(emitted(await poller.poll()).map((project) => project.project)).toEqual(['manual.example.com']);
	});
});

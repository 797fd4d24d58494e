import { PhpRankUser } from '../../../dev/server';
import { call, useServer } from './helpers';

const ADA: PhpRankUser = { id: 1, name: 'Ada', email: 'ada@example.test', apiKey: 'a'.repeat(60) };
const BOB: PhpRankUser = { id: 2, name: 'Bob', email: 'bob@example.test', apiKey: 'b'.repeat(60) };

const create = (server: Parameters<typeof call>[0], url: string, key?: string) => call(server, 'POST', '/api/v1/reports', { form: { url }, key });

describe('projects', () => {
	const server = useServer({ users: [ADA, BOB] });
	beforeEach(() => server().reset());

	it('creates a project with the first report of a host and keeps projects per user', async () => {
		await create(server(), 'https://example.com/a');
		await create(server(), 'https://www.example.com/b');
		await create(server(), 'https://example.com/c', BOB.apiKey);
		expect(server().projects(1)).toEqual([expect.objectContaining({ userId: 1, project: 'example.com', reports: 2 })]);
		expect(server().projects(2)).toEqual([expect.objectContaining({ userId: 2, project: 'example.com', reports: 1 })]);

		const ada = await call(server(), 'GET', '/api/v1/projects');
		expect(ada.json.data).toHaveLength(1);
		expect(ada.json.data[0].reports).toBe(2);
		const adaReports = await call(server(), 'GET', '/api/v1/reports');
		expect(adaReports.json.meta.total).toBe(2);
		const bobReports = await call(server(), 'GET', '/api/v1/reports', { key: BOB.apiKey });
		expect(bobReports.json.data.map((r: { id: number }) => r.id)).toEqual([3]);
	});

	it('keeps the summed score in step with deletions', async () => {
		await create(server(), 'https://example.com/a');
		await create(server(), 'https://example.com/b');
		const [first, second] = server().reports();
		expect(server().projects()[0].result).toBe(first.result + second.result);
		await call(server(), 'DELETE', `/api/v1/reports/${first.id}`);
		const listed = await call(server(), 'GET', '/api/v1/projects');
		expect(listed.json.data[0]).toMatchObject({ project: 'example.com', reports: 1, result: String(second.result) });
	});

	it('deletes a project and its reports, answering with the name as id', async () => {
		// Report 1 is the project's own, so the delete hazard finds nothing more to delete.
		await create(server(), 'https://other.example/b');
		await create(server(), 'https://example.com/a');
		const reply = await call(server(), 'DELETE', '/api/v1/projects/other.example');
		expect(reply.status).toBe(200);
		expect(reply.json).toEqual({ id: 'other.example', object: 'report', deleted: true, status: 200 });
		expect(server().reports().map((r) => r.project)).toEqual(['example.com']);
		expect(server().projects().map((p) => p.project)).toEqual(['example.com']);
	});

	it('URL-decodes the project name from its path segment', async () => {
		server().seedReports(1, { projects: ['xn--bcher-kva.example'] });
		const reply = await call(server(), 'DELETE', '/api/v1/projects/xn--bcher-kva%2Eexample');
		expect(reply.status).toBe(200);
		expect(reply.json.id).toBe('xn--bcher-kva.example');
	});

	it('answers 404 for a project that does not exist or is someone else’s', async () => {
		await create(server(), 'https://example.com/a', BOB.apiKey);
		const reply = await call(server(), 'DELETE', '/api/v1/projects/example.com');
		expect(reply.status).toBe(404);
		expect(reply.json).toEqual({ message: 'Resource not found.', status: 404 });
		expect(server().reports()).toHaveLength(1);
	});

	it('also deletes the report whose id equals the number of reports the project held (phpRank 1.2–1.8)', async () => {
		await create(server(), 'https://keep.example/1');
		await create(server(), 'https://keep.example/2');
		await create(server(), 'https://doomed.example/3');
		await create(server(), 'https://doomed.example/4');
		const reply = await call(server(), 'DELETE', '/api/v1/projects/doomed.example');
		expect(reply.status).toBe(200);
		// The project held two reports, so report 2 of keep.example goes too.
		expect(server().reports().map((r) => r.id)).toEqual([1]);
		expect(server().projects()).toEqual([expect.objectContaining({ project: 'keep.example', reports: 1 })]);
	});

	it('reaches other users’ reports with the hazard, as the real bug does', async () => {
		await create(server(), 'https://bob.example/1', BOB.apiKey);
		await create(server(), 'https://ada.example/2');
		await call(server(), 'DELETE', '/api/v1/projects/ada.example');
		expect(server().reports()).toHaveLength(0);
	});
});

describe('projects without the delete hazard', () => {
	const server = useServer({ projectDeleteHazard: false });

	it('deletes only the project’s own reports', async () => {
		await create(server(), 'https://keep.example/1');
		await create(server(), 'https://doomed.example/2');
		await call(server(), 'DELETE', '/api/v1/projects/doomed.example');
		expect(server().reports().map((r) => r.id)).toEqual([1]);
	});
});

describe('seeding projects', () => {
	const server = useServer({ seedReports: 10000, seedProjects: 1000 });

	it('spreads the seeded reports over that many projects, each with at least one', async () => {
		expect(server().reports()).toHaveLength(10000);
		const projects = server().projects();
		expect(projects).toHaveLength(1000);
		expect(projects.every((project) => project.reports >= 1)).toBe(true);
		const listed = await call(server(), 'GET', '/api/v1/projects?per_page=100&page=10');
		expect(listed.json.meta).toMatchObject({ total: 1000, last_page: 10, from: 901, to: 1000 });
	});

	it('adds fresh project names on later calls', () => {
		const names = server().seedProjects(3);
		expect(new Set(names).size).toBe(3);
		expect(server().projects()).toHaveLength(1003);
	});
});

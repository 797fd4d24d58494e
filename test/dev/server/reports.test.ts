import { PhpRankUser } from '../../../dev/server';
import { call, ISO_MICROSECONDS, useServer } from './helpers';

const BOB: PhpRankUser = { id: 2, name: 'Bob', email: 'bob@example.test', apiKey: 'b'.repeat(60) };
const ADA: PhpRankUser = { id: 1, name: 'Ada', email: 'ada@example.test', apiKey: 'a'.repeat(60) };

describe('reports', () => {
	const server = useServer({ users: [ADA, BOB] });
	beforeEach(() => server().reset());

	const create = (form: Record<string, string>, key?: string) => call(server(), 'POST', '/api/v1/reports', { form, key });

	describe('create', () => {
		it('answers 201 with the record, an unrounded score and the privacy as sent', async () => {
			const reply = await create({ url: 'https://www.Example.com/blog/', privacy: '1' });
			expect(reply.status).toBe(201);
			expect(reply.json.status).toBe(200);
			const report = reply.json.data;
			expect(report).toMatchObject({ id: 1, url: 'example.com/blog/', project: 'example.com', privacy: '1', password: false });
			expect(Number.isInteger(report.result)).toBe(false);
			expect(report.result).toBeGreaterThanOrEqual(0);
			expect(report.result).toBeLessThanOrEqual(100);
			expect(report.generated_at).toMatch(ISO_MICROSECONDS);
			expect(report.created_at).toBe(report.updated_at);

			const stored = server().reports()[0];
			expect(stored).toMatchObject({ id: 1, userId: 1, privacy: 1, score: report.result, result: Math.round(report.result) });
			const read = await call(server(), 'GET', '/api/v1/reports/1');
			expect(read.json.data.result).toBe(Math.round(report.result));
			expect(read.json.data.privacy).toBe(1);
			expect(read.json.data.results).toEqual(report.results);
		});

		it('echoes null privacy when it was left out and stores 0', async () => {
			const reply = await create({ url: 'http://example.com/' });
			expect(reply.json.data.privacy).toBeNull();
			expect(reply.json.data.url).toBe('example.com');
			expect(server().reports()[0].privacy).toBe(0);
		});

		it('echoes a number when the body was JSON', async () => {
			const reply = await call(server(), 'POST', '/api/v1/reports', { json: { url: 'https://example.com/x', privacy: 2, password: 'pw' } });
			expect(reply.status).toBe(201);
			expect(reply.json.data.privacy).toBe(2);
			expect(reply.json.data.password).toBe(true);
			expect(server().reports()[0].password).toBe('pw');
		});

		it('accepts multipart bodies on POST', async () => {
			const boundary = 'XyZ';
			const body = [`--${boundary}`, 'Content-Disposition: form-data; name="url"', '', 'https://example.com/m', `--${boundary}--`, ''].join('\r\n');
			const reply = await call(server(), 'POST', '/api/v1/reports', { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
			expect(reply.status).toBe(201);
			expect(reply.json.data.url).toBe('example.com/m');
		});

		it('keeps the path and query but drops the fragment and default port', async () => {
			const reply = await create({ url: 'https://www.example.com:443/Shop/item?id=5#reviews' });
			expect(reply.json.data.url).toBe('example.com/Shop/item?id=5');
			const other = await create({ url: 'http://example.com:8080/' });
			expect(other.json.data.url).toBe('example.com:8080');
			expect(other.json.data.project).toBe('example.com');
		});

		it('gives the same analysis for the same URL and an https check that follows the scheme', async () => {
			const first = await create({ url: 'https://example.com/same' });
			const second = await create({ url: 'https://example.com/same' });
			expect(second.json.data.result).toBe(first.json.data.result);
			expect(second.json.data.results).toEqual(first.json.data.results);
			const plain = await create({ url: 'http://example.com/same' });
			expect(first.json.data.results.https_encryption.passed).toBe(true);
			expect(plain.json.data.results.https_encryption).toEqual({ passed: false, importance: 'high', value: false, errors: { missing: null } });
		});

		it.each([
			[{}, { url: ['The url field is required.'] }],
			[{ url: '   ' }, { url: ['The url field is required.'] }],
			[{ url: 'example.com' }, { url: ['The url format is invalid.'] }],
			[{ url: 'ftp://example.com/file' }, { url: ['The url format is invalid.'] }],
			[{ url: 'https://' }, { url: ['The url format is invalid.'] }],
			[{ url: 'https://example.com', privacy: '3' }, { privacy: ['The privacy must be between 0 and 2.'] }],
			[{ url: 'https://example.com', privacy: '-1' }, { privacy: ['The privacy must be between 0 and 2.'] }],
			[{ url: 'https://example.com', privacy: '1.5' }, { privacy: ['The privacy must be an integer.'] }],
			[{ url: 'https://example.com', privacy: 'ab' }, { privacy: ['The privacy must be an integer.'] }],
			[{ url: 'https://example.com', privacy: 'abc' }, { privacy: ['The privacy must be an integer.', 'The privacy must be between 0 and 2.'] }],
			[{ url: 'https://example.com', privacy: '2' }, { password: ['The password field is required.'] }],
			[{ url: 'https://example.com', privacy: '2', password: '' }, { password: ['The password field is required.'] }],
			[{ url: 'https://foo.invalid/page' }, { url: ['cURL error 6: Could not resolve host: foo.invalid'] }],
			[{ privacy: '7' }, { url: ['The url field is required.'], privacy: ['The privacy must be between 0 and 2.'] }],
		])('rejects %j with 422 %j', async (form, message) => {
			const reply = await create(form as Record<string, string>);
			expect(reply.status).toBe(422);
			expect(reply.json).toEqual({ message, status: 422 });
			expect(server().reports()).toHaveLength(0);
		});

		it('reads url from the query string too, as Laravel merges input', async () => {
			const reply = await call(server(), 'POST', '/api/v1/reports?url=https%3A%2F%2Fexample.com%2Fq');
			expect(reply.status).toBe(201);
			expect(reply.json.data.url).toBe('example.com/q');
		});
	});

	describe('update', () => {
		beforeEach(async () => {
			await create({ url: 'https://example.com/a' });
		});

		it('changes privacy and password and echoes privacy as sent', async () => {
			const reply = await call(server(), 'PUT', '/api/v1/reports/1', { form: { privacy: '2', password: 'secret' } });
			expect(reply.status).toBe(200);
			expect(reply.json.data).toMatchObject({ id: 1, privacy: '2', password: true });
			expect(Number.isInteger(reply.json.data.result)).toBe(true);
			expect(server().reports()[0]).toMatchObject({ privacy: 2, password: 'secret' });
		});

		it('keeps an old password when privacy goes back to 0, unless password is sent empty', async () => {
			await call(server(), 'PATCH', '/api/v1/reports/1', { form: { privacy: '2', password: 'secret' } });
			const publicAgain = await call(server(), 'PATCH', '/api/v1/reports/1', { json: { privacy: 0 } });
			expect(publicAgain.json.data).toMatchObject({ privacy: 0, password: true });
			expect(server().reports()[0].password).toBe('secret');
			const cleared = await call(server(), 'PATCH', '/api/v1/reports/1', { form: { password: '' } });
			expect(cleared.json.data).toMatchObject({ privacy: 0, password: false });
			expect(server().reports()[0].password).toBeNull();
		});

		it('answers the stored privacy as a number when privacy is not sent', async () => {
			const reply = await call(server(), 'PUT', '/api/v1/reports/1', { form: {} });
			expect(reply.status).toBe(200);
			expect(reply.json.data.privacy).toBe(0);
		});

		it('re-analyzes with results=1: new generated_at and an unrounded score', async () => {
			// Analyzed a day ago: generated_at counts whole seconds, and a re-analysis within the second the report was made
			// in would give the same one.
			server().ageReports([1], 86_400);
			const before = server().reports()[0];
			const reply = await call(server(), 'PUT', '/api/v1/reports/1', { form: { results: '1' } });
			expect(reply.status).toBe(200);
			expect(reply.json.data.result).toBe(before.score);
			expect(Number.isInteger(reply.json.data.result)).toBe(false);
			expect(Date.parse(reply.json.data.generated_at)).toBeGreaterThan(Date.parse(before.generatedAt));
			expect(reply.json.data.created_at).toBe(before.createdAt);
		});

		it('re-analyzes a changed page with its new score and checks, keeping other reports as they were', async () => {
			await create({ url: 'https://example.com/other' });
			const [changing, other] = server().reports();
			server().changePage(changing.url, { quality: 1 });
			const unchanged = await call(server(), 'GET', '/api/v1/reports/1');
			expect(unchanged.json.data.result).toBe(changing.result);
			const reply = await call(server(), 'PUT', '/api/v1/reports/1', { form: { results: '1' } });
			expect(reply.json.data.result).toBe(100);
			expect(Object.values(reply.json.data.results as Record<string, { passed: boolean }>).every((check) => check.passed)).toBe(true);
			expect((await call(server(), 'GET', '/api/v1/reports/1')).json.data.result).toBe(100);
			expect((await call(server(), 'PUT', `/api/v1/reports/${other.id}`, { form: { results: '1' } })).json.data.result).toBe(other.score);
			server().reset();
			await create({ url: changing.targetUrl });
			expect(server().reports()[0].score).toBe(changing.score);
		});

		it('does not re-analyze for results=0', async () => {
			const reply = await call(server(), 'PUT', '/api/v1/reports/1', { form: { results: '0' } });
			expect(Number.isInteger(reply.json.data.result)).toBe(true);
		});

		it('validates privacy and password like create', async () => {
			const reply = await call(server(), 'PUT', '/api/v1/reports/1', { form: { privacy: '2' } });
			expect(reply.status).toBe(422);
			expect(reply.json).toEqual({ message: { password: ['The password field is required.'] }, status: 422 });
			const bad = await call(server(), 'PUT', '/api/v1/reports/1', { form: { privacy: '9' } });
			expect(bad.json).toEqual({ message: { privacy: ['The privacy must be between 0 and 2.'] }, status: 422 });
		});

		it('answers 403 for a report that does not exist or belongs to someone else', async () => {
			const missing = await call(server(), 'PUT', '/api/v1/reports/999', { form: { privacy: '1' } });
			expect(missing.status).toBe(403);
			expect(missing.json).toEqual({ message: 'This action is unauthorized.' });
			const foreign = await call(server(), 'PATCH', '/api/v1/reports/1', { form: { privacy: '1' }, key: BOB.apiKey });
			expect(foreign.status).toBe(403);
			expect(server().reports()[0].privacy).toBe(0);
		});

		it('checks ownership before validation', async () => {
			const reply = await call(server(), 'PUT', '/api/v1/reports/999', { form: { privacy: 'x' } });
			expect(reply.status).toBe(403);
		});

		it('ignores multipart bodies on PUT, as PHP does not parse them', async () => {
			const body = ['--B', 'Content-Disposition: form-data; name="privacy"', '', '1', '--B--', ''].join('\r\n');
			const reply = await call(server(), 'PUT', '/api/v1/reports/1', { body, headers: { 'content-type': 'multipart/form-data; boundary=B' } });
			expect(reply.status).toBe(200);
			expect(reply.json.data.privacy).toBe(0);
			expect(server().requests.at(-1)?.body).toEqual({ privacy: '1' });
		});
	});

	describe('show and delete', () => {
		beforeEach(async () => {
			await create({ url: 'https://example.com/a' });
		});

		it('hides other users\u2019 reports as 404', async () => {
			const reply = await call(server(), 'GET', '/api/v1/reports/1', { key: BOB.apiKey });
			expect(reply.status).toBe(404);
			expect(reply.json).toEqual({ message: 'Resource not found.', status: 404 });
		});

		it('deletes a report once', async () => {
			const reply = await call(server(), 'DELETE', '/api/v1/reports/1');
			expect(reply.status).toBe(200);
			expect(reply.json).toEqual({ id: 1, object: 'report', deleted: true, status: 200 });
			expect(server().reports()).toHaveLength(0);
			expect(server().projects()).toHaveLength(0);
			const again = await call(server(), 'DELETE', '/api/v1/reports/1');
			expect(again.status).toBe(404);
			expect((await call(server(), 'GET', '/api/v1/reports/1')).status).toBe(404);
		});

		it('does not delete another user\u2019s report', async () => {
			const reply = await call(server(), 'DELETE', '/api/v1/reports/1', { key: BOB.apiKey });
			expect(reply.status).toBe(404);
			expect(server().reports()).toHaveLength(1);
		});

		it('gives each user their own account', async () => {
			const reply = await call(server(), 'GET', '/api/v1/account', { key: BOB.apiKey });
			expect(reply.json.data).toMatchObject({ id: 2, name: 'Bob', email: 'bob@example.test' });
		});
	});
});

describe('report quota and analysis time', () => {
	const server = useServer({ maxReportsPerUser: 2, analysisMs: 150 });

	it('shows the quota on the account and refuses reports beyond it', async () => {
		const account = await call(server(), 'GET', '/api/v1/account');
		expect(account.json.data.plan.features.reports).toBe(2);
		for (const path of ['a', 'b']) expect((await call(server(), 'POST', '/api/v1/reports', { form: { url: `https://example.com/${path}` } })).status).toBe(201);
		const third = await call(server(), 'POST', '/api/v1/reports', { form: { url: 'https://example.com/c' } });
		expect(third.status).toBe(422);
		expect(third.json).toEqual({ message: { url: ['You created too many reports.'] }, status: 422 });
	});

	it('takes analysisMs for create and re-analysis', async () => {
		server().reset();
		let started = Date.now();
		await call(server(), 'POST', '/api/v1/reports', { form: { url: 'https://example.com/slow' } });
		expect(Date.now() - started).toBeGreaterThanOrEqual(140);
		started = Date.now();
		await call(server(), 'PUT', '/api/v1/reports/1', { form: { results: '1' } });
		expect(Date.now() - started).toBeGreaterThanOrEqual(140);
	});
});

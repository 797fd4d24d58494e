import { request } from 'undici';
import { DEFAULT_USER } from '../../../dev/server';
import { call, useServer } from './helpers';

const HTML = 'text/html; charset=UTF-8';

describe('answers for clients that do not send Accept: application/json', () => {
	// A broken user record makes the account handler throw, which is how a 500 is provoked.
	const server = useServer({
		basePath: '/phprank',
		seedReports: 2,
		users: [DEFAULT_USER, { id: 9, name: 'Broken', email: 'broken@example.test', apiKey: 'q'.repeat(60), createdAt: 'not a date' }],
	});
	const origin = () => server().url.replace(/\/phprank$/, '');

	it('still answers success as JSON', async () => {
		const reply = await call(server(), 'GET', '/api/v1/reports/1', { accept: false });
		expect(reply.status).toBe(200);
		expect(reply.headers['content-type']).toBe('application/json');
		expect(reply.json.data.id).toBe(1);
	});

	it('redirects a bad key to the login page with an HTML body', async () => {
		const reply = await call(server(), 'GET', '/api/v1/reports', { accept: false, key: 'nope' });
		expect(reply.status).toBe(302);
		expect(reply.headers.location).toBe(`${server().url}/login`);
		expect(reply.headers['content-type']).toBe(HTML);
		expect(reply.text).toContain(`Redirecting to <a href="${server().url}/login">`);
		const login = await call(server(), 'GET', '/login', { accept: false, key: null });
		expect(login.status).toBe(200);
		expect(login.headers['content-type']).toBe(HTML);
		expect(login.text).toContain('<title>Login</title>');
	});

	it.each([
		['a missing report', 'GET', '/api/v1/reports/99', 404, 'Not Found'],
		['an unknown path', 'GET', '/api/v1/nowhere', 404, 'Not Found'],
		['an update of a missing report', 'PUT', '/api/v1/reports/99', 403, 'Forbidden'],
		['a wrong method', 'PATCH', '/api/v1/reports', 405, 'Method Not Allowed'],
	])('answers %s with an HTML page', async (_name, method, path, status, title) => {
		const reply = await call(server(), method, path, { accept: false });
		expect(reply.status).toBe(status);
		expect(reply.headers['content-type']).toBe(HTML);
		expect(reply.text).toContain(`<title>${title}</title>`);
		expect(reply.text).toContain(`${status} | ${title}`);
		expect(() => JSON.parse(reply.text)).toThrow();
		if (status === 405) expect(reply.headers.allow).toBe('GET, HEAD, POST');
	});

	it('answers a failure inside the server as 500: JSON with Accept, HTML without', async () => {
		const withJson = await call(server(), 'GET', '/api/v1/account', { key: 'q'.repeat(60) });
		expect(withJson.status).toBe(500);
		expect(withJson.json).toEqual({ message: 'An unexpected error has occurred, please try again.', status: 500 });
		const withoutJson = await call(server(), 'GET', '/api/v1/account', { key: 'q'.repeat(60), accept: false });
		expect(withoutJson.status).toBe(500);
		expect(withoutJson.headers['content-type']).toBe(HTML);
		expect(withoutJson.text).toContain('<title>Server Error</title>');
	});

	it('redirects a validation failure back to the Referer, or to the base URL', async () => {
		const back = await call(server(), 'POST', '/api/v1/reports', { accept: false, form: { url: 'nope' }, headers: { referer: 'https://seo.example.com/reports/new' } });
		expect(back.status).toBe(302);
		expect(back.headers.location).toBe('https://seo.example.com/reports/new');
		const home = await call(server(), 'POST', '/api/v1/reports', { accept: false, form: { url: 'nope' } });
		expect(home.status).toBe(302);
		expect(home.headers.location).toBe(server().url);
		expect(server().reports()).toHaveLength(2);
	});

	it.each([
		['application/json, text/plain, */*', true],
		['application/vnd.api+json', true],
		['text/html, application/json;q=0.9', false],
		['text/html;q=0.5, application/json', true],
		['*/*', false],
	])('treats Accept: %s as wanting JSON: %s', async (accept, wantsJson) => {
		const reply = await call(server(), 'GET', '/api/v1/reports/99', { accept: false, headers: { accept } });
		expect(reply.status).toBe(404);
		expect(reply.headers['content-type']).toBe(wantsJson ? 'application/json' : HTML);
	});

	it('answers JSON to an XMLHttpRequest that accepts anything', async () => {
		const reply = await call(server(), 'GET', '/api/v1/reports/99', { accept: false, headers: { 'x-requested-with': 'XMLHttpRequest' } });
		expect(reply.json).toEqual({ message: 'Resource not found.', status: 404 });
	});

	it('serves the API under the base path only', async () => {
		expect(server().url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/phprank$/);
		const inside = await call(server(), 'GET', '/api/v1/reports');
		expect(inside.json.meta.path).toBe(`${server().url}/api/v1/reports`);
		const root = await request(`${origin()}/api/v1/reports`, { headers: { accept: 'application/json', authorization: `Bearer ${server().apiKey}` } });
		expect(root.statusCode).toBe(404);
		expect(await root.body.json()).toEqual({ message: 'Resource not found.', status: 404 });
	});
});

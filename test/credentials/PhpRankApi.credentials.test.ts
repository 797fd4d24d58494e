import { apiBaseUrl, PhpRankApi } from '../../credentials/PhpRankApi.credentials';
import { runNode, testCredential } from '../../dev/engine';
import { apiRequests, byId, credentialsFor, runPhpRank, startServer } from '../support/phpRank';
import type { PhpRankServer } from '../support/phpRank';

let atRoot: PhpRankServer;
let inSubFolder: PhpRankServer;

beforeAll(async () => {
	atRoot = await startServer({ seedReports: 3 });
	inSubFolder = await startServer({ seedReports: 3, basePath: '/phprank' });
});
afterAll(async () => {
	await atRoot.close();
	await inSubFolder.close();
});
beforeEach(() => {
	atRoot.clearRequests();
	inSubFolder.clearRequests();
});

const baseUrlForms = (url: string) => [url, `${url}/`, `${url}/api/v1`, `${url}/api/v1/`, `  ${url}//  `];

describe('phpRank API credentials', () => {
	it('asks for the base URL and a password-protected API key', () => {
		const credential = new PhpRankApi();
		expect(credential.name).toBe('phpRankApi');
		expect(credential.properties.map((property) => [property.name, property.typeOptions?.password ?? false])).toEqual([
			['baseUrl', false],
			['apiKey', true],
		]);
	});

	it.each([
		['at the root', () => atRoot, '/api/v1/reports/2'],
		['in a sub-folder', () => inSubFolder, '/phprank/api/v1/reports/2'],
	])('reaches {base}/api/v1 of a phpRank %s from every form of its base URL', async (_, server, path) => {
		for (const baseUrl of baseUrlForms(server().url)) {
			const { error } = await runPhpRank(
				server(),
				{ resource: 'report', operation: 'get', reportId: byId('2') },
				{ credentials: credentialsFor(server(), { baseUrl }) },
			);
			expect(error).toBeUndefined();
		}
		expect(apiRequests(server()).map((request) => request.rawPath)).toEqual(Array(5).fill(path));
	});

	it('reads every form of the base URL as the same API address', () => {
		for (const baseUrl of baseUrlForms('https://example.com/phprank')) {
			expect(apiBaseUrl(baseUrl)).toBe('https://example.com/phprank/api/v1');
		}
	});

	it('sends the key as a Bearer token and asks for JSON on every request', async () => {
		await runPhpRank(atRoot, { resource: 'report', operation: 'getAll', returnAll: true });
		await runPhpRank(atRoot, { resource: 'report', operation: 'create', url: 'https://example.com/' });

		const requests = apiRequests(atRoot);
		expect(requests).toHaveLength(2);
		for (const request of requests) {
			expect(request.headers.authorization).toBe(`Bearer ${atRoot.apiKey}`);
			expect(request.headers.accept).toBe('application/json');
		}
	});

	describe("in n8n's HTTP Request node", () => {
		const httpRequest = (url: string) =>
			runNode({
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				parameters: { url, authentication: 'predefinedCredentialType', nodeCredentialType: 'phpRankApi' },
				credentials: credentialsFor(atRoot),
			});

		it('sends the key to the phpRank of the Base URL', async () => {
			const { error, items } = await httpRequest(`${atRoot.url}/api/v1/reports/2`);

			expect(error).toBeUndefined();
			expect(items[0].json).toMatchObject({ data: { id: 2 } });
			expect(apiRequests(atRoot)[0].headers.authorization).toBe(`Bearer ${atRoot.apiKey}`);
		});

		it('refuses to hand the key to another host, and sends nothing', async () => {
			const elsewhere = inSubFolder.url.replace('127.0.0.1', 'localhost');
			const { error } = await httpRequest(`${elsewhere}/api/v1/reports/2`);

			expect(error?.message).toMatch(/API key is sent only to the phpRank installation named by the Base URL: localhost:\d+ is not the host/);
			expect(JSON.stringify(error)).not.toContain(atRoot.apiKey);
			expect(apiRequests(inSubFolder)).toHaveLength(0);
		});
	});

	describe('credential test', () => {
		it('passes with a working key, by reading the account', async () => {
			const result = await testCredential('phpRankApi', { baseUrl: `${inSubFolder.url}/`, apiKey: inSubFolder.apiKey });

			expect(result.status).toBe('OK');
			expect(inSubFolder.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
				'GET /phprank/api/v1/account',
			]);
			expect(inSubFolder.requests[0].headers.authorization).toBe(`Bearer ${inSubFolder.apiKey}`);
		});

		it('fails with a refused key', async () => {
			const result = await testCredential('phpRankApi', { baseUrl: atRoot.url, apiKey: 'wrong' });

			expect(result).toEqual({
				status: 'Error',
				message: 'The API key was refused: copy it again from the API page of your phpRank account',
			});
			expect(atRoot.requests[0].status).toBe(401);
		});

		it.each([
			['a site without the API (404)', '/not-phprank', undefined],
			['a web page answering 200 with HTML', '', { path: '/api/v1/account', kind: 'html', status: 200 }],
			['a JSON answer that is not an account', '', { path: '/api/v1/account', kind: 'status', status: 200, body: { ok: true } }],
		] as const)('says the address is not a phpRank API for %s', async (_, pathSuffix, fault) => {
			if (fault) atRoot.injectFault(fault as Parameters<PhpRankServer['injectFault']>[0]);

			const result = await testCredential('phpRankApi', { baseUrl: `${atRoot.url}${pathSuffix}`, apiKey: atRoot.apiKey });

			expect(result.status).toBe('Error');
			expect(result.message).toMatch(/^This address is not a phpRank API: the Base URL must be the address of your phpRank installation/);
		});

		it('fails when the base URL leads to a redirect instead of the API', async () => {
			atRoot.injectFault({ path: '/api/v1/account', kind: 'redirectLogin' });

			const result = await testCredential('phpRankApi', { baseUrl: atRoot.url, apiKey: atRoot.apiKey });

			expect(result.status).toBe('Error');
			expect(result.message).toMatch(/^The API key was refused/);
			expect(atRoot.requests.map((request) => request.path)).toEqual(['/api/v1/account']);
		});
	});
});

/**
 * Every report item links to the report's page in phpRank, {Base URL}/reports/{id}, next to the privacy that says
 * who can open it: what an alert hands its reader.
 */
import type { IDataObject } from 'n8n-workflow';
import { createPoller, producedText } from '../../../../dev/engine';
import { byId, credentialsFor, runPhpRank, useServer } from '../../../support/phpRank';

const PASSWORD = 'pw-Link-0815';

// Installed in a sub-folder, as phpRank often is.
const server = useServer({ basePath: '/seo/phprank' }, (phpRank) => phpRank.seedReports(4));

const pageOf = (id: unknown) => `${server().url}/reports/${String(id)}`;

function expectLinkBesidePrivacy(report: IDataObject): void {
	expect(report.reportUrl).toBe(pageOf(report.id));
	const keys = Object.keys(report);
	expect(keys.indexOf('reportUrl')).toBe(keys.indexOf('privacy') + 1);
}

describe('the link to the report page', () => {
	it.each([
		['Report > Create', { operation: 'create', url: 'https://example.com/linked', privacy: 2, password: PASSWORD }],
		['Report > Create, Re-Analyze the Existing Report', { operation: 'create', url: 'https://example.com/linked', ifReportExists: 'reanalyzeExisting' }],
		['Report > Get', { operation: 'get', reportId: byId('2') }],
		['Report > Update', { operation: 'update', reportId: byId('2'), updateFields: { privacy: 2, password: PASSWORD }, options: { includePreviousScore: true } }],
		['Report > Get Many', { operation: 'getAll', returnAll: true }],
	])('%s: each item links to its page in the sub-folder install, beside its privacy, and holds no secret', async (_, parameters) => {
		const result = await runPhpRank(server(), { resource: 'report', ...parameters });
		const { items, error } = result;

		expect(error).toBeUndefined();
		expect(items.length).toBeGreaterThan(0);
		for (const item of items) expectLinkBesidePrivacy(item.json);
		expect(items.map((item) => item.json.reportUrl)).toEqual(items.map((item) => expect.stringMatching(/\/seo\/phprank\/reports\/\d+$/)));
		const text = producedText(result);
		expect(text).not.toContain(server().apiKey);
		expect(text).not.toContain(PASSWORD);
	});

	it.each([
		['with /api/v1 and trailing slashes', (url: string) => `${url}/api/v1//`],
		['with spaces around it', (url: string) => `  ${url}/ `],
	])('is the same for a Base URL typed %s', async (_, typed) => {
		const { items, error } = await runPhpRank(server(), { resource: 'report', operation: 'get', reportId: byId('3') }, {
			credentials: credentialsFor(server(), { baseUrl: typed(server().url) }),
		});

		expect(error).toBeUndefined();
		expect(items[0].json.reportUrl).toBe(pageOf(3));
	});

	it('is on what the trigger emits', async () => {
		const poller = createPoller({ parameters: { event: 'newReport' }, credentials: credentialsFor(server()) });
		await poller.poll();
		await runPhpRank(server(), { resource: 'report', operation: 'create', url: 'https://example.com/new-one' });

		const emitted = ((await poller.poll()) ?? [[]])[0].map((item) => item.json);

		expect(emitted).toHaveLength(1);
		expectLinkBesidePrivacy(emitted[0]);
	});
});

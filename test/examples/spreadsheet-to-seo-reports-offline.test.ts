import { readFileSync } from 'node:fs';
import path from 'node:path';

import { startPhpRankServer } from '../../dev/server';
import type { PhpRankServer } from '../../dev/server';
import { allowExampleFiles, EXAMPLES_DIR, loadExampleWorkflow, sourceIndex, spreadsheetRows } from '../../dev/examples';
import { runWorkflow } from '../../dev/engine';
import type { RunResult, WorkflowFixture } from '../../dev/engine';

const WORKFLOW_FILE = 'spreadsheet-to-seo-reports-offline.json';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const csvRows = spreadsheetRows();

allowExampleFiles();

let server: PhpRankServer;
let result: RunResult;

beforeAll(async () => {
	server = await startPhpRankServer();
	result = await runWorkflow(loadExampleWorkflow(WORKFLOW_FILE), {
		credentials: { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } },
	});
});
afterAll(async () => await server.close());

describe('examples/spreadsheet-to-seo-reports-offline.json', () => {
	it('is an editor export: uuids, the credential reference, wired connections, a relative file path', () => {
		const exported = JSON.parse(readFileSync(path.join(EXAMPLES_DIR, WORKFLOW_FILE), 'utf8')) as WorkflowFixture &
			Record<string, unknown>;
		const names = exported.nodes.map((node) => node.name);

		expect(exported).toMatchObject({ settings: { executionOrder: 'v1' }, pinData: {} });
		expect(typeof exported.name).toBe('string');
		expect(new Set(names).size).toBe(names.length);
		expect(new Set(exported.nodes.map((node) => node.id)).size).toBe(names.length);
		for (const node of exported.nodes) expect(node.id).toMatch(UUID);
		for (const [from, { main }] of Object.entries(exported.connections)) {
			expect(names).toContain(from);
			for (const target of main.flat()) expect(names).toContain(target?.node);
		}
		expect(exported.nodes.find((node) => node.type === 'n8n-nodes-phprank.phpRank')).toMatchObject({
			typeVersion: 1,
			parameters: { resource: 'report', operation: 'create', url: '={{ $json.url }}' },
			credentials: { phpRankApi: { id: 'phprank-demo', name: 'phpRank (bundled server)' } },
			onError: 'continueErrorOutput',
		});
		expect(exported.nodes.find((node) => node.type === 'n8n-nodes-base.readWriteFile')?.parameters.fileSelector).toBe(
			'examples/data/urls.csv',
		);
		expect(exported.nodes.some((node) => node.type === 'n8n-nodes-base.stickyNote')).toBe(true);
	});

	it('runs through every node without stopping', () => {
		expect(result.error).toBeUndefined();
		expect(result.run.status).toBe('success');
		expect(result.executedNodes).toEqual(
			expect.arrayContaining(['Read URL spreadsheet', 'Extract rows', 'Create SEO report', 'Grade is bad?', 'Build alert message', 'Unreachable pages']),
		);
	});

	it('sends one POST /api/v1/reports per spreadsheet row, with the row\'s URL, and nothing else', () => {
		expect(result.output('Extract rows').map((item) => item.json)).toEqual(csvRows);
		expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual(
			csvRows.map(() => 'POST /api/v1/reports'),
		);
		expect(server.requests.map((request) => request.body.url)).toEqual(csvRows.map((row) => row.url));
	});

	it('sends the unreachable row to the error output and reports every other row', () => {
		const failures = result.output('Create SEO report', 1);
		const unreachable = csvRows.filter((row) => new URL(row.url).hostname.endsWith('.invalid'));

		expect(unreachable).toHaveLength(1);
		expect(failures.map((item) => item.json.error)).toEqual([
			expect.stringContaining(`cURL error 6: Could not resolve host: ${new URL(unreachable[0].url).hostname}`),
		]);
		expect(result.output('Unreachable pages').map((item) => item.json)).toEqual(failures.map((item) => item.json));

		const reports = result.output('Create SEO report', 0);
		expect(reports.map(sourceIndex)).toEqual(
			csvRows.flatMap((row, index) => (unreachable.includes(row) ? [] : [index])),
		);
		expect(reports.map((item) => item.json.id)).toEqual(server.reports().map((report) => report.id));
	});

	it('holds a mix of grades, so every branch of the workflow has work', () => {
		const grades = result.output('Create SEO report', 0).map((item) => item.json.grade);

		expect(new Set(grades)).toEqual(new Set(['good', 'decent', 'bad']));
	});

	it('routes exactly the reports the server scored below 49 to the IF node\'s true branch', () => {
		const badIds = server
			.reports()
			.filter((report) => report.score < 49)
			.map((report) => report.id);
		const otherIds = server
			.reports()
			.filter((report) => report.score >= 49)
			.map((report) => report.id);

		expect(badIds.length).toBeGreaterThan(0);
		expect(result.output('Grade is bad?', 0).map((item) => item.json.id)).toEqual(badIds);
		expect(result.output('Grade is bad?', 0).map((item) => item.json.grade)).toEqual(badIds.map(() => 'bad'));
		expect(result.output('Grade is bad?', 1).map((item) => item.json.id)).toEqual(otherIds);
	});

	it('builds one alert message per bad report, its text and its score column showing the score phpRank stores', () => {
		const expected = server
			.reports()
			.filter((report) => report.result < 49)
			.map((report) => ({
				text: `SEO alert: ${report.url} scored ${report.result} (bad)`,
				url: report.url,
				score: report.result,
			}));

		expect(result.output('Build alert message').map((item) => item.json)).toEqual(expected);
	});
});

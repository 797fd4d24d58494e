import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startPhpRankServer } from '../../dev/server';
import type { PhpRankServer, RecordedRequest } from '../../dev/server';
import { parseReportTarget } from '../../dev/server/reportUrl';
import {
	allowExampleFiles,
	EXAMPLES_DIR,
	loadExampleWorkflow,
	readCsv,
	resultsRow,
	RESULTS_FILE,
	sourceIndex,
	spreadsheetRows,
} from '../../dev/examples';
import { runWorkflow } from '../../dev/engine';
import type { RunResult, WorkflowFixture } from '../../dev/engine';
import { failedCheckNamesOnServer } from '../support/phpRank';

const WORKFLOW_FILE = 'spreadsheet-to-seo-reports-offline.json';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const csvRows = spreadsheetRows();
const unreachable = csvRows.filter((row) => new URL(row.url).hostname.endsWith('.invalid'));
// The results file goes to a folder of this test's own instead of examples/data.
const outputFolder = mkdtempSync(path.join(os.tmpdir(), 'phprank-spreadsheet-'));
const resultsFile = path.join(outputFolder, RESULTS_FILE);

allowExampleFiles(outputFolder);

/**
 * An empty results file for the workflow to write over: n8n-core tells a missing file by `instanceof Error`, which
 * Node's own errors fail inside jest's sandbox, so a new file cannot be written from a test.
 */
const emptyResultsFile = () => writeFileSync(resultsFile, '');

let server: PhpRankServer;
let result: RunResult;
let firstRun: RecordedRequest[];
let firstRunFile: string;

beforeAll(async () => {
	server = await startPhpRankServer();
	emptyResultsFile();
	result = await runWorkflow(loadExampleWorkflow(WORKFLOW_FILE, { outputFolder }), {
		credentials: { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } },
	});
	firstRun = [...server.requests];
	firstRunFile = readFileSync(resultsFile, 'utf8');
});

/** The reports in the order of the rows they were created for. */
const inRowOrder = () =>
	result.output('Create SEO report', 0).map((item) => server.reports().find((report) => report.id === item.json.id)!);
afterAll(async () => {
	await server.close();
	rmSync(outputFolder, { recursive: true, force: true });
});

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
			parameters: { resource: 'report', operation: 'create', url: '={{ $json.url }}', ifReportExists: 'returnExisting' },
			credentials: { phpRankApi: { id: 'phprank-demo', name: 'phpRank (bundled server)' } },
			onError: 'continueErrorOutput',
		});
		const files = exported.nodes.filter((node) => node.type === 'n8n-nodes-base.readWriteFile').map((node) => node.parameters);
		expect(files).toEqual([
			{ operation: 'read', fileSelector: 'examples/data/urls.csv', options: {} },
			{ operation: 'write', fileName: `examples/data/${RESULTS_FILE}`, options: {} },
		]);
		expect(exported.nodes.some((node) => node.type === 'n8n-nodes-base.stickyNote')).toBe(true);
	});

	it('runs through every node without stopping', () => {
		expect(result.error).toBeUndefined();
		expect(result.run.status).toBe('success');
		expect(result.executedNodes).toEqual(
			expect.arrayContaining([
				'Read URL spreadsheet',
				'Extract rows',
				'Create SEO report',
				'Grade is bad?',
				'Build alert message',
				'Row with its report',
				'Row with its error',
				'All rows',
				'Convert to CSV',
				'Write results file',
			]),
		);
	});

	it('reads the reports of a site with several rows once, looks the other rows\' URLs up, then sends one POST /api/v1/reports a row, and nothing else', () => {
		expect(result.output('Extract rows').map((item) => item.json)).toEqual(csvRows);
		const reads = firstRun.filter((request) => request.method === 'GET');
		const creates = firstRun.filter((request) => request.method === 'POST');
		expect(firstRun).toHaveLength(reads.length + creates.length);
		expect(reads.every((request) => request.path === '/api/v1/reports')).toBe(true);
		const targets = csvRows.map((row) => parseReportTarget(row.url)!);
		const rowsOf = (project: string) => targets.filter((target) => target.project === project);
		const sites = [...new Set(targets.map((target) => target.project))];
		expect(reads.filter((request) => request.query.search === undefined).map((request) => request.query.project)).toEqual(
			sites.filter((site) => rowsOf(site).length > 1),
		);
		expect(reads.filter((request) => request.query.search !== undefined).map((request) => request.query.search).sort()).toEqual(
			sites.filter((site) => rowsOf(site).length === 1).map((site) => rowsOf(site)[0].url).sort(),
		);
		expect(creates.map((request) => request.path)).toEqual(csvRows.map(() => '/api/v1/reports'));
		expect(creates.map((request) => request.body.url).sort()).toEqual(csvRows.map((row) => row.url).sort());
	});

	it('sends the unreachable row to the error output, paired with its row, and reports every other row', () => {
		const failures = result.output('Create SEO report', 1);

		expect(unreachable).toHaveLength(1);
		expect(failures.map((item) => item.json.error)).toEqual([
			expect.stringContaining(`cURL error 6: Could not resolve host: ${new URL(unreachable[0].url).hostname}`),
		]);
		expect(failures.map(sourceIndex)).toEqual(unreachable.map((row) => csvRows.indexOf(row)));

		const reports = result.output('Create SEO report', 0);
		expect(reports.map(sourceIndex)).toEqual(
			csvRows.flatMap((row, index) => (unreachable.includes(row) ? [] : [index])),
		);
		// n8n sends the rows' requests at once: the server numbers the reports in arrival order.
		expect(reports.map((item) => item.json.id).sort()).toEqual(server.reports().map((report) => report.id).sort());
		expect(reports.map((item) => item.json.outcome)).toEqual(reports.map(() => 'created'));
	});

	it('holds a mix of grades, so every branch of the workflow has work', () => {
		const grades = result.output('Create SEO report', 0).map((item) => item.json.grade);

		expect(new Set(grades)).toEqual(new Set(['good', 'decent', 'bad']));
	});

	it('routes exactly the reports the server scored below 49 to the IF node\'s true branch', () => {
		// phpRank grades the score it stores, a whole number (48.57 is stored as 49: decent).
		const badIds = inRowOrder()
			.filter((report) => report.result < 49)
			.map((report) => report.id);
		const otherIds = inRowOrder()
			.filter((report) => report.result >= 49)
			.map((report) => report.id);

		expect(badIds.length).toBeGreaterThan(0);
		expect(result.output('Grade is bad?', 0).map((item) => item.json.id)).toEqual(badIds);
		expect(result.output('Grade is bad?', 0).map((item) => item.json.grade)).toEqual(badIds.map(() => 'bad'));
		expect(result.output('Grade is bad?', 1).map((item) => item.json.id)).toEqual(otherIds);
	});

	it('builds one alert message per bad report, with the score phpRank stores, the failed high-importance checks and the link to the report', () => {
		const expected = inRowOrder()
			.filter((report) => report.result < 49)
			.map((report) => ({
				text: `SEO alert: ${report.url} scored ${report.result} (bad). Failed high-importance checks: ${failedCheckNamesOnServer(report).high.join(', ') || 'none'}. Report: ${server.url}/reports/${report.id}`,
				url: report.url,
				score: report.result,
				reportUrl: `${server.url}/reports/${report.id}`,
			}));

		expect(expected.some((alert) => !alert.text.includes('checks: none.'))).toBe(true);
		expect(result.output('Build alert message').map((item) => item.json)).toEqual(expected);
	});

	it('writes every row back to the CSV file: score, grade, failed high-importance checks and link as phpRank holds them, or the error', () => {
		const reported = csvRows.filter((row) => !unreachable.includes(row));
		const reports = inRowOrder();
		const reportedRows = reported.map((row, index) => resultsRow(server, row.url, reports[index]));
		const expected = [
			...reportedRows,
			...unreachable.map((row) => ({
				...resultsRow(server, row.url),
				error: expect.stringContaining(`Could not resolve host: ${new URL(row.url).hostname}`),
			})),
		];

		expect(reports.map((report) => report.targetUrl.replace(/\/$/, ''))).toEqual(reported.map((row) => row.url.replace(/\/$/, '')));
		expect(reportedRows.some((row) => row.failedHighChecks.includes(', '))).toBe(true);
		expect(readCsv(resultsFile)).toEqual(expected);
	});

	it('writes the file when no row fails too: the merge of the two branches does not wait for the empty one', async () => {
		const reachable = csvRows.filter((row) => !unreachable.includes(row)).slice(0, 2);
		const input = path.join(outputFolder, 'reachable.csv');
		writeFileSync(input, ['url,owner', ...reachable.map((row) => `${row.url},${row.owner}`)].join('\n'));
		const workflow = loadExampleWorkflow(WORKFLOW_FILE, { outputFolder });
		workflow.nodes.find((node) => node.name === 'Read URL spreadsheet')!.parameters.fileSelector = input;
		emptyResultsFile();

		const run = await runWorkflow(workflow, { credentials: { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } } });

		expect(run.error).toBeUndefined();
		expect(run.executedNodes).not.toContain('Row with its error');
		const reports = run.output('Create SEO report', 0).map((item) => server.reports().find((report) => report.id === item.json.id));
		expect(readCsv(resultsFile)).toEqual(reachable.map((row, index) => resultsRow(server, row.url, reports[index])));
	});

	it('creates nothing when run again: the same reads, each report returned as it is', async () => {
		const reportsBefore = server.reports();
		server.clearRequests();

		emptyResultsFile();

		const again = await runWorkflow(loadExampleWorkflow(WORKFLOW_FILE, { outputFolder }), {
			credentials: { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } },
		});

		expect(again.error).toBeUndefined();
		// Only the page phpRank cannot fetch is tried again, and refused again.
		const posts = server.requests.filter((request) => request.method === 'POST');
		expect(posts.map((request) => [request.body.url, request.status])).toEqual(unreachable.map((row) => [row.url, 422]));
		const reads = (requests: typeof server.requests) =>
			requests.filter((request) => request.method === 'GET').map((request) => request.rawQuery).sort();
		expect(reads(server.requests)).toEqual(reads(firstRun));
		expect(server.requests).toHaveLength(reads(firstRun).length + unreachable.length);
		expect(server.reports()).toEqual(reportsBefore);
		const reports = again.output('Create SEO report', 0);
		expect(reports.map((item) => [item.json.id, item.json.outcome])).toEqual(
			result.output('Create SEO report', 0).map((item) => [item.json.id, 'existing']),
		);
		expect(again.output('Build alert message').map((item) => item.json)).toEqual(result.output('Build alert message').map((item) => item.json));
		expect(again.output('Row with its error')).toHaveLength(unreachable.length);
		expect(readFileSync(resultsFile, 'utf8')).toBe(firstRunFile);
	});
});

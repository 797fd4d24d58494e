import { readFileSync } from 'node:fs';
import path from 'node:path';

import { startPhpRankServer } from '../../dev/server';
import type { PhpRankServer, ReportState } from '../../dev/server';
import { EXAMPLES_DIR, loadExampleWorkflow, seedReportsWithChangedPages } from '../../dev/examples';
import { runWorkflow } from '../../dev/engine';
import type { RunResult, WorkflowFixture } from '../../dev/engine';
import { changedChecksOnServer, failedChecksOnServer } from '../support/phpRank';

const WORKFLOW_FILE = 'scheduled-reanalysis-offline.json';
const GRADES = ['bad', 'decent', 'good'];

const gradeOf = (score: number) => (score > 79 ? 'good' : score >= 49 ? 'decent' : 'bad');

let server: PhpRankServer;
let before: ReportState[];
let result: RunResult;

beforeAll(async () => {
	server = await startPhpRankServer();
	seedReportsWithChangedPages(server);
	before = server.reports();
	result = await runWorkflow(loadExampleWorkflow(WORKFLOW_FILE), {
		credentials: { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } },
	});
});
afterAll(async () => await server.close());

const after = (id: unknown) => server.reports().find((report) => report.id === id)!;
const previous = (id: unknown) => before.find((report) => report.id === id)!;
const newestFirst = () => [...before].sort((a, b) => b.id - a.id);
const gradeGotWorse = (report: ReportState) => GRADES.indexOf(gradeOf(after(report.id).result)) < GRADES.indexOf(gradeOf(report.result));
const changedChecks = (report: ReportState) => changedChecksOnServer(report, after(report.id));
const newlyFailsHigh = (report: ReportState) => changedChecks(report).newlyFailedChecks.high.length > 0;
const reportUrl = (id: unknown) => `${server.url}/reports/${String(id)}`;
const names = (list: string[]) => list.join(', ') || 'none';

/** The alert for a report, from the server's state before and after the re-analysis. */
function alertText(report: ReportState): string {
	const now = after(report.id);
	const { newlyFailedCheckNames: newlyFailed, fixedCheckNames: fixedChecks } = changedChecks(report);
	const change = now.result - report.result;
	const fixed = [...fixedChecks.high, ...fixedChecks.medium, ...fixedChecks.low];
	return (
		`SEO alert: ${report.url} got worse: ${report.result} → ${now.result}/100 (${change > 0 ? '+' : ''}${change}, ${gradeOf(report.result)} → ${gradeOf(now.result)}). ` +
		`Newly failing checks: high: ${names(newlyFailed.high)}; medium: ${names(newlyFailed.medium)}; low: ${names(newlyFailed.low)}.` +
		(fixed.length ? ` Fixed: ${fixed.join(', ')}.` : '') +
		` Report: ${reportUrl(report.id)}`
	);
}

describe('examples/scheduled-reanalysis-offline.json', () => {
	it('is the offline variant of the Slack example: the same phpRank nodes, a manual trigger, the message text at the end', () => {
		const read = (file: string) => JSON.parse(readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as WorkflowFixture;
		const offline = read(WORKFLOW_FILE);
		const slack = read('scheduled-reanalysis-slack.json');
		const phpRankNodes = (workflow: WorkflowFixture) =>
			workflow.nodes.filter((node) => node.type.startsWith('n8n-nodes-phprank.')).map(({ name, parameters, onError }) => ({ name, parameters, onError }));

		expect(phpRankNodes(offline)).toEqual(phpRankNodes(slack));
		expect(phpRankNodes(offline)).toEqual([
			expect.objectContaining({ parameters: expect.objectContaining({ operation: 'getAll', returnAll: true, options: { includeResults: false } }) }),
			expect.objectContaining({
				parameters: expect.objectContaining({
					operation: 'reanalyze',
					options: { includePreviousScore: true, includeResults: false },
				}),
			}),
		]);
		expect(offline.nodes.map((node) => node.type)).toContain('n8n-nodes-base.manualTrigger');
		expect(slack.nodes.find((node) => node.type === 'n8n-nodes-base.scheduleTrigger')?.parameters).toEqual({
			rule: { interval: [{ field: 'weeks', triggerAtDay: [1], triggerAtHour: 7 }] },
		});
		// The same test, and the same message but for its start and how the link is written.
		const condition = (workflow: WorkflowFixture) => {
			const { conditions, combinator } = workflow.nodes.find((node) => node.name === 'Got worse?')?.parameters.conditions as {
				conditions: Array<{ id: string }>;
				combinator: string;
			};
			return { combinator, conditions: conditions.map(({ id: _id, ...rest }) => rest) };
		};
		expect(condition(slack)).toEqual(condition(offline));
		expect(condition(offline).combinator).toBe('or');
		const offlineText = (offline.nodes.find((node) => node.name === 'Build alert message')?.parameters.assignments as {
			assignments: Array<{ name: string; value: string }>;
		}).assignments.find((assignment) => assignment.name === 'text')!.value;
		// Slack's text escapes what it takes from phpRank (&, <, >); the offline file keeps it as it is.
		const slackText = String(slack.nodes.find((node) => node.type === 'n8n-nodes-base.slack')?.parameters.text)
			.replaceAll(".replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')", '')
			.replace(/String\((\$json\.\w+)\)/g, '$1');
		expect(slackText.replace(/^=:chart_with_downwards_trend: /, '').replace(/ <\{\{ \$json\.reportUrl\.replace\([^}]*\}\}\|[^>]*>$/, '')).toBe(
			offlineText.replace(/^=SEO alert: /, '').replace(/ Report: \{\{ \$json\.reportUrl \}\}$/, ''),
		);
	});

	it('runs through every node without stopping', () => {
		expect(result.error).toBeUndefined();
		expect(result.run.status).toBe('success');
		expect(result.executedNodes).toEqual(
			expect.arrayContaining(['Get all reports', 'Re-analyze report', 'Got worse?', 'Build alert message']),
		);
	});

	it('lists every report in one request, then reads and re-analyzes each: two requests a report', () => {
		const lines = server.requests.map((request) => `${request.method} ${request.rawPath}`);

		expect(lines[0]).toBe('GET /api/v1/reports');
		expect(server.requests[0].query).toEqual({ per_page: '100', page: '1' });
		expect(lines.slice(1).sort()).toEqual(before.flatMap((report) => [`GET /api/v1/reports/${report.id}`, `PUT /api/v1/reports/${report.id}`]).sort());
		for (const report of before) {
			const own = server.requests.filter((request) => request.rawPath === `/api/v1/reports/${report.id}`);
			expect(own.map((request) => request.method)).toEqual(['GET', 'PUT']);
			expect(own[1].body).toEqual({ results: '1' });
		}
	});

	it('outputs each report with its score before and after the re-analysis, the checks it fails, those that changed and its link', () => {
		const reanalyzed = result.output('Re-analyze report');

		expect(reanalyzed.map((item) => item.json.id)).toEqual(newestFirst().map((report) => report.id));
		for (const { json } of reanalyzed) {
			expect(json).toMatchObject({
				result: after(json.id).result,
				previousResult: previous(json.id).result,
				previousGrade: gradeOf(previous(json.id).result),
				resultChange: after(json.id).result - previous(json.id).result,
				failedChecks: failedChecksOnServer(after(json.id)),
				...changedChecks(previous(json.id)),
				reportUrl: reportUrl(json.id),
			});
			expect(json).not.toHaveProperty('results');
		}
		expect(reanalyzed.some((item) => (item.json.resultChange as number) > 0)).toBe(true);
		expect(reanalyzed.some((item) => item.json.resultChange === 0)).toBe(true);
		expect(reanalyzed.some((item) => Object.values(item.json.fixedChecks as object).flat().length > 0)).toBe(true);
	});

	it('alerts exactly the reports whose grade got worse or that newly fail a high-importance check, with the scores, the changed checks and the link', () => {
		const alerted = newestFirst().filter((report) => gradeGotWorse(report) || newlyFailsHigh(report));

		// Both reasons occur: a grade that dropped, and a grade that held while a high-importance check newly fails.
		expect(alerted.filter(gradeGotWorse).length).toBeGreaterThan(1);
		expect(alerted.filter((report) => !gradeGotWorse(report) && newlyFailsHigh(report)).length).toBeGreaterThan(0);
		expect(result.output('Got worse?', 0).map((item) => item.json.id)).toEqual(alerted.map((report) => report.id));
		expect(result.output('Build alert message').map((item) => item.json)).toEqual(
			alerted.map((report) => ({
				text: alertText(report),
				url: report.url,
				previousScore: report.result,
				score: after(report.id).result,
				reportUrl: reportUrl(report.id),
			})),
		);
		expect(result.output('Could not re-analyze')).toEqual([]);
	});
});

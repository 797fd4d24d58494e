/**
 * `npm run demo`: runs examples/spreadsheet-to-seo-reports-offline.json in n8n's execution engine
 * against the bundled phpRank-compatible server and prints what it did, row by row, then runs it again
 * to show that the second run creates nothing, and shows the CSV file it wrote the results into. Then two of the pages change on the server, and
 * examples/scheduled-reanalysis-offline.json re-analyzes every report and prints its alerts: the checks that
 * newly fail, the score change and the link. Last, examples/site-audit-offline.json audits the bundled audit site
 * (dev/server/auditSite.ts: broken links, an orphan, a redirect, a chain four clicks deep) three times: right after
 * the first run every page is fresh and nothing is analyzed; a week later a page has changed, its report is
 * re-analyzed, and the summary lists the checks it newly fails; each run is kept in n8n's Data tables (in memory
 * here), printed at the end. Offline: no build step, no n8n instance, no network beyond 127.0.0.1.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { startAuditSite, startPhpRankServer } from '../dev/server';
import { runWorkflow } from '../dev/engine';
import { allowExampleFiles, AUDIT_HISTORY_TABLES, auditHistoryTables, loadExampleWorkflow, qualityLosingAHighCheckOnly, RESULTS_FILE, sourceIndex } from '../dev/examples';

const WORKFLOW_FILE = 'spreadsheet-to-seo-reports-offline.json';
const REANALYSIS_FILE = 'scheduled-reanalysis-offline.json';
const SITE_AUDIT_FILE = 'site-audit-offline.json';
const CHANGED_SITE_PATH = '/about.html';
const WEEK_SECONDS = 7 * 86_400;
const ROWS_NODE = 'Extract rows';
const REPORT_NODE = 'Create SEO report';
const ALERT_NODE = 'Build alert message';

interface RowOutcome {
	url: string;
	owner: string;
	report?: IDataObject;
	error?: string;
}

/** The spreadsheet rows, each with the report created for it or the error it failed with. */
function outcomes(rows: INodeExecutionData[], reports: INodeExecutionData[], failures: INodeExecutionData[]): RowOutcome[] {
	const byRow: RowOutcome[] = rows.map(({ json }) => ({ url: String(json.url ?? ''), owner: String(json.owner ?? '') }));
	const rowOf = (item: INodeExecutionData): RowOutcome => {
		// Items on the error output carry the failed item's index on the error, not always as pairedItem.
		const index = sourceIndex(item) ?? (item.error?.context?.itemIndex as number | undefined);
		const row = index === undefined ? undefined : byRow[index];
		if (!row) throw new Error(`"${REPORT_NODE}" emitted an item that matches no spreadsheet row`);
		return row;
	};
	for (const item of reports) rowOf(item).report = item.json;
	for (const item of failures) rowOf(item).error = String(item.json.error ?? item.error?.message ?? 'unknown error');
	return byRow;
}

function table(header: string[], lines: string[][], rightAligned: number[]): string {
	const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column].length)));
	const render = (cells: string[]) =>
		cells
			.map((cell, column) =>
				column === cells.length - 1 ? cell : rightAligned.includes(column) ? cell.padStart(widths[column]) : cell.padEnd(widths[column]),
			)
			.join('  ')
			.trimEnd();
	return [header, ...lines].map(render).join('\n');
}

const count = <T>(list: T[], matches: (entry: T) => boolean): number => list.filter(matches).length;

const counted = (number: number, noun: string): string => `${number} ${noun}${number === 1 ? '' : 's'}`;
const indented = (lines: string[]): string => (lines.length ? lines.map((text) => `  ${text}`).join('\n') : '  none');
const cut = (text: string, width: number): string => (text.length > width ? `${text.slice(0, width - 1)}…` : text);

async function main(): Promise<void> {
	// The results file goes to a temporary folder rather than examples/data.
	const outputFolder = mkdtempSync(path.join(os.tmpdir(), 'phprank-demo-'));
	allowExampleFiles(outputFolder);
	const server = await startPhpRankServer({ host: '127.0.0.1', port: 0 });
	// n8n's Data tables, kept across the runs as n8n keeps them: the site audit writes its history there.
	const site = await startAuditSite();
	const dataTables = auditHistoryTables();
	const run = async (file: string) =>
		await runWorkflow(loadExampleWorkflow(file, { server, site, outputFolder }), { credentials: { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } }, dataTables });
	try {
		console.log(`Running examples/${WORKFLOW_FILE} in n8n's engine against the bundled phpRank server at ${server.url}\n`);

		const result = await run(WORKFLOW_FILE);
		if (result.error) {
			const failedNode = result.run.data.resultData.lastNodeExecuted ?? 'a node';
			throw new Error(`the workflow stopped at "${failedNode}": ${result.error.message}`);
		}

		const rows = outcomes(result.output(ROWS_NODE), result.output(REPORT_NODE, 0), result.output(REPORT_NODE, 1));
		if (rows.length === 0) throw new Error(`"${ROWS_NODE}" read no rows from the spreadsheet`);
		const unanswered = rows.findIndex((row) => !row.report && !row.error);
		if (unanswered !== -1) throw new Error(`row ${unanswered + 1} (${rows[unanswered].url}) got neither a report nor an error`);

		console.log(
			table(
				['#', 'URL', 'Owner', 'Score', 'Grade', 'Failed checks (high)', 'Report page'],
				rows.map(({ url, owner, report, error }, index) => [
					String(index + 1),
					url,
					owner,
					report ? String(report.result) : '-',
					report ? String(report.grade) : 'failed',
					report ? String((report.failedChecks as { high: string[] }).high.length) : '-',
					report ? String(report.reportUrl) : `error: ${error}`,
				]),
				[0, 3, 5],
			),
		);

		const alerts = result.output(ALERT_NODE).map(({ json }) => String(json.text));
		console.log(`\nBad grades (${alerts.length}):`);
		console.log(indented(alerts));

		console.log(
			`\n${rows.length} rows, ${count(rows, (row) => !!row.report)} reports created, ` +
				`${count(rows, (row) => row.report?.grade === 'bad')} bad, ${count(rows, (row) => !!row.error)} failed; ` +
				`the server received ${server.requests.length} API requests.`,
		);

		const written = readFileSync(path.join(outputFolder, RESULTS_FILE), 'utf8').replace(/^\uFEFF/, '').trim().split('\n');
		console.log(`\nWritten back to ${RESULTS_FILE} (examples/data/ in n8n; a Google Sheet's rows in the online variant):`);
		console.log(indented(written.map((line) => cut(line, 110))));

		const requestsBefore = server.requests.length;
		const outcomesAgain = (await run(WORKFLOW_FILE)).output(REPORT_NODE, 0).map(({ json }) => String(json.outcome));
		const sentAgain = server.requests.slice(requestsBefore);
		const reads = sentAgain.filter((request) => request.method === 'GET');
		const lookups = count(reads, (request) => request.query.search !== undefined);
		const readSites = [...new Set(reads.filter((request) => request.query.search === undefined).map((request) => request.query.project))];
		const creates = sentAgain.filter((request) => request.method === 'POST');
		console.log(
			`\nRun again: ${count(outcomesAgain, (outcome) => outcome === 'existing')} existing reports returned, ` +
				`${count(outcomesAgain, (outcome) => outcome === 'created')} created. The server received ` +
				`${counted(reads.length - lookups, "read")} of a whole site's reports (${readSites.join(', ')}: more than one row), ` +
				`${counted(lookups, 'lookup')} of a single URL (a site with one row) and ${counted(creates.length, 'create')}, of which ` +
				`${count(creates, (request) => request.status === 201)} made a report (only the pages that failed are tried again).`,
		);

		// Two pages change: the best one gets a good deal worse, another graded above bad just enough to fail one more
		// high-importance check while keeping its grade. Both reasons for a re-analysis alert.
		const reports = server.reports();
		const best = reports.reduce((top, report) => (report.result > top.result ? report : top));
		server.changePage(best.url, { quality: 0.7 });
		const changed = [best.url];
		for (const report of reports.filter((candidate) => candidate !== best && candidate.result >= 49)) {
			const quality = qualityLosingAHighCheckOnly(report.targetUrl, report.result);
			if (quality === undefined) continue;
			server.changePage(report.url, { quality });
			changed.push(report.url);
			break;
		}
		console.log(`\nThe pages ${changed.join(' and ')} change. Running examples/${REANALYSIS_FILE}:`);
		const reanalysis = await run(REANALYSIS_FILE);
		if (reanalysis.error) throw new Error(`the re-analysis stopped: ${reanalysis.error.message}`);
		const reanalysisAlerts = reanalysis.output(ALERT_NODE).map(({ json }) => String(json.text));
		console.log(
			`${reanalysis.output('Re-analyze report').length} reports re-analyzed; grade got worse or a high-importance check newly fails (${reanalysisAlerts.length}):`,
		);
		console.log(indented(reanalysisAlerts));

		const audit = async () => {
			const before = server.requests.length;
			const result = await run(SITE_AUDIT_FILE);
			if (result.error) throw new Error(`the site audit stopped at "${result.run.data.resultData.lastNodeExecuted ?? 'a node'}": ${result.error.message}`);
			const outcomes = result.output('Audit site').map(({ json }) => String(json.outcome));
			const sent = server.requests.slice(before);
			const counts = [...new Set(outcomes)].map((outcome) => `${count(outcomes, (entry) => entry === outcome)} ${outcome}`).join(', ');
			console.log(`${outcomes.length} URLs found: ${counts}; phpRank received ${count(sent, (request) => request.path.startsWith('/api/'))} API requests. The summary:`);
			console.log(indented(result.output('Build summary').flatMap(({ json }) => String(json.text).split('\n'))));
		};
		const siteRequests = site.requests.length;
		console.log(`\nRunning examples/${SITE_AUDIT_FILE}: Site > Audit of the bundled audit site ${site.url}/, from its sitemap and links.`);
		await audit();
		console.log(`(${site.requests.length - siteRequests} requests to the site.)`);
		console.log('\nThe same audit again, right away: every report is fresh (analyzed within 6 days).');
		await audit();
		const changedPage = `${site.url}${CHANGED_SITE_PATH}`;
		server.ageReports(
			server.reports().map((report) => report.id),
			WEEK_SECONDS,
		);
		server.changePage(changedPage, { quality: 0 });
		console.log(`\nA week later (the server makes every report 7 days older), the page ${changedPage} has changed. The weekly audit:`);
		await audit();

		const pageRows = dataTables.rows(AUDIT_HISTORY_TABLES.pages.name);
		console.log(`\nThe history the audits kept in n8n's Data tables: ${pageRows.length} rows in ${AUDIT_HISTORY_TABLES.pages.name} (one per URL found and run), and in ${AUDIT_HISTORY_TABLES.runs.name}:`);
		console.log(
			table(
				['Run', 'Site', 'Pages', 'Average', 'Good', 'Decent', 'Bad', 'Not analyzed'],
				dataTables.rows(AUDIT_HISTORY_TABLES.runs.name).map((row) =>
					[row.runId, row.site, row.pages, row.averageScore, row.good, row.decent, row.bad, row.notAnalyzed].map((value) => String(value)),
				),
				[2, 3, 4, 5, 6, 7],
			),
		);
		const changedRows = pageRows.filter((row) => row.url === changedPage);
		console.log(`${changedPage} over the runs: ${changedRows.map((row) => `${String(row.score)} (${String(row.grade)})`).join(' → ')}, report ${String(changedRows.at(-1)?.reportUrl)}`);
	} finally {
		await Promise.all([server.close(), site.close()]);
		rmSync(outputFolder, { recursive: true, force: true });
	}
}

main().catch((error: unknown) => {
	console.error(`\nDemo failed: ${error instanceof Error ? error.message : String(error)}`);
	process.exit(1);
});

import { loadExampleWorkflow, slackMessagesAsItems } from '../../dev/examples';
import { runWorkflow } from '../../dev/engine';

/**
 * What the Slack examples post, their Slack nodes' Text expressions evaluated in n8n's engine on values from a page
 * or phpRank that Slack's message formatting reads as markup (`&`, `<`, `>`): each must arrive as written.
 */
const HOSTILE_URL = 'https://shop.example/?a=1&b=<x>';
const SHOWN_URL = 'https://shop.example/?a=1&amp;b=&lt;x&gt;';
const REPORT_URL = 'https://phprank.example/reports/7?from=a&to=<b>|c';
const LINKED_REPORT = '<https://phprank.example/reports/7?from=a&amp;to=&lt;b&gt;%7Cc|Report #7 in phpRank>';

/** The example run from `start`, that node's output pinned to `items`; the text each Slack node would post. */
async function posted(file: string, start: string, items: Array<Record<string, unknown>>): Promise<Array<{ channel: string; text: string }>> {
	const workflow = slackMessagesAsItems(loadExampleWorkflow(file));
	const result = await runWorkflow({ ...workflow, pinData: { [start]: items.map((json) => ({ json })) } }, { startNode: start });
	expect(result.error).toBeUndefined();
	const slack = loadExampleWorkflow(file).nodes.filter((node) => node.type === 'n8n-nodes-base.slack');
	return slack.flatMap((node) => result.output(node.name).map((item) => item.json as { channel: string; text: string }));
}

/** Slack's three control characters outside `<…>` markup: none may be left unescaped. */
const unescaped = (text: string) => text.replace(/<https?:[^<>\s]*\|[^<>]*>/g, '').replace(/&(amp|lt|gt);/g, '').match(/[&<>]/g) ?? [];

describe('the Slack examples escape what they post', () => {
	it('new-bad-report-to-slack: the page URL and the report link', async () => {
		const [message] = await posted('new-bad-report-to-slack.json', 'New bad report', [{ id: 7, url: HOSTILE_URL, result: 31, grade: 'bad', reportUrl: REPORT_URL }]);

		expect(message).toEqual({ channel: '#seo-alerts', text: `:warning: New SEO report for ${SHOWN_URL} scored 31 (bad): ${LINKED_REPORT}` });
		expect(unescaped(message.text)).toEqual([]);
	});

	it('scheduled-reanalysis-slack: the page URL, the check names and the report link', async () => {
		const names = (high: string[]) => ({ high, medium: ['Mixed <content> & co'], low: [] });
		const [message] = await posted('scheduled-reanalysis-slack.json', 'Re-analyze report', [
			{ id: 7, url: HOSTILE_URL, result: 40, previousResult: 70, resultChange: -30, grade: 'bad', previousGrade: 'decent', newlyFailedChecks: { high: ['title'] }, newlyFailedCheckNames: names(['Title']), fixedCheckNames: { high: [], medium: [], low: ['A & B'] }, reportUrl: REPORT_URL },
		]);

		expect(message.text).toBe(
			`:chart_with_downwards_trend: ${SHOWN_URL} got worse: 70 \u2192 40/100 (-30, decent \u2192 bad). Newly failing checks: high: Title; medium: Mixed &lt;content&gt; &amp; co; low: none. Fixed: A &amp; B. ${LINKED_REPORT}`,
		);
		expect(unescaped(message.text)).toEqual([]);
	});

	it('spreadsheet-to-seo-reports-slack: the URL from the sheet, the failed checks and the report link', async () => {
		const [message] = await posted('spreadsheet-to-seo-reports-slack.json', 'Grade is bad?', [
			{ id: 7, url: HOSTILE_URL, result: 31, grade: 'bad', failedCheckNames: { high: ['Title', '<New> & check'] }, reportUrl: REPORT_URL },
		]);

		expect(message.text).toBe(`:warning: SEO alert: ${SHOWN_URL} scored 31/100 (grade: bad). Failed high-importance checks: Title, &lt;New&gt; &amp; check. ${LINKED_REPORT}`);
		expect(unescaped(message.text)).toEqual([]);
	});

	it('project-digest-slack: the project names', async () => {
		const [message] = await posted('project-digest-slack.json', 'Get all projects', [
			{ project: 'shop.example', reports: 3, averageResult: 71.5 },
			{ project: 'Tom & Jerry <b>shop</b>', reports: 1, averageResult: 40 },
		]);

		expect(message.text).toBe(
			'*phpRank weekly digest*: 2 projects, 4 reports. Lowest average score first:\n\u2022 Tom &amp; Jerry &lt;b&gt;shop&lt;/b&gt;: 40/100 on average over 1 report\n\u2022 shop.example: 71.5/100 on average over 3 reports',
		);
		expect(unescaped(message.text)).toEqual([]);
	});
});

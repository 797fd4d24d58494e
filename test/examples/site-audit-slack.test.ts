import { startPhpRankServer } from '../../dev/server';
import type { PhpRankServer } from '../../dev/server';
import { auditHistoryTables, loadExampleWorkflow, slackMessagesAsItems } from '../../dev/examples';
import { runWorkflow } from '../../dev/engine';
import type { WorkflowFixture } from '../../dev/engine';

const WORKFLOW_FILE = 'site-audit-slack.json';
const TRIGGER = 'Every Monday at 06:00';
const SLACK = 'Post the summary';
/** URLs phpRank stores as sent (it refuses `"<>` in a URL): `&` in the query, `<>` percent-encoded. */
const BROKEN = 'https://www.brewshop.example/search?a=1&b=2';
const LINKING = 'https://www.brewshop.example/find?q=%3Cb%3E&page=2';
/** An anchor text as a page has it: `&`, `<` and `>` a Slack message would read as markup. */
const ANCHOR = 'Tea & <b>cakes</b> <!channel>';

let server: PhpRankServer;

beforeAll(async () => {
	server = await startPhpRankServer();
});
afterAll(async () => await server.close());

/**
 * The example with its Slack node turned into a node that outputs the message's text as the Slack node sends it, and
 * what `pinned` gives as the named nodes' output.
 */
function slackExample(pinned: Record<string, Array<Record<string, unknown>>>): WorkflowFixture {
	const workflow = slackMessagesAsItems(loadExampleWorkflow(WORKFLOW_FILE, { server }));
	return { ...workflow, pinData: { [TRIGGER]: [{ timestamp: '2026-11-30T06:00:00.000+00:00' }], ...pinned } };
}

const slackEscaped = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

describe('examples/site-audit-slack.json', () => {
	it("posts the summary with `&`, `<` and `>` escaped as Slack's message formatting wants them: URLs and anchor texts show as written", async () => {
		// What Site > Audit outputs for a broken link of www.example.com, the site the example audits until set up.
		const audited = [
			{ url: BROKEN, outcome: 'broken', reason: null, status: 404, depth: 1, foundIn: ['links'], inlinks: 1, linkedFrom: [{ url: LINKING, text: ANCHOR }], redirectsTo: null, orphan: false },
		];
		const result = await runWorkflow(slackExample({ 'Audit site': audited }), { dataTables: auditHistoryTables() });

		expect(result.error).toBeUndefined();
		const summary = String(result.output('Build summary')[0].json.text);
		const posted = String(result.output(SLACK)[0].json.text);
		expect(result.output('Build summary').map((item) => item.json.site)).toEqual(['example.com']);
		expect(summary).toContain(`*Broken links*\n• ${BROKEN} (404) linked from ${LINKING} "${ANCHOR}"\n`);
		expect(posted).toBe(slackEscaped(summary));
		expect(posted).toContain('• https://www.brewshop.example/search?a=1&amp;b=2 (404) linked from https://www.brewshop.example/find?q=%3Cb%3E&amp;page=2 "Tea &amp; &lt;b&gt;cakes&lt;/b&gt; &lt;!channel&gt;"');
		// Slack reads every `&` left as the start of an entity.
		expect(posted.replaceAll(/&(amp|lt|gt);/g, '')).not.toMatch(/[&<>]/);
	});

	it('escapes a site name with `<` and `>` too, so Slack shows it as text and not as a link or mention', async () => {
		const text = '*SEO audit of <Shop & Co>*: 1 URL found\n• https://shop.example/?a=1&b=2: 40/100 (bad) <https://phprank.example/reports/1|x>';
		// From the summary on: the message as Build summary made it.
		const result = await runWorkflow(slackExample({ 'Build summary': [{ site: '<Shop & Co>', text }] }), { startNode: 'Build summary' });

		expect(result.error).toBeUndefined();
		expect(result.output(SLACK).map((item) => item.json.text)).toEqual([
			'*SEO audit of &lt;Shop &amp; Co&gt;*: 1 URL found\n• https://shop.example/?a=1&amp;b=2: 40/100 (bad) &lt;https://phprank.example/reports/1|x&gt;',
		]);
	});
});

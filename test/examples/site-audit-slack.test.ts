import { startPhpRankServer } from '../../dev/server';
import type { PhpRankServer } from '../../dev/server';
import { SITE_INDEX_FILE } from '../../dev/server/site';
import { auditHistoryTables, loadExampleWorkflow, slackMessagesAsItems } from '../../dev/examples';
import { runWorkflow } from '../../dev/engine';
import type { WorkflowFixture } from '../../dev/engine';

const WORKFLOW_FILE = 'site-audit-slack.json';
const TRIGGER = 'Every Monday at 06:00';
const SLACK = 'Post the summary';
/** URLs phpRank stores as sent (it refuses `"<>` in a URL): `&` in the query, `<>` percent-encoded. */
const PAGES = ['https://www.brewshop.example/search?a=1&b=2', 'https://www.brewshop.example/find?q=%3Cb%3E&page=2'];

let server: PhpRankServer;

beforeAll(async () => {
	server = await startPhpRankServer();
});
afterAll(async () => await server.close());

/**
 * The example with its Slack node turned into a node that outputs the message's text as the Slack node sends it,
 * the bundled server's sitemap to audit, and what `pinned` gives as the named nodes' output.
 */
function slackExample(pinned: Record<string, Array<Record<string, unknown>>>): WorkflowFixture {
	const workflow = slackMessagesAsItems(loadExampleWorkflow(WORKFLOW_FILE, { server }));
	const nodes = workflow.nodes.map((node) => {
		if (node.name !== 'Sitemap to audit') return node;
		return JSON.parse(JSON.stringify(node).replace('https://www.example.com/sitemap.xml', `${server.url}/__site/${SITE_INDEX_FILE}`)) as typeof node;
	});
	return { ...workflow, nodes, pinData: { [TRIGGER]: [{ timestamp: '2026-11-30T06:00:00.000+00:00' }], ...pinned } };
}

const slackEscaped = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

describe('examples/site-audit-slack.json', () => {
	it("posts the summary with `&`, `<` and `>` escaped as Slack's message formatting wants them: page URLs with `&` show as written", async () => {
		server.reset();
		const result = await runWorkflow(slackExample({ 'Its page URLs': [{ url: PAGES }] }), {
			credentials: { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } },
			dataTables: auditHistoryTables(),
		});

		expect(result.error).toBeUndefined();
		expect(server.reports().map((report) => report.targetUrl).sort()).toEqual([...PAGES].sort());
		const summary = String(result.output('Build summary')[0].json.text);
		const posted = String(result.output(SLACK)[0].json.text);
		expect(summary).toContain(`• ${PAGES[0]}: `);
		expect(posted).toBe(slackEscaped(summary));
		expect(posted).toContain('• https://www.brewshop.example/search?a=1&amp;b=2: ');
		expect(posted).toContain('• https://www.brewshop.example/find?q=%3Cb%3E&amp;page=2: ');
		// Slack reads every `&` left as the start of an entity.
		expect(posted.replaceAll(/&(amp|lt|gt);/g, '')).not.toMatch(/[&<>]/);
	});

	it('escapes a site name or page title with `<` and `>` too, so Slack shows it as text and not as a link or mention', async () => {
		const text = '*SEO audit of <Shop & Co>*: 1 pages\n• https://shop.example/?a=1&b=2: 40/100 (bad) <https://phprank.example/reports/1|x>';
		const workflow = slackExample({ 'Build summary': [{ site: '<Shop & Co>', text }] });
		// From the summary on: the message as Build summary made it.
		const result = await runWorkflow(workflow, { startNode: 'Build summary' });

		expect(result.error).toBeUndefined();
		expect(result.output(SLACK).map((item) => item.json.text)).toEqual([
			'*SEO audit of &lt;Shop &amp; Co&gt;*: 1 pages\n• https://shop.example/?a=1&amp;b=2: 40/100 (bad) &lt;https://phprank.example/reports/1|x&gt;',
		]);
	});
});

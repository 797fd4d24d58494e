/**
 * The package in one n8n process, as most users run it: installed from its tarball into a fresh user folder's
 * .n8n/nodes, the examples imported and run with n8n's command line, the node, trigger and credential checked
 * through the REST API, and the editor in headless Chromium.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import type { INodePropertyOptions, INodeTypeDescription } from 'n8n-workflow';

import { AUDIT_SITE_ISSUES, startAuditSite, startPhpRankServer, type AuditSite, type PhpRankServer } from '../../dev/server';
import { DOCUMENTED, runBrowserChecks } from '../lib/browser';
import { assert, assertEqual, keysSorted, StepFailed, type Checks } from '../lib/checks';
import { installIntoUserFolder, type PackedPackage } from '../../dev/n8n/communityPackage';
import { DEMO_CREDENTIAL, demoCredential, PACKAGE_NODE_PREFIX, pointedAt, type Example, type WorkflowJson, type WorkflowNode } from '../../dev/n8n/examples';
import { itemsOf, parseCliExecution, runManually, waitForExecution } from '../../dev/n8n/executions';
import { writingInto } from '../../dev/examples';
import { AUDIT_FORM_FILE, startAuditFormChecks } from '../lib/auditForm';
import { dashboardExample, runDashboardChecks } from '../lib/dashboard';
import { runDataTableExamples, runHistoryChecks } from '../lib/dataTables';
import { MONTHLY_REPORT_FILE, runMonthlyReportCheck } from '../lib/monthlyReport';
import { EXPECTATIONS, GENERIC_EXPECTATION, snapshot } from '../lib/expectations';
import { mcpExample, runMcpChecks } from '../lib/mcp';
import { runParityChecks } from '../lib/parity';
import { N8n, N8nRest, type Owner, type RunningN8n } from '../../dev/n8n/n8n';
import type { N8nInstallation } from '../../dev/n8n/n8nInstall';
import { N8N_RUNTIMES } from '../../dev/n8n/n8nVersions';
import { freePort, REPOSITORY_ROOT } from '../../dev/n8n/util';

export const OWNER: Owner = { email: 'owner@phprank-e2e.test', password: 'PhpRank-e2e-2026', firstName: 'Ada', lastName: 'Owner' };

export const NODE_TYPE = `${PACKAGE_NODE_PREFIX}phpRank`;
const TOOL_NODE_TYPE = `${PACKAGE_NODE_PREFIX}phpRankTool`;
export const TRIGGER_NODE_TYPE = `${PACKAGE_NODE_PREFIX}phpRankTrigger`;
const STICKY_NOTE_TYPE = 'n8n-nodes-base.stickyNote';

/** How a workflow's node refers to the demo credential. */
export const DEMO_REFERENCE = { [DEMO_CREDENTIAL.type]: { id: DEMO_CREDENTIAL.id, name: DEMO_CREDENTIAL.name } };

type ChainedNode = Omit<WorkflowNode, 'id' | 'typeVersion'> & { typeVersion?: number };

/** A workflow whose nodes run one after the other; their IDs, positions and (unless given) version 1 filled in. */
export function chain({ id, name }: { id: string; name: string }, nodes: ChainedNode[]): WorkflowJson {
	return {
		id,
		name,
		nodes: nodes.map((node, index) => ({ id: randomUUID(), typeVersion: 1, position: [index * 220, 0], ...node })),
		connections: Object.fromEntries(nodes.slice(1).map((node, index) => [nodes[index].name, { main: [[{ node: node.name, type: 'main', index: 0 }]] }])),
		settings: { executionOrder: 'v1' },
	};
}

/** `n8n import:workflow`, which must say it imported them all. */
export async function importWorkflows(n8n: N8n, workflows: WorkflowJson[]): Promise<void> {
	const said = await n8n.import('workflow', workflows);
	assert(new RegExp(`Successfully imported ${workflows.length} workflows?`).test(said), 'n8n did not report the import');
}

/** The folder `work/written`, made, for the files the examples write. */
export function outputFolderIn(work: string): string {
	const folder = path.join(work, 'written');
	mkdirSync(folder, { recursive: true });
	return folder;
}

/**
 * URLs as users type them that phpRank 1.5 stores in its own form (CONTRACT.md, "A report"): `'` kept, `[]` and
 * non-ASCII escaped, `%xx` kept in its case, dot segments and the fragment dropped; `refused`: its url rule says 422.
 */
const URL_SHAPES: Array<{ url: string; refused?: true }> = [
	...["/?who=it's", '/?who=they%27re', '/?q[]=x', '/?q=café', '/?q=caf%c3%a9', '/?q=a%20b', '/?q=a+b', '/blog/../about.html', '//about.html', '/page#part', '/?a=1&empty='].map(
		(tail) => ({ url: `https://www.shapes.example${tail}` }),
	),
	{ url: 'HTTP://WWW.SHAPES.EXAMPLE/About' },
	...['/?q=a|b', '/?q="a"', '/?q=<a>'].map((tail) => ({ url: `https://shapes.example${tail}`, refused: true as const })),
];

const URL_SHAPES_WORKFLOW = { id: 'phprankUrlShapes1', name: 'phpRank: the same URLs twice' };

/** The URL shapes through Report > Create with Return the Existing Report, run twice as the editor runs a workflow. */
async function checkUrlShapesFoundAgain(rest: N8nRest, n8nVersion: string, phpRank: PhpRankServer): Promise<string> {
	phpRank.reset();
	const workflow = chain(URL_SHAPES_WORKFLOW, [
		{ name: 'When clicking Execute workflow', type: 'n8n-nodes-base.manualTrigger', parameters: {} },
		{
			name: 'Rows',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			parameters: { mode: 'raw', jsonOutput: JSON.stringify({ rows: URL_SHAPES.map(({ url }) => ({ url })) }), options: {} },
		},
		{ name: 'One item per row', type: 'n8n-nodes-base.splitOut', parameters: { fieldToSplitOut: 'rows', options: {} } },
		{
			name: 'Create SEO report',
			type: NODE_TYPE,
			parameters: { resource: 'report', operation: 'create', url: '={{ $json.url }}', ifReportExists: 'returnExisting' },
			credentials: DEMO_REFERENCE,
			onError: 'continueRegularOutput',
		},
	]);
	// n8n 1.x gives a new workflow an id of its own.
	const { id } = await rest.call<{ id: string }>('POST', '/rest/workflows', { ...workflow, active: false });
	const run = async () => {
		const executionId = await runManually(rest, n8nVersion, { ...workflow, id });
		const execution = await waitForExecution(rest, executionId, 120_000);
		assertEqual(execution.status, 'success', `status of execution ${executionId}`);
		return itemsOf(execution, 'Create SEO report');
	};
	const posts = () => phpRank.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/api/v1/reports')).length;
	const accepted = URL_SHAPES.filter((shape) => !shape.refused);

	const first = await run();
	const createdFirst = posts();
	assertEqual(first.map((item) => item.outcome ?? 'error'), URL_SHAPES.map((shape) => (shape.refused ? 'error' : 'created')), 'first run: outcome per row');
	assertEqual(createdFirst, accepted.length, 'first run: creates the server received');
	for (const [index, shape] of URL_SHAPES.entries()) {
		if (shape.refused) assert(String(first[index].error).includes('a character phpRank refuses'), `row ${shape.url}: ${String(first[index].error)}`);
	}
	const second = await run();
	assertEqual(posts() - createdFirst, 0, 'second run: creates the server received');
	assertEqual(second.map((item) => item.id ?? 'error'), first.map((item) => item.id ?? 'error'), 'second run: the report of each row');
	assertEqual(second.map((item) => item.outcome ?? 'error'), URL_SHAPES.map((shape) => (shape.refused ? 'error' : 'existing')), 'second run: outcome per row');
	assertEqual(phpRank.reports().length, accepted.length, 'reports the server holds');
	return `${accepted.length} reports created once (${[...new Set(first.map((item) => item.url).filter(Boolean))].slice(0, 3).join(', ')}, …), ${URL_SHAPES.length - accepted.length} refused; the second run: 0 creates`;
}

const SITE_AUDIT_WORKFLOW = { id: 'phprankSiteAudit1', name: 'phpRank: audit the bundled site' };

/** Site > Audit of the bundled audit site (dev/server/auditSite.ts), run as the editor runs a workflow. */
async function checkSiteAudit(rest: N8nRest, n8nVersion: string, phpRank: PhpRankServer): Promise<string> {
	phpRank.reset();
	const site = await startAuditSite();
	try {
		const workflow = chain(SITE_AUDIT_WORKFLOW, [
			{ name: 'When clicking Execute workflow', type: 'n8n-nodes-base.manualTrigger', parameters: {} },
			{ name: 'Audit site', type: NODE_TYPE, parameters: { resource: 'site', operation: 'audit', siteUrl: `${site.url}/` }, credentials: DEMO_REFERENCE },
		]);
		const { id } = await rest.call<{ id: string }>('POST', '/rest/workflows', { ...workflow, active: false });
		const executionId = await runManually(rest, n8nVersion, { ...workflow, id });
		const execution = await waitForExecution(rest, executionId, 120_000);
		assertEqual(execution.status, 'success', `status of execution ${executionId}`);
		const items = itemsOf(execution, 'Audit site');
		const pathOf = (url: unknown) => new URL(String(url)).pathname;
		const outcomes = Object.fromEntries(items.map((item) => [pathOf(item.url), item.outcome]));
		assertEqual(items.length, 31, 'items, one per URL found');
		assertEqual(
			[outcomes['/docs/missing.html'], outcomes['/gone.html'], outcomes['/orphan.html'], outcomes['/old-page'], outcomes['/private/staff.html'], outcomes['/loop-a']],
			['broken', 'broken', 'created', 'redirected', 'blocked', 'failed'],
			'outcomes of the broken targets, the orphan, the redirect, the disallowed page and the loop',
		);
		const deepest = items.find((item) => pathOf(item.url) === '/docs/deep/four.html');
		assertEqual(deepest?.depth, 4, 'depth of the page four clicks deep');
		const indexability = (value: string) => items.filter((item) => item.indexability === value).map((item) => pathOf(item.url));
		assertEqual(
			[indexability('noindex'), indexability('canonicalized')],
			[
				['/indexing/noindex-meta.html', '/indexing/noindex-header.html'],
				['/indexing/canonicalized.html', '/indexing/two-canonicals.html', '/indexing/canonical-to-gone.html', '/indexing/canonical-to-redirect.html', '/indexing/canonical-to-noindex.html'],
			],
			'pages search engines may not index: noindex by meta tag and X-Robots-Tag, canonicalized',
		);
		// Each site issue on exactly the URLs that have it, as the engine tests find them.
		const issues: Record<string, Record<string, string[]>> = {};
		for (const item of items) {
			for (const issue of item.siteIssues as Array<{ id: string; urls: string[] }>) (issues[issue.id] ??= {})[pathOf(item.url)] = issue.urls.map(pathOf).sort();
		}
		assertEqual(keysSorted(issues), keysSorted(AUDIT_SITE_ISSUES), 'site issues, each with the URLs that have it and those it concerns');
		const creates = phpRank.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/api/v1/reports'));
		assertEqual(creates.length, 12, 'creates phpRank received, one per indexable page answering 200 with HTML');
		assert(!site.paths().includes('/private/staff.html'), 'the site was asked for a page robots.txt disallows');
		assert(!site.paths().some((path) => path.startsWith('/indexing/hidden-by-')), 'the site was asked for a page only nofollow links lead to');
		assert(site.requests.every((request) => request.userAgent?.includes('n8n-nodes-phprank')), 'a request to the site without the User-Agent naming the package');
		return `${items.length} URLs, ${creates.length} analyzed, 2 broken, 1 orphan, 7 not indexable, ${Object.keys(issues).length} kinds of site issue; ${site.requests.length} requests to the site`;
	} finally {
		await site.close();
	}
}

/** E2E_README_PICTURES=1: the newest n8n's README pictures are written into docs/ (CONTRIBUTING.md). */
const README_PICTURES_WANTED = process.env.E2E_README_PICTURES === '1';

/** The channel the Slack twin of the site audit example posts its message to. */
function slackChannelOf(examples: Example[]): string {
	const post = examples.find((example) => example.file === 'site-audit-slack.json')?.workflow.nodes.find((node) => node.type === 'n8n-nodes-base.slack');
	const channel = (post?.parameters.channelId as { value?: unknown } | undefined)?.value;
	assert(typeof channel === 'string' && channel, 'examples/site-audit-slack.json posts to no channel named in its Slack node');
	return channel;
}

export interface LegContext {
	checks: Checks;
	install: N8nInstallation;
	packed: PackedPackage;
	examples: Example[];
	/** A folder of this leg's own, for n8n's user folders. */
	work: string;
	/** The folder under .artifacts/e2e/logs this leg's logs go to. */
	logs: string;
}

export async function proveSingleInstance(leg: LegContext & { screenshotsDir: string }): Promise<void> {
	const { checks, install, work } = leg;
	const userFolder = path.join(work, '.n8n-home');
	// The files the examples write go to a folder of this leg's own.
	const outputFolder = outputFolderIn(work);
	const examples = leg.examples.map((example) => ({ ...example, workflow: writingInto(example.workflow, outputFolder) }));
	const n8nSetup = new N8n(install, { userFolder, logs: `${leg.logs}/`, outputFolder });
	let server: PhpRankServer | undefined;
	let auditSite: AuditSite | undefined;
	let n8n: RunningN8n | undefined;
	try {
		await checks.check(`n8n --version prints ${install.n8nVersion}`, async () => {
			const printed = (await n8nSetup.cli(['--version'], 120_000)).stdout();
			assert(printed.includes(install.n8nVersion), `printed ${printed.trim()}`);
		});
		await checks.step(
			'npm install <tarball> in <N8N_USER_FOLDER>/.n8n/nodes',
			async () => await installIntoUserFolder(userFolder, leg.packed),
			(dir) => path.relative(work, dir),
		);

		const phpRank = await checks.step(
			'bundled phpRank-compatible server listens',
			async () => await startPhpRankServer({ host: '127.0.0.1', port: 0 }),
			(started) => started.url,
		);
		server = phpRank;
		// The offline site audit's site: the examples are pointed at it as at the server.
		const site = await checks.step('bundled audit site listens', async () => await startAuditSite(), (started) => started.url);
		auditSite = site;
		const mcp = mcpExample(examples);
		const dashboard = dashboardExample(examples);
		// One command for the three: each n8n command starts n8n's whole CLI, seconds on two cores.
		await checks.step(
			`n8n import:credentials: ${DEMO_CREDENTIAL.type} "${DEMO_CREDENTIAL.name}" (id ${DEMO_CREDENTIAL.id}); httpBearerAuth "${mcp.credential.name}", the token of examples/${mcp.example.file}; httpBasicAuth "${dashboard.credential.name}", the login of examples/${dashboard.example.file}`,
			async () => {
				const said = await n8nSetup.import('credentials', [demoCredential(phpRank), mcp.credential, dashboard.credential]);
				assert(/Successfully imported 3 credentials/.test(said), `n8n did not report the import of 3 credentials: ${said.trim().split('\n').at(-1)}`);
			},
		);
		await checks.step(`n8n import:workflow: all ${examples.length} workflows under examples/`, async () => {
			await importWorkflows(n8nSetup, examples.map((example) => pointedAt(example.workflow, phpRank, site)));
			const listed = (await n8nSetup.cli(['list:workflow'])).stdout().split('\n');
			const missing = examples.filter((example) => !listed.some((line) => line.startsWith(`${example.id}|`)));
			assert(missing.length === 0, `n8n list:workflow lacks ${missing.map((example) => example.file).join(', ')}`);
			return `${examples.length} workflows`;
		});

		// An example writing n8n Data tables runs once n8n has started: the tables are made through its REST API.
		const withDataTables = examples.filter((candidate) => candidate.offline && candidate.dataTables.length > 0);
		for (const example of withDataTables) checks.info(`examples/${example.file} runs after n8n start, once its Data tables (${example.dataTables.join(', ')}) are made`);
		for (const example of examples.filter((candidate) => candidate.offline && candidate.dataTables.length === 0)) {
			await checks.check(`n8n execute --id=${example.id}: examples/${example.file}`, async () => {
				const expectation = EXPECTATIONS[example.file] ?? GENERIC_EXPECTATION;
				expectation.prepare(phpRank);
				const before = snapshot(phpRank);
				const execution = parseCliExecution((await n8nSetup.cli(['execute', `--id=${example.id}`, '--rawOutput'])).stdout());
				const error = execution.data.resultData.error;
				assert(!error, `the run failed at "${error?.node?.name ?? execution.data.resultData.lastNodeExecuted}": ${error?.message}`);
				assertEqual(execution.status, 'success', 'execution status');
				return expectation.verify(execution, phpRank, before, outputFolder);
			});
		}

		const port = await freePort();
		n8n = await checks.step('n8n start answers on 127.0.0.1', async () => await n8nSetup.start(port), (running) => running.url);
		const url = n8n.url;
		const rest = new N8nRest(url);
		await checks.step('owner set up through POST /rest/owner/setup', async () => {
			assert(await rest.needsOwnerSetup(), 'n8n does not ask for an owner account');
			await rest.call('POST', '/rest/owner/setup', OWNER);
			return OWNER.email;
		});
		await checks.step('signed in through POST /rest/login', async () => {
			await new N8nRest(url).login(OWNER);
			await rest.login(OWNER);
		});

		const nodeTypes = await rest.call<INodeTypeDescription[]>('GET', '/types/nodes.json');
		const typeNamed = (name: string) => nodeTypes.find((type) => type.name === name);
		await checks.check(`node type ${NODE_TYPE} registered (GET /types/nodes.json)`, () => {
			const node = typeNamed(NODE_TYPE);
			assert(node, `not among the ${nodeTypes.length} node types`);
			assert(node.credentials?.some((credential) => credential.name === DEMO_CREDENTIAL.type), `it does not use ${DEMO_CREDENTIAL.type}`);
			return `"${node.displayName}", version ${JSON.stringify(node.version)}`;
		});
		await checks.check(`tool variant ${TOOL_NODE_TYPE} registered, for AI agents`, () => {
			const tool = typeNamed(TOOL_NODE_TYPE);
			assert(tool, 'missing: is the node usableAsTool?');
			return `"${tool.displayName}"`;
		});
		await checks.check('the tool keeps the node\'s own Description per operation, and n8n adds no automatic one', () => {
			const properties = typeNamed(TOOL_NODE_TYPE)?.properties ?? [];
			const descriptions = properties.filter((property) => property.name === 'toolDescription');
			const operations = descriptions.map((property) => `${property.displayOptions?.show?.resource}/${property.displayOptions?.show?.operation}`);
			assertEqual(operations.length, Object.values(DOCUMENTED.operations).flat().length, 'tool Descriptions, one per operation');
			assert(!properties.some((property) => property.name === 'descriptionType'), 'n8n added its Set Automatically choice');
			return `${operations.join(', ')}`;
		});
		await checks.check(`trigger ${TRIGGER_NODE_TYPE} registered as a polling trigger`, () => {
			const trigger = typeNamed(TRIGGER_NODE_TYPE);
			assert(trigger, `not among the ${nodeTypes.length} node types`);
			assert(trigger.polling === true, 'it is not a polling trigger');
			return `"${trigger.displayName}"`;
		});
		await checks.check(`credential type ${DEMO_CREDENTIAL.type} registered (GET /types/credentials.json)`, async () => {
			const credentialTypes = await rest.call<Array<{ name: string; displayName: string }>>('GET', '/types/credentials.json');
			const credentialType = credentialTypes.find((type) => type.name === DEMO_CREDENTIAL.type);
			assert(credentialType, `not among the ${credentialTypes.length} credential types`);
			return `"${credentialType.displayName}"`;
		});
		await checks.check('every node of every example is a type and version this n8n knows', () => {
			const nodes = examples.flatMap((example) => example.workflow.nodes.map((node) => ({ ...node, file: example.file })));
			// A versioned node type is listed once per description, each with its own versions.
			const versions = (name: string) => nodeTypes.filter((type) => type.name === name).flatMap((type) => [type.version].flat());
			const unknown = nodes.filter((node) => !versions(node.type).includes(node.typeVersion));
			assert(unknown.length === 0, `unknown: ${unknown.map((node) => `${node.file}: ${node.type} v${node.typeVersion}`).join('; ')}`);
			return `${nodes.length} nodes`;
		});
		await checks.check('the imported examples are listed by GET /rest/workflows', async () => {
			const workflows = await rest.call<Array<{ id: string; name: string }>>('GET', '/rest/workflows');
			const missing = examples.filter((example) => !workflows.some((workflow) => workflow.id === example.id));
			assert(missing.length === 0, `missing: ${missing.map((example) => example.file).join(', ')}`);
			return `${workflows.length} workflows`;
		});

		const accountCalls = () => phpRank.requests.filter((entry) => entry.path === '/api/v1/account');
		const credentialTest = async (data: unknown) =>
			await rest.call<{ status: string; message: string }>('POST', '/rest/credentials/test', { credentials: { ...DEMO_CREDENTIAL, data } });
		await checks.check('credential test passes through POST /rest/credentials/test', async () => {
			const stored = await rest.call<{ data: Record<string, unknown> }>('GET', `/rest/credentials/${DEMO_CREDENTIAL.id}?includeData=true`);
			const before = accountCalls().length;
			const result = await credentialTest(stored.data);
			assertEqual(result.status, 'OK', `test result (${result.message})`);
			assertEqual(accountCalls().length, before + 1, 'GET /api/v1/account calls the test made');
			assertEqual(accountCalls().at(-1)?.headers.authorization, `Bearer ${phpRank.apiKey}`, 'Authorization header the server received');
			return `"${result.message}"`;
		});
		await checks.check('credential test fails with a wrong API key', async () => {
			const result = await credentialTest({ baseUrl: phpRank.url, apiKey: 'not-the-key' });
			assertEqual(result.status, 'Error', 'test result');
			return `"${result.message}"`;
		});

		if (withDataTables.length) {
			const imported = withDataTables.map((example) => ({ ...example, workflow: pointedAt(example.workflow, phpRank, site) }));
			await runDataTableExamples(checks, { rest, n8nVersion: install.n8nVersion, phpRank, examples: imported, outputFolder }).catch((error: unknown) => {
				if (!(error instanceof StepFailed)) throw error;
			});
			// The monthly report reads the history the site audit just wrote, and sends it to a real SMTP server.
			const monthly = examples.find((example) => example.file === MONTHLY_REPORT_FILE);
			if (monthly) {
				await runMonthlyReportCheck(checks, { rest, n8nVersion: install.n8nVersion, example: monthly }).catch((error: unknown) => {
					if (!(error instanceof StepFailed)) throw error;
				});
			}
			// The dashboard shows the history the site audit wrote, after two more audits.
			const siteAudit = imported.find((example) => example.file === 'site-audit-offline.json');
			if (siteAudit) {
				const pictures = { channel: slackChannelOf(examples), intoDocs: README_PICTURES_WANTED && install.n8nVersion === N8N_RUNTIMES[0].n8nVersion };
				await runDashboardChecks(checks, { dashboard, siteAudit, rest, n8nUrl: url, n8nVersion: install.n8nVersion, phpRank, screenshotsDir: leg.screenshotsDir, pictures }).catch((error: unknown) => {
					if (!(error instanceof StepFailed)) throw error;
				});
			}
		}

		const manualExample = examples.find((example) => example.file === 'spreadsheet-to-seo-reports-offline.json') ?? examples.find((example) => example.offline);
		if (manualExample) {
			await checks.check(`examples/${manualExample.file} runs as the editor's Execute workflow does (POST /rest/workflows/:id/run)`, async () => {
				phpRank.reset();
				phpRank.seedReports(20);
				const before = phpRank.requests.length;
				const executionId = await runManually(rest, install.n8nVersion, manualExample.workflow);
				const execution = await waitForExecution(rest, executionId, 120_000);
				assertEqual(execution.status, 'success', `status of execution ${executionId}`);
				const calls = phpRank.requests.length - before;
				assert(calls > 0, 'the phpRank server received no request');
				return `execution ${executionId}, ${calls} requests to the phpRank server`;
			});
		}

		await checks.check(
			`Report > Create with Return the Existing Report: ${URL_SHAPES.length} URL shapes run twice, the second run creates nothing and finds every URL phpRank accepts`,
			async () => await checkUrlShapesFoundAgain(rest, install.n8nVersion, phpRank),
		);

		await checks.check(
			'Site > Audit of the bundled audit site: one item per URL, broken links, the orphan, the redirect, robots.txt and the depth',
			async () => await checkSiteAudit(rest, install.n8nVersion, phpRank),
		);

		const toolType = typeNamed(TOOL_NODE_TYPE);
		if (toolType) {
			// Its own steps depend on one another, the rest of the leg does not depend on them.
			const siteTools = { examples: examples.map((example) => ({ ...example, workflow: pointedAt(example.workflow, phpRank, site) })), site };
			await runMcpChecks(checks, { mcp, rest, n8nUrl: url, n8nVersion: install.n8nVersion, phpRank, toolType, siteTools }).catch((error: unknown) => {
				if (!(error instanceof StepFailed)) throw error;
			});
		}

		// What dev/engine rebuilds of n8n's server, next to this n8n's answers on the same data: only on the n8n
		// release whose engine (n8n-core) it runs on, since other releases answer differently in places of their own.
		const engineManifest = readFileSync(path.join(REPOSITORY_ROOT, 'node_modules', 'n8n-core', 'package.json'), 'utf8');
		const engineVersion = (JSON.parse(engineManifest) as { version: string }).version;
		if (engineVersion === install.n8nVersion) await runParityChecks(checks, { rest, phpRank, nodeType: NODE_TYPE });
		else checks.info(`dev/engine runs on n8n-core ${engineVersion}: compared with n8n ${engineVersion} only`);

		// The actions n8n's node panel lists for the node: each resource's operations, as the node describes them.
		const actions = (typeNamed(NODE_TYPE)?.properties ?? [])
			.filter((property) => property.name === 'operation')
			.flatMap((property) =>
				((property.options ?? []) as INodePropertyOptions[])
					.filter((option) => option.action)
					.map((option) => ({ resource: property.displayOptions?.show?.resource?.[0], operation: option.value, action: option.action! })),
			);
		const addAction = actions.find((entry) => entry.resource === 'report' && entry.operation === 'create');
		assert(addAction, `${NODE_TYPE} describes no action for Report > Create`);
		assertEqual(actions.length, Object.values(DOCUMENTED.operations).flat().length, `actions ${NODE_TYPE} describes (one per documented operation)`);
		// The audit form published, sent in Chromium, its mails to a real SMTP server; its schedule sends the queued
		// request while the browser checks, which leave phpRank alone, run.
		const auditFormExample = examples.find((example) => example.file === AUDIT_FORM_FILE);
		const auditForm = auditFormExample
			? await startAuditFormChecks(checks, { example: auditFormExample, rest, n8nUrl: url, n8nVersion: install.n8nVersion, phpRank, screenshotsDir: leg.screenshotsDir }).catch((error: unknown) => {
					if (!(error instanceof StepFailed)) throw error;
					return undefined;
				})
			: undefined;
		await runBrowserChecks(checks, {
			url,
			owner: OWNER,
			screenshotsDir: leg.screenshotsDir,
			actions: actions.map((entry) => entry.action),
			addAction: addAction.action,
			accountRequests: () => accountCalls().length,
			saveToolWorkflow: async (nodeName) => {
				const reportId = { __rl: true, mode: 'id', value: "={{ $fromAI('reportId', 'The numeric ID of the phpRank report', 'number') }}" };
				const workflow = chain({ id: 'phprankToolWf1', name: 'phpRank as an AI tool' }, [
					{ name: nodeName, type: TOOL_NODE_TYPE, parameters: { resource: 'report', operation: 'get', reportId }, credentials: DEMO_REFERENCE },
				]);
				return (await rest.call<{ id: string }>('POST', '/rest/workflows', { ...workflow, active: false })).id;
			},
			examples: examples.map(({ file, id, workflow }) => ({
				file,
				id,
				nodeNames: workflow.nodes.filter((node) => node.type !== STICKY_NOTE_TYPE).map((node) => node.name),
				notes: workflow.nodes.filter((node) => node.type === STICKY_NOTE_TYPE).length,
			})),
		});

		await auditForm?.finish();

		// Last: it leaves n8n started again with a lowered Data table size limit.
		if (withDataTables.length) {
			await runHistoryChecks(checks, {
				rest,
				n8nVersion: install.n8nVersion,
				phpRank,
				examples: examples.map((example) => ({ ...example, workflow: pointedAt(example.workflow, phpRank, site) })),
				restartWith: async (env) => {
					await n8n?.stop();
					n8n = await n8nSetup.start(port, env);
				},
			}).catch((error: unknown) => {
				if (!(error instanceof StepFailed)) throw error;
			});
		}
	} finally {
		await n8n?.stop();
		await server?.close().catch(() => undefined);
		await auditSite?.close().catch(() => undefined);
	}
}

/**
 * The package in one n8n process, as most users run it: installed from its tarball into a fresh user folder's
 * .n8n/nodes, the examples imported and run with n8n's command line, the node, trigger and credential checked
 * through the REST API, and the editor in headless Chromium.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { startPhpRankServer, type PhpRankServer } from '../../dev/server';
import { runBrowserChecks } from '../lib/browser';
import { assert, assertEqual, type Checks } from '../lib/checks';
import { installIntoUserFolder, type PackedPackage } from '../../dev/n8n/communityPackage';
import { DEMO_CREDENTIAL, PACKAGE_NODE_PREFIX, writeCredentialFile, writeImportFolder, type Example } from '../../dev/n8n/examples';
import { runManually, waitForExecution } from '../../dev/n8n/executions';
import { EXPECTATIONS, GENERIC_EXPECTATION, snapshot } from '../lib/expectations';
import { runParityChecks } from '../lib/parity';
import { n8nCli, n8nEnv, N8nRest, parseCliExecution, startN8n, type Owner, type RunningN8n } from '../../dev/n8n/n8n';
import type { N8nInstallation } from '../../dev/n8n/n8nInstall';
import { REPOSITORY_ROOT, freePort } from '../../dev/n8n/util';

export const OWNER: Owner = { email: 'owner@phprank-e2e.test', password: 'PhpRank-e2e-2026', firstName: 'Ada', lastName: 'Owner' };

/** The operations the README documents, as the editor must show them. */
const EDITOR = {
	resources: ['Report', 'Project'],
	operations: {
		Report: ['Create', 'Delete', 'Get', 'Get Many', 'Update'],
		Project: ['Delete', 'Get Many'],
	},
	reportGetMany: {
		filters: ['Grade', 'Project', 'Search', 'Search By'],
		grades: ['Good', 'Decent', 'Bad'],
		projectModes: ['From List', 'By Name'],
		options: ['Leave Out Per-Check Results', 'Max Rate-Limit Wait (Seconds)', 'Sort By', 'Sort Order'],
		maxRateLimitWait: 3600,
	},
};

export const NODE_TYPE = `${PACKAGE_NODE_PREFIX}phpRank`;
const TOOL_NODE_TYPE = `${PACKAGE_NODE_PREFIX}phpRankTool`;
const TOOL_NODE_NAME = 'Get a report for the agent';
export const TRIGGER_NODE_TYPE = `${PACKAGE_NODE_PREFIX}phpRankTrigger`;

export interface NodeTypeDescription {
	name: string;
	version: number | number[];
	displayName: string;
	credentials?: Array<{ name: string }>;
	polling?: boolean;
	properties?: Array<{
		name: string;
		displayOptions?: { show?: Record<string, unknown[]> };
		options?: Array<{ name?: string; value?: unknown; action?: string }>;
	}>;
}

/** The actions n8n's node panel lists for a node: each resource's operations, as the node describes them. */
function actionsOf(node: NodeTypeDescription): Array<{ resource: unknown; operation: unknown; action: string }> {
	return (node.properties ?? [])
		.filter((property) => property.name === 'operation')
		.flatMap((property) =>
			(property.options ?? [])
				.filter((option) => option.action)
				.map((option) => ({ resource: property.displayOptions?.show?.resource?.[0], operation: option.value, action: option.action! })),
		);
}

/** The n8n-core release dev/engine runs the node in. */
function n8nCoreVersion(): string {
	const manifest = JSON.parse(readFileSync(path.join(REPOSITORY_ROOT, 'node_modules', 'n8n-core', 'package.json'), 'utf8')) as { version: string };
	return manifest.version;
}

export interface LegContext {
	checks: Checks;
	install: N8nInstallation;
	packed: PackedPackage;
	examples: Example[];
	/** A folder of this leg's own: user folders, imports. */
	work: string;
	/** Where this leg's logs go, relative to .artifacts/e2e/logs. */
	logPrefix: string;
	screenshotsDir: string;
}

export async function proveSingleInstance(leg: LegContext): Promise<void> {
	const { checks, install, packed, examples, work } = leg;
	const userFolder = path.join(work, '.n8n-home');
	const logName = (name: string) => `${leg.logPrefix}/${name}`;
	let server: PhpRankServer | undefined;
	let n8n: RunningN8n | undefined;
	try {
		const cliEnv = n8nEnv(install, { userFolder, brokerPort: await freePort() });
		await checks.check(`n8n --version prints ${install.n8nVersion}`, async () => {
			const { stdout } = await n8nCli(install, cliEnv, ['--version'], { timeoutMs: 120_000, logName: logName('n8n-cli') });
			assert(stdout.includes(install.n8nVersion), `printed ${stdout.trim()}`);
		});
		await checks.step(
			'npm install <tarball> in <N8N_USER_FOLDER>/.n8n/nodes',
			async () => await installIntoUserFolder(userFolder, packed),
			(dir) => path.relative(work, dir),
		);

		const phpRank = await checks.step(
			'bundled phpRank-compatible server listens',
			async () => await startPhpRankServer({ host: '127.0.0.1', port: 0 }),
			(started) => started.url,
		);
		server = phpRank;
		const credentialFile = writeCredentialFile(path.join(work, 'credentials.json'), { baseUrl: phpRank.url, apiKey: phpRank.apiKey });
		await checks.step(`n8n import:credentials: ${DEMO_CREDENTIAL.type} "${DEMO_CREDENTIAL.name}" (id ${DEMO_CREDENTIAL.id})`, async () => {
			const { stdout, stderr } = await n8nCli(install, cliEnv, ['import:credentials', `--input=${credentialFile}`], { logName: logName('n8n-import') });
			assert(/Successfully imported 1 credential/.test(stdout + stderr), 'n8n did not report the import');
		});

		const importDir = writeImportFolder(examples, path.join(work, 'examples'));
		await checks.step(`n8n import:workflow: all ${examples.length} workflows under examples/`, async () => {
			const { stdout, stderr } = await n8nCli(install, cliEnv, ['import:workflow', '--separate', `--input=${importDir}`], { logName: logName('n8n-import') });
			assert(new RegExp(`Successfully imported ${examples.length} workflows?`).test(stdout + stderr), 'n8n did not report the import');
			const listed = (await n8nCli(install, cliEnv, ['list:workflow'], { logName: logName('n8n-import') })).stdout;
			const missing = examples.filter((example) => !listed.split('\n').some((line) => line.startsWith(`${example.id}|`)));
			assert(missing.length === 0, `n8n list:workflow lacks ${missing.map((example) => example.file).join(', ')}`);
			return `${examples.length} workflows`;
		});

		for (const example of examples.filter((candidate) => candidate.offline)) {
			await checks.check(`n8n execute --id=${example.id}: examples/${example.file}`, async () => {
				const expectation = EXPECTATIONS[example.file] ?? GENERIC_EXPECTATION;
				expectation.prepare(phpRank);
				const before = snapshot(phpRank);
				const { stdout } = await n8nCli(install, cliEnv, ['execute', `--id=${example.id}`, '--rawOutput'], {
					logName: logName(`n8n-execute-${example.file.replace(/\.json$/, '')}`),
				});
				const execution = parseCliExecution(stdout);
				const error = execution.data.resultData.error;
				assert(!error, `the run failed at "${error?.node?.name ?? execution.data.resultData.lastNodeExecuted}": ${error?.message}`);
				assertEqual(execution.status, 'success', 'execution status');
				return expectation.verify(execution, phpRank, before);
			});
		}

		const port = await freePort();
		const env = n8nEnv(install, { userFolder, brokerPort: await freePort(), port });
		n8n = await checks.step('n8n start answers on 127.0.0.1', async () => await startN8n(install, env, { port, logName: logName('n8n-start') }), (running) => running.url);
		const url = n8n.url;
		const rest = new N8nRest(url);
		await checks.step('owner set up through POST /rest/owner/setup', async () => {
			assert(await rest.needsOwnerSetup(), 'n8n does not ask for an owner account');
			await rest.setupOwner(OWNER);
			return OWNER.email;
		});
		await checks.step('signed in through POST /rest/login', async () => {
			const fresh = new N8nRest(url);
			await fresh.login(OWNER.email, OWNER.password);
			await rest.login(OWNER.email, OWNER.password);
		});

		const nodeTypes = await rest.call<NodeTypeDescription[]>('GET', '/types/nodes.json');
		await checks.check(`node type ${NODE_TYPE} registered (GET /types/nodes.json)`, () => {
			const node = nodeTypes.find((type) => type.name === NODE_TYPE);
			assert(node, `not among the ${nodeTypes.length} node types`);
			assert(node.credentials?.some((credential) => credential.name === DEMO_CREDENTIAL.type), `it does not use ${DEMO_CREDENTIAL.type}`);
			return `"${node.displayName}", version ${JSON.stringify(node.version)}`;
		});
		await checks.check(`tool variant ${TOOL_NODE_TYPE} registered, for AI agents`, () => {
			const tool = nodeTypes.find((type) => type.name === TOOL_NODE_TYPE);
			assert(tool, 'missing: is the node usableAsTool?');
			return `"${tool.displayName}"`;
		});
		await checks.check('the tool keeps the node\'s own Description per operation, and n8n adds no automatic one', () => {
			const tool = nodeTypes.find((type) => type.name === TOOL_NODE_TYPE);
			const properties = tool?.properties ?? [];
			const descriptions = properties.filter((property) => property.name === 'toolDescription');
			const operations = descriptions.map((property) => `${property.displayOptions?.show?.resource}/${property.displayOptions?.show?.operation}`);
			assertEqual(operations.length, 7, 'tool Descriptions, one per operation');
			assert(!properties.some((property) => property.name === 'descriptionType'), 'n8n added its Set Automatically choice');
			return `${operations.join(', ')}`;
		});
		await checks.check(`trigger ${TRIGGER_NODE_TYPE} registered as a polling trigger`, () => {
			const trigger = nodeTypes.find((type) => type.name === TRIGGER_NODE_TYPE);
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
			const unknown = examples.flatMap((example) =>
				example.workflow.nodes
					.filter((node) => {
						const type = nodeTypes.find((candidate) => candidate.name === node.type);
						const versions = type ? [type.version].flat() : [];
						return !versions.includes(node.typeVersion);
					})
					.map((node) => `${example.file}: ${node.type} v${node.typeVersion}`),
			);
			assert(unknown.length === 0, `unknown: ${unknown.join('; ')}`);
			return `${examples.reduce((sum, example) => sum + example.workflow.nodes.length, 0)} nodes`;
		});
		await checks.check('the imported examples are listed by GET /rest/workflows', async () => {
			const workflows = await rest.call<Array<{ id: string; name: string }>>('GET', '/rest/workflows');
			const missing = examples.filter((example) => !workflows.some((workflow) => workflow.id === example.id));
			assert(missing.length === 0, `missing: ${missing.map((example) => example.file).join(', ')}`);
			return `${workflows.length} workflows`;
		});

		const credentialTest = async (data: Record<string, unknown>) =>
			await rest.call<{ status: string; message: string }>('POST', '/rest/credentials/test', {
				credentials: { id: DEMO_CREDENTIAL.id, name: DEMO_CREDENTIAL.name, type: DEMO_CREDENTIAL.type, data },
			});
		await checks.check('credential test passes through POST /rest/credentials/test', async () => {
			const stored = await rest.call<{ data: Record<string, unknown> }>('GET', `/rest/credentials/${DEMO_CREDENTIAL.id}?includeData=true`);
			const accountCalls = () => phpRank.requests.filter((entry) => entry.path === '/api/v1/account').length;
			const before = accountCalls();
			const result = await credentialTest(stored.data);
			assertEqual(result.status, 'OK', `test result (${result.message})`);
			assertEqual(accountCalls(), before + 1, 'GET /api/v1/account calls the test made');
			const call = phpRank.requests.filter((entry) => entry.path === '/api/v1/account').at(-1);
			assertEqual(call?.headers.authorization, `Bearer ${phpRank.apiKey}`, 'Authorization header the server received');
			return `"${result.message}"`;
		});
		await checks.check('credential test fails with a wrong API key', async () => {
			const result = await credentialTest({ baseUrl: phpRank.url, apiKey: 'not-the-key' });
			assertEqual(result.status, 'Error', 'test result');
			return `"${result.message}"`;
		});

		const manualExample = examples.find((example) => example.file === 'spreadsheet-to-seo-reports-offline.json') ?? examples.find((example) => example.offline);
		if (manualExample) {
			await checks.check(`examples/${manualExample.file} runs as the editor's Execute workflow does (POST /rest/workflows/:id/run)`, async () => {
				const trigger = manualExample.workflow.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger');
				assert(trigger, 'no manual trigger');
				phpRank.reset();
				phpRank.seedReports(20);
				const before = phpRank.requests.length;
				const executionId = await runManually(rest, install.n8nVersion, manualExample.id, trigger.name);
				const execution = await waitForExecution(rest, executionId, 120_000);
				assertEqual(execution.status, 'success', `status of execution ${executionId}`);
				const calls = phpRank.requests.length - before;
				assert(calls > 0, 'the phpRank server received no request');
				return `execution ${executionId}, ${calls} requests to the phpRank server`;
			});
		}

		// What dev/engine rebuilds of n8n's server, next to this n8n's answers on the same data: only on the n8n
		// release whose engine (n8n-core) it runs on, since other releases answer differently in places of their own.
		const engineVersion = n8nCoreVersion();
		if (engineVersion === install.n8nVersion) await runParityChecks(checks, { rest, phpRank, credential: DEMO_CREDENTIAL, nodeType: NODE_TYPE });
		else checks.info(`dev/engine runs on n8n-core ${engineVersion}: compared with n8n ${engineVersion} only`);

		const actions = actionsOf(nodeTypes.find((type) => type.name === NODE_TYPE) ?? { name: NODE_TYPE, version: 1, displayName: '' });
		const addAction = actions.find((entry) => entry.resource === 'report' && entry.operation === 'create');
		assert(addAction, `${NODE_TYPE} describes no action for Report > Create`);
		const operationCount = Object.values(EDITOR.operations).flat().length;
		assertEqual(actions.length, operationCount, `actions ${NODE_TYPE} describes (one per documented operation)`);
		mkdirSync(leg.screenshotsDir, { recursive: true });
		const browser = await runBrowserChecks(checks, {
			url,
			email: OWNER.email,
			password: OWNER.password,
			credentialName: DEMO_CREDENTIAL.name,
			screenshotsDir: leg.screenshotsDir,
			expected: { ...EDITOR, actions: actions.map((entry) => entry.action), addAction: addAction.action },
			accountRequests: async () => phpRank.requests.filter((entry) => entry.path === '/api/v1/account').length,
			saveToolWorkflow: async () => {
				const saved = await rest.call<{ id: string }>('POST', '/rest/workflows', {
					name: 'phpRank as an AI tool',
					active: false,
					connections: {},
					settings: {},
					nodes: [
						{
							id: 'a3f1c0de-0000-4000-8000-000000000001',
							name: TOOL_NODE_NAME,
							type: TOOL_NODE_TYPE,
							typeVersion: 1,
							position: [0, 0],
							parameters: {
								resource: 'report',
								operation: 'get',
								reportId: { __rl: true, mode: 'id', value: "={{ $fromAI('reportId', 'The numeric ID of the phpRank report', 'number') }}" },
							},
							credentials: { [DEMO_CREDENTIAL.type]: { id: DEMO_CREDENTIAL.id, name: DEMO_CREDENTIAL.name } },
						},
					],
				});
				return saved.id;
			},
			toolNodeName: TOOL_NODE_NAME,
			toolDescriptionSays: ['numeric report ID', 'grade', 'failedChecks'],
		});
		if (browser.screenshots.length) checks.info(`screenshots: ${browser.screenshots.map((file) => path.relative(REPOSITORY_ROOT, file)).join(', ')}`);
	} finally {
		await n8n?.stop().catch(() => undefined);
		await server?.close().catch(() => undefined);
	}
}

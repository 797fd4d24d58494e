/**
 * `npm run test:e2e`: the package in a real n8n 2.x, end to end.
 *
 * 1. n8n (pinned) and Node.js 24 from the npm registry, cached in .n8n-e2e/;
 * 2. the package built, packed and installed into a fresh user folder's .n8n/nodes, as n8n installs community packages;
 * 3. the bundled phpRank-compatible server, a credential for it and every example imported with n8n's command line,
 *    the examples that need nothing else executed with `n8n execute` and their output checked;
 * 4. `n8n start`: owner set up, node, tool and credential types registered, the credential test through the REST API;
 *    what dev/engine rebuilds of n8n's server (credential test, tool variant, list search, dropdown) next to n8n's answers;
 * 5. the editor in headless Chromium: the node from the node panel, its dropdowns, the credential dialog.
 *
 * Prints one line per check and ends with "N passed, M failed"; exits non-zero when anything failed.
 * Logs of every process go to .artifacts/e2e/logs/, screenshots to .artifacts/e2e/.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startPhpRankServer, type PhpRankServer } from '../dev/server';
import { runBrowserChecks } from './lib/browser';
import { assert, assertEqual, Checks, StepFailed } from './lib/checks';
import { buildAndPack, installIntoUserFolder } from '../dev/n8n/communityPackage';
import { DEMO_CREDENTIAL, loadExamples, PACKAGE_NODE_PREFIX, writeCredentialFile, writeImportFolder, type Example } from '../dev/n8n/examples';
import { EXPECTATIONS, GENERIC_EXPECTATION, snapshot } from './lib/expectations';
import { runParityChecks } from './lib/parity';
import { n8nCli, n8nEnv, N8nApiError, N8nRest, parseCliExecution, startN8n, type Owner, type RunningN8n } from '../dev/n8n/n8n';
import { CACHE_DIR, ensureN8n, N8N_VERSION, type N8nInstallation } from '../dev/n8n/n8nInstall';
import { installCleanup, stopAll } from '../dev/n8n/processes';
import { ARTIFACTS_DIR, errorMessage, freePort, LOGS_DIR, REPOSITORY_ROOT, seconds, waitFor } from '../dev/n8n/util';

const SUITE_TIMEOUT_MS = Number(process.env.E2E_TIMEOUT_MINUTES ?? 25) * 60_000;

const OWNER: Owner = { email: 'owner@phprank-e2e.test', password: 'PhpRank-e2e-2026', firstName: 'Ada', lastName: 'Owner' };

/** The operations the README documents, as the editor must show them. */
const EDITOR = {
	resources: ['Report', 'Project'],
	operations: {
		Report: ['Create', 'Delete', 'Get', 'Get Many', 'Update'],
		Project: ['Delete', 'Get Many'],
	},
};

const NODE_TYPE = `${PACKAGE_NODE_PREFIX}phpRank`;
const TOOL_NODE_TYPE = `${PACKAGE_NODE_PREFIX}phpRankTool`;
const TRIGGER_NODE_TYPE = `${PACKAGE_NODE_PREFIX}phpRankTrigger`;

interface NodeTypeDescription {
	name: string;
	version: number | number[];
	displayName: string;
	credentials?: Array<{ name: string }>;
	polling?: boolean;
}

function cleanArtifacts(): void {
	mkdirSync(ARTIFACTS_DIR, { recursive: true });
	for (const entry of readdirSync(ARTIFACTS_DIR)) if (entry.endsWith('.png')) rmSync(path.join(ARTIFACTS_DIR, entry), { force: true });
	mkdirSync(LOGS_DIR, { recursive: true });
	// The logs of the previous run; npm start's (start-*.log) stay.
	for (const entry of readdirSync(LOGS_DIR)) if (!entry.startsWith('start-')) rmSync(path.join(LOGS_DIR, entry), { force: true });
}

function checkExampleStructure(example: Example): string {
	const { workflow } = example;
	assert(typeof workflow.name === 'string' && workflow.name, 'no name');
	assert(Array.isArray(workflow.nodes) && workflow.nodes.length > 0, 'no nodes');
	const names = workflow.nodes.map((node) => node.name);
	assertEqual(new Set(names).size, names.length, 'distinct node names');
	assertEqual(new Set(workflow.nodes.map((node) => node.id)).size, names.length, 'distinct node ids');
	for (const [from, outputs] of Object.entries(workflow.connections ?? {})) {
		assert(names.includes(from), `a connection starts at a missing node "${from}"`);
		for (const target of (outputs.main ?? []).flat()) assert(target && names.includes(target.node), `a connection from "${from}" ends at a missing node`);
	}
	assert(
		workflow.nodes.some((node) => node.type === 'n8n-nodes-base.stickyNote' && String(node.parameters.content ?? '').trim().length > 40),
		'no sticky note explaining the workflow',
	);
	const phpRankNodes = workflow.nodes.filter((node) => node.type.startsWith(PACKAGE_NODE_PREFIX));
	assert(phpRankNodes.length > 0, 'no phpRank node');
	for (const node of phpRankNodes) {
		assertEqual(node.credentials?.phpRankApi, { id: DEMO_CREDENTIAL.id, name: DEMO_CREDENTIAL.name }, `credential of "${node.name}"`);
	}
	return `${workflow.nodes.length} nodes, ${phpRankNodes.length} phpRank, ${example.offline ? 'runs offline' : 'needs accounts elsewhere'}`;
}

async function main(): Promise<number> {
	const checks = new Checks();
	const startedAt = Date.now();
	let server: PhpRankServer | undefined;
	let n8n: RunningN8n | undefined;
	let install: N8nInstallation | undefined;
	const work = mkdtempSync(path.join(os.tmpdir(), 'phprank-e2e-'));
	const userFolder = path.join(work, '.n8n-home');
	let keepWork = false;

	const cleanup = async () => {
		await n8n?.stop().catch(() => undefined);
		await server?.close().catch(() => undefined);
		await stopAll();
	};
	installCleanup(cleanup);
	const watchdog = setTimeout(() => {
		checks.fail('suite', `did not finish within ${seconds(SUITE_TIMEOUT_MS)} (E2E_TIMEOUT_MINUTES)`);
		console.log(`\n${checks.summary()}`);
		void cleanup().finally(() => process.exit(1));
	}, SUITE_TIMEOUT_MS);

	cleanArtifacts();
	console.log(`End-to-end: n8n-nodes-phprank in n8n ${N8N_VERSION} (logs in ${path.relative(REPOSITORY_ROOT, LOGS_DIR)})`);

	try {
		checks.section('n8n and Node.js 24 from the npm registry');
		install = await checks.step(
			`n8n ${N8N_VERSION} and Node.js 24 are installed in ${path.relative(REPOSITORY_ROOT, CACHE_DIR) || CACHE_DIR}`,
			async () => await ensureN8n({ log: (text) => checks.info(text) }),
			(result) => `${result.cached ? 'reused' : 'installed now'}: n8n ${result.n8nVersion}, Node.js ${result.nodeVersion}`,
		);
		const installation = install;
		const cliEnv = n8nEnv(installation, { userFolder, brokerPort: await freePort() });
		await checks.check(`n8n --version prints ${N8N_VERSION}`, async () => {
			const { stdout } = await n8nCli(installation, cliEnv, ['--version'], { timeoutMs: 120_000 });
			assert(stdout.includes(N8N_VERSION), `printed ${stdout.trim()}`);
		});

		checks.section('The package, as n8n installs community packages');
		const packed = await checks.step(
			'npm run build && npm pack',
			async () => await buildAndPack(path.join(work, 'pack')),
			(result) => `${path.basename(result.tarball)}, ${result.files.length} files`,
		);
		await checks.step(
			'npm install <tarball> in <N8N_USER_FOLDER>/.n8n/nodes',
			async () => await installIntoUserFolder(userFolder, packed),
			(dir) => path.relative(work, dir),
		);

		checks.section('Bundled phpRank server, credential and examples through the n8n command line');
		const phpRank = await checks.step(
			'bundled phpRank-compatible server listens',
			async () => await startPhpRankServer({ host: '127.0.0.1', port: 0 }),
			(started) => started.url,
		);
		server = phpRank;
		const credentialFile = writeCredentialFile(path.join(work, 'credentials.json'), { baseUrl: phpRank.url, apiKey: phpRank.apiKey });
		await checks.step(`n8n import:credentials: ${DEMO_CREDENTIAL.type} "${DEMO_CREDENTIAL.name}" (id ${DEMO_CREDENTIAL.id})`, async () => {
			const { stdout, stderr } = await n8nCli(installation, cliEnv, ['import:credentials', `--input=${credentialFile}`], { logName: 'n8n-import' });
			assert(/Successfully imported 1 credential/.test(stdout + stderr), 'n8n did not report the import');
		});

		const examples = loadExamples();
		for (const example of examples) await checks.check(`examples/${example.file}: well formed, explained by a sticky note, uses the demo credential`, () => checkExampleStructure(example));
		const importDir = writeImportFolder(examples, path.join(work, 'examples'));
		await checks.step(`n8n import:workflow: all ${examples.length} workflows under examples/`, async () => {
			const { stdout, stderr } = await n8nCli(installation, cliEnv, ['import:workflow', '--separate', `--input=${importDir}`], { logName: 'n8n-import' });
			assert(new RegExp(`Successfully imported ${examples.length} workflows?`).test(stdout + stderr), 'n8n did not report the import');
			const listed = (await n8nCli(installation, cliEnv, ['list:workflow'], { logName: 'n8n-import' })).stdout;
			const missing = examples.filter((example) => !listed.split('\n').some((line) => line.startsWith(`${example.id}|`)));
			assert(missing.length === 0, `n8n list:workflow lacks ${missing.map((example) => example.file).join(', ')}`);
			return examples.map((example) => `${example.file} as ${example.id}`).join(', ');
		});

		for (const example of examples.filter((candidate) => !candidate.offline)) {
			checks.info(`not executed here: ${example.file}, ${example.onlineBecause}`);
		}
		for (const example of examples.filter((candidate) => candidate.offline)) {
			await checks.check(`n8n execute --id=${example.id}: examples/${example.file}`, async () => {
				const expectation = EXPECTATIONS[example.file] ?? GENERIC_EXPECTATION;
				expectation.prepare(phpRank);
				const before = snapshot(phpRank);
				const { stdout } = await n8nCli(installation, cliEnv, ['execute', `--id=${example.id}`, '--rawOutput'], {
					logName: `n8n-execute-${example.file.replace(/\.json$/, '')}`,
				});
				const execution = parseCliExecution(stdout);
				const error = execution.data.resultData.error;
				assert(!error, `the run failed at "${error?.node?.name ?? execution.data.resultData.lastNodeExecuted}": ${error?.message}`);
				assertEqual(execution.status, 'success', 'execution status');
				return expectation.verify(execution, phpRank, before);
			});
		}

		checks.section('n8n start: the editor and its REST API');
		const port = await freePort();
		const env = n8nEnv(installation, { userFolder, brokerPort: await freePort(), port });
		n8n = await checks.step('n8n start answers on 127.0.0.1', async () => await startN8n(installation, env, { port }), (running) => running.url);
		const rest = new N8nRest(n8n.url);
		await checks.step('owner set up through POST /rest/owner/setup', async () => {
			assert(await rest.needsOwnerSetup(), 'n8n does not ask for an owner account');
			await rest.setupOwner(OWNER);
			return OWNER.email;
		});
		await checks.step('signed in through POST /rest/login', async () => {
			const fresh = new N8nRest(n8n!.url);
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
				const { executionId } = await rest.call<{ executionId: string }>('POST', `/rest/workflows/${manualExample.id}/run`, {
					triggerToStartFrom: { name: trigger.name },
				});
				const execution = await waitFor(
					`execution ${executionId} to finish`,
					async () => {
						const found = await rest.call<{ status: string }>('GET', `/rest/executions/${executionId}`);
						return ['new', 'running', 'waiting'].includes(found.status) ? undefined : found;
					},
					{ timeoutMs: 120_000, intervalMs: 1_000 },
				);
				assertEqual(execution.status, 'success', `status of execution ${executionId}`);
				const calls = phpRank.requests.length - before;
				assert(calls > 0, 'the phpRank server received no request');
				return `execution ${executionId}, ${calls} requests to the phpRank server`;
			});
		}

		checks.section('dev/engine next to this n8n, on the same data');
		await runParityChecks(checks, { rest, phpRank, credential: DEMO_CREDENTIAL, nodeType: NODE_TYPE });

		checks.section('The n8n editor in headless Chromium');
		const browser = await runBrowserChecks(checks, {
			url: n8n.url,
			email: OWNER.email,
			password: OWNER.password,
			credentialName: DEMO_CREDENTIAL.name,
			screenshotsDir: ARTIFACTS_DIR,
			expected: EDITOR,
			accountRequests: async () => phpRank.requests.filter((entry) => entry.path === '/api/v1/account').length,
		});
		if (browser.screenshots.length) checks.info(`screenshots: ${browser.screenshots.map((file) => path.relative(REPOSITORY_ROOT, file)).join(', ')}`);
	} catch (error) {
		if (!(error instanceof StepFailed)) checks.fail('suite', error instanceof N8nApiError ? error.message : errorMessage(error));
	} finally {
		clearTimeout(watchdog);
		await cleanup();
		keepWork = checks.failed > 0;
		if (keepWork) console.log(`\nKept ${work} (n8n's user folder, imports) for a look; logs are in ${path.relative(REPOSITORY_ROOT, LOGS_DIR)}.`);
		else rmSync(work, { recursive: true, force: true });
	}

	const cache = path.relative(REPOSITORY_ROOT, CACHE_DIR) || CACHE_DIR;
	console.log(`\nTook ${seconds(Date.now() - startedAt)}${install ? ` (n8n and Node.js 24 ${install.cached ? `reused from ${cache}` : `installed into ${cache}`})` : ''}.`);
	console.log(checks.summary());
	return checks.failed === 0 ? 0 : 1;
}

main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		console.error(error);
		console.log('0 passed, 1 failed');
		process.exit(1);
	},
);

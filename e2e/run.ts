/**
 * `npm run test:e2e`: the package in real n8n, end to end, on every n8n release the README promises (CONTRIBUTING.md,
 * "End-to-end suite", lists what is checked):
 *
 * 1. each n8n (pinned in dev/n8n/n8nVersions.ts) and its Node.js from the npm registry, cached in .n8n-e2e/; the
 *    later ones install in the background while the first is checked;
 * 2. the package built and packed once; the examples checked for structure;
 * 3. on each n8n, the package in one n8n process (legs/singleInstance.ts): n8n's command line, REST API and editor;
 * 4. queue mode on the newest n8n (legs/queueMode.ts): Redis and Postgres, a main process and two workers.
 *
 * Prints one line per check and ends with "N passed, M failed"; exits non-zero when anything failed.
 * Logs of every process go to .artifacts/e2e/logs/, screenshots to .artifacts/e2e/<n8n version>/.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { proveQueueMode } from './legs/queueMode';
import { DEMO_REFERENCE, proveSingleInstance } from './legs/singleInstance';
import { assert, assertEqual, Checks, StepFailed } from './lib/checks';
import { buildAndPack } from '../dev/n8n/communityPackage';
import { loadExamples, PACKAGE_NODE_PREFIX, type Example } from '../dev/n8n/examples';
import { CACHE_DIR, ensureN8n, installDir } from '../dev/n8n/n8nInstall';
import { majorOf, N8N_RUNTIMES, nodeLabel } from '../dev/n8n/n8nVersions';
import { installCleanup, stopAll } from '../dev/n8n/processes';
import { ARTIFACTS_DIR, errorMessage, LOGS_DIR, REPOSITORY_ROOT, seconds } from '../dev/n8n/util';

const SUITE_TIMEOUT_MS = Number(process.env.E2E_TIMEOUT_MINUTES ?? 25) * 60_000;

/** E2E_LEGS=2,queue runs only those legs: an n8n major version (1, 2) or `queue`; all of them by default. */
const LEGS = (process.env.E2E_LEGS ?? '').split(',').map((leg) => leg.trim()).filter(Boolean);
const wanted = (leg: string) => LEGS.length === 0 || LEGS.includes(leg);

function cleanArtifacts(): void {
	mkdirSync(ARTIFACTS_DIR, { recursive: true });
	for (const entry of readdirSync(ARTIFACTS_DIR, { recursive: true, encoding: 'utf8' })) {
		if (entry.endsWith('.png')) rmSync(path.join(ARTIFACTS_DIR, entry), { force: true });
	}
	mkdirSync(LOGS_DIR, { recursive: true });
	// The logs of the previous run; npm start's (start-*.log) stay.
	for (const entry of readdirSync(LOGS_DIR)) if (!entry.startsWith('start-')) rmSync(path.join(LOGS_DIR, entry), { recursive: true, force: true });
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
		for (const target of Object.values(outputs).flat(2)) assert(target && names.includes(target.node), `a connection from "${from}" ends at a missing node`);
	}
	assert(
		workflow.nodes.some((node) => node.type === 'n8n-nodes-base.stickyNote' && String(node.parameters.content ?? '').trim().length > 40),
		'no sticky note explaining the workflow',
	);
	const phpRankNodes = workflow.nodes.filter((node) => node.type.startsWith(PACKAGE_NODE_PREFIX));
	// The audit history's pruning works on n8n's Data tables alone.
	assert(phpRankNodes.length > 0 || example.dataTables.length > 0, 'no phpRank node');
	for (const node of phpRankNodes) assertEqual(node.credentials?.phpRankApi, DEMO_REFERENCE.phpRankApi, `credential of "${node.name}"`);
	return `${workflow.nodes.length} nodes, ${phpRankNodes.length} phpRank, ${example.offline ? 'runs offline' : 'needs accounts elsewhere'}`;
}

/**
 * Starts installing every n8n at once: the first one's progress is shown as it comes, the others' (`said`) once
 * needed. The versions installed now rather than reused go into `fresh`.
 */
function installAll(checks: Checks, fresh: string[]) {
	const needed = N8N_RUNTIMES.filter((runtime, index) => wanted(String(majorOf(runtime.n8nVersion))) || (index === 0 && wanted('queue')));
	return needed.map((runtime, index) => {
		const said: string[] = [];
		const installation = ensureN8n({ runtime, log: (text) => (index === 0 ? checks.info(text) : said.push(text)) });
		// Awaited later, where a failure is reported.
		installation.then((result) => result.cached || fresh.push(result.n8nVersion)).catch(() => undefined);
		return { runtime, installation, said };
	});
}

async function main(): Promise<number> {
	const checks = new Checks();
	const startedAt = Date.now();
	const work = mkdtempSync(path.join(os.tmpdir(), 'phprank-e2e-'));
	const fresh: string[] = [];
	const legs: Array<{ name: string; passed: number; failed: number; took: number }> = [];

	installCleanup();
	const watchdog = setTimeout(() => {
		checks.prefix = '';
		checks.fail('suite', `did not finish within ${seconds(SUITE_TIMEOUT_MS)} (E2E_TIMEOUT_MINUTES)`);
		console.log(`\n${checks.summary()}`);
		void stopAll().finally(() => process.exit(1));
	}, SUITE_TIMEOUT_MS);

	cleanArtifacts();
	const versions = N8N_RUNTIMES.map((runtime) => `n8n ${runtime.n8nVersion} (${nodeLabel(runtime)})`).join(' and ');
	console.log(`End-to-end: n8n-nodes-phprank in ${versions}, and in queue mode (logs in ${path.relative(REPOSITORY_ROOT, LOGS_DIR)})`);

	const installs = installAll(checks, fresh);
	const leg = async (name: string, body: () => Promise<void>) => {
		const before = { passed: checks.passed, failed: checks.failed, at: Date.now() };
		checks.prefix = `[${name}] `;
		try {
			await body();
		} catch (error) {
			if (!(error instanceof StepFailed)) checks.fail('leg', errorMessage(error));
		} finally {
			checks.prefix = '';
			legs.push({ name, passed: checks.passed - before.passed, failed: checks.failed - before.failed, took: Date.now() - before.at });
		}
	};

	try {
		checks.section('The package and its examples');
		const packed = await checks.step(
			'npm run build && npm pack',
			async () => await buildAndPack(path.join(work, 'pack')),
			(result) => `${path.basename(result.tarball)}, ${result.files.length} files`,
		);
		const examples = loadExamples();
		for (const example of examples) await checks.check(`examples/${example.file}: well formed, explained by a sticky note, uses the demo credential`, () => checkExampleStructure(example));
		for (const example of examples.filter((candidate) => !candidate.offline)) checks.info(`not executed here: ${example.file}, ${example.onlineBecause}`);

		// Each n8n's leg once it is installed, the first installed first: CI starts the suite while n8n installs.
		const waiting = installs.filter(({ runtime }) => wanted(String(majorOf(runtime.n8nVersion))));
		while (waiting.length > 0) {
			const installed = waiting.map(async ({ installation }, index) => await installation.then(() => index, () => index));
			const { runtime, installation, said } = waiting.splice(await Promise.race(installed), 1)[0];
			const name = `n8n ${runtime.n8nVersion}`;
			checks.section(`${name} on ${nodeLabel(runtime)}: the package, the examples, the REST API and the editor`);
			await leg(name, async () => {
				const install = await checks.step(
					`n8n ${runtime.n8nVersion} and ${nodeLabel(runtime)} are installed in ${path.relative(REPOSITORY_ROOT, installDir(runtime)) || installDir(runtime)}`,
					async () => {
						const result = await installation;
						// What its installer said while an earlier n8n was being checked.
						for (const line of said) checks.info(line);
						return result;
					},
					(result) => `${result.cached ? 'reused' : 'installed now'}: n8n ${result.n8nVersion}, Node.js ${result.nodeVersion}`,
				);
				const version = runtime.n8nVersion;
				const screenshotsDir = path.join(ARTIFACTS_DIR, version);
				await proveSingleInstance({ checks, install, packed, examples, work: path.join(work, version), logs: version, screenshotsDir });
			});
		}

		if (wanted('queue')) {
			const { runtime, installation } = installs[0];
			checks.section(`Queue mode on n8n ${runtime.n8nVersion}: Redis, Postgres, a main process and two workers`);
			await leg(`queue mode, n8n ${runtime.n8nVersion}`, async () => {
				await proveQueueMode({ checks, install: await installation, packed, examples, work: path.join(work, 'queue'), logs: 'queue-mode' });
			});
		}
	} catch (error) {
		if (!(error instanceof StepFailed)) checks.fail('suite', errorMessage(error));
	} finally {
		clearTimeout(watchdog);
		await stopAll();
		if (checks.failed > 0) console.log(`\nKept ${work} (n8n's user folders) for a look; logs are in ${path.relative(REPOSITORY_ROOT, LOGS_DIR)}.`);
		else rmSync(work, { recursive: true, force: true });
	}

	const cache = path.relative(REPOSITORY_ROOT, CACHE_DIR) || CACHE_DIR;
	console.log(`\nTook ${seconds(Date.now() - startedAt)} (${fresh.length ? `installed n8n ${fresh.join(' and ')} into ${cache}` : `n8n reused from ${cache}`}).`);
	for (const entry of legs) console.log(`  ${entry.name}: ${entry.passed} passed, ${entry.failed} failed, ${seconds(entry.took)}`);
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

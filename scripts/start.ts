/**
 * `npm start`: n8n with this package installed, ready to try in the browser.
 *
 * Installs n8n and Node.js 24 from the npm registry on the first run (cached in .n8n-e2e/), builds and packs the
 * package and installs it the way n8n installs community packages, starts the bundled phpRank-compatible server,
 * gives n8n a credential for it and imports the example workflows, then starts n8n on 127.0.0.1 and prints the
 * address and the sign-in. n8n's data stays in .n8n-e2e/start-home between runs (`npm start -- --fresh` starts
 * over); the examples are imported once, so changes made to them in n8n are kept.
 *
 *   npm start                      # n8n on port 5678, or a free one
 *   npm start -- --port 5700
 *   npm start -- --fresh
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { buildAndPack, installIntoUserFolder } from '../dev/n8n/communityPackage';
import { AUDIT_HISTORY_TABLES, MCP_SITE_TOOLS_TABLES } from '../dev/examples';
import { ensureDataTables, personalProjectId } from '../dev/n8n/dataTables';
import { DEMO_CREDENTIAL, demoCredential, EXAMPLE_SERVER_ORIGIN, EXAMPLE_SITE_ORIGIN, loadExamples, pointedAt } from '../dev/n8n/examples';
import { N8n, N8nRest, type Owner, type RunningN8n } from '../dev/n8n/n8n';
import { CACHE_DIR, ensureN8n, installDir } from '../dev/n8n/n8nInstall';
import { DEFAULT_RUNTIME } from '../dev/n8n/n8nVersions';
import { installCleanup, stopAll } from '../dev/n8n/processes';
import { errorMessage, freePort, portIsFree, REPOSITORY_ROOT, seconds } from '../dev/n8n/util';
import { startAuditSite, startPhpRankServer, type AuditSite, type PhpRankServer } from '../dev/server';

const HOME = path.join(CACHE_DIR, 'start-home');
const OWNER_FILE = path.join(HOME, 'owner.json');
const DEFAULT_OWNER: Owner = { email: 'demo@phprank.test', password: 'PhpRank-demo-1', firstName: 'Demo', lastName: 'Owner' };
const DEFAULT_PORT = 5678;
const SEEDED_REPORTS = 20;

const say = (text = '') => console.log(text);
const step = (text: string) => console.log(`» ${text}`);

async function choosePort(requested: string | undefined): Promise<number> {
	if (requested) {
		const port = Number(requested);
		if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`--port needs a port number, got "${requested}"`);
		if (!(await portIsFree(port))) throw new Error(`port ${port} is in use`);
		return port;
	}
	return (await portIsFree(DEFAULT_PORT)) ? DEFAULT_PORT : await freePort();
}

function readOwner(): Owner | undefined {
	try {
		return JSON.parse(readFileSync(OWNER_FILE, 'utf8')) as Owner;
	} catch {
		return undefined;
	}
}

async function main(): Promise<void> {
	const { values } = parseArgs({ options: { fresh: { type: 'boolean' }, port: { type: 'string' }, help: { type: 'boolean' } } });
	if (values.help) {
		say('npm start [-- --port <n>] [-- --fresh]: n8n with n8n-nodes-phprank, the bundled phpRank server and the examples');
		return;
	}
	const startedAt = Date.now();
	let server: PhpRankServer | undefined;
	let site: AuditSite | undefined;
	let n8n: RunningN8n | undefined;
	const work = mkdtempSync(path.join(os.tmpdir(), 'phprank-start-'));
	let stopping = false;
	const shutdown = async () => {
		if (stopping) return;
		stopping = true;
		say('\nStopping n8n and the bundled phpRank server…');
		await n8n?.stop().catch(() => undefined);
		await server?.close().catch(() => undefined);
		await site?.close().catch(() => undefined);
		rmSync(work, { recursive: true, force: true });
	};
	installCleanup(shutdown);

	try {
		const port = await choosePort(values.port ?? process.env.N8N_PORT);

		step('n8n and Node.js 24');
		if (!existsSync(path.join(installDir(DEFAULT_RUNTIME), 'node_modules', 'n8n', 'package.json'))) {
			say(`  the first start downloads n8n and Node.js 24 from the npm registry into ${path.relative(REPOSITORY_ROOT, installDir(DEFAULT_RUNTIME))}:`);
			say('  about 3 GB on disk and about 5 minutes; later starts reuse them (Ctrl+C stops it)');
		}
		const install = await ensureN8n({ log: (text) => say(`  ${text}`) });
		say(`  n8n ${install.n8nVersion} on Node.js ${install.nodeVersion}${install.cached ? ' (installed before)' : ''}`);

		if (values.fresh) rmSync(HOME, { recursive: true, force: true });
		mkdirSync(HOME, { recursive: true });

		step('building and installing n8n-nodes-phprank as a community package');
		const packed = await buildAndPack(path.join(work, 'pack'));
		await installIntoUserFolder(HOME, packed);
		say(`  ${packed.name} ${packed.version} in ${path.relative(REPOSITORY_ROOT, path.join(HOME, '.n8n', 'nodes'))}`);

		step('starting the bundled phpRank-compatible server');
		// Where the examples expect it, so that the site audit imported on an earlier start still finds its sitemap.
		const serverPort = Number(new URL(EXAMPLE_SERVER_ORIGIN).port);
		const phpRank = await startPhpRankServer({ host: '127.0.0.1', port: (await portIsFree(serverPort)) ? serverPort : 0, seedReports: SEEDED_REPORTS });
		server = phpRank;
		say(`  ${server.url} with ${SEEDED_REPORTS} sample reports`);
		// The offline site audit's site, where it expects it (a site's robots.txt lives at its host's root: a port of its own).
		const sitePort = Number(new URL(EXAMPLE_SITE_ORIGIN).port);
		site = await startAuditSite({ port: (await portIsFree(sitePort)) ? sitePort : 0 });
		say(`  its site with broken links, an orphan and redirects at ${site.url}/`);

		const n8nSetup = new N8n(install, { userFolder: HOME, logs: 'start-' });
		step(`credential "${DEMO_CREDENTIAL.name}" for it`);
		await n8nSetup.import('credentials', [demoCredential(server)]);

		const examples = loadExamples();
		const listed = (await n8nSetup.cli(['list:workflow'])).stdout().split('\n');
		const missing = examples.filter((example) => !listed.some((line) => line.startsWith(`${example.id}|`)));
		step(`example workflows: ${missing.length ? `importing ${missing.length}` : 'already imported'}`);
		if (missing.length) {
			await n8nSetup.import('workflow', missing.map((example) => pointedAt(example.workflow, phpRank, site)));
			for (const example of missing) say(`  ${example.workflow.name} (examples/${example.file})`);
		}

		step('starting n8n');
		n8n = await n8nSetup.start(port);
		const rest = new N8nRest(n8n.url);
		let owner = readOwner();
		if (await rest.needsOwnerSetup()) {
			owner = DEFAULT_OWNER;
			await rest.call('POST', '/rest/owner/setup', owner);
			writeFileSync(OWNER_FILE, `${JSON.stringify(owner, null, 2)}\n`, { mode: 0o600 });
		}

		// The site audit keeps its history in n8n's Data tables: made here as a user makes them, when the owner's sign-in is known.
		const tableNames = [...new Set(examples.flatMap((example) => example.dataTables))];
		let tablesMade = false;
		if (owner && tableNames.length) {
			step(`Data tables ${tableNames.join(', ')}`);
			try {
				await rest.login(owner);
				const projectId = await personalProjectId(rest);
				await ensureDataTables(
					rest,
					projectId,
					[...Object.values(AUDIT_HISTORY_TABLES), ...Object.values(MCP_SITE_TOOLS_TABLES)].filter((table) => tableNames.includes(table.name)),
				);
				tablesMade = true;
			} catch (error) {
				say(`  not made (${errorMessage(error)}): make them on n8n's Data tables page, docs/audit-history.md`);
			}
		}

		const offline = examples.filter((example) => example.offline && (tablesMade || !example.dataTables.length)).map((example) => example.workflow.name);
		say();
		say(`n8n ${install.n8nVersion} with ${packed.name} ${packed.version} is ready (${seconds(Date.now() - startedAt)}):`);
		say();
		say(`  Open       ${n8n.url}`);
		say(`  Sign in    ${owner ? `${owner.email} / ${owner.password}` : 'with the owner account you set up earlier'}`);
		say(`  phpRank    the bundled server at ${server.url}; credential "${DEMO_CREDENTIAL.name}" points at it; the audit site at ${site.url}/`);
		say(`  Examples   ${examples.length} workflows in Overview; these run right away: ${offline.join(', ')}`);
		say(`  Data       ${path.relative(REPOSITORY_ROOT, HOME)} (npm start -- --fresh starts over)`);
		say();
		say('Press Ctrl+C to stop.');

		const code = await n8n.exited;
		if (stopping) return;
		throw new Error(`n8n stopped (exit code ${code}); see .artifacts/e2e/logs/start-n8n-start.log`);
	} catch (error) {
		if (stopping) return;
		console.error(`\nnpm start failed: ${errorMessage(error)}`);
		await shutdown();
		await stopAll();
		process.exit(1);
	}
}

if (!existsSync(path.join(REPOSITORY_ROOT, 'node_modules'))) {
	console.error('Run npm ci first.');
	process.exit(1);
}
void main();

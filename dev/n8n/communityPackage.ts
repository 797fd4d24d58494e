/**
 * The package as users get it: built, packed with `npm pack`, and installed the way n8n installs a community
 * package, with npm into `<N8N_USER_FOLDER>/.n8n/nodes`, where n8n loads it from at start-up.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { cleanNpmEnv } from './n8nInstall';
import { runProcess } from './processes';
import { LOGS_DIR, REPOSITORY_ROOT } from './util';

const LOG_FILE = path.join(LOGS_DIR, 'package.log');

interface PackageJson {
	name: string;
	version: string;
	n8n?: { nodes?: string[]; credentials?: string[] };
}

export function packageJson(): PackageJson {
	return JSON.parse(readFileSync(path.join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as PackageJson;
}

/** The files n8n loads: every node and credential package.json lists. */
function declaredFiles(manifest: PackageJson): string[] {
	return [...(manifest.n8n?.nodes ?? []), ...(manifest.n8n?.credentials ?? [])];
}

export interface PackedPackage {
	tarball: string;
	name: string;
	version: string;
	files: string[];
}

async function packOnce(outDir: string): Promise<PackedPackage> {
	await runProcess('npm run build', 'npm', ['run', 'build'], {
		cwd: REPOSITORY_ROOT,
		env: cleanNpmEnv(),
		logFile: LOG_FILE,
		timeoutMs: 300_000,
	});
	const { stdout } = await runProcess('npm pack', 'npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', outDir], {
		cwd: REPOSITORY_ROOT,
		env: cleanNpmEnv(),
		logFile: LOG_FILE,
		timeoutMs: 120_000,
	});
	const [report] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; name: string; version: string; files: Array<{ path: string }> }>;
	const packed = {
		tarball: path.join(outDir, report.filename),
		name: report.name,
		version: report.version,
		files: report.files.map((file) => file.path),
	};
	const missing = declaredFiles(packageJson()).filter((file) => !packed.files.includes(file));
	if (missing.length) throw new Error(`the tarball lacks files package.json declares: ${missing.join(', ')}`);
	return packed;
}

/**
 * `npm run build && npm pack`. The tarball must hold every file package.json declares to n8n; if it does not
 * (a concurrent build emptied dist/ in between), it is built and packed once more.
 */
export async function buildAndPack(outDir: string): Promise<PackedPackage> {
	mkdirSync(outDir, { recursive: true });
	try {
		return await packOnce(outDir);
	} catch (error) {
		if (!(error instanceof Error) || !error.message.startsWith('the tarball lacks')) throw error;
		return await packOnce(outDir);
	}
}

/** `<userFolder>/.n8n/nodes`, where n8n installs community packages and loads them from. */
export function communityNodesDir(userFolder: string): string {
	return path.join(userFolder, '.n8n', 'nodes');
}

/**
 * Installs the tarball into the user folder's `.n8n/nodes` as n8n does: npm, install scripts off, peer
 * dependencies left out (n8n provides n8n-workflow to the packages it loads).
 */
export async function installIntoUserFolder(userFolder: string, packed: PackedPackage): Promise<string> {
	const nodesDir = communityNodesDir(userFolder);
	mkdirSync(nodesDir, { recursive: true });
	const manifest = path.join(nodesDir, 'package.json');
	// The package.json n8n itself writes there before its first install.
	if (!existsSync(manifest)) writeFileSync(manifest, `${JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2)}\n`);
	const tarball = path.join(nodesDir, path.basename(packed.tarball));
	copyFileSync(packed.tarball, tarball);
	// A previous install of the same version would count as up to date although the code changed.
	rmSync(path.join(nodesDir, 'node_modules', packed.name), { recursive: true, force: true });
	await runProcess('npm install (community package)', 'npm', [
		'install',
		tarball,
		'--ignore-scripts',
		'--legacy-peer-deps',
		'--package-lock=false',
		'--no-audit',
		'--no-fund',
		'--no-update-notifier',
		'--loglevel=error',
	], {
		cwd: nodesDir,
		env: cleanNpmEnv(),
		logFile: LOG_FILE,
		timeoutMs: 180_000,
	});
	const installed = path.join(nodesDir, 'node_modules', packed.name, 'package.json');
	const version = existsSync(installed) ? (JSON.parse(readFileSync(installed, 'utf8')) as PackageJson).version : undefined;
	if (version !== packed.version) throw new Error(`expected ${packed.name}@${packed.version} in ${path.dirname(installed)}, found ${version ?? 'nothing'}`);
	return path.dirname(installed);
}

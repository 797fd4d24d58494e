/**
 * The package as users get it: built, packed with `npm pack`, and installed the way n8n installs a community
 * package, with npm into `<N8N_USER_FOLDER>/.n8n/nodes`, where n8n loads it from at start-up.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { runNpm } from './n8nInstall';
import { LOGS_DIR, REPOSITORY_ROOT } from './util';

const logFile = path.join(LOGS_DIR, 'package.log');

const readPackageJson = (file: string) =>
	JSON.parse(readFileSync(file, 'utf8')) as { version: string; n8n?: { nodes?: string[]; credentials?: string[] } };

export interface PackedPackage {
	tarball: string;
	name: string;
	version: string;
	files: string[];
}

/**
 * `npm run build && npm pack`. The tarball must hold every node and credential file package.json declares to
 * n8n; if it does not (a concurrent build emptied dist/ in between), it is built and packed once more.
 */
export async function buildAndPack(outDir: string): Promise<PackedPackage> {
	mkdirSync(outDir, { recursive: true });
	const { n8n } = readPackageJson(path.join(REPOSITORY_ROOT, 'package.json'));
	for (let attempt = 1; ; attempt++) {
		await runNpm(['run', 'build'], { cwd: REPOSITORY_ROOT, logFile, timeoutMs: 300_000 });
		const stdout = await runNpm(['pack', '--json', '--ignore-scripts', '--pack-destination', outDir], { cwd: REPOSITORY_ROOT, logFile, timeoutMs: 120_000 });
		type PackReport = { filename: string; name: string; version: string; files: Array<{ path: string }> };
		const [report] = JSON.parse(stdout.slice(stdout.indexOf('['))) as PackReport[];
		const files = report.files.map((file) => file.path);
		const missing = [...(n8n?.nodes ?? []), ...(n8n?.credentials ?? [])].filter((file) => !files.includes(file));
		if (!missing.length) return { tarball: path.join(outDir, report.filename), name: report.name, version: report.version, files };
		if (attempt === 2) throw new Error(`the tarball lacks files package.json declares: ${missing.join(', ')}`);
	}
}

/**
 * Installs the tarball into the user folder's `.n8n/nodes` as n8n does: npm, install scripts off, peer
 * dependencies left out (n8n provides n8n-workflow to the packages it loads).
 */
export async function installIntoUserFolder(userFolder: string, packed: PackedPackage): Promise<string> {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	mkdirSync(nodesDir, { recursive: true });
	const manifest = path.join(nodesDir, 'package.json');
	// The package.json n8n itself writes there before its first install.
	if (!existsSync(manifest)) writeFileSync(manifest, `${JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2)}\n`);
	const tarball = path.join(nodesDir, path.basename(packed.tarball));
	copyFileSync(packed.tarball, tarball);
	const installed = path.join(nodesDir, 'node_modules', packed.name);
	// A previous install of the same version would count as up to date although the code changed.
	rmSync(installed, { recursive: true, force: true });
	await runNpm(['install', tarball, '--ignore-scripts', '--legacy-peer-deps', '--package-lock=false'], { cwd: nodesDir, logFile, timeoutMs: 180_000 });
	const version = existsSync(path.join(installed, 'package.json')) ? readPackageJson(path.join(installed, 'package.json')).version : undefined;
	if (version !== packed.version) throw new Error(`expected ${packed.name}@${packed.version} in ${installed}, found ${version ?? 'nothing'}`);
	return installed;
}

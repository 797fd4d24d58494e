/**
 * The sitemap reader of Site > Audit: the page URLs a site's sitemaps list, read as the site audit examples read
 * them. Indexes are followed level by level, each file once, down to MAX_INDEX_LEVELS; a file is gzip when its bytes
 * are (the transfer's Content-Encoding is undone by the HTTP client, so a file gzipped twice is unzipped twice).
 * It knows nothing of phpRank: it fetches with the function it is given.
 */
import type { Fetch } from './crawler';

/** Levels of sitemap indexes followed, as the site audit examples follow them. */
export const MAX_INDEX_LEVELS = 5;

/** The most URLs one sitemap file may list (sitemaps.org). */
export const MAX_URLS_PER_FILE = 50_000;

/** A sitemap that cannot be read: its message names the file. */
export class SitemapError extends Error {}

const GZIP_MAGIC = [0x1f, 0x8b];

function isGzip(bytes: Buffer): boolean {
	return bytes.length >= 2 && bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1];
}

/** Node's global DecompressionStream: n8n allows a community node no zlib import. */
export async function gunzip(bytes: Buffer): Promise<Buffer> {
	const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
	return Buffer.from(await new Response(stream).arrayBuffer());
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function locsOf(xml: string): string[] {
	const locs: string[] = [];
	const loc = /<(?:[A-Za-z0-9_-]+:)?loc\b[^>]*>([\s\S]*?)<\/(?:[A-Za-z0-9_-]+:)?loc>/g;
	for (let match = loc.exec(xml); match !== null; match = loc.exec(xml)) {
		const text = match[1]
			.replace(/^\s*<!\[CDATA\[([\s\S]*)\]\]>\s*$/, '$1')
			.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => XML_ENTITIES[name])
			.trim();
		if (text !== '') locs.push(text);
	}
	return locs;
}

export interface SitemapPages {
	/** Page URLs in the order listed, each once. */
	pages: string[];
	/** The files read, in order. */
	files: string[];
}

interface ReadSettings {
	fetch: Fetch;
	/** The first files: robots.txt's `Sitemap:` lines, else the site's /sitemap.xml. */
	first: string[];
	/** Whether the site's /sitemap.xml was guessed (no robots.txt line names it): then a missing one is no sitemap. */
	guessed: boolean;
	isCancelled: () => boolean;
}

/**
 * Every page URL the sitemaps list. A file that is not there (named by robots.txt or an index), an HTML page, XML
 * that is no sitemap, a file with more than 50,000 URLs, or an index deeper than MAX_INDEX_LEVELS fails with a
 * SitemapError naming the file: nothing is left out silently.
 */
export async function readSitemaps({ fetch, first, guessed, isCancelled }: ReadSettings): Promise<SitemapPages> {
	const files: string[] = [];
	const pages = new Set<string>();
	let level = [...new Set(first)];
	for (let depth = 0; level.length > 0 && !isCancelled(); depth++) {
		if (depth >= MAX_INDEX_LEVELS) {
			throw new SitemapError(
				`Sitemap ${level.slice(0, 3).join(', ')}${level.length > 3 ? ` and ${level.length - 3} more` : ''} would be read ${depth + 1} levels down, deeper than the ${MAX_INDEX_LEVELS} levels of sitemap indexes the audit follows`,
			);
		}
		const next: string[] = [];
		for (const file of level) {
			files.push(file);
			const read = await readFile(fetch, file, { mayBeMissing: guessed && depth === 0 });
			if (read === undefined) continue;
			if (read.kind === 'index') next.push(...read.locs);
			else for (const page of read.locs) pages.add(page);
		}
		level = [...new Set(next)].filter((file) => !files.includes(file));
	}
	return { pages: [...pages], files };
}

async function readFile(
	fetch: Fetch,
	file: string,
	{ mayBeMissing }: { mayBeMissing: boolean },
): Promise<{ kind: 'index' | 'urlset'; locs: string[] } | undefined> {
	const answer = await fetch(file).catch((error: Error) => error);
	if (answer instanceof Error) throw new SitemapError(`Sitemap ${file} could not be read: ${answer.message}`);
	if (mayBeMissing && (answer.status === 404 || answer.status === 410)) return undefined;
	if (answer.status !== 200) throw new SitemapError(`Sitemap ${file} answered ${answer.status} instead of the sitemap`);
	let bytes = answer.body;
	for (let layers = 0; isGzip(bytes) && layers < 3; layers++) {
		const unzipped = await gunzip(bytes).catch(() => undefined);
		if (unzipped === undefined) throw new SitemapError(`Sitemap ${file} is gzip that does not unzip`);
		bytes = unzipped;
	}
	const text = bytes.toString('utf8');
	const head = text.slice(0, 2000);
	if (/<html[\s>]|<!doctype html/i.test(head)) {
		if (mayBeMissing) return undefined;
		throw new SitemapError(`Sitemap ${file} is an HTML page, not a sitemap`);
	}
	const kind = /<(?:[A-Za-z0-9_-]+:)?sitemapindex[\s>]/.test(head) ? 'index' : /<(?:[A-Za-z0-9_-]+:)?urlset[\s>]/.test(head) ? 'urlset' : undefined;
	if (kind === undefined) throw new SitemapError(`Sitemap ${file} is not a sitemap (no <urlset> or <sitemapindex>)`);
	const locs = locsOf(text);
	if (locs.length > MAX_URLS_PER_FILE) {
		throw new SitemapError(`Sitemap ${file} lists ${locs.length} URLs, more than the ${MAX_URLS_PER_FILE} a sitemap may hold`);
	}
	return { kind, locs };
}

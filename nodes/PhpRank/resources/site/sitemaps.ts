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

/** The five entities XML defines and character references (`&#38;`, `&#x26;`); anything else is left as written. */
function decoded(text: string): string {
	if (!text.includes('&')) return text;
	return text.replace(/&(?:(amp|lt|gt|quot|apos)|#(\d{1,7})|#x([0-9A-Fa-f]{1,6}));/g, (whole, name?: string, decimal?: string, hex?: string) => {
		if (name !== undefined) return XML_ENTITIES[name];
		const code = decimal !== undefined ? Number(decimal) : parseInt(hex!, 16);
		return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
	});
}

/**
 * The markup of an XML file, each piece matched where it starts: an element's tag (`/` in 1 for an end tag, the
 * qualified name in 2, the attributes in 3, ending in `/` for an empty element), a CDATA section (its text in 4), a
 * comment, a processing instruction (the `<?xml-stylesheet?>` of Yoast's and Rank Math's sitemaps) or a declaration
 * such as <!DOCTYPE>. What lies between two matches is text. Tags first: they are most of a sitemap's markup.
 */
const MARKUP =
	/<(\/?)([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)((?:[^>"']|"[^"]*"|'[^']*')*)>|<!\[CDATA\[([\s\S]*?)\]\]>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!(?:[^>[]|\[[^\]]*\])*>/g;

const NAMESPACE_DECLARATION = /(?:^|\s)xmlns(?::([A-Za-z_][\w.-]*))?\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/** The namespace each prefix is bound to where an element is, '' standing for the default namespace. */
type Namespaces = ReadonlyMap<string, string>;

const NO_NAMESPACES: Namespaces = new Map();

interface OpenElement {
	name: string;
	local: string;
	namespace: string;
	namespaces: Namespaces;
}

function namespacesIn(attributes: string, outer: Namespaces): Namespaces {
	if (!attributes.includes('xmlns')) return outer;
	let inner: Map<string, string> | undefined;
	NAMESPACE_DECLARATION.lastIndex = 0;
	for (let match = NAMESPACE_DECLARATION.exec(attributes); match !== null; match = NAMESPACE_DECLARATION.exec(attributes)) {
		inner ??= new Map(outer);
		inner.set(match[1] ?? '', decoded(match[2] ?? match[3]));
	}
	return inner ?? outer;
}

/**
 * The URLs a sitemap lists: the text of each `<loc>` that is a child of an entry (`<url>` in a urlset, `<sitemap>`
 * in an index) in the entry's own namespace, so with the sitemap namespace bound to any prefix or to none. Other
 * namespaces' elements in an entry are not its URL: `<image:loc>` (image sitemaps, also one written straight into
 * `<url>`), `<video:content_loc>` and the other video URLs, `<xhtml:link href>` (hreflang), `<news:*>`. A loc's text
 * is read as XML: entities and character references decoded, CDATA taken as it is, the whole trimmed.
 */
function locsOf(xml: string, entry: 'url' | 'sitemap'): string[] {
	const locs: string[] = [];
	const open: OpenElement[] = [];
	let namespaces = NO_NAMESPACES;
	// The loc being read: how many elements are open inside it and its text so far.
	let loc: { depth: number; text: string } | undefined;
	let textFrom = 0;
	MARKUP.lastIndex = 0;
	for (let match = MARKUP.exec(xml); match !== null; match = MARKUP.exec(xml)) {
		if (loc !== undefined) {
			loc.text += decoded(xml.slice(textFrom, match.index));
			if (match[4] !== undefined) loc.text += match[4];
		}
		textFrom = MARKUP.lastIndex;
		const name = match[2];
		if (name === undefined) continue;
		if (match[1] === '/') {
			// An end tag closes its element and any left open inside it; one that closes nothing open is passed over.
			let at = open.length - 1;
			while (at >= 0 && open[at].name !== name) at--;
			if (at < 0) continue;
			open.length = at;
			namespaces = at > 0 ? open[at - 1].namespaces : NO_NAMESPACES;
			if (loc !== undefined && open.length < loc.depth) {
				const url = loc.text.trim();
				if (url !== '') locs.push(url);
				loc = undefined;
			}
			continue;
		}
		const attributes = match[3];
		const colon = name.indexOf(':');
		const local = colon < 0 ? name : name.slice(colon + 1);
		const prefix = colon < 0 ? '' : name.slice(0, colon);
		const inner = namespacesIn(attributes, namespaces);
		// A prefix bound to no namespace is one of its own; unprefixed names with no default namespace share ''.
		const namespace = inner.get(prefix) ?? (prefix === '' ? '' : `${prefix}:`);
		if (attributes.endsWith('/')) continue;
		const parent = open[open.length - 1];
		open.push({ name, local, namespace, namespaces: inner });
		namespaces = inner;
		if (loc === undefined && local === 'loc' && parent !== undefined && parent.local === entry && parent.namespace === namespace) {
			loc = { depth: open.length, text: '' };
		}
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
	const locs = locsOf(text, kind === 'index' ? 'sitemap' : 'url');
	if (locs.length > MAX_URLS_PER_FILE) {
		throw new SitemapError(`Sitemap ${file} lists ${locs.length} URLs, more than the ${MAX_URLS_PER_FILE} a sitemap may hold`);
	}
	return { kind, locs };
}

/**
 * The crawler of Site > Audit: the pages of one site, found breadth first from its start page by their links, as
 * search engines' crawlers find them. It knows nothing of phpRank: it fetches with the function it is given, and
 * hands each page that answered 200 with HTML to `onPage` in the order found, while it goes on.
 */

/** An answer of the site: status, headers in lower case, body bytes. */
export interface Fetched {
	status: number;
	headers: Record<string, string>;
	body: Buffer;
}

/** Fetches one URL without following redirects; rejects when no answer came (its message says why). */
export type Fetch = (url: string) => Promise<Fetched>;

/** A link to a page: the page it is on and its anchor text. */
export interface LinkFrom {
	url: string;
	text: string;
}

/** What the crawl knows of one URL of the site. */
export interface CrawledPage {
	url: string;
	/** Clicks from the start page on the shortest path; null when no link path from it leads here. */
	depth: number | null;
	inSitemap: boolean;
	byLink: boolean;
	/** The status the site answered; null when the URL was not fetched. */
	status: number | null;
	/** Where a redirect points (the next hop; see `landingOf`). */
	location: string | null;
	/** Why it was not fetched: robots.txt disallows it, or the crawl ended first (Max Pages). */
	skipped?: 'blocked' | 'notFetched';
	/** Why no answer came, or a redirect that leads nowhere. */
	failure?: string;
	/** A 200 with HTML: a page to analyze. */
	isHtml: boolean;
	contentType: string | null;
	/** How many crawled pages link to it. */
	inlinks: number;
	linkedFrom: LinkFrom[];
	/** Links from this page to other hosts. */
	externalLinks: number;
	/** Not on the site (an external target that was checked). */
	external: boolean;
	/** Handed to `onPage` to be analyzed. */
	handed: boolean;
	/** Deeper than the depth allowed: listed, not fetched. */
	tooDeep: boolean;
}

export interface CrawlSettings {
	start: string;
	fetch: Fetch;
	/** Follow the links of pages; without, only the start page and the sitemap's pages are fetched. */
	followLinks: boolean;
	/** Pages from the sitemaps, in their order. */
	sitemapPages: string[];
	robots?: Robots;
	maxDepth?: number;
	/** Pages handed to `onPage` at most; the others are listed, not fetched. */
	maxPages: number;
	isLeftOut: (url: URL) => boolean;
	checkExternal: boolean;
	/** Requests to the site at once: a customer's site, crawled gently. */
	concurrency: number;
	onPage: (page: CrawledPage) => void;
	/** Resolves once the crawl may fetch more: the pages handed over are taken up no faster than phpRank analyzes them. */
	ready: () => Promise<void>;
	isCancelled: () => boolean;
}

/** Links of a page kept per target (every one for a broken target, this many for the others). */
export const LINKED_FROM_KEPT = 10;

/** Hops a redirect chain is followed through in `landingOf`. */
const MAX_REDIRECTS = 10;

/** The site's key: its host with the port, `www.` and the bare host as one (phpRank treats them so). */
export function siteKeyOf(url: URL): string {
	return url.host.toLowerCase().replace(/^www\./, '');
}

function isRedirect(status: number | null): boolean {
	return status !== null && status >= 300 && status < 400;
}

/** A broken target: it answered 400 or more. */
export function isBroken(page: CrawledPage): boolean {
	return page.status !== null && page.status >= 400;
}

/** The crawl of a site: `run` fetches, `pages` lists every URL found, in the order found. */
export class Crawl {
	private readonly pagesByUrl = new Map<string, CrawledPage>();
	private readonly siteKey: string;
	private handedCount = 0;

	constructor(private readonly settings: CrawlSettings) {
		this.siteKey = siteKeyOf(new URL(settings.start));
	}

	pages(): CrawledPage[] {
		return [...this.pagesByUrl.values()];
	}

	/**
	 * Where a URL ends up through its redirects, or a failure: a loop, or more than MAX_REDIRECTS hops. Only the
	 * URLs the crawl met are followed: a hop to another host ends there.
	 */
	landingOf(page: CrawledPage): { landing: string } | { failure: string } {
		const chain = [page.url];
		let current = page;
		while (isRedirect(current.status) && current.location !== null) {
			const next = current.location;
			if (chain.includes(next)) return { failure: `Redirect loop: ${[...chain, next].join(' → ')}` };
			chain.push(next);
			if (chain.length > MAX_REDIRECTS + 1) return { failure: `More than ${MAX_REDIRECTS} redirects from ${page.url}` };
			const found = this.pagesByUrl.get(next);
			if (found === undefined) break;
			current = found;
		}
		return { landing: chain[chain.length - 1] };
	}

	isOnSite(url: URL): boolean {
		return siteKeyOf(url) === this.siteKey;
	}

	async run(): Promise<void> {
		const { settings } = this;
		const start = this.found(settings.start, { depth: 0 });
		if (start !== undefined) this.queue(start);
		const sitemapPages: CrawledPage[] = [];
		for (const url of settings.sitemapPages) {
			const page = this.found(url, { sitemap: true });
			if (page !== undefined) sitemapPages.push(page);
		}
		if (!settings.followLinks) for (const page of sitemapPages) this.queue(page);
		// Pages fetched in order and their answers read in the same order: depths are those of a breadth-first walk
		// however the answers interleave, and pages reach phpRank in the order found.
		const inFlight: Array<{ page: CrawledPage; fetched: Promise<void> }> = [];
		let next = 0;
		let sitemapsQueued = !settings.followLinks;
		for (;;) {
			if (settings.isCancelled()) return;
			await settings.ready();
			while (inFlight.length < settings.concurrency && next < this.queued.length) {
				const page = this.queued[next++];
				if (this.handedCount + inFlight.length >= settings.maxPages || !this.mayFetch(page)) continue;
				inFlight.push({ page, fetched: this.fetchPage(page) });
			}
			if (inFlight.length === 0) {
				if (next < this.queued.length) continue;
				if (sitemapsQueued) break;
				// What only the sitemaps lead to comes after what the links lead to.
				sitemapsQueued = true;
				for (const page of sitemapPages) this.queue(page);
				continue;
			}
			const { page, fetched } = inFlight.shift()!;
			await fetched;
			this.read(page);
		}
		for (const page of this.pagesByUrl.values()) if (page.status === null && page.failure === undefined) page.skipped ??= 'notFetched';
	}

	private readonly queued: CrawledPage[] = [];
	private readonly inQueue = new WeakSet<CrawledPage>();

	private queue(page: CrawledPage): void {
		if (this.inQueue.has(page)) return;
		this.inQueue.add(page);
		this.queued.push(page);
	}

	/** Registers a URL found by a link or a sitemap; undefined for a URL the crawl leaves out. */
	private found(href: string, { depth = null, sitemap = false }: { depth?: number | null; sitemap?: boolean }): CrawledPage | undefined {
		let url: URL;
		try {
			url = new URL(href);
		} catch {
			return undefined;
		}
		if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !this.isOnSite(url) || this.settings.isLeftOut(url)) return undefined;
		url.hash = '';
		const key = url.href;
		let page = this.pagesByUrl.get(key);
		if (page === undefined) {
			page = newPage(key, depth, { byLink: false, external: false });
			this.pagesByUrl.set(key, page);
			if (this.settings.robots?.allows(url) === false) page.skipped = 'blocked';
		}
		if (sitemap) page.inSitemap = true;
		// Links are read breadth first: the first link path to a page is a shortest one.
		if (page.depth === null && depth !== null) page.depth = depth;
		return page;
	}

	private mayFetch(page: CrawledPage): boolean {
		if (page.skipped !== undefined || page.status !== null || page.failure !== undefined) return false;
		const { maxDepth } = this.settings;
		if (maxDepth !== undefined && page.depth !== null && page.depth > maxDepth) {
			page.tooDeep = true;
			return false;
		}
		return true;
	}

	private async fetchPage(page: CrawledPage): Promise<void> {
		try {
			const answer = await this.settings.fetch(page.url);
			page.status = answer.status;
			page.contentType = answer.headers['content-type'] ?? null;
			if (isRedirect(answer.status) && answer.headers.location !== undefined) {
				try {
					page.location = new URL(answer.headers.location, page.url).href.replace(/#.*$/, '');
				} catch {
					page.failure = `Redirect to an address that is not a URL: ${answer.headers.location}`;
				}
			}
			page.isHtml = answer.status === 200 && /^\s*(text\/html|application\/xhtml\+xml)/i.test(page.contentType ?? '');
			if (page.isHtml) pageBodies.set(page, answer.body);
		} catch (error) {
			page.failure = (error as Error).message;
		}
	}

	/** A fetched page's answer, read in the order pages were found: its links, its redirect, its hand-over. */
	private read(page: CrawledPage): void {
		const body = pageBodies.get(page);
		pageBodies.delete(page);
		if (page.external) return;
		if (page.location !== null) {
			const target = this.found(page.location, { depth: page.depth });
			if (target !== undefined) {
				// Found by following the site, as a link is.
				target.byLink = true;
				this.queue(target);
			}
		}
		if (!page.isHtml || body === undefined) return;
		if (this.handedCount < this.settings.maxPages) {
			this.handedCount++;
			page.handed = true;
			this.settings.onPage(page);
		}
		const links = linksOf(body.toString('utf8'), page.url);
		const seen = new Set<string>();
		for (const link of links) {
			if (seen.has(link.url)) continue;
			seen.add(link.url);
			const url = new URL(link.url);
			if (!this.isOnSite(url)) {
				page.externalLinks++;
				if (this.settings.checkExternal) this.externalLink(link.url, page, link.text);
				continue;
			}
			if (!this.settings.followLinks && !this.pagesByUrl.has(link.url)) continue;
			const target = this.found(link.url, { depth: page.depth === null ? null : page.depth + 1 });
			if (target === undefined || target === page) continue;
			target.byLink = true;
			addLink(target, { url: page.url, text: link.text });
			if (this.settings.followLinks) this.queue(target);
		}
	}

	private externalLink(href: string, from: CrawledPage, text: string): void {
		let target = this.pagesByUrl.get(href);
		if (target === undefined) {
			target = newPage(href, from.depth === null ? null : from.depth + 1, { byLink: true, external: true });
			this.pagesByUrl.set(href, target);
			this.queue(target);
		}
		addLink(target, { url: from.url, text });
	}
}

/** The bodies of pages fetched and not read yet: held only between the fetch and the read. */
const pageBodies = new WeakMap<CrawledPage, Buffer>();

function addLink(target: CrawledPage, from: LinkFrom): void {
	target.inlinks++;
	// Every link to a target that may turn out broken is kept until its answer says; then 10 of a page that works.
	if (target.status === null || isBroken(target) || target.linkedFrom.length < LINKED_FROM_KEPT) target.linkedFrom.push(from);
}

/** Once the crawl is over: the links kept of a page that works, LINKED_FROM_KEPT at most. */
export function linkedFromOf(page: CrawledPage): LinkFrom[] {
	return isBroken(page) || page.failure !== undefined ? page.linkedFrom : page.linkedFrom.slice(0, LINKED_FROM_KEPT);
}

// ---- robots.txt ----

interface RobotsRule {
	allow: boolean;
	pattern: RegExp;
	length: number;
}

/** robots.txt's rules for every crawler (`User-agent: *`) and its `Sitemap:` lines (RFC 9309). */
export class Robots {
	static readonly none = new Robots([], []);

	/** Undefined when the text is no robots.txt (an HTML page a site answers every path with). */
	static parse(text: string): Robots | undefined {
		if (/^\s*</.test(text)) return undefined;
		const rules: RobotsRule[] = [];
		const sitemaps: string[] = [];
		let groupAgents: string[] = [];
		let inRules = false;
		let understood = text.trim() === '';
		for (const rawLine of text.split(/\r\n|\r|\n/)) {
			const line = rawLine.replace(/#.*$/, '').trim();
			const match = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
			if (match === null) continue;
			const field = match[1].toLowerCase();
			const value = match[2].trim();
			if (field === 'sitemap') {
				understood = true;
				if (value !== '') sitemaps.push(value);
			} else if (field === 'user-agent') {
				understood = true;
				if (inRules) groupAgents = [];
				inRules = false;
				groupAgents.push(value.toLowerCase());
			} else if (field === 'allow' || field === 'disallow') {
				understood = true;
				inRules = true;
				if (groupAgents.includes('*') && value !== '') rules.push(ruleOf(field === 'allow', value));
			}
		}
		return understood ? new Robots(rules, sitemaps) : undefined;
	}

	private constructor(
		private readonly rules: RobotsRule[],
		readonly sitemaps: string[],
	) {}

	/** The longest matching rule decides; Allow wins a tie; no rule allows. */
	allows(url: URL): boolean {
		const path = `${url.pathname}${url.search}`;
		let decision: RobotsRule | undefined;
		for (const rule of this.rules) {
			if (!rule.pattern.test(path)) continue;
			if (decision === undefined || rule.length > decision.length || (rule.length === decision.length && rule.allow)) decision = rule;
		}
		return decision?.allow ?? true;
	}
}

function ruleOf(allow: boolean, value: string): RobotsRule {
	const anchored = value.endsWith('$');
	const body = anchored ? value.slice(0, -1) : value;
	const source = body
		.split('*')
		.map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
		.join('.*');
	return { allow, pattern: new RegExp(`^${source}${anchored ? '$' : ''}`), length: value.length };
}

/**
 * Whether a URL's path and query match one of the patterns, written as robots.txt's rules are: from the path's
 * start, `*` any characters, `$` the end.
 */
export function pathPatterns(patterns: string[]): (url: URL) => boolean {
	const rules = patterns.map((pattern) => ruleOf(false, pattern.startsWith('/') || pattern.startsWith('*') ? pattern : `/${pattern}`).pattern);
	return (url) => rules.some((rule) => rule.test(`${url.pathname}${url.search}`));
}

// ---- links of a page ----

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
	return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
		if (name[0] === '#') {
			const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
			return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
		}
		return ENTITIES[name.toLowerCase()] ?? whole;
	});
}

/** A tag's attributes, names in lower case, values with their entities decoded. */
function attributesOf(html: string, from: number): { attributes: Record<string, string>; end: number } {
	const attributes: Record<string, string> = {};
	let at = from;
	while (at < html.length) {
		while (at < html.length && /[\s/]/.test(html[at])) at++;
		if (at >= html.length || html[at] === '>') return { attributes, end: at + 1 };
		const nameStart = at;
		while (at < html.length && !/[\s=>/]/.test(html[at])) at++;
		const name = html.slice(nameStart, at).toLowerCase();
		while (at < html.length && /\s/.test(html[at])) at++;
		let value = '';
		if (html[at] === '=') {
			at++;
			while (at < html.length && /\s/.test(html[at])) at++;
			const quote = html[at];
			if (quote === '"' || quote === "'") {
				const close = html.indexOf(quote, at + 1);
				const end = close === -1 ? html.length : close;
				value = html.slice(at + 1, end);
				at = end + 1;
			} else {
				const valueStart = at;
				while (at < html.length && !/[\s>]/.test(html[at])) at++;
				value = html.slice(valueStart, at);
			}
		}
		if (name !== '' && !(name in attributes)) attributes[name] = decodeEntities(value);
	}
	return { attributes, end: html.length };
}

const ANCHOR_TEXT_LENGTH = 100;

/**
 * Every `<a href>` of a page as an absolute http(s) URL without its fragment, with its anchor text (an image's alt
 * when it has no text), resolved against the page's address or its `<base href>`. Comments, scripts and styles are
 * skipped; `mailto:`, `tel:`, `javascript:` and other schemes left out. A tokenizer of its own: n8n allows a
 * community node no HTML parser.
 */
export function linksOf(html: string, pageUrl: string): LinkFrom[] {
	const links: LinkFrom[] = [];
	let base = pageUrl;
	let open: { href: string; textStart: number } | undefined;
	const close = (at: number) => {
		if (open === undefined) return;
		const inner = html.slice(open.textStart, at);
		const alt = /<img\b[^>]*\balt\s*=\s*("([^"]*)"|'([^']*)')/i.exec(inner);
		let text = decodeEntities(inner.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
		if (text === '' && alt !== null) text = decodeEntities(alt[2] ?? alt[3] ?? '').trim();
		const url = resolved(open.href, base);
		if (url !== undefined) links.push({ url, text: text.length > ANCHOR_TEXT_LENGTH ? `${text.slice(0, ANCHOR_TEXT_LENGTH - 1)}…` : text });
		open = undefined;
	};
	let at = 0;
	while (at < html.length) {
		const lt = html.indexOf('<', at);
		if (lt === -1) break;
		if (html.startsWith('<!--', lt)) {
			const end = html.indexOf('-->', lt + 4);
			at = end === -1 ? html.length : end + 3;
			continue;
		}
		const tag = /^<(\/?)([A-Za-z][A-Za-z0-9-]*)/.exec(html.slice(lt, lt + 40));
		if (tag === null) {
			at = lt + 1;
			continue;
		}
		const [whole, slash, rawName] = tag;
		const name = rawName.toLowerCase();
		const { attributes, end } = attributesOf(html, lt + whole.length);
		if (slash === '/') {
			if (name === 'a') close(lt);
			at = end;
			continue;
		}
		if (name === 'script' || name === 'style') {
			const closing = html.toLowerCase().indexOf(`</${name}`, end);
			at = closing === -1 ? html.length : closing;
			continue;
		}
		if (name === 'base' && attributes.href !== undefined && base === pageUrl) base = resolved(attributes.href, pageUrl) ?? base;
		if (name === 'a') {
			close(lt);
			if (attributes.href !== undefined) open = { href: attributes.href, textStart: end };
		}
		at = end;
	}
	close(html.length);
	return links;
}

function resolved(href: string, base: string): string | undefined {
	const trimmed = href.trim();
	if (trimmed === '' || trimmed.startsWith('#')) return undefined;
	try {
		const url = new URL(trimmed, base);
		if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
		url.hash = '';
		return url.href;
	} catch {
		return undefined;
	}
}

/** A URL as first found: nothing fetched or linked yet. */
function newPage(url: string, depth: number | null, found: Pick<CrawledPage, 'byLink' | 'external'>): CrawledPage {
	return {
		url,
		depth,
		...found,
		inSitemap: false,
		status: null,
		location: null,
		isHtml: false,
		contentType: null,
		inlinks: 0,
		linkedFrom: [],
		externalLinks: 0,
		handed: false,
		tooDeep: false,
	};
}

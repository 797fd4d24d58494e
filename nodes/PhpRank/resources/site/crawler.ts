/**
 * The crawler of Site > Audit: the pages of one site, found breadth first from its start page by their links, as
 * search engines' crawlers find them: robots.txt's rules, a page's robots meta tag and X-Robots-Tag header (noindex,
 * nofollow), `rel="nofollow"` links and canonical URLs. It knows nothing of phpRank: it fetches with the function it
 * is given, and hands each indexable page that answered 200 with HTML to `onPage` in the order found, while it goes on.
 */

import { contentFingerprint } from './duplicates';

/** An answer of the site: status, headers in lower case, body bytes, and how long it took. */
export interface Fetched {
	status: number;
	headers: Record<string, string>;
	body: Buffer;
	/** Milliseconds from sending the request until the whole answer was read. */
	ms: number;
}

/** Fetches one URL (GET by default) without following redirects; rejects when no answer came (its message says why). */
export type Fetch = (url: string, method?: 'GET' | 'HEAD') => Promise<Fetched>;

/** An image of the site (`<img src>`), the pages showing it, and what it answered in the end (null: not asked, or no answer). */
export interface ImageCheck {
	url: string;
	status: number | null;
	/** Disallowed by robots.txt: not asked. */
	blocked: boolean;
	pages: string[];
}

/** A link to a page: the page it is on and its anchor text. */
export interface LinkFrom {
	url: string;
	text: string;
}

/** A link of a page: where it leads, its anchor text, and whether its `rel` says nofollow. */
export interface PageLink extends LinkFrom {
	nofollow: boolean;
}

/** What a page's HTML and headers say of it beyond its links. */
export interface PageFacts {
	/** The first `<title>`, `<meta name="description">` and `<h1>`: entities decoded, whitespace collapsed; null when none. */
	title: string | null;
	metaDescription: string | null;
	h1: string | null;
	/** The first canonical URL (`<link rel="canonical">`, else the `Link` header's), absolute, without fragment. */
	canonical: string | null;
	/** Canonical URLs that disagree: the page names more than one. */
	canonicalConflict: boolean;
	/** Where noindex (or none) was said, for every robot: `meta robots`, `X-Robots-Tag` or both; null when not. */
	noindex: string | null;
	/** Nofollow (or none) said for every robot: the page's links are counted, not followed. */
	nofollow: boolean;
}

/** Whether a URL may be indexed, or why not. */
export type Indexability = 'indexable' | 'noindex' | 'canonicalized' | 'blocked' | 'redirected' | 'broken' | 'notHtml' | 'failed' | 'notFetched';

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
	/**
	 * Why it was not fetched: robots.txt disallows it, the crawl ended first (Max Pages), or only nofollow links lead
	 * to it.
	 */
	skipped?: 'blocked' | 'notFetched' | 'nofollow';
	/** Why no answer came, or a redirect that leads nowhere. */
	failure?: string;
	/** A 200 with HTML: a page to analyze. */
	isHtml: boolean;
	/** The Content-Type of an answer that is no HTML page (an HTML page's is not kept: there is one per page). */
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
	/** What an HTML page says of itself; null for any other answer. */
	facts: PageFacts | null;
	/** Milliseconds until its whole answer was read; null when not fetched. */
	responseMs: number | null;
	/** The size of an HTML page's answer; null for any other. */
	htmlBytes: number | null;
	/** Its main text's fingerprint (duplicates.ts); null when it has too little text, or is no indexable HTML page. */
	fingerprint: Uint32Array | null;
	/** Its links to pages of the site that say `rel="nofollow"`, and the first LINKED_FROM_KEPT pages they lead to. */
	nofollowLinks: number;
	nofollowTargets: string[];
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
	/** Collect the site's images shown on its pages, for checkImages. */
	checkImages: boolean;
	/** Hand the HTML pages that are not indexable (noindex, canonicalized) to `onPage` too. */
	handNonIndexable: boolean;
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

export function isRedirect(status: number | null): boolean {
	return status !== null && status >= 300 && status < 400;
}

/** A broken target: it answered 400 or more. */
export function isBroken(page: CrawledPage): boolean {
	return page.status !== null && page.status >= 400;
}

/**
 * Whether a URL may be indexed, as search engines decide: only a page that answered 200 with HTML, says no noindex
 * and names no other URL as its canonical (compared without fragments).
 */
export function indexabilityOf(page: CrawledPage): Indexability {
	if (page.skipped === 'blocked') return 'blocked';
	if (page.status === null) return page.failure !== undefined ? 'failed' : 'notFetched';
	if (isRedirect(page.status)) return 'redirected';
	if (isBroken(page)) return 'broken';
	if (!page.isHtml || page.facts === null) return 'notHtml';
	if (page.facts.noindex !== null) return 'noindex';
	if (page.facts.canonical !== null && page.facts.canonical !== page.url) return 'canonicalized';
	return 'indexable';
}

/** A hop of a redirect chain: a URL and what it answered (null: not fetched). */
export interface RedirectHop {
	url: string;
	status: number | null;
}

/** The crawl of a site: `run` fetches, `pages` lists every URL found, in the order found. */
export class Crawl {
	private readonly pagesByUrl = new Map<string, CrawledPage>();
	private readonly siteKey: string;
	private handedCount = 0;
	private readonly settings: Omit<CrawlSettings, 'sitemapPages'>;
	/** Let go once registered: a sitemap's URLs may hold its whole text (they are slices of it). */
	private sitemapPages: string[] | undefined;

	constructor({ sitemapPages, ...settings }: CrawlSettings) {
		this.settings = settings;
		this.sitemapPages = sitemapPages;
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

	/**
	 * Every hop of a redirecting URL's chain, itself first, until the URL it lands on (included), a URL met again (a
	 * loop, included), or MAX_REDIRECTS hops; null for a URL that does not redirect.
	 */
	redirectChainOf(page: CrawledPage): RedirectHop[] | null {
		if (page.location === null) return null;
		const hops: RedirectHop[] = [{ url: page.url, status: page.status }];
		const seen = new Set([page.url]);
		let current = page;
		while (isRedirect(current.status) && current.location !== null && hops.length <= MAX_REDIRECTS) {
			const next = this.pagesByUrl.get(current.location);
			hops.push({ url: current.location, status: next?.status ?? null });
			if (next === undefined || seen.has(next.url)) break;
			seen.add(next.url);
			current = next;
		}
		return hops;
	}

	isOnSite(url: URL): boolean {
		return siteKeyOf(url) === this.siteKey;
	}

	async run(): Promise<void> {
		const { settings } = this;
		const start = this.found(settings.start, { depth: 0 });
		if (start !== undefined) this.queue(start);
		const sitemapPages: CrawledPage[] = [];
		for (const url of this.sitemapPages ?? []) {
			const page = this.found(url, { sitemap: true });
			if (page !== undefined) sitemapPages.push(page);
		}
		this.sitemapPages = undefined;
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
		// A URL never queued was found only by links that are not followed (nofollow).
		for (const page of this.pagesByUrl.values()) {
			if (page.status === null && page.failure === undefined) page.skipped ??= this.inQueue.has(page) ? 'notFetched' : 'nofollow';
		}
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
			page.responseMs = answer.ms;
			const contentType = answer.headers['content-type'] ?? null;
			if (isRedirect(answer.status) && answer.headers.location !== undefined) {
				try {
					page.location = new URL(answer.headers.location, page.url).href.replace(/#.*$/, '');
				} catch {
					page.failure = `Redirect to an address that is not a URL: ${answer.headers.location}`;
				}
			}
			page.isHtml = answer.status === 200 && /^\s*(text\/html|application\/xhtml\+xml)/i.test(contentType ?? '');
			if (page.isHtml) {
				pageAnswers.set(page, { body: answer.body, xRobotsTag: answer.headers['x-robots-tag'], link: answer.headers.link });
				page.htmlBytes = answer.body.length;
			} else page.contentType = contentType;
		} catch (error) {
			page.failure = (error as Error).message;
		}
	}

	/**
	 * A fetched page's answer, read in the order pages were found: its redirect, what it says of itself, its hand-over
	 * if it may be indexed, its canonical URL and its links.
	 */
	private read(page: CrawledPage): void {
		const answer = pageAnswers.get(page);
		pageAnswers.delete(page);
		if (page.external) return;
		if (page.location !== null) {
			const target = this.found(page.location, { depth: page.depth });
			if (target !== undefined) {
				// Found by following the site, as a link is.
				target.byLink = true;
				this.queue(target);
			}
		}
		if (!page.isHtml || answer === undefined) return;
		const { links, images, text, facts } = readPage(answer.body.toString('utf8'), page.url, answer);
		page.facts = facts;
		if (this.settings.checkImages) for (const image of images) this.imageFound(image, page);
		const indexable = indexabilityOf(page) === 'indexable';
		// Only indexable pages are compared for duplicate content.
		if (indexable) page.fingerprint = contentFingerprint(text);
		if ((indexable || this.settings.handNonIndexable) && this.handedCount < this.settings.maxPages) {
			this.handedCount++;
			page.handed = true;
			this.settings.onPage(page);
		}
		const childDepth = page.depth === null ? null : page.depth + 1;
		if (facts.canonical !== null && facts.canonical !== page.url) {
			// The URL it names in its place is crawled as a link from it is: found by following the site, not an inlink.
			const target = this.found(facts.canonical, { depth: childDepth });
			if (target !== undefined) {
				target.byLink = true;
				this.queue(target);
			}
		}
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
			const target = this.found(link.url, { depth: childDepth });
			if (target === undefined || target === page) continue;
			target.byLink = true;
			addLink(target, { url: page.url, text: link.text });
			if (link.nofollow) {
				page.nofollowLinks++;
				if (page.nofollowTargets.length < LINKED_FROM_KEPT) page.nofollowTargets = [...page.nofollowTargets, target.url];
			}
			// A nofollow link (or any link of a nofollow page) is counted, and leads the crawl nowhere.
			if (this.settings.followLinks && !facts.nofollow && !link.nofollow) this.queue(target);
		}
	}

	/** Registers an image of the site shown on a page: fetched once, by checkImages, whatever the pages showing it. */
	private imageFound(href: string, on: CrawledPage): void {
		let image = this.imagesByUrl.get(href);
		if (image === undefined) {
			let url: URL;
			try {
				url = new URL(href);
			} catch {
				return;
			}
			if (!this.isOnSite(url) || this.settings.isLeftOut(url)) return;
			image = { url: href, status: null, blocked: this.settings.robots?.allows(url) === false, pages: [] };
			this.imagesByUrl.set(href, image);
		}
		if (image.pages[image.pages.length - 1] !== on.url) image.pages.push(on.url);
	}

	/**
	 * Asks the site for each image found once (HEAD, GET where HEAD is not allowed), within the crawl's concurrency,
	 * following its redirects; an image that is also a page crawled is not asked again, nor one robots.txt disallows.
	 */
	async checkImages(): Promise<void> {
		const waiting = [...this.imagesByUrl.values()].filter((image) => !image.blocked);
		const worker = async () => {
			for (let image = waiting.shift(); image !== undefined && !this.settings.isCancelled(); image = waiting.shift()) {
				image.status = await this.imageStatus(image.url);
			}
		};
		await Promise.all(Array.from({ length: this.settings.concurrency }, worker));
	}

	private async imageStatus(first: string): Promise<number | null> {
		let url = first;
		for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
			const answer = await this.askOnce(url);
			if (answer === null || !isRedirect(answer.status) || answer.location === null) return answer?.status ?? null;
			const href = resolved(answer.location, url);
			const next = href === undefined ? undefined : new URL(href);
			if (next === undefined || !this.isOnSite(next) || this.settings.robots?.allows(next) === false) return answer.status;
			url = next.href;
		}
		return null;
	}

	/** What a URL answered: a page's answer if it was crawled, else asked once (images shared by redirects too). */
	private async askOnce(url: string): Promise<{ status: number; location: string | null } | null> {
		const page = this.pagesByUrl.get(url);
		if (page !== undefined && page.status !== null) return { status: page.status, location: page.location };
		let asked = this.asked.get(url);
		if (asked === undefined) {
			asked = (async () => {
				try {
					let answer = await this.settings.fetch(url, 'HEAD');
					if (answer.status === 405 || answer.status === 501) answer = await this.settings.fetch(url, 'GET');
					return { status: answer.status, location: answer.headers.location ?? null };
				} catch {
					return null;
				}
			})();
			this.asked.set(url, asked);
		}
		return await asked;
	}

	private readonly asked = new Map<string, Promise<{ status: number; location: string | null } | null>>();

	/** The images of the site shown on its pages, with what they answered. */
	images(): ImageCheck[] {
		return [...this.imagesByUrl.values()];
	}

	private readonly imagesByUrl = new Map<string, ImageCheck>();

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

/** What a page's HTML is read with besides its body: the headers that speak of indexing. */
interface PageHeaders {
	xRobotsTag?: string;
	link?: string;
}

/** The answers of HTML pages fetched and not read yet: held only between the fetch and the read. */
const pageAnswers = new WeakMap<CrawledPage, PageHeaders & { body: Buffer }>();

function addLink(target: CrawledPage, from: LinkFrom): void {
	target.inlinks++;
	// Every link to a target that may turn out broken is kept until its answer says; then 10 of a page that works.
	if (target.status !== null && !isBroken(target) && target.linkedFrom.length >= LINKED_FROM_KEPT) return;
	// Most pages are linked from one page or a few: a pushed-to array takes room for 17 at once.
	if (target.linkedFrom.length === 0) target.linkedFrom = [from];
	else target.linkedFrom.push(from);
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

/** A group of robots.txt: the crawlers it names, its rules and its Crawl-delay. */
interface RobotsGroup {
	agents: string[];
	rules: RobotsRule[];
	crawlDelay?: number;
}

/** A Crawl-delay above this is kept to it: a site's pages one a minute would take days. */
export const MAX_CRAWL_DELAY_SECONDS = 10;

/**
 * robots.txt's rules for this crawler and its `Sitemap:` lines (RFC 9309): the groups naming its product token,
 * else those for every crawler (`User-agent: *`), their rules combined, with their first Crawl-delay (seconds,
 * fractions allowed; not in the RFC, honoured as most crawlers honour it).
 */
export class Robots {
	static readonly none = new Robots([], [], '*', undefined);

	/** Undefined when the text is no robots.txt (an HTML page a site answers every path with). */
	static parse(text: string, token = '*'): Robots | undefined {
		if (/^\s*</.test(text)) return undefined;
		const groups: RobotsGroup[] = [];
		const sitemaps: string[] = [];
		let group: RobotsGroup | undefined;
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
				if (group === undefined || inRules) {
					group = { agents: [], rules: [] };
					groups.push(group);
				}
				inRules = false;
				group.agents.push(value.toLowerCase());
			} else if (field === 'allow' || field === 'disallow') {
				understood = true;
				inRules = true;
				if (group !== undefined && value !== '') group.rules.push(ruleOf(field === 'allow', value));
			} else if (field === 'crawl-delay') {
				understood = true;
				inRules = true;
				if (group !== undefined && group.crawlDelay === undefined && /^(\d+\.?\d*|\.\d+)$/.test(value)) group.crawlDelay = Number(value);
			}
		}
		const agent = token.toLowerCase();
		const own = agent === '*' ? [] : groups.filter((candidate) => candidate.agents.includes(agent));
		const chosen = own.length > 0 ? own : groups.filter((candidate) => candidate.agents.includes('*'));
		const crawlDelay = chosen.find((candidate) => candidate.crawlDelay !== undefined)?.crawlDelay;
		return understood ? new Robots(chosen.flatMap((candidate) => candidate.rules), sitemaps, own.length > 0 ? token : '*', crawlDelay) : undefined;
	}

	private constructor(
		private readonly rules: RobotsRule[],
		readonly sitemaps: string[],
		/** The User-agent whose groups apply: the crawler's token, or `*`. */
		readonly agent: string,
		private readonly crawlDelay: number | undefined,
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

	/** Seconds between two requests to the site, at most MAX_CRAWL_DELAY_SECONDS; null when none (or 0) is asked for. */
	get crawlDelaySeconds(): number | null {
		return this.crawlDelay === undefined || this.crawlDelay === 0 ? null : Math.min(this.crawlDelay, MAX_CRAWL_DELAY_SECONDS);
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

// ---- what a page says: its links, title, description, first heading, canonical URL, robots directives ----

// The named entities pages use most; any other is written as a number (`&#8217;`) or left as it is.
const ENTITIES: Record<string, string> = {
	amp: '&',
	lt: '<',
	gt: '>',
	quot: '"',
	apos: "'",
	nbsp: '\u00a0',
	ndash: '\u2013',
	mdash: '\u2014',
	hellip: '\u2026',
	lsquo: '\u2018',
	rsquo: '\u2019',
	ldquo: '\u201c',
	rdquo: '\u201d',
	laquo: '\u00ab',
	raquo: '\u00bb',
	copy: '\u00a9',
	reg: '\u00ae',
	trade: '\u2122',
	middot: '\u00b7',
	bull: '\u2022',
	euro: '\u20ac',
};

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
/** An anchor's inner HTML read this far for its text: an `<a>` left open does not make the rest of a page its text. */
const ANCHOR_SCAN = 16 * 1024;
/** Title, description, robots meta tags and canonical links are read from this much of a page (its head, and more). */
export const HEAD_CHARS = 1024 * 1024;
/** An element's end (`</title>`, `</h1>`) looked for this far; without it, its first run of text is taken. */
const TEXT_SCAN = 16 * 1024;
/** Title, description and first heading kept to this many characters. */
export const TEXT_LENGTH = 1000;

/**
 * A copy of a text cut out of a page: a slice of a string may hold on to the whole string, and a page's title or an
 * anchor text is kept for the whole crawl, its page's HTML not.
 */
function detached(text: string): string {
	// V8 copies a slice shorter than 13 characters already.
	return text.length < 13 ? text : Buffer.from(text, 'utf8').toString('utf8');
}

/** Text as shown: entities decoded, control characters and runs of whitespace made one space, cut to TEXT_LENGTH. */
function shownText(raw: string): string {
	const text = decodeEntities(raw)
		.replace(/\p{Cc}/gu, ' ')
		.replace(/\s+/g, ' ')
		.trim();
	return detached(text.length > TEXT_LENGTH ? `${text.slice(0, TEXT_LENGTH - 1)}\u2026` : text);
}

/** The lower-case tokens of a `rel` or robots `content` value. */
function tokensOf(value: string | undefined, separator: RegExp): string[] {
	return value === undefined ? [] : value.toLowerCase().split(separator).filter((token) => token !== '');
}

/** Robots directives that carry a value after a colon: what precedes their colon is no crawler's name. */
const VALUE_DIRECTIVES = ['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview'];

/**
 * The X-Robots-Tag directives for every crawler: those before any `name:` prefix (a prefix gives the directives after
 * it, up to the next prefix, to that crawler alone). Several header lines arrive joined with commas, in their order.
 */
export function xRobotsTagDirectives(value: string): string[] {
	const directives: string[] = [];
	let forOne = false;
	for (const part of value.split(',')) {
		const prefixed = /^\s*([^\s:]+)\s*:\s*(.*)$/.exec(part);
		const withValue = prefixed !== null && VALUE_DIRECTIVES.includes(prefixed[1].toLowerCase());
		if (prefixed !== null && !withValue) forOne = true;
		else if (!forOne) directives.push(...(withValue ? [part.trim().toLowerCase()] : tokensOf(part, /\s+/)));
	}
	return directives;
}

/** The canonical URLs a `Link` header names (`<url>; rel="canonical"`), resolved against the page's address. */
export function linkHeaderCanonicals(value: string, pageUrl: string): string[] {
	const canonicals: string[] = [];
	for (const [, target, parameters] of value.matchAll(/<([^>]*)>([^<]*)/g)) {
		const rel = /(?:^|;)\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,"]+))/i.exec(parameters);
		if (rel === null || !tokensOf(rel[1] ?? rel[2], /\s+/).includes('canonical')) continue;
		const url = resolved(target, pageUrl);
		if (url !== undefined) canonicals.push(url);
	}
	return canonicals;
}

/** Where an element's text ends: its closing tag within TEXT_SCAN, else the next tag. */
function elementEnd(html: string, from: number, closing: RegExp): { end: number; closed: boolean } {
	closing.lastIndex = from;
	const close = closing.exec(html);
	if (close !== null && close.index <= from + TEXT_SCAN) return { end: close.index, closed: true };
	const next = html.indexOf('<', from);
	return { end: Math.min(next === -1 ? html.length : next, from + TEXT_SCAN), closed: false };
}

/** A page's text is read this far: enough for the words its fingerprint is made of (duplicates.ts). */
const MAIN_TEXT_CHARS = 200_000;
/** What surrounds a page's content on every page of a site: its text is no part of the page's main text. */
const CHROME = new Set(['nav', 'header', 'footer', 'aside', 'noscript', 'template']);

/** What a page says: its links, the `<img src>` URLs it shows, its main text (see readPage) and its facts. */
export interface PageRead {
	links: PageLink[];
	images: string[];
	text: string;
	facts: PageFacts;
}

const SCRIPT_END = /<\/script/gi;
const STYLE_END = /<\/style/gi;
const TITLE_END = /<\/title/gi;
const H1_END = /<\/h1/gi;

/**
 * What a page's HTML (and its X-Robots-Tag and Link headers) says: every `<a href>` as an absolute http(s) URL
 * without its fragment, with its anchor text (an image's alt when it has no text) and whether its `rel` says nofollow,
 * resolved against the page's address or its `<base href>`; every `<img src>`; its main text: the text of its body
 * (or of its `<main>` and `<article>` when it has them) without its navigation, header, footer and asides, read up
 * to MAIN_TEXT_CHARS; and its facts (see PageFacts). Comments, scripts and styles are skipped; `mailto:`, `tel:`, `javascript:` and other schemes left out. The links come from the whole
 * page, the facts of the head from its first HEAD_CHARS characters. A tokenizer of its own: n8n allows a community
 * node no HTML parser. Whatever the bytes, it returns.
 */
export function readPage(html: string, pageUrl: string, headers: PageHeaders = {}): PageRead {
	const links: PageLink[] = [];
	const images: string[] = [];
	// The body's text, and what of it is in <main> or <article>: the main text is the latter when there is one.
	const bodyText: string[] = [];
	const mainText: string[] = [];
	let textLength = 0;
	let chromeDepth = 0;
	let mainDepth = 0;
	// The words on either side of a tag are two words.
	const space = () => {
		if (!inBody || textLength >= MAIN_TEXT_CHARS) return;
		textLength++;
		bodyText.push(' ');
		if (mainDepth > 0) mainText.push(' ');
	};
	let base = pageUrl;
	let title: string | null = null;
	let metaDescription: string | null = null;
	let h1: string | null = null;
	const noindexIn: string[] = [];
	let nofollow = false;
	let canonical: string | null = null;
	let canonicalHref: string | undefined;
	let canonicalConflict = false;
	const canonicalFound = (url: string) => {
		if (canonical === null) canonical = url;
		else if (url !== canonical) canonicalConflict = true;
	};
	const robots = (directives: string[], where: string) => {
		if (directives.includes('noindex') || directives.includes('none')) {
			if (!noindexIn.includes(where)) noindexIn.push(where);
		}
		if (directives.includes('nofollow') || directives.includes('none')) nofollow = true;
	};

	// A <title> in the body or in an <svg> is an image's, not the page's.
	let inBody = false;
	let svgDepth = 0;
	let open: { href: string; textStart: number; nofollow: boolean } | undefined;
	const close = (at: number) => {
		if (open === undefined) return;
		const inner = html.slice(open.textStart, Math.min(at, open.textStart + ANCHOR_SCAN)).replace(/<!--[\s\S]*?(-->|$)/g, ' ');
		const alt = /<img\b[^>]*\balt\s*=\s*("([^"]*)"|'([^']*)')/i.exec(inner);
		let text = decodeEntities(inner.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
		if (text === '' && alt !== null) text = decodeEntities(alt[2] ?? alt[3] ?? '').trim();
		const url = resolved(open.href, base);
		if (url !== undefined) links.push({ url, text: detached(text.length > ANCHOR_TEXT_LENGTH ? `${text.slice(0, ANCHOR_TEXT_LENGTH - 1)}…` : text), nofollow: open.nofollow });
		open = undefined;
	};
	let at = 0;
	while (at < html.length) {
		const lt = html.indexOf('<', at);
		if (inBody && chromeDepth === 0 && svgDepth === 0 && textLength < MAIN_TEXT_CHARS && lt !== at) {
			const text = html.slice(at, lt === -1 ? html.length : lt);
			textLength += text.length;
			bodyText.push(text);
			if (mainDepth > 0) mainText.push(text);
		}
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
		at = end;
		if (slash === '/') {
			if (name === 'a') close(lt);
			else if (name === 'svg' && svgDepth > 0) svgDepth--;
			else if (CHROME.has(name) && chromeDepth > 0) chromeDepth--;
			else if ((name === 'main' || name === 'article') && mainDepth > 0) mainDepth--;
			else if (name === 'head') inBody = true;
			space();
			continue;
		}
		space();
		if (CHROME.has(name)) chromeDepth++;
		else if (name === 'main' || name === 'article') mainDepth++;
		const inHead = lt < HEAD_CHARS;
		switch (name) {
			case 'script':
			case 'style': {
				const closing = name === 'script' ? SCRIPT_END : STYLE_END;
				closing.lastIndex = end;
				const found = closing.exec(html);
				at = found === null ? html.length : found.index;
				break;
			}
			case 'body':
				inBody = true;
				break;
			case 'svg':
				if (html[end - 2] !== '/') svgDepth++;
				break;
			case 'img':
				if (attributes.src !== undefined) {
					const url = resolved(attributes.src, base);
					if (url !== undefined) images.push(url);
				}
				break;
			case 'base':
				if (attributes.href !== undefined && base === pageUrl) base = resolved(attributes.href, pageUrl) ?? base;
				break;
			case 'a':
				close(lt);
				if (attributes.href !== undefined) open = { href: attributes.href, textStart: end, nofollow: tokensOf(attributes.rel, /\s+/).includes('nofollow') };
				break;
			case 'title':
				if (title === null && inHead && !inBody && svgDepth === 0) {
					// Its text holds no tags: what looks like one is text, up to </title>.
					const text = elementEnd(html, end, TITLE_END);
					title = shownText(html.slice(end, text.end));
					if (text.closed) at = text.end;
				}
				break;
			case 'h1':
				if (h1 === null) h1 = shownText(html.slice(end, elementEnd(html, end, H1_END).end).replace(/<[^>]*>/g, ' '));
				break;
			case 'meta': {
				if (!inHead || attributes.content === undefined) break;
				const metaName = (attributes.name ?? '').trim().toLowerCase();
				if (metaName === 'description' && metaDescription === null) metaDescription = shownText(attributes.content);
				else if (metaName === 'robots') robots(tokensOf(attributes.content, /[\s,]+/), 'meta robots');
				break;
			}
			case 'link': {
				const href = attributes.href;
				// Ten canonical links cost no more than two: one that repeats the first is not resolved again.
				if (!inHead || href === undefined || href === canonicalHref || !tokensOf(attributes.rel, /\s+/).includes('canonical')) break;
				canonicalHref ??= href;
				const url = resolved(href, base);
				if (url !== undefined) canonicalFound(url);
				break;
			}
		}
	}
	close(html.length);
	if (headers.link !== undefined) for (const url of linkHeaderCanonicals(headers.link, pageUrl)) canonicalFound(url);
	if (headers.xRobotsTag !== undefined) robots(xRobotsTagDirectives(headers.xRobotsTag), 'X-Robots-Tag');
	return {
		links,
		images,
		text: decodeEntities((mainText.length > 0 ? mainText : bodyText).join('')),
		facts: { title, metaDescription, h1, canonical, canonicalConflict, noindex: noindexIn.length > 0 ? noindexIn.join(' and ') : null, nofollow },
	};
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
		facts: null,
		responseMs: null,
		htmlBytes: null,
		fingerprint: null,
		nofollowLinks: 0,
		nofollowTargets: [],
	};
}

/**
 * A small web site with a known link graph, for Site > Audit to crawl with no network: its own HTTP server on its
 * own port (a site's robots.txt lives at its host's root), pages linking with relative hrefs from a sub-folder, a
 * chain four clicks deep, two broken targets linked from several pages with different anchor texts, an orphan
 * listed in the sitemap only, a redirect, a redirect loop, a folder robots.txt disallows, an external link and the
 * links a crawler skips (`mailto:`, `tel:`, `javascript:`, a fragment). Under `/indexing/`, what search engines are
 * told: noindex by a robots meta tag and by an X-Robots-Tag header, a nofollow page and a `rel="nofollow"` link, each
 * the only way to a page, a canonicalized page, two canonical URLs that disagree, a chain of three redirects, a PDF. Each
 * request is recorded, with when it came and when its answer was sent.
 *
 * The variants a bad site plays: robots.txt missing, failing or an HTML page, or asking for a Crawl-delay; the
 * sitemap an HTML page; pages whose answer never comes (held until the server closes); pages of bad HTML (unclosed
 * tags, ten canonical links, 5 MB, binary bytes). Its sitemap is an image sitemap, as WordPress's SEO plugins write
 * one: each page with the images on it. Other sitemaps (another generator's, an index) can be served in place of its
 * own.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';

/** How robots.txt answers: the site's rules, 404, 500, or a 200 HTML page (a site answering every path with its home page). */
export type RobotsVariant = 'rules' | 'missing' | 'serverError' | 'html';

/** How /sitemap.xml answers: the sitemap, gzipped sitemap bytes, 404, or a 200 HTML page. */
export type SitemapVariant = 'xml' | 'gzip' | 'missing' | 'html';

export interface AuditSiteOptions {
	robots?: RobotsVariant;
	sitemap?: SitemapVariant;
	/**
	 * The `Sitemap:` lines of robots.txt in place of the site's own /sitemap.xml (sitemaps elsewhere, such as the
	 * shop's); a path is on the site itself.
	 */
	sitemaps?: string[];
	/** XML files served at these paths (`application/xml`), in place of the site's own: each made from the site's origin. */
	xmlFiles?: Record<string, (origin: string) => string>;
	/** Paths whose answer never comes: the request is held until the server closes. */
	heldPaths?: string[];
	/** Where the home page's external link points; another host, never fetched unless external links are checked. */
	externalUrl?: string;
	/**
	 * A site of this many pages in place of the one above, for benchmarks: `/` and `/p/<n>.html` (n from 1), each
	 * linking to the next five of a five-ary tree (`/p/<5n+1>.html` to `/p/<5n+5>.html`), to `/` and to one of ten
	 * broken targets (`/missing-<n % 10>.html`, 404); each with 80 words of text of its own and the site's logo
	 * (`/images/logo.png`); the sitemap lists every page.
	 */
	generatedPages?: number;
	/** A `Crawl-delay:` of this many seconds in robots.txt's group for every crawler (`User-agent: *`). */
	crawlDelay?: number;
	/**
	 * Pages of bad HTML linked from the home page (BAD_HTML_PATHS): unclosed tags, ten canonical links, a 5 MB page
	 * whose last link is the only one to `/bad/after-huge.html`, binary bytes served as `text/html`.
	 */
	badHtml?: boolean;
	/** Pages answered after SLOW_PAGE_MS: slow pages, as a site-audit tool counts them. */
	slowPaths?: string[];
	/** The port on 127.0.0.1 to listen on; any free one by default. */
	port?: number;
}

/** How long the `slowPaths` take to answer: past Site > Audit's 3 s. */
export const SLOW_PAGE_MS = 3200;

export interface AuditSiteRequest {
	method: string;
	path: string;
	userAgent: string | undefined;
	/** When it came (`Date.now()`). */
	at: number;
	/** When its whole answer was handed to the connection; null until then (a held page's, for ever). */
	answeredAt: number | null;
}

/**
 * A page of the site: the links it holds (`href`, anchor text, `rel`), what its head and headers add, or the status
 * and Location it answers with, or the bytes it answers with as they are.
 */
interface SitePage {
	status?: number;
	location?: string;
	base?: string;
	/** In place of the path as its title. */
	title?: string;
	head?: string;
	h1?: string;
	/** The page's main text, in `<main>` (its links are in a `<nav>` before it). */
	text?: string;
	/** `<img src>` of the page. */
	images?: string[];
	headers?: OutgoingHttpHeaders;
	links?: Array<[href: string, text: string, rel?: string]>;
	raw?: () => string | Buffer;
	/** In place of HTML's Content-Type. */
	type?: string;
}

export const EXTERNAL_URL = 'https://partner.example/brewing';

const SKIPPED_LINKS: Array<[string, string]> = [
	['mailto:shop@example.com', 'Write to us'],
	['tel:+15550100', 'Call us'],
	['javascript:void(0)', 'Menu'],
	['#main', 'Skip to content'],
];

/** The pages of bad HTML the `badHtml` option adds, linked from the home page. */
export const BAD_HTML_PATHS = ['/bad/unclosed.html', '/bad/canonicals.html', '/bad/huge.html', '/bad/binary.html'];

/** The size of `/bad/huge.html`, in bytes. */
export const HUGE_PAGE_BYTES = 5 * 1024 * 1024;

/** The size of `/bad/binary.html`, in bytes: pseudo-random, the same on every run. */
export const BINARY_PAGE_BYTES = 64 * 1024;

let hugePage: Buffer | undefined;

/** 5 MB of paragraphs and scripts, its title at the start and its only link to `/bad/after-huge.html` at the end. */
function hugePageBytes(): Buffer {
	if (hugePage !== undefined) return hugePage;
	const start = '<!DOCTYPE html>\n<html><head><title>A huge page</title></head>\n<body><h1>Everything on one page</h1>\n';
	const end = '<a href="/bad/after-huge.html">The end of the huge page</a>\n</body></html>\n';
	const line = '<p>Line of a very long page.</p><script>var seen = "<a href=/in-a-script.html>";</script>\n';
	const fill = HUGE_PAGE_BYTES - start.length - end.length;
	const lines = line.repeat(Math.floor(fill / line.length));
	hugePage = Buffer.from(`${start}${lines}${' '.repeat(fill - lines.length)}${end}`);
	return hugePage;
}

function binaryPageBytes(): Buffer {
	let seed = 2026;
	return Buffer.from(Uint8Array.from({ length: BINARY_PAGE_BYTES }, () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) >> 16));
}

const BAD_HTML_PAGES: Record<string, SitePage> = {
	'/bad/unclosed.html': {
		raw: () =>
			'<html><head><title>Unclosed title<meta name="description" content="A page of unclosed tags">\n' +
			'<body><h1>Heading without end<p>Text <a href="/about.html">About <b>us\n<a href=../docs/intro.html>Intro<div>\n' +
			'<!-- a comment never closed <a href="/bad/in-a-comment.html">Hidden</a>\n',
	},
	'/bad/canonicals.html': {
		head: Array.from({ length: 10 }, (_, n) => `<link rel="canonical" href="${n === 0 ? '/bad/canonicals.html' : `/bad/canonicals.html?v=${n}`}">`).join('\n'),
	},
	'/bad/huge.html': { raw: hugePageBytes },
	'/bad/after-huge.html': { links: [] },
	'/bad/binary.html': { raw: binaryPageBytes },
};

// The text of the shop's guide: two pages hold it, one with a word changed (near duplicates, 96% alike by shingles);
// the introduction holds its first half and words of its own (not duplicates).
const GUIDE = [
	'Good tea starts with fresh water brought just to the boil and poured over leaves that have room to move.',
	'Green tea wants water that has cooled for a minute or two, black tea wants it boiling, and oolong sits between.',
	'Warm the pot first so the water keeps its heat, measure one spoon of leaves for each cup, and set a timer.',
	'Three minutes suit most black teas, two suit green teas, and herbal blends can steep for five minutes or more.',
	'Pour every last drop out of the pot once the time is up, because leaves left in the water turn the tea bitter.',
	'Store the leaves in a dark airtight tin away from spices and coffee, and they keep their taste for many months.',
	'Coffee asks for the same care: grind the beans just before brewing, coarse for a press and fine for an espresso.',
	'Use about seven grams of coffee for every cup of water, and never let the water boil hard over the grounds.',
	'A press needs four minutes before the plunger goes down slowly, while a filter needs water poured in small circles.',
	'Rinse a paper filter with hot water before the coffee goes in, so that the cup tastes of coffee and not of paper.',
	'Clean the kettle with a little vinegar every month where the water is hard, and rinse it well before the next pot.',
	'Most of all, taste as you go, write down what you liked, and change one thing at a time until the cup suits you.',
].join(' ');
const GUIDE_CHANGED = GUIDE.replace('set a timer', 'set a clock');
const INTRO = `${GUIDE.slice(0, GUIDE.length / 2)} The chapters that follow show each step with the kettles and pots of our shop, from the first cup of the morning to the last pot of the evening, and what to do when a tea tastes flat, thin, bitter or stewed.`;
// The shop's story, on two pages word for word.
const STORY =
	'We opened our first shop in a narrow street in 1998 with two kettles, a shelf of teapots and a sack of coffee beans. ' +
	'Twenty eight years later we still taste every tea we sell, we still roast our coffee each week, and we still answer ' +
	'every letter ourselves. Our team of nine brews, packs and ships your order from the same street, and we are glad to ' +
	'help you choose a kettle, a grinder or a first tea.';

const pages = (externalUrl: string, badHtml: boolean): Record<string, SitePage> => ({
	'/': {
		images: ['/images/logo.png', '/images/no-head.png', '/images/old-logo.png'],
		links: [
			['docs/intro.html', 'Docs'],
			['/about.html', 'About us'],
			['/old-page', 'Our story'],
			['/private/staff.html', 'Staff'],
			['base.html', 'Base'],
			['indexing/', 'Indexing'],
			...(badHtml ? BAD_HTML_PATHS.map((path): [string, string] => [path, `Bad HTML ${path}`]) : []),
			[externalUrl, 'Partner'],
			...SKIPPED_LINKS,
		],
	},
	'/docs/intro.html': {
		text: INTRO,
		images: ['/images/logo.png'],
		links: [
			['next.html', 'Next chapter'],
			['../about.html', 'About'],
			['missing.html', 'Missing chapter'],
		],
	},
	'/about.html': {
		head: '<meta name="description" content="Tea and coffee gear, tasted and chosen since 1998.">',
		text: STORY,
		images: ['/images/logo.png', '/images/team.jpg', '/images/missing.jpg'],
		links: [
			['docs/intro.html#top', 'Intro'],
			['/gone.html', 'Gone'],
			['loop-a', 'Loop'],
		],
	},
	// <base href> sets what its relative links resolve against.
	'/base.html': { base: '/docs/', head: '<meta name="description" content="Tea and coffee gear, tasted and chosen since 1998.">', links: [['next.html', 'Next via base']] },
	'/docs/next.html': {
		title: 'Brewing guide',
		links: [
			['deep/three.html', 'Go deeper'],
			['missing.html', 'Read on'],
			['/gone.html', 'Old offer'],
		],
	},
	'/docs/deep/three.html': {
		title: 'Brewing guide',
		text: GUIDE,
		links: [
			['four.html', 'Deepest page'],
			['../../gone.html', 'Archive'],
		],
	},
	'/docs/deep/four.html': { text: GUIDE_CHANGED, images: ['/images/missing.jpg'], links: [['/', 'Home']] },
	'/orphan.html': { text: STORY, links: [] },
	'/private/staff.html': { links: [] },
	'/old-page': { status: 301, location: '/about.html' },
	'/loop-a': { status: 302, location: '/loop-b' },
	'/loop-b': { status: 302, location: '/loop-a' },
	'/docs/missing.html': { status: 404 },
	'/gone.html': { status: 410 },
	// What search engines are told: each case once, the pages they alone lead to found nowhere else.
	'/indexing/': {
		title: '\n  Indexing &amp; crawling  \n',
		head: '<meta name="description" content="How search engines\n   see this site &mdash; and what they leave out">',
		h1: 'What <em>crawlers</em>&nbsp;see',
		links: [
			['noindex-meta.html', 'Printable version'],
			['noindex-header.html', 'Search results'],
			['nofollow.html', 'Members'],
			['hidden-by-rel.html', 'Sponsor', 'external NoFollow'],
			// ugc and sponsored are no nofollow: the only link to the canonicalized page is followed.
			['canonicalized.html', 'Comments', 'ugc sponsored'],
			['two-canonicals.html', 'Tea list'],
			['hop-1', 'Old shop'],
			['price-list.pdf', 'Price list'],
			['canonical-to-gone.html', 'Spring offer'],
			['canonical-to-redirect.html', 'Our story again'],
			['canonical-to-noindex.html', 'Print this'],
		],
	},
	// Canonical URLs that are no indexable page: a broken one, a redirect, a noindex page.
	'/indexing/canonical-to-gone.html': { head: '<link rel="canonical" href="/gone.html">', links: [] },
	'/indexing/canonical-to-redirect.html': { head: '<link rel="canonical" href="/old-page">', links: [] },
	'/indexing/canonical-to-noindex.html': { head: '<link rel="canonical" href="noindex-meta.html">', links: [] },
	'/indexing/noindex-meta.html': { head: '<meta name="ROBOTS" content="noindex, follow">', links: [['../about.html', 'About']] },
	// A directive for another crawler is not this one's: the page's links are followed.
	'/indexing/noindex-header.html': { headers: { 'X-Robots-Tag': ['noindex', 'OtherBot: nofollow'] }, links: [['followed.html', 'Read on']] },
	'/indexing/followed.html': { headers: { Link: '</indexing/followed.html>; rel="canonical"' }, links: [] },
	// Its links are counted (the broken one too), not followed.
	'/indexing/nofollow.html': {
		head: '<meta name="robots" content="nofollow">',
		links: [
			['hidden-by-meta.html', 'Members area'],
			['../docs/missing.html', 'Old chapter'],
		],
	},
	'/indexing/hidden-by-meta.html': { links: [] },
	'/indexing/hidden-by-rel.html': { links: [] },
	'/indexing/canonicalized.html': { head: '<link rel="canonical" href="preferred.html">', links: [] },
	'/indexing/preferred.html': { head: '<link rel="canonical" href="/indexing/preferred.html#main">', links: [] },
	'/indexing/two-canonicals.html': { head: '<link rel="canonical" href="preferred.html">\n<link rel="canonical" href="/about.html">', links: [] },
	'/indexing/hop-1': { status: 301, location: '/indexing/hop-2' },
	'/indexing/hop-2': { status: 302, location: '/indexing/hop-3' },
	'/indexing/hop-3': { status: 307, location: '/about.html' },
	'/indexing/price-list.pdf': { type: 'application/pdf', raw: () => '%PDF-1.4\n% A price list\n%%EOF\n' },
	...(badHtml ? BAD_HTML_PAGES : {}),
});

/**
 * The pages an audit of the site analyzes, in the order a breadth-first crawl from `/` finds them: those answering 200
 * with HTML that robots.txt allows, a followed link, a canonical URL or the sitemap leads to, and search engines may
 * index (the orphan, in the sitemap only, last).
 */
export const AUDIT_SITE_ANALYZED_PATHS: readonly string[] = [
	'/',
	'/docs/intro.html',
	'/about.html',
	'/base.html',
	'/indexing/',
	'/docs/next.html',
	'/indexing/nofollow.html',
	'/docs/deep/three.html',
	'/indexing/followed.html',
	'/indexing/preferred.html',
	'/docs/deep/four.html',
	'/orphan.html',
];

/**
 * The site issues an audit of the site finds (by default, Check Images on), issue by issue: the path of each URL with
 * it, and the paths it concerns, sorted.
 */
export const AUDIT_SITE_ISSUES: Readonly<Record<string, Readonly<Record<string, string[]>>>> = {
	// Errors.
	broken_link: {
		'/docs/missing.html': ['/docs/intro.html', '/docs/next.html', '/indexing/nofollow.html'],
		'/gone.html': ['/about.html', '/docs/deep/three.html', '/docs/next.html'],
	},
	duplicate_title: { '/docs/next.html': ['/docs/deep/three.html'], '/docs/deep/three.html': ['/docs/next.html'] },
	duplicate_content: {
		'/about.html': ['/orphan.html'],
		'/orphan.html': ['/about.html'],
		'/docs/deep/three.html': ['/docs/deep/four.html'],
		'/docs/deep/four.html': ['/docs/deep/three.html'],
	},
	canonical_broken: { '/indexing/canonical-to-gone.html': ['/gone.html'] },
	sitemap_broken: { '/gone.html': [] },
	redirect_loop: { '/loop-a': ['/loop-a', '/loop-b'], '/loop-b': ['/loop-a', '/loop-b'] },
	broken_image: { '/about.html': ['/images/missing.jpg'], '/docs/deep/four.html': ['/images/missing.jpg'] },
	// Warnings.
	duplicate_meta_description: { '/about.html': ['/base.html'], '/base.html': ['/about.html'] },
	redirect_chain: { '/indexing/hop-1': ['/about.html', '/indexing/hop-2', '/indexing/hop-3'], '/indexing/hop-2': ['/about.html', '/indexing/hop-3'] },
	link_to_redirect: { '/old-page': ['/'], '/loop-a': ['/about.html'], '/indexing/hop-1': ['/indexing/'] },
	canonical_redirect: { '/indexing/canonical-to-redirect.html': ['/old-page'] },
	canonical_noindex: { '/indexing/canonical-to-noindex.html': ['/indexing/noindex-meta.html'] },
	canonical_multiple: { '/indexing/two-canonicals.html': [] },
	sitemap_redirect: { '/old-page': [] },
	sitemap_noindex: { '/indexing/noindex-meta.html': [] },
	sitemap_canonicalized: { '/indexing/canonicalized.html': [] },
	sitemap_blocked: { '/private/staff.html': [] },
	// Notices.
	orphan_page: { '/orphan.html': [] },
	missing_from_sitemap: Object.fromEntries(
		['/base.html', '/indexing/', '/docs/next.html', '/indexing/nofollow.html', '/docs/deep/three.html', '/indexing/followed.html', '/indexing/preferred.html', '/docs/deep/four.html'].map(
			(path) => [path, []],
		),
	),
	deep_page: { '/docs/deep/four.html': [] },
	nofollow_links: { '/indexing/': ['/indexing/hidden-by-rel.html'] },
	noindex_page: { '/indexing/noindex-meta.html': [], '/indexing/noindex-header.html': [] },
	blocked_page: { '/private/staff.html': [] },
};

/**
 * The paths the sitemap lists: three pages also linked, the orphan, linked from none, and what a sitemap should not
 * list: a broken URL, a redirect, a noindex page, a canonicalized page and a page robots.txt disallows.
 */
export const AUDIT_SITEMAP_PATHS = [
	'/',
	'/about.html',
	'/docs/intro.html',
	'/orphan.html',
	'/gone.html',
	'/old-page',
	'/indexing/noindex-meta.html',
	'/indexing/canonicalized.html',
	'/private/staff.html',
];

/**
 * The images the pages show (`<img src>`): one on three pages, one refusing HEAD (answering 405), one moved (301 to
 * the first), and one missing (404) on two pages.
 */
export const AUDIT_SITE_IMAGES = ['/images/logo.png', '/images/no-head.png', '/images/old-logo.png', '/images/team.jpg', '/images/missing.jpg'];

/** A tiny PNG: the images that load. */
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');

const ROBOTS_RULES = (sitemaps: string[], crawlDelay?: number) =>
	`# The site's rules\nUser-agent: OtherBot\nDisallow: /\nCrawl-delay: 30\n\nUser-agent: *\n${crawlDelay === undefined ? '' : `Crawl-delay: ${crawlDelay}\n`}Disallow: /private/\nAllow: /private/press\n\n${sitemaps.map((sitemap) => `Sitemap: ${sitemap}\n`).join('')}`;

/** The images the sitemap lists with each page (`<image:image>`): URLs on the site that are no pages. */
export const AUDIT_SITEMAP_IMAGES: Record<string, string[]> = {
	'/': ['/wp-content/uploads/2026/11/shop-front.jpg', '/wp-content/uploads/2026/11/kettles.jpg'],
	'/about.html': ['/wp-content/uploads/2026/11/team.jpg'],
	'/docs/intro.html': [],
	'/orphan.html': ['/wp-content/uploads/2026/11/orphan-banner.png'],
};

const HTML_PAGE = '<!DOCTYPE html>\n<html><head><title>Brew shop</title></head><body><p>Welcome</p></body></html>\n';

// An image sitemap as WordPress's SEO plugins write one: its <image:loc> elements are no pages.
const sitemapXml = (origin: string) =>
	`<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n${AUDIT_SITEMAP_PATHS.map(
		(path) =>
			`  <url>\n    <loc>${origin}${path}</loc>\n${(AUDIT_SITEMAP_IMAGES[path] ?? []).map((image) => `    <image:image>\n      <image:loc>${origin}${image}</image:loc>\n    </image:image>\n`).join('')}  </url>\n`,
	).join('')}</urlset>\n`;

function pageHtml(path: string, page: SitePage): string {
	const base = page.base === undefined ? '' : `<base href="${page.base}">`;
	// Attributes quoted three ways and spread over lines, as hand-written and generated pages have them.
	const links = (page.links ?? []).map(([href, text, rel], index) => {
		const relAttribute = rel === undefined ? '' : ` rel="${rel}"`;
		return index % 3 === 0
			? `<a href="${href}"${relAttribute}>${text}</a>`
			: index % 3 === 1
				? `<a class='nav'${relAttribute}\n   href='${href}'>${text}</a>`
				: `<A HREF=${href} title="x"${relAttribute}>${text}</A>`;
	});
	const h1 = page.h1 === undefined ? '' : `<h1>${page.h1}</h1>\n`;
	const images = (page.images ?? []).map((src) => `<img src="${src}" alt="">\n`).join('');
	const content = page.text === undefined ? `${images}${links.join('\n')}` : `<nav>\n${links.join('\n')}\n</nav>\n<main>${images}<p>${page.text}</p></main>`;
	return `<!DOCTYPE html>\n<html><head><title>${page.title ?? path}</title>${base}${page.head ?? ''}</head>\n<body>\n${h1}<!-- <a href="/commented-out.html">old</a> -->\n${content}\n</body></html>\n`;
}

export class AuditSite {
	readonly requests: AuditSiteRequest[] = [];
	private readonly server: Server;
	private readonly sockets = new Set<Socket>();
	private readonly held: ServerResponse[] = [];

	constructor(private readonly options: AuditSiteOptions = {}) {
		this.server = createServer((req, res) => this.answer(req, res));
		this.server.on('connection', (socket) => {
			this.sockets.add(socket);
			socket.on('close', () => this.sockets.delete(socket));
		});
	}

	/** The site's origin, `http://127.0.0.1:<port>`: its pages are `${url}/about.html`. */
	get url(): string {
		return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
	}

	async listen(): Promise<void> {
		await new Promise<void>((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(this.options.port ?? 0, '127.0.0.1', resolve);
		});
	}

	/** The paths requested, in order. */
	paths(): string[] {
		return this.requests.map((request) => request.path);
	}

	clearRequests(): void {
		this.requests.length = 0;
	}

	async close(): Promise<void> {
		for (const res of this.held) res.destroy();
		for (const socket of this.sockets) socket.destroy();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	private answer(req: IncomingMessage, res: ServerResponse): void {
		const path = (req.url ?? '/').split('?')[0];
		const request: AuditSiteRequest = { method: req.method ?? 'GET', path, userAgent: req.headers['user-agent'], at: Date.now(), answeredAt: null };
		this.requests.push(request);
		if (this.options.heldPaths?.includes(path)) {
			this.held.push(res);
			return;
		}
		if (this.options.slowPaths?.includes(path)) setTimeout(() => this.respond(request, res), SLOW_PAGE_MS);
		else this.respond(request, res);
	}

	private respond(request: AuditSiteRequest, res: ServerResponse): void {
		const { path } = request;
		if (res.destroyed) return;
		const send = (status: number, type: string, body: string | Buffer, headers: OutgoingHttpHeaders = {}) => {
			res.writeHead(status, { 'Content-Type': type, Connection: 'close', ...headers });
			res.end(body, () => (request.answeredAt = Date.now()));
		};
		const { generatedPages } = this.options;
		if (generatedPages !== undefined) return this.answerGenerated(path, generatedPages, send);
		const html = 'text/html; charset=UTF-8';
		if (path === '/robots.txt') {
			const robots = this.options.robots ?? 'rules';
			const sitemaps = (this.options.sitemaps ?? ['/sitemap.xml']).map((sitemap) => new URL(sitemap, this.url).href);
			if (robots === 'rules') return send(200, 'text/plain; charset=UTF-8', ROBOTS_RULES(sitemaps, this.options.crawlDelay));
			if (robots === 'html') return send(200, html, HTML_PAGE);
			return send(robots === 'missing' ? 404 : 500, html, `<html><body><h1>${robots === 'missing' ? 404 : 500}</h1></body></html>`);
		}
		const xmlFile = this.options.xmlFiles?.[path];
		if (xmlFile !== undefined) return send(200, 'application/xml; charset=UTF-8', xmlFile(this.url));
		if (path === '/sitemap.xml') {
			const sitemap = this.options.sitemap ?? 'xml';
			if (sitemap === 'xml') return send(200, 'application/xml; charset=UTF-8', sitemapXml(this.url));
			if (sitemap === 'gzip') return send(200, 'application/octet-stream', gzipSync(sitemapXml(this.url)));
			if (sitemap === 'html') return send(200, html, HTML_PAGE);
			return send(404, html, '<html><body><h1>404 Not Found</h1></body></html>');
		}
		if (path === '/images/old-logo.png') return send(301, html, '', { Location: '/images/logo.png' });
		if (path === '/images/no-head.png' && request.method === 'HEAD') return send(405, html, '', { Allow: 'GET' });
		if (['/images/logo.png', '/images/no-head.png', '/images/team.jpg'].includes(path)) return send(200, path.endsWith('.png') ? 'image/png' : 'image/jpeg', PNG);
		const page = pages(this.options.externalUrl ?? EXTERNAL_URL, this.options.badHtml === true)[path];
		if (page === undefined) return send(404, html, '<html><body><h1>404 Not Found</h1></body></html>');
		if (page.location !== undefined) return send(page.status ?? 302, html, '', { Location: page.location });
		if (page.status !== undefined) return send(page.status, html, `<html><body><h1>${page.status}</h1></body></html>`);
		send(200, page.type ?? html, page.raw?.() ?? pageHtml(path, page), page.headers);
	}

	private answerGenerated(path: string, count: number, send: (status: number, type: string, body: string | Buffer) => void): void {
		const html = 'text/html; charset=UTF-8';
		if (path === '/robots.txt') return send(200, 'text/plain; charset=UTF-8', `User-agent: *\nDisallow: /private/\n\nSitemap: ${this.url}/sitemap.xml\n`);
		if (path === '/sitemap.xml') {
			const locs = Array.from({ length: count }, (_, n) => `  <url><loc>${this.url}${generatedPath(n)}</loc></url>\n`).join('');
			return send(200, 'application/xml; charset=UTF-8', `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${locs}</urlset>\n`);
		}
		if (path === '/images/logo.png') return send(200, 'image/png', PNG);
		const n = generatedNumber(path, count);
		if (n === undefined) return send(404, html, '<html><body><h1>404 Not Found</h1></body></html>');
		const children = [1, 2, 3, 4, 5].map((k) => 5 * n + k).filter((child) => child < count);
		const links: Array<[string, string]> = [
			...children.map((child): [string, string] => [generatedPath(child), `Page ${child}`]),
			['/', 'Home'],
			[`/missing-${n % 10}.html`, `Old page ${n % 10}`],
		];
		send(200, html, pageHtml(path, { links, text: generatedText(n), images: ['/images/logo.png'] }));
	}
}

/** The number of a generated page from its path (`/` is 0), or undefined. */
function generatedNumber(path: string, count: number): number | undefined {
	if (path === '/') return 0;
	const match = /^\/p\/([1-9]\d*)\.html$/.exec(path);
	const n = match === null ? undefined : Number(match[1]);
	return n !== undefined && n < count ? n : undefined;
}

const generatedPath = (n: number) => (n === 0 ? '/' : `/p/${n}.html`);

const GENERATED_WORDS = ['kettle', 'teapot', 'green', 'black', 'leaf', 'brew', 'water', 'cup', 'grinder', 'bean', 'roast', 'filter', 'press', 'steep', 'pour', 'taste'];

/** A generated page's text: 80 words of its own (each page's fingerprint is made and compared, as a real site's are). */
function generatedText(n: number): string {
	let seed = n + 1;
	const words: string[] = [];
	for (let i = 0; i < 80; i++) {
		seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
		words.push(GENERATED_WORDS[seed >>> 28]);
	}
	return words.join(' ');
}

export async function startAuditSite(options: AuditSiteOptions = {}): Promise<AuditSite> {
	const site = new AuditSite(options);
	await site.listen();
	return site;
}

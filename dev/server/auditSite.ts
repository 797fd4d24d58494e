/**
 * A small web site with a known link graph, for Site > Audit to crawl with no network: its own HTTP server on its
 * own port (a site's robots.txt lives at its host's root), pages linking with relative hrefs from a sub-folder, a
 * chain four clicks deep, two broken targets linked from several pages with different anchor texts, an orphan
 * listed in the sitemap only, a redirect, a redirect loop, a folder robots.txt disallows, an external link and the
 * links a crawler skips (`mailto:`, `tel:`, `javascript:`, a fragment). Each request is recorded.
 *
 * Its sitemap is an image sitemap, as WordPress's SEO plugins write one: each page with the images on it.
 *
 * The variants a bad site plays: robots.txt missing, failing or an HTML page; the sitemap an HTML page; pages whose
 * answer never comes (held until the server closes). Other sitemaps (another generator's, an index) can be served
 * in place of its own.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
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
	 * broken targets (`/missing-<n % 10>.html`, 404); the sitemap lists every page.
	 */
	generatedPages?: number;
	/** The port on 127.0.0.1 to listen on; any free one by default. */
	port?: number;
}

export interface AuditSiteRequest {
	method: string;
	path: string;
	userAgent: string | undefined;
}

/** A page of the site: the links it holds (`href`, anchor text), or the status and Location it answers with. */
interface SitePage {
	status?: number;
	location?: string;
	base?: string;
	links?: Array<[href: string, text: string]>;
}

export const EXTERNAL_URL = 'https://partner.example/brewing';

const SKIPPED_LINKS: Array<[string, string]> = [
	['mailto:shop@example.com', 'Write to us'],
	['tel:+15550100', 'Call us'],
	['javascript:void(0)', 'Menu'],
	['#main', 'Skip to content'],
];

const pages = (externalUrl: string): Record<string, SitePage> => ({
	'/': {
		links: [
			['docs/intro.html', 'Docs'],
			['/about.html', 'About us'],
			['/old-page', 'Our story'],
			['/private/staff.html', 'Staff'],
			['base.html', 'Base'],
			[externalUrl, 'Partner'],
			...SKIPPED_LINKS,
		],
	},
	'/docs/intro.html': {
		links: [
			['next.html', 'Next chapter'],
			['../about.html', 'About'],
			['missing.html', 'Missing chapter'],
		],
	},
	'/about.html': {
		links: [
			['docs/intro.html#top', 'Intro'],
			['/gone.html', 'Gone'],
			['loop-a', 'Loop'],
		],
	},
	// <base href> sets what its relative links resolve against.
	'/base.html': { base: '/docs/', links: [['next.html', 'Next via base']] },
	'/docs/next.html': {
		links: [
			['deep/three.html', 'Go deeper'],
			['missing.html', 'Read on'],
			['/gone.html', 'Old offer'],
		],
	},
	'/docs/deep/three.html': {
		links: [
			['four.html', 'Deepest page'],
			['../../gone.html', 'Archive'],
		],
	},
	'/docs/deep/four.html': { links: [['/', 'Home']] },
	'/orphan.html': { links: [] },
	'/private/staff.html': { links: [] },
	'/old-page': { status: 301, location: '/about.html' },
	'/loop-a': { status: 302, location: '/loop-b' },
	'/loop-b': { status: 302, location: '/loop-a' },
	'/docs/missing.html': { status: 404 },
	'/gone.html': { status: 410 },
});

/** The paths the sitemap lists: three pages also linked, and the orphan, linked from none. */
export const AUDIT_SITEMAP_PATHS = ['/', '/about.html', '/docs/intro.html', '/orphan.html'];

/** The images the sitemap lists with each page (`<image:image>`): URLs on the site that are no pages. */
export const AUDIT_SITEMAP_IMAGES: Record<string, string[]> = {
	'/': ['/wp-content/uploads/2026/11/shop-front.jpg', '/wp-content/uploads/2026/11/kettles.jpg'],
	'/about.html': ['/wp-content/uploads/2026/11/team.jpg'],
	'/docs/intro.html': [],
	'/orphan.html': ['/wp-content/uploads/2026/11/orphan-banner.png'],
};

const ROBOTS_RULES = (sitemaps: string[]) =>
	`# The site's rules\nUser-agent: OtherBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\nAllow: /private/press\n\n${sitemaps.map((sitemap) => `Sitemap: ${sitemap}\n`).join('')}`;

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
	const links = (page.links ?? []).map(([href, text], index) =>
		index % 3 === 0 ? `<a href="${href}">${text}</a>` : index % 3 === 1 ? `<a class='nav'\n   href='${href}'>${text}</a>` : `<A HREF=${href} title="x">${text}</A>`,
	);
	return `<!DOCTYPE html>\n<html><head><title>${path}</title>${base}</head>\n<body>\n<!-- <a href="/commented-out.html">old</a> -->\n${links.join('\n')}\n</body></html>\n`;
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
		this.requests.push({ method: req.method ?? 'GET', path, userAgent: req.headers['user-agent'] });
		if (this.options.heldPaths?.includes(path)) {
			this.held.push(res);
			return;
		}
		const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) => {
			res.writeHead(status, { 'Content-Type': type, Connection: 'close', ...headers });
			res.end(body);
		};
		const { generatedPages } = this.options;
		if (generatedPages !== undefined) return this.answerGenerated(path, generatedPages, send);
		const html = 'text/html; charset=UTF-8';
		if (path === '/robots.txt') {
			const robots = this.options.robots ?? 'rules';
			const sitemaps = (this.options.sitemaps ?? ['/sitemap.xml']).map((sitemap) => new URL(sitemap, this.url).href);
			if (robots === 'rules') return send(200, 'text/plain; charset=UTF-8', ROBOTS_RULES(sitemaps));
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
		const page = pages(this.options.externalUrl ?? EXTERNAL_URL)[path];
		if (page === undefined) return send(404, html, '<html><body><h1>404 Not Found</h1></body></html>');
		if (page.location !== undefined) return send(page.status ?? 302, html, '', { Location: page.location });
		if (page.status !== undefined) return send(page.status, html, `<html><body><h1>${page.status}</h1></body></html>`);
		send(200, html, pageHtml(path, page));
	}

	private answerGenerated(path: string, count: number, send: (status: number, type: string, body: string) => void): void {
		const html = 'text/html; charset=UTF-8';
		if (path === '/robots.txt') return send(200, 'text/plain; charset=UTF-8', `User-agent: *\nDisallow: /private/\n\nSitemap: ${this.url}/sitemap.xml\n`);
		if (path === '/sitemap.xml') {
			const locs = Array.from({ length: count }, (_, n) => `  <url><loc>${this.url}${generatedPath(n)}</loc></url>\n`).join('');
			return send(200, 'application/xml; charset=UTF-8', `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${locs}</urlset>\n`);
		}
		const n = generatedNumber(path, count);
		if (n === undefined) return send(404, html, '<html><body><h1>404 Not Found</h1></body></html>');
		const children = [1, 2, 3, 4, 5].map((k) => 5 * n + k).filter((child) => child < count);
		const links: Array<[string, string]> = [
			...children.map((child): [string, string] => [generatedPath(child), `Page ${child}`]),
			['/', 'Home'],
			[`/missing-${n % 10}.html`, `Old page ${n % 10}`],
		];
		send(200, html, pageHtml(path, { links }));
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

export async function startAuditSite(options: AuditSiteOptions = {}): Promise<AuditSite> {
	const site = new AuditSite(options);
	await site.listen();
	return site;
}

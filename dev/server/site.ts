/**
 * A small web site's sitemaps, served by the bundled server under /__site/ so that a site audit runs with no
 * network: a sitemap index pointing to three sitemaps, one of them gzipped, listing a shop's pages. The pages are
 * www.brewshop.example's (a reserved name): the analysis scores them from their URL, as it does any page, which
 * gives the shop good, decent and bad pages; one listed page is gone, and fetching it fails as it would in phpRank.
 */
import { gzipSync } from 'node:zlib';

/** Where the bundled server serves the site's files, outside phpRank's own paths. */
export const SITE_PREFIX = '/__site';

export const SITE_ORIGIN = 'https://www.brewshop.example';

const PAGE_PATHS = {
	pages: ['/', '/about', '/pricing', '/shipping', '/contact'],
	products: ['/products/blue-kettle', '/products/espresso-grinder', '/products/french-press', '/products/milk-frother'],
	// The home page is listed twice, as sitemaps often do; the summer sale page was taken down.
	blog: ['/blog/brewing-guide', '/blog/water-temperature', '/blog/cold-brew', '/', '/blog/summer-sale-2019'],
};

const GONE_PATHS = ['/blog/summer-sale-2019'];

/** The sitemaps, by file name, and the pages each lists. */
const SITEMAPS: Array<{ file: string; paths: string[] }> = [
	{ file: 'sitemap-pages.xml', paths: PAGE_PATHS.pages },
	{ file: 'sitemap-products.xml.gz', paths: PAGE_PATHS.products },
	{ file: 'sitemap-blog.xml', paths: PAGE_PATHS.blog },
];

const pageUrl = (path: string) => `${SITE_ORIGIN}${path}`;

/** Every page URL the sitemaps list, once each, in the order they first appear. */
export const SITE_PAGES: readonly string[] = [...new Set(SITEMAPS.flatMap((sitemap) => sitemap.paths.map(pageUrl)))];

/** The listed pages that answer 404: phpRank cannot report on them. */
export const GONE_PAGES: readonly string[] = GONE_PATHS.map(pageUrl);

/** The file names the sitemap index points to, in its order. */
export const SITEMAP_FILES: readonly string[] = SITEMAPS.map((sitemap) => sitemap.file);

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>';
const NAMESPACE = 'http://www.sitemaps.org/schemas/sitemap/0.9';
const LAST_MODIFIED = '2026-11-02';

const sitemapIndex = (siteUrl: string) =>
	`${XML_HEAD}\n<sitemapindex xmlns="${NAMESPACE}">\n${SITEMAP_FILES.map(
		(file) => `  <sitemap>\n    <loc>${siteUrl}/${file}</loc>\n    <lastmod>${LAST_MODIFIED}</lastmod>\n  </sitemap>\n`,
	).join('')}</sitemapindex>\n`;

// Whitespace around a <loc> is allowed, and some generators write it: readers must trim.
const urlSet = (paths: string[]) =>
	`${XML_HEAD}\n<urlset xmlns="${NAMESPACE}">\n${paths
		.map((path) => `  <url>\n    <loc>\n      ${pageUrl(path)}\n    </loc>\n    <lastmod>${LAST_MODIFIED}</lastmod>\n  </url>\n`)
		.join('')}</urlset>\n`;

export interface SiteFile {
	status: number;
	headers: Record<string, string>;
	body: Buffer;
}

/**
 * The file at `path` (after /__site), as a web server sends it: XML as application/xml, a `.xml.gz` file as its
 * gzip bytes with Content-Type application/gzip (no Content-Encoding: the file itself is compressed).
 * `siteUrl` is the address the site is reached at, which the index's links point to.
 */
export function siteFile(path: string, siteUrl: string): SiteFile {
	const xml = (text: string): SiteFile => ({ status: 200, headers: { 'Content-Type': 'application/xml; charset=UTF-8' }, body: Buffer.from(text) });
	if (path === '/sitemap.xml') return xml(sitemapIndex(siteUrl));
	const sitemap = SITEMAPS.find((candidate) => path === `/${candidate.file}`);
	if (!sitemap) return { status: 404, headers: { 'Content-Type': 'text/html; charset=UTF-8' }, body: Buffer.from(NOT_FOUND_PAGE) };
	const text = urlSet(sitemap.paths);
	if (!sitemap.file.endsWith('.gz')) return xml(text);
	return { status: 200, headers: { 'Content-Type': 'application/gzip' }, body: gzipSync(text) };
}

const NOT_FOUND_PAGE = '<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>\n';

/**
 * phpRank's validation message for a page of the site that answers 404 (it fetches https pages over http), or
 * undefined for any other URL.
 */
export function sitePageFailure(targetUrl: string): string | undefined {
	const url = new URL(targetUrl);
	if (!GONE_PAGES.includes(`${url.origin}${url.pathname}`)) return undefined;
	return `Client error: \`GET http://${url.host}${url.pathname}\` resulted in a \`404 Not Found\` response:\n${NOT_FOUND_PAGE.slice(0, 120)}`;
}

/**
 * A small web site's sitemaps, served by the bundled server under /__site/ so that a site audit runs with no
 * network: a sitemap index pointing to five sitemaps listing a shop's pages, four of them gzipped, each sent as
 * another web server sends a `.gz` file. The pages are www.brewshop.example's (a reserved name): the analysis scores
 * them from their URL, as it does any page, which gives the shop good, decent and bad pages; one listed page is gone,
 * and fetching it fails as it would in phpRank.
 */
import { gzipSync } from 'node:zlib';

/** Where the bundled server serves the site's files, outside phpRank's own paths. */
export const SITE_PREFIX = '/__site';

export const SITE_ORIGIN = 'https://www.brewshop.example';

const PAGE_PATHS = {
	pages: ['/', '/about', '/pricing', '/shipping', '/contact'],
	products: ['/products/blue-kettle', '/products/espresso-grinder'],
	accessories: ['/products/french-press', '/products/milk-frother'],
	blog: ['/blog/brewing-guide', '/blog/water-temperature', '/blog/cold-brew'],
	// The home page is listed twice, as sitemaps often do; the summer sale page was taken down.
	archive: ['/', '/blog/summer-sale-2019'],
};

const GONE_PATHS = ['/blog/summer-sale-2019'];

const XML_TYPE = 'application/xml; charset=UTF-8';

const pageUrl = (path: string) => `${SITE_ORIGIN}${path}`;

/**
 * The sitemaps the index points to, in its order: file name, the pages each lists and, for a gzipped one, how it is
 * sent: its Content-Type, and a Content-Encoding if the gzip is only the transfer's (a client then gets the XML).
 */
export const SITEMAPS: ReadonlyArray<{ file: string; pages: string[]; gzipped?: { type: string; encoding?: 'gzip' } }> = [
	{ file: 'sitemap-pages.xml', pages: PAGE_PATHS.pages.map(pageUrl) },
	{ file: 'sitemap-products.xml.gz', pages: PAGE_PATHS.products.map(pageUrl), gzipped: { type: 'application/gzip' } },
	// Apache's type for .gz, and nginx's for a type it does not know.
	{ file: 'sitemap-accessories.xml.gz', pages: PAGE_PATHS.accessories.map(pageUrl), gzipped: { type: 'application/x-gzip' } },
	{ file: 'sitemap-blog.xml.gz', pages: PAGE_PATHS.blog.map(pageUrl), gzipped: { type: 'application/octet-stream' } },
	// Apache with `AddEncoding gzip .gz`: the file's XML sent gzip-encoded.
	{ file: 'sitemap-archive.xml.gz', pages: PAGE_PATHS.archive.map(pageUrl), gzipped: { type: XML_TYPE, encoding: 'gzip' } },
];

/** A sitemap index listing another index (sitemap.xml) between two sitemaps: a nesting Google does not follow. */
export const NESTED_INDEX_FILE = 'sitemap-nested.xml';

/** What the nested index lists, in its order. */
export const NESTED_INDEX_LISTS: readonly string[] = ['sitemap-products.xml.gz', 'sitemap.xml', 'sitemap-pages.xml'];

/** Every page URL the sitemaps list, once each, in the order they first appear. */
export const SITE_PAGES: readonly string[] = [...new Set(SITEMAPS.flatMap((sitemap) => sitemap.pages))];

/** The listed pages that answer 404: phpRank cannot report on them. */
export const GONE_PAGES: readonly string[] = GONE_PATHS.map(pageUrl);

/** The file names the sitemap index points to, in its order. */
export const SITEMAP_FILES: readonly string[] = SITEMAPS.map((sitemap) => sitemap.file);

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>';
const NAMESPACE = 'http://www.sitemaps.org/schemas/sitemap/0.9';
const LAST_MODIFIED = '2026-11-02';

const sitemapIndex = (siteUrl: string, files: readonly string[]) =>
	`${XML_HEAD}\n<sitemapindex xmlns="${NAMESPACE}">\n${files.map(
		(file) => `  <sitemap>\n    <loc>${siteUrl}/${file}</loc>\n    <lastmod>${LAST_MODIFIED}</lastmod>\n  </sitemap>\n`,
	).join('')}</sitemapindex>\n`;

// Whitespace around a <loc> is allowed, and some generators write it: readers must trim.
const urlSet = (pages: string[]) =>
	`${XML_HEAD}\n<urlset xmlns="${NAMESPACE}">\n${pages
		.map((page) => `  <url>\n    <loc>\n      ${page}\n    </loc>\n    <lastmod>${LAST_MODIFIED}</lastmod>\n  </url>\n`)
		.join('')}</urlset>\n`;

export interface SiteFile {
	status: number;
	headers: Record<string, string>;
	body: Buffer;
}

/**
 * The file at `path` (after /__site), as a web server sends it: XML as application/xml, a gzipped sitemap as
 * SITEMAPS says. `siteUrl` is the address the site is reached at, which the index's links point to.
 */
export function siteFile(path: string, siteUrl: string): SiteFile {
	const xml = (text: string): SiteFile => ({ status: 200, headers: { 'Content-Type': XML_TYPE }, body: Buffer.from(text) });
	if (path === '/sitemap.xml') return xml(sitemapIndex(siteUrl, SITEMAP_FILES));
	if (path === `/${NESTED_INDEX_FILE}`) return xml(sitemapIndex(siteUrl, NESTED_INDEX_LISTS));
	const sitemap = SITEMAPS.find((candidate) => path === `/${candidate.file}`);
	if (!sitemap) return { status: 404, headers: { 'Content-Type': 'text/html; charset=UTF-8' }, body: Buffer.from(NOT_FOUND_PAGE) };
	const text = urlSet(sitemap.pages);
	const { gzipped } = sitemap;
	if (!gzipped) return xml(text);
	const encoding: Record<string, string> = gzipped.encoding ? { 'Content-Encoding': gzipped.encoding } : {};
	return { status: 200, headers: { 'Content-Type': gzipped.type, ...encoding }, body: gzipSync(text) };
}

// nginx's own 404 page, as the shop's web server answers a page it does not have.
const NOT_FOUND_PAGE =
	'<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

// phpRank's HTTP client (Guzzle) quotes this much of a page that answered an error, cut wherever it falls.
const GUZZLE_SUMMARY_LENGTH = 120;

/**
 * phpRank's validation message for a page of the site that answers 404 (it fetches https pages over http), or
 * undefined for any other URL: Guzzle's words with the start of the page's HTML.
 */
export function sitePageFailure(targetUrl: string): string | undefined {
	const url = new URL(targetUrl);
	if (!GONE_PAGES.includes(`${url.origin}${url.pathname}`)) return undefined;
	const summary =
		NOT_FOUND_PAGE.length > GUZZLE_SUMMARY_LENGTH ? `${NOT_FOUND_PAGE.slice(0, GUZZLE_SUMMARY_LENGTH)} (truncated...)` : NOT_FOUND_PAGE;
	return `Client error: \`GET http://${url.host}${url.pathname}\` resulted in a \`404 Not Found\` response:\n${summary}\n`;
}

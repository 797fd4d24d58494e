/**
 * A small web site's sitemaps, served by the bundled server under /__site/ so that a site audit runs with no
 * network. The shop publishes them as real sites do: a sitemap index (`sitemap.xml`, and the same gzipped as
 * `sitemap.xml.gz`) listing sitemaps and another, gzipped index; gzipped sitemaps each sent as another web server
 * sends a `.gz` file, one with the gzip only the transfer's and one gzipped twice. The pages are
 * www.brewshop.example's (a reserved name): the analysis scores them from their URL, as it does any page, which gives
 * the shop good, decent and bad pages; one listed page is gone, and fetching it fails as it would in phpRank.
 * Besides: an index listing that index again, an endless chain of indexes, a news feed (XML, no sitemap), and a
 * sitemap of 50,000 URLs (the protocol's maximum), made when first asked for.
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
	guides: ['/guides/pour-over', '/guides/descaling'],
};

const GONE_PATHS = ['/blog/summer-sale-2019'];

const XML_TYPE = 'application/xml; charset=UTF-8';

const pageUrl = (path: string) => `${SITE_ORIGIN}${path}`;

/**
 * How a file is sent: its Content-Type, whether the file itself is gzip (a `.gz` file), and a Content-Encoding when
 * the server compresses the transfer (a client then gets the file back, gzip or not).
 */
export interface Sent {
	type: string;
	gzipFile?: true;
	encoding?: 'gzip';
}

/** A sitemap listing pages: its file name, its pages in order, and how it is sent. */
export interface SiteSitemap {
	file: string;
	pages: string[];
	sent: Sent;
}

export const SITEMAPS: readonly SiteSitemap[] = [
	{ file: 'sitemap-pages.xml', pages: PAGE_PATHS.pages.map(pageUrl), sent: { type: XML_TYPE } },
	{ file: 'sitemap-products.xml.gz', pages: PAGE_PATHS.products.map(pageUrl), sent: { type: 'application/gzip', gzipFile: true } },
	// Apache's type for .gz, and nginx's for a type it does not know.
	{ file: 'sitemap-accessories.xml.gz', pages: PAGE_PATHS.accessories.map(pageUrl), sent: { type: 'application/x-gzip', gzipFile: true } },
	{ file: 'sitemap-blog.xml.gz', pages: PAGE_PATHS.blog.map(pageUrl), sent: { type: 'application/octet-stream', gzipFile: true } },
	// Apache with `AddEncoding gzip .gz`: the file's XML sent gzip-encoded.
	{ file: 'sitemap-archive.xml.gz', pages: PAGE_PATHS.archive.map(pageUrl), sent: { type: XML_TYPE, encoding: 'gzip' } },
	// A server compressing every answer, the .gz file too: gzip inside gzip.
	{ file: 'sitemap-guides.xml.gz', pages: PAGE_PATHS.guides.map(pageUrl), sent: { type: 'application/x-gzip', gzipFile: true, encoding: 'gzip' } },
];

/** A sitemap index: its file name, the files it lists in order, and how it is sent. */
export interface SiteIndex {
	file: string;
	lists: string[];
	sent: Sent;
}

/** The index a robots file names. */
export const SITE_INDEX_FILE = 'sitemap.xml';

/** The same index, gzipped: a site's top-level sitemap can be a `.gz` file too. */
export const GZIPPED_INDEX_FILE = 'sitemap.xml.gz';

/** A sitemap index listing another index (sitemap.xml) between two sitemaps it also lists: each is read once. */
export const NESTED_INDEX_FILE = 'sitemap-nested.xml';

const TOP_LISTS = ['sitemap-pages.xml', 'sitemap-shop.xml.gz', 'sitemap-blog.xml.gz', 'sitemap-archive.xml.gz', 'sitemap-guides.xml.gz'];

export const SITE_INDEXES: readonly SiteIndex[] = [
	{ file: SITE_INDEX_FILE, lists: TOP_LISTS, sent: { type: XML_TYPE } },
	{ file: GZIPPED_INDEX_FILE, lists: TOP_LISTS, sent: { type: 'application/gzip', gzipFile: true } },
	// The shop's catalogue has its own index, listed in the top one: an index nested in an index.
	{ file: 'sitemap-shop.xml.gz', lists: ['sitemap-products.xml.gz', 'sitemap-accessories.xml.gz'], sent: { type: 'application/gzip', gzipFile: true } },
	{ file: NESTED_INDEX_FILE, lists: ['sitemap-products.xml.gz', SITE_INDEX_FILE, 'sitemap-pages.xml'], sent: { type: XML_TYPE } },
];

/** `sitemap-deep-<n>.xml` is an index listing `sitemap-deep-<n+1>.xml`: nesting with no end. */
export const deepIndexFile = (n: number) => `sitemap-deep-${n}.xml`;

/** The shop's news feed: XML, but no sitemap (a feed is sometimes given where a sitemap is asked for). */
export const FEED_FILE = 'feed.xml';

const FEED = `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0">\n  <channel>\n    <title>Brew shop news</title>\n    <link>https://www.brewshop.example/blog</link>\n  </channel>\n</rss>\n`;

/** A sitemap of 50,000 pages, the most one may list, gzipped as large sites serve them. */
export const BIG_SITEMAP_FILE = 'sitemap-50000.xml.gz';
export const BIG_SITEMAP_SIZE = 50_000;
export const bigSitemapPage = (n: number) => `${SITE_ORIGIN}/products/item-${n}`;

/**
 * The files a reader of `file` fetches, each once, level by level (an index's files after the index, in its order):
 * the order the site audit examples read them in.
 */
export function sitemapFilesFrom(file: string): string[] {
	const read = [file];
	for (let level = [file]; level.length; ) {
		const next = level.flatMap((name) => SITE_INDEXES.find((index) => index.file === name)?.lists ?? []).filter((name, at, all) => all.indexOf(name) === at);
		level = next.filter((name) => !read.includes(name));
		read.push(...level);
	}
	return read;
}

/** Every page URL the site's index leads to, once each, in the order they first appear. */
export const SITE_PAGES: readonly string[] = [
	...new Set(sitemapFilesFrom(SITE_INDEX_FILE).flatMap((file) => SITEMAPS.find((sitemap) => sitemap.file === file)?.pages ?? [])),
];

/** The listed pages that answer 404: phpRank cannot report on them. */
export const GONE_PAGES: readonly string[] = GONE_PATHS.map(pageUrl);

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

let bigSitemap: Buffer | undefined;

/** Made when first asked for (about 1 MB gzipped, 7 MB of XML), then kept. */
function bigSitemapBytes(): Buffer {
	bigSitemap ??= gzipSync(
		`${XML_HEAD}\n<urlset xmlns="${NAMESPACE}">\n${Array.from(
			{ length: BIG_SITEMAP_SIZE },
			(_, n) => `  <url>\n    <loc>${bigSitemapPage(n + 1)}</loc>\n    <lastmod>${LAST_MODIFIED}</lastmod>\n    <changefreq>weekly</changefreq>\n    <priority>0.5</priority>\n  </url>\n`,
		).join('')}</urlset>\n`,
	);
	return bigSitemap;
}

export interface SiteFile {
	status: number;
	headers: Record<string, string>;
	body: Buffer;
}

function sent(text: string, how: Sent): SiteFile {
	const file = how.gzipFile ? gzipSync(text) : Buffer.from(text);
	const encoding: Record<string, string> = how.encoding ? { 'Content-Encoding': how.encoding } : {};
	return { status: 200, headers: { 'Content-Type': how.type, ...encoding }, body: how.encoding ? gzipSync(file) : file };
}

/**
 * The file at `path` (after /__site), as a web server sends it (see SITEMAPS, SITE_INDEXES). `siteUrl` is the
 * address the site is reached at, which an index's links point to.
 */
export function siteFile(path: string, siteUrl: string): SiteFile {
	const name = path.replace(/^\//, '');
	const index = SITE_INDEXES.find((candidate) => candidate.file === name);
	if (index) return sent(sitemapIndex(siteUrl, index.lists), index.sent);
	const sitemap = SITEMAPS.find((candidate) => candidate.file === name);
	if (sitemap) return sent(urlSet(sitemap.pages), sitemap.sent);
	const deep = /^sitemap-deep-(\d+)\.xml$/.exec(name);
	if (deep) return sent(sitemapIndex(siteUrl, [deepIndexFile(Number(deep[1]) + 1)]), { type: XML_TYPE });
	if (name === FEED_FILE) return sent(FEED, { type: 'application/rss+xml; charset=UTF-8' });
	if (name === BIG_SITEMAP_FILE) return { status: 200, headers: { 'Content-Type': 'application/gzip' }, body: bigSitemapBytes() };
	return { status: 404, headers: { 'Content-Type': 'text/html; charset=UTF-8' }, body: Buffer.from(NOT_FOUND_PAGE) };
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

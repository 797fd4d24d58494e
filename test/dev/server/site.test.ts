import { gunzipSync } from 'node:zlib';
import { request } from 'undici';

import { scorePage } from '../../../dev/server/analysis';
import { resultBandOf } from '../../../dev/server/listQuery';
import {
	BIG_SITEMAP_FILE,
	BIG_SITEMAP_SIZE,
	bigSitemapPage,
	deepIndexFile,
	FEED_FILE,
	GONE_PAGES,
	GZIPPED_INDEX_FILE,
	NESTED_INDEX_FILE,
	SITE_INDEX_FILE,
	SITE_INDEXES,
	SITE_PAGES,
	sitemapFilesFrom,
	SITEMAPS,
} from '../../../dev/server/site';
import { call, useServer } from './helpers';

// A base path and a rate limit of one request: the site is outside the application and counts against nothing.
const server = useServer({ basePath: '/phprank', rateLimit: { maxAttempts: 1, decaySeconds: 60 } });

async function fetchSite(path: string) {
	const origin = new URL(server().url).origin;
	const response = await request(`${origin}/__site/${path}`);
	const { 'content-type': type, 'content-encoding': encoding } = response.headers;
	return { status: response.statusCode, type: String(type), encoding, body: Buffer.from(await response.body.arrayBuffer()) };
}

const locs = (xml: string) => [...xml.matchAll(/<loc>\s*([^<]*?)\s*<\/loc>/g)].map((match) => match[1]);

describe('the fixture site the server serves under /__site/', () => {
	beforeEach(() => server().reset());

	const siteUrl = () => `${new URL(server().url).origin}/__site`;
	const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);
	const isGzip = (body: Buffer) => body.subarray(0, 2).equals(GZIP_MAGIC);
	/** The file as a client that undoes Content-Encoding (as n8n's HTTP Request does) gets it. */
	const received = (file: Awaited<ReturnType<typeof fetchSite>>) => (file.encoding === 'gzip' ? gunzipSync(file.body) : file.body);
	/** The XML in the file, unzipped if the file itself is gzip. */
	const xmlOf = (file: Awaited<ReturnType<typeof fetchSite>>) => {
		const body = received(file);
		return (isGzip(body) ? gunzipSync(body) : body).toString();
	};
	const sending = (file: Awaited<ReturnType<typeof fetchSite>>) => `${file.type}${file.encoding ? `, Content-Encoding ${String(file.encoding)}` : ''}${isGzip(received(file)) ? ', a gzip file' : ''}`;

	it('serves its sitemap indexes, listing files at the address the index was asked at: one gzipped, one nested in the top one', async () => {
		const sent: string[] = [];
		for (const index of SITE_INDEXES) {
			const file = await fetchSite(index.file);
			expect(file.status).toBe(200);
			sent.push(`${index.file}: ${sending(file)}`);
			expect(xmlOf(file)).toContain('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
			expect(locs(xmlOf(file))).toEqual(index.lists.map((name) => `${siteUrl()}/${name}`));
		}

		expect(sent).toEqual([
			'sitemap.xml: application/xml; charset=UTF-8',
			'sitemap.xml.gz: application/gzip, a gzip file',
			'sitemap-shop.xml.gz: application/gzip, a gzip file',
			'sitemap-nested.xml: application/xml; charset=UTF-8',
		]);
		expect(SITE_INDEXES.find((index) => index.file === GZIPPED_INDEX_FILE)?.lists).toEqual(SITE_INDEXES.find((index) => index.file === SITE_INDEX_FILE)?.lists);
		expect(SITE_INDEXES.find((index) => index.file === SITE_INDEX_FILE)?.lists).toContain('sitemap-shop.xml.gz');
		expect(SITE_INDEXES.find((index) => index.file === NESTED_INDEX_FILE)?.lists).toEqual(['sitemap-products.xml.gz', SITE_INDEX_FILE, 'sitemap-pages.xml']);
	});

	it('serves each sitemap as web servers send them; together they list every page, one twice', async () => {
		const listed: string[] = [];
		const sent: string[] = [];
		for (const sitemap of SITEMAPS) {
			const file = await fetchSite(sitemap.file);
			expect(file.status).toBe(200);
			expect(isGzip(file.body)).toBe(sitemap.file.endsWith('.gz'));
			sent.push(`${sitemap.file}: ${sending(file)}`);
			expect(xmlOf(file)).toContain('<urlset');
			expect(locs(xmlOf(file))).toEqual(sitemap.pages);
			listed.push(...locs(xmlOf(file)));
		}

		expect(sent).toEqual([
			'sitemap-pages.xml: application/xml; charset=UTF-8',
			'sitemap-products.xml.gz: application/gzip, a gzip file',
			'sitemap-accessories.xml.gz: application/x-gzip, a gzip file',
			'sitemap-blog.xml.gz: application/octet-stream, a gzip file',
			'sitemap-archive.xml.gz: application/xml; charset=UTF-8, Content-Encoding gzip',
			'sitemap-guides.xml.gz: application/x-gzip, Content-Encoding gzip, a gzip file',
		]);
		expect(listed.length).toBe(SITE_PAGES.length + 1);
		expect(new Set(listed)).toEqual(new Set(SITE_PAGES));
	});

	it('leads from its index to every sitemap, each once, level by level', () => {
		expect(sitemapFilesFrom(SITE_INDEX_FILE)).toEqual([
			'sitemap.xml',
			'sitemap-pages.xml',
			'sitemap-shop.xml.gz',
			'sitemap-blog.xml.gz',
			'sitemap-archive.xml.gz',
			'sitemap-guides.xml.gz',
			'sitemap-products.xml.gz',
			'sitemap-accessories.xml.gz',
		]);
		expect(sitemapFilesFrom(NESTED_INDEX_FILE)).toEqual([
			'sitemap-nested.xml',
			'sitemap-products.xml.gz',
			'sitemap.xml',
			'sitemap-pages.xml',
			'sitemap-shop.xml.gz',
			'sitemap-blog.xml.gz',
			'sitemap-archive.xml.gz',
			'sitemap-guides.xml.gz',
			'sitemap-accessories.xml.gz',
		]);
	});

	it('serves a chain of sitemap indexes with no end', async () => {
		const file = await fetchSite(deepIndexFile(7));

		expect(file.status).toBe(200);
		expect(locs(xmlOf(file))).toEqual([`${siteUrl()}/${deepIndexFile(8)}`]);
	});

	it('serves a news feed: XML, but no sitemap', async () => {
		const file = await fetchSite(FEED_FILE);

		expect(file).toMatchObject({ status: 200, type: 'application/rss+xml; charset=UTF-8' });
		expect(xmlOf(file)).toContain('<rss version="2.0">');
		expect(xmlOf(file)).not.toMatch(/<urlset|<sitemapindex/);
	});

	it('serves a gzipped sitemap of 50,000 different pages, within the protocol\'s 50 MB', async () => {
		const file = await fetchSite(BIG_SITEMAP_FILE);
		const xml = xmlOf(file);
		const pages = locs(xml);

		expect(file).toMatchObject({ status: 200, type: 'application/gzip' });
		expect(isGzip(file.body)).toBe(true);
		expect(pages).toHaveLength(BIG_SITEMAP_SIZE);
		expect(new Set(pages).size).toBe(BIG_SITEMAP_SIZE);
		expect([pages[0], pages[BIG_SITEMAP_SIZE - 1]]).toEqual([bigSitemapPage(1), bigSitemapPage(BIG_SITEMAP_SIZE)]);
		expect(Buffer.byteLength(xml)).toBeLessThan(50 * 1024 * 1024);
	});

	it('answers 404 for a file it does not have, and records the requests without counting them against the rate limit', async () => {
		expect((await fetchSite('sitemap-news.xml')).status).toBe(404);
		await fetchSite('sitemap.xml');

		expect(server().requests.map((entry) => `${entry.path} ${entry.status}`)).toEqual(['/__site/sitemap-news.xml 404', '/__site/sitemap.xml 200']);
		expect((await call(server(), 'GET', '/api/v1/account')).status).toBe(200);
	});

	it('has good, decent and bad pages, and a page phpRank cannot report on because it answers 404', async () => {
		const grades = SITE_PAGES.filter((url) => !GONE_PAGES.includes(url)).map((url) => resultBandOf(Math.round(scorePage(url))));
		expect(new Set(grades)).toEqual(new Set(['good', 'decent', 'bad']));

		const reply = await call(server(), 'POST', '/api/v1/reports', { form: { url: GONE_PAGES[0] } });
		const { pathname, host } = new URL(GONE_PAGES[0]);
		expect(reply.status).toBe(422);
		expect(reply.json.message.url[0]).toMatch(new RegExp(`^Client error: \`GET http://${host}${pathname}\` resulted in a \`404 Not Found\` response:\n`));
		// Guzzle's summary of the page: its first 120 characters of HTML, cut wherever they end.
		expect(reply.json.message.url[0]).toMatch(/\n<html>\r\n<head><title>404 Not Found<\/title>.*<\/c \(truncated\.\.\.\)\n$/s);
		expect(server().reports()).toEqual([]);
	});
});

describe('addReports', () => {
	it('stores reports as creates would make them, changed pages included, without a request', () => {
		server().reset();
		server().changePage(SITE_PAGES[1], { quality: 1 });
		const ids = server().addReports([SITE_PAGES[0], SITE_PAGES[1]]);

		expect(server().reports().map(({ id, targetUrl, result, quality }) => ({ id, targetUrl, result, quality }))).toEqual([
			{ id: ids[0], targetUrl: SITE_PAGES[0], result: Math.round(scorePage(SITE_PAGES[0])), quality: undefined },
			{ id: ids[1], targetUrl: SITE_PAGES[1], result: 100, quality: 1 },
		]);
		expect(server().requests).toEqual([]);
	});
});

import { gunzipSync } from 'node:zlib';
import { request } from 'undici';

import { scorePage } from '../../../dev/server/analysis';
import { resultBandOf } from '../../../dev/server/listQuery';
import { GONE_PAGES, NESTED_INDEX_FILE, NESTED_INDEX_LISTS, SITE_PAGES, SITEMAP_FILES, SITEMAPS } from '../../../dev/server/site';
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

	it('serves a sitemap index whose links point to its sitemaps at the address it was asked at', async () => {
		const index = await fetchSite('sitemap.xml');

		expect(index).toMatchObject({ status: 200, type: 'application/xml; charset=UTF-8' });
		expect(index.body.toString()).toContain('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
		expect(locs(index.body.toString())).toEqual(SITEMAP_FILES.map((file) => `${new URL(server().url).origin}/__site/${file}`));
	});

	it('serves each sitemap, the .xml.gz ones gzipped as web servers send them; together they list every page, one twice', async () => {
		const listed: string[] = [];
		const sent: string[] = [];
		for (const file of SITEMAP_FILES) {
			const sitemap = await fetchSite(file);
			expect(sitemap.status).toBe(200);
			const gzipped = sitemap.body.subarray(0, 2).equals(Buffer.from([0x1f, 0x8b]));
			expect(gzipped).toBe(file.endsWith('.gz'));
			sent.push(`${file}: ${sitemap.type}${sitemap.encoding ? `, Content-Encoding ${String(sitemap.encoding)}` : ''}`);
			const xml = (gzipped ? gunzipSync(sitemap.body) : sitemap.body).toString();
			expect(xml).toContain('<urlset');
			expect(locs(xml)).toEqual(SITEMAPS.find((entry) => entry.file === file)?.pages);
			listed.push(...locs(xml));
		}

		expect(sent).toEqual([
			'sitemap-pages.xml: application/xml; charset=UTF-8',
			'sitemap-products.xml.gz: application/gzip',
			'sitemap-accessories.xml.gz: application/x-gzip',
			'sitemap-blog.xml.gz: application/octet-stream',
			'sitemap-archive.xml.gz: application/xml; charset=UTF-8, Content-Encoding gzip',
		]);
		expect(listed.length).toBe(SITE_PAGES.length + 1);
		expect([...new Set(listed)]).toEqual([...SITE_PAGES]);
	});

	it('serves a sitemap index that lists another index among its sitemaps', async () => {
		const nested = await fetchSite(NESTED_INDEX_FILE);

		expect(nested).toMatchObject({ status: 200, type: 'application/xml; charset=UTF-8' });
		expect(nested.body.toString()).toContain('<sitemapindex');
		expect(locs(nested.body.toString())).toEqual(NESTED_INDEX_LISTS.map((file) => `${new URL(server().url).origin}/__site/${file}`));
		expect(NESTED_INDEX_LISTS).toContain('sitemap.xml');
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

import { gunzipSync } from 'node:zlib';
import { request } from 'undici';

import { scorePage } from '../../../dev/server/analysis';
import { resultBandOf } from '../../../dev/server/listQuery';
import { GONE_PAGES, SITE_PAGES, SITEMAP_FILES } from '../../../dev/server/site';
import { call, useServer } from './helpers';

// A base path and a rate limit of one request: the site is outside the application and counts against nothing.
const server = useServer({ basePath: '/phprank', rateLimit: { maxAttempts: 1, decaySeconds: 60 } });

async function fetchSite(path: string) {
	const origin = new URL(server().url).origin;
	const response = await request(`${origin}/__site/${path}`);
	return { status: response.statusCode, type: String(response.headers['content-type']), body: Buffer.from(await response.body.arrayBuffer()) };
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

	it('serves each sitemap, the .xml.gz one as gzip bytes without Content-Encoding; together they list every page, one twice', async () => {
		const listed: string[] = [];
		for (const file of SITEMAP_FILES) {
			const sitemap = await fetchSite(file);
			const gzipped = file.endsWith('.gz');
			expect(sitemap).toMatchObject({ status: 200, type: gzipped ? 'application/gzip' : 'application/xml; charset=UTF-8' });
			const xml = (gzipped ? gunzipSync(sitemap.body) : sitemap.body).toString();
			expect(xml).toContain('<urlset');
			listed.push(...locs(xml));
		}

		expect(listed.length).toBe(SITE_PAGES.length + 1);
		expect([...new Set(listed)]).toEqual([...SITE_PAGES]);
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

/**
 * Site > Audit on the bundled audit site (dev/server/auditSite.ts), whose link graph is known: the items the node
 * outputs, the requests the site received (each page once, robots.txt first, what it disallows never, what only
 * nofollow links lead to never) and the requests phpRank received (the site's reports read once, one create per
 * indexable page that answered 200 with HTML).
 */
import type { IDataObject } from 'n8n-workflow';
import { AUDIT_SITE_ANALYZED_PATHS, AUDIT_SITEMAP_IMAGES, AUDIT_SITEMAP_PATHS, startAuditSite } from '../../../../../dev/server';
import type { AuditSite, AuditSiteOptions } from '../../../../../dev/server';
import { deepIndexFile, NESTED_INDEX_FILE, SITE_PREFIX, sitemapFilesFrom } from '../../../../../dev/server/site';
import { USER_AGENT } from '../../../../../nodes/PhpRank/resources/site/audit';
import { apiRequests, failedCheckNamesOnServer, failedChecksOnServer, inputErrorOf, runPhpRank, useServer } from '../../../../support/phpRank';

const server = useServer();

let site: AuditSite;
beforeAll(async () => (site = await startAuditSite()));
afterAll(async () => await site.close());
beforeEach(() => site.clearRequests());

const audit = async (parameters: IDataObject = {}, on: AuditSite = site) =>
	await runPhpRank(server(), { resource: 'site', operation: 'audit', siteUrl: `${on.url}/`, ...parameters });

const pathOf = (url: unknown) => String(url).replace(/^http:\/\/127\.0\.0\.1:\d+/, '');

/** What the crawl says of each URL, by path: outcome, status, depth, foundIn, inlinks, orphan, redirectsTo. */
function table(items: Array<{ json: IDataObject }>) {
	return items.map(({ json }) => [
		pathOf(json.url),
		json.outcome,
		json.status,
		json.depth,
		(json.foundIn as string[]).join('+'),
		json.inlinks,
		json.orphan,
		json.redirectsTo === null ? null : pathOf(json.redirectsTo),
	]);
}

const itemOf = (items: Array<{ json: IDataObject }>, path: string) => items.find(({ json }) => pathOf(json.url) === path)!.json;

const linkedFrom = (item: IDataObject) => (item.linkedFrom as Array<{ url: string; text: string }>).map(({ url, text }) => [pathOf(url), text]);

const creates = () => apiRequests(server()).filter((request) => request.method === 'POST');
const reads = () => apiRequests(server()).filter((request) => request.method === 'GET');

// The graph (dev/server/README.md): / links docs/intro.html, /about.html, /old-page (301 to /about.html),
// /private/staff.html (disallowed), base.html (<base href="/docs/">), an external page and mailto:, tel:,
// javascript:, #main; docs/intro.html → next.html, ../about.html, missing.html (404); next.html → deep/three.html →
// four.html (four clicks deep); /gone.html (410) is linked from /about.html, next.html and three.html; /about.html
// links loop-a, which redirects to /loop-b and back. The sitemap lists /, /about.html, /docs/intro.html, /orphan.html,
// and images on three of them (<image:image>), which are no pages: never fetched, never listed.
// / also links indexing/, whose pages say what search engines are told: noindex-meta.html (robots meta tag, links
// ../about.html), noindex-header.html (X-Robots-Tag; links followed.html, whose Link header names itself canonical),
// nofollow.html (robots nofollow: links hidden-by-meta.html and ../docs/missing.html, counted, not followed), a
// rel="external NoFollow" link to hidden-by-rel.html, a rel="ugc sponsored" link to canonicalized.html (canonical:
// preferred.html, which names itself with a fragment), two-canonicals.html (preferred.html, then /about.html), hop-1
// (301 to hop-2, 302 to hop-3, 307 to /about.html) and price-list.pdf.
const ANALYZED_IN_ORDER = AUDIT_SITE_ANALYZED_PATHS;

/** What the site was asked for but the images its pages show, which are asked for after them (siteIssues.test.ts). */
const pagePaths = (asked: AuditSite) => asked.paths().filter((path) => !path.startsWith('/images/'));

describe('Site > Audit: the pages of a site from its sitemaps and links', () => {
	it('lists every URL found once with its outcome, status, depth, inlinks, redirects and orphans, and analyzes each page that answered 200 with HTML', async () => {
		const { items, error } = await audit();

		expect(error).toBeUndefined();
		expect(table(items)).toEqual([
			['/', 'created', 200, 0, 'sitemap+links', 1, false, null],
			['/about.html', 'created', 200, 1, 'sitemap+links', 3, false, null],
			['/docs/intro.html', 'created', 200, 1, 'sitemap+links', 2, false, null],
			['/orphan.html', 'created', 200, null, 'sitemap', 0, true, null],
			// The sitemap lists what it should not (site issues): a broken URL, a redirect, a noindex page, a canonicalized
			// page and a page robots.txt disallows.
			['/gone.html', 'broken', 410, 2, 'sitemap+links', 3, false, null],
			['/old-page', 'redirected', 301, 1, 'sitemap+links', 1, false, '/about.html'],
			['/indexing/noindex-meta.html', 'notAnalyzed', 200, 2, 'sitemap+links', 1, false, null],
			['/indexing/canonicalized.html', 'notAnalyzed', 200, 2, 'sitemap+links', 1, false, null],
			['/private/staff.html', 'blocked', null, 1, 'sitemap+links', 1, false, null],
			['/base.html', 'created', 200, 1, 'links', 1, false, null],
			['/indexing/', 'created', 200, 1, 'links', 1, false, null],
			['/docs/next.html', 'created', 200, 2, 'links', 2, false, null],
			['/docs/missing.html', 'broken', 404, 2, 'links', 3, false, null],
			['/loop-a', 'failed', 302, 2, 'links', 1, false, null],
			['/indexing/noindex-header.html', 'notAnalyzed', 200, 2, 'links', 1, false, null],
			['/indexing/nofollow.html', 'created', 200, 2, 'links', 1, false, null],
			['/indexing/hidden-by-rel.html', 'notAnalyzed', null, 2, 'links', 1, false, null],
			['/indexing/two-canonicals.html', 'notAnalyzed', 200, 2, 'links', 1, false, null],
			['/indexing/hop-1', 'redirected', 301, 2, 'links', 1, false, '/about.html'],
			['/indexing/price-list.pdf', 'notAnalyzed', 200, 2, 'links', 1, false, null],
			// Canonical URLs that are no indexable page: broken, a redirect, noindex.
			['/indexing/canonical-to-gone.html', 'notAnalyzed', 200, 2, 'links', 1, false, null],
			['/indexing/canonical-to-redirect.html', 'notAnalyzed', 200, 2, 'links', 1, false, null],
			['/indexing/canonical-to-noindex.html', 'notAnalyzed', 200, 2, 'links', 1, false, null],
			['/docs/deep/three.html', 'created', 200, 3, 'links', 1, false, null],
			['/loop-b', 'failed', 302, 2, 'links', 0, false, null],
			['/indexing/followed.html', 'created', 200, 3, 'links', 1, false, null],
			['/indexing/hidden-by-meta.html', 'notAnalyzed', null, 3, 'links', 1, false, null],
			// Found through canonicalized.html's canonical URL alone: no link leads there.
			['/indexing/preferred.html', 'created', 200, 3, 'links', 0, false, null],
			['/indexing/hop-2', 'redirected', 302, 2, 'links', 0, false, '/about.html'],
			['/docs/deep/four.html', 'created', 200, 4, 'links', 1, false, null],
			['/indexing/hop-3', 'redirected', 307, 2, 'links', 0, false, '/about.html'],
		]);
		// Broken targets with every page and anchor text linking to them, a nofollow page's link too.
		expect(linkedFrom(itemOf(items, '/docs/missing.html'))).toEqual([
			['/docs/intro.html', 'Missing chapter'],
			['/docs/next.html', 'Read on'],
			['/indexing/nofollow.html', 'Old chapter'],
		]);
		expect(linkedFrom(itemOf(items, '/gone.html'))).toEqual([
			['/about.html', 'Gone'],
			['/docs/next.html', 'Old offer'],
			['/docs/deep/three.html', 'Archive'],
		]);
		// Relative links from the sub-folder and through <base href>, a fragment dropped.
		expect(linkedFrom(itemOf(items, '/docs/next.html'))).toEqual([
			['/docs/intro.html', 'Next chapter'],
			['/base.html', 'Next via base'],
		]);
		expect(linkedFrom(itemOf(items, '/about.html'))).toEqual([
			['/', 'About us'],
			['/docs/intro.html', 'About'],
			['/indexing/noindex-meta.html', 'About'],
		]);
		expect(itemOf(items, '/loop-a').reason).toBe(`Redirect loop: ${site.url}/loop-a → ${site.url}/loop-b → ${site.url}/loop-a`);
		expect(itemOf(items, '/private/staff.html').reason).toMatch(/robots\.txt/);
		// The external link counted on its page, not fetched; mailto:, tel:, javascript: and #main are no links.
		expect(itemOf(items, '/').externalLinks).toBe(1);

		// The site: robots.txt, its sitemap, then each page once, breadth first, two at a time; never the disallowed
		// folder, nor what only nofollow links lead to; then each image the pages show, once (GET where HEAD is refused).
		expect(site.paths()).toEqual([
			'/robots.txt',
			'/sitemap.xml',
			'/',
			'/docs/intro.html',
			'/about.html',
			'/old-page',
			'/base.html',
			'/indexing/',
			'/docs/next.html',
			'/docs/missing.html',
			'/gone.html',
			'/loop-a',
			'/indexing/noindex-meta.html',
			'/indexing/noindex-header.html',
			'/indexing/nofollow.html',
			'/indexing/canonicalized.html',
			'/indexing/two-canonicals.html',
			'/indexing/hop-1',
			'/indexing/price-list.pdf',
			'/indexing/canonical-to-gone.html',
			'/indexing/canonical-to-redirect.html',
			'/indexing/canonical-to-noindex.html',
			'/docs/deep/three.html',
			'/loop-b',
			'/indexing/followed.html',
			'/indexing/preferred.html',
			'/indexing/hop-2',
			'/docs/deep/four.html',
			'/indexing/hop-3',
			'/orphan.html',
			'/images/logo.png',
			'/images/no-head.png',
			'/images/old-logo.png',
			'/images/no-head.png',
			'/images/team.jpg',
			'/images/missing.jpg',
		]);
		expect(new Set(site.requests.map((request) => request.userAgent))).toEqual(new Set([USER_AGENT]));
		expect(USER_AGENT).toContain('n8n-nodes-phprank');

		// phpRank: the site's reports read once, then one create per indexable page in the order found; none for broken
		// targets, nor for the pages search engines may not index.
		expect(reads().map((request) => request.query)).toEqual([{ project: '127.0.0.1', sort_by: 'id', sort: 'desc', per_page: '100', page: '1' }]);
		expect(creates().map((request) => pathOf(request.body.url))).toEqual(ANALYZED_IN_ORDER);
		expect(creates().every((request) => request.body.privacy === '0')).toBe(true);

		// Each analyzed page carries its report as Report > Create outputs it, without the per-check results.
		for (const report of server().reports()) {
			const item = itemOf(items, pathOf(report.targetUrl));
			expect(item).toMatchObject({
				id: report.id,
				result: report.result,
				grade: expect.stringMatching(/^(good|decent|bad)$/),
				failedChecks: failedChecksOnServer(report),
				failedCheckNames: failedCheckNamesOnServer(report),
				reportUrl: `${server().url}/reports/${report.id}`,
			});
			expect(item).not.toHaveProperty('results');
		}
		expect(server().reports()).toHaveLength(ANALYZED_IN_ORDER.length);
	});

	it('run again within the age, reads only: every report is fresh', async () => {
		await audit();
		server().clearRequests();

		const { items, error } = await audit();

		expect(error).toBeUndefined();
		expect(creates()).toEqual([]);
		expect(apiRequests(server()).filter((request) => request.method !== 'GET')).toEqual([]);
		expect(reads()).toHaveLength(1);
		expect(items.filter(({ json }) => json.outcome === 'existing').map(({ json }) => pathOf(json.url)).sort()).toEqual([...ANALYZED_IN_ORDER].sort());
	});

	it('run again a week later: the pages whose reports are older than 7 days re-analyzed, with their previous score', async () => {
		await audit();
		const stale = server().reports().filter((report) => ['/about.html', '/docs/deep/four.html'].includes(pathOf(report.targetUrl)));
		server().ageReports(stale.map((report) => report.id), 8 * 24 * 3600);
		server().clearRequests();

		const { items, error } = await audit();

		expect(error).toBeUndefined();
		expect(creates()).toEqual([]);
		expect(apiRequests(server()).filter((request) => request.method === 'PUT').map((request) => request.path)).toEqual(stale.map((report) => `/api/v1/reports/${report.id}`));
		expect(reads()).toHaveLength(1);
		for (const report of stale) {
			expect(itemOf(items, pathOf(report.targetUrl))).toMatchObject({ outcome: 'reanalyzed', id: report.id, previousResult: report.result, resultChange: 0, newlyFailedChecks: { high: [], medium: [], low: [] } });
		}
	});

	it('Create Another Report reads nothing first; Include Per-Check Results adds the results', async () => {
		const { items, error } = await audit({ ifReportExists: 'createAnother', options: { includeResults: true } });

		expect(error).toBeUndefined();
		expect(reads()).toEqual([]);
		expect(creates()).toHaveLength(ANALYZED_IN_ORDER.length);
		expect(itemOf(items, '/')).toHaveProperty('results');
	});

	it('Find Pages In: Links reads no sitemap and finds no orphan; Sitemaps follows no link', async () => {
		const byLinks = await audit({ discover: 'links' });
		expect(byLinks.error).toBeUndefined();
		expect(site.paths()).not.toContain('/sitemap.xml');
		expect(site.paths()).not.toContain('/orphan.html');
		expect(byLinks.items).toHaveLength(30);
		expect(byLinks.items.every(({ json }) => json.orphan === false && (json.foundIn as string[]).join() === 'links')).toBe(true);

		site.clearRequests();
		const bySitemaps = await audit({ discover: 'sitemaps' });
		expect(bySitemaps.error).toBeUndefined();
		// The sitemap's pages (robots.txt disallows one) and the canonical URL one of them names.
		expect(pagePaths(site)).toEqual(['/robots.txt', '/sitemap.xml', ...AUDIT_SITEMAP_PATHS.filter((path) => path !== '/private/staff.html'), '/indexing/preferred.html']);
		// Links among those pages are still counted.
		expect(table(bySitemaps.items).map(([path, outcome, , , , inlinks]) => [path, outcome, inlinks])).toEqual([
			['/', 'existing', 0],
			['/about.html', 'existing', 3],
			['/docs/intro.html', 'existing', 2],
			// Not reached by links in the run before.
			['/orphan.html', 'created', 0],
			['/gone.html', 'broken', 1],
			['/old-page', 'redirected', 1],
			['/indexing/noindex-meta.html', 'notAnalyzed', 0],
			['/indexing/canonicalized.html', 'notAnalyzed', 0],
			['/private/staff.html', 'blocked', 1],
			['/indexing/preferred.html', 'existing', 0],
		]);
	});

	it('Max Pages: at most that many analyzed, the pages found beyond them listed and not fetched', async () => {
		const { items, error } = await audit({ discover: 'links', maxPages: 2 });

		expect(error).toBeUndefined();
		expect(creates().map((request) => pathOf(request.body.url))).toEqual(['/', '/docs/intro.html']);
		expect(pagePaths(site)).toEqual(['/robots.txt', '/', '/docs/intro.html']);
		expect(table(items).map(([path, outcome, status]) => [path, outcome, status])).toEqual([
			['/', 'created', 200],
			['/docs/intro.html', 'created', 200],
			['/about.html', 'notAnalyzed', null],
			['/old-page', 'notAnalyzed', null],
			['/private/staff.html', 'blocked', null],
			['/base.html', 'notAnalyzed', null],
			['/indexing/', 'notAnalyzed', null],
			['/docs/next.html', 'notAnalyzed', null],
			['/docs/missing.html', 'notAnalyzed', null],
		]);
		expect(itemOf(items, '/about.html').reason).toBe('Beyond Max Pages (2)');
		// Whether they may be indexed is not known: they were not fetched.
		expect(items.filter(({ json }) => json.indexability === 'notFetched').map(({ json }) => pathOf(json.url))).toEqual([
			'/about.html',
			'/old-page',
			'/base.html',
			'/indexing/',
			'/docs/next.html',
			'/docs/missing.html',
		]);
		expect(items.map(({ json }) => json.indexable)).toEqual([true, true, false, false, false, false, false, false, false]);
	});

	it("a site holding more reports than the audit may analyze: its first page read, then a lookup per page, not the whole site", async () => {
		server().seedReports(350, { projects: ['127.0.0.1'] });
		server().clearRequests();

		const { error } = await audit({ discover: 'links', maxPages: 2 });

		expect(error).toBeUndefined();
		const described = (query: Record<string, string>) => (query.search === undefined ? `site page ${query.page}` : `lookup of ${query.search.replace(/:\d+/, '')}`);
		expect(reads().map((request) => described(request.query))).toEqual(['site page 1', 'lookup of 127.0.0.1', 'lookup of 127.0.0.1/docs/intro.html']);
		expect(creates()).toHaveLength(2);
	});

	it('Options: Max Depth, Leave Out URLs Matching, Respect robots.txt off', async () => {
		const shallow = await audit({ discover: 'links', options: { maxDepth: 2, respectRobotsTxt: false, leaveOut: '/loop-, *.html$, /indexing/' } });

		expect(shallow.error).toBeUndefined();
		expect(pagePaths(site)).toEqual(['/', '/old-page']);
		expect(table(shallow.items).map(([path, outcome]) => [path, outcome])).toEqual([
			['/', 'created'],
			['/old-page', 'redirected'],
		]);

		site.clearRequests();
		const deep = await audit({ discover: 'links', options: { maxDepth: 2, respectRobotsTxt: false, leaveOut: 'loop' } });
		expect(deep.error).toBeUndefined();
		expect(site.paths()).not.toContain('/robots.txt');
		expect(site.paths()).toContain('/private/staff.html');
		expect(site.paths()).not.toContain('/docs/deep/three.html');
		expect(itemOf(deep.items, '/private/staff.html').outcome).toBe('created');
		expect(itemOf(deep.items, '/docs/deep/three.html')).toMatchObject({ outcome: 'notAnalyzed', status: null, depth: 3, reason: 'More than Max Depth (2) clicks from Site URL' });
		expect(deep.items.some(({ json }) => String(json.url).includes('loop'))).toBe(false);
	});
});

describe('Site > Audit: bad input fails before any request, naming the field', () => {
	it.each([
		[{ siteUrl: 'ftp://example.com/' }, /^Site URL must be an absolute http\(s\) address/],
		[{ siteUrl: 'example.com' }, /^Site URL must be an absolute http\(s\) address/],
		[{ maxPages: 0 }, /^Max Pages must be a positive whole number; got 0/],
		[{ discover: 'everything' }, /^Find Pages In must be one of: both \(Sitemaps and Links\), sitemaps \(Sitemaps\), links \(Links\); got "everything"/],
		[{ ifReportExists: 'skip' }, /^If the URL Already Has a Report must be one of its 4 choices/],
		[{ options: { maxDepth: -1 } }, /^Max Depth must be a whole number, 0 or more; got -1/],
	])('%j', async (parameters, message) => {
		const { error } = await audit(parameters as IDataObject);

		expect(inputErrorOf(error).message).toMatch(message);
		expect(site.requests).toEqual([]);
		expect(apiRequests(server())).toEqual([]);
	});
});

describe('Site > Audit: sites that answer badly', () => {
	const sites: AuditSite[] = [];
	const siteWith = async (options: AuditSiteOptions) => {
		const started = await startAuditSite(options);
		sites.push(started);
		return started;
	};
	afterEach(async () => {
		await Promise.all(sites.splice(0).map(async (started) => await started.close()));
	});

	it('a host that does not answer: a message naming Site URL, nothing sent to phpRank', async () => {
		const closed = await siteWith({});
		const siteUrl = `${closed.url}/`;
		await closed.close();
		sites.splice(0);

		const { error, items } = await runPhpRank(server(), { resource: 'site', operation: 'audit', siteUrl }, { continueOnFail: true });

		expect(error).toBeUndefined();
		expect(items.map(({ json }) => json)).toEqual([
			{ error: `Site URL ${siteUrl} did not answer (Connection refused); nothing was sent to phpRank, so running this item again is safe` },
		]);
		expect(apiRequests(server())).toEqual([]);
	});

	it.each(['missing', 'serverError', 'html'] as const)('robots.txt %s: every page allowed, the sitemap looked for at /sitemap.xml', async (robots) => {
		const badRobots = await siteWith({ robots });

		const { items, error } = await audit({}, badRobots);

		expect(error).toBeUndefined();
		expect(badRobots.paths().slice(0, 3)).toEqual(['/robots.txt', '/sitemap.xml', '/']);
		expect(itemOf(items, '/private/staff.html').outcome).toBe('created');
		expect(itemOf(items, '/orphan.html').orphan).toBe(true);
	});

	it('a sitemap that is an HTML page: a message naming the file, nothing sent to phpRank', async () => {
		const htmlSitemap = await siteWith({ sitemap: 'html' });

		const { error } = await audit({}, htmlSitemap);

		expect(inputErrorOf(error).message).toBe(
			`Sitemap ${htmlSitemap.url}/sitemap.xml is an HTML page, not a sitemap; only the site was read, so running this item again is safe`,
		);
		expect(htmlSitemap.paths()).toEqual(['/robots.txt', '/sitemap.xml']);
		expect(apiRequests(server())).toEqual([]);
	});

	it("sitemaps robots.txt names on another host: indexes nested and gzipped every way, each file read once; the shop's pages are not this site's", async () => {
		const shopSitemaps = `${new URL(server().url).origin}${SITE_PREFIX}`;
		const elsewhere = await siteWith({ sitemaps: [`${shopSitemaps}/${NESTED_INDEX_FILE}`] });

		const { items, error } = await audit({ discover: 'sitemaps' }, elsewhere);

		expect(error).toBeUndefined();
		const read = server().requests.filter((request) => request.path.startsWith(`${SITE_PREFIX}/`)).map((request) => request.path.slice(SITE_PREFIX.length + 1));
		expect(read).toEqual(sitemapFilesFrom(NESTED_INDEX_FILE));
		expect(items.map(({ json }) => pathOf(json.url))).toEqual(['/']);
	});

	it('sitemap indexes nested without end: a message naming the files 6 levels down', async () => {
		const shopSitemaps = `${new URL(server().url).origin}${SITE_PREFIX}`;
		const endless = await siteWith({ sitemaps: [`${shopSitemaps}/${deepIndexFile(1)}`] });

		const { error } = await audit({}, endless);

		expect(inputErrorOf(error).message).toBe(
			`Sitemap ${shopSitemaps}/${deepIndexFile(6)} would be read 6 levels down, deeper than the 5 levels of sitemap indexes the audit follows; only the site was read, so running this item again is safe`,
		);
		expect(apiRequests(server())).toEqual([]);
	});

	it('a gzipped sitemap is read by its bytes', async () => {
		const gzipped = await siteWith({ sitemap: 'gzip' });

		const { items, error } = await audit({ discover: 'sitemaps' }, gzipped);

		expect(error).toBeUndefined();
		expect(items.map(({ json }) => pathOf(json.url))).toEqual([...AUDIT_SITEMAP_PATHS, '/indexing/preferred.html']);
	});

	it('a page that does not answer within Max Wait: failed with the reason, the others audited', async () => {
		const slow = await siteWith({ heldPaths: ['/docs/deep/three.html'] });

		const { items, error } = await audit({ discover: 'links', options: { maxWait: 1 } }, slow);

		expect(error).toBeUndefined();
		expect(itemOf(items, '/docs/deep/three.html')).toMatchObject({ outcome: 'failed', status: null, reason: 'No answer within 1 s' });
		expect(items.some(({ json }) => pathOf(json.url) === '/docs/deep/four.html')).toBe(false);
		expect(itemOf(items, '/docs/deep/three.html').indexability).toBe('failed');
		expect(items.filter(({ json }) => json.indexability === 'failed').map(({ json }) => pathOf(json.url))).toEqual(['/docs/deep/three.html']);
		expect(creates().map((request) => pathOf(request.body.url))).toEqual(ANALYZED_IN_ORDER.filter((path) => !path.startsWith('/docs/deep/') && path !== '/orphan.html'));
	});

	it('Check External Links: a broken external target listed with the pages linking to it', async () => {
		const partner = await siteWith({});
		const withPartner = await siteWith({ externalUrl: `${partner.url}/nowhere` });

		const { items, error } = await audit({ discover: 'links', options: { checkExternalLinks: true } }, withPartner);

		expect(error).toBeUndefined();
		expect(partner.paths()).toEqual(['/nowhere']);
		expect(itemOf(items, '/nowhere')).toMatchObject({ outcome: 'broken', status: 404, linkedFrom: [{ url: `${withPartner.url}/`, text: 'Partner' }] });
	});
});

// Sitemaps as their generators write them, on the audit site's origin `o`: the protocol's <url><loc> (<sitemap><loc>
// in an index) are the URLs; images, videos, alternate languages and news about a page are not pages.
const YOAST_STYLESHEET = (o: string) => `<?xml-stylesheet type="text/xsl" href="${o.replace(/^http:/, '')}/wp-content/plugins/wordpress-seo/css/main-sitemap.xsl"?>`;

const YOAST_URLSET =
	'<urlset xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" ' +
	'xsi:schemaLocation="http://www.sitemaps.org/schemas/sitemap/0.9 http://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd ' +
	'http://www.google.com/schemas/sitemap-image/1.1 http://www.google.com/schemas/sitemap-image/1.1/sitemap-image.xsd" ' +
	'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">';

// Yoast SEO: sitemap_index.xml (which robots.txt names), and post-sitemap.xml with each post's images.
const yoastIndex = (o: string) => `<?xml version="1.0" encoding="UTF-8"?>${YOAST_STYLESHEET(o)}
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
	<sitemap>
		<loc>${o}/post-sitemap.xml</loc>
		<lastmod>2026-11-02T09:14:21+00:00</lastmod>
	</sitemap>
	<sitemap>
		<loc>${o}/page-sitemap.xml</loc>
		<lastmod>2026-10-28T16:02:47+00:00</lastmod>
	</sitemap>
</sitemapindex>
<!-- XML Sitemap generated by Yoast SEO -->`;

const yoastPosts = (o: string) => `<?xml version="1.0" encoding="UTF-8"?>${YOAST_STYLESHEET(o)}
${YOAST_URLSET}
	<url>
		<loc>${o}/docs/intro.html</loc>
		<lastmod>2026-11-02T09:14:21+00:00</lastmod>
		<image:image>
			<image:loc>${o}/wp-content/uploads/2026/11/pour-over.jpg</image:loc>
		</image:image>
		<image:image>
			<image:loc>${o}/wp-content/uploads/2026/11/pour-over-kettle.jpg</image:loc>
		</image:image>
	</url>
	<url>
		<loc>${o}/docs/next.html</loc>
		<lastmod>2026-10-30T11:40:05+00:00</lastmod>
		<image:image>
			<image:loc>${o}/wp-content/uploads/2026/10/grinder.png</image:loc>
		</image:image>
	</url>
	<url>
		<loc>${o}/orphan.html</loc>
		<lastmod>2026-10-21T08:03:12+00:00</lastmod>
	</url>
</urlset>
<!-- XML Sitemap generated by Yoast SEO -->`;

const yoastPages = (o: string) => `<?xml version="1.0" encoding="UTF-8"?>${YOAST_STYLESHEET(o)}
${YOAST_URLSET}
	<url>
		<loc>${o}/</loc>
		<lastmod>2026-11-02T09:14:21+00:00</lastmod>
		<image:image>
			<image:loc>${o}/wp-content/uploads/2026/09/shop-front.jpg</image:loc>
		</image:image>
	</url>
	<url>
		<loc>${o}/about.html</loc>
		<lastmod>2026-10-28T16:02:47+00:00</lastmod>
	</url>
</urlset>
<!-- XML Sitemap generated by Yoast SEO -->`;

// Rank Math: its stylesheet on the first line, image titles and captions in CDATA, its credit after the urlset.
const rankMathPosts = (o: string) => `<?xml version="1.0" encoding="UTF-8"?><?xml-stylesheet type="text/xsl" href="${o.replace(/^http:/, '')}/main-sitemap.xsl"?>
${YOAST_URLSET}
	<url>
		<loc>${o}/docs/intro.html</loc>
		<lastmod>2026-11-02T09:14:21+00:00</lastmod>
		<image:image>
			<image:loc>${o}/wp-content/uploads/2026/11/pour-over.jpg</image:loc>
			<image:title><![CDATA[Pour-over in four steps]]></image:title>
			<image:caption><![CDATA[The kettle & the filter]]></image:caption>
		</image:image>
	</url>
	<url>
		<loc>${o}/orphan.html</loc>
		<lastmod>2026-10-21T08:03:12+00:00</lastmod>
		<image:image>
			<image:loc>${o}/wp-content/uploads/2026/10/orphan-banner.png</image:loc>
			<image:title><![CDATA[Banner]]></image:title>
		</image:image>
	</url>
</urlset>
<!-- XML Sitemap generated by Rank Math SEO Plugin (c) Rank Math - rankmath.com -->`;

// Google's video sitemap: the video's thumbnail, file and player are URLs, none of them a page.
const videoSitemap = (o: string) => `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:video="http://www.google.com/schemas/sitemap-video/1.1">
   <url>
     <loc>${o}/docs/intro.html</loc>
     <video:video>
       <video:thumbnail_loc>${o}/thumbs/123.jpg</video:thumbnail_loc>
       <video:title>Pour-over for beginners</video:title>
       <video:description>Barbara shows how to brew a clean cup with a kettle and a paper filter.</video:description>
       <video:content_loc>${o}/video123.mp4</video:content_loc>
       <video:player_loc>${o}/videoplayer.php?video=123&amp;autoplay=0</video:player_loc>
       <video:duration>600</video:duration>
       <video:expiration_date>2027-11-05T19:20:30+08:00</video:expiration_date>
       <video:rating>4.2</video:rating>
       <video:view_count>12345</video:view_count>
       <video:publication_date>2026-11-05T19:20:30+08:00</video:publication_date>
       <video:family_friendly>yes</video:family_friendly>
       <video:restriction relationship="allow">IE GB US CA</video:restriction>
       <video:price currency="EUR">1.99</video:price>
       <video:requires_subscription>yes</video:requires_subscription>
       <video:uploader info="${o}/users/barbara">Barbara</video:uploader>
       <video:live>no</video:live>
     </video:video>
   </url>
   <url>
     <loc>${o}/about.html</loc>
     <video:video>
       <video:thumbnail_loc>${o}/thumbs/345.jpg</video:thumbnail_loc>
       <video:title>Our roastery</video:title>
       <video:description>A morning at the roastery.</video:description>
       <video:player_loc>${o}/videoplayer.php?video=345</video:player_loc>
     </video:video>
   </url>
</urlset>`;

// Google's localized versions: each language's page a <url> of its own, its alternates as <xhtml:link>.
const hreflangSitemap = (o: string) => `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
  xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url>
    <loc>${o}/about.html</loc>
    <xhtml:link
               rel="alternate"
               hreflang="de"
               href="${o}/about.html?lang=de&amp;region=at"/>
    <xhtml:link
               rel="alternate"
               hreflang="de-ch"
               href="${o}/de-ch/about.html"/>
    <xhtml:link
               rel="alternate"
               hreflang="en"
               href="${o}/about.html"/>
  </url>
  <url>
    <loc>${o}/about.html?lang=de&amp;region=at</loc>
    <xhtml:link
               rel="alternate"
               hreflang="de"
               href="${o}/about.html?lang=de&amp;region=at"/>
    <xhtml:link
               rel="alternate"
               hreflang="de-ch"
               href="${o}/de-ch/about.html"/>
    <xhtml:link
               rel="alternate"
               hreflang="en"
               href="${o}/about.html"/>
  </url>
</urlset>`;

// Google News: the article's publication, language, date and title.
const newsSitemap = (o: string) => `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
  <url>
  <loc>${o}/docs/next.html</loc>
  <news:news>
    <news:publication>
      <news:name>The Brew Times</news:name>
      <news:language>en</news:language>
    </news:publication>
    <news:publication_date>2026-11-02</news:publication_date>
      <news:title>Roasters A, B in Merger Talks</news:title>
  </news:news>
  </url>
</urlset>`;

// Python's ElementTree with no namespace registered: every namespace bound to a prefix (ns0, ns1), on one line.
const SITEMAP_NAMESPACE = 'http://www.sitemaps.org/schemas/sitemap/0.9';
const IMAGE_NAMESPACE = 'http://www.google.com/schemas/sitemap-image/1.1';
const prefixedIndex = (o: string) =>
	`<?xml version='1.0' encoding='utf-8'?>\n<ns0:sitemapindex xmlns:ns0="${SITEMAP_NAMESPACE}"><ns0:sitemap><ns0:loc>${o}/sitemap-pages.xml</ns0:loc></ns0:sitemap></ns0:sitemapindex>`;
const prefixedPages = (o: string) =>
	`<?xml version='1.0' encoding='utf-8'?>\n<ns0:urlset xmlns:ns0="${SITEMAP_NAMESPACE}" xmlns:ns1="${IMAGE_NAMESPACE}">` +
	`<ns0:url><ns0:loc>${o}/about.html</ns0:loc><ns1:image><ns1:loc>${o}/static/team.jpg</ns1:loc></ns1:image></ns0:url>` +
	`<ns0:url><ns0:loc><![CDATA[${o}/orphan.html]]></ns0:loc><ns0:lastmod>2026-11-02</ns0:lastmod></ns0:url></ns0:urlset>`;

// A plugin that writes its images straight into <url>, and a comment holding an old entry.
const looseImages = (o: string) => `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url>
    <loc>${o}/docs/intro.html</loc>
    <image:loc>${o}/wp-content/uploads/2026/11/pour-over.jpg</image:loc>
  </url>
  <!-- <url><loc>${o}/docs/missing.html</loc></url> -->
  <url>
    <image:loc>${o}/wp-content/uploads/2026/11/gallery.jpg</image:loc>
    <loc>${o}/orphan.html</loc>
  </url>
</urlset>`;

/** A site serving sitemaps of one shape: the files the audit reads, the pages it lists in order, its orphans. */
interface SitemapShape {
	name: string;
	options: AuditSiteOptions;
	files: string[];
	pages: string[];
	orphans: string[];
}

describe('Site > Audit: sitemaps as their generators write them: only the <url> entries are pages', () => {
	const sites: AuditSite[] = [];
	afterEach(async () => {
		await Promise.all(sites.splice(0).map(async (started) => await started.close()));
	});

	it.each<SitemapShape>([
		{
			name: 'Yoast SEO: its index, then post and page sitemaps with each post\'s images',
			options: { sitemaps: ['/sitemap_index.xml'], xmlFiles: { '/sitemap_index.xml': yoastIndex, '/post-sitemap.xml': yoastPosts, '/page-sitemap.xml': yoastPages } },
			files: ['/sitemap_index.xml', '/post-sitemap.xml', '/page-sitemap.xml'],
			pages: ['/', '/docs/intro.html', '/docs/next.html', '/orphan.html', '/about.html'],
			orphans: ['/orphan.html'],
		},
		{
			name: 'Rank Math: images with titles and captions in CDATA',
			options: { sitemaps: ['/post-sitemap.xml'], xmlFiles: { '/post-sitemap.xml': rankMathPosts } },
			files: ['/post-sitemap.xml'],
			pages: ['/', '/docs/intro.html', '/orphan.html'],
			orphans: ['/orphan.html'],
		},
		{
			name: "Google's video sitemap: thumbnail_loc, content_loc and player_loc",
			options: { xmlFiles: { '/sitemap.xml': videoSitemap } },
			files: ['/sitemap.xml'],
			pages: ['/', '/docs/intro.html', '/about.html'],
			orphans: [],
		},
		{
			name: "Google's localized versions: each language's <url>, its <xhtml:link> alternates no pages",
			options: { xmlFiles: { '/sitemap.xml': hreflangSitemap } },
			files: ['/sitemap.xml'],
			pages: ['/', '/about.html', '/about.html?lang=de&region=at'],
			// Linked from no page: the German version is an orphan.
			orphans: ['/about.html?lang=de&region=at'],
		},
		{
			name: 'Google News: the article, not its publication',
			options: { xmlFiles: { '/sitemap.xml': newsSitemap } },
			files: ['/sitemap.xml'],
			pages: ['/', '/docs/next.html'],
			// Linked from /docs/intro.html only, which this sitemap does not list.
			orphans: ['/docs/next.html'],
		},
		{
			name: 'the sitemap namespace bound to a prefix (ns0:), in an index and a urlset, a loc in CDATA',
			options: { xmlFiles: { '/sitemap.xml': prefixedIndex, '/sitemap-pages.xml': prefixedPages } },
			files: ['/sitemap.xml', '/sitemap-pages.xml'],
			pages: ['/', '/about.html', '/orphan.html'],
			orphans: ['/orphan.html'],
		},
		{
			name: '<image:loc> written straight into <url>, and an entry in a comment',
			options: { xmlFiles: { '/sitemap.xml': looseImages } },
			files: ['/sitemap.xml'],
			pages: ['/', '/docs/intro.html', '/orphan.html'],
			orphans: ['/orphan.html'],
		},
	])('$name', async ({ options, files, pages, orphans }) => {
		const shaped = await startAuditSite(options);
		sites.push(shaped);

		const { items, error } = await audit({ discover: 'sitemaps' }, shaped);

		expect(error).toBeUndefined();
		// The start page, then the sitemaps' pages in their order; none of their images, videos or alternates.
		expect(items.map(({ json }) => pathOf(json.url))).toEqual(pages);
		expect(items.filter(({ json }) => json.orphan === true).map(({ json }) => pathOf(json.url))).toEqual(orphans);
		expect(items.every(({ json }) => json.outcome === 'created')).toBe(true);
		// The sitemaps, then each page once; nothing else.
		expect(pagePaths(shaped)).toEqual(['/robots.txt', ...files, ...pages.map((page) => page.replace(/\?.*/, ''))]);
		expect(creates().map((request) => pathOf(request.body.url))).toEqual(pages);
	});

	it("the bundled site's image sitemap: its pages listed, none of its images fetched or counted", async () => {
		const { items, error } = await audit({ discover: 'sitemaps' });

		expect(error).toBeUndefined();
		// Its pages, then the canonical URL one of them names; in the sitemap and linked from none of its pages: orphans.
		expect(items.map(({ json }) => [pathOf(json.url), json.orphan])).toEqual([
			['/', false],
			['/about.html', false],
			['/docs/intro.html', false],
			['/orphan.html', true],
			['/gone.html', false],
			['/old-page', false],
			['/indexing/noindex-meta.html', true],
			['/indexing/canonicalized.html', true],
			['/private/staff.html', false],
			['/indexing/preferred.html', false],
		]);
		const images = Object.values(AUDIT_SITEMAP_IMAGES).flat();
		expect(images).toHaveLength(4);
		expect(site.paths().filter((path) => images.includes(path))).toEqual([]);
	});

	it('an image sitemap of 50,000 pages, each with two images, is read whole; one more page is over the limit', async () => {
		const entries = (count: number) =>
			Array.from(
				{ length: count },
				(_, n) =>
					`\t<url>\n\t\t<loc>https://www.brewshop.example/products/item-${n}</loc>\n\t\t<lastmod>2026-11-02T09:14:21+00:00</lastmod>\n` +
					`\t\t<image:image>\n\t\t\t<image:loc>https://www.brewshop.example/wp-content/uploads/item-${n}.jpg</image:loc>\n\t\t</image:image>\n` +
					`\t\t<image:image>\n\t\t\t<image:loc>https://www.brewshop.example/wp-content/uploads/item-${n}-side.jpg</image:loc>\n\t\t</image:image>\n\t</url>\n`,
			).join('');
		const full = `<?xml version="1.0" encoding="UTF-8"?>\n${YOAST_URLSET}\n${entries(50_000)}</urlset>\n<!-- XML Sitemap generated by Yoast SEO -->`;
		const over = `<?xml version="1.0" encoding="UTF-8"?>\n${YOAST_URLSET}\n${entries(50_001)}</urlset>\n`;
		const big = await startAuditSite({ xmlFiles: { '/sitemap.xml': () => full, '/over.xml': () => over }, sitemaps: ['/sitemap.xml'] });
		const tooBig = await startAuditSite({ xmlFiles: { '/over.xml': () => over }, sitemaps: ['/over.xml'] });
		sites.push(big, tooBig);

		// The shop's pages are on another host: read, counted against the limit, not this site's.
		const read = await audit({ discover: 'sitemaps' }, big);
		expect(read.error).toBeUndefined();
		expect(read.items.map(({ json }) => pathOf(json.url))).toEqual(['/']);

		const refused = await audit({ discover: 'sitemaps' }, tooBig);
		expect(inputErrorOf(refused.error).message).toBe(
			`Sitemap ${tooBig.url}/over.xml lists 50001 URLs, more than the 50000 a sitemap may hold; only the site was read, so running this item again is safe`,
		);
	});
});

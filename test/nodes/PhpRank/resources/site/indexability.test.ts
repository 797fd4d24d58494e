/**
 * Site > Audit crawls as search engines' crawlers do, on the bundled audit site (dev/server/auditSite.ts): what its
 * pages under /indexing/ tell them (robots meta tag, X-Robots-Tag, nofollow pages and links, canonical URLs, a chain of
 * redirects), robots.txt's Crawl-delay, pages of bad HTML. For each URL, whether it may be indexed and why; phpRank is
 * asked only about the pages that may be; the site is never asked for what only nofollow links lead to.
 */
import type { IDataObject } from 'n8n-workflow';
import { AUDIT_SITEMAP_PATHS, BAD_HTML_PATHS, BINARY_PAGE_BYTES, HUGE_PAGE_BYTES } from '../../../../../dev/server';
import type { AuditSite } from '../../../../../dev/server';
import type { RecordedRequest } from '../../../../../dev/server';
import { useAuditSites } from '../../../../support/auditSites';
import { apiRequests, useServer } from '../../../../support/phpRank';

const server = useServer();

const { siteWith, audit } = useAuditSites(server);

const pathOf = (url: unknown) => String(url).replace(/^http:\/\/127\.0\.0\.1:\d+/, '');
const pathsWhere = (items: IDataObject[], keep: (item: IDataObject) => boolean) => items.filter(keep).map((item) => pathOf(item.url));
const itemOf = (items: IDataObject[], path: string) => items.find((item) => pathOf(item.url) === path)!;
const linkedFrom = (item: IDataObject) => (item.linkedFrom as Array<{ url: string; text: string }>).map(({ url, text }) => [pathOf(url), text]);
/** The URLs phpRank was asked about: created, or looked up. */
const askedOf = (requests: RecordedRequest[]) =>
	requests.flatMap((request) => [request.body?.url, request.query.search].filter((url) => url !== undefined).map((url) => pathOf(`http://${String(url).replace(/^https?:\/\//, '')}`)));
const createdOf = (requests: RecordedRequest[]) => requests.filter((request) => request.method === 'POST').map((request) => pathOf(request.body.url));

/** What each URL of the audit site is to a search engine, in the order the audit lists them. */
const INDEXABILITY: Record<string, string[]> = {
	indexable: [
		'/',
		'/about.html',
		'/docs/intro.html',
		'/orphan.html',
		'/base.html',
		'/indexing/',
		'/docs/next.html',
		'/indexing/nofollow.html',
		'/docs/deep/three.html',
		'/indexing/followed.html',
		'/indexing/preferred.html',
		'/docs/deep/four.html',
	],
	noindex: ['/indexing/noindex-meta.html', '/indexing/noindex-header.html'],
	canonicalized: [
		'/indexing/canonicalized.html',
		'/indexing/two-canonicals.html',
		'/indexing/canonical-to-gone.html',
		'/indexing/canonical-to-redirect.html',
		'/indexing/canonical-to-noindex.html',
	],
	blocked: ['/private/staff.html'],
	redirected: ['/old-page', '/loop-a', '/indexing/hop-1', '/loop-b', '/indexing/hop-2', '/indexing/hop-3'],
	// The sitemap lists /gone.html: registered before any link is read.
	broken: ['/gone.html', '/docs/missing.html'],
	notHtml: ['/indexing/price-list.pdf'],
	// No answer (Max Wait: audit.test.ts); not fetched for Max Pages or Max Depth there too.
	failed: [],
	notFetched: ['/indexing/hidden-by-rel.html', '/indexing/hidden-by-meta.html'],
};
const NOT_INDEXABLE_HTML = [...INDEXABILITY.noindex, ...INDEXABILITY.canonicalized];
const ONLY_BY_NOFOLLOW = INDEXABILITY.notFetched;
const sorted = (paths: string[]) => [...paths].sort();

describe('Site > Audit: whether each URL may be indexed, and why', () => {
	let site: AuditSite;
	let items: IDataObject[];
	let sitePaths: string[];
	let phpRank: RecordedRequest[];
	beforeAll(async () => {
		site = await siteWith();
		items = await audit(site);
		sitePaths = site.paths();
		phpRank = [...apiRequests(server())];
	});

	it('names for each indexability exactly its URLs; indexable is true for the indexable ones alone', () => {
		for (const [indexability, paths] of Object.entries(INDEXABILITY)) {
			expect([indexability, pathsWhere(items, (item) => item.indexability === indexability)]).toEqual([indexability, paths]);
		}
		expect(items).toHaveLength(Object.values(INDEXABILITY).flat().length);
		expect(pathsWhere(items, (item) => item.indexable === true)).toEqual(INDEXABILITY.indexable);
		expect(items.every((item) => typeof item.indexable === 'boolean')).toBe(true);
	});

	it('asks phpRank about the indexable pages alone: no create nor lookup for a noindex or canonicalized page', () => {
		expect(sorted(createdOf(phpRank))).toEqual(sorted(INDEXABILITY.indexable));
		expect(askedOf(phpRank).filter((path) => !INDEXABILITY.indexable.includes(path))).toEqual([]);
		// They were fetched and read: that is how the audit knows.
		expect(NOT_INDEXABLE_HTML.filter((path) => !sitePaths.includes(path))).toEqual([]);
		expect(NOT_INDEXABLE_HTML.map((path) => [path, itemOf(items, path).outcome, itemOf(items, path).status])).toEqual(NOT_INDEXABLE_HTML.map((path) => [path, 'notAnalyzed', 200]));
	});

	it('says why a page is not analyzed: noindex and where, the canonical URL, nofollow links only, no HTML', () => {
		const reasons = Object.fromEntries(
			items.filter((item) => item.outcome === 'notAnalyzed').map((item) => [pathOf(item.url), String(item.reason).replace(site.url, '<site>')]),
		);

		expect(reasons).toEqual({
			'/indexing/noindex-meta.html': 'Not indexable: noindex in meta robots',
			'/indexing/noindex-header.html': 'Not indexable: noindex in X-Robots-Tag',
			'/indexing/canonicalized.html': 'Not indexable: its canonical URL is <site>/indexing/preferred.html',
			'/indexing/two-canonicals.html': 'Not indexable: its canonical URL is <site>/indexing/preferred.html',
			'/indexing/canonical-to-gone.html': 'Not indexable: its canonical URL is <site>/gone.html',
			'/indexing/canonical-to-redirect.html': 'Not indexable: its canonical URL is <site>/old-page',
			'/indexing/canonical-to-noindex.html': 'Not indexable: its canonical URL is <site>/indexing/noindex-meta.html',
			'/indexing/hidden-by-rel.html': 'Linked only by nofollow links, which are not followed',
			'/indexing/hidden-by-meta.html': 'Linked only by nofollow links, which are not followed',
			'/indexing/price-list.pdf': 'Not an HTML page (application/pdf)',
		});
	});

	it('nofollow: a nofollow page\'s links and a rel="nofollow" link are counted, never followed; ugc, sponsored and another crawler\'s nofollow are followed', () => {
		expect(pathsWhere(items, (item) => item.nofollow === true)).toEqual(['/indexing/nofollow.html']);
		expect(ONLY_BY_NOFOLLOW.filter((path) => sitePaths.includes(path))).toEqual([]);
		expect(ONLY_BY_NOFOLLOW.map((path) => [path, itemOf(items, path).status, itemOf(items, path).inlinks, linkedFrom(itemOf(items, path))])).toEqual([
			['/indexing/hidden-by-rel.html', null, 1, [['/indexing/', 'Sponsor']]],
			['/indexing/hidden-by-meta.html', null, 1, [['/indexing/nofollow.html', 'Members area']]],
		]);
		// A broken target seen through a nofollow page's link too.
		expect(linkedFrom(itemOf(items, '/docs/missing.html'))).toContainEqual(['/indexing/nofollow.html', 'Old chapter']);
		// Each is linked from one page only: rel="ugc sponsored", and a noindex page whose X-Robots-Tag says nofollow to OtherBot alone.
		expect([linkedFrom(itemOf(items, '/indexing/canonicalized.html')), linkedFrom(itemOf(items, '/indexing/followed.html'))]).toEqual([
			[['/indexing/', 'Comments']],
			[['/indexing/noindex-header.html', 'Read on']],
		]);
		expect(sitePaths).toEqual(expect.arrayContaining(['/indexing/canonicalized.html', '/indexing/followed.html']));
	});

	it('canonical: from <link rel="canonical"> or the Link header, absolute, without fragment; the first of two that disagree, and that they do', () => {
		const canonicals = Object.fromEntries(items.filter((item) => item.canonical !== null).map((item) => [pathOf(item.url), pathOf(item.canonical)]));

		expect(canonicals).toEqual({
			'/indexing/canonicalized.html': '/indexing/preferred.html',
			'/indexing/two-canonicals.html': '/indexing/preferred.html',
			'/indexing/followed.html': '/indexing/followed.html',
			'/indexing/preferred.html': '/indexing/preferred.html',
			'/indexing/canonical-to-gone.html': '/gone.html',
			'/indexing/canonical-to-redirect.html': '/old-page',
			'/indexing/canonical-to-noindex.html': '/indexing/noindex-meta.html',
		});
		expect(String(itemOf(items, '/indexing/canonicalized.html').canonical)).toBe(`${site.url}/indexing/preferred.html`);
		expect(pathsWhere(items, (item) => item.canonicalConflict === true)).toEqual(['/indexing/two-canonicals.html']);
		// The canonical URL is crawled as a link from its page is, and analyzed: no link leads there.
		expect(itemOf(items, '/indexing/preferred.html')).toMatchObject({ outcome: 'created', depth: 3, inlinks: 0, foundIn: ['links'], indexability: 'indexable' });
	});

	it('title, meta description and first heading as shown, null when the page has none', () => {
		const html = items.filter((item) => item.htmlBytes !== null);

		expect(itemOf(items, '/indexing/')).toMatchObject({
			title: 'Indexing & crawling',
			metaDescription: 'How search engines see this site \u2014 and what they leave out',
			h1: 'What crawlers see',
		});
		// Two pages share a title, two a description (site issues); the others' titles are their paths, and no other
		// page has a description or a heading.
		const titled: Record<string, [string, string | null]> = {
			'/indexing/': ['Indexing & crawling', 'How search engines see this site \u2014 and what they leave out'],
			'/docs/next.html': ['Brewing guide', null],
			'/docs/deep/three.html': ['Brewing guide', null],
			'/about.html': ['/about.html', 'Tea and coffee gear, tasted and chosen since 1998.'],
			'/base.html': ['/base.html', 'Tea and coffee gear, tasted and chosen since 1998.'],
		};
		expect(html.map((item) => [pathOf(item.url), item.title, item.metaDescription, item.h1])).toEqual(
			html.map((item) => pathOf(item.url)).map((path) => [path, ...(titled[path] ?? [path, null]), path === '/indexing/' ? 'What crawlers see' : null]),
		);
		expect(items.filter((item) => item.htmlBytes === null).every((item) => item.title === null && item.metaDescription === null && item.h1 === null && item.canonical === null)).toBe(true);
	});

	it('redirectChain: every hop of a redirecting URL to where it lands, with its status; null for the others', () => {
		const chains = Object.fromEntries(
			items.filter((item) => item.redirectChain !== null).map((item) => [pathOf(item.url), (item.redirectChain as Array<{ url: string; status: number | null }>).map((hop) => `${pathOf(hop.url)} ${hop.status}`)]),
		);

		expect(chains).toEqual({
			'/old-page': ['/old-page 301', '/about.html 200'],
			'/loop-a': ['/loop-a 302', '/loop-b 302', '/loop-a 302'],
			'/indexing/hop-1': ['/indexing/hop-1 301', '/indexing/hop-2 302', '/indexing/hop-3 307', '/about.html 200'],
			'/loop-b': ['/loop-b 302', '/loop-a 302', '/loop-b 302'],
			'/indexing/hop-2': ['/indexing/hop-2 302', '/indexing/hop-3 307', '/about.html 200'],
			'/indexing/hop-3': ['/indexing/hop-3 307', '/about.html 200'],
		});
		expect(itemOf(items, '/indexing/hop-1').redirectsTo).toBe(`${site.url}/about.html`);
	});

	it("htmlBytes: the size of an HTML page's answer; responseMs: a time for each URL fetched; no Crawl-delay (another crawler's is not this one's)", async () => {
		const fetched = items.filter((item) => item.status !== null);
		const html = items.filter((item) => item.htmlBytes !== null);
		const sizes = await Promise.all(html.map(async (item) => Buffer.from(await (await fetch(String(item.url))).arrayBuffer()).length));

		// The pages that answered 200 with HTML.
		expect(pathsWhere(html, () => true)).toEqual(pathsWhere(items, (item) => ['indexable', 'noindex', 'canonicalized'].includes(String(item.indexability))));
		expect(html.map((item) => item.htmlBytes)).toEqual(sizes);
		expect(fetched.every((item) => typeof item.responseMs === 'number' && item.responseMs >= 0)).toBe(true);
		expect(items.filter((item) => item.status === null).every((item) => item.responseMs === null)).toBe(true);
		expect(items.every((item) => item.crawlDelaySeconds === null)).toBe(true);
	});
});

describe('Site > Audit: Options > Analyze Non-Indexable Pages', () => {
	it('on: the noindex and canonicalized pages are sent to phpRank too, their indexability kept; what only nofollow links lead to is still not fetched', async () => {
		const site = await siteWith();

		const items = await audit(site, { options: { analyzeNonIndexable: true } });

		expect(sorted(createdOf(apiRequests(server())))).toEqual(sorted([...INDEXABILITY.indexable, ...NOT_INDEXABLE_HTML]));
		expect(NOT_INDEXABLE_HTML.map((path) => [path, itemOf(items, path).outcome, itemOf(items, path).reason, itemOf(items, path).indexable])).toEqual(
			NOT_INDEXABLE_HTML.map((path) => [path, 'created', null, false]),
		);
		expect(pathsWhere(items, (item) => item.indexability === 'noindex')).toEqual(INDEXABILITY.noindex);
		expect(pathsWhere(items, (item) => item.indexability === 'canonicalized')).toEqual(INDEXABILITY.canonicalized);
		expect(ONLY_BY_NOFOLLOW.filter((path) => site.paths().includes(path))).toEqual([]);
	});
});

describe("Site > Audit: robots.txt's Crawl-delay", () => {
	it('paces the requests to the site: one at a time, each at least the delay after the answer before it, and says so on every item', async () => {
		const site = await siteWith({ crawlDelay: 0.2 });

		const items = await audit(site, { discover: 'sitemaps' });

		// The sitemap's pages (not the one robots.txt disallows), the canonical URL one of them names, the images.
		expect(site.paths()).toEqual([
			'/robots.txt',
			'/sitemap.xml',
			...AUDIT_SITEMAP_PATHS.filter((path) => path !== '/private/staff.html'),
			'/indexing/preferred.html',
			'/images/logo.png',
			'/images/no-head.png',
			'/images/no-head.png',
			'/images/old-logo.png',
			'/images/team.jpg',
			'/images/missing.jpg',
		]);
		// From the site's own record: each request came once the answer before it was sent, and 200 ms or more later.
		const gaps = site.requests.slice(1).map((request, index) => request.at - site.requests[index].answeredAt!);
		expect(gaps.filter((gap) => !(gap >= 200))).toEqual([]);
		expect(items.map((item) => item.crawlDelaySeconds)).toEqual(items.map(() => 0.2));
		expect(createdOf(apiRequests(server()))).toEqual(['/', '/about.html', '/docs/intro.html', '/orphan.html', '/indexing/preferred.html']);
	});

	it('Respect robots.txt off: its Crawl-delay is not kept either', async () => {
		const site = await siteWith({ crawlDelay: 0.2 });

		const items = await audit(site, { discover: 'sitemaps', options: { respectRobotsTxt: false } });

		expect(items.map((item) => item.crawlDelaySeconds)).toEqual(items.map(() => null));
	});
});

describe('Site > Audit: pages of bad HTML give an item each, never an error', () => {
	it('unclosed tags, ten canonical links, a 5 MB page, binary bytes served as HTML', async () => {
		const site = await siteWith({ badHtml: true });

		const items = await audit(site, { discover: 'links' });

		expect(BAD_HTML_PATHS.map((path) => [path, itemOf(items, path)?.status])).toEqual(BAD_HTML_PATHS.map((path) => [path, 200]));
		expect(itemOf(items, '/bad/unclosed.html')).toMatchObject({
			outcome: 'created',
			indexability: 'indexable',
			title: 'Unclosed title',
			metaDescription: 'A page of unclosed tags',
			h1: 'Heading without end',
		});
		// Its links left open end at the next one; what an unclosed comment holds is no link.
		expect(linkedFrom(itemOf(items, '/about.html'))).toContainEqual(['/bad/unclosed.html', 'About us']);
		expect(linkedFrom(itemOf(items, '/docs/intro.html'))).toContainEqual(['/bad/unclosed.html', 'Intro']);
		expect(items.some((item) => pathOf(item.url) === '/bad/in-a-comment.html')).toBe(false);
		expect(itemOf(items, '/bad/canonicals.html')).toMatchObject({ outcome: 'created', indexability: 'indexable', canonical: `${site.url}/bad/canonicals.html`, canonicalConflict: true });
		// The huge page: read whole for its links (its last one leads to a page found nowhere else), its head from the start.
		expect(itemOf(items, '/bad/huge.html')).toMatchObject({ outcome: 'created', htmlBytes: HUGE_PAGE_BYTES, title: 'A huge page', h1: 'Everything on one page' });
		expect(itemOf(items, '/bad/after-huge.html')).toMatchObject({ outcome: 'created', inlinks: 1, linkedFrom: [{ url: `${site.url}/bad/huge.html`, text: 'The end of the huge page' }] });
		expect(items.some((item) => pathOf(item.url) === '/in-a-script.html')).toBe(false);
		expect(itemOf(items, '/bad/binary.html')).toMatchObject({ status: 200, htmlBytes: BINARY_PAGE_BYTES, indexability: 'indexable' });
		expect(sorted(createdOf(apiRequests(server())))).toEqual(sorted(pathsWhere(items, (item) => item.indexable === true)));
	});
});

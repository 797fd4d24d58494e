/**
 * Site > Audit's site issues on the bundled audit site (dev/server/auditSite.ts), which holds each case: titles,
 * descriptions and texts the same or nearly, every canonical case, a sitemap listing what it should not, redirect
 * chains and loops, links to redirects, images that load (one refusing HEAD, one moved) and one missing, a slow and a
 * large page. For each issue, exactly the URLs that have it and the URLs it concerns; none of it asks phpRank anything.
 */
import type { IDataObject } from 'n8n-workflow';
import { AUDIT_SITE_ANALYZED_PATHS, AUDIT_SITE_ISSUES } from '../../../../../dev/server';
import type { AuditSite, RecordedRequest } from '../../../../../dev/server';
import { useAuditSites } from '../../../../support/auditSites';
import { apiRequests, useServer } from '../../../../support/phpRank';

const server = useServer();

const { siteWith, audit } = useAuditSites(server);

interface Issue {
	id: string;
	severity: string;
	urls: string[];
	count: number;
}

const pathOf = (url: unknown) => String(url).replace(/^http:\/\/127\.0\.0\.1:\d+/, '');
const issuesOf = (item: IDataObject) => item.siteIssues as unknown as Issue[];

/** Issue id → URL having it → the URLs it concerns (sorted), from the items. */
function byIssue(items: IDataObject[]): Record<string, Record<string, string[]>> {
	const found: Record<string, Record<string, string[]>> = {};
	for (const item of items) {
		for (const issue of issuesOf(item)) {
			found[issue.id] ??= {};
			found[issue.id][pathOf(item.url)] = issue.urls.map(pathOf).sort();
		}
	}
	return found;
}

const SEVERITIES: Record<string, string[]> = {
	error: ['broken_link', 'duplicate_title', 'duplicate_content', 'canonical_broken', 'sitemap_broken', 'redirect_loop', 'broken_image'],
	warning: [
		'duplicate_meta_description',
		'redirect_chain',
		'link_to_redirect',
		'canonical_redirect',
		'canonical_noindex',
		'canonical_multiple',
		'sitemap_redirect',
		'sitemap_noindex',
		'sitemap_canonicalized',
		'sitemap_blocked',
		'slow_page',
		'large_page',
	],
	notice: ['orphan_page', 'missing_from_sitemap', 'deep_page', 'nofollow_links', 'noindex_page', 'blocked_page'],
};

describe('Site > Audit: site issues', () => {
	let site: AuditSite;
	let items: IDataObject[];
	let phpRank: RecordedRequest[];
	beforeAll(async () => {
		site = await siteWith();
		items = await audit(site);
		phpRank = [...apiRequests(server())];
	});

	it('names for each issue exactly the URLs that have it, and for each the URLs it concerns', () => {
		expect(byIssue(items)).toEqual(AUDIT_SITE_ISSUES);
	});

	it('gives each issue its severity, lists them in the order errors, warnings, notices, and counts what it concerns', () => {
		const order = Object.values(SEVERITIES).flat();
		for (const item of items) {
			const issues = issuesOf(item);
			expect(issues.map((issue) => issue.severity)).toEqual(issues.map((issue) => Object.keys(SEVERITIES).find((severity) => SEVERITIES[severity].includes(issue.id))));
			expect(issues.map((issue) => order.indexOf(issue.id))).toEqual(issues.map((issue) => order.indexOf(issue.id)).sort((a, b) => a - b));
		}
		const count = (path: string, id: string) => issuesOf(items.find((item) => pathOf(item.url) === path)!).find((issue) => issue.id === id)?.count;
		// Every page linking to a broken URL, however many are listed.
		expect([count('/gone.html', 'broken_link'), count('/docs/missing.html', 'broken_link'), count('/about.html', 'duplicate_content'), count('/indexing/', 'nofollow_links')]).toEqual([3, 3, 1, 1]);
		// Every item has the field: an empty list where the URL has no issue.
		expect(items.filter((item) => issuesOf(item).length === 0).map((item) => pathOf(item.url))).toEqual(
			expect.arrayContaining(['/', '/docs/intro.html', '/indexing/hidden-by-rel.html', '/indexing/price-list.pdf', '/indexing/hop-3']),
		);
	});

	it('asks the site for each image once (GET where HEAD is refused, a moved one followed to an image already asked), and phpRank only for the indexable pages', () => {
		const imageRequests = site.requests.filter((request) => request.path.startsWith('/images/')).map((request) => `${request.method} ${request.path}`);
		expect(imageRequests.sort()).toEqual(['GET /images/no-head.png', 'HEAD /images/logo.png', 'HEAD /images/missing.jpg', 'HEAD /images/no-head.png', 'HEAD /images/old-logo.png', 'HEAD /images/team.jpg']);
		const pages = site.requests.filter((request) => !request.path.startsWith('/images/')).map((request) => request.path);
		expect(pages.length).toBe(new Set(pages).size);
		expect(phpRank.filter((request) => request.method === 'POST').map((request) => pathOf(request.body.url)).sort()).toEqual([...AUDIT_SITE_ANALYZED_PATHS].sort());
	});

	it('Check Images off: no image asked for, no broken image', async () => {
		const quiet = await siteWith();
		const found = await audit(quiet, { options: { checkImages: false } });
		expect(quiet.requests.filter((request) => request.path.startsWith('/images/'))).toEqual([]);
		expect(byIssue(found).broken_image).toBeUndefined();
		expect(byIssue(found).broken_link).toEqual(AUDIT_SITE_ISSUES.broken_link);
	});

	it('a slow page (answered after 3 s) and a large one (over 2 MB), among pages of bad HTML that all give an item', async () => {
		const bad = await siteWith({ slowPaths: ['/docs/next.html'], badHtml: true });
		const found = byIssue(await audit(bad));
		expect(found.slow_page).toEqual({ '/docs/next.html': [] });
		expect(found.large_page).toEqual({ '/bad/huge.html': [] });
		// Ten canonical links that disagree; the first names the page itself, so it stays indexable.
		expect(found.canonical_multiple).toEqual({ '/indexing/two-canonicals.html': [], '/bad/canonicals.html': [] });
	});
});

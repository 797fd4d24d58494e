/**
 * The issues of a site as a whole, as site-audit tools (Semrush Site Audit, Screaming Frog) name them: found from the
 * crawl alone, with no request to phpRank. Each URL's issues list the URLs they concern (the pages linking to a broken
 * URL, the other pages with its title, ...), LINKED_FROM_KEPT of them with the count of all.
 */
import { indexabilityOf, isBroken, isRedirect, LINKED_FROM_KEPT, linkedFromOf } from './crawler';
import type { Crawl, CrawledPage, Indexability } from './crawler';
import { duplicateGroups } from './duplicates';

export type Severity = 'error' | 'warning' | 'notice';

/** Every site issue, by severity, in the order the summary lists them. */
export const SITE_ISSUES = {
	broken_link: 'error',
	duplicate_title: 'error',
	duplicate_content: 'error',
	canonical_broken: 'error',
	sitemap_broken: 'error',
	redirect_loop: 'error',
	broken_image: 'error',
	duplicate_meta_description: 'warning',
	redirect_chain: 'warning',
	link_to_redirect: 'warning',
	canonical_redirect: 'warning',
	canonical_noindex: 'warning',
	canonical_multiple: 'warning',
	sitemap_redirect: 'warning',
	sitemap_noindex: 'warning',
	sitemap_canonicalized: 'warning',
	sitemap_blocked: 'warning',
	slow_page: 'warning',
	large_page: 'warning',
	orphan_page: 'notice',
	missing_from_sitemap: 'notice',
	deep_page: 'notice',
	nofollow_links: 'notice',
	noindex_page: 'notice',
	blocked_page: 'notice',
} as const satisfies Record<string, Severity>;

export type SiteIssueId = keyof typeof SITE_ISSUES;

export const SITE_ISSUE_IDS = Object.keys(SITE_ISSUES) as SiteIssueId[];

/** One issue of a URL: the URLs it concerns (at most LINKED_FROM_KEPT) and how many there are in all. */
export interface SiteIssue {
	id: SiteIssueId;
	severity: Severity;
	urls: string[];
	count: number;
}

/** An HTML page answered after this long is slow (Semrush: "slow page load speed"). */
export const SLOW_PAGE_MS = 3000;
/** An HTML page larger than this is large (Semrush: "page size too large"). */
export const LARGE_PAGE_BYTES = 2 * 1024 * 1024;
/** More clicks than this from the start page is deep (Semrush: "more than 3 clicks"). */
export const DEEP_PAGE_CLICKS = 3;

const SITEMAP_ISSUES: Partial<Record<Indexability, SiteIssueId>> = {
	broken: 'sitemap_broken',
	redirected: 'sitemap_redirect',
	noindex: 'sitemap_noindex',
	canonicalized: 'sitemap_canonicalized',
	blocked: 'sitemap_blocked',
};

export interface SiteFacts {
	crawl: Crawl;
	/** The site has a sitemap listing pages: indexable pages it leaves out are then worth a notice. */
	hasSitemap: boolean;
}

/** Each URL's site issues, in SITE_ISSUES' order; a URL with none is not in the map. */
export function siteIssuesOf({ crawl, hasSitemap }: SiteFacts): Map<string, SiteIssue[]> {
	const pages = crawl.pages().filter((page) => !page.external);
	const byUrl = new Map(pages.map((page) => [page.url, page]));
	const found = new Map<string, Partial<Record<SiteIssueId, { urls: string[]; count: number }>>>();
	/** `urls` are the first of `count` URLs the issue concerns. */
	const add = (url: string, id: SiteIssueId, urls: string[] = [], count = urls.length) => {
		let issues = found.get(url);
		if (issues === undefined) found.set(url, (issues = {}));
		const issue = (issues[id] ??= { urls: [], count: 0 });
		for (const concerned of urls) if (issue.urls.length < LINKED_FROM_KEPT) issue.urls.push(concerned);
		issue.count += count;
	};
	const indexable = pages.filter((page) => indexabilityOf(page) === 'indexable');

	for (const [id, textOf] of [
		['duplicate_title', (page: CrawledPage) => page.facts?.title],
		['duplicate_meta_description', (page: CrawledPage) => page.facts?.metaDescription],
	] as const) {
		const byText = new Map<string, string[]>();
		for (const page of indexable) {
			const text = textOf(page);
			if (text === null || text === undefined || text === '') continue;
			const group = byText.get(text);
			if (group === undefined) byText.set(text, [page.url]);
			else group.push(page.url);
		}
		for (const group of byText.values()) sameGroup(group, (url, others, count) => add(url, id, others, count));
	}
	const fingerprinted = indexable.flatMap((page) => (page.fingerprint === null ? [] : [{ url: page.url, fingerprint: page.fingerprint }]));
	for (const group of duplicateGroups(fingerprinted)) sameGroup(group, (url, others, count) => add(url, 'duplicate_content', others, count));

	for (const page of pages) {
		const indexability = indexabilityOf(page);
		const linkingPages = () => [...new Set(linkedFromOf(page).map((link) => link.url))];
		if (isBroken(page) && page.inlinks > 0) add(page.url, 'broken_link', linkingPages(), page.inlinks);
		if (indexability === 'redirected' && page.inlinks > 0) add(page.url, 'link_to_redirect', linkingPages(), page.inlinks);
		const chain = crawl.redirectChainOf(page);
		if (chain !== null) {
			const hops = chain.map((hop) => hop.url);
			if (new Set(hops).size < hops.length) add(page.url, 'redirect_loop', hops.slice(1));
			else if (chain.filter((hop) => isRedirect(hop.status)).length >= 2) add(page.url, 'redirect_chain', hops.slice(1));
		}
		const facts = page.facts;
		if (facts !== null && facts.canonical !== null && facts.canonical !== page.url) {
			const target = byUrl.get(facts.canonical);
			const targetIndexability = target === undefined ? undefined : indexabilityOf(target);
			if (targetIndexability === 'broken') add(page.url, 'canonical_broken', [facts.canonical]);
			else if (targetIndexability === 'redirected') add(page.url, 'canonical_redirect', [facts.canonical]);
			else if (targetIndexability === 'noindex') add(page.url, 'canonical_noindex', [facts.canonical]);
		}
		if (facts?.canonicalConflict === true) add(page.url, 'canonical_multiple');
		const sitemapIssue = page.inSitemap ? SITEMAP_ISSUES[indexability] : undefined;
		if (sitemapIssue !== undefined) add(page.url, sitemapIssue);
		if (page.isHtml && page.responseMs !== null && page.responseMs > SLOW_PAGE_MS) add(page.url, 'slow_page');
		if (page.htmlBytes !== null && page.htmlBytes > LARGE_PAGE_BYTES) add(page.url, 'large_page');
		if (page.inSitemap && page.inlinks === 0 && page.depth !== 0) add(page.url, 'orphan_page');
		if (hasSitemap && indexability === 'indexable' && !page.inSitemap) add(page.url, 'missing_from_sitemap');
		if (page.isHtml && page.depth !== null && page.depth > DEEP_PAGE_CLICKS) add(page.url, 'deep_page');
		if (page.nofollowLinks > 0) add(page.url, 'nofollow_links', page.nofollowTargets, page.nofollowLinks);
		if (indexability === 'noindex') add(page.url, 'noindex_page');
		if (indexability === 'blocked') add(page.url, 'blocked_page');
	}
	for (const image of crawl.images()) {
		if (image.status === null || image.status < 400) continue;
		for (const url of image.pages) add(url, 'broken_image', [image.url]);
	}

	const issues = new Map<string, SiteIssue[]>();
	for (const [url, ids] of found) {
		issues.set(
			url,
			SITE_ISSUE_IDS.flatMap((id) => {
				const issue = ids[id];
				return issue === undefined ? [] : [{ id, severity: SITE_ISSUES[id], urls: issue.urls, count: issue.count }];
			}),
		);
	}
	return issues;
}

/**
 * For each URL of a group of pages alike, the first others and how many there are: a title shared by 5,000 pages
 * lists 10 of them on each, not 5,000.
 */
function sameGroup(group: string[], each: (url: string, others: string[], count: number) => void): void {
	if (group.length < 2) return;
	const first = group.slice(0, LINKED_FROM_KEPT + 1);
	for (const url of group) each(url, first.filter((other) => other !== url).slice(0, LINKED_FROM_KEPT), group.length - 1);
}

import { NodeOperationError, sleep } from 'n8n-workflow';
import type {
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { FORM_HEADERS, PhpRankClient } from '../../shared/client';
import type { RequestData } from '../../shared/client';
import { canceledWhileWaiting, connectionFailure } from '../../shared/errors';
import { nodeForErrors } from '../../shared/secrets';
import { updateDisplayOptions } from '../../shared/displayOptions';
import { shapeReport, toItems } from '../../shared/items';
import { failInput, parseBoolean, parseHttpUrl, parseOption, parsePositiveInteger, quoted, requirePassword } from '../../shared/validation';
import { PRIVACY, PRIVACY_OPTIONS } from '../../shared/values';
import { analyzerOf, IF_REPORT_EXISTS, ifReportExistsField } from '../report/create';
import type { CreateOutcome } from '../report/create';
import { reportAddressOf } from '../report/existingReport';
import { SiteReports } from '../report/siteReports';
import { Crawl, indexabilityOf, isBroken, linkedFromOf, MAX_CRAWL_DELAY_SECONDS, pathPatterns, Robots, siteKeyOf } from './crawler';
import type { CrawledPage, Fetch, Fetched } from './crawler';
import { readSitemaps, SitemapError } from './sitemaps';
import { siteIssuesOf } from './siteIssues';
import type { SiteIssue } from './siteIssues';

const DISCOVER = { both: 'both', sitemaps: 'sitemaps', links: 'links' } as const;

const DISCOVER_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Sitemaps and Links', value: DISCOVER.both, description: "The sitemaps' pages and every page their links lead to from Site URL" },
	{ name: 'Sitemaps', value: DISCOVER.sitemaps, description: 'Only the pages the sitemaps list (and Site URL); their links are counted, not followed' },
	{ name: 'Links', value: DISCOVER.links, description: 'Only the pages links lead to from Site URL, as a crawler finds them' },
];

/** What an audit item says of its URL. */
export const AUDIT_OUTCOME = {
	created: 'created',
	existing: 'existing',
	reanalyzed: 'reanalyzed',
	broken: 'broken',
	failed: 'failed',
	notAnalyzed: 'notAnalyzed',
	blocked: 'blocked',
	redirected: 'redirected',
} as const;

const SITE_URL_FIELD = 'Site URL';
const MAX_PAGES_FIELD = 'Max Pages';
const MAX_DEPTH_FIELD = 'Max Depth';

const DEFAULT_MAX_PAGES = 500;

// A customer's site, not phpRank: a couple of requests at a time (one at a time under a Crawl-delay), named as ours.
const SITE_CONCURRENCY = 2;
/** The crawler's name (its product token): the User-agent a robots.txt group names it by. */
export const CRAWLER_NAME = 'n8n-nodes-phprank';
export const USER_AGENT = `Mozilla/5.0 (compatible; ${CRAWLER_NAME}; +https://github.com/n8n-nodes-phprank/n8n-nodes-phprank)`;
/** A Crawl-delay's wait is cut into slices this long, to notice a stopped execution. */
const PACE_SLICE_MS = 500;
const PAGE_TIMEOUT_SECONDS = 30;

// Pages found and waiting for phpRank, at most: the crawl keeps ahead of the analyses without taking their CPU time
// (n8n runs both on one thread) or asking the site for pages long before they are analyzed.
const PAGES_AHEAD = 50;

const showOnlyForSiteAudit = { resource: ['site'], operation: ['audit'] };

const properties: INodeProperties[] = [
	{
		displayName: SITE_URL_FIELD,
		name: 'siteUrl',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. https://example.com/',
		description: 'The start page; its host is the site, with or without www',
		hint: 'Links to other hosts are counted, and fetched only with Options > Check External Links',
	},
	{
		displayName: 'Find Pages In',
		name: 'discover',
		type: 'options',
		options: DISCOVER_OPTIONS,
		default: 'both',
		description: "Where the site's pages are found: the sitemaps robots.txt names (else /sitemap.xml), the links of its pages, or both",
	},
	{
		displayName: MAX_PAGES_FIELD,
		name: 'maxPages',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: DEFAULT_MAX_PAGES,
		description: 'At most this many pages are analyzed; pages found beyond them are listed with outcome notAnalyzed',
	},
	ifReportExistsField({
		default: IF_REPORT_EXISTS.reanalyzeIfOlder,
		description: 'What to do with a page phpRank already holds a report of',
	}),
];

export const siteAuditDescription: INodeProperties[] = updateDisplayOptions({ show: showOnlyForSiteAudit }, properties);

/** Site > Audit's entries of the Options collection (report/options.ts declares it once for both resources). */
export const siteAuditOptions: INodeProperties[] = [
	{
		displayName: MAX_DEPTH_FIELD,
		name: 'maxDepth',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 10,
		description: 'Pages more clicks than this from Site URL are listed with outcome notAnalyzed, not fetched',
	},
	{
		displayName: 'Leave Out URLs Matching',
		name: 'leaveOut',
		type: 'string',
		default: '',
		placeholder: 'e.g. /cart, /search?, /*.pdf$',
		description: 'Paths to leave unfetched and unlisted, separated by commas',
		hint: "Each matches from the start of a URL's path and query, as robots.txt rules do: * any characters, $ the end",
	},
	{
		displayName: 'Check External Links',
		name: 'checkExternalLinks',
		type: 'boolean',
		default: false,
		description: 'Whether to fetch the links to other hosts and list the broken ones; off, each page counts them in externalLinks',
	},
	{
		displayName: 'Check Images',
		name: 'checkImages',
		type: 'boolean',
		default: true,
		description: 'Whether to ask the site once for each of its images its pages show, to find those that do not load (broken_image)',
	},
	{
		displayName: 'Respect robots.txt',
		name: 'respectRobotsTxt',
		type: 'boolean',
		default: true,
		description: 'Whether to leave the pages robots.txt disallows unfetched (outcome blocked) and wait its Crawl-delay between requests',
		hint: `Its group for ${CRAWLER_NAME}, else for every crawler (User-agent: *); a Crawl-delay up to ${MAX_CRAWL_DELAY_SECONDS} s, one request at a time`,
	},
	{
		displayName: 'Analyze Non-Indexable Pages',
		name: 'analyzeNonIndexable',
		type: 'boolean',
		default: false,
		description: 'Whether to send phpRank the pages search engines may not index too (noindex, or a canonical URL naming another page)',
		hint: 'Off, they are listed with outcome notAnalyzed and their indexability, and phpRank is not asked',
	},
];

export const siteAuditOperation: INodePropertyOptions = {
	name: 'Audit',
	value: 'audit',
	action: 'Audit a site',
	description: 'Audit a site',
	routing: {
		request: { method: 'POST', url: '/reports', headers: FORM_HEADERS },
		// paginate hands the prepared request to auditSite, which sends one create per page through the client.
		send: { paginate: true, preSend: [checkAudit] },
		operations: { pagination: auditSite },
	},
};

interface AuditSettings {
	siteUrl: string;
	discover: string;
	maxPages: number;
	maxDepth?: number;
	leaveOut: string[];
	checkExternal: boolean;
	checkImages: boolean;
	respectRobots: boolean;
	analyzeNonIndexable: boolean;
	includeResults: boolean;
	/** What each page's create sends beside its URL. */
	body: IDataObject;
}

function settingsOf(context: IExecuteSingleFunctions): AuditSettings {
	const siteUrl = parseHttpUrl(context, SITE_URL_FIELD, context.getNodeParameter('siteUrl', ''));
	const discover = String(parseOption(context, { field: 'Find Pages In', options: DISCOVER_OPTIONS }, context.getNodeParameter('discover', DISCOVER.both)));
	const maxPages = parsePositiveInteger(context, MAX_PAGES_FIELD, context.getNodeParameter('maxPages', DEFAULT_MAX_PAGES));
	const options = context.getNodeParameter('options', {}) as IDataObject;
	let maxDepth: number | undefined;
	if (options.maxDepth !== undefined) {
		const depth = options.maxDepth;
		if (typeof depth !== 'number' || !Number.isSafeInteger(depth) || depth < 0) failInput(context, `${MAX_DEPTH_FIELD} must be a whole number, 0 or more; got ${quoted(depth)}`);
		maxDepth = depth;
	}
	const leaveOutText = options.leaveOut ?? '';
	if (typeof leaveOutText !== 'string') failInput(context, `Leave Out URLs Matching must be text; got ${quoted(leaveOutText)}`);
	const body: IDataObject = {
		privacy: parseOption(context, { field: 'Privacy', options: PRIVACY_OPTIONS }, context.getNodeParameter('privacy', PRIVACY.public)),
	};
	if (body.privacy === PRIVACY.password) body.password = requirePassword(context, context.getNodeParameter('password', ''));
	return {
		siteUrl,
		discover,
		maxPages,
		maxDepth,
		leaveOut: leaveOutText
			.split(/[,\n]/)
			.map((pattern) => pattern.trim())
			.filter((pattern) => pattern !== ''),
		checkExternal: parseBoolean(context, 'Check External Links', options.checkExternalLinks ?? false),
		checkImages: parseBoolean(context, 'Check Images', options.checkImages ?? true),
		respectRobots: parseBoolean(context, 'Respect robots.txt', options.respectRobotsTxt ?? true),
		analyzeNonIndexable: parseBoolean(context, 'Analyze Non-Indexable Pages', options.analyzeNonIndexable ?? false),
		// Off unless added and on: every check's entry of hundreds of pages is megabytes, and failedChecks stay.
		includeResults: parseBoolean(context, 'Include Per-Check Results', options.includeResults ?? false),
		body,
	};
}

/** Bad input fails here, before any request: to the site or to phpRank. */
async function checkAudit(this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> {
	settingsOf(this);
	return requestOptions;
}

/** The words for a request to the site that got no answer. */
function failureReason(error: unknown, timeoutSeconds: number): string {
	const { code, kind } = connectionFailure(error);
	if (kind === 'timedOut') return `No answer within ${timeoutSeconds} s`;
	if (code === 'ECONNREFUSED') return 'Connection refused';
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'Host not found';
	const message = error instanceof Error ? error.message : String(error);
	return code === '' || message.includes(code) ? message : `${message} (${code})`;
}

function headersOf(response: IN8nHttpFullResponse): Record<string, string> {
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(response.headers ?? {})) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
	return headers;
}

function bytesOf(body: unknown): Buffer {
	if (Buffer.isBuffer(body)) return body;
	if (body instanceof ArrayBuffer) return Buffer.from(body);
	if (typeof body === 'string') return Buffer.from(body);
	return Buffer.from(body === undefined || body === null ? '' : JSON.stringify(body));
}

/** The site's pages fetched with n8n's request helper: no redirect followed, a User-Agent naming the package. */
function siteFetch(context: IExecutePaginationFunctions, timeoutSeconds: number): Fetch {
	return async (url: string, method = 'GET'): Promise<Fetched> => {
		const started = Date.now();
		const response = (await context.helpers
			.httpRequest({
				method,
				url,
				headers: { 'User-Agent': USER_AGENT, Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
				encoding: 'arraybuffer',
				json: false,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				disableFollowRedirect: true,
				timeout: timeoutSeconds * 1000,
				// A stopped execution stops its crawl too.
				abortSignal: context.getExecutionCancelSignal?.(),
			})
			.catch((error: unknown) => {
				throw new Error(failureReason(error, timeoutSeconds));
			})) as IN8nHttpFullResponse;
		return { status: response.statusCode, headers: headersOf(response), body: bytesOf(response.body), ms: Date.now() - started };
	};
}

/**
 * The requests to the site (its host, with or without www.) one at a time, each `delaySeconds` after the answer
 * before it (robots.txt's Crawl-delay); requests to other hosts as they come. The first waits from now: robots.txt
 * has just answered.
 */
function pacedFetch(fetch: Fetch, site: URL, delaySeconds: number, isCancelled: () => boolean): Fetch {
	const siteKey = siteKeyOf(site);
	let answeredAt = Date.now();
	let previous: Promise<void> = Promise.resolve();
	return async (url: string, method?: 'GET' | 'HEAD'): Promise<Fetched> => {
		let onSite: boolean;
		try {
			onSite = siteKeyOf(new URL(url)) === siteKey;
		} catch {
			onSite = false;
		}
		if (!onSite) return await fetch(url, method);
		const before = previous;
		let done = () => {};
		previous = new Promise<void>((resolve) => (done = resolve));
		try {
			await before;
			const at = answeredAt + delaySeconds * 1000;
			while (!isCancelled() && Date.now() < at) await sleep(Math.min(PACE_SLICE_MS, at - Date.now()));
			return await fetch(url, method);
		} finally {
			answeredAt = Date.now();
			done();
		}
	};
}

/** What phpRank made of an analyzed page: its report as the item shows it and the create's outcome, or why it failed. */
type Analysis = { outcome: string; report: IDataObject } | { failure: string; error: unknown };

/**
 * Shaped at once: the record with every check's results is not kept for the rest of the crawl. The item's url is
 * the page's as found, so phpRank's form of it (no scheme, no www.) is left out of the report (`omitUrl`), and its
 * `outcome` by a copy, not deleted: an object with a property deleted (or with many set one by one) holds its
 * properties in a dictionary, several times their size, for every page held until the crawl ends.
 */
function analysisOf({ record, additions }: CreateOutcome, shape: { omitResults: boolean; site: string; omitUrl: boolean }): Analysis {
	const { outcome, ...report } = shapeReport(record, shape, additions);
	return { outcome: String(outcome), report };
}

async function auditSite(this: IExecutePaginationFunctions, requestData: RequestData): Promise<INodeExecutionData[]> {
	const settings = settingsOf(this);
	const client = PhpRankClient.forItem(this, requestData);
	const analyze = analyzerOf(this, this.getNodeParameter('ifReportExists', IF_REPORT_EXISTS.reanalyzeIfOlder));
	const options = this.getNodeParameter('options', {}) as IDataObject;
	const maxWait = typeof options.maxWait === 'number' && options.maxWait > 0 ? options.maxWait : PAGE_TIMEOUT_SECONDS;
	const timeoutSeconds = Math.min(PAGE_TIMEOUT_SECONDS, maxWait);
	let fetch = siteFetch(this, timeoutSeconds);
	const isCancelled = () => client.isCancelled();
	const start = new URL(settings.siteUrl);
	const origin = start.origin;
	const unreachable = (reason: string) =>
		// Under Continue On Fail an item keeps the message alone: it says that running the item again is safe.
		failInput(this, `${SITE_URL_FIELD} ${settings.siteUrl} did not answer (${reason}); nothing was sent to phpRank, so running this item again is safe`);

	const usesSitemaps = settings.discover !== DISCOVER.links;
	let robots: Robots | undefined;
	if (settings.respectRobots || usesSitemaps) {
		const answer = await fetch(`${origin}/robots.txt`).catch((error: Error) => unreachable(error.message));
		// A robots.txt that is missing, fails (5xx) or is no robots.txt (an HTML page) leaves every page allowed.
		robots = answer.status === 200 ? Robots.parse(answer.body.toString('utf8'), CRAWLER_NAME) : undefined;
	}
	// robots.txt's Crawl-delay paces every request to the site from here on: the sitemaps' and the pages'.
	const crawlDelaySeconds = settings.respectRobots ? (robots?.crawlDelaySeconds ?? null) : null;
	if (crawlDelaySeconds !== null) fetch = pacedFetch(fetch, start, crawlDelaySeconds, isCancelled);

	let sitemapPages: string[] = [];
	if (usesSitemaps) {
		const named = robots?.sitemaps ?? [];
		const read = await readSitemaps({
			fetch,
			first: named.length > 0 ? named : [`${origin}/sitemap.xml`],
			guessed: named.length === 0,
			isCancelled,
		}).then(
			(sitemaps) => sitemaps,
			(error: unknown) => (error instanceof SitemapError ? error : new NodeOperationError(nodeForErrors(this.getNode()), error as Error)),
		);
		if (read instanceof SitemapError) {
			failInput(this, `${read.message}; only the site was read, so running this item again is safe`);
		}
		if (read instanceof NodeOperationError) throw read;
		sitemapPages = read.pages;
	}
	const hasSitemap = sitemapPages.length > 0;

	const site = await client.site();
	const shape = { omitResults: !settings.includeResults, site, omitUrl: true };
	const project = reportAddressOf(settings.siteUrl).project;
	// The site's reports read once, while the crawl goes on: each page is then matched against them.
	if (readsSiteReports(this)) SiteReports.of(client, project).readWhole(client, { urls: settings.maxPages });
	const analyses = new Map<string, Promise<Analysis>>();
	let waiting = 0;
	let analyzed: Array<() => void> = [];
	const ready = async () => {
		while (waiting >= PAGES_AHEAD && !isCancelled()) await new Promise<void>((resolve) => analyzed.push(resolve));
	};
	const leftOut = pathPatterns(settings.leaveOut);
	const crawl = new Crawl({
		start: settings.siteUrl,
		fetch,
		followLinks: settings.discover !== DISCOVER.sitemaps,
		sitemapPages,
		robots: settings.respectRobots ? (robots ?? Robots.none) : undefined,
		maxDepth: settings.maxDepth,
		maxPages: settings.maxPages,
		isLeftOut: (url) => leftOut(url),
		checkExternal: settings.checkExternal,
		checkImages: settings.checkImages,
		concurrency: crawlDelaySeconds === null ? SITE_CONCURRENCY : 1,
		handNonIndexable: settings.analyzeNonIndexable,
		isCancelled,
		onPage: (page) => {
			const pageClient = client.forRequest(
				{ ...(requestData.options as IHttpRequestOptions), body: { url: page.url, ...settings.body } },
				{ name: `The report for ${page.url}`, operation: 'create' },
			);
			waiting++;
			const analysis = analyze(pageClient, page.url).then(
				(created) => analysisOf(created, shape),
				(error: unknown) => ({ failure: error instanceof Error ? error.message : String(error), error }),
			);
			analyses.set(
				page.url,
				analysis.then((settled) => {
					waiting--;
					const resumed = analyzed;
					analyzed = [];
					for (const resume of resumed) resume();
					return settled;
				}),
			);
		},
		ready,
	});
	// The crawl lets them go once it has registered them (see Crawl): nor are they held here for the crawl's length.
	sitemapPages = [];
	await crawl.run();
	// While phpRank analyzes the last pages.
	if (settings.checkImages) await crawl.checkImages();
	const settled = new Map<string, Analysis>();
	for (const [url, analysis] of analyses) settled.set(url, await analysis);
	analyses.clear();
	if (isCancelled()) {
		// A stopped execution's audit is not passed off as a whole one.
		const failed = [...settled.values()].find((analysis): analysis is Extract<Analysis, { error: unknown }> => 'error' in analysis);
		throw failed?.error ?? canceledWhileWaiting(this);
	}
	const pages = crawl.pages();
	const startPage = pages[0];
	if (startPage?.url === start.href && startPage.failure !== undefined && pages.every((page) => page.status === null)) unreachable(startPage.failure);

	const crawlFacts: CrawlFacts = { crawlDelaySeconds, robotsAgent: robots?.agent ?? '*' };
	const siteIssues = siteIssuesOf({ crawl, hasSitemap });
	const items: IDataObject[] = [];
	for (const page of pages) {
		const item = auditItem(crawl, page, settings, crawlFacts, settled.get(page.url), siteIssues.get(page.url) ?? []);
		// Each analysis is let go once its item holds its report: the items and the analyses are never all held twice.
		settled.delete(page.url);
		if (item !== undefined) items.push(item);
	}
	return toItems(this, items);
}

/** Whether the choice made reads the site's reports (every choice but Create Another Report). */
function readsSiteReports(context: IExecutePaginationFunctions): boolean {
	return context.getNodeParameter('ifReportExists', IF_REPORT_EXISTS.reanalyzeIfOlder) !== IF_REPORT_EXISTS.createAnother;
}

/** What the whole crawl kept to: robots.txt's Crawl-delay (null: none) and the User-agent whose rules applied. */
interface CrawlFacts {
	crawlDelaySeconds: number | null;
	robotsAgent: string;
}

/**
 * The item of one URL found: what the crawl knows of it (whether it may be indexed, what its page says of itself),
 * and for an analyzed page its report as Report > Create outputs it.
 */
function auditItem(
	crawl: Crawl,
	page: CrawledPage,
	settings: AuditSettings,
	crawlFacts: CrawlFacts,
	analysis: Analysis | undefined,
	siteIssues: SiteIssue[],
): IDataObject | undefined {
	const indexability = indexabilityOf(page);
	const facts = page.facts;
	let outcome: string;
	let reason: string | null = null;
	let redirectsTo: string | null = null;
	let report: IDataObject = {};
	if (page.external) {
		// Checked external links are listed only when broken: the site's own pages are what is audited.
		if (page.failure !== undefined) [outcome, reason] = [AUDIT_OUTCOME.failed, page.failure];
		else if (isBroken(page)) outcome = AUDIT_OUTCOME.broken;
		else return undefined;
	} else if (page.skipped === 'blocked') {
		const agent = crawlFacts.robotsAgent;
		[outcome, reason] = [AUDIT_OUTCOME.blocked, agent === '*' ? 'Disallowed by robots.txt for every crawler (User-agent: *)' : `Disallowed by robots.txt for this crawler (User-agent: ${agent})`];
	} else if (page.tooDeep) {
		[outcome, reason] = [AUDIT_OUTCOME.notAnalyzed, `More than ${MAX_DEPTH_FIELD} (${String(settings.maxDepth)}) clicks from ${SITE_URL_FIELD}`];
	} else if (page.failure !== undefined) {
		[outcome, reason] = [AUDIT_OUTCOME.failed, page.failure];
	} else if (page.location !== null) {
		const landing = crawl.landingOf(page);
		if ('failure' in landing) [outcome, reason] = [AUDIT_OUTCOME.failed, landing.failure];
		else [outcome, redirectsTo] = [AUDIT_OUTCOME.redirected, landing.landing];
	} else if (isBroken(page)) {
		outcome = AUDIT_OUTCOME.broken;
	} else if (analysis !== undefined) {
		if ('failure' in analysis) [outcome, reason] = [AUDIT_OUTCOME.failed, `phpRank: ${analysis.failure}`];
		else [outcome, report] = [analysis.outcome, analysis.report];
	} else if (page.skipped === 'nofollow') {
		[outcome, reason] = [AUDIT_OUTCOME.notAnalyzed, 'Linked only by nofollow links, which are not followed'];
	} else if (indexability === 'noindex') {
		[outcome, reason] = [AUDIT_OUTCOME.notAnalyzed, `Not indexable: noindex in ${facts?.noindex ?? 'the page'}`];
	} else if (indexability === 'canonicalized') {
		[outcome, reason] = [AUDIT_OUTCOME.notAnalyzed, `Not indexable: its canonical URL is ${facts?.canonical ?? 'another page'}`];
	} else if (page.status !== null) {
		[outcome, reason] = [AUDIT_OUTCOME.notAnalyzed, page.status === 200 ? `Not an HTML page (${page.contentType ?? 'no Content-Type'})` : `Answered ${page.status}`];
	} else {
		[outcome, reason] = [AUDIT_OUTCOME.notAnalyzed, `Beyond ${MAX_PAGES_FIELD} (${settings.maxPages})`];
	}
	const byLink = page.byLink || page.depth === 0;
	// Literals, not spreads: each item holds an array the size of its entries.
	const foundIn = page.inSitemap ? (byLink ? ['sitemap', 'links'] : ['sitemap']) : byLink ? ['links'] : [];
	return {
		url: page.url,
		outcome,
		reason,
		status: page.status,
		depth: page.depth,
		foundIn,
		inlinks: page.inlinks,
		linkedFrom: linkedFromOf(page),
		redirectsTo,
		orphan: page.inSitemap && page.inlinks === 0 && page.depth !== 0 && !page.external,
		externalLinks: page.externalLinks,
		indexable: indexability === 'indexable',
		indexability,
		title: facts?.title ?? null,
		metaDescription: facts?.metaDescription ?? null,
		h1: facts?.h1 ?? null,
		canonical: facts?.canonical ?? null,
		canonicalConflict: facts?.canonicalConflict ?? false,
		nofollow: facts?.nofollow ?? false,
		redirectChain: crawl.redirectChainOf(page),
		responseMs: page.responseMs,
		htmlBytes: page.htmlBytes,
		crawlDelaySeconds: crawlFacts.crawlDelaySeconds,
		siteIssues: siteIssues as unknown as IDataObject[],
		...report,
	};
}

export const siteAuditForAgents =
	"Audit a whole web site: find its pages from its sitemaps and links as search engines' crawlers do (robots.txt and its Crawl-delay, robots meta tags, X-Robots-Tag, nofollow; Site URL is the start page) and analyze each indexable page in phpRank. Returns one item per URL found: url, outcome (created, existing, reanalyzed, broken, failed, notAnalyzed, blocked or redirected), reason, status (HTTP), depth (clicks from the start page), foundIn, inlinks, linkedFrom (pages and anchor texts linking to it), redirectsTo, redirectChain, orphan, indexable, indexability (indexable, noindex, canonicalized, blocked, redirected, broken, notHtml, failed or notFetched), title, metaDescription, h1, canonical, nofollow, siteIssues (the site-level issues of the URL, as site-audit tools name them: broken_link, duplicate_title, duplicate_content, canonical_broken, sitemap_broken, redirect_loop, broken_image as errors; duplicate_meta_description, redirect_chain, link_to_redirect, canonical and sitemap problems, slow_page, large_page as warnings; orphan_page, missing_from_sitemap, deep_page, nofollow_links, noindex_page, blocked_page as notices; each { id, severity, urls, count }), and for analyzed pages the report (id, result, grade, failedChecks, failedCheckNames, reportUrl). It can take long: one phpRank analysis per page.";

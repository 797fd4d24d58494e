/**
 * Deterministic stand-in for phpRank's page analysis: no network, every value derived from the URL.
 * Scoring is split from describing so that seeding thousands of reports only pays for the cheap part;
 * the several-kilobyte `results` object is rebuilt on demand from the same seed.
 */
import { hashString, pick, pickSome, randomInt, Random, seededRandom, times } from './random';

type Importance = 'high' | 'medium' | 'low';

export interface CheckResult {
	passed: boolean;
	importance: Importance;
	value: unknown;
	errors?: Record<string, unknown>;
}

export type Results = Record<string, CheckResult>;

interface Page {
	random: Random;
	origin: string;
	host: string;
	https: boolean;
	words: string[];
}

type Describe = (page: Page, passed: boolean) => { value: unknown; errors?: Record<string, unknown> };

interface Check {
	name: string;
	importance: Importance;
	describe: Describe;
}

// With these weights the total is 71, a prime, so a score is a whole number only at 0 and 100.
const WEIGHT: Record<Importance, number> = { high: 3, medium: 2, low: 1 };

const VOCABULARY = [
	'guide', 'pricing', 'features', 'review', 'tutorial', 'news', 'update', 'release', 'design', 'search',
	'ranking', 'content', 'marketing', 'analytics', 'performance', 'security', 'mobile', 'local', 'shop', 'blog',
];
const ASSET_FOLDERS = ['assets', 'static', 'media', 'cdn', 'build'];
const SERVERS = ['Apache/2.4.41 (Ubuntu)', 'nginx/1.18.0', 'Microsoft-IIS/10.0', 'LiteSpeed'];

const sentence = (page: Page, count: number) => pickSome(page.random, page.words, count).join(' ');
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const assetUrls = (page: Page, count: number, extension: string) =>
	times(
		count,
		(i) => `${page.origin}/${pick(page.random, ASSET_FOLDERS)}/${pick(page.random, page.words)}-${i + 1}.${extension}`,
	);
const pageLinks = (page: Page, origin: string, count: number) =>
	times(count, () => {
		const text = sentence(page, 2);
		return { url: `${origin}/${text.replace(/ /g, '-')}`, text: capitalised(text) };
	});
const missing = (passed: boolean, value: unknown) => (passed ? { value } : { value: null, errors: { missing: null } });
/** A measured number: within the passing range, or outside it with the bound it broke. */
const measured = (page: Page, passed: boolean, passing: [number, number], failing: [number, number], broken: Record<string, unknown>) => {
	const value = passed ? randomInt(page.random, ...passing) : randomInt(page.random, ...failing);
	return passed ? { value } : { value, errors: broken };
};

const CHECKS: Check[] = [
	{
		name: 'title',
		importance: 'high',
		describe: (page, passed) => {
			const title = capitalised(`${sentence(page, 4)} | ${page.host}`);
			if (passed) return { value: title };
			return page.random() < 0.5
				? { value: null, errors: { missing: null } }
				: { value: `${title} ${sentence(page, 8)}`, errors: { too_long: { max: 60 } } };
		},
	},
	{
		name: 'meta_description',
		importance: 'high',
		describe: (page, passed) => missing(passed, capitalised(`${sentence(page, 14)}.`)),
	},
	{
		name: 'headings',
		importance: 'high',
		describe: (page, passed) => {
			const headings = {
				h1: [capitalised(sentence(page, 3))],
				h2: times(randomInt(page.random, 2, 6), () => capitalised(sentence(page, 3))),
				h3: times(randomInt(page.random, 0, 5), () => capitalised(sentence(page, 4))),
			};
			if (passed) return { value: headings };
			return page.random() < 0.5
				? { value: { ...headings, h1: [] }, errors: { missing: null } }
				: { value: { ...headings, h1: [...headings.h1, headings.h2[0]] }, errors: { duplicate: headings.h1 } };
		},
	},
	{
		name: 'content_keywords',
		importance: 'high',
		describe: (page, passed) => {
			const keywords = pickSome(page.random, page.words, 4);
			return passed ? { value: keywords } : { value: keywords.slice(0, 1), errors: { missing: keywords.slice(1) } };
		},
	},
	{
		name: 'image_keywords',
		importance: 'medium',
		describe: (page, passed) =>
			passed ? { value: [] } : { value: null, errors: { missing: assetUrls(page, randomInt(page.random, 1, 6), 'jpg') } },
	},
	{
		name: 'seo_friendly_url',
		importance: 'high',
		describe: (page, passed) => {
			const url = `${page.origin}/${page.words.slice(0, 3).join('-')}`;
			return passed ? { value: url } : { value: url, errors: { bad_format: [`${page.origin}/index.php?id=${randomInt(page.random, 1, 999)}`] } };
		},
	},
	{
		name: '404_page',
		importance: 'high',
		describe: (page, passed) => missing(passed, `${page.origin}/404-${randomInt(page.random, 100000, 999999)}`),
	},
	{
		name: 'robots',
		importance: 'high',
		describe: (page, passed) => (passed ? { value: null } : { value: null, errors: { failed: ['Disallow: /'] } }),
	},
	{
		name: 'noindex',
		importance: 'high',
		describe: (_page, passed) => (passed ? { value: null } : { value: 'noindex, nofollow', errors: { noindex: 'noindex, nofollow' } }),
	},
	{
		name: 'in_page_links',
		importance: 'medium',
		describe: (page, passed) => {
			const links = {
				Internals: pageLinks(page, page.origin, randomInt(page.random, 6, passed ? 14 : 30)),
				Externals: pageLinks(page, `https://${pick(page.random, page.words)}.example.org`, randomInt(page.random, 1, 6)),
			};
			return passed ? { value: links } : { value: links, errors: { too_many: { max: 150 } } };
		},
	},
	{
		name: 'language',
		importance: 'medium',
		describe: (page, passed) => missing(passed, pick(page.random, ['en', 'en-US', 'en-GB', 'de', 'fr'])),
	},
	{ name: 'favicon', importance: 'medium', describe: (page, passed) => missing(passed, `${page.origin}/favicon.ico`) },
	{
		name: 'text_compression',
		importance: 'high',
		describe: (page, passed) =>
			passed ? { value: { encoding: pick(page.random, ['gzip', 'br']), saved: randomInt(page.random, 8000, 90000) } } : { value: null, errors: { missing: null } },
	},
	{
		name: 'load_time',
		importance: 'high',
		describe: (page, passed) => {
			const seconds = Math.round((passed ? 0.1 + page.random() * 1.8 : 2.1 + page.random() * 6) * 100) / 100;
			return passed ? { value: seconds } : { value: seconds, errors: { too_slow: { max: 2 } } };
		},
	},
	{
		name: 'page_size',
		importance: 'medium',
		describe: (page, passed) => measured(page, passed, [20000, 330000], [330001, 2400000], { too_large: { max: 330000 } }),
	},
	{
		name: 'http_requests',
		importance: 'medium',
		describe: (page, passed) => {
			const scale = passed ? 1 : 3;
			const resources = {
				JavaScripts: assetUrls(page, randomInt(page.random, 2, 6) * scale, 'js'),
				CSS: assetUrls(page, randomInt(page.random, 1, 4) * scale, 'css'),
				Images: assetUrls(page, randomInt(page.random, 4, 10) * scale, 'png'),
			};
			return passed ? { value: resources } : { value: resources, errors: { too_many: { max: 50 } } };
		},
	},
	{
		name: 'image_format',
		importance: 'medium',
		describe: (page, passed) => (passed ? { value: [] } : { value: null, errors: { bad_format: assetUrls(page, randomInt(page.random, 1, 5), 'bmp') } }),
	},
	{
		name: 'defer_javascript',
		importance: 'low',
		describe: (page, passed) => (passed ? { value: [] } : { value: null, errors: { missing: assetUrls(page, randomInt(page.random, 1, 4), 'js') } }),
	},
	{
		name: 'dom_size',
		importance: 'low',
		describe: (page, passed) => measured(page, passed, [200, 1500], [1501, 6000], { too_many: { max: 1500 } }),
	},
	{ name: 'doctype', importance: 'medium', describe: (_page, passed) => missing(passed, 'html') },
	{
		name: 'https_encryption',
		importance: 'high',
		describe: (page, passed) => (passed ? { value: page.https } : { value: page.https, errors: { missing: null } }),
	},
	{
		name: 'mixed_content',
		importance: 'high',
		describe: (page, passed) =>
			passed ? { value: [] } : { value: null, errors: { failed: assetUrls(page, randomInt(page.random, 1, 3), 'js').map((url) => url.replace('https:', 'http:')) } },
	},
	{
		name: 'server_signature',
		importance: 'medium',
		describe: (page, passed) => {
			const signature = pick(page.random, SERVERS);
			return passed ? { value: null } : { value: signature, errors: { failed: signature } };
		},
	},
	{
		name: 'unsafe_cross_origin_links',
		importance: 'medium',
		describe: (page, passed) =>
			passed ? { value: [] } : { value: null, errors: { failed: pageLinks(page, 'https://partner.example.net', randomInt(page.random, 1, 3)).map((link) => link.url) } },
	},
	{
		name: 'plaintext_email',
		importance: 'low',
		describe: (page, passed) => (passed ? { value: [] } : { value: null, errors: { failed: [`info@${page.host}`] } }),
	},
	{
		name: 'structured_data',
		importance: 'low',
		describe: (page, passed) => {
			const title = capitalised(sentence(page, 3));
			const data = {
				'Open Graph': { 'og:title': title, 'og:type': 'website', 'og:url': page.origin },
				Twitter: { 'twitter:card': 'summary_large_image', 'twitter:title': title },
				'Schema.org': { '@type': 'WebPage', name: title },
			};
			return missing(passed, data);
		},
	},
	{ name: 'meta_viewport', importance: 'high', describe: (_page, passed) => missing(passed, 'width=device-width, initial-scale=1') },
	{ name: 'charset', importance: 'medium', describe: (_page, passed) => missing(passed, 'UTF-8') },
	{
		name: 'sitemap',
		importance: 'medium',
		describe: (page, passed) => missing(passed, [`${page.origin}/sitemap.xml`, `${page.origin}/sitemap-posts.xml`]),
	},
	{
		name: 'social',
		importance: 'low',
		describe: (page, passed) => {
			const handle = page.host.split('.')[0];
			return missing(passed, {
				facebook: [`https://www.facebook.com/${handle}`],
				twitter: [`https://twitter.com/${handle}`],
				linkedin: [`https://www.linkedin.com/company/${handle}`],
			});
		},
	},
	{
		name: 'content_length',
		importance: 'low',
		describe: (page, passed) => measured(page, passed, [500, 4000], [20, 499], { too_few: { min: 500 } }),
	},
	{
		name: 'text_html_ratio',
		importance: 'low',
		describe: (page, passed) => measured(page, passed, [10, 70], [1, 9], { too_small: { min: 10 } }),
	},
	{
		name: 'inline_css',
		importance: 'low',
		describe: (page, passed) =>
			passed ? { value: [] } : { value: null, errors: { failed: ['color: #333; margin: 0 auto;', 'display: none;', 'font-weight: 700;'].slice(0, randomInt(page.random, 1, 3)) } },
	},
];

export const CHECK_NAMES: readonly string[] = CHECKS.map((check) => check.name);

const TOTAL_WEIGHT = CHECKS.reduce((sum, check) => sum + WEIGHT[check.importance], 0);

interface Verdicts {
	passed: boolean[];
	/** Passed weight over total weight, times 100: unrounded, as the real analysis answers it. */
	score: number;
}

/** `changedQuality` stands for a page edited since phpRank first saw it (see PhpRankServer.changePage). */
function judge(targetUrl: string, changedQuality?: number): Verdicts {
	const random = seededRandom(hashString(targetUrl));
	// A per-page quality spreads scores over good, decent and bad.
	const ownQuality = 0.2 + random() * 0.8;
	const quality = changedQuality ?? ownQuality;
	const https = targetUrl.startsWith('https:');
	const passed = CHECKS.map((check) => (check.name === 'https_encryption' ? https : random() < quality));
	const passedWeight = CHECKS.reduce((sum, check, i) => sum + (passed[i] ? WEIGHT[check.importance] : 0), 0);
	return { passed, score: (passedWeight / TOTAL_WEIGHT) * 100 };
}

export function scorePage(targetUrl: string, changedQuality?: number): number {
	return judge(targetUrl, changedQuality).score;
}

export function describePage(targetUrl: string, changedQuality?: number): Results {
	const { passed } = judge(targetUrl, changedQuality);
	const url = new URL(targetUrl);
	const host = url.hostname.replace(/^www\./, '');
	const urlWords = `${host.split('.')[0]} ${url.pathname}`.split(/[^a-z0-9]+/i).filter((word) => word.length > 2);
	const page: Page = {
		random: seededRandom(hashString(targetUrl, 0x9e3779b9)),
		origin: url.origin,
		host,
		https: url.protocol === 'https:',
		words: [...urlWords, ...VOCABULARY],
	};
	const results: Results = {};
	CHECKS.forEach((check, i) => {
		results[check.name] = { passed: passed[i], importance: check.importance, ...check.describe(page, passed[i]) };
	});
	return results;
}

/** The names of the checks a page fails, by importance, in the order phpRank lists them. */
export function failedChecks(targetUrl: string, changedQuality?: number): Record<Importance, string[]> {
	const { passed } = judge(targetUrl, changedQuality);
	const failed: Record<Importance, string[]> = { high: [], medium: [], low: [] };
	CHECKS.forEach((check, i) => {
		if (!passed[i]) failed[check.importance].push(check.name);
	});
	return failed;
}

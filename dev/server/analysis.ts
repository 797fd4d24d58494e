/**
 * Deterministic stand-in for phpRank's page analysis: no network, every value derived from the URL.
 * Scoring is split from describing so that seeding thousands of reports only pays for the cheap part;
 * the several-kilobyte `results` object is rebuilt on demand from the same seed.
 */
type Importance = 'high' | 'medium' | 'low';

type CheckResult = { passed: boolean; importance: Importance; value: unknown; errors?: Record<string, unknown> };

type Random = () => number;

interface Page {
	random: Random;
	origin: string;
	host: string;
	https: boolean;
	words: string[];
}

type Range = [number, number];
type Describe = (page: Page, passed: boolean) => Omit<CheckResult, 'passed' | 'importance'>;

// Bound once: inside a vm context (as under jest) every global lookup of Math is slow, and this runs per value.
const { floor, imul } = Math;

/** FNV-1a. */
function hashString(text: string, seed = 0x811c9dc5): number {
	let hash = seed >>> 0;
	for (let i = 0; i < text.length; i++) hash = imul(hash ^ text.charCodeAt(i), 0x01000193);
	return hash >>> 0;
}

/** mulberry32: tiny, fast and good enough for fake data. */
function seededRandom(seed: number): Random {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = imul(state ^ (state >>> 15), state | 1);
		t ^= t + imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const randomInt = (random: Random, min: number, max: number) => min + floor(random() * (max - min + 1));
const pick = <T>(random: Random, items: readonly T[]) => items[floor(random() * items.length)];

/** A plain loop: Array.from({ length }) is several times slower, and fake data is built per read. */
function times<T>(count: number, make: (index: number) => T): T[] {
	const items: T[] = [];
	for (let i = 0; i < count; i++) items.push(make(i));
	return items;
}

/** phpRank's points per check by importance (operator settings report_score_high|medium|low, these by default). */
export type Points = Record<Importance, number>;
export const DEFAULT_POINTS: Readonly<Points> = { high: 10, medium: 5, low: 0 };

const VOCABULARY = [
	'guide', 'pricing', 'features', 'review', 'tutorial', 'news', 'update', 'release', 'design', 'search',
	'ranking', 'content', 'marketing', 'analytics', 'performance', 'security', 'mobile', 'local', 'shop', 'blog',
];
const ASSET_FOLDERS = ['assets', 'static', 'media', 'cdn', 'build'];
const SERVERS = ['Apache/2.4.41 (Ubuntu)', 'nginx/1.18.0', 'Microsoft-IIS/10.0', 'LiteSpeed'];
const INLINE_STYLES = ['color: #333; margin: 0 auto;', 'display: none;', 'font-weight: 700;'];
const DEPRECATED_TAGS = ['center', 'font', 'marquee', 'big', 'strike', 'tt'];

const words = (page: Page, count: number) => times(count, () => pick(page.random, page.words));
const sentence = (page: Page, count: number) => words(page, count).join(' ');
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const assetUrls = (page: Page, count: number, extension: string) =>
	times(count, (i) => `${page.origin}/${pick(page.random, ASSET_FOLDERS)}/${pick(page.random, page.words)}-${i + 1}.${extension}`);
const pageLinks = (page: Page, origin: string, count: number) =>
	times(count, () => {
		const text = sentence(page, 2);
		return { url: `${origin}/${text.replace(/ /g, '-')}`, text: capitalised(text) };
	});
const missing = (passed: boolean, value: unknown) => (passed ? { value } : { value: null, errors: { missing: null } });
/** A list of offenders, only made up (and only drawing random numbers) when the check fails. */
const flagged = (passed: boolean, error: string, offenders: () => unknown) =>
	passed ? { value: [] } : { value: null, errors: { [error]: offenders() } };
/** A measured value that fails when it breaks a fixed limit. */
const limited = (passed: boolean, value: unknown, broken: Record<string, unknown>) => (passed ? { value } : { value, errors: broken });
/** A measured number: within the passing range, or outside it with the bound it broke. */
const measured = (page: Page, passed: boolean, limit: { passing: Range; failing: Range; broken: Record<string, unknown> }) =>
	limited(passed, randomInt(page.random, ...(passed ? limit.passing : limit.failing)), limit.broken);

/** Every check by id, in the order phpRank 1.5 lists them: its importance, the title its report page shows (in English), how its value reads. */
const CHECKS: Record<string, [Importance, string, Describe]> = {
	title: ['high', 'Title', (page, passed) => {
		const title = capitalised(`${sentence(page, 4)} | ${page.host}`);
		if (passed) return { value: title };
		return page.random() < 0.5
			? { value: null, errors: { missing: null } }
			: { value: `${title} ${sentence(page, 8)}`, errors: { too_long: { max: 60 } } };
	}],
	meta_description: ['high', 'Meta description', (page, passed) => missing(passed, capitalised(`${sentence(page, 14)}.`))],
	headings: ['high', 'Headings', (page, passed) => {
		const headings = {
			h1: [capitalised(sentence(page, 3))],
			h2: times(randomInt(page.random, 2, 6), () => capitalised(sentence(page, 3))),
			h3: times(randomInt(page.random, 0, 5), () => capitalised(sentence(page, 4))),
		};
		if (passed) return { value: headings };
		return page.random() < 0.5
			? { value: { ...headings, h1: [] }, errors: { missing: null } }
			: { value: { ...headings, h1: [...headings.h1, headings.h2[0]] }, errors: { duplicate: headings.h1 } };
	}],
	content_keywords: ['high', 'Content keywords', (page, passed) => {
		const keywords = words(page, 4);
		return passed ? { value: keywords } : { value: keywords.slice(0, 1), errors: { missing: keywords.slice(1) } };
	}],
	image_keywords: ['high', 'Image keywords', (page, passed) => flagged(passed, 'missing', () => assetUrls(page, randomInt(page.random, 1, 6), 'jpg'))],
	seo_friendly_url: ['high', 'SEO friendly URL', (page, passed) => {
		const value = `${page.origin}/${page.words.slice(0, 3).join('-')}`;
		return passed ? { value } : { value, errors: { bad_format: [`${page.origin}/index.php?id=${randomInt(page.random, 1, 999)}`] } };
	}],
	'404_page': ['high', '404 page', (page, passed) => missing(passed, `${page.origin}/404-${randomInt(page.random, 100000, 999999)}`)],
	robots: ['high', 'Robots.txt', (_page, passed) => limited(passed, null, { failed: ['Disallow: /'] })],
	noindex: ['high', 'Noindex', (_page, passed) => limited(passed, passed ? null : 'noindex, nofollow', { noindex: 'noindex, nofollow' })],
	in_page_links: ['medium', 'In-page links', (page, passed) => {
		const links = {
			Internals: pageLinks(page, page.origin, randomInt(page.random, 6, passed ? 14 : 30)),
			Externals: pageLinks(page, `https://${pick(page.random, page.words)}.example.org`, randomInt(page.random, 1, 6)),
		};
		return limited(passed, links, { too_many: { max: 150 } });
	}],
	language: ['medium', 'Language', (page, passed) => missing(passed, pick(page.random, ['en', 'en-US', 'en-GB', 'de', 'fr']))],
	favicon: ['medium', 'Favicon', (page, passed) => missing(passed, `${page.origin}/favicon.ico`)],
	text_compression: ['high', 'Text compression', (page, passed) =>
		missing(passed, passed ? { encoding: pick(page.random, ['gzip', 'br']), saved: randomInt(page.random, 8000, 90000) } : null)],
	load_time: ['medium', 'Load time', (page, passed) => {
		const seconds = Math.round((passed ? 0.1 + page.random() * 1.8 : 2.1 + page.random() * 6) * 100) / 100;
		return limited(passed, seconds, { too_slow: { max: 2 } });
	}],
	page_size: ['medium', 'Page size', (page, passed) =>
		measured(page, passed, { passing: [20000, 330000], failing: [330001, 2400000], broken: { too_large: { max: 330000 } } })],
	http_requests: ['medium', 'HTTP requests', (page, passed) => {
		const scale = passed ? 1 : 3;
		const resources = {
			JavaScripts: assetUrls(page, randomInt(page.random, 2, 6) * scale, 'js'),
			CSS: assetUrls(page, randomInt(page.random, 1, 4) * scale, 'css'),
			Images: assetUrls(page, randomInt(page.random, 4, 10) * scale, 'png'),
		};
		return limited(passed, resources, { too_many: { max: 50 } });
	}],
	image_format: ['medium', 'Image format', (page, passed) => flagged(passed, 'bad_format', () => assetUrls(page, randomInt(page.random, 1, 5), 'bmp'))],
	defer_javascript: ['low', 'JavaScript defer', (page, passed) => flagged(passed, 'missing', () => assetUrls(page, randomInt(page.random, 1, 4), 'js'))],
	dom_size: ['low', 'DOM size', (page, passed) =>
		measured(page, passed, { passing: [200, 1500], failing: [1501, 6000], broken: { too_many: { max: 1500 } } })],
	https_encryption: ['high', 'HTTPS encryption', (page, passed) => limited(passed, page.https, { missing: null })],
	mixed_content: ['medium', 'Mixed content', (page, passed) =>
		flagged(passed, 'failed', () => assetUrls(page, randomInt(page.random, 1, 3), 'js').map((url) => url.replace('https:', 'http:')))],
	server_signature: ['medium', 'Server signature', (page, passed) => {
		const signature = pick(page.random, SERVERS);
		return limited(passed, passed ? null : signature, { failed: signature });
	}],
	unsafe_cross_origin_links: ['medium', 'Unsafe cross-origin links', (page, passed) =>
		flagged(passed, 'failed', () => pageLinks(page, 'https://partner.example.net', randomInt(page.random, 1, 3)).map((link) => link.url))],
	plaintext_email: ['low', 'Plaintext email', (page, passed) => flagged(passed, 'failed', () => [`info@${page.host}`])],
	structured_data: ['medium', 'Structured data', (page, passed) => {
		const title = capitalised(sentence(page, 3));
		return missing(passed, {
			'Open Graph': { 'og:title': title, 'og:type': 'website', 'og:url': page.origin },
			Twitter: { 'twitter:card': 'summary_large_image', 'twitter:title': title },
			'Schema.org': { '@type': 'WebPage', name: title },
		});
	}],
	meta_viewport: ['medium', 'Meta viewport', (_page, passed) => missing(passed, 'width=device-width, initial-scale=1')],
	charset: ['medium', 'Character set', (_page, passed) => missing(passed, 'UTF-8')],
	sitemap: ['low', 'Sitemap', (page, passed) => missing(passed, [`${page.origin}/sitemap.xml`, `${page.origin}/sitemap-posts.xml`])],
	social: ['low', 'Social', (page, passed) => {
		const handle = page.host.split('.')[0];
		return missing(passed, {
			facebook: [`https://www.facebook.com/${handle}`],
			twitter: [`https://twitter.com/${handle}`],
			linkedin: [`https://www.linkedin.com/company/${handle}`],
		});
	}],
	content_length: ['low', 'Content length', (page, passed) =>
		measured(page, passed, { passing: [500, 4000], failing: [20, 499], broken: { too_few: { min: 500 } } })],
	text_html_ratio: ['low', 'Text to HTML ratio', (page, passed) =>
		measured(page, passed, { passing: [10, 70], failing: [1, 9], broken: { too_small: { min: 10 } } })],
	inline_css: ['low', 'Inline CSS', (page, passed) =>
		flagged(passed, 'failed', () => INLINE_STYLES.slice(0, randomInt(page.random, 1, 3)))],
	deprecated_html_tags: ['low', 'Deprecated HTML', (page, passed) =>
		flagged(passed, 'bad_tags', () => DEPRECATED_TAGS.slice(0, randomInt(page.random, 1, 3)))],
};

const CHECK_LIST = Object.entries(CHECKS);

/** A check's title as phpRank's report page shows it. */
export function checkTitle(name: string): string {
	const check = CHECKS[name];
	if (check === undefined) throw new Error(`no title for the check "${name}"`);
	return check[1];
}

export const CHECK_NAMES: readonly string[] = Object.keys(CHECKS);

/** The importance of each check, in CHECK_LIST's order: scoring reads only these. */
const IMPORTANCES: readonly Importance[] = CHECK_LIST.map(([, [importance]]) => importance);

/** The points of passed checks over the points of all checks, times 100, unrounded as a create answers it. */
export function scoreOf(passed: readonly boolean[], points: Readonly<Points> = DEFAULT_POINTS): number {
	let passedPoints = 0;
	let allPoints = 0;
	for (let i = 0; i < IMPORTANCES.length; i++) {
		const worth = points[IMPORTANCES[i]];
		allPoints += worth;
		if (passed[i]) passedPoints += worth;
	}
	return (passedPoints / allPoints) * 100;
}

/**
 * Which checks the page passes (in CHECK_NAMES' order), and its score. `changedQuality` stands for a page
 * edited since phpRank first saw it.
 */
function judge(targetUrl: string, changedQuality?: number, points?: Readonly<Points>): { passed: boolean[]; score: number } {
	const random = seededRandom(hashString(targetUrl));
	// A per-page quality spreads scores over good, decent and bad.
	const ownQuality = 0.2 + random() * 0.8;
	const quality = changedQuality ?? ownQuality;
	const https = targetUrl.startsWith('https:');
	const passed = CHECK_LIST.map(([name]) => (name === 'https_encryption' ? https : random() < quality));
	return { passed, score: scoreOf(passed, points) };
}

export function scorePage(targetUrl: string, changedQuality?: number, points?: Readonly<Points>): number {
	return judge(targetUrl, changedQuality, points).score;
}

export function describePage(targetUrl: string, changedQuality?: number): Record<string, CheckResult> {
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
	const results: Record<string, CheckResult> = {};
	CHECK_LIST.forEach(([name, [importance, , describe]], i) => {
		results[name] = { passed: passed[i], importance, ...describe(page, passed[i]) };
	});
	return results;
}

/** The names of the checks a page fails, by importance, in the order phpRank lists them. */
export function failedChecks(targetUrl: string, changedQuality?: number): Record<Importance, string[]> {
	const { passed } = judge(targetUrl, changedQuality);
	const failed: Record<Importance, string[]> = { high: [], medium: [], low: [] };
	CHECK_LIST.forEach(([name, [importance]], i) => {
		if (!passed[i]) failed[importance].push(name);
	});
	return failed;
}

/** The titles of the checks a page fails, by importance, in the order phpRank lists them. */
export function failedCheckTitles(targetUrl: string, changedQuality?: number): Record<Importance, string[]> {
	const failed = failedChecks(targetUrl, changedQuality);
	return { high: failed.high.map(checkTitle), medium: failed.medium.map(checkTitle), low: failed.low.map(checkTitle) };
}

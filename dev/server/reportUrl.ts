/** How phpRank reads the URL a report is created for. */
import { sitePageFailure } from './site';

export interface ReportTarget {
	/** The absolute URL that gets analyzed. */
	targetUrl: string;
	/** What the API shows: no scheme, no `www.`, no trailing slash on a bare host. */
	url: string;
	/** The host name, which doubles as the project name. */
	project: string;
}

/**
 * Laravel 9's `url` rule, which phpRank applies to a report's URL (only http and https kept here): letters and
 * numbers of any script, RFC 3986's unreserved and sub-delims, `[]` in the query only, and `%` only in an escape.
 * So a raw space, `|`, `^`, `"`, `<`, `>` (and `{}`, a backslash) anywhere are refused with 422.
 */
const LARAVEL_URL = new RegExp(
	'^https?://' +
		'(?:(?:(?:[_.\\p{L}\\p{N}-]|%[0-9A-Fa-f]{2})+:)?(?:[_.\\p{L}\\p{N}-]|%[0-9A-Fa-f]{2})+@)?' +
		'(?:[\\p{L}\\p{N}\\p{S}_.-]+|\\[[0-9A-Fa-f:.]+\\])' +
		'(?::[0-9]+)?' +
		"(?:/(?:[\\p{L}\\p{N}._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})*)*" +
		"(?:\\?(?:[\\p{L}\\p{N}._~!$&'\\[\\]()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*)?" +
		"(?:#(?:[\\p{L}\\p{N}._~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*)?$",
	'iu',
);

// phpRank keeps these as sent (RFC 3986's unreserved and sub-delims, ':', '@', '/', '?' in a query, an escape's '%')
// and writes any other character as UTF-8 percent escapes in upper case: `[]` → `%5B%5D`, `é` → `%C3%A9`.
const KEPT_IN_PATH = /[A-Za-z0-9\-._~!$&'()*+,;=:@/%]/;
const KEPT_IN_QUERY = /[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/;

const asStored = (text: string, kept: RegExp) => [...text].map((character) => (kept.test(character) ? character : encodeURIComponent(character))).join('');

/** RFC 3986's remove_dot_segments: `/blog/../about.html` → `/about.html`; `//about.html` stays. */
function withoutDotSegments(path: string): string {
	const output: string[] = [];
	let input = path;
	while (input !== '') {
		if (input.startsWith('../')) input = input.slice(3);
		else if (input.startsWith('./') || input.startsWith('/./')) input = input.slice(2);
		else if (input === '/.') input = '/';
		else if (input.startsWith('/../') || input === '/..') {
			input = input === '/..' ? '/' : input.slice(3);
			output.pop();
		} else if (input === '.' || input === '..') input = '';
		else {
			const end = input.indexOf('/', 1);
			const segment = end === -1 ? input : input.slice(0, end);
			output.push(segment);
			input = input.slice(segment.length);
		}
	}
	return output.join('');
}

/**
 * Returns undefined when phpRank refuses the value: not an absolute http(s) URL with a host, or a character its
 * url rule refuses. The stored URL is phpRank 1.5's (CONTRACT.md, "A report"): scheme and host in lower case,
 * the path without dot segments, path and query escaped as above (`'` and `%xx` in either case kept), no fragment.
 */
export function parseReportTarget(value: unknown): ReportTarget | undefined {
	if (typeof value !== 'string' || !LARAVEL_URL.test(value)) return undefined;
	let parsed: URL;
	try {
		parsed = new URL(value);
	} catch {
		return undefined;
	}
	if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.hostname) return undefined;

	const [, rawPath, rawQuery = ''] = /^[a-z]+:\/\/[^/?#]*([^?#]*)(?:\?([^#]*))?/is.exec(value)!;
	const project = parsed.hostname.replace(/^www\./, '');
	const port = parsed.port ? `:${parsed.port}` : '';
	const path = asStored(withoutDotSegments(rawPath || '/'), KEPT_IN_PATH);
	const query = asStored(rawQuery, KEPT_IN_QUERY);
	const shownPath = path === '/' && !query ? '' : path;
	parsed.hash = '';
	return { targetUrl: parsed.toString(), url: `${project}${port}${shownPath}${query ? `?${query}` : ''}`, project };
}

/**
 * The real server downloads the page while validating; its failures surface as validation messages.
 * Hosts under the reserved `.invalid` TLD stand for pages that cannot be fetched; the fixture site's gone pages answer 404.
 */
export function fetchFailure(target: ReportTarget): string | undefined {
	const host = new URL(target.targetUrl).hostname;
	if (host === 'invalid' || host.endsWith('.invalid')) return `cURL error 6: Could not resolve host: ${host}`;
	return sitePageFailure(target.targetUrl);
}

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

/** Returns undefined when the value is not an absolute http(s) URL with a host. */
export function parseReportTarget(value: unknown): ReportTarget | undefined {
	if (typeof value !== 'string') return undefined;
	let parsed: URL;
	try {
		parsed = new URL(value);
	} catch {
		return undefined;
	}
	if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.hostname) return undefined;
	if (!/^[a-z]+:\/\//i.test(value)) return undefined;

	const project = parsed.hostname.replace(/^www\./, '');
	const port = parsed.port ? `:${parsed.port}` : '';
	const path = parsed.pathname === '/' && !parsed.search ? '' : parsed.pathname;
	parsed.hash = '';
	return { targetUrl: parsed.toString(), url: `${project}${port}${path}${parsed.search}`, project };
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

/**
 * phpRank keeps a report's URL in its own form, and names the report's project after the host. A URL
 * typed as https://www.Example.com/ and one typed as http://example.com are the same report to phpRank,
 * so reports are looked up and matched in that form.
 */
export interface ReportAddress {
	/** No scheme, no `www.`, no trailing slash on a bare host, the query kept: `example.com/blog/?page=2`. */
	url: string;
	/** The host without `www.`: the name of the report's project. */
	project: string;
}

/** The address phpRank gives a report of `absoluteUrl`, an http(s) URL already checked by parseHttpUrl. */
export function reportAddressOf(absoluteUrl: string): ReportAddress {
	// The URL parser lowercases the host and drops a default port, as phpRank's reading of the URL does.
	const parsed = new URL(absoluteUrl);
	const project = parsed.hostname.replace(/^www\./, '');
	const port = parsed.port === '' ? '' : `:${parsed.port}`;
	const isBareHost = parsed.pathname === '/' && parsed.search === '';
	return { url: `${project}${port}${isBareHost ? '' : parsed.pathname}${parsed.search}`, project };
}

/** Whether a report phpRank sent has this address: host names match in any case, paths and queries exactly. */
export function hasAddress(report: { url?: unknown }, address: ReportAddress): boolean {
	if (typeof report.url !== 'string') return false;
	const hostEnd = report.url.search(/[/?#]/);
	const host = hostEnd === -1 ? report.url : report.url.slice(0, hostEnd);
	return `${host.toLowerCase()}${report.url.slice(host.length)}` === address.url;
}

import type { IDataObject } from 'n8n-workflow';
import type { PhpRankClient } from '../../shared/client';
import { listTarget } from '../../shared/errors';
import { LARGEST_PAGE_SIZE } from '../../shared/values';

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

/** A report's URL as the address its rows are matched on: host names match in any case, paths and queries exactly. */
export function addressOfReport(report: { url?: unknown }): string | undefined {
	if (typeof report.url !== 'string') return undefined;
	const hostEnd = report.url.search(/[/?#]/);
	const host = hostEnd === -1 ? report.url : report.url.slice(0, hostEnd);
	return `${host.toLowerCase()}${report.url.slice(host.length)}`;
}

function newest(reports: IDataObject[]): IDataObject {
	return reports.reduce((newer, report) => (Number(report.id) > Number(newer.id) ? report : newer));
}

/**
 * The report phpRank holds for the address (the newest, if it holds several), or undefined.
 *
 * phpRank's search finds the reports whose URL contains the text. Sorted by URL within the project,
 * the address itself comes before the longer URLs that start with it, so the first page holds it in
 * practice: one request. Only a full page without it, with more pages behind it, is read on from.
 */
export async function findReport(client: PhpRankClient, address: ReportAddress): Promise<IDataObject | undefined> {
	const query = { search: address.url, search_by: 'url', project: address.project, sort_by: 'url', sort: 'asc' };
	for (let pageNumber = 1; ; pageNumber++) {
		const page = await client.readPage({ url: '/reports', query, page: pageNumber, perPage: LARGEST_PAGE_SIZE, target: listTarget('report') });
		const matches = page.records.filter((report) => addressOfReport(report) === address.url);
		if (matches.length > 0) return newest(matches);
		if (page.number >= page.lastPage) return undefined;
	}
}

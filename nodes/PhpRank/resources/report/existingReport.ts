import type { IDataObject } from 'n8n-workflow';
import type { PhpRankClient } from '../../shared/client';
import { listTarget } from '../../shared/errors';
import { LARGEST_PAGE_SIZE } from '../../shared/values';

/**
 * phpRank keeps a report's URL in its own form, and names the report's project after the host. A URL
 * typed as https://www.Example.com/ and one typed as http://example.com are the same report to phpRank,
 * so reports are looked up and matched in that form, character by character as phpRank stores it.
 */
export interface ReportAddress {
	/** No scheme, no `www.`, no trailing slash on a bare host, the query kept: `example.com/blog/?page=2`. */
	url: string;
	/** The host without `www.`: the name of the report's project. */
	project: string;
}

// What phpRank keeps as sent (RFC 3986's unreserved and sub-delims, ':', '@', '/', '?' in a query, an escape's '%');
// any other character it writes as UTF-8 percent escapes in upper case: `[]` → `%5B%5D`, `é` → `%C3%A9`.
const KEPT_IN_PATH = /[A-Za-z0-9\-._~!$&'()*+,;=:@/]/;
const KEPT_IN_QUERY = /[A-Za-z0-9\-._~!$&'()*+,;=:@/?]/;

function asStored(text: string, kept: RegExp): string {
	let stored = '';
	for (let index = 0; index < text.length; index++) {
		const character = text[index];
		if (character === '%') stored += /^[0-9A-Fa-f]{2}$/.test(text.slice(index + 1, index + 3)) ? '%' : '%25';
		else if (kept.test(character)) stored += character;
		else {
			const codePoint = text.codePointAt(index)!;
			const whole = String.fromCodePoint(codePoint);
			index += whole.length - 1;
			// Half a surrogate pair has no UTF-8: U+FFFD's, as a URL parser writes it.
			stored += /[\ud800-\udfff]/.test(whole) ? '%EF%BF%BD' : encodeURIComponent(whole);
		}
	}
	return stored;
}

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
 * The address phpRank gives a report of `absoluteUrl`, an http(s) URL already checked by parseHttpUrl: host in lower
 * case (the URL parser also drops a default port), path without dot segments, path and query escaped as phpRank
 * escapes them (a URL parser would write `'` as `%27` and keep `[]`, and phpRank does the opposite), no fragment.
 */
export function reportAddressOf(absoluteUrl: string): ReportAddress {
	const [, origin, rawPath, rawQuery = ''] = /^([a-z]+:\/\/[^/?#]*)([^?#]*)(?:\?([^#]*))?/is.exec(absoluteUrl)!;
	const parsed = new URL(origin);
	const project = parsed.hostname.replace(/^www\./, '');
	const port = parsed.port === '' ? '' : `:${parsed.port}`;
	const path = asStored(withoutDotSegments(rawPath === '' ? '/' : rawPath), KEPT_IN_PATH);
	const query = asStored(rawQuery, KEPT_IN_QUERY);
	const isBareHost = path === '/' && query === '';
	return { url: `${project}${port}${isBareHost ? '' : path}${query === '' ? '' : `?${query}`}`, project };
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

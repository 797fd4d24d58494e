import type { IDataObject, IExecutePaginationFunctions } from 'n8n-workflow';
import { listTarget } from '../../shared/errors';
import { relatedRequest } from '../../shared/requests';
import { hasAddress } from '../../shared/reportUrl';
import type { ReportAddress } from '../../shared/reportUrl';
import { readPage } from '../../shared/transport';
import type { PhpRankRequest } from '../../shared/transport';
import { LARGEST_PAGE_SIZE } from '../../shared/values';

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
export async function findReport(
	context: IExecutePaginationFunctions,
	request: PhpRankRequest,
	address: ReportAddress,
): Promise<IDataObject | undefined> {
	const options = relatedRequest(request.options, {
		method: 'GET',
		url: '/reports',
		qs: { search: address.url, search_by: 'url', project: address.project, sort_by: 'url', sort: 'asc' },
	});
	const lookup = { ...request, options, targetOf: () => listTarget('report') };
	for (let pageNumber = 1; ; pageNumber++) {
		const page = await readPage(context, lookup, { page: pageNumber, perPage: LARGEST_PAGE_SIZE });
		const matches = page.records.filter((report) => hasAddress(report, address));
		if (matches.length > 0) return newest(matches);
		if (page.records.length < LARGEST_PAGE_SIZE || page.number >= page.lastPage) return undefined;
	}
}

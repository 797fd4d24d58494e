import type { IDataObject, IExecutePaginationFunctions } from 'n8n-workflow';
import { listSubject } from '../../shared/errors';
import type { RequestData, RunOptions } from '../../shared/operations';
import { relatedRequest } from '../../shared/requests';
import { hasAddress } from '../../shared/reportUrl';
import type { ReportAddress } from '../../shared/reportUrl';
import { readPage } from '../../shared/transport';
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
	requestData: RequestData,
	{ maxWaitSeconds }: RunOptions,
	address: ReportAddress,
): Promise<IDataObject | undefined> {
	const options = relatedRequest(requestData.options, {
		method: 'GET',
		url: '/reports',
		qs: { search: address.url, search_by: 'url', project: address.project, sort_by: 'url', sort: 'asc' },
	});
	const plan = { options, subjectOf: () => listSubject('report'), maxWaitSeconds };
	for (let number = 1; ; number++) {
		const page = await readPage(context, plan, number, LARGEST_PAGE_SIZE);
		const matches = page.records.filter((report) => hasAddress(report, address));
		if (matches.length > 0) return newest(matches);
		if (page.records.length < LARGEST_PAGE_SIZE || page.number >= page.lastPage) return undefined;
	}
}

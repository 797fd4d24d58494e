import type { IExecutePaginationFunctions, INodeExecutionData, INodePropertyOptions } from 'n8n-workflow';
import { PhpRankClient } from '../../shared/client';
import type { RequestData } from '../../shared/client';
import { REPORT_ITEM_FOR_AGENTS } from '../../shared/descriptions';
import { recordOf, reportItems } from '../../shared/items';
import { setReportPath } from '../../shared/paths';

export const reportGetOperation: INodePropertyOptions = {
	name: 'Get',
	value: 'get',
	action: 'Get a report by ID',
	description: 'Get a report',
	routing: {
		request: { method: 'GET' },
		// paginate hands the prepared request to getReport, which sends it through the client (see PhpRankClient.forItem).
		send: { paginate: true, preSend: [setReportPath] },
		operations: { pagination: getReport },
	},
};

async function getReport(this: IExecutePaginationFunctions, requestData: RequestData): Promise<INodeExecutionData[]> {
	const client = PhpRankClient.forItem(this, requestData);
	const record = recordOf(this, await client.request());
	return reportItems(this, record, { site: await client.site() });
}

export const reportGetForAgents = `Get one phpRank SEO report by its numeric report ID (the id that creating or listing reports returns). Returns the report: ${REPORT_ITEM_FOR_AGENTS}.`;

import type { IExecutePaginationFunctions, INodeExecutionData, INodePropertyOptions } from 'n8n-workflow';
import { PhpRankClient } from '../../shared/client';
import type { RequestData } from '../../shared/client';
import { deletionOf, toItems } from '../../shared/items';
import { setReportPath } from '../../shared/paths';
import { SiteReports } from './siteReports';

export const reportDeleteOperation: INodePropertyOptions = {
	name: 'Delete',
	value: 'delete',
	action: 'Delete a report by ID',
	description: 'Delete a report',
	routing: {
		request: { method: 'DELETE' },
		// paginate hands the prepared request to deleteReport, which sends it through the client (see PhpRankClient.forItem).
		send: { paginate: true, preSend: [setReportPath] },
		operations: { pagination: deleteReport },
	},
};

async function deleteReport(this: IExecutePaginationFunctions, requestData: RequestData): Promise<INodeExecutionData[]> {
	const client = PhpRankClient.forItem(this, requestData);
	const deletion = deletionOf(this, await client.request());
	SiteReports.changed(client, deletion.id);
	return toItems(this, [deletion]);
}

export const reportDeleteForAgents = 'Delete one phpRank SEO report by its numeric report ID. This cannot be undone. Returns deleted (true) and the id.';

import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { listTarget } from '../shared/errors';
import { EDITOR_LIST_WAITS, PhpRankClient } from '../shared/client';

export async function searchReports(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const query = filter ? { search: filter, search_by: 'url' } : {};
	const client = PhpRankClient.outsideRun(this, { target: listTarget('report'), ...EDITOR_LIST_WAITS });
	const page = await client.readPage({ url: '/reports', query, page: Number(paginationToken) || 1, perPage: 50 });
	return {
		results: page.records.map((report) => ({ name: `${String(report.url)} (#${String(report.id)})`, value: String(report.id) })),
		paginationToken: page.number < page.lastPage ? String(page.number + 1) : undefined,
	};
}

import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { getPage } from '../shared/transport';
import type { PageEnvelope } from '../shared/responses';

export async function searchReports(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const page = Number(paginationToken) || 1;
	const body = (await getPage.call(this, '/reports', {
		...(filter ? { search: filter, search_by: 'url' } : {}),
		per_page: 50,
		page,
	})) as IDataObject & PageEnvelope;
	return {
		results: (body.data ?? []).map((report) => ({
			name: `${String(report.url)} (#${String(report.id)})`,
			value: String(report.id),
		})),
		paginationToken: body.meta && page < body.meta.last_page ? String(page + 1) : undefined,
	};
}

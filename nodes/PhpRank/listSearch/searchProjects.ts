import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { getPage } from '../shared/transport';
import type { PageEnvelope } from '../shared/responses';

export async function searchProjects(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const page = Number(paginationToken) || 1;
	const body = (await getPage.call(this, '/projects', {
		...(filter ? { search: filter, search_by: 'project' } : {}),
		sort_by: 'project',
		sort: 'asc',
		per_page: 100,
		page,
	})) as IDataObject & PageEnvelope;
	return {
		results: (body.data ?? []).map((project) => ({ name: String(project.project), value: String(project.project) })),
		paginationToken: body.meta && page < body.meta.last_page ? String(page + 1) : undefined,
	};
}

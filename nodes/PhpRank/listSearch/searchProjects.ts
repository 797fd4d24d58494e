import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { listTarget } from '../shared/errors';
import { EDITOR_LIST_WAITS, PhpRankClient } from '../shared/client';

export async function searchProjects(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const query = { ...(filter ? { search: filter, search_by: 'project' } : {}), sort_by: 'project', sort: 'asc' };
	const client = PhpRankClient.outsideRun(this, { target: listTarget('project'), ...EDITOR_LIST_WAITS });
	// Names in order only help the eye: a phpRank that lists them in another order still fills the picker.
	const page = await client.readPage({ url: '/projects', query, page: Number(paginationToken) || 1, perPage: 100, mayReplace: ['sort_by', 'sort'] });
	return {
		results: page.records.map((project) => ({ name: String(project.project), value: String(project.project) })),
		paginationToken: page.number < page.lastPage ? String(page.number + 1) : undefined,
	};
}

import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';
import { searchProjects } from '../listSearch/searchProjects';

export async function getProjects(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const options: INodePropertyOptions[] = [];
	let paginationToken: string | undefined;
	do {
		const page = await searchProjects.call(this, undefined, paginationToken);
		options.push(...page.results.map(({ name, value }) => ({ name, value })));
		paginationToken = page.paginationToken as string | undefined;
	} while (paginationToken);
	return options;
}

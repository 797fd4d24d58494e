import type { IExecuteSingleFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { filtersCollection, searchFields } from '../../shared/descriptions';
import { updateDisplayOptions } from '../../shared/displayOptions';
import { shapeProject } from '../../shared/items';
import { operation } from '../../shared/operations';
import { readList } from '../../shared/pagination';
import { checkQuery, listQueryRules } from '../../shared/validation';
import { PROJECT_SEARCH_BY_OPTIONS, PROJECT_SORT_BY_OPTIONS } from '../../shared/values';

const showOnlyForProjectGetMany = { resource: ['project'], operation: ['getAll'] };

export const projectGetManyDescription = updateDisplayOptions(
	{ show: showOnlyForProjectGetMany },
	[filtersCollection(searchFields(PROJECT_SEARCH_BY_OPTIONS, 'projects whose name'))],
);

async function validateProjectListQuery(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	checkQuery(this, requestOptions.qs ?? {}, listQueryRules(PROJECT_SEARCH_BY_OPTIONS, PROJECT_SORT_BY_OPTIONS));
	return requestOptions;
}

export const projectGetManyOperation = operation(
	{
		name: 'Get Many',
		value: 'getAll',
		action: 'Get many projects',
		description: 'Get many projects',
	},
	{
		request: { method: 'GET', url: '/projects' },
		run: async function readProjects(requestData) {
			return await readList(this, requestData, shapeProject);
		},
		preSend: [validateProjectListQuery],
	},
);

export const projectGetManyForAgents = 'List phpRank projects. A project groups the reports of one host and has only a name, such as example.com: the name that deleting a project takes and the report list filters by. Returns one item per project: project (the name), reports (how many), result (the sum of their scores), averageResult (their average SEO score, 0 to 100) and grade (good, decent or bad).';

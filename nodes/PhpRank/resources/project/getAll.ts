import type {
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodePropertyOptions,
} from 'n8n-workflow';
import { PhpRankClient } from '../../shared/client';
import type { RequestData } from '../../shared/client';
import { filtersCollection, searchFields } from '../../shared/descriptions';
import { updateDisplayOptions } from '../../shared/displayOptions';
import { shapeProject } from '../../shared/items';
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

export const projectGetManyOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many projects',
	description: 'Get many projects',
	routing: {
		request: { method: 'GET', url: '/projects' },
		// paginate hands the prepared request to getProjects, which reads its pages through the client (see PhpRankClient.forItem).
		send: { paginate: true, preSend: [validateProjectListQuery] },
		operations: { pagination: getProjects },
	},
};

async function getProjects(this: IExecutePaginationFunctions, requestData: RequestData): Promise<INodeExecutionData[]> {
	return await readList(this, PhpRankClient.forItem(this, requestData), shapeProject);
}

export const projectGetManyForAgents = 'List phpRank projects. A project groups the reports of one host and has only a name, such as example.com: the name that deleting a project takes and the report list filters by. Returns one item per project: project (the name), reports (how many), result (the sum of their scores), averageResult (their average SEO score, 0 to 100) and grade (good, decent or bad).';

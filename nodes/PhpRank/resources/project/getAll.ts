import type { IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';
import { returnAllAndLimit, searchFields, sortOptions } from '../../shared/descriptions';
import { updateDisplayOptions } from '../../shared/displayOptions';
import { checkQuery } from '../../shared/validation';
import { PROJECT_SEARCH_BY_OPTIONS, PROJECT_SORT_BY_OPTIONS, SORT_ORDER_OPTIONS } from '../../shared/values';

const showOnlyForProjectGetMany = { resource: ['project'], operation: ['getAll'] };

const properties: INodeProperties[] = [
	...returnAllAndLimit(),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: searchFields(PROJECT_SEARCH_BY_OPTIONS, 'projects whose name is'),
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: sortOptions(PROJECT_SORT_BY_OPTIONS, 10),
	},
];

export const projectGetManyDescription = updateDisplayOptions({ show: showOnlyForProjectGetMany }, properties);

export async function validateProjectListQuery(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	checkQuery(this, requestOptions.qs ?? {}, {
		search: { field: 'Search' },
		search_by: { field: 'Search By', options: PROJECT_SEARCH_BY_OPTIONS },
		sort_by: { field: 'Sort By', options: PROJECT_SORT_BY_OPTIONS },
		sort: { field: 'Sort Order', options: SORT_ORDER_OPTIONS },
	});
	return requestOptions;
}

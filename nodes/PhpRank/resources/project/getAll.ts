import type { IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';
import { getManyFields, searchFields } from '../../shared/descriptions';
import { updateDisplayOptions } from '../../shared/displayOptions';
import { checkQuery, listQueryRules } from '../../shared/validation';
import { PROJECT_SEARCH_BY_OPTIONS, PROJECT_SORT_BY_OPTIONS } from '../../shared/values';

const showOnlyForProjectGetMany = { resource: ['project'], operation: ['getAll'] };

const properties: INodeProperties[] = getManyFields(
	searchFields(PROJECT_SEARCH_BY_OPTIONS, 'projects whose name is'),
	PROJECT_SORT_BY_OPTIONS,
	10,
);

export const projectGetManyDescription = updateDisplayOptions({ show: showOnlyForProjectGetMany }, properties);

export async function validateProjectListQuery(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	checkQuery(this, requestOptions.qs ?? {}, listQueryRules(PROJECT_SEARCH_BY_OPTIONS, PROJECT_SORT_BY_OPTIONS));
	return requestOptions;
}

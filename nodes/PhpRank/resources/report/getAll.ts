import type { IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';
import { getManyFields, projectFilterField, searchFields } from '../../shared/descriptions';
import { updateDisplayOptions } from '../../shared/displayOptions';
import { checkQuery, listQueryRules } from '../../shared/validation';
import {
	LARGEST_PAGE_SIZE,
	REPORT_SEARCH_BY_OPTIONS,
	REPORT_SORT_BY_OPTIONS,
	RESULT_OPTIONS,
} from '../../shared/values';

const showOnlyForReportGetMany = { resource: ['report'], operation: ['getAll'] };

const reportFilters: INodeProperties[] = [
	...searchFields(REPORT_SEARCH_BY_OPTIONS, 'reports whose URL is'),
	{
		...projectFilterField('reports'),
		routing: { send: { type: 'query', property: 'project' } },
	},
	{
		displayName: 'Result',
		name: 'result',
		type: 'options',
		options: RESULT_OPTIONS,
		default: 'bad',
		description: 'Only reports with this result',
		routing: { send: { type: 'query', property: 'result' } },
	},
];

const reportOptions: INodeProperties[] = [
	{
		displayName: 'Leave Out Per-Check Results',
		name: 'omitResults',
		type: 'boolean',
		default: false,
		description:
			'Whether to drop each report\'s "results" object (one entry per check, several kilobytes a report), keeping its score and grade; useful when an AI agent reads the list',
	},
];

const properties: INodeProperties[] = getManyFields(
	reportFilters,
	REPORT_SORT_BY_OPTIONS,
	LARGEST_PAGE_SIZE,
	reportOptions,
);

export const reportGetManyDescription = updateDisplayOptions({ show: showOnlyForReportGetMany }, properties);

export async function validateReportListQuery(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	checkQuery(this, requestOptions.qs ?? {}, {
		...listQueryRules(REPORT_SEARCH_BY_OPTIONS, REPORT_SORT_BY_OPTIONS),
		project: { field: 'Project' },
		result: { field: 'Result', options: RESULT_OPTIONS },
	});
	return requestOptions;
}

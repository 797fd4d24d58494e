import type { INodeProperties } from 'n8n-workflow';
import { forOperations, listOptions, includeResultsOption, optionsCollection } from '../../shared/descriptions';
import { REPORT_SORT_BY_OPTIONS } from '../../shared/values';
import { siteAuditOptions } from '../site/audit';

// One Options collection for every report operation and Site > Audit: every declared property costs each item, shown or not.
export const reportOptions: INodeProperties = {
	...optionsCollection([
		...forOperations(
			['getAll'],
			listOptions(
				REPORT_SORT_BY_OPTIONS,
				"phpRank 1.5's API does not sort by Date Generated: the node then reads every report of the list (one request per 100 reports) and sorts them itself",
			),
		),
		...forOperations(['audit'], siteAuditOptions),
		...forOperations(['create', 'get', 'update', 'reanalyze', 'getAll', 'audit'], [includeResultsOption]),
		...forOperations(
			['update', 'reanalyze'],
			[
				{
					displayName: 'Add Previous Score',
					name: 'includePreviousScore',
					type: 'boolean',
					default: false,
					description: 'Whether to output the score before and the checks that changed',
					hint: 'Adds previousResult, previousGrade, resultChange, newlyFailedChecks and fixedChecks; a re-analysis then reads the report first (one request more)',
				},
			],
		),
	]),
	displayOptions: { show: { resource: ['report', 'site'], operation: ['create', 'get', 'getAll', 'update', 'reanalyze', 'delete', 'audit'] } },
};

import type { INodeProperties } from 'n8n-workflow';
import { omitResultsOption, optionsCollection } from '../shared/descriptions';

// Operations on one record share one Options collection; the lists have their own, with sorting.
export const singleRecordOptions: INodeProperties = {
	...optionsCollection([
		{
			...omitResultsOption,
			displayOptions: { show: { '/resource': ['report'], '/operation': ['create', 'get', 'update'] } },
		},
		{
			displayName: 'Add Previous Score',
			name: 'includePreviousScore',
			type: 'boolean',
			default: false,
			description:
				'Whether to output the score before the update: with Re-Analyze, reads the report first (one more request) and adds previousResult, previousGrade and resultChange',
			displayOptions: { show: { '/resource': ['report'], '/operation': ['update'] } },
		},
	]),
	displayOptions: { show: { resource: ['report', 'project'], operation: ['create', 'get', 'update', 'delete'] } },
};

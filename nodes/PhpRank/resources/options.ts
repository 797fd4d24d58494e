import type { INodeProperties } from 'n8n-workflow';
import { omitResultsOption, optionsCollection } from '../shared/descriptions';

// Operations on one record share one Options collection; the lists have their own, with sorting.
export const singleRecordOptions: INodeProperties = {
	...optionsCollection([
		{
			...omitResultsOption,
			displayOptions: { show: { '/resource': ['report'], '/operation': ['create', 'get', 'update'] } },
		},
	]),
	displayOptions: { show: { resource: ['report', 'project'], operation: ['create', 'get', 'update', 'delete'] } },
};

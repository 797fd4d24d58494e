import type { INodeProperties } from 'n8n-workflow';
import { forOperations, listOptions, optionsCollection } from '../../shared/descriptions';
import { PROJECT_SORT_BY_OPTIONS } from '../../shared/values';

export const projectOptions: INodeProperties = {
	...optionsCollection(forOperations(['getAll'], listOptions(PROJECT_SORT_BY_OPTIONS))),
	displayOptions: { show: { resource: ['project'], operation: ['getAll', 'delete'] } },
};

import type { INodeProperties } from 'n8n-workflow';
import { projectDeleteDescription, projectDeleteOperation } from './delete';
import { projectGetManyDescription, projectGetManyOperation } from './getAll';

export const projectOperations: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['project'] } },
	options: [projectDeleteOperation, projectGetManyOperation],
	default: 'getAll',
};

export const projectFields: INodeProperties[] = [...projectGetManyDescription, ...projectDeleteDescription];

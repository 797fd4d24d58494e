import type { INodeProperties } from 'n8n-workflow';
import { toolDescriptions } from '../../shared/descriptions';
import { pairingFailures } from '../../shared/itemFailures';
import { projectDeleteDescription, projectDeleteForAgents, projectDeleteOperation } from './delete';
import { projectGetManyDescription, projectGetManyForAgents, projectGetManyOperation } from './getAll';
import { projectOptions } from './options';

export const projectOperations: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['project'] } },
	options: [projectDeleteOperation, projectGetManyOperation].map(pairingFailures),
	default: 'getAll',
};

export const projectToolDescriptions = toolDescriptions('project', {
	getAll: projectGetManyForAgents,
	delete: projectDeleteForAgents,
});

export const projectFields: INodeProperties[] = [...projectGetManyDescription, ...projectDeleteDescription, projectOptions];

import type { INodeProperties } from 'n8n-workflow';
import { readProjectPages } from '../../shared/pagination';
import { setProjectPath } from '../../shared/paths';
import { returnDeletion } from '../../shared/requests';
import { projectDeleteDescription } from './delete';
import { projectGetManyDescription, validateProjectListQuery } from './getAll';

const showOnlyForProjects = { resource: ['project'] };

export const projectDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: showOnlyForProjects },
		options: [
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete a project',
				description: 'Delete a project and all its reports, by the project name. Returns the deleted flag and the project name as ID.',
				routing: {
					request: { method: 'DELETE' },
					send: { paginate: true, preSend: [setProjectPath] },
					operations: { pagination: returnDeletion },
				},
			},
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many projects',
				description: 'List projects with their report count and summed score, newest first by default',
				routing: {
					request: { method: 'GET', url: '/projects' },
					send: { paginate: true, preSend: [validateProjectListQuery] },
					operations: { pagination: readProjectPages },
				},
			},
		],
		default: 'getAll',
	},
	...projectGetManyDescription,
	...projectDeleteDescription,
];

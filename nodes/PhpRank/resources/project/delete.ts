import type { INodeProperties } from 'n8n-workflow';
import { projectNameLocator } from '../../shared/descriptions';
import { updateDisplayOptions } from '../../shared/displayOptions';
import { operation, returnDeletion } from '../../shared/operations';
import { setProjectPath } from '../../shared/paths';

const showOnlyForProjectDelete = { resource: ['project'], operation: ['delete'] };

const properties: INodeProperties[] = [
	projectNameLocator,
	{
		displayName:
			'Deleting a project deletes all its reports. phpRank 1.2 to 1.8 also delete one unrelated report on the server: the one whose ID equals the number of reports the project held.',
		name: 'deleteNotice',
		type: 'notice',
		default: '',
	},
];

export const projectDeleteDescription = updateDisplayOptions({ show: showOnlyForProjectDelete }, properties);

export const projectDeleteOperation = operation(
	{
		name: 'Delete',
		value: 'delete',
		action: 'Delete a project by name',
		description: 'Delete a project',
	},
	{ request: { method: 'DELETE' }, run: returnDeletion, preSend: [setProjectPath] },
);

export const projectDeleteForAgents = 'Delete one phpRank project and every report in it, by the project name (such as example.com). Returns deleted (true) and the name as id.';

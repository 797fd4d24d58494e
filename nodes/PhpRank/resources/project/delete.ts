import type { IExecutePaginationFunctions, INodeExecutionData, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { PhpRankClient } from '../../shared/client';
import type { RequestData } from '../../shared/client';
import { projectNameLocator } from '../../shared/descriptions';
import { updateDisplayOptions } from '../../shared/displayOptions';
import { deletionOf, toItems } from '../../shared/items';
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

export const projectDeleteOperation: INodePropertyOptions = {
	name: 'Delete',
	value: 'delete',
	action: 'Delete a project by name',
	description: 'Delete a project',
	routing: {
		request: { method: 'DELETE' },
		// paginate hands the prepared request to deleteProject, which sends it through the client (see PhpRankClient.forItem).
		send: { paginate: true, preSend: [setProjectPath] },
		operations: { pagination: deleteProject },
	},
};

async function deleteProject(this: IExecutePaginationFunctions, requestData: RequestData): Promise<INodeExecutionData[]> {
	const client = PhpRankClient.forItem(this, requestData);
	return toItems(this, [deletionOf(this, await client.request())]);
}

export const projectDeleteForAgents = 'Delete one phpRank project and every report in it, by the project name (such as example.com). This cannot be undone, and phpRank 1.2 to 1.8 also delete one unrelated report. Returns deleted (true) and the name as id.';

import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { CREDENTIAL_TYPE } from '../../credentials/PhpRankApi.credentials';
import { searchProjects } from './listSearch/searchProjects';
import { MAIN_CONNECTION } from './shared/descriptions';
import { newReportProperties, pollNewReports } from './trigger/newReport';
import { pollNewProjects } from './trigger/newProject';

export class PhpRankTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'phpRank Trigger',
		name: 'phpRankTrigger',
		icon: { light: 'file:../../icons/phpRank.svg', dark: 'file:../../icons/phpRank.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["event"] === "newProject" ? "New Project" : "New Report" }}',
		description: 'Starts the workflow when phpRank has a new report or a new project',
		defaults: { name: 'phpRank Trigger' },
		polling: true,
		inputs: [],
		outputs: [MAIN_CONNECTION],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		properties: [
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'New Report',
						value: 'newReport',
						description: 'Once per report created since the last poll, oldest first, with its grade',
					},
					{
						name: 'New Project',
						value: 'newProject',
						description: 'Once per project created since the last poll, oldest first',
					},
				],
				default: 'newReport',
			},
			...newReportProperties,
		],
	};

	methods = {
		listSearch: { searchProjects },
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return this.getNodeParameter('event') === 'newProject' ? await pollNewProjects(this) : await pollNewReports(this);
	}
}

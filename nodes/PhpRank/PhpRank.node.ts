import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { CREDENTIAL_TYPE } from '../../credentials/PhpRankApi.credentials';
import { searchProjects } from './listSearch/searchProjects';
import { searchReports } from './listSearch/searchReports';
import { projectFields, projectOperations, projectToolDescriptions } from './resources/project';
import { reportFields, reportOperations, reportToolDescriptions } from './resources/report';
import { siteFields, siteOperations, siteToolDescriptions } from './resources/site';
import { MAIN_CONNECTION, returnAllAndLimit } from './shared/descriptions';
import { updateDisplayOptions } from './shared/displayOptions';
import { REQUEST_DEFAULTS } from './shared/client';

export class PhpRank implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'phpRank',
		name: 'phpRank',
		icon: { light: 'file:../../icons/phpRank.svg', dark: 'file:../../icons/phpRank.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description: 'Create, read, update and delete SEO reports and projects in phpRank, and audit whole sites',
		defaults: { name: 'phpRank' },
		usableAsTool: true,
		inputs: [MAIN_CONNECTION],
		outputs: [MAIN_CONNECTION],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		requestDefaults: REQUEST_DEFAULTS,
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Project', value: 'project' },
					{ name: 'Report', value: 'report' },
					{ name: 'Site', value: 'site' },
				],
				default: 'report',
			},
			reportOperations,
			projectOperations,
			siteOperations,
			...reportToolDescriptions,
			...projectToolDescriptions,
			...siteToolDescriptions,
			...updateDisplayOptions({ show: { resource: ['report', 'project'], operation: ['getAll'] } }, returnAllAndLimit()),
			// Before Report's fields: Site > Audit's If the URL Already Has a Report comes before the choices both share.
			...siteFields,
			...reportFields,
			...projectFields,
		],
	};

	methods = {
		listSearch: { searchReports, searchProjects },
	};
}

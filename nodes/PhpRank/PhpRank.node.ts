import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { searchProjects } from './listSearch/searchProjects';
import { searchReports } from './listSearch/searchReports';
import { getProjects } from './loadOptions/getProjects';
import { projectDescription } from './resources/project';
import { reportDescription } from './resources/report';
import { MAIN_CONNECTION } from './shared/descriptions';
import { DEFAULT_MAX_RATE_LIMIT_WAIT_SECONDS } from './shared/rateLimit';
import { CREDENTIAL_TYPE, REQUEST_DEFAULTS } from './shared/transport';

export class PhpRank implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'phpRank',
		name: 'phpRank',
		icon: { light: 'file:../../icons/phpRank.svg', dark: 'file:../../icons/phpRank.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description: 'Create, read, update and delete SEO reports and projects in phpRank',
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
				],
				default: 'report',
			},
			...reportDescription,
			...projectDescription,
			{
				displayName: 'Max Rate-Limit Wait (Seconds)',
				name: 'maxRateLimitWait',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: DEFAULT_MAX_RATE_LIMIT_WAIT_SECONDS,
				description:
					'How long each item may wait in all when phpRank answers 429 Too Many Attempts. The node then paces itself and sends the refused request again once phpRank allows it. 0 turns waiting off.',
			},
		],
	};

	methods = {
		listSearch: { searchReports, searchProjects },
		loadOptions: { getProjects },
	};
}

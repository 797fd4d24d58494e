import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';
import { API_BASE_URL_EXPRESSION } from '../nodes/PhpRank/shared/transport';

export class PhpRankApi implements ICredentialType {
	name = 'phpRankApi';

	displayName = 'phpRank API';

	icon: Icon = { light: 'file:../icons/phpRank.svg', dark: 'file:../icons/phpRank.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-phprank/n8n-nodes-phprank#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://seo.example.com',
			description:
				'The address of your phpRank installation, with its sub-folder if it has one (e.g. https://example.com/phprank). /api/v1 is added for you.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The API key shown on the API page of your phpRank account',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.apiKey}}',
				Accept: 'application/json',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: API_BASE_URL_EXPRESSION,
			url: '/account',
			disableFollowRedirect: true,
		},
	};
}

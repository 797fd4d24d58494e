import type {
	Icon,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';
import { API_BASE_URL_EXPRESSION } from '../nodes/PhpRank/shared/transport';

const NOT_ACCEPTED = 'The API key was refused: copy it again from the API page of your phpRank account';

const NOT_THE_API =
	'This address is not a phpRank API: the Base URL must be the address of your phpRank installation, e.g. https://seo.example.com';

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

	// Code, not an expression: n8n evaluates a generic authenticate's expressions for every request,
	// each in a fresh data proxy, which costs more than the rest of the header's work.
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return {
			...requestOptions,
			headers: {
				...requestOptions.headers,
				Authorization: `Bearer ${String(credentials.apiKey ?? '')}`,
				Accept: 'application/json',
			},
		};
	}

	test: ICredentialTestRequest = {
		request: {
			baseURL: API_BASE_URL_EXPRESSION,
			url: '/account',
			disableFollowRedirect: true,
		},
		// n8n's types take one kind of rule per list, its credential tester both.
		rules: [
			{ type: 'responseCode', properties: { value: 401, message: NOT_ACCEPTED } },
			{ type: 'responseCode', properties: { value: 302, message: `${NOT_ACCEPTED} (phpRank sent its login page)` } },
			{ type: 'responseCode', properties: { value: 404, message: NOT_THE_API } },
			{ type: 'responseCode', properties: { value: 405, message: NOT_THE_API } },
			{ type: 'responseSuccessBody', properties: { key: 'data.id', value: undefined, message: NOT_THE_API } },
		] as ICredentialTestRequest['rules'],
	};
}

import { ApplicationError } from 'n8n-workflow';
import type {
	Icon,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

/** The name the nodes ask for this credential by. */
export const CREDENTIAL_TYPE = 'phpRankApi';

/** The phpRank API under the Base URL the user gives: with or without /api/v1, trailing slashes ignored. */
export function apiBaseUrl(baseUrl: unknown): string {
	return `${String(baseUrl).trim().replace(/\/+$/, '').replace(/\/api\/v1$/i, '')}/api/v1`;
}

const NOT_ACCEPTED = 'The API key was refused: copy it again from the API page of your phpRank account';

const OTHER_HOST = 'The phpRank API key is sent only to the phpRank installation named by the Base URL';

function absoluteUrl(url: string | undefined): URL | undefined {
	if (url === undefined || !/^[a-z][a-z\d+.-]*:/i.test(url)) return undefined;
	try {
		return new URL(url);
	} catch {
		return undefined;
	}
}

const NOT_THE_API =
	'This address is not a phpRank API: the Base URL must be the address of your phpRank installation, e.g. https://seo.example.com';

export class PhpRankApi implements ICredentialType {
	// Spelt out for n8n's linting, which reads the name from the class; the type holds it to CREDENTIAL_TYPE.
	name: typeof CREDENTIAL_TYPE = 'phpRankApi';

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

	// Code, not a generic authenticate: n8n would evaluate its expressions anew for every request.
	/**
	 * Every request goes to the Base URL with the key; a request for another host (one typed into n8n's
	 * HTTP Request node with this credential) is refused rather than handed the key.
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const baseURL = apiBaseUrl(credentials.baseUrl);
		// n8n's HTTP Request node hands over request-library options, with `uri` in place of `url`.
		const target = absoluteUrl(requestOptions.url ?? (requestOptions as { uri?: string }).uri);
		if (target !== undefined && target.host !== absoluteUrl(baseURL)?.host) {
			throw new ApplicationError(`${OTHER_HOST}: ${target.host} is not the host of the Base URL`, { level: 'warning' });
		}
		return {
			...requestOptions,
			baseURL,
			headers: {
				...requestOptions.headers,
				Authorization: `Bearer ${String(credentials.apiKey ?? '')}`,
				Accept: 'application/json',
			},
		};
	}

	test: ICredentialTestRequest = {
		request: {
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

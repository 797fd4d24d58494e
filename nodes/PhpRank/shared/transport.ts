import type {
	IDataObject,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
} from 'n8n-workflow';
import { isSuccess, listSubject, toApiError } from './responses';

export const CREDENTIAL_TYPE = 'phpRankApi';

// The same rule twice, once as an n8n expression for declarative requests and the credential test,
// once as code for the editor's list searches: keep both in step (the credential tests cover both).
export const API_BASE_URL_EXPRESSION =
	'={{ String($credentials.baseUrl).trim().replace(/\\/+$/, "").replace(/\\/api\\/v1$/i, "") + "/api/v1" }}';

export function apiBaseUrl(baseUrl: unknown): string {
	return `${String(baseUrl).trim().replace(/\/+$/, '').replace(/\/api\/v1$/i, '')}/api/v1`;
}

export const FORM_HEADERS = { 'Content-Type': 'application/x-www-form-urlencoded' };

// ignoreHttpStatusErrors hands every answer to our own error messages; redirects are refused so that
// the key never follows a Location header to another host.
export const REQUEST_DEFAULTS = {
	baseURL: API_BASE_URL_EXPRESSION,
	headers: { Accept: 'application/json' },
	ignoreHttpStatusErrors: true,
	disableFollowRedirect: true,
} satisfies Partial<IHttpRequestOptions>;

export async function getPage(
	this: ILoadOptionsFunctions,
	path: '/reports' | '/projects',
	qs: IDataObject,
): Promise<IDataObject> {
	const credentials = await this.getCredentials(CREDENTIAL_TYPE);
	const response = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, {
		...REQUEST_DEFAULTS,
		method: 'GET',
		baseURL: apiBaseUrl(credentials.baseUrl),
		url: path,
		qs,
		returnFullResponse: true,
	})) as IN8nHttpFullResponse;
	if (!isSuccess(response)) {
		const editorContext = { getNode: () => this.getNode(), getItemIndex: () => 0 };
		throw toApiError(editorContext, response, listSubject(path === '/reports' ? 'report' : 'project'));
	}
	return response.body as IDataObject;
}

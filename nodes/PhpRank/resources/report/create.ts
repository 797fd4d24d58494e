import type { IDataObject, IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';
import { passwordField, privacyField } from '../../shared/descriptions';
import { operation, returnReport } from '../../shared/operations';
import { FORM_HEADERS } from '../../shared/transport';
import { updateDisplayOptions } from '../../shared/displayOptions';
import { parseHttpUrl, parseOption, requirePassword } from '../../shared/validation';
import { PRIVACY, PRIVACY_OPTIONS } from '../../shared/values';

const showOnlyForReportCreate = { resource: ['report'], operation: ['create'] };

const properties: INodeProperties[] = [
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. https://example.com/blog/',
		description: 'The web page to analyze; phpRank fetches it and scores it from 0 to 100',
		routing: { send: { type: 'body', property: 'url' } },
	},
	privacyField(),
	// Not `required`: n8n would then demand it whenever Privacy is an expression, even one giving 0 or 1.
	// validateReportCreate requires it when the privacy turns out to be Password.
	passwordField({
		description: 'Password of the report page; required with Privacy: Password',
		displayOptions: { show: { privacy: [PRIVACY.password] } },
	}),
];

export const reportCreateOperation = operation(
	{
		name: 'Create',
		value: 'create',
		action: 'Create a report of a URL, returning its ID, score and grade',
		description: 'Create a report',
	},
	{ method: 'POST', url: '/reports', headers: FORM_HEADERS },
	returnReport,
	[validateReportCreate],
);

export const reportCreateDescription = updateDisplayOptions({ show: showOnlyForReportCreate }, properties);

export async function validateReportCreate(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const body = requestOptions.body as IDataObject;
	body.url = parseHttpUrl(this, 'URL', body.url);
	body.privacy = parseOption(this, 'Privacy', body.privacy ?? PRIVACY.public, PRIVACY_OPTIONS);
	if (body.privacy === PRIVACY.password) body.password = requirePassword(this, body.password);
	else delete body.password;
	return requestOptions;
}

import type {
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { FORM_HEADERS, PhpRankClient } from '../../shared/client';
import type { RequestData } from '../../shared/client';
import { passwordField, privacyField, REPORT_ITEM_FOR_AGENTS } from '../../shared/descriptions';
import { updateDisplayOptions } from '../../shared/displayOptions';
import { previousScoreOf, recordOf, reportItems } from '../../shared/items';
import { setReportPath } from '../../shared/paths';
import { isAnalysis } from '../../shared/rateLimit';
import { failInput, parseBoolean, parseOption, requirePassword } from '../../shared/validation';
import { PRIVACY, PRIVACY_OPTIONS } from '../../shared/values';
import { SiteReports } from './siteReports';

const showOnlyForReportUpdate = { resource: ['report'], operation: ['update'] };

const properties: INodeProperties[] = [
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			passwordField({
				description: 'New password of the report page; only with Privacy: Password',
				routing: { send: { type: 'body', property: 'password' } },
			}),
			privacyField({ routing: { send: { type: 'body', property: 'privacy' } } }),
			{
				displayName: 'Re-Analyze',
				name: 'reanalyze',
				type: 'boolean',
				default: false,
				description: 'Whether phpRank should fetch and analyze the page again, refreshing its result and checks',
				routing: { send: { type: 'body', property: 'results' } },
			},
		],
	},
];

export const reportUpdateDescription = updateDisplayOptions({ show: showOnlyForReportUpdate }, properties);

export const reportUpdateOperation: INodePropertyOptions = {
	name: 'Update',
	value: 'update',
	action: 'Update a report by ID',
	description: 'Update a report',
	routing: {
		request: { method: 'PUT', headers: FORM_HEADERS },
		// paginate hands the prepared request to updateReport, which sends it through the client (see PhpRankClient.forItem).
		send: { paginate: true, preSend: [setReportPath, validateReportUpdate] },
		operations: { pagination: updateReport },
	},
};

/**
 * Sends a report's update (Update, Re-Analyze). With Add Previous Score, a re-analysis reads the report first.
 * Without a re-analysis the score cannot change, so the answer's own score is the previous one, and nothing is read.
 */
export async function updateReport(this: IExecutePaginationFunctions, requestData: RequestData): Promise<INodeExecutionData[]> {
	const client = PhpRankClient.forItem(this, requestData);
	const { includePreviousScore } = this.getNodeParameter('options', {}) as IDataObject;
	const addPreviousScore = parseBoolean(this, 'Add Previous Score', includePreviousScore ?? false);
	const previous =
		addPreviousScore && isAnalysis(requestData.options)
			? recordOf(this, await client.request({ method: 'GET', url: String(requestData.options.url) }))
			: undefined;
	const record = recordOf(this, await client.request());
	SiteReports.changed(client, record.id, record);
	const additions = addPreviousScore ? previousScoreOf(previous ?? record, record) : {};
	return reportItems(this, record, { site: await client.site(), additions });
}

async function validateReportUpdate(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const body = requestOptions.body as IDataObject;
	if (Object.keys(body).length === 0) {
		failInput(this, 'Update Fields is empty: add Privacy, Password or Re-Analyze');
	}
	if (body.privacy !== undefined) body.privacy = parseOption(this, { field: 'Privacy', options: PRIVACY_OPTIONS }, body.privacy);
	if (body.privacy === PRIVACY.password) {
		body.password = requirePassword(this, body.password);
	} else if (body.password !== undefined) {
		failInput(
			this,
			'Password can only be set together with Privacy: Password (2)',
			'Add the Privacy field set to Password, or remove the Password field.',
		);
	}
	if (body.results !== undefined) body.results = parseBoolean(this, 'Re-Analyze', body.results) ? 1 : 0;
	return requestOptions;
}

export const reportUpdateForAgents = `Change one phpRank SEO report by its numeric report ID: its privacy, its password, or analyze the page again to refresh its score (Re-Analyze). Returns the updated report: ${REPORT_ITEM_FOR_AGENTS}. With Add Previous Score it also has previousResult, resultChange, newlyFailedChecks and fixedChecks (the checks that fail now and did not before, and those fixed, by importance); newlyFailedCheckNames and fixedCheckNames give their titles).`;

import type {
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { passwordField, privacyField, REPORT_ITEM_FOR_AGENTS } from '../../shared/descriptions';
import { UnansweredRequestError } from '../../shared/errors';
import { previousScoreOf, recordOf, shapeReport, toItems } from '../../shared/items';
import { oneAtATime } from '../../shared/oneAtATime';
import { itemRequest, operation, reportShapeOf, runOptionsOf } from '../../shared/operations';
import type { RequestData } from '../../shared/operations';
import { reportAddressOf } from '../../shared/reportUrl';
import type { ReportAddress } from '../../shared/reportUrl';
import { relatedRequest } from '../../shared/requests';
import { analysisTimeMs, FORM_HEADERS, sendRequest, serverOf } from '../../shared/transport';
import type { PhpRankRequest } from '../../shared/transport';
import { pauseUntil } from '../../shared/rateLimit';
import { updateDisplayOptions } from '../../shared/displayOptions';
import { failInput, parseHttpUrl, parseOption, quoted, requirePassword, toPathSegment } from '../../shared/validation';
import {
	CREATE_OUTCOME,
	IF_REPORT_EXISTS,
	IF_REPORT_EXISTS_OPTIONS,
	PRIVACY,
	PRIVACY_OPTIONS,
} from '../../shared/values';
import type { IfReportExists } from '../../shared/values';
import { findReport } from './existingReport';

const showOnlyForReportCreate = { resource: ['report'], operation: ['create'] };

const IF_REPORT_EXISTS_FIELD = 'If the URL Already Has a Report';

const properties: INodeProperties[] = [
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. https://example.com/blog/',
		description: 'The web page to analyze; phpRank fetches it and scores it from 0 to 100',
	},
	{
		displayName: IF_REPORT_EXISTS_FIELD,
		name: 'ifReportExists',
		type: 'options',
		noDataExpression: false,
		options: IF_REPORT_EXISTS_OPTIONS,
		default: 'createAnother',
		description: 'What to do when phpRank already holds a report of this URL',
		hint: 'Return or Re-Analyze the Existing Report make re-runs create nothing twice. URLs are compared as phpRank writes them; Privacy and Password apply only to a created report.',
	},
	// Read where the body is built rather than routed: a routed parameter is evaluated again for every item.
	privacyField(),
	// Not `required`: n8n would then demand it whenever Privacy is an expression, even one giving 0 or 1.
	// buildReportCreate requires it when the privacy turns out to be Password.
	passwordField({
		description: 'Password of the report page; required with Privacy: Password',
		displayOptions: { show: { privacy: [PRIVACY.password] } },
	}),
];

interface Outcome {
	record: IDataObject;
	/** What the item says about it: `outcome`, and the previous score of a re-analyzed report. */
	additions: IDataObject;
}

const isCancelled = (context: IExecutePaginationFunctions) => context.getExecutionCancelSignal?.()?.aborted === true;

async function createOnce(context: IExecutePaginationFunctions, request: PhpRankRequest): Promise<IDataObject> {
	return recordOf(context, await sendRequest(context, request));
}

const SENT_AGAIN_UNANSWERED =
	'The create got no answer twice. After the first, phpRank held no report of the URL, so the create was sent once more; phpRank may have carried that one out. Running this item again is safe: it returns the report if phpRank holds one.';

/**
 * A create whose answer never came may or may not have been carried out. phpRank is asked: the report
 * it holds is this create's; without one, the create is sent once more, and only once.
 */
async function createCheckingUnanswered(
	context: IExecutePaginationFunctions,
	request: PhpRankRequest,
	address: ReportAddress,
): Promise<IDataObject> {
	const answered = await createOnce(context, request).catch((error: unknown) => {
		if (error instanceof UnansweredRequestError && !isCancelled(context)) return undefined;
		throw error;
	});
	if (answered !== undefined) return answered;
	// phpRank may still be analyzing the page: give it the time an analysis takes before looking.
	await pauseUntil(Date.now() + analysisTimeMs(context), () => isCancelled(context));
	const created = await findReport(context, request, address);
	if (created !== undefined) return created;
	return await createOnce(context, request).catch((error: unknown) => {
		if (error instanceof UnansweredRequestError) error.description = SENT_AGAIN_UNANSWERED;
		throw error;
	});
}

async function reanalyze(context: IExecutePaginationFunctions, request: PhpRankRequest, existing: IDataObject): Promise<Outcome> {
	const options = relatedRequest(request.options, {
		method: 'PUT',
		url: `/reports/${toPathSegment(String(existing.id))}`,
		body: { results: 1 },
	});
	const target = { name: `Report ${String(existing.id)}`, operation: 'update' };
	const body = await sendRequest(context, { ...request, options, targetOf: () => target });
	const record = recordOf(context, body);
	return { record, additions: { outcome: CREATE_OUTCOME.reanalyzed, ...previousScoreOf(existing, record) } };
}

async function createUnlessExists(context: IExecutePaginationFunctions, request: PhpRankRequest, choice: IfReportExists): Promise<Outcome> {
	const address = reportAddressOf(String((request.options.body as IDataObject).url));
	// Rows of one run with the same URL go one after another, so that the later ones find the first one's report.
	return await oneAtATime(`${serverOf(context)}\n${address.url}`, async () => {
		const existing = await findReport(context, request, address);
		if (existing === undefined) {
			return { record: await createCheckingUnanswered(context, request, address), additions: { outcome: CREATE_OUTCOME.created } };
		}
		if (choice === IF_REPORT_EXISTS.reanalyzeExisting) return await reanalyze(context, request, existing);
		return { record: existing, additions: { outcome: CREATE_OUTCOME.existing } };
	});
}

function parseIfReportExists(context: IExecutePaginationFunctions, value: unknown): IfReportExists {
	const choice = IF_REPORT_EXISTS_OPTIONS.find((option) => option.value === value);
	if (choice === undefined) {
		// n8n swaps an error message holding "EEXIST", in any case, for one about files, and
		// "reanalyzeExisting" holds it: the choices go into the description.
		failInput(
			context,
			`${IF_REPORT_EXISTS_FIELD} must be one of its ${IF_REPORT_EXISTS_OPTIONS.length} choices; got ${quoted(value)}`,
			`The choices: ${IF_REPORT_EXISTS_OPTIONS.map(({ name, value }) => `${String(value)} (${name})`).join(', ')}.`,
		);
	}
	return choice.value as IfReportExists;
}

async function createReport(this: IExecutePaginationFunctions, requestData: RequestData): Promise<INodeExecutionData[]> {
	const runOptions = runOptionsOf(this);
	const choice = parseIfReportExists(this, this.getNodeParameter('ifReportExists', IF_REPORT_EXISTS.createAnother));
	const request = itemRequest(this, requestData.options, runOptions);
	const { record, additions } =
		choice === IF_REPORT_EXISTS.createAnother
			? { record: await createOnce(this, request), additions: { outcome: CREATE_OUTCOME.created } }
			: await createUnlessExists(this, request, choice);
	const shape = await reportShapeOf(this, runOptions);
	return toItems(this, [record], (report) => shapeReport(report, shape, additions));
}

export const reportCreateOperation = operation(
	{
		name: 'Create',
		value: 'create',
		action: 'Create a report for a URL',
		description: 'Create a report',
	},
	{ request: { method: 'POST', url: '/reports', headers: FORM_HEADERS }, run: createReport, preSend: [buildReportCreate] },
);

export const reportCreateDescription = updateDisplayOptions({ show: showOnlyForReportCreate }, properties);

async function buildReportCreate(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const body: IDataObject = {
		url: parseHttpUrl(this, 'URL', this.getNodeParameter('url', '')),
		privacy: parseOption(this, { field: 'Privacy', options: PRIVACY_OPTIONS }, this.getNodeParameter('privacy', PRIVACY.public)),
	};
	if (body.privacy === PRIVACY.password) body.password = requirePassword(this, this.getNodeParameter('password', ''));
	return { ...requestOptions, body };
}

export const reportCreateForAgents = `Create an SEO report of one web page: phpRank fetches the page at the absolute http(s) URL given and scores it. Returns the report: id (the report ID the other phpRank report tools take), ${REPORT_ITEM_FOR_AGENTS}, and outcome (created, existing or reanalyzed); a reanalyzed report also has previousResult, resultChange, newlyFailedChecks and fixedChecks (the checks that fail now and did not before, and those fixed, by importance).`;

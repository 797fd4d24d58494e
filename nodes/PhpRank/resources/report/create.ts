import { NodeApiError } from 'n8n-workflow';
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
import { UnansweredRequestError } from '../../shared/errors';
import { previousScoreOf, recordOf, reportItems } from '../../shared/items';
import { oneAtATime } from '../../shared/oneAtATime';
import { failInput, parseHttpUrl, parseOption, quoted, requirePassword, toPathSegment } from '../../shared/validation';
import { PRIVACY, PRIVACY_OPTIONS } from '../../shared/values';
import { findReport, reportAddressOf } from './existingReport';
import type { ReportAddress } from './existingReport';
import { SiteReports } from './siteReports';

// One name for the choice and its age, read as a sentence in the panel: Re-Analyze if Older Than 7 Days.
const REANALYZE_IF_OLDER_THAN = 'Re-Analyze if Older Than';

export const IF_REPORT_EXISTS = {
	createAnother: 'createAnother',
	reanalyzeExisting: 'reanalyzeExisting',
	reanalyzeIfOlder: 'reanalyzeIfOlder',
	returnExisting: 'returnExisting',
} as const;

export type IfReportExists = (typeof IF_REPORT_EXISTS)[keyof typeof IF_REPORT_EXISTS];

const IF_REPORT_EXISTS_OPTIONS: INodePropertyOptions[] = [
	{
		name: 'Create Another Report',
		value: IF_REPORT_EXISTS.createAnother,
		description: 'Create a new report every time: running the same rows again makes duplicates, which the other choices avoid',
	},
	{
		name: REANALYZE_IF_OLDER_THAN,
		value: IF_REPORT_EXISTS.reanalyzeIfOlder,
		description: 'Analyze again only a report older than the age given, so a stopped run resumes; create one if the URL has none',
	},
	{
		name: 'Re-Analyze the Existing Report',
		value: IF_REPORT_EXISTS.reanalyzeExisting,
		description: 'Analyze the page again into the report the URL already has, output with its previous score; else create one',
	},
	{
		name: 'Return the Existing Report',
		value: IF_REPORT_EXISTS.returnExisting,
		description: 'Output the report the URL already has, unchanged; create one if it has none',
	},
];

/** What a Report > Create item says happened. */
const CREATE_OUTCOME = { created: 'created', existing: 'existing', reanalyzed: 'reanalyzed' } as const;

const showOnlyForReportCreate = { resource: ['report'], operation: ['create'] };

const IF_REPORT_EXISTS_FIELD = 'If the URL Already Has a Report';

const OLDER_THAN_UNIT_FIELD = 'Unit';

const AGE_UNITS = { days: 'days', hours: 'hours' } as const;

const AGE_UNIT_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Days', value: AGE_UNITS.days },
	{ name: 'Hours', value: AGE_UNITS.hours },
];

const MS_PER_HOUR = 3_600_000;

const showForReanalyzeIfOlder = { show: { ifReportExists: [IF_REPORT_EXISTS.reanalyzeIfOlder] } };

/** If the URL Already Has a Report, with the default and description of the operation that asks it. */
export function ifReportExistsField({ default: defaultChoice, description }: { default: IfReportExists; description: string }): INodeProperties {
	return {
		displayName: IF_REPORT_EXISTS_FIELD,
		name: 'ifReportExists',
		type: 'options',
		noDataExpression: false,
		options: IF_REPORT_EXISTS_OPTIONS,
		default: defaultChoice,
		description,
	};
}

const createFields: INodeProperties[] = [
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. https://example.com/blog/',
		description: 'The web page to analyze; phpRank fetches it and scores it from 0 to 100',
	},
	ifReportExistsField({
		default: IF_REPORT_EXISTS.createAnother,
		description: 'What to do when phpRank holds a report of this URL; http or https, www. and capitals in the host make no difference.',
	}),
];

// Asked by Report > Create and Site > Audit alike, declared once: every declared property costs each item.
const afterIfReportExists: INodeProperties[] = [
	{
		displayName: REANALYZE_IF_OLDER_THAN,
		name: 'olderThan',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 7,
		description: 'The age of a report, since its last analysis, past which it is analyzed again; a younger one is output as it is',
		displayOptions: showForReanalyzeIfOlder,
	},
	{
		displayName: OLDER_THAN_UNIT_FIELD,
		name: 'olderThanUnit',
		type: 'options',
		options: AGE_UNIT_OPTIONS,
		default: 'days',
		description: `The unit of ${REANALYZE_IF_OLDER_THAN}`,
		displayOptions: showForReanalyzeIfOlder,
	},
	// Read where the body is built rather than routed: a routed parameter is evaluated again for every item.
	privacyField({ description: 'Who can open the report page; applies only to a new report' }),
	// Not `required`: n8n would then demand it whenever Privacy is an expression, even one giving 0 or 1.
	// buildReportCreate requires it when the privacy turns out to be Password.
	passwordField({
		description: 'Password of the report page; required with Privacy: Password',
		displayOptions: { show: { privacy: [PRIVACY.password] } },
	}),
];

/** The operations that create reports: Report > Create, and Site > Audit for each page of a site. */
const showForCreatingOperations = { resource: ['report', 'site'], operation: ['create', 'audit'] };

export const reportCreateDescription = updateDisplayOptions({ show: showOnlyForReportCreate }, createFields);

/** After the If the URL Already Has a Report of either operation: declared after both. */
export const reportChoicesDescription = updateDisplayOptions({ show: showForCreatingOperations }, afterIfReportExists);

export const reportCreateOperation: INodePropertyOptions = {
	name: 'Create',
	value: 'create',
	action: 'Create a report for a URL',
	description: 'Create a report',
	routing: {
		request: { method: 'POST', url: '/reports', headers: FORM_HEADERS },
		// paginate hands the prepared request to createReport, which sends it through the client (see PhpRankClient.forItem).
		send: { paginate: true, preSend: [buildReportCreate] },
		operations: { pagination: createReport },
	},
};

async function buildReportCreate(this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> {
	const body: IDataObject = {
		url: parseHttpUrl(this, 'URL', this.getNodeParameter('url', '')),
		privacy: parseOption(this, { field: 'Privacy', options: PRIVACY_OPTIONS }, this.getNodeParameter('privacy', PRIVACY.public)),
	};
	if (body.privacy === PRIVACY.password) body.password = requirePassword(this, this.getNodeParameter('password', ''));
	return { ...requestOptions, body };
}

async function createReport(this: IExecutePaginationFunctions, requestData: RequestData): Promise<INodeExecutionData[]> {
	const client = PhpRankClient.forItem(this, requestData);
	const analyze = analyzerOf(this, this.getNodeParameter('ifReportExists', IF_REPORT_EXISTS.createAnother));
	const { record, additions } = await analyze(client, String((requestData.options.body as IDataObject).url));
	return reportItems(this, record, { site: await client.site(), additions });
}

/** What a create did: the report, and what the item says about it (`outcome`, the previous score of a re-analyzed report). */
export type { Outcome as CreateOutcome };

/**
 * The create of a report of `url` as If the URL Already Has a Report says, with the client whose prepared request is
 * that create (POST /reports): the choice and its age read once, for all the URLs of an item.
 */
export function analyzerOf(context: IExecutePaginationFunctions, ifReportExists: unknown): (client: PhpRankClient, url: string) => Promise<Outcome> {
	const choice = parseIfReportExists(context, ifReportExists);
	if (choice === IF_REPORT_EXISTS.createAnother) {
		return async (client) => ({ record: recordOf(context, await client.request()), additions: { outcome: CREATE_OUTCOME.created } });
	}
	const isFresh = freshnessOf(context, choice);
	return async (client, url) => await createUnlessExists(context, client, { isFresh, address: reportAddressOf(url) });
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

/** Whether a report the URL has is output as it is (true) or analyzed again (false), by the choice made. */
type Freshness = (report: IDataObject) => boolean;

function freshnessOf(context: IExecutePaginationFunctions, choice: IfReportExists): Freshness {
	if (choice === IF_REPORT_EXISTS.returnExisting) return () => true;
	if (choice === IF_REPORT_EXISTS.reanalyzeExisting) return () => false;
	const maxAgeMs = olderThanMs(context);
	// A report without a readable analysis date cannot be shown to be fresh.
	return (report) => ageMsOf(report) < maxAgeMs;
}

function olderThanMs(context: IExecutePaginationFunctions): number {
	const amount = context.getNodeParameter('olderThan', 7);
	if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) {
		failInput(context, `${REANALYZE_IF_OLDER_THAN} must be a number, 0 or more; got ${quoted(amount)}`);
	}
	const unitField = `${OLDER_THAN_UNIT_FIELD} of ${REANALYZE_IF_OLDER_THAN}`;
	const unit = parseOption(context, { field: unitField, options: AGE_UNIT_OPTIONS }, context.getNodeParameter('olderThanUnit', AGE_UNITS.days));
	return amount * MS_PER_HOUR * (unit === AGE_UNITS.days ? 24 : 1);
}

/** How long ago phpRank last analyzed the report (its generated_at); Infinity when it does not say. */
function ageMsOf(report: IDataObject): number {
	const generatedAt = typeof report.generated_at === 'string' ? Date.parse(report.generated_at) : NaN;
	return Number.isNaN(generatedAt) ? Infinity : Math.max(0, Date.now() - generatedAt);
}

function existingOutcome(report: IDataObject): Outcome {
	const ageMs = ageMsOf(report);
	const ageHours = Number.isFinite(ageMs) ? Math.round(ageMs / (MS_PER_HOUR / 10)) / 10 : null;
	return { record: report, additions: { outcome: CREATE_OUTCOME.existing, ageHours } };
}

interface Outcome {
	record: IDataObject;
	/** What the item says about it: `outcome`, and the previous score of a re-analyzed report. */
	additions: IDataObject;
}

async function createUnlessExists(
	context: IExecutePaginationFunctions,
	client: PhpRankClient,
	{ isFresh, address }: { isFresh: Freshness; address: ReportAddress },
): Promise<Outcome> {
	const siteReports = SiteReports.of(client, address.project);
	// Rows of one run with the same URL go one after another, so that the later ones find the first one's report.
	return await oneAtATime(`${client.server}\n${address.url}`, async () => {
		const existing = await siteReports.reportOf(client, address);
		const outcome =
			existing === undefined
				? await create(context, client, address)
				: isFresh(existing)
					? existingOutcome(existing)
					: await reanalyzeOrCreate(context, client, { existing, address, isFresh });
		SiteReports.stored(client, address, outcome.record);
		return outcome;
	});
}

async function reanalyze(context: IExecutePaginationFunctions, client: PhpRankClient, existing: IDataObject): Promise<Outcome> {
	const reanalyzed = recordOf(
		context,
		await client.request({
			method: 'PUT',
			url: `/reports/${toPathSegment(String(existing.id))}`,
			body: { results: 1 },
			target: { name: `Report ${String(existing.id)}`, operation: 'update' },
		}),
	);
	return { record: reanalyzed, additions: { outcome: CREATE_OUTCOME.reanalyzed, ...previousScoreOf(existing, reanalyzed) } };
}

/** A report found when the site was read may have been deleted since: phpRank then refuses its update (403). */
async function reanalyzeOrCreate(
	context: IExecutePaginationFunctions,
	client: PhpRankClient,
	{ existing, address, isFresh }: { existing: IDataObject; address: ReportAddress; isFresh: Freshness },
): Promise<Outcome> {
	const refused = await reanalyze(context, client, existing).catch((error: unknown) => {
		if (error instanceof NodeApiError && error.httpCode === '403') return error;
		throw error;
	});
	if (!(refused instanceof NodeApiError)) return refused;
	const current = await findReport(client, address);
	if (current === undefined) return await create(context, client, address);
	if (String(current.id) === String(existing.id)) throw refused;
	return isFresh(current) ? existingOutcome(current) : await reanalyze(context, client, current);
}

async function create(context: IExecutePaginationFunctions, client: PhpRankClient, address: ReportAddress): Promise<Outcome> {
	return { record: await createCheckingUnanswered(context, client, address), additions: { outcome: CREATE_OUTCOME.created } };
}

const SENT_AGAIN_UNANSWERED =
	'The create got no answer twice. After the first, phpRank held no report of the URL, so the create was sent once more; phpRank may have carried that one out. Running this item again is safe: it returns the report if phpRank holds one.';

/**
 * A create whose answer never came may or may not have been carried out. phpRank is asked: the report
 * it holds is this create's; without one, the create is sent once more, and only once.
 */
async function createCheckingUnanswered(
	context: IExecutePaginationFunctions,
	client: PhpRankClient,
	address: ReportAddress,
): Promise<IDataObject> {
	const answered = await client.request().catch((error: unknown) => {
		if (error instanceof UnansweredRequestError && !client.isCancelled()) return undefined;
		throw error;
	});
	if (answered !== undefined) return recordOf(context, answered);
	// phpRank may still be analyzing the page: give it the time an analysis takes before looking.
	await client.waitAnalysisTime();
	const created = await findReport(client, address);
	if (created !== undefined) return created;
	const sentAgain = await client.request().catch((error: unknown) => {
		if (error instanceof UnansweredRequestError) error.description = SENT_AGAIN_UNANSWERED;
		throw error;
	});
	return recordOf(context, sentAgain);
}

export const reportCreateForAgents = `Create an SEO report of one web page: phpRank fetches the page at the absolute http(s) URL given and scores it. Returns the report: id (the report ID the other phpRank report tools take), ${REPORT_ITEM_FOR_AGENTS}, and outcome (created, existing or reanalyzed); an existing report also has ageHours (hours since phpRank last analyzed it); a reanalyzed report also has previousResult, resultChange, newlyFailedChecks and fixedChecks (the checks that fail now and did not before, and those fixed, by importance); newlyFailedCheckNames and fixedCheckNames give their titles).`;

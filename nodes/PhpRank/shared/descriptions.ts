import * as workflow from 'n8n-workflow';
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { GRADE_OPTIONS } from './grade';
import {
	DEFAULT_MAX_WAIT_SECONDS,
	DEFAULT_PRIVACY,
	LARGEST_PAGE_SIZE,
	PAGE_SIZE_OPTIONS,
	PRIVACY_OPTIONS,
	SORT_ORDER_OPTIONS,
} from './values';

// n8n 1.x releases before 1.90 lack NodeConnectionTypes; their main connection has the same name.
export const MAIN_CONNECTION = (workflow as Partial<typeof workflow>).NodeConnectionTypes?.Main ?? 'main';

const PROJECT_NAME_HINT = 'phpRank names a project after the host of its reports, e.g. example.com';

function projectLocator(name: string, description: string): INodeProperties {
	return {
		displayName: 'Project',
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Search projects by name...',
				typeOptions: { searchListMethod: 'searchProjects', searchable: true },
			},
			{
				displayName: 'By Name',
				name: 'name',
				type: 'string',
				placeholder: 'e.g. example.com',
			},
		],
	};
}

export const projectNameLocator: INodeProperties = {
	...projectLocator('projectName', `The project to act on: ${PROJECT_NAME_HINT}`),
	required: true,
};

export function projectFilter(only: string): INodeProperties {
	return projectLocator('project', `Only ${only} of this project (${PROJECT_NAME_HINT})`);
}

export function gradeFilter(only: string): INodeProperties {
	return {
		displayName: 'Grade',
		name: 'grade',
		type: 'options',
		options: GRADE_OPTIONS,
		default: 'bad',
		description: `Only ${only} with this grade, from phpRank's 0-100 score`,
	};
}

export const reportIdLocator: INodeProperties = {
	displayName: 'Report',
	name: 'reportId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The report to act on: pick it by its URL, or give its numeric ID',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Search reports by URL...',
			typeOptions: { searchListMethod: 'searchReports', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 42',
			validation: [
				{
					type: 'regex',
					properties: { regex: '^\\s*[1-9][0-9]*\\s*$', errorMessage: 'A report ID is a positive whole number' },
				},
			],
		},
	],
};

export function privacyField(overrides: Partial<INodeProperties> = {}): INodeProperties {
	return {
		displayName: 'Privacy',
		name: 'privacy',
		type: 'options',
		options: PRIVACY_OPTIONS,
		default: DEFAULT_PRIVACY,
		description: 'Who can open the report page',
		...overrides,
	};
}

export function passwordField(overrides: Partial<INodeProperties> = {}): INodeProperties {
	return {
		displayName: 'Password',
		name: 'password',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		description: 'Password of the report page; sent only with Privacy: Password',
		...overrides,
	};
}

const maxWaitOption: INodeProperties = {
	displayName: 'Max Wait (Seconds)',
	name: 'maxWait',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: DEFAULT_MAX_WAIT_SECONDS,
	description: "How long each request may wait for phpRank's rate limit or for phpRank to be reachable again; 0 turns waiting off",
	hint: 'An hour: enough for 1,000 rows, or a phpRank restart',
};

/** A report item as the descriptions an AI agent reads name it. */
export const REPORT_ITEM_FOR_AGENTS =
	'url, project, result (the SEO score, 0 to 100), grade (good above 79, decent from 49, bad below 49), failedChecks (the ids of the failed checks by importance: high, medium, low), failedCheckNames (the same checks as phpRank titles them, to show a person), reportUrl (the report\'s page in phpRank, to link to) and privacy (who can open that page: 0 anyone, 1 its owner, 2 with its password). The answer is compact: the details of every check (results) are left out unless Options > Include Per-Check Results is added and turned on';

/**
 * The description an AI agent reads for each operation, on the tool variant only. n8n builds one from the
 * operation's action when a node declares none, and the action also names a new node, so it cannot say
 * what comes back.
 */
export function toolDescriptions(resource: string, byOperation: Record<string, string>): INodeProperties[] {
	return Object.entries(byOperation).map(([operation, text]) => ({
		displayName: 'Description',
		name: 'toolDescription',
		type: 'string',
		default: text,
		required: true,
		typeOptions: { rows: 4 },
		displayOptions: { show: { '@tool': [true], resource: [resource], operation: [operation] } },
		description: 'What the AI agent is told this tool does, needs and returns',
	}));
}

export const includeResultsOption: INodeProperties = {
	displayName: 'Include Per-Check Results',
	name: 'includeResults',
	type: 'boolean',
	// Added, it shows what a workflow without it gets: an option named Include must not take the results away.
	default: true,
	description: 'Whether to output each report\'s per-check "results" beside its score, grade and failed checks',
	hint: 'Several KB a report; off for an AI Agent unless added',
};

export function optionsCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [...options, maxWaitOption],
	};
}

// Declared once for both lists: every declared property costs each item, shown or not.
export function returnAllAndLimit(): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { returnAll: [false] } },
		},
	];
}

export function searchFields(searchByOptions: INodePropertyOptions[], searchWhat: string): INodeProperties[] {
	const defaultSearchBy = searchByOptions[0].value;
	return [
		{
			displayName: 'Search',
			name: 'search',
			type: 'string',
			default: '',
			description: `Only ${searchWhat} contains this text`,
			routing: { send: { type: 'query', property: 'search' } },
		},
		{
			displayName: 'Search By',
			name: 'searchBy',
			type: 'options',
			options: searchByOptions,
			default: defaultSearchBy,
			description: 'Which field the search text is looked for in',
			routing: { send: { type: 'query', property: 'search_by' } },
		},
	];
}

export function listOptions(sortByOptions: INodePropertyOptions[], sortByHint?: string): INodeProperties[] {
	const defaultSortBy = sortByOptions[0].value;
	return [
		{
			displayName: 'Sort By',
			name: 'sortBy',
			type: 'options',
			options: sortByOptions,
			default: defaultSortBy,
			...(sortByHint === undefined ? {} : { hint: sortByHint }),
			routing: { send: { type: 'query', property: 'sort_by' } },
		},
		{
			displayName: 'Sort Order',
			name: 'sort',
			type: 'options',
			options: SORT_ORDER_OPTIONS,
			default: 'desc',
			routing: { send: { type: 'query', property: 'sort' } },
		},
		{
			displayName: 'Page Size',
			name: 'perPage',
			type: 'options',
			options: PAGE_SIZE_OPTIONS,
			default: LARGEST_PAGE_SIZE,
			description: 'How many records each request to phpRank asks for while returning all',
			hint: `${LARGEST_PAGE_SIZE} is the most phpRank allows. With a limit, the node picks the smallest page that holds it.`,
			displayOptions: { show: { '/returnAll': [true] } },
		},
	];
}

export function filtersCollection(filters: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: filters,
	};
}

/** Entries of a resource's Options collection that only some of its operations offer. */
export function forOperations(operations: string[], options: INodeProperties[]): INodeProperties[] {
	return options.map((option) => ({
		...option,
		displayOptions: { ...option.displayOptions, show: { ...option.displayOptions?.show, '/operation': operations } },
	}));
}

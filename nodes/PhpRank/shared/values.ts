import type { INodePropertyOptions } from 'n8n-workflow';

export const PRIVACY = { public: 0, private: 1, password: 2 } as const;

export const DEFAULT_PRIVACY = PRIVACY.public;

export const PRIVACY_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Public', value: PRIVACY.public, description: 'Anyone with the link can open the report page' },
	{ name: 'Private', value: PRIVACY.private, description: 'Only the owner can open the report page' },
	{ name: 'Password', value: PRIVACY.password, description: 'The report page asks for a password' },
];

export const REPORT_SEARCH_BY_OPTIONS: INodePropertyOptions[] = [{ name: 'URL', value: 'url' }];

export const REPORT_SORT_BY_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Date Created', value: 'id' },
	{
		name: 'Date Generated',
		value: 'generated_at',
		description: 'When the report was last analyzed; on phpRank 1.5 the node reads the whole list to sort by it',
	},
	{ name: 'URL', value: 'url' },
	{ name: 'Result', value: 'result', description: 'The score, from 0 to 100' },
];

export const PROJECT_SEARCH_BY_OPTIONS: INodePropertyOptions[] = [{ name: 'Name', value: 'project' }];

export const PROJECT_SORT_BY_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Date Created', value: 'created_at' },
	{ name: 'Name', value: 'project' },
];

export const SORT_ORDER_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Descending', value: 'desc' },
	{ name: 'Ascending', value: 'asc' },
];

export const PAGE_SIZES = [10, 25, 50, 100] as const;

export const PAGE_SIZE_OPTIONS: INodePropertyOptions[] = PAGE_SIZES.map((size) => ({
	name: String(size),
	value: size,
}));

export const LARGEST_PAGE_SIZE = PAGE_SIZES[PAGE_SIZES.length - 1];

// An hour: at phpRank's default 60 requests a minute 1,000 rows take about 17 minutes, so a big batch and a restart fit.
export const DEFAULT_MAX_WAIT_SECONDS = 3600;

/** The name of Options > Max Wait in messages about its value. */
export const MAX_WAIT_NAME = 'Max Wait';

import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteSingleFunctions, INodePropertyOptions } from 'n8n-workflow';
import { nodeForErrors } from './secrets';
import { SORT_ORDER_OPTIONS } from './values';

type NodeContext = Pick<IExecuteSingleFunctions, 'getNode' | 'getItemIndex'>;

export function failInput(context: NodeContext, message: string, description?: string): never {
	throw new NodeOperationError(nodeForErrors(context.getNode()), message, {
		itemIndex: context.getItemIndex(),
		description,
	});
}

export function quoted(value: unknown): string {
	let text: string;
	if (typeof value === 'string') text = JSON.stringify(value);
	else if (value === undefined) text = 'nothing';
	else {
		try {
			text = JSON.stringify(value) ?? String(value);
		} catch {
			text = String(value);
		}
	}
	return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function describeOptions(options: INodePropertyOptions[]): string {
	return options
		.map(({ name, value }) => (String(name) === String(value) ? `${value}` : `${value} (${name})`))
		.join(', ');
}

/** A field that takes one of its options: its name in messages and the options. */
interface OptionField {
	field: string;
	options: INodePropertyOptions[];
}

export function parseOption(context: NodeContext, { field, options }: OptionField, value: unknown): string | number {
	const match = options.find(
		(option) =>
			option.value === value ||
			(typeof option.value === 'number' && typeof value === 'string' && value.trim() === String(option.value)),
	);
	if (match === undefined) {
		failInput(
			context,
			`${field} must be one of: ${describeOptions(options)}; got ${quoted(value)}`,
			`phpRank silently replaces values it does not know, so the node refuses them instead of returning the wrong data.`,
		);
	}
	return match.value as string | number;
}

export function parsePositiveInteger(context: NodeContext, field: string, value: unknown): number {
	const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 1) {
		failInput(context, `${field} must be a positive whole number; got ${quoted(value)}`);
	}
	return number;
}

export function parseReportId(context: NodeContext, value: unknown): number {
	return parsePositiveInteger(context, 'Report ID', value);
}

export function parseProjectName(context: NodeContext, value: unknown): string {
	const name = typeof value === 'number' ? String(value) : value;
	if (typeof name !== 'string' || name.trim() === '') {
		failInput(context, `Project Name must be a non-empty text; got ${quoted(value)}`);
	}
	if (name === '.' || name === '..') {
		failInput(context, `Project Name ${quoted(name)} is not a project name`, 'phpRank names projects after the host of their reports, e.g. example.com.');
	}
	if (!isWellFormedText(name)) {
		failInput(context, 'Project Name holds a broken character (half of a UTF-16 surrogate pair)');
	}
	return name;
}

// Laravel's url rule, which phpRank applies, wants the scheme's // and no white space or control characters.
const ABSOLUTE_HTTP_URL = /^https?:\/\/[^\s/?#\\]+[^\s\\]*$/i;
// Characters that rule refuses anywhere in a URL (phpRank answers 422 "The url format is invalid."); percent-encoded they pass.
const REFUSED_BY_PHPRANK = /[\s|^"<>]/;

/** Whether the text holds a control character, U+0000 to U+001F or U+007F. */
function hasControlCharacter(text: string): boolean {
	for (let index = 0; index < text.length; index++) {
		const code = text.charCodeAt(index);
		if (code < 0x20 || code === 0x7f) return true;
	}
	return false;
}

export function parseHttpUrl(context: NodeContext, field: string, value: unknown): string {
	const text = typeof value === 'string' ? value.trim() : value;
	let url: URL | undefined;
	if (typeof text === 'string' && ABSOLUTE_HTTP_URL.test(text) && !hasControlCharacter(text)) {
		try {
			url = new URL(text);
		} catch {
			url = undefined;
		}
	}
	if (typeof text === 'string' && /^https?:\/\/[^\s]/i.test(text) && REFUSED_BY_PHPRANK.test(text)) {
		failInput(
			context,
			`${field} holds a character phpRank refuses (a space, | ^ " < >); got ${quoted(value)}`,
			'Write it percent-encoded: a space as %20, | as %7C, ^ as %5E, " as %22, < as %3C, > as %3E.',
		);
	}
	if (url === undefined || url.hostname === '') {
		failInput(
			context,
			`${field} must be an absolute http(s) address such as https://example.com/page; got ${quoted(value)}`,
		);
	}
	return text as string;
}

export function parseSeconds(context: NodeContext, field: string, value: unknown): number {
	const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
		failInput(context, `${field} must be a number of seconds, 0 or more; got ${quoted(value)}`);
	}
	return seconds;
}

export function parseBoolean(context: NodeContext, field: string, value: unknown): boolean {
	if (value === true || value === 'true' || value === 1 || value === '1') return true;
	if (value === false || value === 'false' || value === 0 || value === '0') return false;
	return failInput(context, `${field} must be true or false; got ${quoted(value)}`);
}

export function requirePassword(context: NodeContext, value: unknown): string {
	if (typeof value !== 'string' || value === '') {
		failInput(
			context,
			'Password is required when Privacy is Password (2)',
			'Set the report page password, or choose the Public or Private privacy.',
		);
	}
	return value;
}

function isWellFormedText(text: string): boolean {
	return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

// n8n 2's toPathSegment does the same; n8n 1 lacks it.
export function toPathSegment(value: string | number): string {
	return encodeURIComponent(String(value));
}

interface QueryRule {
	field: string;
	options?: INodePropertyOptions[];
}

export function checkQuery(context: NodeContext, qs: Record<string, unknown>, rules: Record<string, QueryRule>): void {
	for (const [key, value] of Object.entries(qs)) {
		const rule = rules[key];
		if (rule === undefined) continue;
		if (rule.options) qs[key] = parseOption(context, { field: rule.field, options: rule.options }, value);
		else if (typeof value === 'number') qs[key] = String(value);
		else if (typeof value !== 'string') failInput(context, `${rule.field} must be text; got ${quoted(value)}`);
		// A URL encoder pairs half a surrogate pair with the next character: phpRank would get another text.
		else if (!isWellFormedText(value)) failInput(context, `${rule.field} holds a broken character (half of a UTF-16 surrogate pair)`);
	}
}

export function listQueryRules(
	searchByOptions: INodePropertyOptions[],
	sortByOptions: INodePropertyOptions[],
): Record<string, QueryRule> {
	return {
		search: { field: 'Search' },
		search_by: { field: 'Search By', options: searchByOptions },
		sort_by: { field: 'Sort By', options: sortByOptions },
		sort: { field: 'Sort Order', options: SORT_ORDER_OPTIONS },
	};
}

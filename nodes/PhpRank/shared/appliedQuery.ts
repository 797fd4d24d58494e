import { NodeApiError } from 'n8n-workflow';
import type { IDataObject, JsonObject } from 'n8n-workflow';
import type { ErrorContext } from './errors';
import { nodeForErrors } from './secrets';
import { quoted } from './validation';

/**
 * The list parameters phpRank carries into its page links, with the value it applied rather than the one it was
 * sent (it replaces a value it does not apply, and still answers 200), and the field that sets each.
 */
const LIST_PARAMETERS: Record<string, string> = {
	search: 'Search',
	search_by: 'Search By',
	project: 'Project',
	result: 'Grade',
	sort_by: 'Sort By',
	sort: 'Sort Order',
	per_page: 'Page Size',
};

/** Laravel trims the text it receives (and takes an empty one for none): a search is the same search trimmed. */
const EDGE_SPACE = /^[\s\u200b\0]+|[\s\u200b\0]+$/g;
const TEXT_PARAMETERS = new Set(['search', 'project']);

export interface Replacement {
	parameter: string;
	sent: string;
	applied: string;
}

/** A link of the page: every one carries the same list parameters, so the first there is tells them. */
function pageLink(body: IDataObject): unknown {
	const links = body.links as IDataObject | undefined;
	if (typeof links?.first === 'string') return links.first;
	if (typeof body.first_page_url === 'string') return body.first_page_url;
	const numbered = (body.meta as IDataObject | undefined)?.links;
	return Array.isArray(numbered) ? (numbered as IDataObject[]).find((link) => typeof link?.url === 'string')?.url : undefined;
}

function sameValue(parameter: string, sent: string, applied: string): boolean {
	if (TEXT_PARAMETERS.has(parameter)) return sent.replace(EDGE_SPACE, '') === applied.replace(EDGE_SPACE, '');
	return sent === applied;
}

/**
 * The list parameters phpRank replaced, read from one link of the page it answered. A parameter its links leave out
 * (or a page without links) is one phpRank does not say it replaced: the page is taken as asked for.
 */
export function replacedValues(sent: IDataObject, page: IDataObject): Replacement[] {
	const link = pageLink(page);
	if (typeof link !== 'string') return [];
	let applied: URLSearchParams;
	try {
		applied = new URL(link, 'http://phprank.invalid').searchParams;
	} catch {
		return [];
	}
	const replaced: Replacement[] = [];
	for (const parameter in LIST_PARAMETERS) {
		const value = sent[parameter];
		const used = applied.get(parameter);
		if (value === undefined || value === null || used === null) continue;
		if (!sameValue(parameter, String(value), used)) replaced.push({ parameter, sent: String(value), applied: used });
	}
	return replaced;
}

/** phpRank answered a list with a value of its own in place of one that the node cannot make right. */
export function replacedValueError(context: ErrorContext, { parameter, sent, applied }: Replacement): NodeApiError {
	return new NodeApiError(nodeForErrors(context.getNode()), {} as JsonObject, {
		message: `This phpRank version does not apply ${LIST_PARAMETERS[parameter]} ${quoted(sent)}: it applied ${parameter} ${quoted(applied)} instead; running this row again is safe`,
		description:
			'phpRank answers a list with a value of its own in place of one it does not apply, without an error. The node does not pass that list off as the one asked for: nothing was output or changed. Choose another value, or update phpRank.',
		itemIndex: context.getItemIndex(),
	});
}

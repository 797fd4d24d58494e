/** Requests and answers as phpRank (Laravel on PHP) reads and writes them: JSON for API clients, HTML pages and redirects for browsers. */
import { IncomingMessage, STATUS_CODES } from 'node:http';
import { buffer } from 'node:stream/consumers';
import { RecordedRequest } from './types';

/** What `$request->input()` sees. */
export type Input = Record<string, unknown>;

export type Answer = { status: number; headers: Record<string, string>; body: string };

/** PHP's filter_var(FILTER_VALIDATE_INT): no fractions, no leading zeros. */
export function isPhpInteger(value: unknown): boolean {
	if (typeof value === 'number') return Number.isInteger(value);
	return typeof value === 'string' && /^\s*[+-]?(0|[1-9]\d*)\s*$/.test(value);
}

/** PHP's is_numeric(). */
export function isPhpNumeric(value: unknown): boolean {
	if (typeof value === 'number') return Number.isFinite(value);
	return typeof value === 'string' && /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(value);
}

/** decodeURIComponent, or undefined for a malformed escape. */
export function decode(text: string): string | undefined {
	try {
		return decodeURIComponent(text);
	} catch {
		return undefined;
	}
}

/** A JSON object, form-urlencoded or multipart body; {} for anything else, or when it does not parse. */
async function parseBody(rawBody: string, contentType: string): Promise<Record<string, unknown>> {
	const type = contentType.toLowerCase();
	try {
		if (type.includes('json')) {
			const parsed: unknown = JSON.parse(rawBody);
			return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
		}
		// A repeated field keeps its last value, as PHP does.
		if (type.startsWith('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(rawBody));
		if (!type.startsWith('multipart/form-data')) return {};
		const form = await new Response(rawBody, { headers: { 'content-type': contentType } }).formData();
		const fields: Array<Promise<[string, string]>> = [];
		// An uploaded file is kept as its text.
		form.forEach((value, name) => fields.push(Promise.all([name, typeof value === 'string' ? value : value.text()])));
		return Object.fromEntries(await Promise.all(fields));
	} catch {
		return {};
	}
}

export async function recordRequest(req: IncomingMessage): Promise<RecordedRequest> {
	const [rawPath, ...query] = (req.url ?? '/').split('?');
	const rawQuery = query.join('?');
	// Repeated headers joined with ', ', as Node does for most of them.
	const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, [value].flat().join(', ')]));
	const rawBody = (await buffer(req)).toString('utf8');
	return {
		method: req.method ?? 'GET',
		path: decode(rawPath) ?? rawPath,
		rawPath,
		// A repeated key keeps its last value, as PHP does.
		query: Object.fromEntries(new URLSearchParams(rawQuery)),
		rawQuery,
		headers,
		rawBody,
		body: await parseBody(rawBody, headers['content-type'] ?? ''),
		time: Date.now(),
		remoteAddress: req.socket.remoteAddress ?? '',
	};
}

/**
 * What `$request->input()` sees: query merged with the body, through Laravel's TrimStrings and
 * ConvertEmptyStringsToNull middleware (passwords are not trimmed). JSON is read for any method, but PHP and
 * Symfony only parse form bodies on POST, PUT, PATCH and DELETE, and multipart bodies on POST alone.
 */
export function requestInput(record: RecordedRequest): Input {
	const type = (record.headers['content-type'] ?? '').toLowerCase();
	const formMethods = type.startsWith('multipart/') ? ['POST'] : ['POST', 'PUT', 'PATCH', 'DELETE'];
	const body = type.includes('json') || formMethods.includes(record.method) ? record.body : {};
	const input: Input = {};
	for (const [key, value] of Object.entries({ ...record.query, ...body })) {
		const trimmed = typeof value === 'string' && key !== 'password' ? value.trim() : value;
		input[key] = trimmed === '' ? null : trimmed;
	}
	return input;
}

/** The bodies phpRank answers for each error status; statuses it never answers get a generic one. */
const ERROR_BODIES: Record<number, object> = {
	401: { message: 'Unauthenticated.' },
	403: { message: 'This action is unauthorized.' },
	404: { message: 'Resource not found.', status: 404 },
	429: { message: 'Too Many Attempts.' },
	500: { message: 'An unexpected error has occurred, please try again.', status: 500 },
};

export const errorBody = (status: number) => ERROR_BODIES[status] ?? { message: STATUS_CODES[status] ?? 'Error', status };

/** An error a handler raises; how it is written depends on whether the client expects JSON. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly body: unknown = errorBody(status),
		readonly headers: Record<string, string> = {},
	) {
		super(`phpRank answered ${status}`);
	}
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): Answer {
	return { status, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(value) };
}

export function html(status: number, markup: string, headers: Record<string, string> = {}): Answer {
	return { status, headers: { 'Content-Type': 'text/html; charset=UTF-8', ...headers }, body: markup };
}

const escapeHtml = (text: string) =>
	text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#039;' })[c] as string);

/** Symfony's RedirectResponse body. */
export function redirect(location: string, status = 302): Answer {
	const target = escapeHtml(location);
	const page = `<!DOCTYPE html>
<html>
    <head>
        <meta charset="UTF-8" />
        <meta http-equiv="refresh" content="0;url='${target}'" />

        <title>Redirecting to ${target}</title>
    </head>
    <body>
        Redirecting to <a href="${target}">${target}</a>.
    </body>
</html>`;
	return html(status, page, { Location: location });
}

export function htmlPage(title: string, message: string): string {
	return `<!DOCTYPE html>
<html lang="en">
    <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>${escapeHtml(title)}</title>
    </head>
    <body>
        <div class="flex-center position-ref full-height">
            <div class="message">${escapeHtml(message)}</div>
        </div>
    </body>
</html>`;
}

const PAGE_TITLES: Record<number, string> = { 403: 'Forbidden', 429: 'Too Many Requests', 500: 'Server Error' };

export function errorPage(status: number, headers: Record<string, string> = {}): Answer {
	const title = PAGE_TITLES[status] ?? STATUS_CODES[status] ?? 'Error';
	return html(status, htmlPage(title, `${status} | ${title}`), headers);
}

/**
 * What phpRank answers when it fails as a whole (its database down): Laravel's generic 500, pretty-printed JSON without
 * `status` when JSON is accepted, its error page otherwise.
 */
export function serverFailure(negotiation: Pick<Negotiation, 'expectsJson'>): Answer {
	if (!negotiation.expectsJson) return errorPage(500);
	return { status: 500, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ message: 'Server Error' }, null, 4) };
}

/** What decides how an error is written; `baseUrl` is the application's, where the login page lives. */
export type Negotiation = { expectsJson: boolean; baseUrl: string; referer?: string };

/**
 * Laravel only answers JSON when the client asks for it; browsers get the login redirect for 401,
 * a redirect back for validation failures and an error page for everything else.
 */
export function renderError(error: ApiError, negotiation: Negotiation): Answer {
	if (negotiation.expectsJson) return json(error.status, error.body, error.headers);
	if (error.status === 401) return redirect(`${negotiation.baseUrl}/login`);
	if (error.status === 422) return redirect(negotiation.referer || negotiation.baseUrl);
	return errorPage(error.status, error.headers);
}

/** Laravel's Request::expectsJson(). */
export function expectsJson(headers: Record<string, string>): boolean {
	const acceptable = (headers.accept ?? '').split(',').map((entry) => {
		const [type, ...parameters] = entry.split(';').map((part) => part.trim());
		const q = parameters.find((parameter) => parameter.startsWith('q='));
		return { type: type.toLowerCase(), quality: q ? Number(q.slice(2)) || 0 : 1 };
	});
	// By quality, and in the header's order among equals (the sort is stable).
	const first = acceptable.filter((entry) => entry.type !== '').sort((a, b) => b.quality - a.quality)[0]?.type;
	if (first && (first.includes('/json') || first.includes('+json'))) return true;
	// An XMLHttpRequest that accepts anything gets JSON too.
	return headers['x-requested-with'] === 'XMLHttpRequest' && (first === undefined || first === '*/*' || first === '*');
}

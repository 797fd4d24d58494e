/** Answers as phpRank (Laravel) writes them: JSON for API clients, HTML pages and redirects for browsers. */
import { STATUS_CODES } from 'node:http';

export interface Answer {
	status: number;
	headers: Record<string, string>;
	body: string;
}

const JSON_TYPE = 'application/json';
const HTML_TYPE = 'text/html; charset=UTF-8';

export const MESSAGES = {
	unauthenticated: 'Unauthenticated.',
	unauthorized: 'This action is unauthorized.',
	notFound: 'Resource not found.',
	tooManyAttempts: 'Too Many Attempts.',
	unexpected: 'An unexpected error has occurred, please try again.',
} as const;

/** The bodies phpRank answers for each error status; statuses it never answers get a generic one. */
export function errorBody(status: number): Record<string, unknown> {
	switch (status) {
		case 401:
			return { message: MESSAGES.unauthenticated };
		case 403:
			return { message: MESSAGES.unauthorized };
		case 404:
			return { message: MESSAGES.notFound, status };
		case 429:
			return { message: MESSAGES.tooManyAttempts };
		case 500:
			return { message: MESSAGES.unexpected, status };
		default:
			return { message: STATUS_CODES[status] ?? 'Error', status };
	}
}

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

export function validationError(errors: Record<string, string[]>): ApiError {
	return new ApiError(422, { message: errors, status: 422 });
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): Answer {
	return { status, headers: { 'Content-Type': JSON_TYPE, ...headers }, body: JSON.stringify(value) };
}

export function html(status: number, markup: string, headers: Record<string, string> = {}): Answer {
	return { status, headers: { 'Content-Type': HTML_TYPE, ...headers }, body: markup };
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

const PAGE_TITLES: Record<number, string> = { 403: 'Forbidden', 429: 'Too Many Requests', 500: 'Server Error' };

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

export function errorPage(status: number, headers: Record<string, string> = {}): Answer {
	const title = PAGE_TITLES[status] ?? STATUS_CODES[status] ?? 'Error';
	return html(status, htmlPage(title, `${status} | ${title}`), headers);
}

export interface Negotiation {
	expectsJson: boolean;
	/** Application base URL, where the login page lives. */
	baseUrl: string;
	referer?: string;
}

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
	const acceptable = (headers.accept ?? '')
		.split(',')
		.map((entry, index) => {
			const [type, ...parameters] = entry.split(';').map((part) => part.trim());
			const q = parameters.find((parameter) => parameter.startsWith('q='));
			return { type: type.toLowerCase(), quality: q ? Number(q.slice(2)) || 0 : 1, index };
		})
		.filter((entry) => entry.type !== '')
		.sort((a, b) => b.quality - a.quality || a.index - b.index);
	const first = acceptable[0]?.type;
	if (first && (first.includes('/json') || first.includes('+json'))) return true;
	const ajax = headers['x-requested-with'] === 'XMLHttpRequest';
	return ajax && (first === undefined || first === '*/*' || first === '*');
}

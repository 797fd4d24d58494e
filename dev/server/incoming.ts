/** Reading a request: recorded exactly as received, plus the input Laravel would hand a controller. */
import { IncomingMessage } from 'node:http';
import { RecordedRequest } from './types';

export type Input = Record<string, unknown>;

export async function readBody(req: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString('utf8');
}

function lastWins(params: URLSearchParams): Record<string, string> {
	const values: Record<string, string> = {};
	params.forEach((value, key) => {
		values[key] = value;
	});
	return values;
}

function decodePath(rawPath: string): string {
	try {
		return decodeURIComponent(rawPath);
	} catch {
		return rawPath;
	}
}

function parseMultipart(rawBody: string, contentType: string): Record<string, string> {
	const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
	if (!boundary) return {};
	const fields: Record<string, string> = {};
	for (const part of rawBody.split(`--${boundary[1] ?? boundary[2]}`)) {
		const split = part.indexOf('\r\n\r\n');
		if (split < 0) continue;
		const name = /name="([^"]*)"/i.exec(part.slice(0, split));
		if (name) fields[name[1]] = part.slice(split + 4).replace(/\r\n$/, '');
	}
	return fields;
}

function parseBody(rawBody: string, contentType: string): Record<string, unknown> {
	if (!rawBody) return {};
	const type = contentType.toLowerCase();
	if (type.includes('json')) {
		try {
			const parsed: unknown = JSON.parse(rawBody);
			return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
		} catch {
			return {};
		}
	}
	if (type.startsWith('application/x-www-form-urlencoded')) return lastWins(new URLSearchParams(rawBody));
	if (type.startsWith('multipart/form-data')) return parseMultipart(rawBody, contentType);
	return {};
}

export function recordRequest(req: IncomingMessage, rawBody: string): RecordedRequest {
	const target = req.url ?? '/';
	const queryAt = target.indexOf('?');
	const rawPath = queryAt < 0 ? target : target.slice(0, queryAt);
	const rawQuery = queryAt < 0 ? '' : target.slice(queryAt + 1);
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(req.headers)) {
		if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
	}
	return {
		method: req.method ?? 'GET',
		path: decodePath(rawPath),
		rawPath,
		query: lastWins(new URLSearchParams(rawQuery)),
		rawQuery,
		headers,
		rawBody,
		body: parseBody(rawBody, headers['content-type'] ?? ''),
		time: Date.now(),
		remoteAddress: req.socket.remoteAddress ?? '',
	};
}

/** Laravel's TrimStrings and ConvertEmptyStringsToNull middleware; passwords are not trimmed. */
export function laravelInput(values: Record<string, unknown>): Input {
	const input: Input = {};
	for (const [key, value] of Object.entries(values)) {
		const trimmed = typeof value === 'string' && key !== 'password' ? value.trim() : value;
		input[key] = trimmed === '' ? null : trimmed;
	}
	return input;
}

/**
 * What `$request->input()` sees: query merged with the body. JSON is read for any method, but PHP and
 * Symfony only parse form bodies on POST, PUT, PATCH and DELETE, and multipart bodies on POST alone.
 */
export function requestInput(record: RecordedRequest): Input {
	const type = (record.headers['content-type'] ?? '').toLowerCase();
	const formMethods = type.startsWith('multipart/') ? ['POST'] : ['POST', 'PUT', 'PATCH', 'DELETE'];
	const body = type.includes('json') || formMethods.includes(record.method) ? record.body : {};
	return laravelInput({ ...record.query, ...body });
}

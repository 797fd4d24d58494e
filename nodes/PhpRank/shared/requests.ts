import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';
import type { RequestData } from './operations';

interface RequestChange {
	method: 'GET' | 'PUT';
	url: string;
	qs?: IDataObject;
	body?: IDataObject;
}

/**
 * Another request in the course of an operation (a lookup before a create, a read before an update):
 * to the same phpRank, with the same timeout, proxy and allowed domains as the one n8n prepared.
 */
export function relatedRequest(options: RequestData['options'], { method, url, qs = {}, body }: RequestChange): IHttpRequestOptions {
	const headers: IDataObject = { ...(options.headers as IDataObject | undefined) };
	const related: IHttpRequestOptions = { ...(options as IHttpRequestOptions), method, url, qs, headers };
	if (body === undefined) {
		delete related.body;
		delete headers['Content-Type'];
	} else {
		related.body = body;
	}
	return related;
}

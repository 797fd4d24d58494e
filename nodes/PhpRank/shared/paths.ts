import type { IExecuteSingleFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { parseProjectName, parseReportId, toPathSegment } from './validation';

export async function setReportPath(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const reportId = parseReportId(this, this.getNodeParameter('reportId', undefined, { extractValue: true }));
	return { ...requestOptions, url: `/reports/${toPathSegment(reportId)}` };
}

export async function setProjectPath(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const projectName = parseProjectName(this, this.getNodeParameter('projectName', undefined, { extractValue: true }));
	return { ...requestOptions, url: `/projects/${toPathSegment(projectName)}` };
}

import type {
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { PhpRankClient } from '../../shared/client';
import type { RequestData } from '../../shared/client';
import { filtersCollection, gradeFilter, projectFilter, searchFields, REPORT_ITEM_FOR_AGENTS } from '../../shared/descriptions';
import { updateDisplayOptions } from '../../shared/displayOptions';
import { GRADE_OPTIONS } from '../../shared/grade';
import { reportShapeOf, shapeReport } from '../../shared/items';
import { readList } from '../../shared/pagination';
import type { Order } from '../../shared/pagination';
import { checkQuery, listQueryRules } from '../../shared/validation';
import { REPORT_SEARCH_BY_OPTIONS, REPORT_SORT_BY_OPTIONS } from '../../shared/values';

const showOnlyForReportGetMany = { resource: ['report'], operation: ['getAll'] };

const reportFilters: INodeProperties[] = [
	...searchFields(REPORT_SEARCH_BY_OPTIONS, 'reports whose URL'),
	{ ...projectFilter('reports'), routing: { send: { type: 'query', property: 'project' } } },
	{ ...gradeFilter('reports'), routing: { send: { type: 'query', property: 'result' } } },
];

export const reportGetManyDescription = updateDisplayOptions({ show: showOnlyForReportGetMany }, [filtersCollection(reportFilters)]);

async function validateReportListQuery(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const qs = (requestOptions.qs ?? {}) as IDataObject;
	if (qs.project === '') delete qs.project;
	checkQuery(this, qs, {
		...listQueryRules(REPORT_SEARCH_BY_OPTIONS, REPORT_SORT_BY_OPTIONS),
		project: { field: 'Project' },
		result: { field: 'Grade', options: GRADE_OPTIONS },
	});
	return requestOptions;
}

export const reportGetManyOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many reports',
	description: 'Get many reports',
	routing: {
		request: { method: 'GET', url: '/reports' },
		// paginate hands the prepared request to getReports, which reads its pages through the client (see PhpRankClient.forItem).
		send: { paginate: true, preSend: [validateReportListQuery] },
		operations: { pagination: getReports },
	},
};

function compare(a: number, b: number): number {
	return a < b ? -1 : a > b ? 1 : 0;
}

function generatedAt(report: IDataObject): number {
	const time = Date.parse(String(report.generated_at));
	return Number.isNaN(time) ? -Infinity : time;
}

/** phpRank's order by generated_at, ties by id, for a phpRank whose API does not sort by it (1.5 sorts by id instead). */
const byGeneration: Order = (a, b) => compare(generatedAt(a), generatedAt(b)) || compare(Number(a.id), Number(b.id));

async function getReports(this: IExecutePaginationFunctions, requestData: RequestData): Promise<INodeExecutionData[]> {
	const client = PhpRankClient.forItem(this, requestData);
	const shape = reportShapeOf(this, await client.site());
	return await readList(this, client, (record) => shapeReport(record, shape), { generated_at: byGeneration });
}

export const reportGetManyForAgents = `List phpRank SEO reports, newest first; they can be filtered by grade (good, decent, bad), by project name and by a search in their URL. Returns one item per report: id (the report ID the other phpRank report tools take), ${REPORT_ITEM_FOR_AGENTS}.`;

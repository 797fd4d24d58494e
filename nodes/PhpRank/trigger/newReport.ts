import type { IDataObject, INodeExecutionData, INodeProperties, IPollFunctions } from 'n8n-workflow';
import { gradeFilter, projectFilter } from '../shared/descriptions';
import { listTarget } from '../shared/errors';
import { GRADE_OPTIONS } from '../shared/grade';
import { shapeReport } from '../shared/items';
import { asItem } from '../shared/client';
import { parseOption } from '../shared/validation';
import { polledList, readNewestPage, scanNewestFirst } from './scan';

const showOnlyForNewReport = { event: ['newReport'] };

export const newReportProperties: INodeProperties[] = [
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show: showOnlyForNewReport },
		options: [gradeFilter('reports'), projectFilter('reports')],
	},
];

/** The trigger's place, kept in the workflow's static data. */
interface NewReportState {
	lastReportId?: number;
}

function projectName(value: unknown): string {
	const name = typeof value === 'object' && value !== null ? (value as IDataObject).value : value;
	return name === undefined || name === null ? '' : String(name);
}

function reportQuery(context: IPollFunctions): IDataObject {
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	const query: IDataObject = { sort_by: 'id', sort: 'desc' };
	if (filters.grade !== undefined && filters.grade !== '') {
		query.result = parseOption(asItem(context), { field: 'Grade', options: GRADE_OPTIONS }, filters.grade);
	}
	const project = projectName(filters.project);
	if (project !== '') query.project = project;
	return query;
}

export async function pollNewReports(context: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const list = polledList(context, { url: '/reports', query: reportQuery(context), target: listTarget('report') });
	const site = await list.client.site();
	const toItem = (report: IDataObject): INodeExecutionData => ({ json: shapeReport(report, { omitResults: false, site }) });
	const state = context.getWorkflowStaticData('node') as NewReportState;
	if (context.getMode() === 'manual' || state.lastReportId === undefined) {
		const [latest] = (await readNewestPage(list, { page: 1, perPage: 10 })).records;
		if (context.getMode() === 'manual') return latest ? [[toItem(latest)]] : null;
		// Activation starts from here: history is not replayed.
		state.lastReportId = latest ? Number(latest.id) : 0;
		return null;
	}
	const lastReportId = state.lastReportId;
	const seen = (report: IDataObject) => Number(report.id) <= lastReportId;
	const fresh = await scanNewestFirst(context, list, {
		isSeen: seen,
		isOlder: seen,
		keyOf: (report) => String(report.id),
	});
	if (fresh.length === 0) return null;
	state.lastReportId = Math.max(lastReportId, ...fresh.map((report) => Number(report.id)));
	return [fresh.reverse().map(toItem)];
}

import type { IDataObject, INodeExecutionData, INodeProperties, IPollFunctions } from 'n8n-workflow';
import { projectFilterField } from '../shared/descriptions';
import { listSubject, withGrade } from '../shared/responses';
import { parseOption } from '../shared/validation';
import { RESULT_OPTIONS } from '../shared/values';
import { pollContext, readPage, scanNewestFirst } from './scan';

const showOnlyForNewReport = { event: ['newReport'] };

export const newReportProperties: INodeProperties[] = [
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show: showOnlyForNewReport },
		options: [
			{
				displayName: 'Grade',
				name: 'grade',
				type: 'options',
				options: RESULT_OPTIONS,
				default: 'bad',
				description: 'Only reports with this grade, e.g. Bad to be told about pages that need work',
			},
			projectFilterField('reports'),
		],
	},
];

interface NewReportState {
	lastReportId?: number;
}

function reportQuery(context: IPollFunctions): IDataObject {
	const filters = context.getNodeParameter('filters', {}) as IDataObject;
	const query: IDataObject = { sort_by: 'id', sort: 'desc' };
	if (filters.grade !== undefined && filters.grade !== '') {
		query.result = parseOption(pollContext(context), 'Grade', filters.grade, RESULT_OPTIONS);
	}
	if (filters.project !== undefined && filters.project !== '') query.project = String(filters.project);
	return query;
}

const toItem = (report: IDataObject): INodeExecutionData => ({ json: withGrade(report) });

export async function pollNewReports(context: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const query = reportQuery(context);
	const subject = listSubject('report');
	const state = context.getWorkflowStaticData('node') as NewReportState;
	if (context.getMode() === 'manual' || state.lastReportId === undefined) {
		const [latest] = (await readPage(context, '/reports', { ...query, per_page: 10, page: 1 }, subject)).data;
		if (context.getMode() === 'manual') return latest ? [[toItem(latest)]] : null;
		// Activation starts from here: history is not replayed.
		state.lastReportId = latest ? Number(latest.id) : 0;
		return null;
	}
	const lastReportId = state.lastReportId;
	const seen = (report: IDataObject) => Number(report.id) <= lastReportId;
	const fresh = await scanNewestFirst(context, '/reports', query, subject, {
		isSeen: seen,
		isOlder: seen,
		keyOf: (report) => String(report.id),
	});
	if (fresh.length === 0) return null;
	state.lastReportId = Math.max(lastReportId, ...fresh.map((report) => Number(report.id)));
	return [fresh.reverse().map(toItem)];
}

import { REPORT_ITEM_FOR_AGENTS } from '../../shared/descriptions';
import { operation, returnReport } from '../../shared/operations';
import { setReportPath } from '../../shared/paths';

export const reportGetOperation = operation(
	{
		name: 'Get',
		value: 'get',
		action: 'Get a report by ID',
		description: 'Get a report',
	},
	{ request: { method: 'GET' }, run: returnReport, preSend: [setReportPath] },
);

export const reportGetForAgents = `Get one phpRank SEO report by its numeric report ID (the id that creating or listing reports returns). Returns the report: ${REPORT_ITEM_FOR_AGENTS}.`;

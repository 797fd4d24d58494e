import { operation, returnReport } from '../../shared/operations';
import { setReportPath } from '../../shared/paths';

export const reportGetOperation = operation(
	{
		name: 'Get',
		value: 'get',
		action: 'Get a report by ID',
		description: 'Get a report',
	},
	{ method: 'GET' },
	returnReport,
	[setReportPath],
);

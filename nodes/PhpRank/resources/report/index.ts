import type { INodeProperties } from 'n8n-workflow';
import { readReportPages } from '../../shared/pagination';
import { setReportPath } from '../../shared/paths';
import { returnDeletion, returnReport } from '../../shared/requests';
import { FORM_HEADERS } from '../../shared/transport';
import { reportCreateDescription, validateReportCreate } from './create';
import { reportDeleteDescription } from './delete';
import { reportGetDescription } from './get';
import { reportGetManyDescription, validateReportListQuery } from './getAll';
import { reportUpdateDescription, validateReportUpdate } from './update';

const showOnlyForReports = { resource: ['report'] };

export const reportDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: showOnlyForReports },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create a report',
				description:
					'Analyse a web page and create its SEO report. Returns the report with its score (result, 0-100), grade (good, decent or bad) and per-check results.',
				routing: {
					request: { method: 'POST', url: '/reports', headers: FORM_HEADERS },
					send: { paginate: true, preSend: [validateReportCreate] },
					operations: { pagination: returnReport },
				},
			},
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete a report',
				description: 'Delete a report by its ID. Returns the deleted flag and the report ID.',
				routing: {
					request: { method: 'DELETE' },
					send: { paginate: true, preSend: [setReportPath] },
					operations: { pagination: returnDeletion },
				},
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get a report',
				description: 'Get one report by its ID, with its score, grade and per-check results',
				routing: {
					request: { method: 'GET' },
					send: { paginate: true, preSend: [setReportPath] },
					operations: { pagination: returnReport },
				},
			},
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many reports',
				description:
					'List reports, newest first by default, filtered by URL text, project or grade. Returns one item per report with its ID, URL, score (result) and grade.',
				routing: {
					request: { method: 'GET', url: '/reports' },
					send: { paginate: true, preSend: [validateReportListQuery] },
					operations: { pagination: readReportPages },
				},
			},
			{
				name: 'Update',
				value: 'update',
				action: 'Update a report',
				description: 'Change a report\'s privacy or password, or analyse its page again. Returns the updated report.',
				routing: {
					request: { method: 'PUT', headers: FORM_HEADERS },
					send: { paginate: true, preSend: [setReportPath, validateReportUpdate] },
					operations: { pagination: returnReport },
				},
			},
		],
		default: 'create',
	},
	...reportCreateDescription,
	...reportGetDescription,
	...reportGetManyDescription,
	...reportUpdateDescription,
	...reportDeleteDescription,
];

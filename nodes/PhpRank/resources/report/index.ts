import type { INodeProperties } from 'n8n-workflow';
import { reportIdLocator, toolDescriptions } from '../../shared/descriptions';
import { updateDisplayOptions } from '../../shared/displayOptions';
import { pairingFailures } from '../../shared/itemFailures';
import { reportChoicesDescription, reportCreateDescription, reportCreateForAgents, reportCreateOperation } from './create';
import { reportDeleteForAgents, reportDeleteOperation } from './delete';
import { reportGetForAgents, reportGetOperation } from './get';
import { reportGetManyDescription, reportGetManyForAgents, reportGetManyOperation } from './getAll';
import { reportOptions } from './options';
import { reportReanalyzeForAgents, reportReanalyzeOperation } from './reanalyze';
import { reportUpdateDescription, reportUpdateForAgents, reportUpdateOperation } from './update';

const showOnlyForReports = { resource: ['report'] };

const showOnlyForOneReport = { resource: ['report'], operation: ['get', 'update', 'reanalyze', 'delete'] };

export const reportOperations: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: showOnlyForReports },
	options: [reportCreateOperation, reportDeleteOperation, reportGetOperation, reportGetManyOperation, reportReanalyzeOperation, reportUpdateOperation].map(pairingFailures),
	default: 'create',
};

export const reportToolDescriptions = toolDescriptions('report', {
	create: reportCreateForAgents,
	get: reportGetForAgents,
	getAll: reportGetManyForAgents,
	reanalyze: reportReanalyzeForAgents,
	update: reportUpdateForAgents,
	delete: reportDeleteForAgents,
});

export const reportFields: INodeProperties[] = [
	...reportCreateDescription,
	...reportChoicesDescription,
	...updateDisplayOptions({ show: showOnlyForOneReport }, [reportIdLocator]),
	...reportUpdateDescription,
	...reportGetManyDescription,
	reportOptions,
];

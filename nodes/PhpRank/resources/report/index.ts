import type { INodeProperties } from 'n8n-workflow';
import { reportIdLocator } from '../../shared/descriptions';
import { updateDisplayOptions } from '../../shared/displayOptions';
import { reportCreateDescription, reportCreateOperation } from './create';
import { reportDeleteOperation } from './delete';
import { reportGetOperation } from './get';
import { reportGetManyDescription, reportGetManyOperation } from './getAll';
import { reportUpdateDescription, reportUpdateOperation } from './update';

const showOnlyForReports = { resource: ['report'] };

const showOnlyForOneReport = { resource: ['report'], operation: ['get', 'update', 'delete'] };

export const reportOperations: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: showOnlyForReports },
	options: [reportCreateOperation, reportDeleteOperation, reportGetOperation, reportGetManyOperation, reportUpdateOperation],
	default: 'create',
};

export const reportFields: INodeProperties[] = [
	...reportCreateDescription,
	...updateDisplayOptions({ show: showOnlyForOneReport }, [reportIdLocator]),
	...reportUpdateDescription,
	...reportGetManyDescription,
];

import type { INodeProperties } from 'n8n-workflow';
import { toolDescriptions } from '../../shared/descriptions';
import { pairingFailures } from '../../shared/itemFailures';
import { siteAuditDescription, siteAuditForAgents, siteAuditOperation } from './audit';

export const siteOperations: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['site'] } },
	options: [siteAuditOperation].map(pairingFailures),
	default: 'audit',
};

export const siteToolDescriptions = toolDescriptions('site', { audit: siteAuditForAgents });

// Its Options are Report's collection (report/options.ts): one collection declared costs each item less than two.
export const siteFields: INodeProperties[] = [...siteAuditDescription];

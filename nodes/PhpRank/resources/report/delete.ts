import type { INodeProperties } from 'n8n-workflow';
import { reportIdLocator } from '../../shared/descriptions';
import { updateDisplayOptions } from '../../shared/displayOptions';

const showOnlyForReportDelete = { resource: ['report'], operation: ['delete'] };

const properties: INodeProperties[] = [reportIdLocator];

export const reportDeleteDescription = updateDisplayOptions({ show: showOnlyForReportDelete }, properties);

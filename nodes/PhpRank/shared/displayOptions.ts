import * as workflow from 'n8n-workflow';
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

function mergeDisplayOptions(displayOptions: IDisplayOptions, properties: INodeProperties[]): INodeProperties[] {
	return properties.map((property) => ({
		...property,
		displayOptions: {
			...property.displayOptions,
			show: { ...displayOptions.show, ...property.displayOptions?.show },
			...(displayOptions.hide || property.displayOptions?.hide
				? { hide: { ...displayOptions.hide, ...property.displayOptions?.hide } }
				: {}),
		},
	}));
}

// n8n-workflow exports updateDisplayOptions from 1.50 on; older n8n 1.x releases get the same merge here.
export const updateDisplayOptions: (displayOptions: IDisplayOptions, properties: INodeProperties[]) => INodeProperties[] =
	(workflow as Partial<typeof workflow>).updateDisplayOptions ?? mergeDisplayOptions;

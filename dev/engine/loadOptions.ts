import { LoadOptionsContext } from 'n8n-core';
import type { INodeListSearchResult, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { deepCopy, NodeHelpers, UserError, Workflow } from 'n8n-workflow';

import { credentialReferences } from './credentials';
import type { NodeOptions } from './instance';
import { createInstance, editorNode } from './instance';
import { latestVersion } from './nodeTypes';

/** `parameters` as the editor holds them (defaults are filled in); `typeVersion` defaults to the type's latest version. */
interface LoadOptionsBase extends NodeOptions {
	/** Name of the method under the node type's `methods.listSearch` / `methods.loadOptions`. */
	name: string;
}

export interface ListSearchOptions extends LoadOptionsBase {
	method: 'listSearch';
	/** What the user typed into the list's search box. */
	filter?: string;
	/** The token the previous page handed out, when the user scrolls to the end of the list. */
	paginationToken?: string;
}

export interface LoadOptionsMethodOptions extends LoadOptionsBase {
	method: 'loadOptions';
}

export type LoadOptionsOptions = ListSearchOptions | LoadOptionsMethodOptions;

// Name and id n8n's server gives the throw-away node it builds for these calls.
const LOAD_OPTIONS_NODE = { id: 'uuid-1234', name: 'Temp-Node' };

/** Where in the node's parameters the editor shows the field that calls the method. */
function pathOfMethod(properties: INodeProperties[], options: LoadOptionsOptions, prefix = 'parameters'): string | undefined {
	for (const property of properties) {
		const path = `${prefix}.${property.name}`;
		const uses =
			options.method === 'loadOptions'
				? property.typeOptions?.loadOptionsMethod === options.name
				: (property.modes ?? []).some((mode) => mode.typeOptions?.searchListMethod === options.name);
		if (uses) return path;
		for (const option of property.options ?? []) {
			const found =
				'values' in option
					? pathOfMethod(option.values, options, `${path}.${option.name}`)
					: 'type' in option && pathOfMethod([option], options, path);
			if (found) return found;
		}
	}
	return undefined;
}

/**
 * Calls a node type's list search (resource locator "From list") or load options (dropdown)
 * method the way n8n's server does for the editor (DynamicNodeParametersService): a
 * workflow with one `Temp-Node` of the type holding the current parameters and credential
 * reference, and n8n-core's LoadOptionsContext as `this`. Real HTTP for every request.
 * Resolves with what the method returns; rejects with what it throws. The end-to-end
 * suite compares this with n8n's server.
 */
export async function loadOptions(options: ListSearchOptions): Promise<INodeListSearchResult>;
export async function loadOptions(options: LoadOptionsMethodOptions): Promise<INodePropertyOptions[]>;
export async function loadOptions(options: LoadOptionsOptions): Promise<INodeListSearchResult | INodePropertyOptions[]> {
	const { method, name, type = 'n8n-nodes-phprank.phpRank' } = options;
	const { nodeTypes, additionalData } = createInstance(options);
	const typeVersion = options.typeVersion ?? latestVersion(NodeHelpers.getVersionedNodeType(nodeTypes.getByName(type)).description);
	const nodeType = nodeTypes.getByNameAndVersion(type, typeVersion);
	const implementation = nodeType.methods?.[method]?.[name] as ((this: LoadOptionsContext, ...args: unknown[]) => unknown) | undefined;
	// n8n's server answers with the same when the editor asks for a method the type lacks.
	if (typeof implementation !== 'function') throw new UserError(`Node type does not have method defined: ${method}.${name} on ${type}`);

	// The editor sends the node's parameters as it shows them: every visible one, defaults included.
	const references = credentialReferences(options.credentials);
	const node = editorNode(nodeType, { ...LOAD_OPTIONS_NODE, type, typeVersion, ...references }, options.parameters);
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	// n8n builds these calls' additional data without an execution (getBase), with the parameters.
	const data = { ...additionalData(), currentNodeParameters: deepCopy(node.parameters) };
	const path = pathOfMethod(nodeType.description.properties, options) ?? 'parameters';
	const context = new LoadOptionsContext(workflow, workflow.nodes[node.name], data, path);
	const args = options.method === 'listSearch' ? [options.filter, options.paginationToken] : [];
	return (await implementation.call(context, ...args)) as INodeListSearchResult | INodePropertyOptions[];
}

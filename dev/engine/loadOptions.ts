import { LoadOptionsContext } from 'n8n-core';
import type {
	INode,
	INodeCredentials,
	INodeListSearchResult,
	INodeParameters,
	INodeProperties,
	INodePropertyOptions,
	INodeType,
} from 'n8n-workflow';
import { deepCopy, NodeHelpers, UserError, Workflow } from 'n8n-workflow';

import type { CredentialsData, CredentialTypesOptions } from './credentials';
import { HarnessCredentialsHelper, HarnessCredentialTypes, referenceCredentials } from './credentials';
import type { NodeTypesOptions } from './nodeTypes';
import { HarnessNodeTypes } from './nodeTypes';
import { createAdditionalData } from './run';
import { ensureEngine } from './setup';

interface LoadOptionsBase extends NodeTypesOptions, CredentialTypesOptions {
	/** Name of the method under the node type's `methods.listSearch` / `methods.loadOptions`. */
	name: string;
	/** The node's current parameters, as the editor holds them (defaults are filled in). */
	parameters?: INodeParameters;
	/** Decrypted credential data by credential type, as the instance would hold it. */
	credentials?: CredentialsData;
	/**
	 * Credentials referenced on the node; by default every type given in
	 * `credentials` is referenced, as if selected in the node's credential field.
	 */
	nodeCredentials?: INodeCredentials;
	/** Full node type name. */
	type?: string;
	/** Defaults to the type's latest version. */
	typeVersion?: number;
	/**
	 * Path of the parameter the editor asks for, e.g. `parameters.reportId`; by default the
	 * first parameter of the node type that uses the method.
	 */
	path?: string;
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

/** Node name and id n8n's server gives the throw-away node it builds for these calls. */
export const LOAD_OPTIONS_NODE_NAME = 'Temp-Node';
const LOAD_OPTIONS_NODE_ID = 'uuid-1234';

function latestVersion(nodeType: INodeType): number {
	const { version } = nodeType.description;
	return Array.isArray(version) ? Math.max(...version) : version;
}

/** Where in the node's parameters the editor shows the field that calls the method. */
function pathOfMethod(
	properties: INodeProperties[],
	method: LoadOptionsOptions['method'],
	name: string,
	prefix = 'parameters',
): string | undefined {
	for (const property of properties) {
		const path = `${prefix}.${property.name}`;
		const uses =
			method === 'loadOptions'
				? property.typeOptions?.loadOptionsMethod === name
				: (property.modes ?? []).some((mode) => mode.typeOptions?.searchListMethod === name);
		if (uses) return path;
		for (const option of property.options ?? []) {
			if ('values' in option) {
				const found = pathOfMethod(option.values, method, name, `${path}.${option.name}`);
				if (found) return found;
			} else if ('type' in option) {
				const found = pathOfMethod([option], method, name, path);
				if (found) return found;
			}
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
export async function loadOptions(
	options: LoadOptionsOptions,
): Promise<INodeListSearchResult | INodePropertyOptions[]> {
	ensureEngine();

	const { method, name, type = 'n8n-nodes-phprank.phpRank' } = options;
	const nodeTypes = new HarnessNodeTypes(options);
	const credentialsHelper = new HarnessCredentialsHelper(
		new HarnessCredentialTypes(options),
		options.credentials,
	);

	const typeVersion =
		options.typeVersion ?? latestVersion(NodeHelpers.getVersionedNodeType(nodeTypes.getByName(type)));
	const nodeType = nodeTypes.getByNameAndVersion(type, typeVersion);
	const implementation = nodeType.methods?.[method]?.[name] as
		| ((this: LoadOptionsContext, ...args: unknown[]) => Promise<unknown>)
		| undefined;
	if (typeof implementation !== 'function') {
		// n8n's server answers with the same when the editor asks for a method the type lacks.
		throw new UserError(`Node type does not have method defined: ${method}.${name} on ${type}`);
	}

	const credentials =
		options.nodeCredentials ?? referenceCredentials(options.credentials);
	const node: INode = {
		id: LOAD_OPTIONS_NODE_ID,
		name: LOAD_OPTIONS_NODE_NAME,
		type,
		typeVersion,
		position: [0, 0],
		parameters: {},
		...(Object.keys(credentials).length > 0 && { credentials }),
	};
	// The editor sends the node's parameters as it shows them: every visible one, defaults included.
	const currentNodeParameters =
		NodeHelpers.getNodeParameters(
			nodeType.description.properties,
			deepCopy(options.parameters ?? {}),
			true,
			false,
			node,
			nodeType.description,
		) ?? deepCopy(options.parameters ?? {});
	node.parameters = currentNodeParameters;

	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });

	const additionalData = createAdditionalData(credentialsHelper, '');
	// n8n builds these calls' additional data without an execution (getBase), with the parameters.
	delete additionalData.executionId;
	additionalData.currentNodeParameters = deepCopy(currentNodeParameters);

	const path =
		options.path ?? pathOfMethod(nodeType.description.properties, method, name) ?? 'parameters';
	const context = new LoadOptionsContext(
		workflow,
		workflow.nodes[LOAD_OPTIONS_NODE_NAME],
		additionalData,
		path,
	);

	if (options.method === 'listSearch') {
		return (await implementation.call(
			context,
			options.filter,
			options.paginationToken,
		)) as INodeListSearchResult;
	}
	return (await implementation.call(context)) as INodePropertyOptions[];
}

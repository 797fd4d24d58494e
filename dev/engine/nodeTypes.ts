import { DirectoryLoader, RoutingNode } from 'n8n-core';
import type { ExecuteContext } from 'n8n-core';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeHelpers, UserError } from 'n8n-workflow';

import {
	BASE_PACKAGE_NAME,
	basePackageLoader,
	ownPackageLoader,
	ownPackageName,
	splitTypeName,
} from './loaders';
import { rememberThrownError } from './thrownErrors';

export interface NodeTypesOptions {
	/**
	 * Node types to serve besides the package's own and n8n-nodes-base, keyed by
	 * the full type name workflows refer to them by (e.g. `test.echo`).
	 */
	nodeTypes?: Record<string, INodeType | IVersionedNodeType>;
}

const TOOL_SUFFIX = 'Tool';

type Execute = NonNullable<INodeType['execute']>;

// The option names n8n's loader puts into a declarative node's "requestOptions".
function standardRequestOptionNames(): string[] {
	const probe = {
		description: { properties: [] as INodeProperties[], inputs: [], outputs: [] },
	} as unknown as INodeType;
	DirectoryLoader.applyDeclarativeNodeOptionParameters(probe);
	const added = probe.description.properties.find(({ name }) => name === 'requestOptions');
	return (added?.options ?? []).map((option) => option.name);
}

/**
 * n8n adds the standard declarative "request options" to a node type when it
 * loads it; a type handed in directly gets the same. n8n's helper is not
 * idempotent, and test types are often reused or derived from one another.
 */
function prepareExtraType(type: INodeType | IVersionedNodeType): void {
	const versions = 'nodeVersions' in type ? Object.values(type.nodeVersions) : [type];
	const standard = standardRequestOptionNames();
	for (const version of versions) {
		const existing = version.description.properties.find(({ name }) => name === 'requestOptions');
		const existingNames = (existing?.options ?? []).map((option) => option.name);
		if (existing && standard.every((name) => existingNames.includes(name))) continue;
		DirectoryLoader.applyDeclarativeNodeOptionParameters(version);
	}
}

/**
 * n8n runs a declarative node through an `execute` it attaches when serving the
 * type (RoutingNode builds and sends the requests from the description), so
 * declarative nodes and their tool variants go down the same path as
 * programmatic ones.
 */
function needsRoutingExecute(nodeType: INodeType): boolean {
	const isDeclarative = nodeType.description.requestDefaults !== undefined;
	return (
		!nodeType.execute &&
		!nodeType.poll &&
		!nodeType.trigger &&
		(!nodeType.webhook || isDeclarative) &&
		(!nodeType.methods || isDeclarative)
	);
}

function routingExecute(nodeType: INodeType): Execute {
	return async function (this: IExecuteFunctions) {
		const data = await new RoutingNode(this as unknown as ExecuteContext, nodeType).runNode();
		return data ?? [];
	};
}

function recordingThrownErrors(execute: Execute): Execute {
	return async function (this: IExecuteFunctions) {
		try {
			return await execute.call(this);
		} catch (error) {
			rememberThrownError(this.getExecutionId(), this.getNode().name, error);
			throw error;
		}
	};
}

/** A view of the node type as n8n executes it, without mutating the loaded type. */
function forExecution(nodeType: INodeType): INodeType {
	const execute =
		nodeType.execute ?? (needsRoutingExecute(nodeType) ? routingExecute(nodeType) : undefined);
	if (!execute) return nodeType;
	return Object.create(nodeType, {
		execute: { value: recordingThrownErrors(execute), enumerable: true },
	}) as INodeType;
}

const TOOL_DESCRIPTION_HINT =
	'Explain to the LLM what this tool does, a good, specific description would allow LLMs to produce expected results much more often';

/**
 * The description n8n gives the `…Tool` variant of a `usableAsTool` node: no main
 * input, one AI-tool output and a "Description" parameter for the model. n8n
 * 2.41 builds this in its server package (not in n8n-core / n8n-workflow), so it
 * is rebuilt here following the same rules; the end-to-end suite compares the two.
 */
export function toToolDescription(description: INodeTypeDescription): INodeTypeDescription {
	const { usableAsTool, ...base } =
		typeof description.usableAsTool === 'object'
			? { ...description, ...description.usableAsTool.replacements }
			: description;
	void usableAsTool;

	const properties = [...base.properties];
	if (!properties.some((property) => property.name === 'toolDescription')) {
		const choosesByOperation = properties.some(
			(property) => property.name === 'resource' || property.name === 'operation',
		);
		const toolDescription: INodeProperties = {
			displayName: 'Description',
			name: 'toolDescription',
			type: 'string',
			default: base.description,
			required: true,
			typeOptions: { rows: 2 },
			description: TOOL_DESCRIPTION_HINT,
			...(choosesByOperation && { displayOptions: { show: { descriptionType: ['manual'] } } }),
		};
		const descriptionType: INodeProperties = {
			displayName: 'Tool Description',
			name: 'descriptionType',
			type: 'options',
			noDataExpression: true,
			options: [
				{
					name: 'Set Automatically',
					value: 'auto',
					description: 'Automatically set based on resource and operation',
				},
				{ name: 'Set Manually', value: 'manual', description: 'Manually set the description' },
			],
			default: 'auto',
		};
		let afterCallouts = 0;
		properties.forEach((property, index) => {
			if (property.type === 'callout') afterCallouts = index + 1;
		});
		properties.splice(
			afterCallouts,
			0,
			...(choosesByOperation ? [descriptionType, toolDescription] : [toolDescription]),
		);
	}

	return {
		...base,
		name: `${base.name}${TOOL_SUFFIX}`,
		displayName: `${base.displayName} ${TOOL_SUFFIX}`,
		inputs: [],
		outputs: [NodeConnectionTypes.AiTool],
		properties,
		codex: {
			...base.codex,
			categories: ['AI'],
			subcategories: { AI: ['Tools'], Tools: ['Other Tools'] },
		},
	};
}

/**
 * Serves node types to the engine the way an n8n instance with this package
 * installed does: `n8n-nodes-phprank.<name>` from the package's sources,
 * `n8n-nodes-base.<name>` loaded lazily, `<type>Tool` variants of
 * `usableAsTool` nodes, plus any extra types a test hands in.
 */
export class HarnessNodeTypes implements INodeTypes {
	private readonly extraTypes: Record<string, INodeType | IVersionedNodeType>;

	private readonly servedTypes = new Map<string, INodeType>();

	constructor(options: NodeTypesOptions = {}) {
		this.extraTypes = options.nodeTypes ?? {};
		Object.values(this.extraTypes).forEach(prepareExtraType);
	}

	getByName(typeName: string): INodeType | IVersionedNodeType {
		return this.findLoaded(typeName) ?? this.getByNameAndVersion(typeName);
	}

	getByNameAndVersion(typeName: string, version?: number): INodeType {
		const key = `${typeName}@${version ?? 'latest'}`;
		let served = this.servedTypes.get(key);
		if (!served) {
			served = this.resolve(typeName, version);
			this.servedTypes.set(key, served);
		}
		return served;
	}

	getKnownTypes(): IDataObject {
		const known: IDataObject = {};
		for (const [typeName, type] of Object.entries(this.extraTypes)) {
			known[typeName] = { className: type.constructor.name, sourcePath: '' };
		}
		for (const [name, details] of Object.entries(basePackageLoader().known.nodes)) {
			known[`${BASE_PACKAGE_NAME}.${name}`] = { ...details };
		}
		const own = ownPackageLoader();
		for (const [name, details] of Object.entries(own.known.nodes)) {
			known[`${own.packageName}.${name}`] = { ...details };
		}
		return known;
	}

	private resolve(typeName: string, version?: number): INodeType {
		const loaded = this.findLoaded(typeName);
		if (loaded) return forExecution(NodeHelpers.getVersionedNodeType(loaded, version));

		if (typeName.endsWith(TOOL_SUFFIX)) {
			const baseTypeName = typeName.slice(0, -TOOL_SUFFIX.length);
			const baseLoaded = this.findLoaded(baseTypeName);
			if (baseLoaded) {
				const base = NodeHelpers.getVersionedNodeType(baseLoaded, version);
				if (!base.description.usableAsTool) {
					throw new UserError(`Node type "${baseTypeName}" is not usable as a tool`);
				}
				// The tool inherits the base type's execution; only its description differs.
				return Object.create(forExecution(base), {
					description: { value: toToolDescription(base.description), enumerable: true },
				}) as INodeType;
			}
		}

		throw new UserError(`Unrecognized node type: ${typeName}`);
	}

	private findLoaded(typeName: string): INodeType | IVersionedNodeType | undefined {
		if (typeName in this.extraTypes) return this.extraTypes[typeName];

		const { packageName, name } = splitTypeName(typeName);
		if (packageName === BASE_PACKAGE_NAME) return basePackageLoader().findNode(name);
		if (packageName === ownPackageName()) {
			const own = ownPackageLoader();
			return name in own.nodeTypes ? own.nodeTypes[name].type : undefined;
		}
		return undefined;
	}
}

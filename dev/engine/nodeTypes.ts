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
import { isNodeClassInstance, NodeConnectionTypes, NodeHelpers, UserError } from 'n8n-workflow';

import { findNodeType, packageLoaders } from './loaders';
import { rememberThrownError } from './thrownErrors';

export interface NodeTypesOptions {
	/**
	 * Node types to serve besides the package's own and n8n-nodes-base, keyed by
	 * the full type name workflows refer to them by (e.g. `test.echo`).
	 */
	nodeTypes?: Record<string, INodeType | IVersionedNodeType>;
}

const TOOL_SUFFIX = 'Tool';

export function allVersions(type: INodeType | IVersionedNodeType): INodeType[] {
	return 'nodeVersions' in type ? Object.values(type.nodeVersions) : [type];
}

/** The version the editor gives a new node of the type. */
export function latestVersion({ version }: INodeTypeDescription): number {
	return Array.isArray(version) ? Math.max(...version) : version;
}

const requestOptionNames = (type: INodeType) =>
	(type.description.properties.find(({ name }) => name === 'requestOptions')?.options ?? []).map((option) => option.name);

/**
 * n8n adds the standard declarative "request options" to a node type when it loads it; a type handed in
 * directly gets the same. n8n's helper adds them again on every call, and test types are often reused or
 * derived from one another, so a version that already has them all is left alone.
 */
function prepareExtraType(type: INodeType | IVersionedNodeType): void {
	const probe = { description: { properties: [] as INodeProperties[], inputs: [], outputs: [] } } as unknown as INodeType;
	DirectoryLoader.applyDeclarativeNodeOptionParameters(probe);
	const standard = requestOptionNames(probe);
	for (const version of allVersions(type)) {
		const existing = requestOptionNames(version);
		if (!standard.every((name) => existing.includes(name))) DirectoryLoader.applyDeclarativeNodeOptionParameters(version);
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

/** A view of the node type as n8n executes it, remembering what it throws, without mutating the loaded type. */
function forExecution(nodeType: INodeType): INodeType {
	const own = nodeType.execute;
	if (!own && !needsRoutingExecute(nodeType)) return nodeType;
	// n8n calls a node class's execute (n8n-workflow's Node: the Form node) with the context as its argument, and
	// any other type's with the context as `this`.
	async function execute(this: IExecuteFunctions | INodeType, ...args: unknown[]) {
		const context = (isNodeClassInstance(nodeType) ? args[0] : this) as IExecuteFunctions;
		try {
			if (own) return await (own as (...ownArgs: unknown[]) => ReturnType<NonNullable<INodeType['execute']>>).apply(isNodeClassInstance(nodeType) ? nodeType : context, args);
			return (await new RoutingNode(context as unknown as ExecuteContext, nodeType).runNode()) ?? [];
		} catch (error) {
			rememberThrownError(context.getExecutionId(), context.getNode().name, error);
			throw error;
		}
	}
	return Object.create(nodeType, { execute: { value: execute, enumerable: true } }) as INodeType;
}

/**
 * The description n8n gives the `…Tool` variant of a `usableAsTool` node: no main
 * input, one AI-tool output and a "Description" parameter for the model. n8n
 * 2.41 builds this in its server package (not in n8n-core / n8n-workflow), so it
 * is rebuilt here following the same rules; the end-to-end suite compares the two.
 */
export function toToolDescription(description: INodeTypeDescription): INodeTypeDescription {
	const { usableAsTool, ...base } =
		typeof description.usableAsTool === 'object' ? { ...description, ...description.usableAsTool.replacements } : description;
	void usableAsTool;

	const properties = [...base.properties];
	if (!properties.some((property) => property.name === 'toolDescription')) {
		const choosesByOperation = properties.some((property) => property.name === 'resource' || property.name === 'operation');
		const toolDescription: INodeProperties = {
			displayName: 'Description',
			name: 'toolDescription',
			type: 'string',
			default: base.description,
			required: true,
			typeOptions: { rows: 2 },
			description:
				'Explain to the LLM what this tool does, a good, specific description would allow LLMs to produce expected results much more often',
			...(choosesByOperation && { displayOptions: { show: { descriptionType: ['manual'] } } }),
		};
		const descriptionType: INodeProperties = {
			displayName: 'Tool Description',
			name: 'descriptionType',
			type: 'options',
			noDataExpression: true,
			options: [
				{ name: 'Set Automatically', value: 'auto', description: 'Automatically set based on resource and operation' },
				{ name: 'Set Manually', value: 'manual', description: 'Manually set the description' },
			],
			default: 'auto',
		};
		// After the last callout.
		const at = properties.map((property) => property.type).lastIndexOf('callout') + 1;
		properties.splice(at, 0, ...(choosesByOperation ? [descriptionType, toolDescription] : [toolDescription]));
	}

	return {
		...base,
		name: `${base.name}${TOOL_SUFFIX}`,
		displayName: `${base.displayName} ${TOOL_SUFFIX}`,
		inputs: [],
		outputs: [NodeConnectionTypes.AiTool],
		properties,
		codex: { ...base.codex, categories: ['AI'], subcategories: { AI: ['Tools'], Tools: ['Other Tools'] } },
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
		const served = this.servedTypes.get(key) ?? this.resolve(typeName, version);
		this.servedTypes.set(key, served);
		return served;
	}

	getKnownTypes(): IDataObject {
		const known: IDataObject = {};
		for (const [typeName, type] of Object.entries(this.extraTypes)) {
			known[typeName] = { className: type.constructor.name, sourcePath: '' };
		}
		for (const loader of packageLoaders()) {
			for (const [name, details] of Object.entries(loader.ensureLoaded().known.nodes)) {
				known[`${loader.packageName}.${name}`] = { ...details };
			}
		}
		return known;
	}

	private resolve(typeName: string, version?: number): INodeType {
		const loaded = this.findLoaded(typeName);
		if (loaded) return forExecution(NodeHelpers.getVersionedNodeType(loaded, version));

		const baseTypeName = typeName.slice(0, -TOOL_SUFFIX.length);
		const baseLoaded = typeName.endsWith(TOOL_SUFFIX) ? this.findLoaded(baseTypeName) : undefined;
		if (!baseLoaded) throw new UserError(`Unrecognized node type: ${typeName}`);
		const base = NodeHelpers.getVersionedNodeType(baseLoaded, version);
		if (!base.description.usableAsTool) throw new UserError(`Node type "${baseTypeName}" is not usable as a tool`);
		// The tool inherits the base type's execution; only its description differs.
		const description = toToolDescription(base.description);
		return Object.create(forExecution(base), { description: { value: description, enumerable: true } }) as INodeType;
	}

	private findLoaded(typeName: string): INodeType | IVersionedNodeType | undefined {
		return this.extraTypes[typeName] ?? findNodeType(typeName);
	}
}

import type {
	ExecutionBaseError,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeCredentials,
	INodeParameters,
	INodeType,
	IRun,
} from 'n8n-workflow';
import { jsonParse, NodeConnectionTypes } from 'n8n-workflow';

import type { CredentialsData } from './credentials';
import type { LogLine } from './logs';
import type { RunOptions } from './run';
import { credentialReferences, manualTrigger, runWorkflow, TRIGGER_NODE_NAME } from './run';

interface InvocableTool {
	name: string;
	description: string;
	invoke(args: IDataObject): Promise<unknown>;
}

export const AGENT_NODE_NAME = 'AI Agent';
const AGENT_TYPE = 'n8n-nodes-harness.toolCaller';

/**
 * Stands in for an AI Agent: takes the connected tool the way an agent does
 * (n8n-core wraps the `…Tool` node via its tool-creation path, resolving
 * `$fromAI()` parameters from the arguments) and calls it once with the
 * arguments a model would have chosen.
 */
function toolCaller(args: IDataObject): INodeType {
	return {
		description: {
			displayName: 'Tool caller',
			name: 'toolCaller',
			group: ['transform'],
			version: 1,
			description: 'Calls the connected tool with fixed arguments',
			defaults: { name: AGENT_NODE_NAME },
			inputs: [
				NodeConnectionTypes.Main,
				{ type: NodeConnectionTypes.AiTool, displayName: 'Tool', required: true, maxConnections: 1 },
			],
			outputs: [NodeConnectionTypes.Main],
			properties: [],
		},
		async execute(this: IExecuteFunctions) {
			const tool = (await this.getInputConnectionData(NodeConnectionTypes.AiTool, 0)) as InvocableTool;
			const raw = await tool.invoke(args);
			const response = typeof raw === 'string' ? jsonParse(raw, { fallbackValue: raw }) : raw;
			return [[{ json: { toolName: tool.name, toolDescription: tool.description, response } as IDataObject }]];
		},
	};
}

export interface RunToolOptions extends RunOptions {
	/** Full type name of the tool variant. */
	type?: string;
	typeVersion?: number;
	name?: string;
	/** The tool node's parameters; `$fromAI('key')` values are filled from `args`. */
	parameters?: INodeParameters;
	/** The arguments the model calls the tool with. */
	args?: IDataObject;
	nodeCredentials?: INodeCredentials;
}

export interface RunToolResult {
	/** What the agent gets back from the tool: the items' JSON it returned. */
	response?: unknown;
	/** Name and description the model sees for the tool. */
	toolName?: string;
	toolDescription?: string;
	/** The error the tool node threw, if the call failed. */
	error?: ExecutionBaseError;
	run: IRun;
	logs: LogLine[];
	credentialsAfter: CredentialsData;
}

/** Runs a `…Tool` node as an AI Agent would call it: Manual Trigger → agent ← tool. */
export async function runTool(options: RunToolOptions = {}): Promise<RunToolResult> {
	const {
		type = 'n8n-nodes-phprank.phpRankTool',
		typeVersion = 1,
		name = 'Tool under test',
		parameters = {},
		args = {},
		nodeCredentials,
		...runOptions
	} = options;

	const nodes: INode[] = [
		manualTrigger(),
		{
			id: '00000000-0000-4000-8000-000000000003',
			name: AGENT_NODE_NAME,
			type: AGENT_TYPE,
			typeVersion: 1,
			position: [220, 0],
			parameters: {},
		},
		{
			id: '00000000-0000-4000-8000-000000000004',
			name,
			type,
			typeVersion,
			position: [220, 200],
			parameters,
			...credentialReferences({ nodeCredentials, credentials: runOptions.credentials }),
		},
	];

	const result = await runWorkflow(
		{
			nodes,
			connections: {
				[TRIGGER_NODE_NAME]: { main: [[{ node: AGENT_NODE_NAME, type: 'main', index: 0 }]] },
				[name]: { ai_tool: [[{ node: AGENT_NODE_NAME, type: 'ai_tool', index: 0 }]] },
			},
		},
		{ ...runOptions, nodeTypes: { ...runOptions.nodeTypes, [AGENT_TYPE]: toolCaller(args) } },
	);

	const called = result.output(AGENT_NODE_NAME)[0]?.json;
	return {
		response: called?.response,
		toolName: called?.toolName as string | undefined,
		toolDescription: called?.toolDescription as string | undefined,
		error: result.errorOf(name) ?? result.error,
		run: result.run,
		logs: result.logs,
		credentialsAfter: result.credentialsAfter,
	};
}

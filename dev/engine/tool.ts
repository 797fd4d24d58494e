import type { IDataObject, IExecuteFunctions, INodeType } from 'n8n-workflow';
import { jsonParse, NodeConnectionTypes } from 'n8n-workflow';

import { credentialReferences } from './credentials';
import type { RunNodeOptions, RunNodeResult } from './run';
import { manualWorkflow, runWorkflow } from './run';

const AGENT_NODE_NAME = 'AI Agent';
const AGENT_TYPE = 'n8n-nodes-harness.toolCaller';
const TOOL_NODE_NAME = 'Tool under test';

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
			const connected = await this.getInputConnectionData(NodeConnectionTypes.AiTool, 0);
			const tool = connected as { description: string; invoke(args: IDataObject): Promise<unknown> };
			const raw = await tool.invoke(args);
			const response = typeof raw === 'string' ? jsonParse(raw, { fallbackValue: raw }) : raw;
			return [[{ json: { toolDescription: tool.description, response } as IDataObject }]];
		},
	};
}

export interface RunToolOptions extends Omit<RunNodeOptions, 'items' | 'continueOnFail'> {
	/** The arguments the model calls the tool with; `$fromAI('key')` values in the parameters are filled from them. */
	args?: IDataObject;
}

export interface RunToolResult extends Pick<RunNodeResult, 'run' | 'error' | 'logs'> {
	/** What the agent gets back from the tool: the items' JSON it returned. */
	response?: unknown;
	/** The description the model sees for the tool. */
	toolDescription?: string;
}

/** Runs a `…Tool` node as an AI Agent would call it: Manual Trigger → agent ← tool. */
export async function runTool(options: RunToolOptions = {}): Promise<RunToolResult> {
	const { type = 'n8n-nodes-phprank.phpRankTool', typeVersion = 1, parameters = {}, args = {}, ...runOptions } = options;
	const workflow = manualWorkflow(
		[
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
				name: TOOL_NODE_NAME,
				type,
				typeVersion,
				position: [220, 200],
				parameters,
				...credentialReferences(runOptions.credentials),
			},
		],
		{ [TOOL_NODE_NAME]: { ai_tool: [[{ node: AGENT_NODE_NAME, type: 'ai_tool', index: 0 }]] } },
	);
	const result = await runWorkflow(workflow, { ...runOptions, nodeTypes: { ...runOptions.nodeTypes, [AGENT_TYPE]: toolCaller(args) } });

	const called = result.output(AGENT_NODE_NAME)[0]?.json;
	return {
		response: called?.response,
		toolDescription: called?.toolDescription as string | undefined,
		error: result.errorOf(TOOL_NODE_NAME) ?? result.error,
		run: result.run,
		logs: result.logs,
	};
}

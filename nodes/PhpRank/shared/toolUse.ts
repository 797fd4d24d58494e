import type { IExecuteSingleFunctions } from 'n8n-workflow';

/**
 * How long a tool call (an AI Agent's, an MCP client's) may wait for phpRank in all: MCP clients give up on a call
 * after 60 seconds (the MCP SDK's default request timeout), and the call must answer before, with the reason.
 */
export const TOOL_CALL_MAX_WAIT_SECONDS = 45;

/** Whether the node runs as a tool of an AI Agent or an MCP Server Trigger: n8n names its tool variant `…Tool`. */
export function isToolUse(context: Pick<IExecuteSingleFunctions, 'getNode'>): boolean {
	return context.getNode().type.endsWith('Tool');
}

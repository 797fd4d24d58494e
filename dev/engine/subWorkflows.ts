import { randomUUID } from 'node:crypto';

import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type { ExecuteWorkflowData, IExecuteWorkflowInfo, INodeExecutionData, INodeTypes, IRun, IWorkflowBase, IWorkflowExecuteAdditionalData } from 'n8n-workflow';
import { createRunExecutionData, EXECUTE_WORKFLOW_TRIGGER_NODE_TYPE, UserError, Workflow } from 'n8n-workflow';

/** A sub-workflow's execution as the instance ran it, for tests to read what n8n would have stored of it. */
export interface SubWorkflowRun {
	executionId: string;
	workflow: IWorkflowBase;
	run: IRun;
}

/**
 * What n8n's server does when an Execute Workflow node calls a sub-workflow defined in its own parameters (Source:
 * Define Below): the sub-workflow runs as an execution of its own, started at its *When Executed by Another
 * Workflow* trigger with the caller's items, and the caller gets what its last node output. Sub-workflows stored in
 * n8n's database need an instance with one.
 */
export function createSubWorkflowRunner(
	nodeTypes: INodeTypes,
	additionalData: (executionId: string) => IWorkflowExecuteAdditionalData,
	runs: SubWorkflowRun[],
): IWorkflowExecuteAdditionalData['executeWorkflow'] {
	return async (workflowInfo: IExecuteWorkflowInfo, _caller, options): Promise<ExecuteWorkflowData> => {
		const code = workflowInfo.code;
		if (!code) throw new UserError('Only a sub-workflow defined in the Execute Workflow node (Source: Define Below) runs without an n8n instance');
		const executionId = randomUUID();
		const workflowData: IWorkflowBase = {
			...code,
			id: code.id ?? options.parentWorkflowId,
			settings: code.settings ?? options.parentWorkflowSettings,
		};
		const workflow = new Workflow({ ...workflowData, active: false, nodeTypes });
		const trigger = workflowData.nodes.find((node) => node.type === EXECUTE_WORKFLOW_TRIGGER_NODE_TYPE && !node.disabled);
		if (!trigger) throw new UserError('The sub-workflow has no "When Executed by Another Workflow" trigger');

		const mode = options.executionMode ?? 'integrated';
		const runExecutionData = createRunExecutionData({
			executionData: {
				nodeExecutionStack: [{ node: trigger, data: { main: [options.inputData ?? [{ json: {} }]] }, source: null, metadata: { parentExecution: options.parentExecution } }],
			},
		});
		const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowData);
		const run = await new WorkflowExecute({ ...additionalData(executionId), hooks, workflowId: workflowData.id }, mode, runExecutionData).processRunExecutionData(workflow);
		runs.push({ executionId, workflow: workflowData, run });

		const { error, lastNodeExecuted, runData } = run.data.resultData;
		if (error) throw error;
		const lastRuns = lastNodeExecuted ? (runData[lastNodeExecuted] ?? []) : [];
		const taken = options.returnLastRunOnly ? lastRuns.slice(-1) : lastRuns;
		const data: Array<INodeExecutionData[] | null> = [];
		for (const task of taken) {
			for (const [output, items] of (task.data?.main ?? []).entries()) data[output] = [...(data[output] ?? []), ...(items ?? [])];
		}
		return { executionId, data };
	};
}

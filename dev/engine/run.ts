import { randomUUID } from 'node:crypto';

import mapValues from 'lodash/mapValues';
import { ExecutionLifecycleHooks, normalizeItems, WorkflowExecute } from 'n8n-core';
import type {
	ExecutionBaseError,
	IConnections,
	IDataObject,
	IExecuteResponsePromiseData,
	INode,
	INodeExecutionData,
	IPinData,
	IRun,
	IWorkflowBase,
	IWorkflowSettings,
} from 'n8n-workflow';
import { deepCopy, UserError, Workflow } from 'n8n-workflow';

import { credentialReferences } from './credentials';
import type { InstanceOptions, NodeOptions } from './instance';
import { createInstance } from './instance';
import type { LogLine } from './logs';
import { captureLogs, logsToText, toSearchableText } from './logs';
import { ensureBinaryData } from './setup';
import { takeThrownErrors } from './thrownErrors';

/** A workflow as the n8n editor exports it; only nodes and connections are required. */
export interface WorkflowFixture {
	id?: string;
	name?: string;
	nodes: INode[];
	connections: IConnections;
	pinData?: IPinData | Record<string, IDataObject[]>;
	settings?: IWorkflowSettings;
}

export interface RunOptions extends InstanceOptions {
	/** The run is cancelled and the call rejects after this long. */
	timeoutMs?: number;
	/** Cancels the run as the editor's Stop button does; the call resolves once the engine has stopped it. */
	cancelSignal?: AbortSignal;
	/** The node the run starts at, by name, for a workflow the engine finds no start in by itself (a Webhook's). */
	startNode?: string;
}

export interface RunResult {
	run: IRun;
	/** Items the node emitted on an output (its latest run unless `runIndex` is given). */
	output(nodeName: string, outputIndex?: number, runIndex?: number): INodeExecutionData[];
	/**
	 * Why the run stopped, if a node failed: the error instance the node threw
	 * (NodeApiError, NodeOperationError…), not the plain copy kept in `run`.
	 */
	error?: ExecutionBaseError;
	/** The error a given node threw during the run, as thrown (falls back to the run data's copy). */
	errorOf(nodeName: string): ExecutionBaseError | undefined;
	/** Node names in the order they finished. */
	executedNodes: string[];
	/** What Respond to Webhook nodes sent to the webhook's caller, in order. */
	responses: IExecuteResponsePromiseData[];
	logs: LogLine[];
}

/** A guard against a run that never ends, not a speed check: on two busy cores a 10,000-report read took over 20 s. */
const DEFAULT_TIMEOUT_MS = 120_000;

async function withTimeout(running: ReturnType<WorkflowExecute['run']>, timeoutMs: number, cancelSignal?: AbortSignal): Promise<IRun> {
	cancelSignal?.addEventListener('abort', () => running.cancel(), { once: true });
	let timer: NodeJS.Timeout | undefined;
	const timedOut = new Promise<never>((_, reject) => {
		timer = setTimeout(() => {
			running.cancel();
			reject(new Error(`Workflow run did not finish within ${timeoutMs} ms`));
		}, timeoutMs);
	});
	try {
		return await Promise.race([running, timedOut]);
	} finally {
		clearTimeout(timer);
	}
}

/**
 * Runs a workflow in n8n-core's WorkflowExecute as a manual execution from the
 * editor: from its trigger, with pinned data standing in for the nodes it is
 * pinned on, real HTTP for every request the nodes make.
 */
export async function runWorkflow(fixture: WorkflowFixture, options: RunOptions = {}): Promise<RunResult> {
	await ensureBinaryData();
	// Unique across test files and workers: binary data is stored per execution id.
	const executionId = randomUUID();
	const { nodeTypes, additionalData } = createInstance(options);

	const nodes = deepCopy(fixture.nodes);
	const workflowData: IWorkflowBase = {
		id: fixture.id ?? 'harness-workflow',
		name: fixture.name ?? 'Harness workflow',
		active: false,
		isArchived: false,
		activeVersionId: null,
		createdAt: new Date(),
		updatedAt: new Date(),
		nodes,
		connections: fixture.connections,
		settings: { executionOrder: 'v1', ...fixture.settings },
		pinData: fixture.pinData && mapValues(fixture.pinData, (items) => normalizeItems(items as INodeExecutionData[])),
	};
	const workflow = new Workflow({ ...workflowData, nodeTypes });

	const hooks = new ExecutionLifecycleHooks('manual', executionId, workflowData);
	const executedNodes: string[] = [];
	hooks.addHandler('nodeExecuteAfter', (nodeName) => {
		executedNodes.push(nodeName);
	});
	const responses: IExecuteResponsePromiseData[] = [];
	hooks.addHandler('sendResponse', (response) => {
		responses.push(response);
	});
	const startNode = options.startNode === undefined ? undefined : workflow.getNode(options.startNode);
	if (options.startNode !== undefined && !startNode) throw new UserError(`The workflow has no node named "${options.startNode}"`);

	const logCapture = captureLogs();
	let run: IRun;
	let thrown: Map<string, Error>;
	try {
		const execution = new WorkflowExecute({ ...additionalData(executionId), hooks, workflowId: workflowData.id }, 'manual');
		run = await withTimeout(execution.run({ workflow, startNode: startNode ?? undefined, pinData: workflowData.pinData }), options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.cancelSignal);
	} finally {
		logCapture.stop();
		thrown = takeThrownErrors(executionId);
	}

	const { resultData } = run.data;
	const thrownBy = (nodeName = '') => thrown.get(nodeName) as ExecutionBaseError | undefined;
	const nodeNames = new Set(nodes.map((node) => node.name));
	return {
		run,
		error: resultData.error && (thrownBy(resultData.lastNodeExecuted) ?? resultData.error),
		executedNodes,
		responses,
		logs: logCapture.lines,
		errorOf: (nodeName) => thrownBy(nodeName) ?? resultData.runData[nodeName]?.at(-1)?.error,
		output(nodeName, outputIndex = 0, runIndex) {
			if (!nodeNames.has(nodeName)) throw new UserError(`The workflow has no node named "${nodeName}"`);
			const runs = resultData.runData[nodeName] ?? [];
			return runs[runIndex ?? runs.length - 1]?.data?.main?.[outputIndex] ?? [];
		},
	};
}

export const TRIGGER_NODE_NAME = 'When clicking ‘Execute workflow’';

/** What a user builds to try nodes in the editor: a Manual Trigger connected to the first of them. */
export function manualWorkflow(nodes: INode[], connections: IConnections = {}): WorkflowFixture {
	const trigger: INode = {
		id: '00000000-0000-4000-8000-000000000001',
		name: TRIGGER_NODE_NAME,
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	return {
		nodes: [trigger, ...nodes],
		connections: { [TRIGGER_NODE_NAME]: { main: [[{ node: nodes[0].name, type: 'main', index: 0 }]] }, ...connections },
	};
}

export interface RunNodeOptions extends RunOptions, NodeOptions {
	/** Input items (their `json`); one empty item by default, like a manual trigger. */
	items?: IDataObject[];
	/** The node's "On Error → Continue" setting. */
	continueOnFail?: boolean;
}

export interface RunNodeResult extends Pick<RunResult, 'run' | 'error' | 'logs'> {
	/** The node's items on its first output; empty when it failed. */
	items: INodeExecutionData[];
}

const NODE_UNDER_TEST_NAME = 'Node under test';

/**
 * Runs one node the way a user does in the editor: Manual Trigger → node, the
 * input items pinned on the trigger. Every credential given is selected on the node.
 */
export async function runNode(options: RunNodeOptions = {}): Promise<RunNodeResult> {
	const { type = 'n8n-nodes-phprank.phpRank', typeVersion = 1, parameters = {}, items = [{}], continueOnFail, ...runOptions } = options;
	const node: INode = {
		id: '00000000-0000-4000-8000-000000000002',
		name: NODE_UNDER_TEST_NAME,
		type,
		typeVersion,
		position: [220, 0],
		parameters,
		...credentialReferences(runOptions.credentials),
		...(continueOnFail && { onError: 'continueRegularOutput' as const }),
	};
	const workflow = manualWorkflow([node]);
	const result = await runWorkflow({ ...workflow, pinData: { [TRIGGER_NODE_NAME]: items.map((json) => ({ json })) } }, runOptions);

	const { error, run, logs } = result;
	const failed = error !== undefined && run.data.resultData.lastNodeExecuted === NODE_UNDER_TEST_NAME;
	return { items: failed ? [] : result.output(NODE_UNDER_TEST_NAME), error, run, logs };
}

/**
 * Everything a run produced — output items (with any errors on them), the
 * failure, and all log lines — as one string, for asserting that a secret
 * appears nowhere.
 */
export function producedText(result: Pick<RunResult, 'run' | 'error' | 'logs'>): string {
	return [
		toSearchableText(result.run.data.resultData),
		result.error ? toSearchableText(result.error) : '',
		logsToText(result.logs),
	].join('\n');
}

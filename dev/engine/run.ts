import { randomUUID } from 'node:crypto';

import { ExecutionLifecycleHooks, ExternalSecretsProxy, WorkflowExecute } from 'n8n-core';
import type {
	ExecutionBaseError,
	IConnections,
	IDataObject,
	INode,
	INodeCredentials,
	INodeExecutionData,
	INodeParameters,
	IPinData,
	IRun,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	IWorkflowSettings,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { deepCopy, UserError, Workflow } from 'n8n-workflow';

import type { CredentialsData, CredentialTypesOptions } from './credentials';
import { HarnessCredentialsHelper, HarnessCredentialTypes, referenceCredentials } from './credentials';
import type { LogLine } from './logs';
import { captureLogs, logsToText, toSearchableText } from './logs';
import type { NodeTypesOptions } from './nodeTypes';
import { HarnessNodeTypes } from './nodeTypes';
import { ensureBinaryData, ensureEngine } from './setup';
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

export interface RunOptions extends NodeTypesOptions, CredentialTypesOptions {
	/** Decrypted credential data by credential type, as the instance would hold it. */
	credentials?: CredentialsData;
	/** The run is cancelled and the call rejects after this long. */
	timeoutMs?: number;
	mode?: WorkflowExecuteMode;
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
	logs: LogLine[];
	/** The credential data as held after the run (pre-authentication may have updated it). */
	credentialsAfter: CredentialsData;
}

const DEFAULT_TIMEOUT_MS = 20_000;
const HARNESS_URL = 'http://127.0.0.1:5678/';

/**
 * What the engine expects from the server around it, pointed at nothing real:
 * sub-workflows and task runners (Code node) are not available here.
 */
export function createAdditionalData(
	credentialsHelper: HarnessCredentialsHelper,
	executionId: string,
	hooks?: ExecutionLifecycleHooks,
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper,
		executionId,
		hooks,
		currentNodeExecutionIndex: 0,
		restApiUrl: `${HARNESS_URL}rest`,
		instanceBaseUrl: HARNESS_URL,
		formBaseUrl: `${HARNESS_URL}form`,
		formWaitingBaseUrl: `${HARNESS_URL}form-waiting`,
		formTestBaseUrl: `${HARNESS_URL}form-test`,
		webhookBaseUrl: `${HARNESS_URL}webhook`,
		webhookWaitingBaseUrl: `${HARNESS_URL}webhook-waiting`,
		webhookTestBaseUrl: `${HARNESS_URL}webhook-test`,
		mcpBaseUrl: `${HARNESS_URL}mcp`,
		mcpTestBaseUrl: `${HARNESS_URL}mcp-test`,
		variables: {},
		externalSecretsProxy: new ExternalSecretsProxy(),
		logAiEvent: () => {},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		executeWorkflow: async () => {
			throw new UserError('Sub-workflow execution needs an n8n instance');
		},
		startRunnerTask: async () => {
			throw new UserError('Task runners (Code node) need an n8n instance');
		},
	};
}

function toPinData(pinData: WorkflowFixture['pinData']): IPinData | undefined {
	if (!pinData) return undefined;
	return Object.fromEntries(
		Object.entries(pinData).map(([nodeName, items]) => [
			nodeName,
			(items as Array<IDataObject | INodeExecutionData>).map((item) =>
				'json' in item ? (item as INodeExecutionData) : { json: item as IDataObject },
			),
		]),
	);
}

async function withTimeout(
	running: ReturnType<WorkflowExecute['run']>,
	timeoutMs: number,
): Promise<IRun> {
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
export async function runWorkflow(
	fixture: WorkflowFixture,
	options: RunOptions = {},
): Promise<RunResult> {
	ensureEngine();
	await ensureBinaryData();

	const mode = options.mode ?? 'manual';
	// Unique across test files and workers: binary data is stored per execution id.
	const executionId = randomUUID();
	const nodeTypes = new HarnessNodeTypes(options);
	const credentialsHelper = new HarnessCredentialsHelper(
		new HarnessCredentialTypes(options),
		options.credentials,
	);

	const nodes = deepCopy(fixture.nodes);
	const settings: IWorkflowSettings = { executionOrder: 'v1', ...fixture.settings };
	const pinData = toPinData(fixture.pinData);
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
		settings,
		pinData,
	};
	const workflow = new Workflow({
		id: workflowData.id,
		name: workflowData.name,
		nodes,
		connections: fixture.connections,
		active: false,
		nodeTypes,
		settings,
		pinData,
	});

	const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowData);
	const executedNodes: string[] = [];
	hooks.addHandler('nodeExecuteAfter', (nodeName) => {
		executedNodes.push(nodeName);
	});
	const additionalData = createAdditionalData(credentialsHelper, executionId, hooks);
	additionalData.workflowId = workflowData.id;

	const logCapture = captureLogs();
	let run: IRun;
	let thrown: Map<string, Error>;
	try {
		const execution = new WorkflowExecute(additionalData, mode);
		run = await withTimeout(
			execution.run({ workflow, pinData }),
			options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
		);
	} finally {
		logCapture.stop();
		thrown = takeThrownErrors(executionId);
	}

	const { resultData } = run.data;
	const failedNode = resultData.error ? resultData.lastNodeExecuted : undefined;
	const error = resultData.error
		? ((failedNode && thrown.get(failedNode)) as ExecutionBaseError | undefined) ?? resultData.error
		: undefined;

	const nodeNames = new Set(nodes.map((node) => node.name));
	return {
		run,
		error,
		executedNodes,
		logs: logCapture.lines,
		credentialsAfter: Object.fromEntries(
			Object.keys(options.credentials ?? {}).map((type) => [
				type,
				credentialsHelper.getStored(type) ?? {},
			]),
		),
		errorOf(nodeName) {
			const runs = resultData.runData[nodeName] ?? [];
			return (thrown.get(nodeName) as ExecutionBaseError | undefined) ?? runs.at(-1)?.error;
		},
		output(nodeName, outputIndex = 0, runIndex) {
			if (!nodeNames.has(nodeName)) {
				throw new UserError(`The workflow has no node named "${nodeName}"`);
			}
			const runs = resultData.runData[nodeName] ?? [];
			const task = runs[runIndex ?? runs.length - 1];
			return task?.data?.main?.[outputIndex] ?? [];
		},
	};
}

export interface RunNodeOptions extends RunOptions {
	/** Full node type name. */
	type?: string;
	typeVersion?: number;
	/** Node name, as the editor would show it. */
	name?: string;
	parameters?: INodeParameters;
	/** Input items (their `json`); one empty item by default, like a manual trigger. */
	items?: IDataObject[];
	/** The node's "On Error → Continue" setting. */
	continueOnFail?: boolean;
	/**
	 * Credentials referenced on the node; by default every type given in
	 * `credentials` is referenced, as if selected in the node's credential field.
	 */
	nodeCredentials?: INodeCredentials;
}

export interface RunNodeResult {
	/** The node's items on its first output; empty when it failed. */
	items: INodeExecutionData[];
	/** The error the node threw (NodeApiError, NodeOperationError…) when it failed. */
	error?: ExecutionBaseError;
	run: IRun;
	logs: LogLine[];
	credentialsAfter: CredentialsData;
}

export const TRIGGER_NODE_NAME = 'When clicking ‘Execute workflow’';
export const NODE_UNDER_TEST_NAME = 'Node under test';

/** The Manual Trigger a run starts from. A new node each time: a workflow fills in its parameters. */
export function manualTrigger(): INode {
	return {
		id: '00000000-0000-4000-8000-000000000001',
		name: TRIGGER_NODE_NAME,
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
}

/** The node's credential references: those given, or one for each credential type the run has data for. */
export function credentialReferences(options: { nodeCredentials?: INodeCredentials; credentials?: CredentialsData }): Partial<INode> {
	const credentials = options.nodeCredentials ?? referenceCredentials(options.credentials);
	return Object.keys(credentials).length > 0 ? { credentials } : {};
}

/**
 * Runs one node the way a user does in the editor: Manual Trigger → node, the
 * input items pinned on the trigger.
 */
export async function runNode(options: RunNodeOptions = {}): Promise<RunNodeResult> {
	const {
		type = 'n8n-nodes-phprank.phpRank',
		typeVersion = 1,
		name = NODE_UNDER_TEST_NAME,
		parameters = {},
		items = [{}],
		continueOnFail = false,
		nodeCredentials,
		...runOptions
	} = options;

	const node: INode = {
		id: '00000000-0000-4000-8000-000000000002',
		name,
		type,
		typeVersion,
		position: [220, 0],
		parameters,
		...credentialReferences({ nodeCredentials, credentials: runOptions.credentials }),
		...(continueOnFail && { onError: 'continueRegularOutput' as const }),
	};

	const result = await runWorkflow(
		{
			nodes: [manualTrigger(), node],
			connections: {
				[TRIGGER_NODE_NAME]: { main: [[{ node: name, type: 'main', index: 0 }]] },
			},
			pinData: { [TRIGGER_NODE_NAME]: items.map((json) => ({ json })) },
		},
		runOptions,
	);

	const failed = result.error !== undefined && result.run.data.resultData.lastNodeExecuted === name;
	return {
		items: failed ? [] : result.output(name),
		error: result.error,
		run: result.run,
		logs: result.logs,
		credentialsAfter: result.credentialsAfter,
	};
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

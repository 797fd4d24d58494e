import { ExternalSecretsProxy } from 'n8n-core';
import type { INode, INodeParameters, INodeType, IWorkflowExecuteAdditionalData } from 'n8n-workflow';
import { deepCopy, NodeHelpers } from 'n8n-workflow';

import type { CredentialsData, CredentialTypesOptions } from './credentials';
import { startRunnerTask } from './codeNode';
import { createCredentialsHelper, HarnessCredentialTypes } from './credentials';
import { InMemoryDataTables } from './dataTables';
import type { NodeTypesOptions } from './nodeTypes';
import { HarnessNodeTypes } from './nodeTypes';
import { ensureEngine } from './setup';
import type { SubWorkflowRun } from './subWorkflows';
import { createSubWorkflowRunner } from './subWorkflows';

export interface InstanceOptions extends NodeTypesOptions, CredentialTypesOptions {
	/** Decrypted credential data by credential type, as the instance would hold it. */
	credentials?: CredentialsData;
	/** The instance's Data tables; give the same to several runs to keep their rows. Empty by default. */
	dataTables?: InMemoryDataTables;
	/** Collects the executions of sub-workflows the run called (Execute Workflow, Source: Define Below). */
	subWorkflowRuns?: SubWorkflowRun[];
}

/** The node a run, a poll or an editor call is about. */
export interface NodeOptions extends InstanceOptions {
	/** Full node type name. */
	type?: string;
	typeVersion?: number;
	parameters?: INodeParameters;
}

const INSTANCE_URL = 'http://127.0.0.1:5678/';

/**
 * What an n8n instance has around the engine: its node and credential types, the credentials it holds, and the
 * additional data the engine expects from the server (its Data tables in memory, sub-workflows defined in the calling
 * node, the Code node's JavaScript), pointed at nothing real: sub-workflows from a database and Python are not.
 */
export function createInstance(options: InstanceOptions) {
	ensureEngine();
	const credentialTypes = new HarnessCredentialTypes(options);
	const credentialsHelper = createCredentialsHelper(credentialTypes, options.credentials);
	const dataTables = options.dataTables ?? new InMemoryDataTables();
	const nodeTypes = new HarnessNodeTypes(options);
	const additionalData = (executionId?: string): IWorkflowExecuteAdditionalData => ({
		credentialsHelper,
		executionId,
		currentNodeExecutionIndex: 0,
		restApiUrl: `${INSTANCE_URL}rest`,
		instanceBaseUrl: INSTANCE_URL,
		formBaseUrl: `${INSTANCE_URL}form`,
		formWaitingBaseUrl: `${INSTANCE_URL}form-waiting`,
		formTestBaseUrl: `${INSTANCE_URL}form-test`,
		webhookBaseUrl: `${INSTANCE_URL}webhook`,
		webhookWaitingBaseUrl: `${INSTANCE_URL}webhook-waiting`,
		webhookTestBaseUrl: `${INSTANCE_URL}webhook-test`,
		mcpBaseUrl: `${INSTANCE_URL}mcp`,
		mcpTestBaseUrl: `${INSTANCE_URL}mcp-test`,
		variables: {},
		externalSecretsProxy: new ExternalSecretsProxy(),
		'data-table': { dataTableProxyProvider: dataTables.provider },
		logAiEvent: () => {},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		executeWorkflow: async (...call) => await createSubWorkflowRunner(nodeTypes, additionalData, options.subWorkflowRuns ?? [])(...call),
		startRunnerTask,
	});
	return { nodeTypes, credentialTypes, credentialsHelper, additionalData };
}

/** A node of the type as the editor holds it: every parameter it shows, defaults included. */
export function editorNode(nodeType: INodeType, node: Omit<INode, 'position' | 'parameters'>, parameters: INodeParameters = {}): INode {
	const shown: INode = { ...node, position: [0, 0], parameters: {} };
	const { properties } = nodeType.description;
	shown.parameters = NodeHelpers.getNodeParameters(properties, deepCopy(parameters), true, false, shown, nodeType.description) ?? {};
	return shown;
}

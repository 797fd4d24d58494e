import { Container } from '@n8n/di';
import { PollContext, TriggersAndPollers } from 'n8n-core';
import type { IDataObject, INode, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { deepCopy, NodeHelpers, Workflow } from 'n8n-workflow';
import type { CredentialsData, CredentialTypesOptions } from './credentials';
import { HarnessCredentialsHelper, HarnessCredentialTypes, referenceCredentials } from './credentials';
import type { NodeTypesOptions } from './nodeTypes';
import { HarnessNodeTypes } from './nodeTypes';
import { createAdditionalData } from './run';
import { ensureEngine } from './setup';

export interface PollerOptions extends NodeTypesOptions, CredentialTypesOptions {
	type?: string;
	typeVersion?: number;
	parameters?: INodeParameters;
	credentials?: CredentialsData;
	/** The node's static data as n8n saved it after earlier polls, e.g. before a restart. */
	staticData?: IDataObject;
}

export interface Poller {
	/** One poll as n8n's scheduler runs it ('trigger') or as "Fetch Test Event" does ('manual'). */
	poll(mode?: 'trigger' | 'manual'): Promise<INodeExecutionData[][] | null>;
	/** The workflow's static data as n8n would save it after the last poll. */
	staticData(): IDataObject;
	/** The part of it that belongs to the trigger node, as the node sees it. */
	nodeStaticData(): IDataObject;
}

const TRIGGER_NAME = 'Trigger under test';

/**
 * A polling trigger as an active workflow holds it: one node whose static data lives on between
 * polls, each poll run as n8n's scheduler runs it (n8n-core's TriggersAndPollers, PollContext)
 * over real HTTP.
 */
export function createPoller(options: PollerOptions = {}): Poller {
	ensureEngine();
	const { type = 'n8n-nodes-phprank.phpRankTrigger', typeVersion = 1 } = options;
	const nodeTypes = new HarnessNodeTypes(options);
	const nodeType = nodeTypes.getByNameAndVersion(type, typeVersion);
	const credentialsHelper = new HarnessCredentialsHelper(new HarnessCredentialTypes(options), options.credentials);
	const node: INode = {
		id: '00000000-0000-4000-8000-0000000000a1',
		name: TRIGGER_NAME,
		type,
		typeVersion,
		position: [0, 0],
		parameters: {},
		credentials: referenceCredentials(options.credentials),
	};
	node.parameters =
		NodeHelpers.getNodeParameters(nodeType.description.properties, deepCopy(options.parameters ?? {}), true, false, node, nodeType.description) ??
		{};
	const workflow = new Workflow({
		id: 'poll-workflow',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes,
		staticData: deepCopy(options.staticData ?? {}),
	});
	let polls = 0;
	return {
		async poll(mode = 'trigger') {
			polls++;
			const additionalData = createAdditionalData(credentialsHelper, `poll-${polls}`);
			const trigger = workflow.nodes[TRIGGER_NAME];
			const context = new PollContext(workflow, trigger, additionalData, mode, 'activate');
			return await Container.get(TriggersAndPollers).runPollFunction(workflow, trigger, context);
		},
		staticData: () => deepCopy(workflow.staticData as IDataObject),
		nodeStaticData: () => deepCopy(workflow.getStaticData('node', workflow.nodes[TRIGGER_NAME])),
	};
}

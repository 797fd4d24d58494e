import { Container } from '@n8n/di';
import { PollContext, TriggersAndPollers } from 'n8n-core';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { deepCopy, Workflow } from 'n8n-workflow';

import { credentialReferences } from './credentials';
import type { NodeOptions } from './instance';
import { createInstance, editorNode } from './instance';

export interface PollerOptions extends NodeOptions {
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

const TRIGGER_ID = '00000000-0000-4000-8000-0000000000a1';

/**
 * A polling trigger as an active workflow holds it: one node whose static data lives on between
 * polls, each poll run as n8n's scheduler runs it (n8n-core's TriggersAndPollers, PollContext)
 * over real HTTP.
 */
export function createPoller(options: PollerOptions = {}): Poller {
	const { type = 'n8n-nodes-phprank.phpRankTrigger', typeVersion = 1 } = options;
	const { nodeTypes, additionalData } = createInstance(options);
	const nodeType = nodeTypes.getByNameAndVersion(type, typeVersion);
	const references = credentialReferences(options.credentials);
	const node = editorNode(nodeType, { id: TRIGGER_ID, name: 'Trigger under test', type, typeVersion, ...references }, options.parameters);
	const staticData = deepCopy(options.staticData ?? {});
	const workflow = new Workflow({ id: 'poll-workflow', nodes: [node], connections: {}, active: true, nodeTypes, staticData });
	const trigger = () => workflow.nodes[node.name];
	let polls = 0;
	return {
		async poll(mode = 'trigger') {
			const context = new PollContext(workflow, trigger(), additionalData(`poll-${++polls}`), mode, 'activate');
			return await Container.get(TriggersAndPollers).runPollFunction(workflow, trigger(), context);
		},
		staticData: () => deepCopy(workflow.staticData as IDataObject),
		nodeStaticData: () => deepCopy(workflow.getStaticData('node', trigger())),
	};
}

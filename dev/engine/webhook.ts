import type { IDataObject, IExecuteResponsePromiseData } from 'n8n-workflow';
import { UserError } from 'n8n-workflow';

import type { RunOptions, RunResult, WorkflowFixture } from './run';
import { runWorkflow } from './run';

const WEBHOOK_NODE_TYPE = 'n8n-nodes-base.webhook';

export interface WebhookRequest {
	/** The query string's parameters, as n8n parses them. */
	query?: IDataObject;
	headers?: Record<string, string>;
	body?: IDataObject;
}

export interface WebhookRunResult extends RunResult {
	/** What the workflow's Respond to Webhook sent; undefined when none ran. */
	response?: IExecuteResponsePromiseData;
}

/**
 * Runs a workflow as n8n runs it when its Webhook node is called: the Webhook node outputs the request as n8n's
 * webhook server hands it on (headers, params, query, body), and what Respond to Webhook sends is the response.
 * n8n checks the webhook's authentication before the workflow starts, so none is checked here.
 */
export async function runWebhook(fixture: WorkflowFixture, request: WebhookRequest = {}, options: RunOptions = {}): Promise<WebhookRunResult> {
	const webhooks = fixture.nodes.filter((node) => node.type === WEBHOOK_NODE_TYPE && !node.disabled);
	if (webhooks.length !== 1) throw new UserError(`The workflow has ${webhooks.length} Webhook nodes; runWebhook starts at exactly one`);
	const [webhook] = webhooks;
	const path = String(webhook.parameters.path ?? '');
	const json: IDataObject = {
		headers: { host: '127.0.0.1:5678', ...request.headers },
		params: {},
		query: request.query ?? {},
		body: request.body ?? {},
		webhookUrl: `http://127.0.0.1:5678/webhook/${path}`,
		executionMode: 'production',
	};
	const result = await runWorkflow({ ...fixture, pinData: { ...fixture.pinData, [webhook.name]: [{ json }] } }, { ...options, startNode: webhook.name });
	return { ...result, response: result.responses[0] };
}

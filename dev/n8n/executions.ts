/**
 * Workflows run, activated and read back through n8n's REST API, the way the editor does it, on n8n 1.x and 2.x.
 */
import { majorOf } from './n8nVersions';
import type { N8nRest } from './n8n';
import type { WorkflowJson } from './examples';
import { waitFor } from './util';

export interface ExecutionSummary {
	id: string;
	workflowId: string;
	status: string;
	mode: string;
	startedAt?: string;
	stoppedAt?: string;
}

export interface ExecutionDetail extends ExecutionSummary {
	data: {
		resultData: {
			error?: { message?: string; node?: { name?: string } };
			lastNodeExecuted?: string;
			runData: Record<string, Array<{ executionStatus?: string; data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> } }>>;
		};
	};
}

const UNFINISHED = ['new', 'running', 'waiting', 'unknown'];

/**
 * n8n sends execution data in the `flatted` format (it may hold cycles): one array whose first entry is the
 * root, and in which every string inside an object or array is the index of the entry that holds its value.
 */
export function unflatten(text: string): unknown {
	const table = JSON.parse(text) as unknown[];
	const revived = new Map<number, unknown>();
	const revive = (index: number): unknown => {
		if (revived.has(index)) return revived.get(index);
		const entry = table[index];
		if (entry === null || typeof entry !== 'object') {
			revived.set(index, entry);
			return entry;
		}
		const copy: Record<string, unknown> | unknown[] = Array.isArray(entry) ? [] : {};
		revived.set(index, copy);
		for (const [key, value] of Object.entries(entry)) {
			(copy as Record<string, unknown>)[key] = typeof value === 'string' ? revive(Number(value)) : value;
		}
		return copy;
	};
	return revive(0);
}

/** Items a node sent out of one of its outputs, over all its runs. */
export function itemsOf(execution: ExecutionDetail, node: string, output = 0): Array<Record<string, unknown>> {
	const runs = execution.data.resultData.runData[node] ?? [];
	return runs.flatMap((run) => (run.data?.main?.[output] ?? []).map((item) => item.json));
}

const PAGE = 100;

/** Every execution of a workflow, newest first (n8n lists at most 100 at a time). */
export async function listExecutions(rest: N8nRest, workflowId: string): Promise<ExecutionSummary[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const all: ExecutionSummary[] = [];
	for (;;) {
		const before = all.length ? `&lastId=${all[all.length - 1].id}` : '';
		const { results } = await rest.call<{ results: ExecutionSummary[] }>('GET', `/rest/executions?filter=${filter}&limit=${PAGE}${before}`);
		all.push(...results);
		if (results.length < PAGE) return all;
	}
}

export async function getExecution(rest: N8nRest, id: string): Promise<ExecutionDetail> {
	const found = await rest.call<Omit<ExecutionDetail, 'data'> & { data: string | ExecutionDetail['data'] }>('GET', `/rest/executions/${id}`);
	return { ...found, data: (typeof found.data === 'string' ? unflatten(found.data) : found.data) as ExecutionDetail['data'] };
}

/** The execution once it has ended, within `timeoutMs`. */
export async function waitForExecution(rest: N8nRest, id: string, timeoutMs: number): Promise<ExecutionDetail> {
	await waitFor(
		`execution ${id} to finish`,
		async () => {
			const { status } = await rest.call<{ status: string }>('GET', `/rest/executions/${id}`);
			return UNFINISHED.includes(status) ? undefined : true;
		},
		{ timeoutMs, intervalMs: 1_000 },
	);
	return await getExecution(rest, id);
}

/**
 * What the editor's *Execute workflow* does: n8n 1.x wants the workflow in the request, n8n 2.x runs the stored
 * one and takes only where to start.
 */
export async function runManually(rest: N8nRest, n8nVersion: string, workflowId: string, triggerName: string): Promise<string> {
	const body: Record<string, unknown> = { triggerToStartFrom: { name: triggerName } };
	if (majorOf(n8nVersion) < 2) body.workflowData = await rest.call<WorkflowJson>('GET', `/rest/workflows/${workflowId}`);
	const { executionId } = await rest.call<{ executionId: string }>('POST', `/rest/workflows/${workflowId}/run`, body);
	return executionId;
}

interface PublicationStatus {
	status: 'in_progress' | 'not_published' | 'published' | 'partial' | 'failed';
	triggers: Array<{ nodeId: string; status: string; errorMessage?: string | null }>;
}

/**
 * What the editor's switch (1.x: Active, 2.x: Publish) does: n8n registers the workflow's webhooks and starts
 * its triggers and pollers. n8n 1.x has done so when it answers; n8n 2.x publishes in the background, and its
 * publication status tells when the triggers are live.
 */
export async function activateWorkflow(
	rest: N8nRest,
	n8nVersion: string,
	workflowId: string,
	{ timeoutMs = 60_000 }: { timeoutMs?: number } = {},
): Promise<void> {
	const { versionId } = await rest.call<{ versionId: string }>('GET', `/rest/workflows/${workflowId}`);
	if (majorOf(n8nVersion) < 2) {
		await rest.call('PATCH', `/rest/workflows/${workflowId}`, { active: true, versionId });
		return;
	}
	await rest.call('POST', `/rest/workflows/${workflowId}/activate`, { versionId });
	const settled = await waitFor(
		`workflow ${workflowId} to be published`,
		async () => {
			const found = await rest.call<PublicationStatus>('GET', `/rest/workflows/${workflowId}/publication-status`);
			return ['in_progress', 'not_published'].includes(found.status) ? undefined : found;
		},
		{ timeoutMs, intervalMs: 500 },
	);
	if (settled.status !== 'published') {
		const errors = settled.triggers.filter((trigger) => trigger.errorMessage).map((trigger) => trigger.errorMessage);
		throw new Error(`workflow ${workflowId} was not published (${settled.status}): ${errors.join('; ')}`);
	}
}

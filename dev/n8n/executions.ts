/**
 * Workflows run, activated and read back through n8n's REST API, the way the editor does it, on n8n 1.x and 2.x,
 * and the executions `n8n execute --rawOutput` prints.
 */
import { majorOf } from './n8nVersions';
import type { N8nRest } from './n8n';
import { tail } from './processes';
import { waitFor } from './util';

/** An execution as n8n's REST API and `n8n execute --rawOutput` give it. */
export interface Execution {
	id: string;
	status: string;
	data: {
		resultData: {
			error?: { message?: string; node?: { name?: string } };
			lastNodeExecuted?: string;
			runData: Record<string, Array<{ data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> } }>>;
		};
	};
}

export const isFinished = (execution: { status: string }) => !['new', 'running', 'waiting', 'unknown'].includes(execution.status);

/** Items a node sent out of one of its outputs, over all its runs. */
export function itemsOf(execution: Execution, node: string, output = 0): Array<Record<string, unknown>> {
	const runs = execution.data.resultData.runData[node] ?? [];
	return runs.flatMap((run) => (run.data?.main?.[output] ?? []).map((item) => item.json));
}

/** The execution `n8n execute --rawOutput` prints among its log lines. */
export function parseCliExecution(stdout: string): Execution {
	// One console.log between n8n's log lines, indented by two: from a line "{" to the next line that is "}".
	const json = /^\{\n[\s\S]*?\n\}$/m.exec(stdout)?.[0];
	if (!json) throw new Error(`no execution data in the output of n8n execute${tail(stdout, 15)}`);
	return JSON.parse(json) as Execution;
}

/**
 * n8n sends execution data in the `flatted` format (it may hold cycles): one array whose first entry is the
 * root, and in which every string inside an object or array is the index of the entry that holds its value.
 */
function unflatten(text: string): unknown {
	const table = JSON.parse(text) as unknown[];
	const revived = new Map<number, unknown>();
	const revive = (index: number): unknown => {
		const entry = table[index];
		if (revived.has(index) || entry === null || typeof entry !== 'object') return revived.get(index) ?? entry;
		const copy: Record<string, unknown> | unknown[] = Array.isArray(entry) ? [] : {};
		revived.set(index, copy);
		for (const [key, value] of Object.entries(entry)) {
			(copy as Record<string, unknown>)[key] = typeof value === 'string' ? revive(Number(value)) : value;
		}
		return copy;
	};
	return revive(0);
}

export async function getExecution(rest: N8nRest, id: string): Promise<Execution> {
	const found = await rest.call<Omit<Execution, 'data'> & { data: string | Execution['data'] }>('GET', `/rest/executions/${id}`);
	return { ...found, data: (typeof found.data === 'string' ? unflatten(found.data) : found.data) as Execution['data'] };
}

/** Every execution of a workflow, without its data, newest first (n8n lists at most 100 at a time). */
export async function listExecutions(rest: N8nRest, workflowId: string): Promise<Array<Omit<Execution, 'data'>>> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const all: Array<Omit<Execution, 'data'>> = [];
	for (;;) {
		const before = all.length ? `&lastId=${all[all.length - 1].id}` : '';
		const { results } = await rest.call<{ results: typeof all }>('GET', `/rest/executions?filter=${filter}&limit=100${before}`);
		all.push(...results);
		if (results.length < 100) return all;
	}
}

/** The execution once it has ended, within `timeoutMs`. */
export async function waitForExecution(rest: N8nRest, id: string, timeoutMs: number): Promise<Execution> {
	return await waitFor(
		`execution ${id} to finish`,
		async () => {
			const execution = await getExecution(rest, id);
			return isFinished(execution) ? execution : undefined;
		},
		{ timeoutMs, intervalMs: 1_000 },
	);
}

/**
 * What the editor's *Execute workflow* does: n8n 1.x wants the workflow in the request, n8n 2.x runs the stored
 * one and takes only where to start.
 */
export async function runManually(
	rest: N8nRest,
	n8nVersion: string,
	workflow: { id: string; nodes: Array<{ name: string; type: string }> },
	/** Another trigger to start from (a schedule's, say): it outputs its pinned data if the workflow has some. */
	triggerName?: string,
): Promise<string> {
	const trigger = workflow.nodes.find((node) => (triggerName ? node.name === triggerName : node.type === 'n8n-nodes-base.manualTrigger'));
	if (!trigger) throw new Error(triggerName ? `no trigger named ${triggerName}` : 'no manual trigger');
	const body: Record<string, unknown> = { triggerToStartFrom: { name: trigger.name } };
	if (majorOf(n8nVersion) < 2) body.workflowData = await rest.call('GET', `/rest/workflows/${workflow.id}`);
	const { executionId } = await rest.call<{ executionId: string }>('POST', `/rest/workflows/${workflow.id}/run`, body);
	return executionId;
}

/**
 * What the editor's switch (1.x: Active, 2.x: Publish) does: n8n registers the workflow's webhooks and starts
 * its triggers and pollers. n8n 1.x has done so when it answers; n8n 2.x publishes in the background, and its
 * publication status tells when the triggers are live.
 */
export async function activateWorkflow(rest: N8nRest, n8nVersion: string, options: { workflowId: string; timeoutMs?: number }): Promise<void> {
	const { workflowId, timeoutMs = 60_000 } = options;
	const { versionId } = await rest.call<{ versionId: string }>('GET', `/rest/workflows/${workflowId}`);
	if (majorOf(n8nVersion) < 2) {
		await rest.call('PATCH', `/rest/workflows/${workflowId}`, { active: true, versionId });
		return;
	}
	await rest.call('POST', `/rest/workflows/${workflowId}/activate`, { versionId });
	type Publication = { status: string; triggers: Array<{ errorMessage?: string | null }> };
	const settled = await waitFor(
		`workflow ${workflowId} to be published`,
		async () => {
			const found = await rest.call<Publication>('GET', `/rest/workflows/${workflowId}/publication-status`);
			return ['in_progress', 'not_published'].includes(found.status) ? undefined : found;
		},
		{ timeoutMs, intervalMs: 500 },
	);
	if (settled.status !== 'published') {
		const errors = settled.triggers.filter((trigger) => trigger.errorMessage).map((trigger) => trigger.errorMessage);
		throw new Error(`workflow ${workflowId} was not published (${settled.status}): ${errors.join('; ')}`);
	}
}

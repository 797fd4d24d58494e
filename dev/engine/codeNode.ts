import type { IExecuteFunctions, INodeExecutionData, IWorkflowExecuteAdditionalData } from 'n8n-workflow';
import { UserError } from 'n8n-workflow';
// The sandbox n8n's Code node ran JavaScript in before task runners, still shipped with it: the same `$input`,
// `$json`, `$('Node')`, `items` and helpers the runner gives the code, from the same workflow data proxy.
import { JavaScriptSandbox } from 'n8n-nodes-base/dist/nodes/Code/JavaScriptSandbox';
import { getSandboxContext } from 'n8n-nodes-base/dist/nodes/Code/Sandbox';

interface JavaScriptTask {
	code: string;
	nodeMode: 'runOnceForAllItems' | 'runOnceForEachItem' | 'runCode';
	continueOnFail: boolean;
	chunk?: { startIndex: number; count: number };
}

type TaskResult = { ok: true; result: unknown } | { ok: false; error: unknown };

async function run(executeFunctions: IExecuteFunctions, code: string, itemIndex: number, extra: Record<string, unknown>): Promise<unknown> {
	const context = { ...getSandboxContext.call(executeFunctions, itemIndex), ...extra };
	// The runner's `$input` is the node's input as n8n hands it: with Execute Once, its first item alone.
	const input = executeFunctions.getInputData();
	const given: Record<string | symbol, unknown> = { all: () => input, first: () => input[0], last: () => input.at(-1) };
	context.$input = new Proxy(context.$input, { get: (target, key) => (key in given ? given[key] : Reflect.get(target, key) as unknown) });
	return await new JavaScriptSandbox(context, code, executeFunctions.helpers).runCode();
}

/**
 * What n8n's JavaScript task runner answers the Code node (`startRunnerTask`), run in this process: the whole
 * input at once, or each item of the chunk asked for, an item's error kept on the item under Continue On Fail.
 * Python needs an n8n instance with its runner.
 */
export const startRunnerTask = (async (_additionalData: IWorkflowExecuteAdditionalData, jobType: string, settings: unknown, executeFunctions: IExecuteFunctions): Promise<TaskResult> => {
	if (jobType !== 'javascript') throw new UserError(`The Code node's ${jobType} needs an n8n instance with its task runner`);
	const { code, nodeMode, continueOnFail, chunk } = settings as JavaScriptTask;
	const functions = executeFunctions;
	try {
		if (nodeMode !== 'runOnceForEachItem') {
			const extra = nodeMode === 'runOnceForAllItems' ? { items: functions.getInputData() } : {};
			return { ok: true, result: await run(functions, code, 0, extra) };
		}
		const results: unknown[] = [];
		const input = functions.getInputData();
		const { startIndex = 0, count = input.length } = chunk ?? {};
		for (let index = startIndex; index < startIndex + count; index++) {
			try {
				const result = await run(functions, code, index, { item: input[index] });
				if (result !== null && result !== undefined) results.push(withPairedItem(result, index));
			} catch (error) {
				if (!continueOnFail) throw error;
				results.push({ json: { error: (error as Error).message }, pairedItem: { item: index } });
			}
		}
		return { ok: true, result: results };
	} catch (error) {
		return { ok: false, error };
	}
}) as IWorkflowExecuteAdditionalData['startRunnerTask'];

function withPairedItem(result: unknown, index: number): unknown {
	if (typeof result !== 'object' || Array.isArray(result)) return result;
	const item = result as Partial<INodeExecutionData>;
	return 'json' in item ? { ...item, pairedItem: item.pairedItem ?? { item: index } } : { json: item, pairedItem: { item: index } };
}

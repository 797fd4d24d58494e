import type { IDataObject, INode, INodeExecutionData, IRunExecutionData } from 'n8n-workflow';
import { UserError, Workflow } from 'n8n-workflow';

// n8n's own helpers for what the Form Ending page shows: its message is HTML, sanitized, its `\n` made lines.
import { handleNewlines, sanitizeHtml } from 'n8n-nodes-base/dist/nodes/Form/utils/utils';

import { HarnessNodeTypes } from './nodeTypes';
import type { RunOptions, RunResult, WorkflowFixture } from './run';
import { runWorkflow } from './run';

const FORM_TRIGGER_NODE_TYPE = 'n8n-nodes-base.formTrigger';
const FORM_NODE_TYPE = 'n8n-nodes-base.form';

/** A field of the Form Trigger as its parameters declare it. */
interface FormField {
	fieldLabel?: string;
	fieldName?: string;
	fieldType?: string;
}

/** What the visitor's browser showed after sending the form: the Form Ending page's title and message (HTML). */
export interface CompletionPage {
	node: string;
	title: string;
	message: string;
}

export interface FormRunResult extends RunResult {
	/** The Form Ending page the run stopped at to show the visitor; undefined when it ended without one. */
	completion?: CompletionPage;
}


/**
 * Runs a workflow as n8n runs it when a visitor sends its Form Trigger's form: the trigger outputs the fields as n8n's
 * form webhook does (keyed by label, by Field Name from version 2.4; checkboxes as the list of options ticked; text
 * and e-mail trimmed), with `submittedAt` and `formMode`. A run that reaches an n8n Form node's Form Ending waits there,
 * as in n8n; the page the visitor is sent to is rendered from that node's Completion Title and Message, evaluated
 * as n8n's waiting-form webhook evaluates them, with the items the node waits with. `submittedAt` is the run's
 * start unless given.
 */
export async function submitForm(fixture: WorkflowFixture, values: Record<string, unknown>, options: RunOptions & { submittedAt?: string } = {}): Promise<FormRunResult> {
	const triggers = fixture.nodes.filter((node) => node.type === FORM_TRIGGER_NODE_TYPE && !node.disabled);
	if (triggers.length !== 1) throw new UserError(`The workflow has ${triggers.length} Form Triggers; submitForm starts at exactly one`);
	const [trigger] = triggers;
	const fields = ((trigger.parameters.formFields as { values?: FormField[] } | undefined)?.values ?? []) as FormField[];
	const json: IDataObject = {};
	for (const field of fields) {
		const key = trigger.typeVersion >= 2.4 && field.fieldName ? field.fieldName : (field.fieldLabel ?? field.fieldName ?? '');
		if (!(key in values)) throw new UserError(`The form has no value for its field "${key}"`);
		const value = values[key];
		json[key] = value === null || value === undefined ? null : field.fieldType === 'text' || field.fieldType === 'email' || field.fieldType === undefined ? String(value as string).trim() : (value as IDataObject);
	}
	const unknown = Object.keys(values).filter((key) => !(key in json));
	if (unknown.length) throw new UserError(`The form has no field ${unknown.map((key) => `"${key}"`).join(', ')}`);
	json.submittedAt = options.submittedAt ?? new Date().toISOString();
	json.formMode = 'production';

	const { submittedAt: _submittedAt, ...runOptions } = options;
	const result = await runWorkflow({ ...fixture, pinData: { ...fixture.pinData, [trigger.name]: [{ json }] } }, { ...runOptions, startNode: trigger.name });
	return { ...result, completion: completionPage(fixture, result) };
}

function completionPage(fixture: WorkflowFixture, result: RunResult): CompletionPage | undefined {
	const { run } = result;
	const waitingAt = run.data.resultData.lastNodeExecuted;
	const node = fixture.nodes.find((candidate) => candidate.name === waitingAt);
	if (!run.waitTill || !node || node.type !== FORM_NODE_TYPE || node.parameters.operation !== 'completion') return undefined;
	const items = result.output(node.name);
	return {
		node: node.name,
		title: String(evaluate(fixture, run.data, node, 'completionTitle', items)),
		message: handleNewlines(sanitizeHtml(String(evaluate(fixture, run.data, node, 'completionMessage', items)))),
	};
}

function evaluate(fixture: WorkflowFixture, runData: IRunExecutionData, node: INode, parameter: string, items: INodeExecutionData[]): unknown {
	const workflow = new Workflow({
		id: fixture.id ?? 'harness-workflow',
		name: fixture.name,
		nodes: fixture.nodes,
		connections: fixture.connections,
		active: false,
		nodeTypes: new HarnessNodeTypes(),
		settings: { executionOrder: 'v1', ...fixture.settings },
	});
	const runIndex = (runData.resultData.runData[node.name]?.length ?? 1) - 1;
	return workflow.expression.getParameterValue(node.parameters[parameter] ?? '', runData, runIndex, 0, node.name, items, 'webhook', {});
}

import type { INode } from 'n8n-workflow';

import { submitForm } from '../../../dev/engine';
import type { WorkflowFixture } from '../../../dev/engine';

const field = (label: string, extra: Record<string, unknown> = {}) => ({ fieldLabel: label, ...extra });

/** A Form Trigger of `version` → a Set node → a Form Ending whose message shows what the Set node made. */
function formWorkflow(version: number, message: string): WorkflowFixture {
	const nodes: INode[] = [
		{
			id: 'f0000000-0000-4000-8000-000000000001',
			name: 'Form',
			type: 'n8n-nodes-base.formTrigger',
			typeVersion: version,
			position: [0, 0],
			webhookId: 'f0000000-0000-4000-8000-0000000000ff',
			parameters: {
				formTitle: 'Test',
				formFields: { values: [field('Page', { fieldName: 'page' }), field('E-mail', { fieldType: 'email', fieldName: 'email' }), field('Agree', { fieldType: 'checkbox', fieldName: 'agree' })] },
				options: {},
			},
		},
		{
			id: 'f0000000-0000-4000-8000-000000000002',
			name: 'Shown',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [200, 0],
			parameters: { mode: 'raw', jsonOutput: '={{ JSON.stringify({ shown: $json }) }}', options: {} },
		},
		{
			id: 'f0000000-0000-4000-8000-000000000003',
			name: 'Done',
			type: 'n8n-nodes-base.form',
			typeVersion: 2.3,
			position: [400, 0],
			parameters: { operation: 'completion', respondWith: 'text', completionTitle: '={{ "Hello " + $json.shown.formMode }}', completionMessage: message, options: {} },
		},
	];
	return {
		nodes,
		connections: { Form: { main: [[{ node: 'Shown', type: 'main', index: 0 }]] }, Shown: { main: [[{ node: 'Done', type: 'main', index: 0 }]] } },
	};
}

describe('submitForm', () => {
	it("outputs the fields as n8n's form webhook does (by label before version 2.4, trimmed), and renders the Form Ending page the run waits at", async () => {
		const message = '={{ "<b>" + $json.shown.Page + "</b><script>alert(1)</script>\\\\n" + $json.shown.Agree.join(",") }}';
		const result = await submitForm(formWorkflow(2.3, message), { Page: '  https://example.com/ ', 'E-mail': ' a@b.example ', Agree: ['yes'] }, { submittedAt: '2026-11-28T10:00:00.000Z' });

		expect(result.error).toBeUndefined();
		expect(result.output('Form').map((item) => item.json)).toEqual([
			{ Page: 'https://example.com/', 'E-mail': 'a@b.example', Agree: ['yes'], submittedAt: '2026-11-28T10:00:00.000Z', formMode: 'production' },
		]);
		expect(result.run.status).toBe('waiting');
		// n8n sanitizes the message (no script) and makes its `\n` a line.
		expect(result.completion).toEqual({ node: 'Done', title: 'Hello production', message: '<b>https://example.com/</b>\nyes' });
	});

	it('keys the fields by Field Name from version 2.4, and refuses a value for a field the form does not have', async () => {
		const result = await submitForm(formWorkflow(2.5, '={{ $json.shown.page }}'), { page: 'x', email: 'a@b.example', agree: [] });
		expect(result.completion?.message).toBe('x');
		await expect(submitForm(formWorkflow(2.3, ''), { Page: 'x', 'E-mail': 'a@b.example', Agree: [], Other: 1 })).rejects.toThrow('The form has no field "Other"');
	});
});

/**
 * The sticky notes of the example workflows tell a user where to look and what to click: repository paths, npm
 * scripts, the phpRank nodes' parameters and option labels, the workflow's own nodes. Each of those must exist,
 * so that a rename in the code fails here until the notes follow it.
 *
 * What a note is checked for (Markdown, as n8n renders it):
 * - Paths: every word that looks like one, in backticks or not: a slash-separated name ending in `/` (a folder,
 *   e.g. `dev/server/`) or in a file extension (e.g. `examples/data/urls.csv`, `bench/rateLimit.ts`). With a `/`
 *   it is relative to the repository; a bare file name (`project-digest-slack.json`) is an example next to this
 *   one, or a file at the repository's root; a file the workflow writes (a node's `fileName`) counts as existing.
 *   URL paths (`/__sim/pages`), URLs and host names are not paths.
 * - npm scripts: `npm run X`, `npm start`, `npm test` name scripts of package.json.
 * - Bold (`**…**`) that does not open a line (a bold opening line is a heading, e.g. **Set up**, **Credential**):
 *   - `**Field → Value**` or `**Field: Value**`: Field is a parameter of the phpRank node or trigger and Value
 *     one of its options, or an n8n setting of the allow-list below;
 *   - `**Label**` names a parameter (display name, at any depth), the phpRank node or trigger, the credential
 *     or one of its fields, or an n8n editor label of the allow-list;
 *   - otherwise, `**all lower case**` (e.g. the grade **bad**) is a value in prose: an option's label in any case;
 *   - anything else is reported. An option's label alone is not a parameter: **Result**, the Grade filter's old
 *     name, is still an option of Sort By and must not pass as a filter; name an option with its field,
 *     **Field → Value**.
 * - Italics (`*…*`): a node of this workflow, a credential its nodes use, or an n8n editor label of the allow-list.
 *
 * The labels come from the built descriptions (PhpRank, PhpRankTrigger, PhpRankApi), walked through options,
 * collections, fixed collections and resource locator modes.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';

import { PhpRankApi } from '../../credentials/PhpRankApi.credentials';
import { dataTableNodesNamedFor1x, type WorkflowJson } from '../../dev/n8n/examples';
import { PhpRank } from '../../nodes/PhpRank/PhpRank.node';
import { PhpRankTrigger } from '../../nodes/PhpRank/PhpRankTrigger.node';

const REPOSITORY_ROOT = path.resolve(__dirname, '..', '..');
const EXAMPLES_DIR = path.join(REPOSITORY_ROOT, 'examples');
const STICKY_NOTE = 'n8n-nodes-base.stickyNote';
const DATA_TABLE = 'n8n-nodes-base.dataTable';

/**
 * Labels of n8n itself that notes name, with the options they offer; they are in n8n's editor, not in any node
 * description this package can load. Keep to what the notes use.
 */
const N8N_LABELS: Record<string, string[]> = {
	// Every node's Settings tab: what a failing item does. The examples route unreachable pages this way.
	'On Error': ['Stop Workflow', 'Continue', 'Continue (using error output)'],
	// The button the editor shows on a polling trigger such as the phpRank Trigger, for a sample item.
	'Fetch Test Event': [],
	// The editor's button that runs a workflow by hand; the Manual Trigger is named after it.
	'Execute workflow': [],
	// The Webhook node's: how n8n checks a caller before the workflow starts (the dashboard's page).
	Authentication: ['None', 'Basic Auth', 'Header Auth', 'JWT Auth'],
};

const FILE_EXTENSION = /\.(json|csv|md|ts|js|mjs|cjs|yml|yaml|sh|txt)$/i;

type Property = INodeProperties | INodePropertyCollection;

/** Every parameter display name of the phpRank nodes and the credential, with the labels of its options. */
function parameterLabels(): Map<string, Set<string>> {
	const labels = new Map<string, Set<string>>();
	const walk = (properties: readonly Property[]) => {
		for (const property of properties) {
			const values = labels.get(property.displayName) ?? new Set<string>();
			labels.set(property.displayName, values);
			if ('values' in property) walk(property.values);
			if ('modes' in property) for (const mode of property.modes ?? []) values.add(mode.displayName);
			const options = ('options' in property ? (property.options ?? []) : []) as Array<Property | INodePropertyOptions>;
			for (const option of options) {
				if ('displayName' in option) walk([option]);
				else values.add(option.name);
			}
		}
	};
	walk(new PhpRank().description.properties);
	walk(new PhpRankTrigger().description.properties);
	walk(new PhpRankApi().properties);
	return labels;
}

const PARAMETERS = parameterLabels();
const OPTION_LABELS = new Set([...PARAMETERS.values()].flatMap((values) => [...values].map((value) => value.toLowerCase())));
const NAMES = new Set([new PhpRank().description.displayName, new PhpRankTrigger().description.displayName, new PhpRankApi().displayName]);
const SCRIPTS = Object.keys((JSON.parse(readFileSync(path.join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as { scripts: object }).scripts);

interface WorkflowNode {
	name: string;
	type: string;
	parameters: Record<string, unknown>;
	credentials?: Record<string, { name: string }>;
}

interface Workflow {
	nodes: WorkflowNode[];
}

function pathExists(token: string): boolean {
	const candidates = token.includes('/') ? [REPOSITORY_ROOT] : [EXAMPLES_DIR, REPOSITORY_ROOT];
	return candidates.some((folder) => {
		const file = path.join(folder, token);
		return existsSync(file) && (!token.endsWith('/') || statSync(file).isDirectory());
	});
}

function staleLabel(label: string): string | undefined {
	const pair = /^(.+?)\s*(?:→|:)\s*(.+)$/.exec(label);
	if (pair) {
		const [, field, value] = pair;
		const values = PARAMETERS.get(field) ?? (N8N_LABELS[field] ? new Set(N8N_LABELS[field]) : undefined);
		if (values === undefined) return `**${label}**: no parameter "${field}"`;
		return values.has(value) ? undefined : `**${label}**: "${value}" is not an option of "${field}"`;
	}
	if (PARAMETERS.has(label) || NAMES.has(label) || label in N8N_LABELS) return undefined;
	// A value in prose (the grade **bad**) is written in lower case.
	if (label === label.toLowerCase()) return OPTION_LABELS.has(label) ? undefined : `**${label}**: no option is labelled so`;
	return `**${label}**: no parameter is labelled so`;
}

/** What a note names that does not exist, one line each; empty when the note matches the code. */
function staleMentions(content: string, workflow: Workflow): string[] {
	const stale: string[] = [];
	const written = new Set(workflow.nodes.map((node) => node.parameters.fileName));

	for (const word of content.split(/\s+/)) {
		const token = word.replace(/^[`*_("'[{]+/, '').replace(/[`*_)"'\]},.;:!?]+$/, '');
		const looksLikePath = /^\w[\w.-]*(?:\/[\w.-]+)*\/?$/.test(token) && (token.endsWith('/') || FILE_EXTENSION.test(token));
		if (looksLikePath && !pathExists(token) && !written.has(token)) stale.push(`path ${token}: not in the repository`);
	}

	for (const [, run, own] of content.matchAll(/\bnpm\s+(?:run(?:-script)?\s+([\w:.-]*\w)|(start|test)\b)/g)) {
		const script = run ?? own;
		if (!SCRIPTS.includes(script)) stale.push(`npm script "${script}": not in package.json`);
	}

	for (const match of content.matchAll(/\*\*(.+?)\*\*/g)) {
		const opensLine = match.index === 0 || content[match.index - 1] === '\n';
		const problem = opensLine ? undefined : staleLabel(match[1].trim());
		if (problem) stale.push(problem);
	}

	const nodeNames = new Set(workflow.nodes.map((node) => node.name));
	const credentialNames = new Set(workflow.nodes.flatMap((node) => Object.values(node.credentials ?? {}).map((credential) => credential.name)));
	const withoutBold = content.replace(/\*\*(.+?)\*\*/g, (bold) => ' '.repeat(bold.length));
	for (const [, italic] of withoutBold.matchAll(/(?<![\w*])\*([^*\n]+?)\*(?![\w*])/g)) {
		if (!nodeNames.has(italic) && !credentialNames.has(italic) && !(italic in N8N_LABELS)) {
			stale.push(`*${italic}*: no node or credential of this workflow is called so`);
		}
	}

	return stale;
}

const examples = readdirSync(EXAMPLES_DIR)
	.filter((file) => file.endsWith('.json'))
	.sort();

describe.each(examples)('examples/%s', (file) => {
	const workflow = JSON.parse(readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as Workflow;
	const notes = workflow.nodes
		.filter((node) => node.type === STICKY_NOTE)
		.map((node) => ({ name: node.name, content: String(node.parameters.content ?? '') }));

	it('has a sticky note', () => expect(notes.length).toBeGreaterThan(0));

	it.each(notes.length ? notes : [{ name: '(none)', content: '' }])(
		'sticky note "$name" names only paths, npm scripts, labels and nodes that exist',
		({ content }) => {
			expect(staleMentions(content, workflow)).toEqual([]);
		},
	);

	// n8n 1.x's Data table node finds a table by ID only: a node the notes do not name fails there.
	const dataTableNodes = workflow.nodes.filter((node) => node.type === DATA_TABLE).map((node) => node.name);
	if (dataTableNodes.length > 0) {
		it('tells an n8n 1.x user to pick the table in each of its Data table nodes', () => {
			expect(dataTableNodesNamedFor1x(workflow as unknown as WorkflowJson).sort()).toEqual(dataTableNodes.sort());
		});
	}
});

describe('the sticky note check', () => {
	const workflow: Workflow = {
		nodes: [{ name: 'Find bad reports', type: 'n8n-nodes-phprank.phpRank', parameters: {}, credentials: { phpRankApi: { name: 'phpRank (bundled server)' } } }],
	};

	it('accepts what exists', () => {
		const note = [
			'**Heading** — *Find bad reports* with *phpRank (bundled server)*: filter on **Grade** (**bad**), **Search** or **Project**.',
			'**If the URL Already Has a Report → Return the Existing Report**, **On Error → Continue (using error output)**, **Privacy: Password**.',
			'`npm start`, `npm test`, `npm run server` (the server in `dev/server/`, see dev/server/README.md), `examples/data/urls.csv`, `weekly-report-clean-up.json`.',
			'Not paths: `POST <base URL>/__sim/pages`, `http://`, `www.`, `.invalid`, `staging.example.com`, e.g. 3.4, and/or.',
		].join('\n\n');

		expect(staleMentions(note, workflow)).toEqual([]);
	});

	it('reports a moved path, a missing script, a renamed parameter or option and an unknown node', () => {
		const note = [
			'The server in `server/` (see server/README.md) and `missing.json`; `npm run serve`.',
			'Filter on **Result** or **Grades**, set **If the URL Already Has a Report → Keep Both**, **Sort Direction → Ascending**, grade **awful**.',
			'Then *Delete reports*.',
		].join('\n\n');

		expect(staleMentions(note, workflow)).toEqual([
			'path server/: not in the repository',
			'path server/README.md: not in the repository',
			'path missing.json: not in the repository',
			'npm script "serve": not in package.json',
			'**Result**: no parameter is labelled so',
			'**Grades**: no parameter is labelled so',
			'**If the URL Already Has a Report → Keep Both**: "Keep Both" is not an option of "If the URL Already Has a Report"',
			'**Sort Direction → Ascending**: no parameter "Sort Direction"',
			'**awful**: no option is labelled so',
			'*Delete reports*: no node or credential of this workflow is called so',
		]);
	});
});

import { readdirSync } from 'node:fs';
import type { INodeParameters, INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { HarnessNodeTypes } from '../../dev/engine';
import { EXAMPLES_DIR, loadExampleWorkflow } from '../../dev/examples';

// As n8n serves them: with the parameters it adds itself (Poll Times, the request options).
const nodeTypes = new HarnessNodeTypes();
const descriptionOf = (type: string) => nodeTypes.getByNameAndVersion(type).description;
const PACKAGE_TYPES = ['n8n-nodes-phprank.phpRank', 'n8n-nodes-phprank.phpRankTool', 'n8n-nodes-phprank.phpRankTrigger'];

// n8n keeps only what a node declares and drops the rest without a word, so a renamed parameter left in an
// example would silently change what the example does.
function undeclared(parameters: INodeParameters, description: INodeTypeDescription, properties = description.properties, path = ''): string[] {
	const shown = properties.filter((property) => NodeHelpers.displayParameter(parameters, property, null, description, parameters));
	return Object.entries(parameters).flatMap(([name, value]) => {
		const declared = (path ? properties : shown).filter((property) => property.name === name);
		if (declared.length === 0) return [`${path}${name}`];
		const collection = declared.find((property) => property.type === 'collection');
		if (collection && typeof value === 'object' && value !== null) {
			return undeclared(value as INodeParameters, description, collection.options as INodeProperties[], `${path}${name}.`);
		}
		return [];
	});
}

const examples = readdirSync(EXAMPLES_DIR).filter((file) => file.endsWith('.json'));

describe('example workflows', () => {
	it.each(examples)('%s sets only parameters the phpRank nodes declare for their operation', (file) => {
		const workflow = loadExampleWorkflow(file);
		const nodes = workflow.nodes.filter((node) => PACKAGE_TYPES.includes(node.type));
		// Each example uses phpRank, or works on the history the site audits keep in n8n's Data tables.
		expect(nodes.length > 0 || workflow.nodes.some((node) => node.type === 'n8n-nodes-base.dataTable')).toBe(true);
		for (const node of nodes) {
			expect({ node: node.name, undeclared: undeclared(node.parameters, descriptionOf(node.type)) }).toEqual({
				node: node.name,
				undeclared: [],
			});
		}
	});

	// Real n8n 1.x (1.123) gives an expression outside a Code node nothing for a Code node's items ($('Code').first(),
	// .item, .all()), whatever the Code node output; other nodes' items, $json and $('Code').isExecuted work on both lines.
	it.each(examples)("%s reads a Code node's items only from Code nodes", (file) => {
		const { nodes } = loadExampleWorkflow(file);
		const codeNodes = new Set(nodes.filter((node) => node.type === 'n8n-nodes-base.code').map((node) => node.name));
		const readingCode = nodes
			.filter((node) => node.type !== 'n8n-nodes-base.code')
			.flatMap((node) =>
				[...JSON.stringify(node.parameters).matchAll(/\$\(\s*'([^']+)'\s*\)(?!\.isExecuted)/g)]
					.map((match) => match[1])
					.filter((name) => codeNodes.has(name))
					.map((name) => `${node.name} reads ${name}`),
			);
		expect([...new Set(readingCode)]).toEqual([]);
	});
});

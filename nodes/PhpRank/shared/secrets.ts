import type { INode, INodeParameters } from 'n8n-workflow';

const HIDDEN = '[hidden]';

// Expressions are hidden too: one may hold the password itself.
function withoutPassword(parameters: INodeParameters | undefined): INodeParameters | undefined {
	if (parameters === undefined || parameters.password === undefined || parameters.password === '') return parameters;
	return { ...parameters, password: HIDDEN };
}

/**
 * The node as errors carry it: n8n stores an error with a copy of its node, parameters included,
 * and a report password typed into the node must not travel with it.
 */
export function nodeForErrors(node: INode): INode {
	const parameters = withoutPassword(node.parameters) as INodeParameters;
	const updateFields = parameters.updateFields as INodeParameters | undefined;
	return {
		...node,
		parameters: updateFields === undefined ? parameters : { ...parameters, updateFields: withoutPassword(updateFields) ?? {} },
	};
}

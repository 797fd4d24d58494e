import get from 'lodash/get';
import { CredentialTestContext, ExecuteContext, RoutingNode } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunction,
	ICredentialTestRequest,
	INode,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IRunExecutionData,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { NodeHelpers, UserError, VersionedNodeType, Workflow } from 'n8n-workflow';

import type { CredentialTypesOptions } from './credentials';
import { HarnessCredentialsHelper, HarnessCredentialTypes } from './credentials';
import { basePackageLoader } from './loaders';
import type { NodeTypesOptions } from './nodeTypes';
import { HarnessNodeTypes } from './nodeTypes';
import { createAdditionalData } from './run';
import { ensureBinaryData } from './setup';

export type CredentialTestOptions = NodeTypesOptions & CredentialTypesOptions;

type FoundTest =
	| { kind: 'request'; testRequest: ICredentialTestRequest; nodeType?: INodeType }
	| { kind: 'function'; test: ICredentialTestFunction };

// n8n's wording for a credential it cannot test.
const NO_TEST_MESSAGE = 'No testing function found for this credential.';

/** Where n8n looks for a credential's test: on the type, else on a node that uses it. */
function findTest(
	credentialType: string,
	credentialTypes: HarnessCredentialTypes,
	nodeTypes: INodeTypes,
): FoundTest | undefined {
	const type = credentialTypes.getByName(credentialType);
	if (type.test) return { kind: 'request', testRequest: type.test };

	for (const nodeTypeName of credentialTypes.getSupportedNodes(credentialType)) {
		const node = nodeTypes.getByName(nodeTypeName);
		const versions =
			node instanceof VersionedNodeType ? Object.values(node.nodeVersions) : [node as INodeType];
		for (const version of versions) {
			for (const { name, testedBy } of version.description.credentials ?? []) {
				if (name !== credentialType || !testedBy) continue;
				if (typeof testedBy === 'string') {
					const test = version.methods?.credentialTest?.[testedBy];
					if (test) return { kind: 'function', test };
					continue;
				}
				return { kind: 'request', testRequest: testedBy, nodeType: version };
			}
		}
	}
	return undefined;
}

/** n8n borrows the No Operation node's description unless a node supplied the test. */
function noOpDescription(): INodeTypeDescription {
	const noOp = basePackageLoader().findNode('noOp');
	if (!noOp) throw new UserError('n8n-nodes-base has no "noOp" node');
	return NodeHelpers.getVersionedNodeType(noOp).description;
}

function errorMessage(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/**
 * Tests credentials as the "Test" / save button of n8n's credential modal does:
 * a declarative `test` request is sent through RoutingNode from a throw-away
 * node carrying the credential, and the outcome is mapped to OK / Error with
 * the same rules (`test.rules`, non-2xx status, network error code). n8n's server
 * does this, not n8n-core; the end-to-end suite compares the two.
 */
export async function testCredential(
	credentialType: string,
	data: ICredentialDataDecryptedObject,
	options: CredentialTestOptions = {},
): Promise<INodeCredentialTestResult> {
	await ensureBinaryData();
	const credentialTypes = new HarnessCredentialTypes(options);
	const nodeTypes = new HarnessNodeTypes(options);
	const credentialsHelper = new HarnessCredentialsHelper(credentialTypes, {
		[credentialType]: data,
	});
	const additionalData = createAdditionalData(credentialsHelper, 'harness-credential-test');

	const found = findTest(credentialType, credentialTypes, nodeTypes);
	if (!found) return { status: 'Error', message: NO_TEST_MESSAGE };

	const credentials: ICredentialsDecrypted = {
		id: 'credential-under-test',
		name: credentialType,
		type: credentialType,
		data: credentialsHelper.applyDefaults(additionalData, data, credentialType, 'internal'),
	};

	if (found.kind === 'function') {
		return await found.test.call(new CredentialTestContext(additionalData), credentials);
	}
	return await runTestRequest(found, credentials, credentialType, additionalData);
}

async function runTestRequest(
	found: Extract<FoundTest, { kind: 'request' }>,
	credentials: ICredentialsDecrypted,
	credentialType: string,
	additionalData: IWorkflowExecuteAdditionalData,
): Promise<INodeCredentialTestResult> {
	const { testRequest } = found;
	const hostDescription = found.nodeType?.description ?? noOpDescription();
	const testNodeType: INodeType = {
		description: {
			...hostDescription,
			name: found.nodeType ? hostDescription.name : 'n8n-nodes-base.noOp',
			credentials: [{ name: credentialType, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: testRequest.request },
					default: '',
				},
			],
		},
	};
	const typeVersion = Array.isArray(testNodeType.description.version)
		? testNodeType.description.version.slice(-1)[0]
		: testNodeType.description.version;

	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: testNodeType.description.name,
		typeVersion,
		position: [0, 0],
		parameters: {},
		credentials: { [credentialType]: { id: credentials.id, name: credentials.name } },
	};
	const onlyTestNode: INodeTypes = {
		getByName: () => testNodeType,
		getByNameAndVersion: () => testNodeType,
		getKnownTypes: () => ({}),
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: onlyTestNode,
	});
	const runExecutionData: IRunExecutionData = { resultData: { runData: {} } } as IRunExecutionData;
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		runExecutionData,
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);

	let response: INodeExecutionData[][] | null | undefined;
	try {
		response = await new RoutingNode(context, testNodeType, credentials).runNode();
	} catch (error) {
		const cause = (error as { cause?: { response?: { status: number; statusText?: string }; code?: string } })
			.cause;
		if (cause?.response) {
			const { status, statusText } = cause.response;
			for (const rule of testRequest.rules ?? []) {
				if (rule.type === 'responseCode' && rule.properties.value === status) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
			if (status < 199 || status > 299) {
				return { status: 'Error', message: statusText || `Received HTTP status code: ${status}` };
			}
		} else if (cause?.code) {
			return { status: 'Error', message: cause.code };
		}
		return { status: 'Error', message: errorMessage(error) };
	}

	for (const rule of testRequest.rules ?? []) {
		if (rule.type !== 'responseSuccessBody') continue;
		const body = response?.[0]?.[0]?.json;
		if (get(body, rule.properties.key) === rule.properties.value) {
			return { status: 'Error', message: rule.properties.message };
		}
	}
	return { status: 'OK', message: 'Connection successful!' };
}

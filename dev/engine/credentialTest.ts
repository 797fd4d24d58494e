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
	IRunExecutionData,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import type { CredentialTypesOptions, HarnessCredentialTypes } from './credentials';
import { createInstance } from './instance';
import type { HarnessNodeTypes, NodeTypesOptions } from './nodeTypes';
import { allVersions, latestVersion } from './nodeTypes';
import { ensureBinaryData } from './setup';

export type CredentialTestOptions = NodeTypesOptions & CredentialTypesOptions;

type FoundTest = { testRequest: ICredentialTestRequest; nodeType?: INodeType } | { test: ICredentialTestFunction };

/** Where n8n looks for a credential's test: on the type, else on a node that uses it. */
function findTest(credentialType: string, credentialTypes: HarnessCredentialTypes, nodeTypes: HarnessNodeTypes): FoundTest | undefined {
	const { test } = credentialTypes.getByName(credentialType);
	if (test) return { testRequest: test };

	for (const nodeTypeName of credentialTypes.getSupportedNodes(credentialType)) {
		for (const version of allVersions(nodeTypes.getByName(nodeTypeName))) {
			for (const { name, testedBy } of version.description.credentials ?? []) {
				if (name !== credentialType || !testedBy) continue;
				if (typeof testedBy !== 'string') return { testRequest: testedBy, nodeType: version };
				const testFunction = version.methods?.credentialTest?.[testedBy];
				if (testFunction) return { test: testFunction };
			}
		}
	}
	return undefined;
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
	const instance = createInstance({ ...options, credentials: { [credentialType]: data } });
	const { nodeTypes, credentialTypes, credentialsHelper, additionalData } = instance;
	const harnessData = additionalData('harness-credential-test');

	const found = findTest(credentialType, credentialTypes, nodeTypes);
	// n8n's wording for a credential it cannot test.
	if (!found) return { status: 'Error', message: 'No testing function found for this credential.' };

	const credentials: ICredentialsDecrypted = {
		id: 'credential-under-test',
		name: credentialType,
		type: credentialType,
		data: credentialsHelper.withDefaults(credentialType, data),
	};
	if ('test' in found) return await found.test.call(new CredentialTestContext(harnessData), credentials);

	// n8n borrows the No Operation node's description unless a node supplied the test.
	const hostDescription = (found.nodeType ?? nodeTypes.getByNameAndVersion('n8n-nodes-base.noOp')).description;
	const testNodeType: INodeType = {
		description: {
			...hostDescription,
			name: found.nodeType ? hostDescription.name : 'n8n-nodes-base.noOp',
			credentials: [{ name: credentialType, required: true }],
			properties: [{ displayName: 'Temp', name: 'temp', type: 'string', routing: { request: found.testRequest.request }, default: '' }],
		},
	};
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: testNodeType.description.name,
		typeVersion: latestVersion(testNodeType.description),
		position: [0, 0],
		parameters: {},
		credentials: { [credentialType]: { id: credentials.id, name: credentials.name } },
	};
	const onlyTestNode = { getByName: () => testNodeType, getByNameAndVersion: () => testNodeType, getKnownTypes: () => ({}) };
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: onlyTestNode });
	const runExecutionData = { resultData: { runData: {} } } as IRunExecutionData;
	const inputData = { main: [[{ json: {} }]] };
	const executeData = { node, data: {}, source: null };
	const context = new ExecuteContext(workflow, node, harnessData, 'internal', runExecutionData, 0, [], inputData, executeData, []);
	let response: INodeExecutionData[][] | null | undefined;
	try {
		response = await new RoutingNode(context, testNodeType, credentials).runNode();
	} catch (error) {
		return failure(found.testRequest, error);
	}
	for (const rule of found.testRequest.rules ?? []) {
		if (rule.type === 'responseSuccessBody' && get(response?.[0]?.[0]?.json, rule.properties.key) === rule.properties.value) {
			return { status: 'Error', message: rule.properties.message };
		}
	}
	return { status: 'OK', message: 'Connection successful!' };
}

/** What n8n answers when the test request failed: by the test's rules on the status, else any non-2xx status or network error. */
function failure({ rules = [] }: ICredentialTestRequest, error: unknown): INodeCredentialTestResult {
	const cause = (error as { cause?: { response?: { status: number; statusText?: string }; code?: string } }).cause;
	if (cause?.response) {
		const { status, statusText } = cause.response;
		const rule = rules.find((candidate) => candidate.type === 'responseCode' && candidate.properties.value === status);
		if (rule) return { status: 'Error', message: rule.properties.message };
		if (status < 199 || status > 299) return { status: 'Error', message: statusText || `Received HTTP status code: ${status}` };
	} else if (cause?.code) {
		return { status: 'Error', message: cause.code };
	}
	return { status: 'Error', message: error instanceof Error ? error.message : String(error) };
}

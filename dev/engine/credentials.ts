import { createHash } from 'node:crypto';

import { Credentials, getAdditionalKeys, UnrecognizedCredentialTypeError } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentialTypes,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
} from 'n8n-workflow';
import { ICredentialsHelper, isExpression, NodeHelpers, UserError } from 'n8n-workflow';

import { findCredentialType } from './loaders';

export type CredentialsData = Record<string, ICredentialDataDecryptedObject>;

export interface CredentialTypesOptions {
	/** Credential types to serve besides the package's own and n8n-nodes-base's. */
	credentialTypes?: ICredentialType[];
}

/**
 * Credential types as an n8n instance with this package installed knows them: the package's own (from
 * `n8n.credentials`, read from source), n8n-nodes-base's (loaded lazily) and any extra types a test hands in.
 */
export class HarnessCredentialTypes implements ICredentialTypes {
	private readonly extraTypes: Map<string, ICredentialType>;

	constructor(options: CredentialTypesOptions = {}) {
		this.extraTypes = new Map((options.credentialTypes ?? []).map((type) => [type.name, type]));
	}

	recognizes(typeName: string): boolean {
		return this.find(typeName) !== undefined;
	}

	getByName(typeName: string): ICredentialType {
		const found = this.find(typeName);
		if (!found) throw new UnrecognizedCredentialTypeError(typeName);
		return found.type;
	}

	/** Full node type names (`package.node`) allowed to use the credential. */
	getSupportedNodes(typeName: string): string[] {
		return this.find(typeName)?.supportedNodes ?? [];
	}

	getParentTypes(typeName: string): string[] {
		return (this.getByName(typeName).extends ?? []).flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	private find(typeName: string): { type: ICredentialType; supportedNodes: string[] } | undefined {
		const extra = this.extraTypes.get(typeName);
		return extra ? { type: extra, supportedNodes: extra.supportedNodes ?? [] } : findCredentialType(typeName);
	}
}

/** n8n's CredentialsHelper, and its defaults step on its own, which is all the credential test applies. */
type HarnessCredentialsHelper = ICredentialsHelper & {
	withDefaults(typeName: string, stored: ICredentialDataDecryptedObject): ICredentialDataDecryptedObject;
};

/**
 * What an n8n server's CredentialsHelper does for a node at run time, with the
 * stored (decrypted) credentials replaced by the data a test provides per type:
 * fills in property defaults, resolves expressions in credential values, applies
 * the type's `authenticate` (generic or function) and `preAuthentication`.
 */
export function createCredentialsHelper(credentialTypes: HarnessCredentialTypes, given: CredentialsData = {}): HarnessCredentialsHelper {
	const data: CredentialsData = { ...given };
	const requireData = ({ id }: INodeCredentialsDetails, typeName: string) => {
		// The message an instance gives when the referenced credential is missing.
		if (data[typeName] === undefined) throw new UserError(`Credential with ID "${id ?? ''}" does not exist for type "${typeName}".`);
		return data[typeName];
	};

	const helper: HarnessCredentialsHelper = {
		getParentTypes: (typeName) => credentialTypes.getParentTypes(typeName),

		isCredentialUsableByNode(credentialType, nodeType) {
			if (!credentialTypes.recognizes(credentialType) || !credentialTypes.getByName(credentialType).restrictToSupportedNodes) return true;
			return credentialTypes.getSupportedNodes(credentialType).includes(nodeType);
		},

		async authenticate(credentials, typeName, requestOptions, workflow, node) {
			const { authenticate } = credentialTypes.getByName(typeName);
			if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions as IHttpRequestOptions);
			if (authenticate?.type === 'generic') {
				if (!workflow || !node) throw new UserError('Generic credential authentication needs the workflow and node');
				// Keys and values may be `={{$credentials.x}}`-style expressions, resolved as n8n does.
				const resolve = (value: unknown) => {
					if (typeof value !== 'string' || !isExpression(value)) return value;
					const { expression } = workflow;
					const resolved = expression.getSimpleParameterValue(node, value, 'internal', { $credentials: credentials }, undefined, '');
					return resolved ? resolved.toString() : '';
				};
				requestOptions.headers ??= {};
				const options = requestOptions as unknown as Record<string, Record<string, unknown>>;
				for (const [target, entries] of Object.entries(authenticate.properties)) {
					options[target] ??= {};
					for (const [key, value] of Object.entries(entries as Record<string, unknown>)) {
						options[target][String(resolve(key))] = resolve(value);
					}
				}
			}
			return requestOptions as IHttpRequestOptions;
		},

		async preAuthentication(helpers, credentials, typeName, node, credentialsExpired) {
			const type = credentialTypes.getByName(typeName);
			const expirable = type.properties.find((property) => property.type === 'hidden' && property.typeOptions?.expirable === true);
			if (expirable === undefined || typeof type.preAuthentication !== 'function') return undefined;

			// The credential tester's throw-away node, as n8n recognises it.
			const isCredentialTest = node.parameters?.temp === '' && node.type === 'n8n-nodes-base.noOp';
			if (credentials[expirable.name] !== '' && !credentialsExpired && !isCredentialTest) return undefined;

			const output = (await type.preAuthentication.call(helpers, credentials)) as ICredentialDataDecryptedObject;
			if (output[expirable.name] === undefined || !node.credentials) return undefined;

			const stored = data[typeName] ?? {};
			const toStore: ICredentialDataDecryptedObject = { ...stored };
			for (const [key, value] of Object.entries(output)) {
				if (key === expirable.name || !isExpression(stored[key])) toStore[key] = value;
			}
			await helper.updateCredentials(node.credentials[typeName], typeName, toStore);
			return Object.assign(credentials, output);
		},

		async runPreAuthentication(helpers, credentials, typeName) {
			const { preAuthentication } = credentialTypes.getByName(typeName);
			if (typeof preAuthentication !== 'function') return undefined;
			return ((await preAuthentication.call(helpers, credentials)) as ICredentialDataDecryptedObject | undefined) ?? undefined;
		},

		async getCredentials(nodeCredentials, typeName) {
			const credentials = new Credentials({ id: nodeCredentials.id, name: nodeCredentials.name }, typeName);
			await credentials.setData(requireData(nodeCredentials, typeName));
			return credentials;
		},

		// As n8n: unset properties take the credential type's defaults, then expressions in the values are
		// resolved in the context of the running node.
		async getDecrypted(additionalData, nodeCredentials, typeName, mode, executeData, raw, expressionResolveValues) {
			const stored = requireData(nodeCredentials, typeName);
			if (raw === true) return { ...stored };
			const withDefaults = helper.withDefaults(typeName, stored);
			if (!expressionResolveValues) return withDefaults;

			const { workflow, runExecutionData, runIndex, itemIndex, node, connectionInputData } = expressionResolveValues;
			try {
				return workflow.expression.getParameterValue(
					withDefaults as INodeParameters,
					runExecutionData,
					runIndex,
					itemIndex,
					node.name,
					connectionInputData,
					mode,
					getAdditionalKeys(additionalData, mode, null, { isCredential: true }),
					executeData,
					false,
					withDefaults,
				) as ICredentialDataDecryptedObject;
			} catch (error) {
				(error as Error).message += ' [Error resolving credentials]';
				throw error;
			}
		},

		withDefaults(typeName, stored) {
			const properties = helper.getCredentialsProperties(typeName);
			const filled = NodeHelpers.getNodeParameters(properties, stored as INodeParameters, true, false, null, null) as typeof stored;
			for (const keep of ['oauthTokenData', 'allowedHttpRequestDomains', 'allowedDomains']) {
				if (filled[keep] === undefined && stored[keep] !== undefined) filled[keep] = stored[keep];
			}
			return filled;
		},

		getCredentialsProperties(typeName) {
			const type = credentialTypes.getByName(typeName);
			if (type.extends === undefined) {
				if (!['oAuth1Api', 'oAuth2Api'].includes(typeName)) return type.properties;
				return [...type.properties, { displayName: 'oauthTokenData', name: 'oauthTokenData', type: 'json', required: false, default: {} }];
			}
			const combined: INodeProperties[] = [];
			for (const parent of type.extends) NodeHelpers.mergeNodeProperties(combined, helper.getCredentialsProperties(parent));
			// The type's own properties win over what it extends.
			NodeHelpers.mergeNodeProperties(combined, type.properties);
			return combined;
		},

		async updateCredentials(_nodeCredentials, typeName, updated) {
			data[typeName] = { ...updated };
		},

		async updateCredentialsOauthTokenData(_nodeCredentials, typeName, updated) {
			data[typeName] = { ...data[typeName], oauthTokenData: updated.oauthTokenData };
		},
	};
	return helper;
}

/**
 * Every credential type given to a run, referenced on a node as if picked in its credential field. As in
 * an instance, the same credential keeps its id from run to run and another credential has another id.
 */
export function credentialReferences(credentials: CredentialsData = {}): Pick<INode, 'credentials'> {
	const types = Object.keys(credentials);
	if (types.length === 0) return {};
	const id = (type: string) => createHash('sha256').update(JSON.stringify(credentials[type])).digest('hex').slice(0, 16);
	return { credentials: Object.fromEntries(types.map((type) => [type, { id: id(type), name: type }])) };
}

import { createHash } from 'node:crypto';
import { Credentials, getAdditionalKeys, UnrecognizedCredentialTypeError } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsExpressionResolveValues,
	ICredentialType,
	ICredentialTypes,
	IExecuteData,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentials,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
	Workflow,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { ICredentialsHelper, isExpression, NodeHelpers, UserError } from 'n8n-workflow';

import { basePackageLoader, ownPackageLoader } from './loaders';

export type CredentialsData = Record<string, ICredentialDataDecryptedObject>;

export interface CredentialTypesOptions {
	/** Credential types to serve besides the package's own and n8n-nodes-base's. */
	credentialTypes?: ICredentialType[];
}

/**
 * Credential types as an n8n instance with this package installed knows them:
 * the package's own (from `n8n.credentials`, read from source), n8n-nodes-base's
 * (loaded lazily) and any extra types a test hands in.
 */
export class HarnessCredentialTypes implements ICredentialTypes {
	private readonly extraTypes = new Map<string, ICredentialType>();

	constructor(options: CredentialTypesOptions = {}) {
		for (const type of options.credentialTypes ?? []) this.extraTypes.set(type.name, type);
	}

	recognizes(typeName: string): boolean {
		return this.find(typeName) !== undefined;
	}

	getByName(typeName: string): ICredentialType {
		const type = this.find(typeName);
		if (!type) throw new UnrecognizedCredentialTypeError(typeName);
		return type;
	}

	/** Full node type names (`package.node`) allowed to use the credential. */
	getSupportedNodes(typeName: string): string[] {
		const extra = this.extraTypes.get(typeName);
		if (extra) return extra.supportedNodes ?? [];
		const base = basePackageLoader();
		if (typeName in base.known.credentials) {
			return (base.known.credentials[typeName].supportedNodes ?? []).map(
				(node) => `${base.packageName}.${node}`,
			);
		}
		const own = ownPackageLoader();
		return (own.known.credentials[typeName]?.supportedNodes ?? []).map(
			(node) => `${own.packageName}.${node}`,
		);
	}

	getParentTypes(typeName: string): string[] {
		const parents = this.getByName(typeName).extends ?? [];
		return parents.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	private find(typeName: string): ICredentialType | undefined {
		const extra = this.extraTypes.get(typeName);
		if (extra) return extra;
		// n8n-nodes-base is consulted first because its index is cheap to check,
		// while the package's own types need its sources loaded.
		const base = basePackageLoader();
		if (typeName in base.known.credentials || typeName in base.credentialTypes) {
			return base.getCredential(typeName).type;
		}
		const own = ownPackageLoader();
		return typeName in own.credentialTypes ? own.credentialTypes[typeName].type : undefined;
	}
}

type RequestOptions = IHttpRequestOptions | IRequestOptionsSimplified;

/**
 * What an n8n server's CredentialsHelper does for a node at run time, with the
 * stored (decrypted) credentials replaced by the data a test provides per type:
 * fills in property defaults, resolves expressions in credential values, applies
 * the type's `authenticate` (generic or function) and `preAuthentication`.
 */
export class HarnessCredentialsHelper extends ICredentialsHelper {
	private readonly data: CredentialsData;

	constructor(
		readonly credentialTypes: HarnessCredentialTypes,
		data: CredentialsData = {},
	) {
		super();
		this.data = { ...data };
	}

	/** The credential data as currently held, including anything pre-authentication stored. */
	getStored(typeName: string): ICredentialDataDecryptedObject | undefined {
		return this.data[typeName];
	}

	getParentTypes(typeName: string): string[] {
		return this.credentialTypes.getParentTypes(typeName);
	}

	isCredentialUsableByNode(credentialType: string, nodeType: string): boolean {
		if (!this.credentialTypes.recognizes(credentialType)) return true;
		const type = this.credentialTypes.getByName(credentialType);
		if (!type.restrictToSupportedNodes) return true;
		return this.credentialTypes.getSupportedNodes(credentialType).includes(nodeType);
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: RequestOptions,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.credentialTypes.getByName(typeName);
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
		if (typeof authenticate === 'object' && authenticate.type === 'generic') {
			if (!workflow || !node) {
				throw new UserError('Generic credential authentication needs the workflow and node');
			}
			const resolve = (value: unknown) =>
				this.resolveAuthValue(value, credentials, workflow, node);
			requestOptions.headers ??= {};
			for (const [target, entries] of Object.entries(authenticate.properties)) {
				const options = requestOptions as unknown as Record<string, Record<string, unknown>>;
				options[target] ??= {};
				for (const [key, value] of Object.entries(entries as Record<string, unknown>)) {
					options[target][String(resolve(key))] = resolve(value);
				}
			}
		}
		return requestOptions as IHttpRequestOptions;
	}

	/** Resolves `={{$credentials.x}}`-style values the way n8n does for generic auth. */
	private resolveAuthValue(
		value: unknown,
		credentials: ICredentialDataDecryptedObject,
		workflow: Workflow,
		node: INode,
	): unknown {
		if (typeof value !== 'string' || !isExpression(value)) return value;
		const resolved = workflow.expression.getSimpleParameterValue(
			node,
			value,
			'internal',
			{ $credentials: credentials },
			undefined,
			'',
		);
		return resolved ? resolved.toString() : '';
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.credentialTypes.getByName(typeName);
		const expirable = type.properties.find(
			(property) => property.type === 'hidden' && property.typeOptions?.expirable === true,
		);
		if (expirable === undefined || typeof type.preAuthentication !== 'function') return undefined;

		// The credential tester's throw-away node, as n8n recognises it.
		const isCredentialTest = node.parameters?.temp === '' && node.type === 'n8n-nodes-base.noOp';
		if (credentials[expirable.name] !== '' && !credentialsExpired && !isCredentialTest) {
			return undefined;
		}

		const output = (await type.preAuthentication.call(
			helpers,
			credentials,
		)) as ICredentialDataDecryptedObject;
		if (output[expirable.name] === undefined || !node.credentials) return undefined;

		const stored = this.data[typeName] ?? {};
		const toStore: ICredentialDataDecryptedObject = { ...stored };
		for (const [key, value] of Object.entries(output)) {
			if (key === expirable.name || !isExpression(stored[key])) toStore[key] = value;
		}
		await this.updateCredentials(node.credentials[typeName], typeName, toStore);
		return Object.assign(credentials, output);
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.credentialTypes.getByName(typeName);
		if (typeof type.preAuthentication !== 'function') return undefined;
		const output = await type.preAuthentication.call(helpers, credentials);
		return (output as ICredentialDataDecryptedObject | undefined) ?? undefined;
	}

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		typeName: string,
	): Promise<Credentials> {
		const credentials = new Credentials(
			{ id: nodeCredentials.id, name: nodeCredentials.name },
			typeName,
		);
		await credentials.setData(this.requireData(nodeCredentials, typeName));
		return credentials;
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		typeName: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const stored = this.requireData(nodeCredentials, typeName);
		if (raw === true) return { ...stored };
		return this.applyDefaults(additionalData, stored, typeName, mode, executeData, expressionResolveValues);
	}

	/**
	 * As n8n: unset properties take the credential type's defaults, then
	 * expressions in the values are resolved in the context of the running node.
	 */
	applyDefaults(
		additionalData: IWorkflowExecuteAdditionalData,
		stored: ICredentialDataDecryptedObject,
		typeName: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): ICredentialDataDecryptedObject {
		let data = NodeHelpers.getNodeParameters(
			this.getCredentialsProperties(typeName),
			stored as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
		for (const keep of ['oauthTokenData', 'allowedHttpRequestDomains', 'allowedDomains']) {
			if (data[keep] === undefined && stored[keep] !== undefined) data[keep] = stored[keep];
		}

		if (expressionResolveValues) {
			const { workflow, runExecutionData, runIndex, itemIndex, node, connectionInputData } =
				expressionResolveValues;
			try {
				data = workflow.expression.getParameterValue(
					data as INodeParameters,
					runExecutionData,
					runIndex,
					itemIndex,
					node.name,
					connectionInputData,
					mode,
					getAdditionalKeys(additionalData, mode, null, { isCredential: true }),
					executeData,
					false,
					data,
				) as ICredentialDataDecryptedObject;
			} catch (error) {
				(error as Error).message += ' [Error resolving credentials]';
				throw error;
			}
		}
		return data;
	}

	getCredentialsProperties(typeName: string): INodeProperties[] {
		const type = this.credentialTypes.getByName(typeName);
		if (type.extends === undefined) {
			if (['oAuth1Api', 'oAuth2Api'].includes(typeName)) {
				return [
					...type.properties,
					{
						displayName: 'oauthTokenData',
						name: 'oauthTokenData',
						type: 'json',
						required: false,
						default: {},
					},
				];
			}
			return type.properties;
		}
		const combined: INodeProperties[] = [];
		for (const parent of type.extends) {
			NodeHelpers.mergeNodeProperties(combined, this.getCredentialsProperties(parent));
		}
		// The type's own properties win over what it extends.
		NodeHelpers.mergeNodeProperties(combined, type.properties);
		return combined;
	}

	async updateCredentials(
		_nodeCredentials: INodeCredentialsDetails,
		typeName: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.data[typeName] = { ...data };
	}

	async updateCredentialsOauthTokenData(
		_nodeCredentials: INodeCredentialsDetails,
		typeName: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.data[typeName] = { ...this.data[typeName], oauthTokenData: data.oauthTokenData };
	}

	private requireData(
		nodeCredentials: INodeCredentialsDetails,
		typeName: string,
	): ICredentialDataDecryptedObject {
		const stored = this.data[typeName];
		if (stored === undefined) {
			// The message an instance gives when the referenced credential is missing.
			throw new UserError(
				`Credential with ID "${nodeCredentials.id ?? ''}" does not exist for type "${typeName}".`,
			);
		}
		return stored;
	}
}

/**
 * Every credential type given to a run, referenced on the node as if picked in its credential field. As in
 * an instance, the same credential keeps its id from run to run and another credential has another id.
 */
export function referenceCredentials(credentials: CredentialsData = {}): INodeCredentials {
	return Object.fromEntries(
		Object.entries(credentials).map(([credentialType, data]) => [
			credentialType,
			{ id: createHash('sha256').update(JSON.stringify(data)).digest('hex').slice(0, 16), name: credentialType },
		]),
	);
}

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { PackageDirectoryLoader } from 'n8n-core';
import type {
	INodeType,
	IVersionedNodeType,
	KnownNodesAndCredentials,
	LoadingDetails,
} from 'n8n-workflow';
import { UserError } from 'n8n-workflow';

import { ensureEngine, PACKAGE_ROOT } from './setup';

export const BASE_PACKAGE_NAME = 'n8n-nodes-base';

/**
 * `package.json` lists a community package's nodes and credentials by their
 * built `dist/…js` paths; tests run against the TypeScript sources instead.
 */
export function distToSourcePath(distPath: string): string {
	return distPath.replace(/^(\.\/)?dist\//, '').replace(/\.js$/, '.ts');
}

/**
 * n8n's own loader for an installed community package (it registers node and
 * credential types, adds the standard declarative request options, validates
 * descriptions), reading the sources in place of `dist/`.
 */
class SourcePackageLoader extends PackageDirectoryLoader {
	private loaded = false;

	protected override resolvePath(file: string): string {
		return super.resolvePath(distToSourcePath(file));
	}

	/** Loads everything `package.json` lists, once, failing loudly on a broken entry. */
	ensureLoaded(): this {
		if (this.loaded) return this;
		const { n8n, version } = this.packageJson;
		for (const nodePath of n8n?.nodes ?? []) {
			this.loadEntry(nodePath, () => this.loadNodeFromFile(nodePath, version));
		}
		for (const credentialPath of n8n?.credentials ?? []) {
			this.loadEntry(credentialPath, () => this.loadCredentialFromFile(credentialPath));
		}
		// n8n derives which nodes may use a credential from the nodes that declare it.
		for (const { type } of Object.values(this.credentialTypes)) {
			type.supportedNodes = this.known.credentials[type.name]?.supportedNodes ?? [];
		}
		this.loaded = true;
		return this;
	}

	private loadEntry(distPath: string, load: () => void): void {
		try {
			load();
		} catch (error) {
			const source = distToSourcePath(distPath);
			throw new UserError(
				`${this.packageName}: could not load "${distPath}" from its source "${source}": ${(error as Error).message}`,
				{ cause: error },
			);
		}
	}
}

/**
 * n8n's lazy loading for n8n-nodes-base: the `known` index maps a node or
 * credential name to its file, and `getNode`/`getCredential` require that one
 * file on first use instead of loading all ~450 nodes.
 */
class BasePackageLoader extends PackageDirectoryLoader {
	private readonly hasKnownIndex: boolean;

	constructor(directory: string) {
		super(directory);
		const nodesIndex = path.join(directory, 'dist/known/nodes.json');
		this.hasKnownIndex = existsSync(nodesIndex);
		const listedNodes = new Set(this.packageJson.n8n?.nodes ?? []);
		const listedCredentials = new Set(this.packageJson.n8n?.credentials ?? []);
		this.known = {
			nodes: readKnown(nodesIndex, listedNodes),
			credentials: readKnown(path.join(directory, 'dist/known/credentials.json'), listedCredentials),
		};
	}

	/** The node type, or undefined if the package has none by that name; load errors propagate. */
	findNode(nodeType: string): INodeType | IVersionedNodeType | undefined {
		if (!this.hasKnownIndex && !(nodeType in this.nodeTypes)) {
			this.scanListedNodesFor(nodeType);
		}
		if (!(nodeType in this.nodeTypes) && !(nodeType in this.known.nodes)) return undefined;
		return this.getNode(nodeType).type;
	}

	/** Without a `known` index, falls back to the `n8n.nodes` list, most likely files first. */
	private scanListedNodesFor(nodeType: string): void {
		const wanted = nodeType.toLowerCase();
		const fileName = (p: string) => path.basename(p).replace(/\.node\.js$/, '').toLowerCase();
		const candidates = [...(this.packageJson.n8n?.nodes ?? [])].sort(
			(a, b) => Number(fileName(b) === wanted) - Number(fileName(a) === wanted),
		);
		for (const nodePath of candidates) {
			if (Object.values(this.nodeTypes).some(({ sourcePath }) => sourcePath === nodePath)) continue;
			this.loadNodeFromFile(nodePath);
			if (nodeType in this.nodeTypes) return;
		}
	}
}

function readKnown(
	file: string,
	listed: Set<string>,
): KnownNodesAndCredentials['nodes'] & KnownNodesAndCredentials['credentials'] {
	if (!existsSync(file)) return {};
	const known = JSON.parse(readFileSync(file, 'utf8')) as Record<string, LoadingDetails>;
	return Object.fromEntries(
		Object.entries(known).filter(([, { sourcePath }]) => listed.has(sourcePath)),
	);
}

let ownPackage: SourcePackageLoader | undefined;
let basePackage: BasePackageLoader | undefined;

/** This package (`n8n-nodes-phprank`), loaded from source on first use. */
export function ownPackageLoader(): SourcePackageLoader {
	ensureEngine();
	ownPackage ??= new SourcePackageLoader(PACKAGE_ROOT);
	return ownPackage.ensureLoaded();
}

let ownName: string | undefined;

export function ownPackageName(): string {
	ownName ??= (
		JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { name: string }
	).name;
	return ownName;
}

export function basePackageLoader(): BasePackageLoader {
	ensureEngine();
	basePackage ??= new BasePackageLoader(
		path.dirname(require.resolve(`${BASE_PACKAGE_NAME}/package.json`)),
	);
	return basePackage;
}

/** Splits `package.nodeName` (package names may contain dots, node names do not). */
export function splitTypeName(typeName: string): { packageName: string; name: string } {
	const dot = typeName.lastIndexOf('.');
	return dot === -1
		? { packageName: '', name: typeName }
		: { packageName: typeName.slice(0, dot), name: typeName.slice(dot + 1) };
}

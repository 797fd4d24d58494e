import { readFileSync } from 'node:fs';
import path from 'node:path';

import { PackageDirectoryLoader } from 'n8n-core';
import type { INodeType, IVersionedNodeType } from 'n8n-workflow';
import { UserError } from 'n8n-workflow';

import { ensureEngine, PACKAGE_ROOT } from './setup';

export const BASE_PACKAGE_NAME = 'n8n-nodes-base';

/**
 * `package.json` lists a community package's nodes and credentials by their
 * built `dist/…js` paths; runs here use the TypeScript sources instead.
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
 * n8n's lazy loading for n8n-nodes-base: the package's `known` index maps a node or credential
 * name to its file, and n8n-core's `getNode`/`getCredential` require that one file on first use
 * instead of loading all ~450 nodes. n8n reads the index in `LazyPackageDirectoryLoader.loadAll`,
 * asynchronously and together with every node's description; a run needs the index alone.
 */
class BasePackageLoader extends PackageDirectoryLoader {
	constructor(directory: string) {
		super(directory);
		this.known = {
			nodes: this.readJSONSync('dist/known/nodes.json'),
			credentials: this.readJSONSync('dist/known/credentials.json'),
		};
	}

	/** The node type, or undefined if the package has none by that name; load errors propagate. */
	findNode(nodeType: string): INodeType | IVersionedNodeType | undefined {
		if (!(nodeType in this.nodeTypes) && !(nodeType in this.known.nodes)) return undefined;
		return this.getNode(nodeType).type;
	}
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

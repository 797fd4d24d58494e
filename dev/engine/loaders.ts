import path from 'node:path';

import { PackageDirectoryLoader } from 'n8n-core';
import type { ICredentialType, INodeType, IVersionedNodeType } from 'n8n-workflow';
import { UserError } from 'n8n-workflow';

import { ensureEngine, PACKAGE_ROOT } from './setup';

/** n8n's loader for an installed package; n8n-core's `getNode`/`getCredential` load a type's file on first use. */
class PackageLoader extends PackageDirectoryLoader {
	ensureLoaded(): this {
		return this;
	}
}

/**
 * n8n-nodes-base, lazily: n8n reads its `known` index in `LazyPackageDirectoryLoader.loadAll`, asynchronously
 * and together with every node's description (~450 nodes); a run needs the index alone.
 */
class BasePackageLoader extends PackageLoader {
	constructor(directory: string) {
		super(directory);
		this.known = { nodes: this.readJSONSync('dist/known/nodes.json'), credentials: this.readJSONSync('dist/known/credentials.json') };
	}
}

/** `package.json` lists a community package's types by their built `dist/…js` paths; runs here use the sources. */
function distToSourcePath(distPath: string): string {
	return distPath.replace(/^(\.\/)?dist\//, '').replace(/\.js$/, '.ts');
}

/**
 * This package, loaded the way n8n loads an installed community package (it registers node and credential
 * types, adds the standard declarative request options, validates descriptions), from the sources.
 */
class SourcePackageLoader extends PackageLoader {
	private loaded = false;

	protected override resolvePath(file: string): string {
		return super.resolvePath(distToSourcePath(file));
	}

	/** Loads everything `package.json` lists, once, failing loudly on a broken entry. */
	override ensureLoaded(): this {
		if (this.loaded) return this;
		const { n8n, version } = this.packageJson;
		let entry = '';
		try {
			for (entry of n8n?.nodes ?? []) this.loadNodeFromFile(entry, version);
			for (entry of n8n?.credentials ?? []) this.loadCredentialFromFile(entry);
		} catch (error) {
			const source = distToSourcePath(entry);
			const message = `${this.packageName}: could not load "${entry}" from its source "${source}": ${(error as Error).message}`;
			throw new UserError(message, { cause: error });
		}
		// n8n derives which nodes may use a credential from the nodes that declare it.
		for (const { type } of Object.values(this.credentialTypes)) {
			type.supportedNodes = this.known.credentials[type.name]?.supportedNodes ?? [];
		}
		this.loaded = true;
		return this;
	}
}

let loaders: PackageLoader[] | undefined;

/**
 * n8n-nodes-base first: its index is cheap to check, while this package (`n8n-nodes-phprank`) has its sources
 * loaded on first use.
 */
export function packageLoaders(): PackageLoader[] {
	ensureEngine();
	loaders ??= [new BasePackageLoader(path.dirname(require.resolve('n8n-nodes-base/package.json'))), new SourcePackageLoader(PACKAGE_ROOT)];
	return loaders;
}

/** The node type `package.node` (package names may contain dots, node names do not), if either package has it. */
export function findNodeType(typeName: string): INodeType | IVersionedNodeType | undefined {
	const dot = typeName.lastIndexOf('.');
	const name = typeName.slice(dot + 1);
	const loader = packageLoaders().find(({ packageName }) => packageName === typeName.slice(0, Math.max(dot, 0)));
	return loader && name in loader.ensureLoaded().known.nodes ? loader.getNode(name).type : undefined;
}

/** A credential type either package has, and the full names (`package.node`) of the nodes that may use it. */
export function findCredentialType(name: string): { type: ICredentialType; supportedNodes: string[] } | undefined {
	const loader = packageLoaders().find((candidate) => name in candidate.ensureLoaded().known.credentials);
	if (!loader) return undefined;
	const supportedNodes = (loader.known.credentials[name].supportedNodes ?? []).map((node) => `${loader.packageName}.${node}`);
	return { type: loader.getCredential(name).type, supportedNodes };
}

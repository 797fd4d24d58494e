/**
 * The n8n releases the end-to-end suite proves the package on, each with the Node.js it needs, and what
 * differs between them that the suite has to know.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface N8nRuntime {
	n8nVersion: string;
	/** The `node` package from the npm registry that provides this n8n's Node.js. */
	nodeVersion: string;
	/**
	 * npm overrides the installation needs. n8n asks for linkedom ^0.18.13, and 0.18.15 depends on cssomnom,
	 * which the registry does not have. Every n8n 1.x release depends on an xlsx tarball from a host other
	 * than the registry; @e965/xlsx 0.20.2 is the same SheetJS release from the registry, the one n8n 2.x uses.
	 */
	overrides: Record<string, string>;
}

export const N8N_2: N8nRuntime = { n8nVersion: '2.41.1', nodeVersion: '24.21.0', overrides: { linkedom: '0.18.14' } };

/** The newest n8n 1.x release. */
export const N8N_1: N8nRuntime = { n8nVersion: '1.123.81', nodeVersion: '22.23.3', overrides: { xlsx: 'npm:@e965/xlsx@0.20.2' } };

/** Every runtime the suite proves, newest first; the first is the one `npm start` runs. */
export const N8N_RUNTIMES: readonly N8nRuntime[] = [N8N_2, N8N_1];

export const DEFAULT_RUNTIME = N8N_RUNTIMES[0];

export function majorOf(version: string): number {
	return Number(version.replace(/^v/, '').split('.')[0]);
}

export function nodeLabel(runtime: N8nRuntime): string {
	return `Node.js ${majorOf(runtime.nodeVersion)}`;
}

/**
 * The modules an installed n8n knows, read from its source (`MODULE_NAMES` of @n8n/backend-common): n8n refuses
 * to start when N8N_DISABLED_MODULES names one it does not know, and the list grows from release to release.
 */
export function knownModules(n8nInstallDir: string): string[] {
	const candidates = [
		path.join(n8nInstallDir, 'node_modules', 'n8n', 'node_modules', '@n8n', 'backend-common', 'dist', 'modules', 'modules.config.js'),
		path.join(n8nInstallDir, 'node_modules', '@n8n', 'backend-common', 'dist', 'modules', 'modules.config.js'),
	];
	for (const file of candidates) {
		let source: string;
		try {
			source = readFileSync(file, 'utf8');
		} catch {
			continue;
		}
		const list = /MODULE_NAMES\s*=\s*\[([^\]]*)\]/.exec(source)?.[1];
		if (list !== undefined) return [...list.matchAll(/['"]([^'"]+)['"]/g)].map((match) => match[1]);
	}
	return [];
}

/**
 * The n8n releases the end-to-end suite proves the package on, each with the Node.js it needs, and what
 * differs between them that the suite has to know.
 */
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
	/**
	 * n8n's modules that call out to the internet at start-up, turned off (N8N_DISABLED_MODULES). Only modules
	 * this release knows: n8n refuses to start when the list names another.
	 */
	disabledModules: string[];
	/**
	 * Settings the docs ask of a user of this release (docs/free-seo-audit-form.md). n8n 1.x opens SQLite without a
	 * pool by default (it warns that this is deprecated): executions running at once then fail each other's
	 * transactions, n8n's own saving of executions among them, so the docs ask for the pool n8n 2.x has by default.
	 * n8n 2.x answers every request 503 "Database is not ready!" while its database ping (every 2 s) has waited more
	 * than DB_PING_TIMEOUT_MS (5 s by default) behind a burst of executions on SQLite: the docs ask for 30 s, with
	 * which bursts of up to 80 submissions beside two CPU-bound processes were all taken (5 s: not ready for 9-13 s).
	 */
	env: Record<string, string>;
}

/** Every runtime the suite proves, newest first (then the newest n8n 1.x); the first is the one `npm start` runs. */
export const N8N_RUNTIMES: readonly N8nRuntime[] = [
	{ n8nVersion: '2.41.1', nodeVersion: '24.21.0', overrides: { linkedom: '0.18.14' }, disabledModules: ['mcp-registry'], env: { DB_PING_TIMEOUT_MS: '30000' } },
	{ n8nVersion: '1.123.81', nodeVersion: '22.23.3', overrides: { xlsx: 'npm:@e965/xlsx@0.20.2' }, disabledModules: [], env: { DB_SQLITE_POOL_SIZE: '3' } },
];

export const DEFAULT_RUNTIME = N8N_RUNTIMES[0];

export function majorOf(version: string): number {
	return Number(version.replace(/^v/, '').split('.')[0]);
}

export function nodeLabel(runtime: N8nRuntime): string {
	return `Node.js ${majorOf(runtime.nodeVersion)}`;
}

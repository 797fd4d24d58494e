import type { IDataObject } from 'n8n-workflow';

import { startAuditSite } from '../../dev/server';
import type { AuditSite, AuditSiteOptions, PhpRankServer } from '../../dev/server';
import { runPhpRank } from './phpRank';

/**
 * Bundled audit sites for a test file, closed after it, and Site > Audit of one of them against `server`: the
 * items' JSON of a run that must not fail.
 */
export function useAuditSites(server: () => PhpRankServer) {
	const sites: AuditSite[] = [];
	afterAll(async () => await Promise.all(sites.map(async (started) => await started.close())));
	return {
		siteWith: async (options: AuditSiteOptions = {}) => {
			const started = await startAuditSite(options);
			sites.push(started);
			return started;
		},
		audit: async (on: AuditSite, parameters: IDataObject = {}) => {
			const run = await runPhpRank(server(), { resource: 'site', operation: 'audit', siteUrl: `${on.url}/`, ...parameters });
			expect(run.error).toBeUndefined();
			return run.items.map(({ json }) => json);
		},
	};
}

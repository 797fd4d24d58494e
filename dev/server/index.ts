/** A phpRank 1.5-compatible HTTP server for tests, demos and benchmarks. */
import { PhpRankServer } from './app';
import { PhpRankServerOptions, PhpRankUser } from './types';

export * from './types';
export { PhpRankServer };

/** A fixed 60-character token, like the ones phpRank generates, for the default user. */
export const DEFAULT_API_KEY = 'pRk9Xw2LqT7vB4nHc8ZsJ1mYd6FgA3eKu5VtN0bQrW7xP2oLiE4hGjS9aCfD';

export const DEFAULT_USER: PhpRankUser = { id: 1, name: 'Ada', email: 'ada@example.test', apiKey: DEFAULT_API_KEY };

export async function startPhpRankServer(options: PhpRankServerOptions = {}): Promise<PhpRankServer> {
	const basePath = (options.basePath ?? '').replace(/\/+$/, '');
	const app = new PhpRankServer({
		...options,
		basePath: !basePath || basePath.startsWith('/') ? basePath : `/${basePath}`,
		users: options.users?.length ? options.users : [DEFAULT_USER],
	});
	await app.listen();
	return app;
}
export { AuditSite, startAuditSite, AUDIT_SITE_ANALYZED_PATHS, AUDIT_SITE_IMAGES, AUDIT_SITE_ISSUES, AUDIT_SITEMAP_IMAGES, AUDIT_SITEMAP_PATHS, SLOW_PAGE_MS, BAD_HTML_PATHS, BINARY_PAGE_BYTES, EXTERNAL_URL, HUGE_PAGE_BYTES } from './auditSite';
export type { AuditSiteOptions, AuditSiteRequest, RobotsVariant, SitemapVariant } from './auditSite';

/** A phpRank 1.5-compatible HTTP server for tests, demos and benchmarks. */
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { PhpRankApp } from './app';
import { projectState, reportState } from './presenters';
import { PhpRankServer, PhpRankServerOptions, PhpRankUser } from './types';

export * from './types';

/** A fixed 60-character token, like the ones phpRank generates, for the default user. */
export const DEFAULT_API_KEY = 'pRk9Xw2LqT7vB4nHc8ZsJ1mYd6FgA3eKu5VtN0bQrW7xP2oLiE4hGjS9aCfD';

export const DEFAULT_USER: PhpRankUser = { id: 1, name: 'Ada', email: 'ada@example.test', apiKey: DEFAULT_API_KEY };

function normaliseBasePath(basePath = ''): string {
	const trimmed = basePath.replace(/\/+$/, '');
	if (!trimmed) return '';
	return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

function hostForUrl(host: string): string {
	if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
	return host.includes(':') ? `[${host}]` : host;
}

export async function startPhpRankServer(options: PhpRankServerOptions = {}): Promise<PhpRankServer> {
	const host = options.host ?? '127.0.0.1';
	const basePath = normaliseBasePath(options.basePath);
	const users = options.users?.length ? options.users : [DEFAULT_USER];
	let port = 0;
	const app = new PhpRankApp({
		basePath,
		users,
		settings: {
			analysisMs: options.analysisMs ?? 0,
			projectDeleteHazard: options.projectDeleteHazard ?? true,
			maxReportsPerUser: options.maxReportsPerUser,
			changedPages: new Map(),
		},
		latencyMs: options.latencyMs ?? 0,
		rateLimit: options.rateLimit ?? false,
		workers: options.workers,
		gatewayTimeoutMs: options.gatewayTimeoutMs,
		fallbackHost: () => `${hostForUrl(host)}:${port}`,
	});
	if (options.seedReports || options.seedProjects) app.seed({ reports: options.seedReports, projects: options.seedProjects });

	const server = createServer(app.handle);
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	port = (server.address() as AddressInfo).port;

	return {
		url: `http://${hostForUrl(host)}:${port}${basePath}`,
		port,
		apiKey: users[0].apiKey,
		get requests() {
			return app.requests;
		},
		clearRequests: () => app.clearRequests(),
		reset: () => app.reset(),
		seedReports: (count, seedOptions) => app.seedReports(count, seedOptions),
		seedProjects: (count, seedOptions) => app.seedProjects(count, seedOptions),
		reports: (userId) => app.store.allReports(userId).map(reportState),
		projects: (userId) => app.store.allProjects(userId).map(projectState),
		injectFault: (fault) => app.faults.add(fault),
		clearFaults: () => app.faults.clear(),
		setRateLimit: (config) => app.limiter.configure(config),
		setDeployment: (deployment) => app.setDeployment(deployment),
		idle: () => app.idle(),
		changePage: (url, change) => app.changePage(url, change),
		close: () =>
			new Promise<void>((resolve, reject) => {
				server.close((error) => (error ? reject(error) : resolve()));
				server.closeAllConnections();
			}),
	};
}

/** HTTP control API under {basePath}/__sim/, for demos and scripts driving the server from another process. */
import { faultFromJson } from './faults';
import type { FaultBook } from './faults';
import type { RateLimiter } from './rateLimit';
import { Answer, json } from './responses';
import type { PhpRankStore } from './store';
import { Deployment, PageChange, RateLimitConfig, RecordedRequest } from './types';

/** What the control API drives: the application (PhpRankApp), as far as the endpoints reach into it. */
export interface ControlledApp {
	readonly store: Pick<PhpRankStore, 'allReports' | 'allProjects'>;
	readonly faults: Pick<FaultBook, 'add' | 'clear'>;
	readonly limiter: Pick<RateLimiter, 'configure'>;
	readonly requests: readonly RecordedRequest[];
	reset(): void;
	seed(counts: { reports?: number; projects?: number }, userId?: number): string[];
	clearRequests(): void;
	setDeployment(deployment: Deployment): void;
	changePage(url: string, change: PageChange | undefined): void;
}

function jsonBody(record: RecordedRequest): unknown {
	if (!record.rawBody.trim()) return {};
	return JSON.parse(record.rawBody);
}

function rateLimitFromJson(value: unknown): RateLimitConfig | false {
	if (value === false || value === null) return false;
	const config = value as Partial<RateLimitConfig> & { enabled?: boolean };
	if (config.enabled === false) return false;
	if (typeof config.maxAttempts !== 'number' || typeof config.decaySeconds !== 'number') {
		throw new Error('A rate limit needs numeric "maxAttempts" and "decaySeconds", or false');
	}
	return { maxAttempts: config.maxAttempts, decaySeconds: config.decaySeconds, preciseRetryAfter: config.preciseRetryAfter === true };
}

/** null (or a key left out) means none; anything else must be a number, checked by setDeployment. */
function deploymentFromJson(value: unknown): Deployment {
	const body = (value ?? {}) as Record<string, unknown>;
	const deployment: Deployment = {};
	for (const key of ['workers', 'analysisMs', 'gatewayTimeoutMs'] as const) {
		const setting = body[key];
		if (setting === null || setting === undefined) continue;
		if (typeof setting !== 'number') throw new Error(`"${key}" must be a number or null`);
		deployment[key] = setting;
	}
	return deployment;
}

export type ControlHandler = (record: RecordedRequest, path: string) => Promise<Answer>;

const nonNegative = (value: unknown) => (typeof value === 'number' && value >= 0 ? Math.floor(value) : undefined);

export function controlApi(app: ControlledApp): ControlHandler {
	const routes: Record<string, (record: RecordedRequest) => Answer> = {
		'POST /reset': () => {
			app.reset();
			return json(200, { ok: true });
		},
		'POST /seed': (record) => {
			const body = jsonBody(record) as Record<string, unknown>;
			const userId = typeof body.userId === 'number' ? body.userId : undefined;
			app.seed({ reports: nonNegative(body.reports), projects: nonNegative(body.projects) }, userId);
			return json(200, { reports: app.store.allReports(userId).length, projects: app.store.allProjects(userId).length });
		},
		'POST /faults': (record) => json(201, app.faults.add(faultFromJson(jsonBody(record)))),
		'DELETE /faults': () => {
			app.faults.clear();
			return json(200, { ok: true });
		},
		'GET /requests': () => json(200, app.requests),
		'DELETE /requests': () => {
			app.clearRequests();
			return json(200, { ok: true });
		},
		'POST /deployment': (record) => {
			app.setDeployment(deploymentFromJson(jsonBody(record)));
			return json(200, { ok: true });
		},
		'POST /pages': (record) => {
			const { url, quality } = jsonBody(record) as { url?: unknown; quality?: unknown };
			if (typeof url !== 'string') throw new Error('A changed page needs its "url"');
			app.changePage(url, quality === null ? undefined : { quality: quality as number });
			return json(200, { ok: true });
		},
		'POST /rate-limit': (record) => {
			app.limiter.configure(rateLimitFromJson(jsonBody(record)));
			return json(200, { ok: true });
		},
	};

	return async (record, path) => {
		const route = routes[`${record.method} ${path.replace(/\/+$/, '')}`];
		if (!route) return json(404, { error: `No control endpoint ${record.method} ${path}` });
		try {
			return route(record);
		} catch (error) {
			return json(400, { error: error instanceof Error ? error.message : String(error) });
		}
	};
}

/** HTTP control API under {basePath}/__sim/, for demos and scripts driving the server from another process. */
import { checkFault } from './faults';
import { Answer, json } from './http';
import { Deployment, Fault, PhpRankServer, RateLimitConfig, RecordedRequest } from './types';

/** A fault as the control API receives it: JSON, with a RegExp path given as `pathPattern`. */
function faultFromJson(value: unknown): Fault {
	if (!value || typeof value !== 'object') throw new Error('A fault must be a JSON object');
	const { pathPattern, pathFlags, times, ...rest } = value as Record<string, unknown>;
	const fault = { ...rest } as unknown as Fault;
	if (typeof pathPattern === 'string') fault.path = new RegExp(pathPattern, typeof pathFlags === 'string' ? pathFlags : '');
	if (times === 'Infinity' || times === null) fault.times = Infinity;
	else if (typeof times === 'number') fault.times = times;
	checkFault(fault);
	if (fault.kind === 'status' && typeof fault.status !== 'number') throw new Error('A status fault needs a numeric "status"');
	if ((fault.kind === 'delay' || fault.kind === 'delayAfterHandling') && typeof fault.delayMs !== 'number') {
		throw new Error(`A ${fault.kind} fault needs a numeric "delayMs"`);
	}
	if (fault.kind === 'redirect' && typeof fault.location !== 'string') throw new Error('A redirect fault needs a "location"');
	return fault;
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

const nonNegative = (value: unknown) => (typeof value === 'number' && value >= 0 ? Math.floor(value) : undefined);

/**
 * Answers a control call; `path` is the path after {basePath}/__sim. `seed` seeds reports over new projects
 * in one go, as at start-up, and returns the new project names.
 */
export function controlApi(
	server: PhpRankServer,
	seed: (counts: { reports?: number; projects?: number }, userId?: number) => string[],
): (record: RecordedRequest, path: string) => Answer {
	const done = (act: () => void) => {
		act();
		return json(200, { ok: true });
	};
	// Each endpoint reads its JSON body only if it takes one.
	const routes: Record<string, (body: () => Record<string, unknown>) => Answer> = {
		'POST /reset': () => done(() => server.reset()),
		'POST /seed': (body) => {
			const { userId, reports, projects } = body();
			const owner = typeof userId === 'number' ? userId : undefined;
			seed({ reports: nonNegative(reports), projects: nonNegative(projects) }, owner);
			return json(200, { reports: server.reports(owner).length, projects: server.projects(owner).length });
		},
		'POST /faults': (body) => json(201, server.injectFault(faultFromJson(body()))),
		'DELETE /faults': () => done(() => server.clearFaults()),
		'GET /requests': () => json(200, server.requests),
		'DELETE /requests': () => done(() => server.clearRequests()),
		'POST /deployment': (body) => done(() => server.setDeployment(deploymentFromJson(body()))),
		'POST /pages': (body) =>
			done(() => {
				const { url, quality } = body();
				if (typeof url !== 'string') throw new Error('A changed page needs its "url"');
				server.changePage(url, quality === null ? undefined : { quality: quality as number });
			}),
		'POST /rate-limit': (body) => done(() => server.setRateLimit(rateLimitFromJson(body()))),
	};

	return (record, path) => {
		const route = routes[`${record.method} ${path.replace(/\/+$/, '')}`];
		if (!route) return json(404, { error: `No control endpoint ${record.method} ${path}` });
		try {
			return route(() => (record.rawBody.trim() ? JSON.parse(record.rawBody) : {}));
		} catch (error) {
			return json(400, { error: error instanceof Error ? error.message : String(error) });
		}
	};
}

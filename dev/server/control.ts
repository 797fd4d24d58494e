/** The JSON bodies of the control API under {basePath}/__sim/ (see PhpRankServer), read into what the server takes. */
import { checkFault } from './faults';
import { Deployment, Fault, RateLimitConfig } from './types';

/** A fault as the control API receives it: JSON, with a RegExp path given as `pathPattern`. */
export function faultFromJson(value: unknown): Fault {
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

export function rateLimitFromJson(value: unknown): RateLimitConfig | false {
	if (value === false || value === null) return false;
	const config = value as Partial<RateLimitConfig> & { enabled?: boolean };
	if (config.enabled === false) return false;
	if (typeof config.maxAttempts !== 'number' || typeof config.decaySeconds !== 'number') {
		throw new Error('A rate limit needs numeric "maxAttempts" and "decaySeconds", or false');
	}
	return { maxAttempts: config.maxAttempts, decaySeconds: config.decaySeconds, preciseRetryAfter: config.preciseRetryAfter === true };
}

/** null (or a key left out) means none; anything else must be a number, checked by setDeployment. */
export function deploymentFromJson(value: unknown): Deployment {
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

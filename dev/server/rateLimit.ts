/** Laravel's throttle middleware: a fixed window per client that starts with its first request. */
import { RateLimitConfig } from './types';

export interface RateDecision {
	allowed: boolean;
	headers: Record<string, string>;
}

interface Window {
	hits: number;
	endsAt: number;
}

export class RateLimiter {
	private readonly windows = new Map<string, Window>();
	private config: RateLimitConfig | false;

	constructor(config: RateLimitConfig | false = false) {
		this.config = config;
	}

	configure(config: RateLimitConfig | false): void {
		this.config = config;
		this.clear();
	}

	clear(): void {
		this.windows.clear();
	}

	/** Counts the request; undefined when rate limiting is off. A refused request is not counted. */
	hit(client: string, now = Date.now()): RateDecision | undefined {
		const config = this.config;
		if (!config) return undefined;
		let window = this.windows.get(client);
		if (!window || now >= window.endsAt) {
			window = { hits: 0, endsAt: now + config.decaySeconds * 1000 };
			this.windows.set(client, window);
		}
		const limit = String(config.maxAttempts);
		if (window.hits >= config.maxAttempts) {
			const waitMs = window.endsAt - now;
			// Laravel works in whole seconds; rounding up never tells a client to come back too early.
			const retryAfter = config.preciseRetryAfter ? (Math.max(waitMs, 1) / 1000).toFixed(3) : String(Math.ceil(waitMs / 1000));
			const reset = config.preciseRetryAfter ? (window.endsAt / 1000).toFixed(3) : String(Math.ceil(window.endsAt / 1000));
			return {
				allowed: false,
				headers: { 'X-RateLimit-Limit': limit, 'X-RateLimit-Remaining': '0', 'Retry-After': retryAfter, 'X-RateLimit-Reset': reset },
			};
		}
		window.hits++;
		return { allowed: true, headers: { 'X-RateLimit-Limit': limit, 'X-RateLimit-Remaining': String(config.maxAttempts - window.hits) } };
	}
}

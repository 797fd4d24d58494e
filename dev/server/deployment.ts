/**
 * What real installations put around the application: Laravel's rate limit, a small pool of PHP workers,
 * and a proxy in front that gives up on slow answers.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Answer } from './http';
import { Deployment, RateLimitConfig } from './types';

/** Unreferenced, so a pending delay never keeps a finished test run alive. */
export const wait = (ms: number): Promise<void> => (ms > 0 ? sleep(ms, undefined, { ref: false }) : Promise.resolve());

/** nginx's own page for a proxy read timeout: HTML, no Laravel headers, no rate-limit headers. */
export const GATEWAY_TIMEOUT: Answer = {
	status: 504,
	headers: { Server: 'nginx', 'Content-Type': 'text/html' },
	body: '<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 Gateway Time-out</h1></center><hr><center>nginx</center></body></html>',
};

/** nginx's own page when it cannot reach PHP (a restart): answered at once, PHP never sees the request. */
export const BAD_GATEWAY: Answer = {
	status: 502,
	headers: { Server: 'nginx', 'Content-Type': 'text/html' },
	body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>',
};

export function checkDeployment({ workers, analysisMs, gatewayTimeoutMs }: Deployment): void {
	if (workers !== undefined && !(Number.isSafeInteger(workers) && workers >= 1)) throw new Error('"workers" must be a whole number, 1 or more');
	if (analysisMs !== undefined && !(analysisMs >= 0)) throw new Error('"analysisMs" must be a number, 0 or more');
	if (gatewayTimeoutMs !== undefined && !(gatewayTimeoutMs >= 0 && gatewayTimeoutMs < Infinity)) {
		throw new Error('"gatewayTimeoutMs" must be a finite number, 0 or more');
	}
}

/** PHP-FPM's pool: at most `size` requests are worked on at once, the others wait in arrival order. */
export class WorkerPool {
	/** Infinity: no pool, every request is worked on at once. */
	private size = Infinity;
	private busy = 0;
	private readonly queue: Array<() => void> = [];
	private readonly idleWaiters: Array<() => void> = [];

	resize(size = Infinity): void {
		this.size = size;
		this.startQueued();
	}

	async run<T>(work: () => Promise<T>): Promise<T> {
		// A free worker goes to the queue's head first, so a newcomer never overtakes a waiting request.
		if (this.busy < this.size && !this.queue.length) this.busy++;
		else await new Promise<void>((resolve) => this.queue.push(resolve));
		try {
			return await work();
		} finally {
			this.busy--;
			this.startQueued();
			if (!this.busy) this.idleWaiters.splice(0).forEach((resolve) => resolve());
		}
	}

	/** Resolves once no request is queued or being worked on. */
	idle(): Promise<void> {
		if (!this.busy && !this.queue.length) return Promise.resolve();
		return new Promise((resolve) => this.idleWaiters.push(resolve));
	}

	private startQueued(): void {
		while (this.busy < this.size && this.queue.length) {
			// Counted busy here, before its turn runs, so no other request can take the worker meanwhile.
			this.busy++;
			this.queue.shift()?.();
		}
	}
}

/** Laravel's throttle middleware: a fixed window per client that starts with its first request. */
export class RateLimiter {
	private readonly windows = new Map<string, { hits: number; endsAt: number }>();

	constructor(private config: RateLimitConfig | false) {}

	configure(config: RateLimitConfig | false): void {
		this.config = config;
		this.windows.clear();
	}

	clear(): void {
		this.windows.clear();
	}

	/** Counts the request; undefined when rate limiting is off. A refused request is not counted. */
	hit(client: string): { allowed: boolean; headers: Record<string, string> } | undefined {
		const { config } = this;
		if (!config) return undefined;
		const now = Date.now();
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

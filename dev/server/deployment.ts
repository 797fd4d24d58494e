/** What real installations put around PHP: a small pool of workers, and a proxy in front that gives up on slow answers. */
import { Answer } from './responses';
import { Deployment } from './types';

/** nginx's own page for a proxy read timeout: HTML, no Laravel headers, no rate-limit headers. */
export const GATEWAY_TIMEOUT: Answer = {
	status: 504,
	headers: { Server: 'nginx', 'Content-Type': 'text/html' },
	body: '<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 Gateway Time-out</h1></center><hr><center>nginx</center></body></html>',
};

export function checkDeployment(deployment: Deployment): void {
	const { workers, analysisMs, gatewayTimeoutMs } = deployment;
	if (workers !== undefined && !(Number.isSafeInteger(workers) && workers >= 1)) throw new Error('"workers" must be a whole number, 1 or more');
	if (analysisMs !== undefined && !(analysisMs >= 0)) throw new Error('"analysisMs" must be a number, 0 or more');
	if (gatewayTimeoutMs !== undefined && !(gatewayTimeoutMs >= 0 && gatewayTimeoutMs < Infinity)) {
		throw new Error('"gatewayTimeoutMs" must be a finite number, 0 or more');
	}
}

/** PHP-FPM's pool: at most `size` requests are worked on at once, the others wait in arrival order. */
export class WorkerPool {
	private busy = 0;
	private readonly queue: Array<() => void> = [];
	private readonly idleWaiters: Array<() => void> = [];

	/** Infinity: no pool, every request is worked on at once. */
	constructor(private size = Infinity) {}

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

import { sleep } from 'n8n-workflow';
import type { IDataObject, IN8nHttpFullResponse } from 'n8n-workflow';

// Long waits are cut into slices so that a cancelled execution stops waiting promptly.
const WAIT_SLICE_MS = 500;

const KNOWLEDGE_LIFETIME_MS = 60_000;

/** A request may go (with its ticket for `settle`), or would have to wait beyond its deadline. */
export type Admission = { ticket: number } | { waitBeyondDeadlineSeconds: number };

function header(headers: IDataObject | undefined, name: string): number | undefined {
	const value = headers?.[name];
	if (value === undefined || value === null || value === '') return undefined;
	const number = Number(value);
	return Number.isFinite(number) ? number : undefined;
}

/** How long a 429 answer asked to wait, in milliseconds. */
export function retryDelayMs(headers: IDataObject | undefined, now = Date.now()): number {
	const retryAfter = header(headers, 'retry-after');
	if (retryAfter !== undefined) return Math.max(0, retryAfter * 1000);
	const reset = header(headers, 'x-ratelimit-reset');
	if (reset !== undefined) return Math.max(0, reset * 1000 - now);
	return 1000;
}

export interface WaitControl {
	deadline: number;
	isCancelled: () => boolean;
}

async function pauseUntil(time: number, control: WaitControl): Promise<void> {
	while (Date.now() < time && !control.isCancelled()) {
		await sleep(Math.min(WAIT_SLICE_MS, time - Date.now()));
	}
}

/**
 * What one phpRank server (reached through one credential) has said about its rate limit, shared by every item and
 * every execution in this n8n process: items of a run are sent at once, and the limit counts them all.
 */
export class RateGate {
	private blockedUntil = 0;

	private limit: number | undefined;

	private remaining: number | undefined;

	private learnedAt: number | undefined;

	private inFlight = 0;

	private sent = 0;

	private newestApplied = 0;

	private waiters: Array<() => void> = [];

	/** Resolves when a request may be sent. A cancelled execution stops waiting: n8n aborts its requests. */
	async admit(control: WaitControl): Promise<Admission> {
		for (;;) {
			const now = Date.now();
			if (control.isCancelled()) break;
			if (now < this.blockedUntil) {
				if (this.blockedUntil > control.deadline) {
					return { waitBeyondDeadlineSeconds: Math.ceil((this.blockedUntil - now) / 1000) };
				}
				await pauseUntil(this.blockedUntil, control);
				continue;
			}
			if (this.mayRelease()) break;
			if (now >= control.deadline) return { waitBeyondDeadlineSeconds: 0 };
			await this.nextChange(control);
		}
		this.inFlight++;
		return { ticket: ++this.sent };
	}

	/** Records an answer's rate-limit headers (none for a failed connection). */
	settle(ticket: number, headers?: IDataObject): void {
		this.inFlight--;
		if (headers !== undefined && ticket > this.newestApplied) {
			this.newestApplied = ticket;
			this.learnedAt = Date.now();
			this.limit = header(headers, 'x-ratelimit-limit') ?? this.limit;
			this.remaining = header(headers, 'x-ratelimit-remaining');
		}
		this.wakeWaiters();
	}

	/**
	 * A 429: nothing goes until the window reopens. Then one request opens the new window alone:
	 * preparing a window's worth of requests at once would delay its start, and with it every later one.
	 */
	block(delayMs: number): void {
		this.blockedUntil = Math.max(this.blockedUntil, Date.now() + delayMs);
		this.learnedAt = undefined;
		this.newestApplied = this.sent;
		this.wakeWaiters();
	}

	private mayRelease(): boolean {
		// Until an answer tells whether the server limits, one request goes alone; what it said goes
		// stale after a while, as operators change limits and windows pass between executions.
		if (this.learnedAt === undefined || Date.now() - this.learnedAt > KNOWLEDGE_LIFETIME_MS) return this.inFlight === 0;
		if (this.remaining === undefined) return true;
		return this.remaining - this.inFlight > 0 || this.inFlight === 0;
	}

	private async nextChange(control: WaitControl): Promise<void> {
		await Promise.race([
			new Promise<void>((resolve) => this.waiters.push(resolve)),
			pauseUntil(Math.min(control.deadline, Date.now() + WAIT_SLICE_MS), control),
		]);
	}

	private wakeWaiters(): void {
		const waiters = this.waiters;
		this.waiters = [];
		for (const wake of waiters) wake();
	}
}

const gates = new Map<string, RateGate>();

export function rateGateFor(server: string): RateGate {
	let gate = gates.get(server);
	if (gate === undefined) {
		gate = new RateGate();
		gates.set(server, gate);
	}
	return gate;
}

export interface PacingOptions extends Omit<WaitControl, 'deadline'> {
	/** The phpRank server: items and executions that talk to the same one share its limit. */
	server: string;
	/** How long the item may wait in all; 0 sends at once and fails on a 429. */
	maxWaitSeconds: number;
	/** The error for a wait beyond maxWaitSeconds, given the seconds phpRank asked for. */
	waitTooLong: (askedSeconds: number) => Error;
}

/**
 * Sends a request when phpRank's limit allows it, and sends it again after a 429: the only answer
 * known to have done nothing. Any other answer, and any failure to get one, goes back to the caller.
 */
export async function sendPaced(
	send: () => Promise<IN8nHttpFullResponse>,
	{ server, maxWaitSeconds, isCancelled, waitTooLong }: PacingOptions,
): Promise<IN8nHttpFullResponse> {
	const gate = maxWaitSeconds > 0 ? rateGateFor(server) : undefined;
	const control = { deadline: Date.now() + maxWaitSeconds * 1000, isCancelled };
	for (;;) {
		const admission = gate ? await gate.admit(control) : { ticket: 0 };
		if ('waitBeyondDeadlineSeconds' in admission) throw waitTooLong(admission.waitBeyondDeadlineSeconds);
		const answer = send();
		// A request that got no answer frees its place without news of the limit; the caller gets its error.
		answer.catch(() => gate?.settle(admission.ticket));
		const response = await answer;
		gate?.settle(admission.ticket, response.headers as IDataObject);
		if (response.statusCode !== 429) return response;
		const delayMs = retryDelayMs(response.headers as IDataObject);
		if (gate === undefined || Date.now() + delayMs > control.deadline) throw waitTooLong(Math.ceil(delayMs / 1000));
		gate.block(delayMs);
	}
}

import { sleep } from 'n8n-workflow';
import type { IDataObject, IHttpRequestOptions, IN8nHttpFullResponse } from 'n8n-workflow';
import { Reachability, WAIT_SLICE_MS } from './reachability';

const KNOWLEDGE_LIFETIME_MS = 60_000;

// Latency this far above the quickest seen is noise (the network, n8n's own work on other items), not a queue at the
// server: a queue in front of PHP costs a whole analysis, seconds on a real phpRank.
const LATENCY_NOISE_MS = 200;

// How long the request that opens a rate-limit window goes alone when its answer is slow to come.
const OPENING_ALONE_MS = 200;

// Requests allowed to wait at the server: a few keep its workers busy between answers, more only wait in front of PHP.
const QUEUE_ALLOWED = 3;

/** A request may be sent (its number in sending order, for `recordResponse`), or would have to wait beyond its deadline. */
type WaitOutcome = { requestNumber: number } | { waitBeyondDeadlineSeconds: number } | { cancelled: true };

/** The answers a proxy in front of phpRank (nginx, Apache, a load balancer) gives in its place, as nginx words them. */
export const PROXY_STATUSES: Record<number, string> = { 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Time-out' };

/** An HTML page where JSON was asked for: a proxy's or a web server's own page, never phpRank's API. */
export function isHtml(body: unknown): boolean {
	return typeof body === 'string' && /<html|<!doctype/i.test(body);
}

/**
 * An answer from a proxy rather than from phpRank: the server is overloaded or down, and the answer says nothing
 * about whether phpRank carried the request out. A 504 leaves PHP working, and the work is stored.
 */
export function answeredByProxy({ statusCode, body }: IN8nHttpFullResponse): boolean {
	return statusCode in PROXY_STATUSES || (statusCode >= 500 && isHtml(body));
}

/**
 * A 5xx that phpRank answered itself: it failed this request only (a page it cannot analyze), or fails every request
 * (its database down). Only another request tells the two apart.
 */
export function failedByPhpRank(answer: unknown): answer is IN8nHttpFullResponse {
	if (typeof answer !== 'object' || answer === null || typeof (answer as IN8nHttpFullResponse).statusCode !== 'number') return false;
	const response = answer as IN8nHttpFullResponse;
	return response.statusCode >= 500 && !answeredByProxy(response);
}

/** Whether phpRank analyzes a page before it answers (a create, an update with `results=1`): seconds of a PHP worker. */
export function isAnalysis(options: Pick<IHttpRequestOptions, 'method' | 'body'>): boolean {
	return options.method === 'POST' || (options.method === 'PUT' && (options.body as IDataObject | undefined)?.results === 1);
}

function header(headers: IDataObject | undefined, name: string): number | undefined {
	const value = headers?.[name];
	if (value === undefined || value === null || value === '') return undefined;
	const number = Number(value);
	return Number.isFinite(number) ? number : undefined;
}

/** How long a 429 answer asked to wait, in milliseconds. */
function retryDelayMs(headers: IDataObject | undefined, now = Date.now()): number {
	const retryAfter = header(headers, 'retry-after');
	if (retryAfter !== undefined) return Math.max(0, retryAfter * 1000);
	const reset = header(headers, 'x-ratelimit-reset');
	if (reset !== undefined) return Math.max(0, reset * 1000 - now);
	return 1000;
}

interface WaitControl {
	deadline: number;
	isCancelled: () => boolean;
	/** Whether the request waits for the rate limit; with Max Wait 0 it waits only for a free place. */
	waitsForRateLimit: boolean;
}

export async function pauseUntil(time: number, isCancelled: () => boolean): Promise<void> {
	while (Date.now() < time && !isCancelled()) {
		await sleep(Math.min(WAIT_SLICE_MS, time - Date.now()));
	}
}

/**
 * How many analyses (creates and re-analyses) one phpRank server works on at once. phpRank analyzes a page while
 * the client waits, with a few PHP workers; requests beyond them queue in front of PHP until a proxy gives up (504).
 * Reads take a worker for milliseconds and are not limited. The limit is learnt as TCP Vegas learns a window:
 * latency above the quickest analysis is time spent queued, so it grows while latency stays flat and shrinks when
 * it climbs.
 */
class ConcurrencyLimit {
	limit = 1;

	/** The quickest analysis seen: its time at the server without a queue. */
	quickestMs = 0;

	/** An analysis was answered `ms` after it was sent, with `inFlight` analyses (itself included) out. */
	answered(ms: number, inFlight: number): void {
		const quickest = this.quickestMs === 0 ? ms : Math.min(ms, this.quickestMs);
		this.quickestMs = quickest;
		const queued = (this.limit * Math.max(0, ms - quickest - LATENCY_NOISE_MS)) / ms;
		// Only a limit that was used is known to be safe to raise.
		if (queued < 1 && inFlight * 2 >= this.limit) this.limit++;
		else if (queued > QUEUE_ALLOWED) this.limit = Math.max(1, this.limit - 1);
	}

	/** A proxy answered in phpRank's place: the server is overloaded or down. */
	overloaded(): void {
		this.limit = Math.max(1, Math.floor(this.limit / 2));
	}
}

/**
 * What one phpRank server (reached through one credential) has said about its rate limit and how many requests
 * it works on at once, shared by every item and every execution in this n8n process: items of a run are sent at
 * once, and the limit counts them all.
 */
class RateGate {
	readonly concurrency = new ConcurrencyLimit();

	readonly reachability = new Reachability();

	private blockedUntil = 0;

	/** Requests the server allows a window (X-RateLimit-Limit). */
	private windowSize: number | undefined;

	private remaining: number | undefined;

	private learnedAt: number | undefined;

	private inFlight = 0;

	/** Requests waiting in waitToSend, for the rate limit or a place. */
	private waiting = 0;

	private analysesInFlight = 0;

	private requestsSent = 0;

	private newestApplied = 0;

	/**
	 * Requests waiting to be sent, first come first, analyses apart: each wakes its request, or says that its wait
	 * had ended already. An answer frees one analysis's place, and waking every waiting analysis for it would cost
	 * each of them a turn.
	 */
	private readonly waiters = { analyses: [] as Array<() => boolean>, others: [] as Array<() => boolean> };

	/** Resolves when a request may be sent. A cancelled execution stops waiting, and its request is not sent. */
	async waitToSend(control: WaitControl, analyzes: boolean): Promise<WaitOutcome> {
		this.waiting++;
		try {
			return await this.waitForTurn(control, analyzes);
		} finally {
			this.waiting--;
		}
	}

	private async waitForTurn(control: WaitControl, analyzes: boolean): Promise<WaitOutcome> {
		for (;;) {
			const now = Date.now();
			if (control.isCancelled()) return { cancelled: true };
			if (control.waitsForRateLimit && now < this.blockedUntil) {
				if (this.blockedUntil > control.deadline) {
					return { waitBeyondDeadlineSeconds: Math.ceil((this.blockedUntil - now) / 1000) };
				}
				await pauseUntil(this.blockedUntil, control.isCancelled);
				continue;
			}
			const underRateLimit = !control.waitsForRateLimit || this.mayRelease();
			if (underRateLimit && (!analyzes || this.analysesInFlight < this.concurrency.limit)) break;
			// A full server is waited for without a deadline: its answers free places.
			if (!underRateLimit && now >= control.deadline) return { waitBeyondDeadlineSeconds: 0 };
			await this.nextChange(control, analyzes ? this.waiters.analyses : this.waiters.others);
		}
		this.inFlight++;
		if (analyzes) this.analysesInFlight++;
		return { requestNumber: ++this.requestsSent };
	}

	/** Records a request's answer: its rate-limit headers and how long it took (a failed connection has neither). */
	recordResponse(request: { number: number; analyzes: boolean }, answer?: { response: IN8nHttpFullResponse; ms: number }): void {
		const byProxy = answer !== undefined && answeredByProxy(answer.response);
		// While phpRank is known to be down, the proxy's answers to probes say nothing about its load.
		if (byProxy && !this.reachability.isDown) this.concurrency.overloaded();
		// Only a success is known to have done the whole work: a 429 or a refusal answers at once.
		else if (request.analyzes && answer !== undefined && answer.response.statusCode < 300) {
			this.concurrency.answered(answer.ms, this.analysesInFlight);
		}
		this.inFlight--;
		if (request.analyzes) this.analysesInFlight--;
		const requestNumber = request.number;
		const headers = answer?.response.headers as IDataObject | undefined;
		if (headers !== undefined && !byProxy && requestNumber > this.newestApplied) {
			this.newestApplied = requestNumber;
			this.learnedAt = Date.now();
			this.windowSize = header(headers, 'x-ratelimit-limit') ?? this.windowSize;
			this.remaining = header(headers, 'x-ratelimit-remaining');
		}
		wake(this.waiters.others);
		wake(this.waiters.analyses, Math.max(1, this.concurrency.limit - this.analysesInFlight));
	}

	/**
	 * A 429: nothing goes until the window reopens. Then one request opens the new window alone: preparing a
	 * window's worth of requests at once would delay its start, and with it every later one. The others follow
	 * its answer, or, when that is slow to come (an analysis takes seconds), a moment after it left.
	 */
	block(delayMs: number): void {
		this.blockedUntil = Math.max(this.blockedUntil, Date.now() + delayMs);
		this.learnedAt = undefined;
		this.newestApplied = this.requestsSent;
		void this.wakeWhenWindowOpens(this.blockedUntil + OPENING_ALONE_MS);
		this.wakeWaiters();
	}

	/** Wakes the waiting requests as the window reopens; a wake-up for nobody (the executions were cancelled) is dropped. */
	private async wakeWhenWindowOpens(at: number): Promise<void> {
		while (Date.now() < at) {
			await sleep(Math.min(WAIT_SLICE_MS, at - Date.now()));
			// Checked after a slice: the request that got the 429 is back in waitToSend by then.
			if (this.waiting === 0) return;
		}
		this.wakeWaiters();
	}

	private mayRelease(): boolean {
		// Until an answer tells whether the server limits, one request goes alone; what it said goes
		// stale after a while, as operators change limits and windows pass between executions.
		if (this.learnedAt === undefined || Date.now() - this.learnedAt > KNOWLEDGE_LIFETIME_MS) {
			const windowOpened = this.windowSize !== undefined && this.blockedUntil > 0 && Date.now() >= this.blockedUntil + OPENING_ALONE_MS;
			return this.inFlight === 0 || (windowOpened && this.inFlight < this.windowSize!);
		}
		if (this.remaining === undefined) return true;
		return this.remaining - this.inFlight > 0 || this.inFlight === 0;
	}

	/** Until a change may let the request go, or a slice of time passed: a cancelled execution or a deadline is seen. */
	private async nextChange(control: WaitControl, queue: Array<() => boolean>): Promise<void> {
		await new Promise<void>((resolve) => {
			let waiting = true;
			const wakeUp = () => {
				if (!waiting) return false;
				waiting = false;
				resolve();
				return true;
			};
			queue.push(wakeUp);
			void sleep(Math.max(0, Math.min(control.deadline, Date.now() + WAIT_SLICE_MS) - Date.now())).then(wakeUp);
		});
	}

	private wakeWaiters(): void {
		wake(this.waiters.others);
		wake(this.waiters.analyses);
	}
}

/** Wakes up to `count` waiting requests, first come first. */
function wake(queue: Array<() => boolean>, count = Infinity): void {
	let woken = 0;
	while (woken < count && queue.length > 0) {
		if (queue.shift()!()) woken++;
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

interface LimitOptions {
	/** The phpRank server: items and executions that talk to the same one share its limits. */
	server: string;
	/** Whether the request has phpRank analyze a page (a create, a re-analysis): seconds of a PHP worker. */
	analyzes: boolean;
	/** How long the item may wait for the rate limit in all; 0 sends without waiting for it and fails on a 429. */
	maxWaitSeconds: number;
	isCancelled: () => boolean;
	/** The error for a wait beyond maxWaitSeconds, given the seconds phpRank asked for. */
	waitTooLong: (askedSeconds: number) => Error;
	/** The error for a wait that the execution's cancelling ended: the request was not sent. */
	cancelled: () => Error;
}

/**
 * Sends a request when phpRank's limits allow it, and sends it again after a 429: the only answer
 * known to have done nothing. Any other answer, and any failure to get one, goes back to the caller.
 */
export async function sendWithinLimits(
	sendOnce: () => Promise<IN8nHttpFullResponse>,
	{ server, analyzes, maxWaitSeconds, isCancelled, waitTooLong, cancelled }: LimitOptions,
): Promise<IN8nHttpFullResponse> {
	const gate = rateGateFor(server);
	const control = { deadline: Date.now() + maxWaitSeconds * 1000, isCancelled, waitsForRateLimit: maxWaitSeconds > 0 };
	for (;;) {
		const waited = await gate.waitToSend(control, analyzes);
		if ('cancelled' in waited) throw cancelled();
		if ('waitBeyondDeadlineSeconds' in waited) throw waitTooLong(waited.waitBeyondDeadlineSeconds);
		const request = { number: waited.requestNumber, analyzes };
		const sentAt = Date.now();
		const pending = sendOnce();
		// A request that got no answer frees its place without news of the server; the caller gets its error.
		pending.catch(() => gate.recordResponse(request));
		const response = await pending;
		gate.recordResponse(request, { response, ms: Date.now() - sentAt });
		if (response.statusCode !== 429) return response;
		const delayMs = retryDelayMs(response.headers as IDataObject);
		if (!control.waitsForRateLimit || Date.now() + delayMs > control.deadline) throw waitTooLong(Math.ceil(delayMs / 1000));
		gate.block(delayMs);
	}
}

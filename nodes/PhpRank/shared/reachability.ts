import { sleep } from 'n8n-workflow';

// While phpRank cannot be reached, one request at a time tries it, after a pause that grows from the first to the
// longest: a restart is over in seconds, and an hour-long outage is tried every few seconds, not thousands of times.
const FIRST_PROBE_PAUSE_MS = 500;
const LONGEST_PROBE_PAUSE_MS = 5000;
const PROBE_PAUSE_GROWTH = 1.5;

// A server that never answered since n8n started is more likely a wrong Base URL than a restart: its items fail
// within a minute rather than after the whole wait.
const FIRST_CONTACT_WAIT_MS = 60_000;

// Long waits are cut into slices so that a cancelled execution stops waiting promptly.
export const WAIT_SLICE_MS = 500;

/** The request may be sent as usual, is the one that probes the server, or must give up: its wait is spent. */
export type Turn = 'send' | 'probe' | 'spent';

interface TurnControl {
	deadline: number;
	isCancelled: () => boolean;
}

/**
 * Whether one phpRank server (reached through one credential) can be reached, shared by every item and every
 * execution in this n8n process, beside its rate limit (RateGate). A refused connection, a host not found, or a
 * proxy saying phpRank is down marks it unreachable; then requests wait, and only the one probing it is sent,
 * until an answer from phpRank marks it back. A 5xx that phpRank answers itself puts it in doubt: requests wait
 * for one probe sent at once, which finds it failing every request (down, as above) or answering (up).
 */
export class Reachability {
	/** Since when the server has been unreachable; undefined while it answers. */
	private downSince: number | undefined;

	/** When the latest answer from the server was sent: an answer to a request sent before an outage says nothing of it. */
	private upSince = 0;

	private everAnswered = false;

	private probing = false;

	private nextProbeAt = 0;

	private probePauseMs = FIRST_PROBE_PAUSE_MS;

	/** Down until a probe tells: phpRank answered a request with its own 5xx, and may fail that request only. */
	private inDoubt = false;

	/** When the latest request that found the server down was sent. */
	private foundDownAt = 0;

	private readonly waiters = new Set<() => void>();

	/** How the latest request failed to reach the server: its connection error, or the proxy's answer. */
	lastFailure: unknown;

	get isDown(): boolean {
		return this.downSince !== undefined;
	}

	/** How long the server has been unreachable, in milliseconds; 0 while it answers. */
	downForMs(): number {
		return this.downSince === undefined ? 0 : Date.now() - this.downSince;
	}

	/** Whether the server is known to be down, not only in doubt. */
	get isKnownDown(): boolean {
		return this.downSince !== undefined && !this.inDoubt;
	}

	/** Whether a request sent at `time` or later found the server down. */
	foundDownSince(time: number): boolean {
		return this.foundDownAt >= time;
	}

	/** A request sent at `sentAt` did not reach the server, or a proxy said that it is down, or a probe found it failing. */
	unreachable(sentAt: number, { wasProbe, failure }: { wasProbe: boolean; failure: unknown }): void {
		this.lastFailure = failure;
		this.foundDownAt = Math.max(this.foundDownAt, sentAt);
		if (wasProbe) {
			this.inDoubt = false;
			this.probing = false;
			this.probePauseMs = Math.min(LONGEST_PROBE_PAUSE_MS, this.probePauseMs * PROBE_PAUSE_GROWTH);
			this.nextProbeAt = Date.now() + this.probePauseMs;
		} else if (this.downSince === undefined && sentAt >= this.upSince) {
			this.downSince = Date.now();
			this.probePauseMs = FIRST_PROBE_PAUSE_MS;
			this.nextProbeAt = this.downSince + FIRST_PROBE_PAUSE_MS;
		}
	}

	/** The server answered a request sent at `sentAt`. */
	answered(sentAt: number, { wasProbe }: { wasProbe: boolean }): void {
		this.everAnswered = true;
		if (wasProbe) this.probing = false;
		if (this.downSince !== undefined && (wasProbe || sentAt >= this.downSince)) {
			this.downSince = undefined;
			this.inDoubt = false;
			this.wakeAll();
		}
		this.upSince = Math.max(this.upSince, sentAt);
	}

	/**
	 * phpRank answered a request with its own 5xx at `answeredAt`: unless a request sent since was answered, the
	 * server is in doubt until the next probe, sent at once, finds it answering or failing too. Returns since when a
	 * request that found the server down says that phpRank failed this one as a whole (see foundDownSince).
	 */
	failed(answeredAt: number, { failure }: { failure: unknown }): number {
		this.everAnswered = true;
		if (this.downSince !== undefined) return Math.min(answeredAt, this.downSince);
		if (this.upSince >= answeredAt) return answeredAt;
		this.lastFailure = failure;
		this.downSince = answeredAt;
		this.inDoubt = true;
		// The probe goes at once; should phpRank fail it too, the pauses after it are a restart's.
		this.probePauseMs = FIRST_PROBE_PAUSE_MS / PROBE_PAUSE_GROWTH;
		this.nextProbeAt = answeredAt;
		this.wakeAll();
		return answeredAt;
	}

	/** A probe that ended without news of the server (cancelled, timed out, past its item's wait): another may go. */
	probeAbandoned(): void {
		this.probing = false;
		this.wakeAll();
	}

	/**
	 * Resolves when the request may go: at once while the server is reachable; while it is not, when it is the one
	 * to probe it, when another probe found it back, or with 'spent' at the item's deadline or once cancelled. The
	 * probe of a server in doubt is waited for whatever the deadline: it takes a moment, and it tells whether to wait.
	 */
	async waitTurn({ deadline, isCancelled }: TurnControl, waitingSince: number): Promise<Turn> {
		for (;;) {
			if (isCancelled()) return 'spent';
			if (this.downSince === undefined) return 'send';
			const now = Date.now();
			const lastChance = this.everAnswered ? deadline : Math.min(deadline, waitingSince + FIRST_CONTACT_WAIT_MS);
			if (now >= lastChance && !this.inDoubt) return 'spent';
			if (!this.probing && now >= this.nextProbeAt) {
				this.probing = true;
				return 'probe';
			}
			const giveUpAt = this.inDoubt ? Infinity : lastChance;
			await this.nextChange(Math.min(giveUpAt, this.probing ? now + WAIT_SLICE_MS : this.nextProbeAt, now + WAIT_SLICE_MS));
		}
	}

	private async nextChange(until: number): Promise<void> {
		await new Promise<void>((resolve) => {
			const wakeUp = () => {
				if (this.waiters.delete(wakeUp)) resolve();
			};
			this.waiters.add(wakeUp);
			void sleep(Math.max(0, until - Date.now())).then(wakeUp);
		});
	}

	private wakeAll(): void {
		for (const wakeUp of [...this.waiters]) wakeUp();
	}
}

/** Injected misbehaviour: what proxies, broken installs and flaky networks do to phpRank's answers. */
import { Answer, errorBody, html, htmlPage, json, redirect } from './http';
import { Fault, FaultAction, FaultKind } from './types';

/** Kinds that strike once the application has carried a request out; the others strike on arrival. */
const AFTER_HANDLING_KINDS: FaultKind[] = ['dropAfterHandling', 'delayAfterHandling'];

const FAULT_KINDS: FaultKind[] = ['status', 'html', 'empty', 'malformedJson', 'drop', 'delay', 'hold', 'redirectLogin', 'redirect', ...AFTER_HANDLING_KINDS];

/** When a fault is consulted: as a request arrives, or once the API has answered it with success. */
export type FaultStage = 'arrival' | 'handled';

export function checkFault(fault: Fault): void {
	if (!FAULT_KINDS.includes(fault.kind)) throw new Error(`Unknown fault kind "${String(fault.kind)}"`);
	if (fault.every !== undefined && !(Number.isSafeInteger(fault.every) && fault.every >= 1)) {
		throw new Error('"every" must be a whole number, 1 or more');
	}
}

/** The request a fault is matched against; `path` is the decoded path after basePath. */
type FaultTarget = { method: string; path: string; query: Record<string, string> };

function matches(fault: Fault, target: FaultTarget): boolean {
	if (fault.method && fault.method.toUpperCase() !== target.method) return false;
	if (typeof fault.path === 'string' && fault.path !== target.path) return false;
	if (fault.path instanceof RegExp) {
		fault.path.lastIndex = 0;
		if (!fault.path.test(target.path)) return false;
	}
	return Object.entries(fault.query ?? {}).every(([key, value]) => target.query[key] === value);
}

interface ArmedFault {
	id: number;
	fault: Fault;
	remaining: number;
	skipLeft: number;
	/** Matching requests counted towards `every`. */
	seen: number;
}

export class FaultBook {
	private armed: ArmedFault[] = [];
	private nextId = 1;

	add(fault: Fault): { id: number } {
		checkFault(fault);
		const id = this.nextId++;
		this.armed.push({ id, fault, remaining: fault.times ?? 1, skipLeft: fault.skip ?? 0, seen: 0 });
		return { id };
	}

	clear(): void {
		this.armed = [];
	}

	/**
	 * Faults of the stage are consulted in the order they were injected. A matching fault that still has
	 * requests to let through counts this one and passes it on; the first armed match fires and ends the search.
	 */
	take(target: FaultTarget, stage: FaultStage): { id: number; fault: Fault } | undefined {
		for (const entry of this.armed) {
			const entryStage = AFTER_HANDLING_KINDS.includes(entry.fault.kind) ? 'handled' : 'arrival';
			if (entry.remaining <= 0 || entryStage !== stage || !matches(entry.fault, target)) continue;
			if (entry.skipLeft > 0) {
				entry.skipLeft--;
				continue;
			}
			entry.seen++;
			if (entry.fault.every !== undefined && entry.seen % entry.fault.every !== 0) continue;
			entry.remaining--;
			return { id: entry.id, fault: entry.fault };
		}
		return undefined;
	}
}

type AnsweringAction = Exclude<FaultAction, { kind: 'drop' | 'delay' | 'hold' | 'dropAfterHandling' | 'delayAfterHandling' }>;

/** The answer an answering fault sends in place of the real one. */
export function faultAnswer(action: AnsweringAction, baseUrl: string): Answer {
	switch (action.kind) {
		case 'status': {
			const { status, body = errorBody(status), headers = {} } = action;
			if (typeof body === 'string') return { status, headers: { 'Content-Type': 'text/plain; charset=UTF-8', ...headers }, body };
			return json(status, body, headers);
		}
		case 'html':
			return html(action.status ?? 200, action.html ?? htmlPage('Service Unavailable', 'The site is temporarily unavailable.'), action.headers);
		case 'empty':
			return { status: action.status ?? 200, headers: action.headers ?? {}, body: '' };
		case 'malformedJson':
			return { status: action.status ?? 200, headers: { 'Content-Type': 'application/json' }, body: '{"data": [' };
		case 'redirectLogin':
			return redirect(`${baseUrl}/login`);
		case 'redirect':
			return redirect(action.location, action.status ?? 302);
	}
}

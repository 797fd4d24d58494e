/** One line per check, `PASS` or `FAIL`, and a plain summary line at the end. */
import { errorMessage, seconds } from '../../dev/n8n/util';

export class Checks {
	passed = 0;

	failed = 0;

	/** Put before every check's name, e.g. the n8n the checks run on, when the suite runs the same checks on several. */
	prefix = '';

	section(title: string): void {
		console.log(`\n== ${title}`);
	}

	info(text: string): void {
		console.log(`   ${text}`);
	}

	fail(name: string, reason: string): void {
		this.failed++;
		const [first, ...rest] = reason.split('\n');
		console.log(`FAIL ${this.prefix}${name}: ${first}`);
		for (const line of rest) console.log(`     ${line}`);
	}

	/**
	 * Runs one check. A returned string is shown as its detail. Returns whether it passed; a failure is
	 * counted and does not throw.
	 */
	async check(name: string, body: () => Promise<string | void> | string | void): Promise<boolean> {
		return await this.step(name, body).then(
			() => true,
			() => false,
		);
	}

	/** A check later steps depend on: its failure ends the leg (after it is counted) with a StepFailed. */
	async step<T>(name: string, body: () => Promise<T> | T, detail?: (value: T) => string | void): Promise<T> {
		const startedAt = Date.now();
		try {
			const value = await body();
			const took = Date.now() - startedAt;
			const shown = [detail ? detail(value) : value, took >= 2000 ? seconds(took) : ''].filter((part) => typeof part === 'string' && part);
			this.passed++;
			console.log(`PASS ${this.prefix}${name}${shown.length ? ` (${shown.join(', ')})` : ''}`);
			return value;
		} catch (error) {
			this.fail(name, errorMessage(error));
			throw new StepFailed(name);
		}
	}

	summary(): string {
		return `${this.passed} passed, ${this.failed} failed`;
	}
}

/** Thrown by `Checks.step`; already reported. */
export class StepFailed extends Error {
	constructor(step: string) {
		super(`stopped after "${step}" failed`);
	}
}

export function assert(condition: unknown, message: string): asserts condition {
	if (!condition) throw new Error(message);
}

/** The value with every object's keys in alphabetical order: for comparing maps whose order says nothing. */
export function keysSorted(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(keysSorted);
	if (value === null || typeof value !== 'object') return value;
	return Object.fromEntries(
		Object.entries(value)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
			.map(([key, entry]) => [key, keysSorted(entry)]),
	);
}

export function assertEqual(actual: unknown, expected: unknown, what: string): void {
	const a = JSON.stringify(actual);
	const e = JSON.stringify(expected);
	if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

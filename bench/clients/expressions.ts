/**
 * Where an n8n node's time goes: every n8n expression evaluated during one run, counted and timed,
 * with who asked for it. n8n evaluates an expression in a fresh data proxy with its date helpers
 * ($now, $today) each time, which makes each evaluation cost a fraction of a millisecond.
 */
import { performance } from 'node:perf_hooks';

import { WorkflowExpression } from 'n8n-workflow';

export interface ExpressionTally {
	evaluations: number;
	/** Time spent inside the evaluations. */
	ms: number;
	/** Evaluations by who asked for them. */
	bySource: Record<string, number>;
}

type Resolve = (this: unknown, ...args: unknown[]) => unknown;

function sourceOf(stack: string): string {
	if (stack.includes('resolveBaseUrl')) return 'n8n: base URL check (2nd pass over the parameters)';
	if (/authenticate/i.test(stack)) return 'credential (auth header)';
	const nodeFrame = /at (?:[\w$]+\.)?([\w$<>]+) \([^)]*[\\/](?:nodes[\\/](?:PhpRank|HttpRequest)|bench[\\/]floor)[\\/]/.exec(stack);
	if (nodeFrame) return `node: ${nodeFrame[1]}`;
	if (stack.includes('pagination')) return 'n8n: pagination';
	if (stack.includes('routing-node')) return 'n8n: request building (pass over the parameters)';
	return 'n8n: other';
}

/** Runs `run` with every expression evaluation counted; nested evaluations count once. */
export async function tallyExpressions<T>(run: () => Promise<T>): Promise<{ result: T; tally: ExpressionTally }> {
	// Where n8n builds an expression's data proxy and evaluates it: the whole cost of one evaluation.
	const prototype = WorkflowExpression.prototype as unknown as { resolveSimpleParameterValue: Resolve };
	const original = prototype.resolveSimpleParameterValue;
	const tally: ExpressionTally = { evaluations: 0, ms: 0, bySource: {} };
	const stackTraceLimit = Error.stackTraceLimit;
	let depth = 0;
	prototype.resolveSimpleParameterValue = function (this: unknown, ...args: unknown[]) {
		const value = args[0];
		if (depth > 0 || typeof value !== 'string' || !value.startsWith('=')) return original.apply(this, args);
		const source = sourceOf(new Error().stack ?? '');
		tally.evaluations++;
		tally.bySource[source] = (tally.bySource[source] ?? 0) + 1;
		const started = performance.now();
		depth++;
		try {
			return original.apply(this, args);
		} finally {
			depth--;
			tally.ms += performance.now() - started;
		}
	};
	Error.stackTraceLimit = 40;
	try {
		return { result: await run(), tally };
	} finally {
		prototype.resolveSimpleParameterValue = original;
		Error.stackTraceLimit = stackTraceLimit;
	}
}

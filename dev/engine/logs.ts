import { inspect } from 'node:util';

import type { Logger, LogMetadata } from 'n8n-workflow';

type LogLevel = 'error' | 'warn' | 'info' | 'debug';

export interface LogLine {
	level: LogLevel;
	message: string;
	meta?: LogMetadata;
}

// Every line goes to all open captures: a run started while another is still
// going sees both runs' lines, which over-reports but never hides a leak.
const openCaptures = new Set<LogLine[]>();

function record(level: LogLevel, message: string, meta?: LogMetadata): void {
	const line: LogLine = meta === undefined ? { level, message } : { level, message, meta };
	for (const lines of openCaptures) lines.push(line);
	if (process.env.HARNESS_PRINT_LOGS) {
		process.stderr.write(`[n8n ${level}] ${message} ${meta ? inspect(meta, { depth: 4 }) : ''}\n`);
	}
}

interface CapturingLogger extends Logger {
	scoped(): CapturingLogger;
}

/**
 * Stands in for both n8n-workflow's LoggerProxy target and n8n-core's DI `Logger`
 * (which nodes reach through `this.logger`), so nothing a run logs is lost.
 */
export const capturingLogger: CapturingLogger = {
	error: (message, meta) => record('error', message, meta),
	warn: (message, meta) => record('warn', message, meta),
	info: (message, meta) => record('info', message, meta),
	debug: (message, meta) => record('debug', message, meta),
	scoped: () => capturingLogger,
};

/** Collects the lines logged until `stop` is called. */
export function captureLogs(): { lines: LogLine[]; stop(): void } {
	const lines: LogLine[] = [];
	openCaptures.add(lines);
	return { lines, stop: () => openCaptures.delete(lines) };
}

/** Renders log lines, metadata and any errors inside it, as one searchable string. */
export function logsToText(lines: LogLine[]): string {
	return lines
		.map((line) => `${line.level}: ${line.message}${line.meta ? ` ${toSearchableText(line.meta)}` : ''}`)
		.join('\n');
}

function errorFields(error: Error): Record<string, unknown> {
	const toJSON = (error as { toJSON?: () => unknown }).toJSON;
	const projected = typeof toJSON === 'function' ? toJSON.call(error) : undefined;
	return {
		...error,
		...(projected !== null && typeof projected === 'object' ? projected : {}),
		name: error.name,
		message: error.message,
		stack: error.stack,
	};
}

/**
 * Renders a value the way n8n persists run data and error output: errors as
 * their own fields plus their `toJSON` projection (which bounds a raw HTTP
 * `cause`), not the in-memory request objects behind them. Cycle-safe, so any
 * secret that would be stored or shown can be searched for.
 */
export function toSearchableText(value: unknown): string {
	const seen = new WeakSet<object>();
	return (
		JSON.stringify(value, function (this: Record<string, unknown>, key, serialized: unknown) {
			// `this[key]` is the value before its own toJSON ran, so errors keep all their fields.
			const raw = this[key];
			if (raw instanceof Error) {
				if (seen.has(raw)) return '[Seen]';
				seen.add(raw);
			}
			const current = raw instanceof Error ? errorFields(raw) : serialized;
			if (typeof current === 'bigint') return current.toString();
			if (current !== null && typeof current === 'object') {
				if (seen.has(current)) return '[Seen]';
				seen.add(current);
			}
			return current;
		}) ?? ''
	);
}

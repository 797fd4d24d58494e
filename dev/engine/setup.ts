import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import vm from 'node:vm';

import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { BinaryDataService, RESTRICT_FILE_ACCESS_TO } from 'n8n-core';
import { LoggerProxy, setSafeRegexEngine, type RegexEngine } from 'n8n-workflow';

import { capturingLogger } from './logs';

export const PACKAGE_ROOT = path.resolve(__dirname, '..', '..');

const FOLDER_PREFIX = 'n8n-harness-';

let userFolder: string | undefined;
let binaryDataReady: Promise<void> | undefined;

/** A throw-away user folder, after removing those left behind by earlier test processes that have ended. */
function createUserFolder(): string {
	if (existsSync('/proc/self')) {
		for (const entry of readdirSync(tmpdir())) {
			const pid = new RegExp(`^${FOLDER_PREFIX}(\\d+)-`).exec(entry)?.[1];
			if (pid !== undefined && !existsSync(`/proc/${pid}`)) rmSync(path.join(tmpdir(), entry), { recursive: true, force: true });
		}
	}
	const created = mkdtempSync(path.join(tmpdir(), `${FOLDER_PREFIX}${process.pid}-`));
	process.env.N8N_USER_FOLDER = created;
	// Jest's sandboxed `process` never sees the real exit, hence also the sweep of ended runs.
	process.once('exit', () => rmSync(created, { recursive: true, force: true }));
	return created;
}

/**
 * n8n runs the regular expressions of its checks (a resource locator's, say) in a VM context stopped after 250 ms of
 * wall-clock time, against runaway patterns. On two cores busy with other work (CI installs n8n beside the tests) a
 * check of microseconds waited past it and failed a run. The engine keeps the same guard, at 10 s, so that no test's
 * outcome depends on the machine's load.
 */
function patientRegexEngine(): RegexEngine {
	const context = vm.createContext({ pattern: '', flags: '', input: '', replacement: '', result: undefined as unknown });
	const script = (code: string) => new vm.Script(`result = ${code}`);
	const scripts = {
		exec: script('new RegExp(pattern, flags).exec(input)'),
		test: script('new RegExp(pattern, flags).test(input)'),
		replace: script('input.replace(new RegExp(pattern, flags), replacement)'),
		matchAll: script('Array.from(input.matchAll(new RegExp(pattern, flags.includes("g") ? flags : flags + "g")))'),
		split: script('input.split(new RegExp(pattern, flags))'),
	};
	const run = <T>(which: keyof typeof scripts, pattern: string, input: string, flags = '', replacement = ''): T => {
		Object.assign(context, { pattern, input, flags, replacement, result: undefined });
		scripts[which].runInContext(context, { timeout: 10_000 });
		return context.result as T;
	};
	return {
		exec: (pattern, input, flags) => run('exec', pattern, input, flags),
		test: (pattern, input, flags) => run('test', pattern, input, flags),
		replace: (pattern, input, flags, replacement) => run('replace', pattern, input, flags, replacement),
		matchAll: (pattern, input, flags) => run('matchAll', pattern, input, flags),
		split: (pattern, input, flags) => run('split', pattern, input, flags),
	};
}

/**
 * n8n-core reads its settings from env vars the first time a config class is
 * resolved from the DI container, so these must be in place before anything
 * calls `Container.get`. A throw-away user folder keeps the instance's
 * encryption key, binary data and file-access sandbox away from the developer's
 * real `~/.n8n`.
 */
export function ensureEngine(): void {
	if (userFolder) return;
	userFolder = process.env.N8N_USER_FOLDER || createUserFolder();
	const filesFolder = path.join(userFolder, 'files');
	mkdirSync(filesFolder, { recursive: true });
	// File nodes (Read/Write Files, Extract From File) may touch only this
	// folder, as on a real instance, unless the caller allowed others first.
	process.env[RESTRICT_FILE_ACCESS_TO] ??= filesFolder;

	Container.set(Logger, capturingLogger as unknown as Logger);
	LoggerProxy.init(capturingLogger);
	setSafeRegexEngine(patientRegexEngine());
}

/** Binary data (file nodes, binary responses) needs its storage backend initialised once. */
export async function ensureBinaryData(): Promise<void> {
	ensureEngine();
	binaryDataReady ??= Container.get(BinaryDataService).init();
	await binaryDataReady;
}

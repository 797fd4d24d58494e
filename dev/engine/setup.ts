import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { BinaryDataService, RESTRICT_FILE_ACCESS_TO } from 'n8n-core';
import { LoggerProxy } from 'n8n-workflow';

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
}

/** Binary data (file nodes, binary responses) needs its storage backend initialised once. */
export async function ensureBinaryData(): Promise<void> {
	ensureEngine();
	binaryDataReady ??= Container.get(BinaryDataService).init();
	await binaryDataReady;
}

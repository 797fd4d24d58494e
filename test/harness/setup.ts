import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import { LoggerProxy } from 'n8n-workflow';

import { capturingLogger } from './logs';

export const PACKAGE_ROOT = path.resolve(__dirname, '..', '..');

const FOLDER_PREFIX = 'n8n-harness-';

let userFolder: string | undefined;
let filesFolder: string | undefined;
let binaryDataReady: Promise<void> | undefined;

/** Removes user folders left behind by earlier test processes that have ended. */
function removeFoldersOfEndedRuns(): void {
	if (!existsSync('/proc/self')) return;
	for (const entry of readdirSync(tmpdir())) {
		const pid = new RegExp(`^${FOLDER_PREFIX}(\\d+)-`).exec(entry)?.[1];
		if (pid === undefined || existsSync(`/proc/${pid}`)) continue;
		rmSync(path.join(tmpdir(), entry), { recursive: true, force: true });
	}
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

	if (process.env.N8N_USER_FOLDER) {
		userFolder = process.env.N8N_USER_FOLDER;
	} else {
		removeFoldersOfEndedRuns();
		const created = mkdtempSync(path.join(tmpdir(), `${FOLDER_PREFIX}${process.pid}-`));
		userFolder = created;
		process.env.N8N_USER_FOLDER = created;
		// Jest's sandboxed `process` never sees the real exit, hence also the sweep above.
		process.once('exit', () => rmSync(created, { recursive: true, force: true }));
	}

	filesFolder = path.join(userFolder, 'files');
	mkdirSync(filesFolder, { recursive: true });
	// File nodes (Read/Write Files, Extract From File) may touch only these
	// folders, as on a real instance; the package's own test fixtures are readable.
	process.env.N8N_RESTRICT_FILE_ACCESS_TO ??= [filesFolder, path.join(PACKAGE_ROOT, 'test')].join(';');

	Container.set(Logger, capturingLogger as unknown as Logger);
	LoggerProxy.init(capturingLogger);
}

/** Folder the file nodes are allowed to read from and write to during runs. */
export function harnessFilesDir(): string {
	ensureEngine();
	return filesFolder!;
}

/** Binary data (file nodes, binary responses) needs its storage backend initialised once. */
export async function ensureBinaryData(): Promise<void> {
	ensureEngine();
	binaryDataReady ??= Container.get(BinaryDataService).init();
	await binaryDataReady;
}

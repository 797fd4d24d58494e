import { NodeOperationError } from 'n8n-workflow';
import type { ExecutionBaseError, IDataObject, INodeParameters } from 'n8n-workflow';
import { startPhpRankServer } from '../../dev/server';
import type { PhpRankServer, PhpRankServerOptions, RecordedRequest, ReportState } from '../../dev/server';
import { checkTitle, failedChecks } from '../../dev/server/analysis';
import { runNode } from '../../dev/engine';
import type { RunNodeOptions, RunNodeResult } from '../../dev/engine';

export type { PhpRankServer, RecordedRequest };

export async function startServer(options: PhpRankServerOptions = {}): Promise<PhpRankServer> {
	return await startPhpRankServer(options);
}

/** One server for the test file, wiped (and prepared again) before each test. */
export function useServer(
	options: PhpRankServerOptions = {},
	prepare: (server: PhpRankServer) => void = () => {},
): () => PhpRankServer {
	let server: PhpRankServer | undefined;
	beforeAll(async () => {
		server = await startServer(options);
	});
	afterAll(async () => await server?.close());
	beforeEach(() => {
		server!.reset();
		prepare(server!);
	});
	return () => server!;
}

/** A server of the test's own, started with the options it asks for and closed once the test ends. */
export function serverPerTest(): (options?: PhpRankServerOptions) => Promise<PhpRankServer> {
	let servers: PhpRankServer[] = [];
	afterEach(async () => {
		await Promise.all(servers.map(async (server) => await server.close()));
		servers = [];
	});
	return async (options = {}) => {
		const server = await startServer(options);
		servers.push(server);
		return server;
	};
}

/** Reports held per URL: after a run that loses no row and creates nothing twice, every row's URL has exactly one. */
export function reportsPerUrl(server: PhpRankServer): Map<string, number> {
	const counts = new Map<string, number>();
	for (const report of server.reports()) counts.set(report.url, (counts.get(report.url) ?? 0) + 1);
	return counts;
}

export function credentialsFor(server: PhpRankServer, overrides: IDataObject = {}) {
	return { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey, ...overrides } };
}

export async function runPhpRank(
	server: PhpRankServer,
	parameters: Record<string, unknown>,
	options: Omit<RunNodeOptions, 'parameters'> = {},
): Promise<RunNodeResult> {
	return await runNode({ credentials: credentialsFor(server), ...options, parameters: parameters as INodeParameters });
}

export function apiRequests(server: PhpRankServer): RecordedRequest[] {
	return server.requests.filter((request) => request.path.includes('/api/v1/'));
}

export function byId(value: string | number) {
	return { __rl: true, mode: 'id', value };
}

export function fromList(value: string | number) {
	return { __rl: true, mode: 'list', value };
}

export function byName(value: string) {
	return { __rl: true, mode: 'name', value };
}

/**
 * n8n's routing engine reports an item that failed before its request as a NodeApiError wrapping
 * the NodeOperationError the node threw; Continue On Fail items carry the NodeOperationError itself.
 */
export function inputErrorOf(error: ExecutionBaseError | undefined): NodeOperationError {
	const candidate = error instanceof NodeOperationError ? error : error?.cause;
	if (!(candidate instanceof NodeOperationError)) {
		throw new Error(`expected a NodeOperationError, got ${error?.constructor.name}: ${error?.message}`);
	}
	return candidate;
}

/** The checks a stored report failed, by importance, as the server's own analysis has them. */
export function failedChecksOnServer(report: ReportState): Record<'high' | 'medium' | 'low', string[]> {
	return failedChecks(report.targetUrl, report.quality);
}

/** Checks by importance, by the titles phpRank's report page shows (the server's own). */
export function titlesOf(checks: Record<'high' | 'medium' | 'low', string[]>): Record<'high' | 'medium' | 'low', string[]> {
	return { high: checks.high.map(checkTitle), medium: checks.medium.map(checkTitle), low: checks.low.map(checkTitle) };
}

/** The titles of the checks a stored report failed, by importance, as the server has them. */
export function failedCheckNamesOnServer(report: ReportState): Record<'high' | 'medium' | 'low', string[]> {
	return titlesOf(failedChecksOnServer(report));
}

/**
 * The checks that fail in `after` and did not in `before`, and the reverse, by importance, each followed by their
 * titles, as the server has them.
 */
export function changedChecksOnServer(before: ReportState, after: ReportState) {
	const failedBefore = failedChecksOnServer(before);
	const failedAfter = failedChecksOnServer(after);
	const not = (names: string[]) => (name: string) => !names.includes(name);
	const newlyFailedChecks = { high: failedAfter.high.filter(not(failedBefore.high)), medium: failedAfter.medium.filter(not(failedBefore.medium)), low: failedAfter.low.filter(not(failedBefore.low)) };
	const fixedChecks = { high: failedBefore.high.filter(not(failedAfter.high)), medium: failedBefore.medium.filter(not(failedAfter.medium)), low: failedBefore.low.filter(not(failedAfter.low)) };
	return { newlyFailedChecks, newlyFailedCheckNames: titlesOf(newlyFailedChecks), fixedChecks, fixedCheckNames: titlesOf(fixedChecks) };
}

/** Requests the server received, as `METHOD path`. */
export function requestLines(server: PhpRankServer): string[] {
	return apiRequests(server).map((request) => `${request.method} ${request.rawPath}`);
}

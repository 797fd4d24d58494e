/**
 * Case 9's memory part, in a process of its own (bench/crawl.ts starts it, with --expose-gc and, when it is to be
 * held to a heap size, --max-old-space-size): one Site > Audit of the site at argv[2] against the phpRank server at
 * argv[3] (its API key argv[4]), Max Pages argv[5]. Nothing else lives in this process, so its heap is n8n's engine
 * with the node and what the audit holds.
 *
 * Measured: the live heap (heapUsed right after a full collection) once n8n and the node are loaded and ready, then
 * every second during the audit, then with the output items held. A peak of heapUsed sampled without collecting
 * would count the garbage V8 has not collected yet (it lets the heap grow toward its limit): that says how much V8
 * chose to use, not what the audit needs. Prints one JSON line.
 */
import { runNode } from '../dev/engine';

const SAMPLE_MS = 1000;

const liveHeap = () => {
	if (global.gc === undefined) throw new Error('Run with --expose-gc');
	global.gc();
	return process.memoryUsage().heapUsed;
};

async function audit(siteUrl: string, phpRank: { baseUrl: string; apiKey: string }, maxPages: number) {
	return await runNode({
		parameters: { resource: 'site', operation: 'audit', siteUrl, maxPages },
		credentials: { phpRankApi: phpRank },
		timeoutMs: 3_600_000,
	});
}

async function main() {
	const [siteUrl, baseUrl, apiKey, maxPagesText] = process.argv.slice(2);
	const phpRank = { baseUrl, apiKey };
	// n8n's own: the engine and the node loaded and run once (a Site URL that fails before any request).
	const warmUp = await audit('not a URL', phpRank, 1);
	if (warmUp.error === undefined) throw new Error('The warm-up run was to fail on its Site URL');
	const ready = liveHeap();
	let peak = ready;
	let peakAtS = 0;
	let unsampledPeak = ready;
	const started = Date.now();
	// Held to a heap size, whether it completes is the measure: no full collection every second to slow it down.
	const heldToLimit = process.execArgv.some((argument) => argument.startsWith('--max-old-space-size'));
	const sampling = setInterval(() => {
		if (heldToLimit) return;
		unsampledPeak = Math.max(unsampledPeak, process.memoryUsage().heapUsed);
		const live = liveHeap();
		if (live > peak) [peak, peakAtS] = [live, (Date.now() - started) / 1000];
	}, SAMPLE_MS);
	const result = await audit(siteUrl, phpRank, Number(maxPagesText));
	const wallS = (Date.now() - started) / 1000;
	clearInterval(sampling);
	const kept = liveHeap();
	const outcomes: Record<string, number> = {};
	for (const { json } of result.items) outcomes[String(json.outcome ?? 'error')] = (outcomes[String(json.outcome ?? 'error')] ?? 0) + 1;
	const itemsJson = result.items.reduce((sum, item) => sum + JSON.stringify(item.json).length, 0);
	const MiB = 1024 ** 2;
	process.stdout.write(
		`${JSON.stringify({
			error: result.error?.message,
			items: result.items.length,
			outcomes,
			wallS,
			readyMiB: ready / MiB,
			peakAboveMiB: (peak - ready) / MiB,
			peakAtS,
			unsampledPeakAboveMiB: (unsampledPeak - ready) / MiB,
			keptAboveMiB: (kept - ready) / MiB,
			itemsJsonMiB: itemsJson / MiB,
		})}\n`,
	);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		process.exit(1);
	},
);

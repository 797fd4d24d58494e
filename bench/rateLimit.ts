/**
 * How close the node gets to a rate-limited phpRank's own ceiling: N items each creating a report
 * against the bundled server limited to L requests per window, and the time that took against the
 * least time the limit allows (the last window cannot open before (ceil(N / L) - 1) windows passed).
 *
 *   npx tsx bench/rateLimit.ts [items=300] [limit=60] [windowSeconds=1] [runs=3]
 *   npx tsx bench/rateLimit.ts 1000 60 60 1     a spreadsheet of 1,000 rows against phpRank's default limit,
 *                                               Max Wait left at its default (about 17 minutes)
 */
import { startPhpRankServer } from '../dev/server';
import { median, runScript } from './processes';
import { createReports } from './slowServer';

async function measureOnce(items: number, limit: number, windowSeconds: number) {
	const server = await startPhpRankServer({ rateLimit: { maxAttempts: limit, decaySeconds: windowSeconds, preciseRetryAfter: true } });
	// The run may take as long as the limit makes it, with room to spare.
	const held = await createReports(server, items, Math.max(600_000, 2 * Math.ceil(items / limit) * windowSeconds * 1000));
	const accepted = server.requests.filter((request) => request.status === 201);
	const refused = server.requests.filter((request) => request.status === 429).length;
	await server.close();
	const spanMs = accepted[accepted.length - 1].time - accepted[0].time;
	const allowedMs = (Math.ceil(items / limit) - 1) * windowSeconds * 1000;
	return { ...held, refused, spanMs, allowedMs, ratio: spanMs / allowedMs };
}

async function main() {
	const [items = 300, limit = 60, windowSeconds = 1, runs = 3] = process.argv.slice(2).map(Number);
	console.log(`${items} items creating reports against phpRank limited to ${limit} requests per ${windowSeconds} s window`);
	console.log('run  reports  distinct URLs  failed items  429s  span (ms)  allowed (ms)  ratio');
	const ratios: number[] = [];
	for (let run = 1; run <= runs; run++) {
		const f = await measureOnce(items, limit, windowSeconds);
		ratios.push(f.ratio);
		const columns = [f.reports, f.reports - f.duplicates, f.failedItems, f.refused, f.spanMs, f.allowedMs, f.ratio.toFixed(3)];
		const widths = [7, 14, 13, 5, 10, 13, 6];
		console.log([String(run).padEnd(3), ...columns.map((value, index) => String(value).padStart(widths[index]))].join(' '));
	}
	console.log(`median ratio to the limit's own minimum: ${median(ratios).toFixed(3)}`);
}

runScript(main);

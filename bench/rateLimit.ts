/**
 * How close the node gets to a rate-limited phpRank's own ceiling: N items each creating a report
 * against the bundled server limited to L requests per window, and the time that took against the
 * least time the limit allows (the last window cannot open before (ceil(N / L) - 1) windows passed).
 *
 *   npx tsx bench/rateLimit.ts [items=300] [limit=60] [windowSeconds=1] [runs=3]
 *   npx tsx bench/rateLimit.ts 1000 60 60 1     a spreadsheet of 1,000 rows against phpRank's default limit,
 *                                               Max Rate-Limit Wait left at its default (about 17 minutes)
 */
import { startPhpRankServer } from '../dev/server';
import { runNode } from '../dev/engine';

async function measureOnce(items: number, limit: number, windowSeconds: number) {
	const server = await startPhpRankServer({
		rateLimit: { maxAttempts: limit, decaySeconds: windowSeconds, preciseRetryAfter: true },
	});
	try {
		const rows = Array.from({ length: items }, (_, index) => ({ url: `https://bench.example.com/page-${index}` }));
		const result = await runNode({
			parameters: { resource: 'report', operation: 'create', url: '={{ $json.url }}' },
			items: rows,
			credentials: { phpRankApi: { baseUrl: server.url, apiKey: server.apiKey } },
			// The run may take as long as the limit makes it, with room to spare.
			timeoutMs: Math.max(600_000, 2 * Math.ceil(items / limit) * windowSeconds * 1000),
		});
		const accepted = server.requests.filter((request) => request.status === 201);
		const refused = server.requests.filter((request) => request.status === 429).length;
		const spanMs = accepted[accepted.length - 1].time - accepted[0].time;
		const allowedMs = (Math.ceil(items / limit) - 1) * windowSeconds * 1000;
		const urls = new Set(server.reports().map((report) => report.url));
		return {
			failedItems: result.error ? items : result.items.filter((item) => item.error).length,
			reports: server.reports().length,
			distinctUrls: urls.size,
			refused,
			spanMs,
			allowedMs,
			ratio: spanMs / allowedMs,
		};
	} finally {
		await server.close();
	}
}

async function main() {
	const [items = 300, limit = 60, windowSeconds = 1, runs = 3] = process.argv.slice(2).map(Number);
	console.log(`${items} items creating reports against phpRank limited to ${limit} requests per ${windowSeconds} s window`);
	console.log('run  reports  distinct URLs  failed items  429s  span (ms)  allowed (ms)  ratio');
	const ratios: number[] = [];
	for (let run = 1; run <= runs; run++) {
		const figures = await measureOnce(items, limit, windowSeconds);
		ratios.push(figures.ratio);
		console.log(
			[
				String(run).padEnd(3),
				String(figures.reports).padStart(7),
				String(figures.distinctUrls).padStart(14),
				String(figures.failedItems).padStart(13),
				String(figures.refused).padStart(5),
				String(figures.spanMs).padStart(10),
				String(figures.allowedMs).padStart(13),
				figures.ratio.toFixed(3).padStart(6),
			].join(' '),
		);
	}
	const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)];
	console.log(`median ratio to the limit's own minimum: ${median.toFixed(3)}`);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);

/** Runs the server standalone (see README.md); prints {"url": …, "apiKey": …} once it listens, so scripts can read where it is. */
import { parseArgs } from 'node:util';
import { DEFAULT_USER, startPhpRankServer } from './index';

/** Each option with its argument (none for a flag) and what it does, in the order --help lists them. */
const OPTIONS: Record<string, [string, string]> = {
	port: ['<n>', 'port to listen on (default 0: any free port)'],
	host: ['<address>', 'address to bind (default 127.0.0.1)'],
	'base-path': ['<path>', 'mount the application under a sub-folder, e.g. /phprank'],
	'seed-reports': ['<n>', 'reports to create at start-up'],
	'seed-projects': ['<n>', 'distinct projects to spread the seeded reports over'],
	'rate-limit': ['<n>', 'requests allowed per window and client (default: no limit)'],
	'rate-window': ['<seconds>', 'length of the rate-limit window (default 60)'],
	'precise-retry-after': ['', 'Retry-After with millisecond precision'],
	latency: ['<ms>', 'delay before every answer'],
	analysis: ['<ms>', 'extra delay for create and re-analysis'],
	workers: ['<n>', 'PHP worker pool: at most n requests worked on at once, the others queue (default: no pool)'],
	'gateway-timeout': ['<ms>', 'a proxy in front answers 504 this long after arrival, PHP going on (default: no proxy)'],
	'max-reports': ['<n>', 'plan quota of reports per user'],
	'api-key': ['<key>', 'API key of the default user'],
	'no-project-delete-hazard': ['', 'do not delete the extra report when a project is deleted'],
	'sorts-by-generated-at': ['', 'sort reports by sort_by=generated_at, which phpRank 1.5 replaces with id'],
	'report-score': ['<h,m,l>', "points of a high, medium and low check in a score (default phpRank's 10,5,0)"],
};

const USAGE = `Options:\n${Object.entries(OPTIONS)
	.map(([name, [argument, text]]) => `  ${`--${name} ${argument}`.trim().padEnd(23)}  ${text}`)
	.join('\n')}`;

async function main(): Promise<void> {
	const options = Object.fromEntries(Object.entries(OPTIONS).map(([name, [argument]]) => [name, { type: argument ? 'string' : 'boolean' }]));
	const values: Record<string, string | boolean | undefined> = parseArgs({ options: { ...options, help: { type: 'boolean' } } }).values;
	if (values.help) {
		process.stdout.write(`${USAGE}\n`);
		return;
	}
	const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
	const number = (name: string) => {
		const value = text(name);
		if (value === undefined) return undefined;
		const parsed = Number(value);
		if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`--${name} needs a non-negative number, got "${value}"`);
		return parsed;
	};
	const points = (name: string) => {
		const value = text(name);
		if (value === undefined) return undefined;
		const [high, medium, low] = value.split(',').map(Number);
		if (value.split(',').length !== 3) throw new Error(`--${name} needs three points, high,medium,low (e.g. 10,5,0), got "${value}"`);
		return { high, medium, low };
	};
	const maxAttempts = number('rate-limit');
	const apiKey = text('api-key');
	const server = await startPhpRankServer({
		port: number('port'),
		host: text('host'),
		basePath: text('base-path'),
		seedReports: number('seed-reports'),
		seedProjects: number('seed-projects'),
		rateLimit:
			maxAttempts === undefined
				? false
				: { maxAttempts, decaySeconds: number('rate-window') ?? 60, preciseRetryAfter: values['precise-retry-after'] === true },
		latencyMs: number('latency'),
		analysisMs: number('analysis'),
		workers: number('workers'),
		gatewayTimeoutMs: number('gateway-timeout'),
		maxReportsPerUser: number('max-reports'),
		projectDeleteHazard: !values['no-project-delete-hazard'],
		sortsByGeneratedAt: values['sorts-by-generated-at'] === true,
		reportScore: points('report-score'),
		users: apiKey ? [{ ...DEFAULT_USER, apiKey }] : undefined,
	});
	process.stdout.write(`${JSON.stringify({ url: server.url, apiKey: server.apiKey })}\n`);

	const stop = () => {
		server.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.once('SIGINT', stop);
	process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
	process.exit(2);
});

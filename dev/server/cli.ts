/**
 * Runs the phpRank-compatible server standalone. Prints one JSON line, {"url": …, "apiKey": …},
 * once it listens, so scripts can read where it is.
 *
 *   npx tsx dev/server/cli.ts --port 0 --seed-reports 200 --rate-limit 60 --latency 5 --base-path /phprank
 */
import { parseArgs } from 'node:util';
import { DEFAULT_USER, startPhpRankServer } from './index';

const USAGE = `Options:
  --port <n>               port to listen on (default 0: any free port)
  --host <address>         address to bind (default 127.0.0.1)
  --base-path <path>       mount the application under a sub-folder, e.g. /phprank
  --seed-reports <n>       reports to create at start-up
  --seed-projects <n>      distinct projects to spread the seeded reports over
  --rate-limit <n>         requests allowed per window and client (default: no limit)
  --rate-window <seconds>  length of the rate-limit window (default 60)
  --precise-retry-after    Retry-After with millisecond precision
  --latency <ms>           delay before every answer
  --analysis <ms>          extra delay for create and re-analysis
  --workers <n>            PHP worker pool: at most n requests worked on at once, the others queue (default: no pool)
  --gateway-timeout <ms>   a proxy in front answers 504 this long after arrival, PHP going on (default: no proxy)
  --max-reports <n>        plan quota of reports per user
  --api-key <key>          API key of the default user
  --no-project-delete-hazard  do not delete the extra report when a project is deleted`;

function number(value: string | undefined, name: string): number | undefined {
	if (value === undefined) return undefined;
	const parsed = Number(value);
	if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`--${name} needs a non-negative number, got "${value}"`);
	return parsed;
}

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			port: { type: 'string' },
			host: { type: 'string' },
			'base-path': { type: 'string' },
			'seed-reports': { type: 'string' },
			'seed-projects': { type: 'string' },
			'rate-limit': { type: 'string' },
			'rate-window': { type: 'string' },
			'precise-retry-after': { type: 'boolean' },
			latency: { type: 'string' },
			analysis: { type: 'string' },
			workers: { type: 'string' },
			'gateway-timeout': { type: 'string' },
			'max-reports': { type: 'string' },
			'api-key': { type: 'string' },
			'no-project-delete-hazard': { type: 'boolean' },
			help: { type: 'boolean' },
		},
	});
	if (values.help) {
		process.stdout.write(`${USAGE}\n`);
		return;
	}
	const maxAttempts = number(values['rate-limit'], 'rate-limit');
	const server = await startPhpRankServer({
		port: number(values.port, 'port'),
		host: values.host,
		basePath: values['base-path'],
		seedReports: number(values['seed-reports'], 'seed-reports'),
		seedProjects: number(values['seed-projects'], 'seed-projects'),
		rateLimit:
			maxAttempts === undefined
				? false
				: { maxAttempts, decaySeconds: number(values['rate-window'], 'rate-window') ?? 60, preciseRetryAfter: values['precise-retry-after'] },
		latencyMs: number(values.latency, 'latency'),
		analysisMs: number(values.analysis, 'analysis'),
		workers: number(values.workers, 'workers'),
		gatewayTimeoutMs: number(values['gateway-timeout'], 'gateway-timeout'),
		maxReportsPerUser: number(values['max-reports'], 'max-reports'),
		projectDeleteHazard: !values['no-project-delete-hazard'],
		users: values['api-key'] ? [{ ...DEFAULT_USER, apiKey: values['api-key'] }] : undefined,
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

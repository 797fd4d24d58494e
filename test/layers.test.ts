import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..');
const PRODUCT = ['nodes', 'credentials'];

/** What each top-level folder may import besides itself: the layers below it, never a user beside it. */
const ALLOWED: Record<string, string[]> = {
	nodes: PRODUCT,
	credentials: PRODUCT,
	dev: [],
	test: ['dev', ...PRODUCT],
	scripts: ['dev'],
	bench: ['dev'],
	e2e: ['dev'],
};

function sourceFiles(folder: string): string[] {
	return readdirSync(path.join(ROOT, folder), { withFileTypes: true, recursive: true })
		.filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
		.map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

/** The module names a file imports, requires or re-exports. */
function importsOf(file: string): string[] {
	const text = readFileSync(path.join(ROOT, file), 'utf8');
	const found = text.matchAll(/^(?:import|export)[^'\n]*from\s+'([^']+)'|^import\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)|\brequire\(\s*'([^']+)'\s*\)/gm);
	return [...found].map((match) => match[1] ?? match[2] ?? match[3] ?? match[4]);
}

const topFolder = (file: string) => file.split(path.sep)[0];

describe('the repository layers', () => {
	it.each(Object.keys(ALLOWED))('%s/ imports only from the layers below it', (folder) => {
		const wrong = sourceFiles(folder).flatMap((file) =>
			importsOf(file)
				.filter((name) => name.startsWith('.'))
				.map((name) => ({ file, name, target: topFolder(path.relative(ROOT, path.resolve(ROOT, path.dirname(file), name))) }))
				.filter(({ target }) => target in ALLOWED && target !== folder && !ALLOWED[folder].includes(target))
				.map(({ file: from, name }) => `${from} imports ${name}`),
		);
		expect(wrong).toEqual([]);
	});

	it('the product imports no package but n8n-workflow', () => {
		const packages = PRODUCT.flatMap(sourceFiles).flatMap((file) =>
			importsOf(file).filter((name) => !name.startsWith('.') && name !== 'n8n-workflow'),
		);
		expect(packages).toEqual([]);
	});
});

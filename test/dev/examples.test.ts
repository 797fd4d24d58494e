import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { readCsv } from '../../dev/examples';

describe('readCsv', () => {
	const folder = mkdtempSync(path.join(os.tmpdir(), 'phprank-csv-'));
	afterAll(() => rmSync(folder, { recursive: true, force: true }));
	const read = (text: string) => {
		const file = path.join(folder, 'file.csv');
		writeFileSync(file, text);
		return readCsv(file);
	};

	it('reads quoted fields with commas, doubled quotes and line breaks, and empty fields', () => {
		expect(read('\uFEFFurl,checks,note\r\nhttps://a.example/,"title, robots","say ""hi""\nthere"\nhttps://b.example/,,\n')).toEqual([
			{ url: 'https://a.example/', checks: 'title, robots', note: 'say "hi"\nthere' },
			{ url: 'https://b.example/', checks: '', note: '' },
		]);
	});

	it('gives a short row empty columns', () => {
		expect(read('a,b\n1')).toEqual([{ a: '1', b: '' }]);
	});
});

/**
 * How stable two benchmark runs are: for every job and client of `npm run bench -- --json <file>`,
 * the requests of both runs and how far their median time and job memory moved.
 *
 *   npx tsx bench/compare.ts first.json second.json
 */
import { readFileSync } from 'node:fs';

import type { Measurement } from './index';
import type { VariantId } from './plan';
import { describeJob, VARIANT_LABELS } from './plan';
import { median } from './processes';

type Saved = { results: Measurement[] };

const change = (a: number, b: number) => (a > 0 ? `${b >= a ? '+' : ''}${(((b - a) / a) * 100).toFixed(0)} %` : 'n/a');

function main(): void {
	const [first, second] = process.argv.slice(2).map((file) => JSON.parse(readFileSync(file, 'utf8')) as Saved);
	if (!first || !second) throw new Error('usage: npx tsx bench/compare.ts first.json second.json');
	console.log(
		'| Case | Client | Requests (1st / 2nd) | Records (1st / 2nd) | Median ms (1st / 2nd) | Change | × undici (1st / 2nd) | CPU ms (1st / 2nd) | Job RSS MB (1st / 2nd) |',
	);
	console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
	const changes: number[] = [];
	const ratioChanges: number[] = [];
	const find = (saved: Saved, m: Saved['results'][number], variant: VariantId) =>
		saved.results.find((other) => other.variant === variant && JSON.stringify(other.job) === JSON.stringify(m.job));
	for (const a of first.results) {
		const b = find(second, a, a.variant);
		if (!b) continue;
		const [ra, rb] = [find(first, a, 'undici'), find(second, a, 'undici')];
		const ratio = (m: typeof a, raw: typeof a | undefined) => (raw ? median(m.timedMs) / median(raw.timedMs) : undefined);
		const [qa, qb] = [ratio(a, ra), ratio(b, rb)];
		if (qa !== undefined && qb !== undefined && a.variant !== 'undici') ratioChanges.push(Math.abs(qb - qa) / qa);
		const requests = (m: typeof a) => [...new Set(m.runs.map((run) => run.requests))].join('/');
		const records = (m: typeof a) => [...new Set(m.runs.map((run) => run.records))].join('/');
		const rss = (m: typeof a) => (Math.max(0, m.peakRss - m.baseRss) / 1024 / 1024).toFixed(1);
		const [ta, tb] = [median(a.timedMs), median(b.timedMs)];
		changes.push(Math.abs(tb - ta) / ta);
		console.log(
			`| ${a.caseId} ${describeJob(a.job)} | ${VARIANT_LABELS[a.variant]} | ${requests(a)} / ${requests(b)} | ${records(a)} / ${records(b)} | ` +
				`${ta.toFixed(1)} / ${tb.toFixed(1)} | ${change(ta, tb)} | ${qa?.toFixed(2) ?? ''} / ${qb?.toFixed(2) ?? ''} | ` +
				`${median(a.timedCpuMs ?? []).toFixed(0)} / ${median(b.timedCpuMs ?? []).toFixed(0)} | ${rss(a)} / ${rss(b)} |`,
		);
	}
	console.log(
		`\nMedian times moved by ${(median(changes) * 100).toFixed(0)} % between the runs (the largest by ${(Math.max(...changes) * 100).toFixed(0)} %); ` +
			`ratios to undici by ${(median(ratioChanges) * 100).toFixed(0)} % (the largest by ${(Math.max(...ratioChanges) * 100).toFixed(0)} %).`,
	);
}

main();

/**
 * A synthetic history of weekly site audits, as the site audit examples write it into phprank_audit_pages and
 * phprank_audit_runs: the same rows on every machine, for the dashboard benchmarks.
 */
import type { DataTableRow } from 'n8n-workflow';

import { CHECK_NAMES } from '../dev/server/analysis';

export interface AuditedSite {
	site: string;
	pages: number;
}

export interface AuditRun {
	site: string;
	runId: string;
	pageRows: DataTableRow[];
	runRow: DataTableRow;
}

const WEEK_MS = 7 * 86_400_000;
/** A Monday, 06:00 UTC: when the site audit's schedule fires. */
export const FIRST_RUN = Date.parse('2025-11-24T06:00:00.000Z');

/** When a site's weekly run starts: each site has a workflow of its own, started a minute after the one before. */
export const runStart = (week: number, siteIndex: number) => new Date(FIRST_RUN + week * WEEK_MS + siteIndex * 60_000).toISOString();

/** A repeatable pseudo-random sequence (mulberry32). */
function random(seed: number): () => number {
	let state = seed;
	return () => {
		state = (state + 0x6d2b79f5) | 0;
		let t = Math.imul(state ^ (state >>> 15), 1 | state);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const pick = (count: number, offset: number) =>
	Array.from({ length: count }, (_, index) => CHECK_NAMES[(offset + index * 7) % CHECK_NAMES.length]).join(', ');

/** One URL in a hundred a broken link, linked from three pages; one in a hundred a redirect; the others pages analyzed. */
const BROKEN_EVERY = 100;
const REDIRECT_AT = 50;

/**
 * Weekly runs of each site, week by week: each page's score drifting a little from week to week, up to 2 + 3 + 3
 * failed checks, URLs of about 45 characters, each page keeping its phpRank report; what the crawl found of each URL
 * (status, depth, inlinks), one URL in a hundred a broken link with the three pages linking to it, one a redirect,
 * each page's title and indexability, and its site issues (one page in ten a duplicate meta description).
 */
export function* auditHistory(sites: readonly AuditedSite[], weeks: number): Generator<AuditRun> {
	const quality = sites.map(({ pages }, index) => {
		const next = random(42 + index);
		return { next, pages: Array.from({ length: pages }, () => next()) };
	});
	// Re-Analyze the Existing Report keeps a page's report: the same ID every week.
	const firstReportId = sites.map((_, index) => sites.slice(0, index).reduce((sum, { pages }) => sum + pages, 1));
	for (let week = 0; week < weeks; week++) {
		for (const [siteIndex, { site, pages }] of sites.entries()) {
			const { next, pages: pageQuality } = quality[siteIndex];
			const runId = runStart(week, siteIndex);
			const pageRows: DataTableRow[] = [];
			let total = 0;
			const grades = { good: 0, decent: 0, bad: 0 };
			let analyzed = 0;
			const issues = { broken_link: 0, deep_page: 0, duplicate_meta_description: 0, link_to_redirect: 0 };
			for (let page = 0; page < pages; page++) {
				pageQuality[page] = Math.min(1, Math.max(0, pageQuality[page] + (next() - 0.5) * 0.1));
				const url = `https://www.${site}/products/item-${String(page).padStart(5, '0')}`;
				const crawl = { depth: 1 + (page % 6), inlinks: 1 + (page % 40), orphan: false };
				if (page % BROKEN_EVERY === 0 || page % BROKEN_EVERY === REDIRECT_AT) {
					const broken = page % BROKEN_EVERY === 0;
					const linkedFrom = [1, 2, 3].map((offset) => ({ url: `https://www.${site}/products/item-${String((page + offset) % pages).padStart(5, '0')}`, text: `Item ${offset} details` }));
					pageRows.push({
						...{ runId, runAt: runId, site, url, score: null, grade: null, failedHigh: null, failedMedium: null, failedLow: null, reportId: null, reportUrl: null, error: null },
						...{ status: broken ? 404 : 301, ...crawl, inlinks: broken ? 3 : crawl.inlinks, broken, linkedFrom: broken ? JSON.stringify(linkedFrom) : null },
						...{ indexability: broken ? 'broken' : 'redirected', canonical: null, title: null, siteIssues: broken ? 'broken_link' : 'link_to_redirect' },
					});
					issues[broken ? 'broken_link' : 'link_to_redirect']++;
					continue;
				}
				const score = Math.round(30 + pageQuality[page] * 65);
				const grade = score >= 80 ? 'good' : score >= 49 ? 'decent' : 'bad';
				const failing = Math.round((1 - pageQuality[page]) * 8);
				total += score;
				analyzed++;
				grades[grade]++;
				pageRows.push({
					runId,
					runAt: runId,
					site,
					url,
					score,
					grade,
					failedHigh: pick(Math.min(2, failing), page) || null,
					failedMedium: pick(Math.min(3, Math.max(0, failing - 2)), page + 1) || null,
					failedLow: pick(Math.min(3, Math.max(0, failing - 5)), page + 2) || null,
					reportId: firstReportId[siteIndex] + page,
					reportUrl: `https://phprank.example.com/reports/${firstReportId[siteIndex] + page}`,
					error: null,
					status: 200,
					...crawl,
					broken: false,
					linkedFrom: null,
					indexability: 'indexable',
					canonical: null,
					title: `Item ${page} | ${site}`,
					// One page in ten shares its meta description with another, as a shop's variants do.
					siteIssues: page % 10 === 1 ? 'duplicate_meta_description' : page % 6 === 5 ? 'deep_page' : null,
				});
				if (page % 10 === 1) issues.duplicate_meta_description++;
				else if (page % 6 === 5) issues.deep_page++;
			}
			const runRow = { runId, runAt: runId, site, pages: analyzed, averageScore: Math.round((total / analyzed) * 10) / 10, ...grades, notAnalyzed: 0, siteIssues: JSON.stringify(issues) };
			yield { site, runId, pageRows, runRow };
		}
	}
}

/**
 * The runs `examples/audit-history-pruning.json` deletes when it runs at `now`: each site's runs older than
 * `keepEveryRunWeeks` that are not its first run of their month (months in UTC, by runId).
 */
export function runsToPrune<T extends { site: string; runId: string }>(runs: readonly T[], now: number, keepEveryRunWeeks = 12): T[] {
	const cutoff = new Date(now - keepEveryRunWeeks * WEEK_MS).toISOString();
	return runs.filter(
		(run) => run.runId < cutoff && runs.some((other) => other.site === run.site && other.runId.slice(0, 7) === run.runId.slice(0, 7) && other.runId < run.runId),
	);
}

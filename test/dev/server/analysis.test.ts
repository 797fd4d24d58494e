import { CHECK_NAMES, checkTitle, describePage, scoreOf, scorePage } from '../../../dev/server/analysis';
import { PHPRANK_CHECKS, PHPRANK_POINTS } from '../../support/phpRankChecks';
import { PHPRANK_URL_SHAPES, UPPER_CASE_SHAPE } from '../../support/phpRankUrls';
import { parseReportTarget } from '../../../dev/server/reportUrl';
import { startPhpRankServer } from '../../../dev/server';

describe('fake page analysis', () => {
	it("holds phpRank 1.5's 33 checks, in its order, each with its importance and the title its report page shows", () => {
		expect(CHECK_NAMES).toEqual(PHPRANK_CHECKS.map(([id]) => id));
		for (const url of ['https://example.com/blog/post', 'http://shop.example.org/', 'https://www.example.net/?q=1']) {
			const results = describePage(url);
			expect(Object.entries(results).map(([id, check]) => [id, check.importance])).toEqual(PHPRANK_CHECKS.map(([id, , importance]) => [id, importance]));
		}
		expect(CHECK_NAMES.map(checkTitle)).toEqual(PHPRANK_CHECKS.map(([, title]) => title));
	});

	it('lists the deprecated HTML tags a page uses when it fails that check', () => {
		const failing = Array.from({ length: 200 }, (_, i) => describePage(`https://example.com/${i}`).deprecated_html_tags).filter((check) => !check.passed);
		expect(failing.length).toBeGreaterThan(0);
		for (const check of failing) expect(check.errors).toEqual({ bad_tags: expect.arrayContaining([expect.stringMatching(/^[a-z]+$/)]) });
	});

	it('gives each check passed, importance, value and errors only when failing', () => {
		const results = describePage('https://example.com/blog/post');
		expect(Object.keys(results)).toEqual(CHECK_NAMES);
		for (const check of Object.values(results)) {
			expect(typeof check.passed).toBe('boolean');
			expect(['high', 'medium', 'low']).toContain(check.importance);
			expect(check).toHaveProperty('value');
			if (check.passed) expect(check.errors).toBeUndefined();
			else expect(check.errors).toEqual(expect.any(Object));
		}
	});

	it('weighs several kilobytes per report', () => {
		expect(JSON.stringify(describePage('https://example.com/')).length).toBeGreaterThan(2000);
	});

	it('is deterministic and differs between URLs', () => {
		expect(describePage('https://example.com/a')).toEqual(describePage('https://example.com/a'));
		expect(scorePage('https://example.com/a')).toBe(scorePage('https://example.com/a'));
		const scores = new Set(Array.from({ length: 50 }, (_, i) => scorePage(`https://example.com/${i}`)));
		expect(scores.size).toBeGreaterThan(10);
	});

	it("scores in phpRank's points, unrounded: points of the passed checks over points of all checks, times 100", () => {
		for (const url of ['https://example.com/x', 'http://shop.example.org/', 'https://blog.example.net/a/b']) {
			const checks = Object.values(describePage(url));
			const all = checks.reduce((sum, check) => sum + PHPRANK_POINTS[check.importance], 0);
			const passed = checks.reduce((sum, check) => sum + (check.passed ? PHPRANK_POINTS[check.importance] : 0), 0);
			expect(scorePage(url)).toBe((passed / all) * 100);
		}
		// Every high check passed and nothing else: 11 × 10 of 11 × 10 + 13 × 5 points.
		expect(scoreOf(PHPRANK_CHECKS.map(([, , importance]) => importance === 'high'))).toBe((110 / 175) * 100);
	});

	it("never moves a score for a low check's pass or fail, whatever the others do", () => {
		const lows = PHPRANK_CHECKS.flatMap(([, , importance], i) => (importance === 'low' ? [i] : []));
		expect(lows.length).toBeGreaterThan(0);
		for (let page = 0; page < 50; page++) {
			const passed = Object.values(describePage(`https://example.com/page-${page}`)).map((check) => check.passed);
			for (const low of lows) {
				const flipped = passed.map((value, i) => (i === low ? !value : value));
				expect(scoreOf(flipped)).toBe(scoreOf(passed));
			}
		}
		// A page that fails only its low checks scores 100.
		expect(scoreOf(PHPRANK_CHECKS.map(([, , importance]) => importance !== 'low'))).toBe(100);
	});

	it("scores with an operator's points when given", async () => {
		const points = { high: 3, medium: 2, low: 1 };
		const server = await startPhpRankServer({ reportScore: points, seedReports: 5 });
		try {
			for (const report of server.reports()) {
				const checks = Object.values(describePage(report.targetUrl));
				const all = checks.reduce((sum, check) => sum + points[check.importance], 0);
				const passed = checks.reduce((sum, check) => sum + (check.passed ? points[check.importance] : 0), 0);
				expect(report.result).toBe(Math.round((passed / all) * 100));
			}
		} finally {
			await server.close();
		}
	});

	it('spreads scores over good, decent and bad', () => {
		const bands = { good: 0, decent: 0, bad: 0 };
		for (let i = 0; i < 300; i++) {
			const score = Math.round(scorePage(`https://site${i}.example.com/`));
			bands[score > 79 ? 'good' : score >= 49 ? 'decent' : 'bad']++;
		}
		expect(bands.good).toBeGreaterThan(30);
		expect(bands.decent).toBeGreaterThan(30);
		expect(bands.bad).toBeGreaterThan(30);
	});
});

describe('report URLs', () => {
	it.each([
		['https://www.example.com/', 'example.com', 'example.com'],
		['http://Example.COM', 'example.com', 'example.com'],
		['https://www.example.com/blog/', 'example.com/blog/', 'example.com'],
		['https://shop.example.org/a?b=1#c', 'shop.example.org/a?b=1', 'shop.example.org'],
		['https://example.com:8443/x', 'example.com:8443/x', 'example.com'],
	])('normalises %s to %s in project %s', (input, url, project) => {
		expect(parseReportTarget(input)).toMatchObject({ url, project });
	});

	it.each(['example.com', 'ftp://example.com', 'https://', 'http:example.com', 'javascript:alert(1)', 42, null])('rejects %p', (input) => {
		expect(parseReportTarget(input)).toBeUndefined();
	});

	it.each(PHPRANK_URL_SHAPES)('stores https://example.com%s as phpRank 1.5 does: %p (undefined: refused)', (sent, stored) => {
		expect(parseReportTarget(`https://example.com${sent}`)?.url).toBe(stored === undefined ? undefined : `example.com${stored}`);
	});

	it('stores the scheme and host in lower case, the path as sent', () => {
		expect(parseReportTarget(UPPER_CASE_SHAPE.sent('www.example.com'))?.url).toBe(UPPER_CASE_SHAPE.stored('example.com'));
	});

	it('answers a create of a URL phpRank refuses with its 422, and stores each accepted one under its own URL', async () => {
		const server = await startPhpRankServer();
		try {
			for (const [sent, stored] of PHPRANK_URL_SHAPES) {
				const answer = await fetch(`${server.url}/api/v1/reports`, {
					method: 'POST',
					headers: { authorization: `Bearer ${server.apiKey}`, accept: 'application/json', 'content-type': 'application/json' },
					body: JSON.stringify({ url: `https://example.com${sent}` }),
				});
				const body = (await answer.json()) as { data?: { url: string }; message?: unknown };
				if (stored === undefined) expect([answer.status, body.message]).toEqual([422, { url: ['The url format is invalid.'] }]);
				else expect([answer.status, body.data?.url]).toEqual([201, `example.com${stored}`]);
			}
			expect(server.reports().map((report) => report.url)).toEqual(
				PHPRANK_URL_SHAPES.flatMap(([, stored]) => (stored === undefined ? [] : [`example.com${stored}`])),
			);
		} finally {
			await server.close();
		}
	});
});

describe('seeding', () => {
	it('gives the same reports on every fresh server, with increasing ids and dates and varied privacy', async () => {
		const first = await startPhpRankServer({ seedReports: 50 });
		const second = await startPhpRankServer({ seedReports: 50 });
		try {
			const reports = first.reports();
			expect(second.reports()).toEqual(reports);
			expect(reports.map((r) => r.id)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
			for (let i = 1; i < reports.length; i++) expect(reports[i].createdAt > reports[i - 1].createdAt).toBe(true);
			expect(new Set(reports.map((r) => r.project)).size).toBeGreaterThanOrEqual(5);
			expect(new Set(reports.map((r) => r.privacy))).toEqual(new Set([0, 1, 2]));
			expect(reports.filter((r) => r.privacy === 2).every((r) => r.password !== null)).toBe(true);
		} finally {
			await first.close();
			await second.close();
		}
	});

	it('seeds onto given projects and continues after existing reports', async () => {
		const server = await startPhpRankServer();
		try {
			const ids = server.seedReports(4, { projects: ['a.example', 'b.example'] });
			expect(ids).toEqual([1, 2, 3, 4]);
			expect(server.projects().map((p) => [p.project, p.reports])).toEqual([
				['a.example', 2],
				['b.example', 2],
			]);
			const later = server.seedReports(1);
			expect(later).toEqual([5]);
			const all = server.reports();
			expect(all[4].createdAt > all[3].createdAt).toBe(true);
			expect(() => server.seedReports(1, { userId: 42 })).toThrow('No user with id 42');
		} finally {
			await server.close();
		}
	});
});

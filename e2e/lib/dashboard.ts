/**
 * The site health dashboard as its user meets it: the example published with its Basic Auth credential, after the
 * site audit has written three runs into n8n's Data tables, and its page opened in headless Chromium at a desktop's
 * and a phone's width. The chart's points are compared with the rows n8n's REST API reads from the runs table. A
 * site whose name and page URL need escaping is written into the tables too, its runs out of order (n8n 1.x's Data
 * table node returns rows as written, whatever the sort): its page must show them as text, its runs in order. The
 * page's Content-Security-Policy is checked as Chromium enforces it, after n8n has put its own header on the response.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

import { chromium, type Browser, type Page } from 'playwright-core';

import { AUDIT_SITE_ISSUES, type PhpRankServer } from '../../dev/server';
import { AUDIT_HISTORY_TABLES, checkTitlesOf, issuesByGainOfRows, pagesToChange } from '../../dev/examples';
import { dataTableRows, ensureDataTables, insertDataTableRows, personalProjectId, pickDataTablesAsOn1x } from '../../dev/n8n/dataTables';
import type { Example } from '../../dev/n8n/examples';
import { activateWorkflow, itemsOf, runManually, waitForExecution } from '../../dev/n8n/executions';
import type { N8nRest } from '../../dev/n8n/n8n';
import { majorOf } from '../../dev/n8n/n8nVersions';
import { assert, assertEqual, keysSorted, type Checks } from './checks';
import { pictureDashboard, pictureSlackMessage, README_PICTURE } from './readmePictures';

const DASHBOARD_EXAMPLE = 'site-health-dashboard.json';
const SITE_AUDIT_EXAMPLE = 'site-audit-offline.json';
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The bundled audit site, which the site audit example audits (dev/server/auditSite.ts). */
const SITE = '127.0.0.1';
const WEEK_SECONDS = 7 * 86_400;
/** A site name and page URL that need escaping: the URL one phpRank 1.5 stores (`&`, `'`, `%3C…%3E`; it refuses `"<>`). */
const HOSTILE_SITE = `"'&<i>shop</i><script>document.title='x'</script>.example`;
const HOSTILE_URL = "https://shop.example/search?q=%3Cscript%3Ealert(1)%3C/script%3E&who=it's";
/** Its runs, written in this order: neither the first nor the last written is the latest. */
const HOSTILE_RUNS = [
	{ runId: '2026-03-09T06:00:00.000Z', averageScore: 48 },
	{ runId: '2026-03-16T06:00:00.000Z', averageScore: 61 },
	{ runId: '2026-03-02T06:00:00.000Z', averageScore: 35 },
];
const VIEWPORTS = [
	{ name: 'desktop', width: 1440, height: 900 },
	{ name: 'phone', width: 390, height: 844 },
];

/** The dashboard example, its Webhook node and the Basic Auth credential it asks visitors for. */
export function dashboardExample(examples: Example[]) {
	const example = examples.find((candidate) => candidate.file === DASHBOARD_EXAMPLE);
	assert(example, `examples/${DASHBOARD_EXAMPLE} is missing`);
	const webhook = example.workflow.nodes.find((node) => node.type === 'n8n-nodes-base.webhook');
	const reference = webhook?.credentials?.httpBasicAuth;
	assert(webhook && reference, `examples/${DASHBOARD_EXAMPLE}: no Webhook with Basic Auth`);
	return { example, webhook, credential: { ...reference, type: 'httpBasicAuth', data: { user: 'dashboard', password: randomBytes(18).toString('hex') } } };
}

type DashboardExample = ReturnType<typeof dashboardExample>;

interface DashboardContext {
	dashboard: DashboardExample;
	/** The site audit example as imported: it wrote its first run into the Data tables already. */
	siteAudit: Example;
	rest: N8nRest;
	n8nUrl: string;
	n8nVersion: string;
	phpRank: PhpRankServer;
	screenshotsDir: string;
	/** The README's pictures: the channel the Slack example posts to, and whether they go into docs/ too. */
	pictures: { channel: string; intoDocs: boolean };
}

/** What a page shows: the chart's points, whether it scrolls sideways, the compare's runs. */
async function readPage(page: Page) {
	return await page.evaluate(() => ({
		points: Array.from(document.querySelectorAll('svg circle[data-score]')).map((point) => ({ run: point.getAttribute('data-run') ?? '', score: Number(point.getAttribute('data-score')) })),
		svgWidth: document.querySelector('svg')?.getBoundingClientRect().width ?? 0,
		scrollWidth: document.documentElement.scrollWidth,
		clientWidth: document.documentElement.clientWidth,
		compared: [document.querySelector('.summary')?.getAttribute('data-from') ?? '', document.querySelector('.summary')?.getAttribute('data-to') ?? ''],
	}));
}

export async function runDashboardChecks(checks: Checks, context: DashboardContext): Promise<void> {
	const { dashboard, siteAudit, rest, n8nVersion, phpRank } = context;
	const url = `${context.n8nUrl}/webhook/${String(dashboard.webhook.parameters.path)}`;
	const projectId = await personalProjectId(rest);
	const ids = await ensureDataTables(rest, projectId, Object.values(AUDIT_HISTORY_TABLES));

	// The message the third run builds, as its Slack twin posts it.
	let message = '';
	await checks.step(`examples/${SITE_AUDIT_EXAMPLE} run twice more, a page worse and one better before the third run`, async () => {
		for (const index of [2, 3]) {
			if (index === 3) {
				// The site's best page gets worse and its worst better (a score depends on the URL, the port included).
				const changed = pagesToChange(phpRank.reports().filter((report) => new URL(report.targetUrl).hostname === SITE));
				for (const page of changed) phpRank.changePage(page.targetUrl, { quality: page.quality });
				phpRank.ageReports(
					changed.map((page) => page.id),
					WEEK_SECONDS,
				);
			}
			const executionId = await runManually(rest, n8nVersion, siteAudit.workflow);
			const execution = await waitForExecution(rest, executionId, 300_000);
			assertEqual(execution.status, 'success', `status of execution ${executionId} (run ${index})`);
			message = String(itemsOf(execution, 'Build summary').find((item) => item.site === SITE)?.text ?? '');
		}
	});
	const runs = (await dataTableRows(rest, projectId, ids[AUDIT_HISTORY_TABLES.runs.name]))
		.filter((row) => row.site === SITE)
		.map((row) => ({ run: String(row.runId), score: Number(row.averageScore) }))
		.sort((a, b) => a.run.localeCompare(b.run));

	await checks.step(`${HOSTILE_SITE}: three runs written into the Data tables out of order, its page's URL with &, ' and %3C…%3E`, async () => {
		const rows = HOSTILE_RUNS.map(({ runId, averageScore }) => ({
			run: { runId, runAt: runId, site: HOSTILE_SITE, pages: 1, averageScore, good: 0, decent: 0, bad: 1, notAnalyzed: 0 },
			page: { runId, runAt: runId, site: HOSTILE_SITE, url: HOSTILE_URL, score: averageScore, grade: 'bad', failedHigh: 'title', failedMedium: '', failedLow: '', reportId: 7, reportUrl: `${phpRank.url}/reports/7?a=1&b=2`, error: '' },
		}));
		await insertDataTableRows(rest, projectId, ids[AUDIT_HISTORY_TABLES.runs.name], rows.map((row) => row.run));
		await insertDataTableRows(rest, projectId, ids[AUDIT_HISTORY_TABLES.pages.name], rows.map((row) => row.page));
	});

	await checks.step(`examples/${DASHBOARD_EXAMPLE} published with its Basic Auth credential: GET ${url}`, async () => {
		await pickDataTablesAsOn1x(rest, n8nVersion, dashboard.example.id, ids);
		await activateWorkflow(rest, n8nVersion, { workflowId: dashboard.example.id });
		return url;
	});

	await checks.check('the dashboard refuses a visitor without the user name and password (401, asking for Basic Auth), or with another password (n8n 2.x: 401, 1.x: 403)', async () => {
		const wrong = `Basic ${Buffer.from(`${dashboard.credential.data.user}:not-the-password`).toString('base64')}`;
		for (const authorization of [undefined, wrong]) {
			const answer = await fetch(`${url}?site=${SITE}`, { headers: authorization ? { authorization } : {} });
			const expected = authorization && majorOf(n8nVersion) < 2 ? 403 : 401;
			assertEqual(answer.status, expected, `status ${authorization ? 'with another password' : 'without credentials'}`);
			assertEqual(answer.headers.get('www-authenticate'), 'Basic realm="Webhook"', 'WWW-Authenticate, which makes a browser ask for the login');
			assert(!(await answer.text()).includes('<svg'), 'the refusal shows the chart');
		}
	});

	const authorization = `Basic ${Buffer.from(`${dashboard.credential.data.user}:${dashboard.credential.data.password}`).toString('base64')}`;
	await checks.check("the site page's response headers as n8n sends them: its own sandbox Content-Security-Policy in place of any the workflow sets", async () => {
		const answer = await fetch(`${url}?site=${SITE}`, { headers: { authorization } });
		assertEqual(answer.status, 200, 'status');
		const header = (name: string) => answer.headers.get(name);
		const policy = header('content-security-policy') ?? '';
		assert(/^sandbox\b/.test(policy), `Content-Security-Policy "${policy}" is not n8n's sandbox`);
		assert(!policy.includes('default-src'), `Content-Security-Policy "${policy}" holds a fetch directive: n8n let a workflow's header through`);
		assertEqual(header('x-frame-options'), 'DENY', 'X-Frame-Options');
		const html = await answer.text();
		assert(/<head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none';/.test(html), "the page's head does not start with its policy");
		return ['content-type', 'content-security-policy', 'x-frame-options', 'x-content-type-options', 'cache-control'].map((name) => `${name}: ${header(name) ?? '(none)'}`).join('; ');
	});

	await checks.check(`the site page's broken links with the pages and anchor texts linking to them, its orphan and its issues by what fixing them is worth, as ${AUDIT_HISTORY_TABLES.pages.name} holds the latest run`, async () => {
		const html = await (await fetch(`${url}?site=${SITE}`, { headers: { authorization } })).text();
		const rows = (await dataTableRows(rest, projectId, ids[AUDIT_HISTORY_TABLES.pages.name])).filter((row) => row.site === SITE && row.runId === runs.at(-1)!.run);
		const text = (value: string) => value.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
		const shownBroken = html
			.split('<tr class="broken" ')
			.slice(1)
			.map((row) => ({
				url: text(/data-url="([^"]*)"/.exec(row)![1]),
				status: Number(/data-status="([^"]*)"/.exec(row)![1]),
				linkedFrom: [...row.matchAll(/<li class="from" data-url="([^"]*)">[^<]*“([^”]*)”<\/li>/g)].map(([, from, anchor]) => ({ url: text(from), text: text(anchor) })),
			}));
		const broken = rows
			.filter((row) => row.broken === true)
			.map((row) => ({ url: String(row.url), status: Number(row.status), linkedFrom: JSON.parse(String(row.linkedFrom)) as unknown }))
			.sort((a, b) => a.url.localeCompare(b.url));
		assertEqual(broken.length, 2, `broken links of the latest run in ${AUDIT_HISTORY_TABLES.pages.name}`);
		assertEqual(shownBroken, broken, 'broken links shown, with the pages and anchor texts linking to them');
		const orphans = [...html.matchAll(/<li class="orphan url" data-url="([^"]*)">/g)].map(([, orphan]) => text(orphan));
		assertEqual(orphans, rows.filter((row) => row.orphan === true).map((row) => String(row.url)), 'orphan pages shown');
		assertEqual(orphans.length, 1, 'orphan pages of the latest run');
		const issues = issuesByGainOfRows(rows, checkTitlesOf(dashboard.example.workflow));
		const worth = issues.filter((issue) => Math.round(issue.gain * 10) > 0);
		const expected = worth.filter((issue, index) => index < 10 || Math.round(issue.gain * 10) === Math.round(worth[9].gain * 10)).map((issue) => `${issue.id} ${issue.gain.toFixed(1)} ${issue.pages}`);
		const shownWorth = [...html.matchAll(/<tr class="worth" data-check="([^"]*)" data-gain="([^"]*)" data-pages="([^"]*)">/g)].map(([, id, gain, pages]) => `${id} ${gain} ${pages}`);
		assertEqual(shownWorth, expected, 'issues by what fixing them is worth (check, average score gained, pages)');
		assert(html.includes('<p class="worthless">Worth no points, fixing them leaves the score as it is: '), 'the checks worth no points are not named');
		// Site issues: each one's count as the run row holds it, the audit's own issues of the bundled site.
		const shownIssues = [...html.matchAll(/<tr class="site-issue" data-issue="([^"]*)" data-severity="([^"]*)" data-urls="([^"]*)">/g)].map(([, id, , count]) => [id, Number(count)]);
		const runRow = (await dataTableRows(rest, projectId, ids[AUDIT_HISTORY_TABLES.runs.name])).find((row) => row.site === SITE && row.runId === runs.at(-1)!.run);
		assertEqual(keysSorted(Object.fromEntries(shownIssues)), keysSorted(JSON.parse(String(runRow?.siteIssues))), `site issues shown, with the counts of the latest run's row in ${AUDIT_HISTORY_TABLES.runs.name}`);
		assertEqual(keysSorted(Object.fromEntries(shownIssues)), keysSorted(Object.fromEntries(Object.entries(AUDIT_SITE_ISSUES).map(([id, urls]) => [id, Object.keys(urls).length]))), 'site issues of the bundled site');
		return `${shownBroken.map((link) => `${link.url.replace(/^https?:\/\/[^/]+/, '')} (${link.status}) from ${link.linkedFrom.length} pages`).join(', ')}; orphan ${orphans.map((orphan) => orphan.replace(/^https?:\/\/[^/]+/, '')).join(', ')}; top issue ${shownWorth[0]}; ${shownIssues.length} kinds of site issue`;
	});

	mkdirSync(context.screenshotsDir, { recursive: true });
	let browser: Browser | undefined;
	try {
		browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, timeout: 60_000, args: ['--disable-gpu', '--disable-quic'] });
		for (const viewport of VIEWPORTS) {
			const context_ = await browser.newContext({
				viewport: { width: viewport.width, height: viewport.height },
				httpCredentials: { username: dashboard.credential.data.user, password: dashboard.credential.data.password },
			});
			const page = await context_.newPage();
			try {
				await checks.check(`dashboard at ${viewport.width}x${viewport.height} (${viewport.name}): the list of sites links to ${SITE}`, async () => {
					const answer = await page.goto(url);
					assertEqual(answer?.status(), 200, 'status of the list of sites');
					await page.locator(`a[href="?site=${SITE}"]`).click();
					await page.waitForURL(`${url}?site=${SITE}`);
					return await shot(page, context.screenshotsDir, `dashboard-sites-${viewport.name}.png`, url);
				});
				await checks.check(`dashboard at ${viewport.width}x${viewport.height} (${viewport.name}): the chart has a point per run, each the runs table's average score, and the page does not scroll sideways`, async () => {
					const answer = await page.goto(`${url}?site=${SITE}`);
					assertEqual(answer?.status(), 200, 'status of the site page');
					assertEqual(answer?.headers()['content-type'], 'text/html; charset=utf-8', 'Content-Type');
					const shown = await readPage(page);
					assertEqual(shown.points.length, runs.length, 'points on the chart (rows of phprank_audit_runs for the site)');
					assertEqual(shown.points, runs, 'each point: run and average score, as the Data table holds them');
					assert(shown.svgWidth > 0 && shown.svgWidth <= shown.clientWidth, `the chart is ${shown.svgWidth} px wide in a ${shown.clientWidth} px page`);
					assert(shown.scrollWidth <= shown.clientWidth, `the page is ${shown.scrollWidth} px wide in a ${shown.clientWidth} px window: it scrolls sideways`);
					return `${runs.map((run) => run.score).join(', ')}; ${await shot(page, context.screenshotsDir, `dashboard-site-${viewport.name}.png`, url)}`;
				});
				await checks.check(`dashboard at ${viewport.width}x${viewport.height} (${viewport.name}): the form compares the first run with the latest`, async () => {
					assert(runs.length >= 2, `${runs.length} runs to compare`);
					await page.locator('select[name="from"]').selectOption(runs[0].run);
					await page.locator('select[name="to"]').selectOption(runs[runs.length - 1].run);
					await Promise.all([page.waitForURL(/[?&]from=/), page.locator('form.compare button[type="submit"]').click()]);
					const shown = await readPage(page);
					assertEqual(shown.compared, [runs[0].run, runs[runs.length - 1].run], 'runs compared');
					assert(shown.scrollWidth <= shown.clientWidth, `the compare is ${shown.scrollWidth} px wide in a ${shown.clientWidth} px window`);
					return await shot(page, context.screenshotsDir, `dashboard-compare-${viewport.name}.png`, url);
				});
			} finally {
				await context_.close();
			}
		}
		const context_ = await browser.newContext({ httpCredentials: { username: dashboard.credential.data.user, password: dashboard.credential.data.password } });
		try {
			const page = await context_.newPage();
			await checks.check("dashboard in Chromium: the page's policy in force, its inline style applied, an image or script from elsewhere and an injected inline script blocked, never requested", async () => {
				await page.goto(`${url}?site=${SITE}`);
				return await checkPolicyInForce(page);
			});
			await checks.check(`dashboard in Chromium: ${HOSTILE_SITE} shown as text in the list and on its page, its URL as stored, no element injected`, async () => {
				await page.goto(url);
				const listed = await page.evaluate((site) => ({
					names: Array.from(document.querySelectorAll('tr.site a')).map((link) => link.textContent),
					injected: document.querySelectorAll('i, script, img').length,
					title: document.title,
				}), HOSTILE_SITE);
				assert(listed.names.includes(HOSTILE_SITE), `the list shows ${JSON.stringify(listed.names)}`);
				assertEqual(listed.injected, 0, 'elements injected into the list of sites');
				assertEqual(listed.title, 'Site health', 'the page title (a script would change it)');
				await page.locator('tr.site').filter({ hasText: '<i>shop</i>' }).locator('a').click();
				await page.waitForURL(/\?site=/);
				const shown = await page.evaluate(() => ({
					heading: document.querySelector('h1')?.textContent,
					urls: Array.from(document.querySelectorAll('tr.page td.url')).map((cell) => cell.firstChild?.textContent?.trim()),
					injected: document.querySelectorAll('i, script, img').length,
				}));
				assertEqual(shown.heading, HOSTILE_SITE, 'the heading');
				assertEqual(shown.urls, [HOSTILE_URL], 'the worst page, as stored');
				assertEqual(shown.injected, 0, 'elements injected into the site page');
				return `${page.url().replace(url, '…')}: "${shown.heading}"`;
			});
			await checks.check(`dashboard in Chromium: ${HOSTILE_SITE}'s runs in time order on the chart and in the list, the compare the latest against the one before`, async () => {
				const chronological = [...HOSTILE_RUNS].sort((a, b) => a.runId.localeCompare(b.runId));
				const shown = await readPage(page);
				assertEqual(shown.points, chronological.map(({ runId, averageScore }) => ({ run: runId, score: averageScore })), 'the chart\'s points, left to right');
				assertEqual(shown.compared, [chronological[1].runId, chronological[2].runId], 'runs compared by default');
				const listed = await page.evaluate(() => Array.from(document.querySelectorAll('tr.run')).map((row) => row.getAttribute('data-run')));
				assertEqual(listed, chronological.map(({ runId }) => runId).reverse(), 'pages by grade, per run (newest first)');
				return chronological.map(({ averageScore }) => averageScore).join(', ');
			});
		} finally {
			await context_.close();
		}
		await checks.check(`README pictures: the dashboard's page of ${SITE} and the third run's message as Slack shows it in ${context.pictures.channel}, each ${README_PICTURE.width} px wide, ${README_PICTURE.maxBytes / 1000} KB at most`, async () => {
			assert(message, `the third run built no message for ${SITE}`);
			const options = { folder: context.screenshotsDir, intoDocs: context.pictures.intoDocs };
			const login = { username: dashboard.credential.data.user, password: dashboard.credential.data.password };
			const dashboardPicture = await pictureDashboard(browser!, { ...options, siteUrl: `${url}?site=${SITE}`, login });
			const messagePicture = await pictureSlackMessage(browser!, { ...options, channel: context.pictures.channel, text: message });
			return `${dashboardPicture}; ${messagePicture}`;
		});
	} finally {
		await browser?.close();
	}
}

/**
 * The policy Chromium enforces on the page open in `page`: the page's inline style applies; an image and a script
 * from a server that counts its requests, and an inline script, added to the page, are refused
 * (`securitypolicyviolation` events) and that server is never asked.
 */
async function checkPolicyInForce(page: Page): Promise<string> {
	let requests = 0;
	const probe = createServer((_request, response) => {
		requests++;
		response.end();
	});
	await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
	try {
		const origin = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
		const seen = await page.evaluate(async (from) => {
			const violations: string[] = [];
			const all = new Promise<void>((resolve) => {
				document.addEventListener('securitypolicyviolation', (event) => {
					violations.push(`${event.effectiveDirective} ${event.blockedURI}`);
					if (violations.length === 3) resolve();
				});
				// What was not refused by then is not going to be: the assertions below name it.
				setTimeout(resolve, 10_000);
			});
			const image = document.createElement('img');
			image.src = `${from}/pixel.png`;
			document.body.append(image);
			const external = document.createElement('script');
			external.src = `${from}/script.js`;
			document.body.append(external);
			const inline = document.createElement('script');
			inline.textContent = 'document.body.dataset.ran = "yes"';
			document.body.append(inline);
			await all;
			return { violations: violations.sort(), ran: document.body.dataset.ran ?? 'no', background: getComputedStyle(document.body).backgroundColor };
		}, origin);
		assertEqual(seen.background, 'rgb(246, 248, 250)', "the body's background, from the page's inline style");
		assertEqual(seen.ran, 'no', 'whether the injected inline script ran');
		assertEqual(seen.violations, [`img-src ${origin}/pixel.png`, 'script-src-elem inline', `script-src-elem ${origin}/script.js`].sort(), 'securitypolicyviolation events');
		assertEqual(requests, 0, `requests ${origin} received`);
		return seen.violations.join('; ');
	} finally {
		await new Promise<void>((resolve) => probe.close(() => resolve()));
	}
}

/** A full-page screenshot kept with the suite's artifacts; the message names it. */
async function shot(page: Page, folder: string, file: string, url: string): Promise<string> {
	await page.screenshot({ path: path.join(folder, file), fullPage: true, animations: 'disabled' });
	return `${page.url().replace(url, '…')}: ${file}`;
}

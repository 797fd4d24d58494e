/**
 * The n8n editor in headless Chromium (Debian's package, driven by playwright-core; no browser is
 * downloaded): sign in, add the phpRank node from the node panel, read its Resource and Operation
 * dropdowns, and open its credential to see n8n's connection test succeed; then each imported example as a newcomer
 * first sees it, at Zoom to Fit in a 1440x900 window.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

import { READABLE_ZOOM, readCanvas, unreadable } from './canvasLayout';
import { assert, assertEqual, StepFailed, type Checks } from './checks';
import { DEMO_CREDENTIAL } from '../../dev/n8n/examples';
import type { Owner } from '../../dev/n8n/n8n';
import { REPOSITORY_ROOT } from '../../dev/n8n/util';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ACTION_TIMEOUT_MS = 30_000;

/** n8n appends this option to Resource and Operation of every node whose credential can also authenticate the HTTP Request node. */
const N8N_CUSTOM_API_CALL = 'Custom API Call';

/** The operations the README documents, as the editor must show them. */
export const DOCUMENTED = {
	resources: ['Report', 'Project', 'Site'],
	operations: {
		Report: ['Create', 'Delete', 'Get', 'Get Many', 'Re-Analyze', 'Update'],
		Project: ['Delete', 'Get Many'],
		Site: ['Audit'],
	},
	siteAudit: {
		parameters: ['siteUrl', 'discover', 'maxPages', 'ifReportExists', 'olderThan', 'olderThanUnit', 'privacy'],
		discover: ['Sitemaps and Links', 'Sitemaps', 'Links'],
		options: ['Analyze Non-Indexable Pages', 'Check External Links', 'Check Images', 'Include Per-Check Results', 'Leave Out URLs Matching', 'Max Depth', 'Max Wait (Seconds)', 'Respect robots.txt'],
	},
	reportCreate: {
		ifReportExists: 'Re-Analyze if Older Than',
		/** Shown with that choice: the age, named as the choice is, and its unit. */
		age: ['olderThan', 'olderThanUnit'],
		options: ['Include Per-Check Results', 'Max Wait (Seconds)'],
	},
	reportGetMany: {
		filters: ['Grade', 'Project', 'Search', 'Search By'],
		grades: ['Good', 'Decent', 'Bad'],
		projectModes: ['From List', 'By Name'],
		options: ['Include Per-Check Results', 'Max Wait (Seconds)', 'Sort By', 'Sort Order'],
		maxWait: 3600,
	},
};

const TOOL_NODE_NAME = 'Get a report for the agent';

/** Words the tool's Description for Report > Get must hold. */
const TOOL_DESCRIPTION_SAYS = ['numeric report ID', 'grade', 'failedChecks'];

interface BrowserCheckOptions {
	url: string;
	owner: Owner;
	screenshotsDir: string;
	/** What the node panel lists under the node: each operation's action, as the node describes it. */
	actions: string[];
	/** The action the checks add to the canvas. */
	addAction: string;
	/** How many requests the phpRank server has answered on /api/v1/account so far. */
	accountRequests: () => number;
	/** Saves a workflow holding the phpRank Tool set to Report > Get, its node named as given; returns its id. */
	saveToolWorkflow: (nodeName: string) => Promise<string>;
	/** The examples imported into this n8n: their file under examples/, workflow id, nodes' names and number of notes. */
	examples: Array<{ file: string; id: string; nodeNames: string[]; notes: number }>;
}

interface NoteOverflow {
	note: string;
	/** What runs past the note: text hidden below its bottom, or a line wider than it. */
	overflows: string[];
}

/**
 * Every sticky note whose text n8n cuts: an element in it that hides or scrolls what it holds and holds more than it
 * shows (n8n hides text past a note's bottom and scrolls a code block wider than the note). Sizes are the layout's,
 * whatever the zoom.
 */
export async function overflowingNotes(page: Page): Promise<{ notes: number; overflowing: NoteOverflow[] }> {
	const notes = page.locator('[data-test-id="sticky"]');
	const overflowing = await notes.evaluateAll((elements) =>
		elements
			.map((note) => {
				const boxes = [note, ...Array.from(note.querySelectorAll('*'))] as HTMLElement[];
				const overflows = boxes
					.filter((box) => /hidden|auto|scroll|clip/.test(getComputedStyle(box).overflow + getComputedStyle(box).overflowX))
					.flatMap((box) => {
						const found: string[] = [];
						if (box.scrollHeight > box.clientHeight + 1) found.push(`${box.tagName.toLowerCase()} ${box.scrollHeight - box.clientHeight} px too tall`);
						if (box.scrollWidth > box.clientWidth + 1) found.push(`${box.tagName.toLowerCase()} ${box.scrollWidth - box.clientWidth} px too wide: "${(box.textContent ?? '').trim().slice(0, 40)}…"`);
						return found;
					});
				return { note: (note.textContent ?? '').trim().slice(0, 40), overflows };
			})
			.filter((note) => note.overflows.length > 0),
	);
	return { notes: await notes.count(), overflowing };
}

/** n8n's Zoom to Fit: its button (both lines name it zoom-to-fit), else its shortcut 1 on the canvas. */
export async function zoomToFit(page: Page): Promise<void> {
	const button = page.locator('[data-test-id="zoom-to-fit"]').first();
	if (await button.isVisible().catch(() => false)) await button.click();
	else {
		await page.locator('.vue-flow__pane').first().click({ position: { x: 5, y: 5 } });
		await page.keyboard.press('1');
	}
	// The fit is animated (200 ms); wait until the zoom settles.
	let zoom = (await readCanvas(page)).zoom;
	for (let attempt = 0; attempt < 20; attempt++) {
		await page.waitForTimeout(150);
		const now = (await readCanvas(page)).zoom;
		if (Math.abs(now - zoom) < 0.001) return;
		zoom = now;
	}
}

interface ExampleToOpen {
	file: string;
	baseUrl: string;
	id: string;
	/** Its nodes' names, its notes left out. */
	nodeNames: string[];
	/** How many sticky notes it has. */
	notes: number;
}

/**
 * Waits until the canvas draws exactly the example's nodes and notes, all shown (Vue Flow hides a node until it has
 * measured it): the example, not the workflow open before it.
 */
async function drawn(page: Page, example: ExampleToOpen): Promise<void> {
	await page.waitForFunction(
		({ names, notes }) =>
			Array.from(document.querySelectorAll('[data-test-id="canvas-node"]:not([data-node-type="n8n-nodes-base.stickyNote"])'))
				.map((node) => node.getAttribute('data-node-name') ?? '')
				.sort()
				.join('\n') === names &&
			document.querySelectorAll('[data-test-id="sticky"]').length === notes &&
			Array.from(document.querySelectorAll('[data-test-id="canvas-node"]')).every((node) => getComputedStyle(node).visibility === 'visible'),
		{ names: [...example.nodeNames].sort().join('\n'), notes: example.notes },
	);
}

/** An example opened as a newcomer opens it, at Zoom to Fit; the screenshot is kept whatever the outcome. */
export async function checkExampleLayout(page: Page, example: ExampleToOpen, screenshot: (name: string, on: Page) => Promise<string>): Promise<string> {
	await page.goto(`${example.baseUrl}/workflow/${example.id}`);
	await drawn(page, example);
	await zoomToFit(page);
	const canvas = await readCanvas(page);
	const file = await screenshot(`example-${example.file.replace(/\.json$/, '')}.png`, page);
	const { notes, overflowing } = await overflowingNotes(page);
	const problems = [
		...unreadable(canvas),
		...overflowing.map((note) => `the text of the note "${note.note}…" is cut: ${note.overflows.join(', ')}`),
	];
	if (notes === 0) problems.push('no sticky note found by [data-test-id="sticky"]');
	assert(problems.length === 0, `${problems.join('; ')}; ${file}`);
	return `zoom ${canvas.zoom.toFixed(2)}; ${canvas.nodes.length} nodes named in full, ${notes} notes, none cut or crossed, read in order; ${file}`;
}

/** Opens a dropdown and reads the first line of each option (n8n shows an operation's description under its name). */
async function openSelect(page: Page, input: Locator, what: string): Promise<{ options: string[]; list: Locator }> {
	await input.click({ timeout: ACTION_TIMEOUT_MS });
	const listId = await input.getAttribute('aria-controls', { timeout: ACTION_TIMEOUT_MS });
	assert(listId, `the ${what} dropdown names no option list`);
	const list = page.locator(`[id="${listId}"]`);
	const items = list.locator('.el-select-dropdown__item');
	await items.first().waitFor({ state: 'visible', timeout: ACTION_TIMEOUT_MS });
	// Let the opening transition end, for the screenshots.
	await page.waitForTimeout(400);
	const texts = await items.allInnerTexts();
	return { options: texts.map((text) => text.split('\n')[0].trim()), list };
}

async function dropdownOptions(page: Page, parameter: string): Promise<{ options: string[]; list: Locator }> {
	return await openSelect(page, page.locator(`[data-test-id="parameter-input-${parameter}"] input`).first(), parameter);
}

/**
 * A collection's choices (Filters, Options), from its "Add …" box found by its placeholder as both n8n 1.x and 2.x
 * render it. After one was added, n8n re-renders the list without it, so the read waits for that.
 */
async function collectionOptions(page: Page, placeholder: string, without?: string): Promise<{ options: string[]; list: Locator }> {
	const addBox = page.locator(`[data-test-id="ndv"] input[placeholder="${placeholder}"]`).first();
	for (let attempt = 0; ; attempt++) {
		const opened = await openSelect(page, addBox, placeholder);
		if (without === undefined || !opened.options.includes(without) || attempt === 10) return opened;
		await closeDropdown(page, opened.list);
		await page.waitForTimeout(300);
	}
}

async function addToCollection(page: Page, placeholder: string, label: string): Promise<void> {
	const { list } = await collectionOptions(page, placeholder);
	await list.locator('.el-select-dropdown__item').filter({ hasText: new RegExp(`^${label.replace(/[()]/g, '\\$&')}$`) }).first().click();
	await closed(list);
}

const sorted = (values: string[]) => [...values].sort();

const closed = async (list: Locator) => await list.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);

async function closeDropdown(page: Page, list: Locator): Promise<void> {
	await page.keyboard.press('Escape');
	await closed(list);
}

async function choose(page: Page, parameter: string, option: string): Promise<void> {
	const { list } = await dropdownOptions(page, parameter);
	await list.locator('.el-select-dropdown__item', { hasText: option }).first().click({ timeout: ACTION_TIMEOUT_MS });
	await closed(list);
	const shown = await page.locator(`[data-test-id="parameter-input-${parameter}"] input`).first().inputValue();
	assertEqual(shown, option, `${parameter} after choosing ${option}`);
}

/** The documented options, and n8n's own Custom API Call as the one accepted extra. */
function documented(options: string[], expected: string[], what: string): string {
	const own = options.filter((option) => option !== N8N_CUSTOM_API_CALL);
	assertEqual(own, expected, what);
	return options.includes(N8N_CUSTOM_API_CALL) ? `${own.join(', ')}; plus n8n's ${N8N_CUSTOM_API_CALL}` : own.join(', ');
}

/** The editor's checks; a failure of the first ones (up to the node's panel opening) ends them. */
export async function runBrowserChecks(checks: Checks, options: BrowserCheckOptions): Promise<void> {
	const screenshots: string[] = [];
	let browser: Browser | undefined;
	let current: Page | undefined;
	const screenshot = async (name: string, on = current!) => {
		const file = path.join(options.screenshotsDir, name);
		await on.screenshot({ path: file, animations: 'disabled' });
		screenshots.push(file);
		return path.relative(process.cwd(), file);
	};
	/** A check whose failure leaves a screenshot of the page behind; `gate`: its failure ends the browser checks. */
	const check = async (name: string, body: () => Promise<string | void> | string, gate = false) => {
		await checks.step(name, body).catch(async (error: unknown) => {
			const file = current && (await screenshot(`failure-${screenshots.filter((shot) => shot.includes('failure-')).length + 1}.png`).catch(() => undefined));
			if (file) checks.info(`screenshot of the page: ${file}`);
			if (gate) throw error;
		});
	};
	try {
		await check(
			'browser: Chromium from Debian is installed',
			() => {
				assert(existsSync(CHROMIUM_PATH), `${CHROMIUM_PATH} is missing: apt-get install -y chromium (or set CHROMIUM_PATH)`);
				return CHROMIUM_PATH;
			},
			true,
		);
		await check(
			'browser: headless Chromium starts',
			async () => {
				browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, timeout: 60_000, args: ['--disable-gpu', '--disable-quic'] });
				return `Chromium ${browser.version()}`;
			},
			true,
		);
		const context = await browser!.newContext({ viewport: { width: 1440, height: 900 } });
		const page = await context.newPage();
		current = page;
		page.setDefaultTimeout(ACTION_TIMEOUT_MS);
		page.setDefaultNavigationTimeout(60_000);

		await check(
			'browser: signs in to n8n as the owner',
			async () => {
				await page.goto(`${options.url}/signin`);
				await page.locator('input[name="emailOrLdapLoginId"]').fill(options.owner.email);
				await page.locator('input[name="password"]').fill(options.owner.password);
				await page.locator('[data-test-id="form-submit-button"]').click();
				await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 60_000 });
				return new URL(page.url()).pathname;
			},
			true,
		);

		const search = async (text: string) => {
			await page.locator('[data-test-id="node-creator-plus-button"]').click();
			const input = page.locator('[data-test-id="node-creator-search-bar"] input, input[data-test-id="node-creator-search-bar"]').first();
			await input.fill(text);
			return page.locator('[data-test-id="node-creator"] [data-test-id="item-iterator-item"]');
		};

		await check(
			'browser: the node panel finds the phpRank node by searching "phpRank"',
			async () => {
				await page.goto(`${options.url}/workflow/new`);
				// A trigger first, so that the panel offers action nodes.
				const triggers = await search('Manual Trigger');
				await triggers.filter({ hasText: 'Manual Trigger' }).first().click();
				await page.locator('[data-test-id="canvas-node"]').first().waitFor({ state: 'visible' });
				const items = await search('phpRank');
				const phpRank = items.filter({ has: page.locator('[data-test-id="node-creator-item-name"]', { hasText: /^phpRank$/ }) });
				await phpRank.first().waitFor({ state: 'visible' });
				await phpRank.first().click();
				const actions = page.locator('[data-test-id="node-creator"] [data-test-id="item-iterator-item"]');
				await actions.filter({ hasText: options.addAction }).first().waitFor({ state: 'visible' });
				const texts = (await actions.allInnerTexts()).map((text) => text.trim());
				for (const action of options.actions) assert(texts.includes(action), `the action list lacks "${action}": ${texts.join(' | ')}`);
				return `its ${options.actions.length} actions are listed`;
			},
			true,
		);
		await check(
			`browser: adding "${options.addAction}" opens the phpRank node`,
			async () => {
				await page.locator('[data-test-id="node-creator"] [data-test-id="item-iterator-item"]', { hasText: options.addAction }).first().click();
				await page.locator('[data-test-id="ndv"]').waitFor({ state: 'visible' });
				await page.locator('[data-test-id="parameter-input-resource"]').waitFor({ state: 'visible' });
				await page.locator('[data-test-id="parameter-input-url"]').waitFor({ state: 'visible' });
				// Show every option of an open dropdown in the screenshots, without scrolling.
				await page.addStyleTag({ content: '.el-select-dropdown__wrap { max-height: none !important; }' });
				return await screenshot('phprank-node.png');
			},
			true,
		);

		await check(`browser: Resource offers ${DOCUMENTED.resources.join(', ')}`, async () => {
			const { options: resources, list } = await dropdownOptions(page, 'resource');
			await closeDropdown(page, list);
			return documented(sorted(resources), sorted(DOCUMENTED.resources), 'Resource options');
		});

		for (const [resource, operations] of Object.entries(DOCUMENTED.operations)) {
			await check(`browser: ${resource} > Operation offers exactly ${operations.join(', ')}`, async () => {
				await choose(page, 'resource', resource);
				const { options: shown, list } = await dropdownOptions(page, 'operation');
				const detail = documented(shown, operations, `${resource} operations`);
				const file = await screenshot(`phprank-node-${resource.toLowerCase()}-operations.png`);
				await closeDropdown(page, list);
				return `${detail}; ${file}`;
			});
		}

		const { siteAudit } = DOCUMENTED;
		await check(`browser: Site > Audit asks for ${siteAudit.parameters.join(', ')}, Find Pages In offers ${siteAudit.discover.join(', ')}`, async () => {
			await choose(page, 'resource', 'Site');
			await choose(page, 'operation', 'Audit');
			for (const parameter of siteAudit.parameters) await page.locator(`[data-test-id="parameter-input-${parameter}"]`).waitFor({ state: 'visible' });
			const { options: discover, list } = await dropdownOptions(page, 'discover');
			await closeDropdown(page, list);
			assertEqual(discover, siteAudit.discover, 'Find Pages In options');
			const defaults = await Promise.all(
				['siteUrl', 'maxPages'].map(async (parameter) => await page.locator(`[data-test-id="parameter-input-${parameter}"] input`).first().inputValue()),
			);
			assertEqual(defaults, ['', '500'], 'Site URL and Max Pages as added');
			return await screenshot('phprank-site-audit.png');
		});
		await check(`browser: Site > Audit's Options offer ${siteAudit.options.join(', ')}`, async () => {
			const { options, list } = await collectionOptions(page, 'Add Option');
			await closeDropdown(page, list);
			return documented(sorted(options), sorted(siteAudit.options), 'Site > Audit options');
		});

		const getMany = DOCUMENTED.reportGetMany;
		await check(`browser: Report > Get Many filters by ${getMany.filters.join(', ')}`, async () => {
			await choose(page, 'resource', 'Report');
			await choose(page, 'operation', 'Get Many');
			const { options: filters, list } = await collectionOptions(page, 'Add Filter');
			assertEqual(sorted(filters), sorted(getMany.filters), 'the Filters to add');
			const file = await screenshot('phprank-report-getmany-filters.png');
			await closeDropdown(page, list);
			return `${filters.join(', ')}; ${file}`;
		});

		await check(`browser: the Grade filter offers ${getMany.grades.join(', ')}`, async () => {
			await addToCollection(page, 'Add Filter', 'Grade');
			const { options: grades, list } = await dropdownOptions(page, 'grade');
			await closeDropdown(page, list);
			assertEqual(grades, getMany.grades, 'Grade options');
			return grades.join(', ');
		});

		await check(`browser: the Project filter picks a project ${getMany.projectModes.join(' or ')}`, async () => {
			const { options: left, list: filterList } = await collectionOptions(page, 'Add Filter', 'Grade');
			await closeDropdown(page, filterList);
			assert(!left.includes('Grade'), `Grade is still offered after it was added: ${left.join(', ')}`);
			await addToCollection(page, 'Add Filter', 'Project');
			const selector = page.locator('[data-test-id="ndv"] [data-test-id="rlc-mode-selector"] input').first();
			const { options: modes, list } = await openSelect(page, selector, 'Project mode');
			await closeDropdown(page, list);
			// n8n 2.x writes its own label for the list mode ("From list").
			assertEqual(modes.map((mode) => mode.toLowerCase()), getMany.projectModes.map((mode) => mode.toLowerCase()), 'Project filter modes');
			return modes.join(', ');
		});

		await check(`browser: Report > Get Many's Options hold Max Wait, ${getMany.maxWait} s when added`, async () => {
			const { options: shown, list } = await collectionOptions(page, 'Add Option');
			const file = await screenshot('phprank-report-getmany-options.png');
			await closeDropdown(page, list);
			assertEqual(sorted(shown), sorted(getMany.options), 'the Options to add');
			await addToCollection(page, 'Add Option', 'Max Wait (Seconds)');
			const wait = page.locator('[data-test-id="parameter-input-maxWait"] input').first();
			await wait.waitFor({ state: 'visible' });
			const value = (await wait.inputValue()).replace(/\D/g, '');
			assertEqual(Number(value), getMany.maxWait, 'Max Wait when added');
			const filled = await screenshot('phprank-report-getmany-filled.png');
			return `${shown.join(', ')}; ${file}, ${filled}`;
		});

		await check('browser: Include Per-Check Results shows on when added, as a workflow without it outputs the results', async () => {
			await addToCollection(page, 'Add Option', 'Include Per-Check Results');
			const input = page.locator('[data-test-id="parameter-input-includeResults"]').first();
			await input.waitFor({ state: 'visible' });
			// Element Plus's switch (n8n 1.x and 2.x) says its state in aria-checked and in its is-checked class.
			const shown = await input.evaluate((element) => ({
				ariaChecked: element.querySelector('[aria-checked]')?.getAttribute('aria-checked') ?? null,
				isChecked: element.querySelector('.el-switch')?.classList.contains('is-checked') ?? null,
			}));
			const file = await screenshot('phprank-report-getmany-include-results.png');
			assert(shown.ariaChecked !== null || shown.isChecked !== null, `no switch found in the option; ${file}`);
			assert(shown.ariaChecked !== 'false' && shown.isChecked !== false, `the toggle shows off when added (${JSON.stringify(shown)}); ${file}`);
			return `on (${JSON.stringify(shown)}); ${file}`;
		});

		const { reportCreate } = DOCUMENTED;
		await check(`browser: Report > Create with ${reportCreate.ifReportExists} asks its age and unit; with ${reportCreate.options.join(' and ')} added, how far the panel scrolls`, async () => {
			await choose(page, 'resource', 'Report');
			await choose(page, 'operation', 'Create');
			await choose(page, 'ifReportExists', reportCreate.ifReportExists);
			for (const parameter of reportCreate.age) await page.locator(`[data-test-id="parameter-input-${parameter}"]`).waitFor({ state: 'visible' });
			// One Options parameter serves every operation: what Get Many's checks added is still there, and once every
			// option is added n8n shows no Add Option box.
			const addOption = page.locator('[data-test-id="ndv"] input[placeholder="Add Option"]').first();
			if (await addOption.isVisible()) {
				const { options: offered, list } = await collectionOptions(page, 'Add Option');
				await closeDropdown(page, list);
				for (const option of reportCreate.options.filter((option) => offered.includes(option))) await addToCollection(page, 'Add Option', option);
			}
			await page.locator('[data-test-id="parameter-input-maxWait"]').first().waitFor({ state: 'visible' });
			// The nearest ancestor of the URL field that scrolls: the parameters pane.
			const overflow = await page.locator('[data-test-id="parameter-input-url"]').first().evaluate((element) => {
				for (let node = element.parentElement; node; node = node.parentElement) {
					const { overflowY } = getComputedStyle(node);
					if ((overflowY === 'auto' || overflowY === 'scroll') && node.clientHeight > 0) return { scrollHeight: node.scrollHeight, clientHeight: node.clientHeight };
				}
				return undefined;
			});
			const file = await screenshot('phprank-report-create-filled.png');
			const scrolls = overflow === undefined ? 'no scrolling pane found' : `the parameters pane holds ${overflow.scrollHeight} px in ${overflow.clientHeight} px (scrolls ${Math.max(0, overflow.scrollHeight - overflow.clientHeight)} px)`;
			return `${scrolls}; ${file}`;
		});

		await check('browser: the credential dialog tests the phpRank credential successfully', async () => {
			const selected = await page.locator('[data-test-id="node-credentials-select"] input').first().inputValue();
			assertEqual(selected, DEMO_CREDENTIAL.name, 'credential selected on the node');
			const before = options.accountRequests();
			const tested = page.waitForResponse((response) => response.url().endsWith('/rest/credentials/test'), { timeout: 20_000 });
			await page.locator('[data-test-id="credential-edit-button"]').click();
			const modal = page.locator('[data-test-id="editCredential-modal"]');
			await modal.waitFor({ state: 'visible' });
			let response = await tested.catch(() => undefined);
			if (!response) {
				// The dialog reused an earlier result: ask for a new test.
				const retest = page.waitForResponse((answer) => answer.url().endsWith('/rest/credentials/test'));
				await modal.getByRole('button', { name: 'Retry' }).click();
				response = await retest;
			}
			const answer = (await response.json()) as { data?: { status?: string; message?: string } };
			assertEqual(answer.data?.status, 'OK', `POST /rest/credentials/test status (${answer.data?.message ?? ''})`);
			const banner = modal.locator('[data-test-id="credentials-config-container-test-success"]');
			await banner.waitFor({ state: 'visible' });
			const text = (await banner.innerText()).split('\n')[0].trim();
			// The banner's Retry button shows a spinner until n8n has settled the test.
			await banner.getByRole('button', { name: 'Retry' }).waitFor({ state: 'visible', timeout: 10_000 }).catch(() => undefined);
			await page.waitForTimeout(300);
			assert(options.accountRequests() > before, 'the phpRank server received no GET /api/v1/account for the test');
			return `"${text}"; ${await screenshot('phprank-credential.png')}`;
		});

		await check('browser: the phpRank Tool shows the Description an AI agent reads for Report > Get', async () => {
			const id = await options.saveToolWorkflow(TOOL_NODE_NAME);
			// A page of its own: the workflow edited above is left unsaved, and leaving it would ask to save it.
			const toolPage = await context.newPage();
			try {
				await toolPage.goto(`${options.url}/workflow/${id}`);
				const node = toolPage.locator('[data-test-id="canvas-node"]', { hasText: TOOL_NODE_NAME }).first();
				await node.waitFor({ state: 'visible' });
				await node.dblclick();
				const description = toolPage.locator('[data-test-id="parameter-input-toolDescription"] textarea').first();
				await description.waitFor({ state: 'visible' });
				const text = await description.inputValue();
				for (const words of TOOL_DESCRIPTION_SAYS) assert(text.includes(words), `the Description lacks "${words}": ${text}`);
				return `"${text.slice(0, 60)}…"; ${await screenshot('phprank-tool-description.png', toolPage)}`;
			} finally {
				await toolPage.close().catch(() => undefined);
			}
		});

		// One page for all the examples, each loaded by its URL.
		const examplesPage = await context.newPage();
		examplesPage.setDefaultTimeout(ACTION_TIMEOUT_MS);
		examplesPage.setDefaultNavigationTimeout(60_000);
		// The browser's leave-page question, if n8n asks it before the next example's URL loads: leave.
		examplesPage.on('dialog', (dialog) => void dialog.accept().catch(() => undefined));
		current = examplesPage;
		for (const example of options.examples) {
			await check(
				`browser: examples/${example.file} reads at a glance at Zoom to Fit (1440x900): zoom ${READABLE_ZOOM} or more, every node's name shown, no wire across a note's text, sections left to right then top to bottom, its notes' text not cut`,
				async () => await checkExampleLayout(examplesPage, { ...example, baseUrl: options.url }, screenshot),
			);
		}
	} catch (error) {
		if (!(error instanceof StepFailed)) throw error;
	} finally {
		await browser?.close().catch(() => undefined);
		if (screenshots.length) checks.info(`screenshots: ${screenshots.map((file) => path.relative(REPOSITORY_ROOT, file)).join(', ')}`);
	}
}

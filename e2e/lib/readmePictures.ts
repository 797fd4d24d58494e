/**
 * The README's pictures of what users get, made from what the suite has just run on the bundled server's data: the
 * site health dashboard's page of the audited site, and the site audit's message as Slack shows it (the text the
 * Slack example posts, its mrkdwn rendered in Chromium in a plain Slack-like frame). They are kept with the
 * screenshots; with E2E_README_PICTURES=1 the newest n8n's are written into docs/ too.
 */
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

import type { Browser } from 'playwright-core';

import { assert, assertEqual } from './checks';
import { REPOSITORY_ROOT } from '../../dev/n8n/util';

export const README_PICTURES_DIR = path.join(REPOSITORY_ROOT, 'docs');
export const README_PICTURES = { dashboard: 'dashboard.png', message: 'site-audit-message.png' };
/** Each picture: this wide, and no bigger than the README can carry. */
export const README_PICTURE = { width: 800, maxBytes: 80_000 };
const WIDTH = README_PICTURE.width;
/** The dashboard's page down to its orphan pages: heading, chart, the runs to compare, issues by worth, broken links. */
const DASHBOARD_LAST_SECTION = 'Orphan pages';
const DASHBOARD_MAX_HEIGHT = 1_800;
/** The message's top, faded out below: its counts, trend, broken links and what follows, as far as the bytes allow. */
const MESSAGE_HEIGHTS = [560, 520, 480, 440, 400, 360];
const MAX_BYTES = README_PICTURE.maxBytes;

const escapeHtml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/**
 * Slack's mrkdwn as Slack shows a message's text: `*bold*`, `_italic_`, `~strike~` and `` `code` `` where they start
 * and end a run of words, web addresses as links (without a colon, comma or full stop that ends them), every line
 * break kept. The Slack node sends `&`, `<` and `>` escaped, which Slack shows as themselves.
 */
export function slackMrkdwnToHtml(text: string): string {
	const links: string[] = [];
	const withoutLinks = escapeHtml(text).replace(/https?:\/\/[^\s"]+/g, (found) => {
		const url = found.replace(/[.,:;!?]+$/, '');
		links.push(url);
		return `\u0000${links.length - 1}\u0000${found.slice(url.length)}`;
	});
	const styled = [
		['*', 'b'],
		['_', 'i'],
		['~', 's'],
		['`', 'code'],
	].reduce((html, [mark, tag]) => {
		const quoted = `\\${mark}`;
		const run = new RegExp(`(^|[\\s(])${quoted}(?=\\S)([^${quoted}\\n]*?\\S)${quoted}(?=$|[\\s).,:;!?])`, 'gm');
		return html.replace(run, `$1<${tag}>$2</${tag}>`);
	}, withoutLinks);
	return styled.replace(/\u0000(\d+)\u0000/g, (_, index: string) => `<a href="${links[Number(index)]}">${links[Number(index)]}</a>`);
}

/** A message in a channel, framed as Slack frames one: the channel's name, the app's name and picture, the text. */
function slackPage(channel: string, text: string): string {
	return `<!doctype html><meta charset="utf-8"><style>
body { margin: 0; background: #fff; color: #1d1c1d; font: 15px/22px Lato, "Helvetica Neue", "Liberation Sans", Arial, sans-serif; }
.frame { width: ${WIDTH}px; overflow: hidden; position: relative; }
.frame::after { content: ""; position: absolute; left: 0; right: 0; bottom: 0; height: 48px; background: linear-gradient(rgba(255, 255, 255, 0), #fff); }
.channel { padding: 12px 20px; border-bottom: 1px solid #e2e2e2; font-weight: bold; font-size: 18px; }
.message { display: flex; gap: 8px; padding: 12px 20px 16px; }
.avatar { flex: none; width: 36px; height: 36px; border-radius: 6px; background: #ea4b71; color: #fff; font-weight: bold; font-size: 13px; display: flex; align-items: center; justify-content: center; }
.name { font-weight: bold; }
.app { margin-left: 4px; padding: 1px 3px; border-radius: 3px; background: #e8e8e8; color: #616061; font-size: 10px; font-weight: bold; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
a { color: #1264a3; text-decoration: none; }
</style><div class="frame"><div class="channel"># ${escapeHtml(channel.replace(/^#/, ''))}</div>
<div class="message"><div class="avatar">n8n</div><div><div><span class="name">n8n</span><span class="app">APP</span></div>
<div class="text">${slackMrkdwnToHtml(text)}</div></div></div></div>`;
}

const plain = (text: string) => text.replace(/[*_~`]/g, '').replace(/\s+/g, ' ').trim();

function kept(file: string, intoDocs: boolean): string {
	const bytes = statSync(file).size;
	assert(bytes <= MAX_BYTES, `${path.basename(file)} is ${bytes} bytes, more than the README's ${MAX_BYTES}`);
	if (!intoDocs) return `${path.relative(REPOSITORY_ROOT, file)}, ${Math.round(bytes / 1000)} KB`;
	mkdirSync(README_PICTURES_DIR, { recursive: true });
	const into = path.join(README_PICTURES_DIR, path.basename(file));
	copyFileSync(file, into);
	return `${path.relative(REPOSITORY_ROOT, into)}, ${Math.round(bytes / 1000)} KB`;
}

/** The dashboard's page of `siteUrl`, signed in, its top at the README's width. */
export async function pictureDashboard(browser: Browser, options: { siteUrl: string; login: { username: string; password: string }; folder: string; intoDocs: boolean }): Promise<string> {
	const context = await browser.newContext({ viewport: { width: WIDTH, height: 600 }, httpCredentials: options.login });
	try {
		const page = await context.newPage();
		const answer = await page.goto(options.siteUrl);
		assertEqual(answer?.status(), 200, 'status of the site page');
		const heading = page.locator('h2', { hasText: DASHBOARD_LAST_SECTION }).first();
		// The section's card: the heading's parent.
		const box = await heading.locator('xpath=..').boundingBox();
		assert(box, `no "${DASHBOARD_LAST_SECTION}" section on the site page`);
		const file = path.join(options.folder, README_PICTURES.dashboard);
		let height = Math.min(Math.ceil(box.y + box.height + 16), DASHBOARD_MAX_HEIGHT);
		for (;;) {
			await page.screenshot({ path: file, fullPage: true, clip: { x: 0, y: 0, width: WIDTH, height }, animations: 'disabled' });
			if (statSync(file).size <= MAX_BYTES || height <= 600) break;
			height -= 100;
		}
		return kept(file, options.intoDocs);
	} finally {
		await context.close();
	}
}

/** The message as Slack shows it in `channel`, its top; its rendered text must be the message's, word for word. */
export async function pictureSlackMessage(browser: Browser, options: { channel: string; text: string; folder: string; intoDocs: boolean }): Promise<string> {
	const context = await browser.newContext({ viewport: { width: WIDTH, height: 600 } });
	try {
		const page = await context.newPage();
		await page.setContent(slackPage(options.channel, options.text));
		const rendered = await page.locator('.text').innerText();
		assertEqual(plain(rendered), plain(options.text), 'the message as rendered, without its mrkdwn marks');
		const file = path.join(options.folder, README_PICTURES.message);
		for (const height of MESSAGE_HEIGHTS) {
			await page.locator('.frame').evaluate((frame, maxHeight) => (frame.style.maxHeight = `${maxHeight}px`), height);
			await page.locator('.frame').screenshot({ path: file, animations: 'disabled' });
			if (statSync(file).size <= MAX_BYTES) break;
		}
		return kept(file, options.intoDocs);
	} finally {
		await context.close();
	}
}

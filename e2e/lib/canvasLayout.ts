/**
 * An example as a newcomer first sees it in n8n's editor, at Zoom to Fit: read from the canvas as drawn (the screen
 * boxes of nodes, their names, notes and the lines of their text, points along every wire), then judged:
 *
 * - the zoom is readable (0.7 or more: a note's 14 px text shows at about 10 px);
 * - every node's name shows whole: not cut by n8n, not over another node or under another node's name;
 * - no wire runs across a line of a note's text;
 * - the sections read left to right, then top to bottom: no wire goes back to a note read earlier, and the setup
 *   steps are in the first note (the top-left one).
 *
 * The same on n8n 1.x and 2.x: both draw with Vue Flow, a node's name in its description's label.
 */
import type { Page } from 'playwright-core';

/** The smallest zoom at which a node's name and a note's text can be read; Zoom to Fit must not go below it. */
export const READABLE_ZOOM = 0.7;

/** How a note says what to set before the workflow runs: a bold "Set up" (or "To set it up") heading. */
export const SETUP_HEADING = /\*\*(to )?set (it )?up\b/i;
const SETUP_HEADING_TEXT = /^(to )?set (it )?up\b/i;

interface Box {
	x: number;
	y: number;
	width: number;
	height: number;
}

interface DrawnNode {
	name: string;
	body: Box;
	/** The boxes of its name's lines of text, as drawn. */
	nameLines: Box[];
	/** n8n cut the name: its label holds more than it shows. */
	nameCut: boolean;
}

interface DrawnNote {
	/** Its first line of text, to name it in a failure. */
	title: string;
	box: Box;
	/** The boxes of its lines of text (each text run on a line), as drawn. */
	textLines: Box[];
	/** Its bold lines' text: the headings that open a paragraph. */
	headings: string[];
}

interface DrawnWire {
	from: string;
	to: string;
	/** Points along it, on the screen, a few pixels apart. */
	points: Array<{ x: number; y: number }>;
}

export interface Canvas {
	zoom: number;
	nodes: DrawnNode[];
	notes: DrawnNote[];
	wires: DrawnWire[];
}

const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

const contains = (box: Box, point: { x: number; y: number }) =>
	point.x >= box.x && point.x <= box.x + box.width && point.y >= box.y && point.y <= box.y + box.height;

const center = (box: Box) => ({ x: box.x + box.width / 2, y: box.y + box.height / 2 });

/** The canvas as n8n drew it. Page functions stay plain (no named helpers inside): they run in the browser as written. */
export async function readCanvas(page: Page): Promise<Canvas> {
	const zoom = await page
		.locator('.vue-flow__transformationpane, .vue-flow__viewport')
		.evaluateAll((elements) =>
			elements
				.map((element) => getComputedStyle(element).transform)
				.filter((transform) => transform !== 'none')
				.map((transform) => new DOMMatrixReadOnly(transform).a),
		);
	if (zoom.length === 0) throw new Error("the canvas's zoom cannot be read: no transform on Vue Flow's transformation pane");
	const nodes = await page.locator('[data-test-id="canvas-node"]:not([data-node-type="n8n-nodes-base.stickyNote"])').evaluateAll((elements) =>
		elements.map((element) => {
			const body = element.getBoundingClientRect();
			const label = element.querySelector('[class*="_description_"] > [class*="_label_"]');
			const range = document.createRange();
			if (label) range.selectNodeContents(label);
			return {
				name: element.getAttribute('data-node-name') ?? '',
				body: { x: body.x, y: body.y, width: body.width, height: body.height },
				nameLines: label ? Array.from(range.getClientRects()).map((line) => ({ x: line.x, y: line.y, width: line.width, height: line.height })) : [],
				nameCut: label ? label.scrollHeight > label.clientHeight + 1 || label.scrollWidth > label.clientWidth + 1 : true,
			};
		}),
	);
	const notes = await page.locator('[data-test-id="sticky"]').evaluateAll((elements) =>
		elements.map((element) => {
			const box = element.getBoundingClientRect();
			const textLines: Array<{ x: number; y: number; width: number; height: number }> = [];
			const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
			const range = document.createRange();
			for (let text = walker.nextNode(); text; text = walker.nextNode()) {
				if (!(text.textContent ?? '').trim() || text.parentElement?.closest('textarea, .sticky-textarea')) continue;
				range.selectNodeContents(text);
				for (const line of Array.from(range.getClientRects())) if (line.width > 0) textLines.push({ x: line.x, y: line.y, width: line.width, height: line.height });
			}
			return {
				title: (element.textContent ?? '').trim().split('\n')[0].slice(0, 40),
				box: { x: box.x, y: box.y, width: box.width, height: box.height },
				textLines,
				headings: Array.from(element.querySelectorAll('p > strong:first-child, li > strong:first-child, h1, h2, h3')).map((heading) => (heading.textContent ?? '').trim()),
			};
		}),
	);
	const wires = await page.locator('[data-test-id="edge"]').evaluateAll((elements) =>
		elements.flatMap((element) => {
			const path = element.querySelector('path.vue-flow__edge-path') as SVGPathElement | null;
			const matrix = path?.getScreenCTM();
			if (!path || !matrix) return [];
			const length = path.getTotalLength();
			const points: Array<{ x: number; y: number }> = [];
			for (let at = 0; at <= length; at += 4) {
				const point = path.getPointAtLength(at).matrixTransform(matrix);
				points.push({ x: point.x, y: point.y });
			}
			return [{ from: element.getAttribute('data-source-node-name') ?? '', to: element.getAttribute('data-target-node-name') ?? '', points }];
		}),
	);
	return { zoom: zoom[0], nodes, notes, wires };
}

/**
 * The notes in reading order: rows by their top (a note starting below another's top by more than half a node starts
 * a later row), each row left to right.
 */
export function readingOrder<T extends { box: Box }>(notes: T[], rowTolerance: number): T[] {
	const byTop = [...notes].sort((a, b) => a.box.y - b.box.y);
	const rows: T[][] = [];
	for (const note of byTop) {
		const row = rows.find((candidate) => Math.abs(candidate[0].box.y - note.box.y) <= rowTolerance);
		if (row) row.push(note);
		else rows.push([note]);
	}
	return rows.flatMap((row) => row.sort((a, b) => a.box.x - b.box.x));
}

/** What a newcomer cannot read at Zoom to Fit; empty when the example reads at a glance. */
export function unreadable(canvas: Canvas): string[] {
	const problems: string[] = [];
	if (canvas.zoom < READABLE_ZOOM) problems.push(`Zoom to Fit shows it at ${canvas.zoom.toFixed(2)}, below the readable ${READABLE_ZOOM}`);

	for (const node of canvas.nodes) {
		if (node.nameCut || node.nameLines.length === 0) problems.push(`the name of "${node.name}" is cut`);
		const over = canvas.nodes.filter(
			(other) => other !== node && node.nameLines.some((line) => overlap(line, other.body) || other.nameLines.some((otherLine) => overlap(line, otherLine))),
		);
		if (over.length) problems.push(`the name of "${node.name}" runs into ${over.map((other) => `"${other.name}"`).join(', ')}`);
	}

	for (const note of canvas.notes) {
		const across = canvas.wires.filter((wire) => wire.points.some((point) => note.textLines.some((line) => contains(line, point))));
		if (across.length) problems.push(`wires across the text of the note "${note.title}…": ${across.map((wire) => `${wire.from} → ${wire.to}`).join(', ')}`);
	}

	// Sections: the note each node sits in, in reading order; half a node's height tells rows apart.
	const nodeHeight = canvas.nodes[0]?.body.height ?? 50;
	const ordered = readingOrder(canvas.notes, nodeHeight / 2);
	const sectionOf = new Map(
		canvas.nodes.map((node) => [node.name, ordered.findIndex((note) => contains(note.box, center(node.body)))] as const),
	);
	for (const wire of canvas.wires) {
		const from = sectionOf.get(wire.from) ?? -1;
		const to = sectionOf.get(wire.to) ?? -1;
		if (from >= 0 && to >= 0 && to < from) problems.push(`"${wire.from}" → "${wire.to}" goes back from the note "${ordered[from].title}…" to "${ordered[to].title}…", read before it`);
	}
	const setupLater = ordered.slice(1).filter((note) => note.headings.some((heading) => SETUP_HEADING_TEXT.test(heading)));
	if (setupLater.length) problems.push(`setup steps in a note read after the first (top-left) one: ${setupLater.map((note) => `"${note.title}…"`).join(', ')}`);
	return problems;
}

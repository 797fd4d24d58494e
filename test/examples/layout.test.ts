/**
 * How each example looks when a user imports it into n8n (1440x900 window, Zoom to Fit): sections a person reads,
 * left to right, then top to bottom, each with a sticky note saying what it does and what to set (the setup in the
 * first, top-left one), and text that the notes do not clip. The end-to-end suite checks the same in n8n's editor.
 *
 * Measured from the workflow file, as n8n's editor lays it out: a node is about 100x100 px from its position; a
 * note's Markdown is 14 px text (about 7 px a character, 21 px a line), code 8.4 px a character, headings 24 px, inside
 * 12 px of padding; n8n hides what runs past a note's bottom and scrolls a code line wider than the note.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const EXAMPLES_DIR = path.resolve(__dirname, '..', '..', 'examples');
const STICKY_NOTE = 'n8n-nodes-base.stickyNote';
const NODE_SIZE = 100;

// What n8n's Zoom to Fit shows of a workflow in a 1440x900 window, its padding included: measured in n8n 2.41.1 and
// 1.123.81 (the zoom it chose for each example of this folder; the smaller line, a little under). The end-to-end
// check asserts a zoom of 0.7 or more.
const READABLE_ZOOM = 0.7;
const CANVAS = { width: 1130, height: 660 };
const MAX_SIZE = { width: CANVAS.width / READABLE_ZOOM, height: CANVAS.height / READABLE_ZOOM };

const PROSE_CHAR = 7;
const CODE_CHAR = 8.4;
const HEADING_CHAR = 13;
const PADDING_X = 12;

/** How a note says what to set before the workflow runs: a bold "Set up" (or "To set it up") heading. */
const SETUP_HEADING = /\*\*(to )?set (it )?up\b/i;

/** Words only this repository's developers can act on: not for the person importing a non-offline example. */
const DEVELOPER_WORDS = /\bnpm\b|\bdev\/|this repository|127\.0\.0\.1|__sim\b/;

interface Node {
	name: string;
	type: string;
	position: [number, number];
	parameters: { content?: string; width?: number; height?: number };
}

interface Box {
	x: number;
	y: number;
	width: number;
	height: number;
}

const inside = (inner: Box, outer: Box) =>
	inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height;

const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** How many lines a text takes at a width, wrapped at spaces. */
function wrappedLines(text: string, width: number, perChar: number): number {
	let lines = 1;
	let used = 0;
	for (const word of text.split(' ')) {
		const length = word.length * perChar;
		if (used === 0) used = length;
		else if (used + perChar + length <= width) used += perChar + length;
		else {
			lines++;
			used = length;
		}
	}
	return lines;
}

/** A note's text height (px) at its width, and what does not fit its width. */
function measureNote(content: string, width: number): { height: number; tooWide: string[] } {
	const inner = width - 2 * PADDING_X;
	const tooWide: string[] = [];
	let height = 8;
	let inCode = false;
	for (const line of content.split('\n')) {
		if (line.startsWith('```')) {
			height += inCode ? 28 : 16;
			inCode = !inCode;
		} else if (inCode) {
			if (line.length * CODE_CHAR + 32 > inner) tooWide.push(`code: ${line}`);
			height += 21;
		} else if (line.trim() === '') {
			height += 8;
		} else {
			for (const word of line.split(/\s+/)) if (word.length * PROSE_CHAR > inner) tooWide.push(`word: ${word}`);
			if (line.startsWith('## ')) height += 36 * wrappedLines(line.slice(3), inner, HEADING_CHAR);
			else if (/^(\d+\.|-) /.test(line)) height += 22 * wrappedLines(line, inner - 20, PROSE_CHAR);
			else height += 21 * wrappedLines(line, inner, PROSE_CHAR);
		}
	}
	return { height, tooWide };
}

const examples = readdirSync(EXAMPLES_DIR)
	.filter((file) => file.endsWith('.json'))
	.sort();

describe.each(examples)('examples/%s as n8n shows it', (file) => {
	const workflow = JSON.parse(readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as {
		nodes: Node[];
		connections: Record<string, Record<string, Array<Array<{ node: string }> | null>>>;
	};
	const nodes = workflow.nodes;
	const notes = nodes
		.filter((node) => node.type === STICKY_NOTE)
		.map((note) => ({
			name: note.name,
			content: note.parameters.content ?? '',
			box: { x: note.position[0], y: note.position[1], width: note.parameters.width ?? 240, height: note.parameters.height ?? 160 },
		}));
	const steps = nodes
		.filter((node) => node.type !== STICKY_NOTE)
		.map((node) => ({ name: node.name, box: { x: node.position[0], y: node.position[1], width: NODE_SIZE, height: NODE_SIZE } }));

	it(`fits a 1440x900 window at Zoom to Fit at ${READABLE_ZOOM} or more (at most ${Math.round(MAX_SIZE.width)} x ${Math.round(MAX_SIZE.height)} px)`, () => {
		const boxes = [...notes, ...steps].map((entry) => entry.box);
		const width = Math.max(...boxes.map((box) => box.x + box.width)) - Math.min(...boxes.map((box) => box.x));
		const height = Math.max(...boxes.map((box) => box.y + box.height)) - Math.min(...boxes.map((box) => box.y));
		expect({ width, height, fits: width <= MAX_SIZE.width && height <= MAX_SIZE.height }).toMatchObject({ fits: true });
	});

	it('puts every node in exactly one section, under its note', () => {
		const misplaced = steps
			.map((step) => ({ node: step.name, notes: notes.filter((note) => inside(step.box, note.box)).map((note) => note.name) }))
			.filter((placed) => placed.notes.length !== 1);
		expect(misplaced).toEqual([]);
	});

	it('lays its notes side by side, none over another', () => {
		const overlapping = notes.flatMap((note, index) =>
			notes.slice(index + 1).filter((other) => overlap(note.box, other.box)).map((other) => `${note.name} / ${other.name}`),
		);
		expect(overlapping).toEqual([]);
	});

	it('reads its sections left to right, then top to bottom: no wire back to a note read before, the setup steps in the first (top-left) note', () => {
		// Rows of notes by their top (half a node apart starts a new row), each row left to right.
		const rows: Array<typeof notes> = [];
		for (const note of [...notes].sort((a, b) => a.box.y - b.box.y)) {
			const row = rows.find((candidate) => Math.abs(candidate[0].box.y - note.box.y) <= NODE_SIZE / 2);
			if (row) row.push(note);
			else rows.push([note]);
		}
		const ordered = rows.flatMap((row) => row.sort((a, b) => a.box.x - b.box.x));
		const sectionOf = new Map(steps.map((step) => [step.name, ordered.findIndex((note) => inside(step.box, note.box))] as const));
		const backwards = Object.entries(workflow.connections).flatMap(([from, outputs]) =>
			Object.values(outputs)
				.flat(2)
				.filter((target): target is { node: string } => Boolean(target) && (sectionOf.get(target!.node) ?? -1) < (sectionOf.get(from) ?? -1))
				.map((target) => `${from} → ${target.node}`),
		);
		expect(backwards).toEqual([]);
		expect(ordered.slice(1).filter((note) => SETUP_HEADING.test(note.content)).map((note) => note.name)).toEqual([]);
	});

	it.each(notes.map((note) => [note.name, note] as const))('note "%s": its text fits its width and ends above its nodes', (_, note) => {
		const { height, tooWide } = measureNote(note.content, note.box.width);
		const firstNode = Math.min(...steps.filter((step) => inside(step.box, note.box)).map((step) => step.box.y), note.box.y + note.box.height);
		expect(tooWide).toEqual([]);
		expect(note.box.y + height).toBeLessThanOrEqual(firstNode);
	});

	if (!file.includes('-offline')) {
		it('speaks to the person importing it, not to developers of this package', () => {
			const developerOnly = notes.filter((note) => DEVELOPER_WORDS.test(note.content)).map((note) => `${note.name}: ${DEVELOPER_WORDS.exec(note.content)?.[0]}`);
			expect(developerOnly).toEqual([]);
		});
	}
});

describe('the note measure', () => {
	it('finds a code line wider than its note and a long text that runs past the nodes below it', () => {
		const code = ['```json', `{ "args": ["mcp-remote", "https://n8n.example.com/mcp/phprank", "--header"] }`, '```'].join('\n');
		expect(measureNote(code, 500).tooWide).toHaveLength(1);
		expect(measureNote(code, 800).tooWide).toEqual([]);
		const paragraph = 'word '.repeat(200);
		expect(measureNote(paragraph, 400).height).toBeGreaterThan(measureNote(paragraph, 800).height * 1.8);
	});
});

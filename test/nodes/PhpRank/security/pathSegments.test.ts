/**
 * Report IDs and project names become part of the request path. Whatever their text, they must land
 * in exactly one path segment of the operation's own route, or be refused before anything is sent:
 * a value like `1/../../account` must never move the request to another endpoint of the API.
 */
import { WorkflowHasIssuesError } from 'n8n-core';
import fc from 'fast-check';

import { byId, byName, fromList, inputErrorOf, runPhpRank, useServer } from '../../../support/phpRank';
import type { PhpRankServer } from '../../../support/phpRank';

const server = useServer({}, (phpRank) => phpRank.seedReports(12, { projects: ['example.com', 'shop.example.org'] }));

const SEED = 20_261_122;

type Supply = 'expression' | 'mapped' | 'list' | 'typed';

/** The value as an n8n user gives it: typed into the locator, picked from the list, or by expression. */
function locator(supply: Supply, value: string | number, typedMode: 'id' | 'name') {
	switch (supply) {
		case 'expression':
			return { parameter: byMode(typedMode, `={{ ${JSON.stringify(value)} }}`), items: [{}] };
		case 'mapped':
			return { parameter: byMode(typedMode, '={{ $json.value }}'), items: [{ value }] };
		case 'list':
			return { parameter: fromList(value), items: [{}] };
		case 'typed':
			return { parameter: byMode(typedMode, value), items: [{}] };
	}
}

function byMode(mode: 'id' | 'name', value: string | number) {
	return mode === 'id' ? byId(value) : byName(value as string);
}

/** Every request the server received, API or not, as "METHOD rawPath?rawQuery". */
function everyRequest(phpRank: PhpRankServer): string[] {
	return phpRank.requests.map((request) => `${request.method} ${request.rawPath}${request.rawQuery ? `?${request.rawQuery}` : ''}`);
}

const REPORT_OPERATIONS = [
	{ operation: 'get', method: 'GET', extra: {} },
	{ operation: 'update', method: 'PUT', extra: { updateFields: { privacy: 1 } } },
	{ operation: 'delete', method: 'DELETE', extra: {} },
] as const;

const NOT_REPORT_IDS = [
	'1/../../account',
	'1/../2',
	'../1',
	'1/2',
	'/1',
	'1/',
	'1?x',
	'1?page=2',
	'1#x',
	'%2e%2e',
	'1%2F2',
	'1%3F',
	'%31',
	'1 2',
	'1;x',
	'1\\..\\2',
	'1%00',
	'1\n2',
	'+1',
	'-1',
	'0',
	'00',
	'0x10',
	'1e1',
	'1.0',
	'1.5',
	'٣',
	'３',
	'9007199254740993',
	'',
	' ',
	'.',
	'..',
];

describe('Report IDs in the path', () => {
	describe.each(REPORT_OPERATIONS)('Report > $operation', ({ operation, extra }) => {
		// An empty ID picked from the list is n8n's own required-parameter check (see the typed IDs below).
		const supplied = NOT_REPORT_IDS.flatMap((id) =>
			(id === '' ? (['expression', 'mapped'] as const) : (['expression', 'mapped', 'list'] as const)).map((supply) => [id, supply] as const),
		);
		it.each(supplied)(
			'refuses the ID %p given by %s before any request',
			async (id, supply) => {
				const { parameter, items } = locator(supply, id, 'id');
				const { error } = await runPhpRank(server(), { resource: 'report', operation, reportId: parameter, ...extra }, { items });

				expect(inputErrorOf(error).message).toMatch(/^Report ID must be a positive whole number; got /);
				expect(everyRequest(server())).toEqual([]);
			},
		);

		it.each(NOT_REPORT_IDS)('refuses the typed ID %p before any request, by the ID field\'s rule or in the node', async (id) => {
			let refusal: string;
			try {
				const { error } = await runPhpRank(server(), { resource: 'report', operation, reportId: byId(id), ...extra });
				refusal = inputErrorOf(error).message;
			} catch (thrown) {
				// n8n checks a typed ID against the field's own rule before it runs the node.
				expect(thrown).toBeInstanceOf(WorkflowHasIssuesError);
				refusal = (thrown as Error).message;
			}

			expect(refusal).toMatch(/^Report ID must be a positive whole number|A report ID is a positive whole number|Parameter "Report" is required/);
			expect(everyRequest(server())).toEqual([]);
		});
	});

	it.each([
		[7, 'expression'],
		['7', 'expression'],
		[' 7 ', 'expression'],
		['007', 'expression'],
		['\t7\n', 'mapped'],
		[7, 'mapped'],
		['7', 'list'],
		[7, 'typed'],
		[' 7 ', 'typed'],
	] as const)('sends the ID %p given by %s as /api/v1/reports/7 and nowhere else', async (id, supply) => {
		for (const { operation, method, extra } of REPORT_OPERATIONS) {
			server().reset();
			server().seedReports(12);
			const { parameter, items } = locator(supply, id, 'id');
			const { error } = await runPhpRank(server(), { resource: 'report', operation, reportId: parameter, ...extra }, { items });

			expect(error).toBeUndefined();
			expect(everyRequest(server())).toEqual([`${method} /api/v1/reports/7`]);
		}
	});

	it('sends any text that is a positive whole number to that report, and refuses every other text before any request', async () => {
		const idLike = fc.oneof(
			fc.integer({ min: 1, max: 40 }).map(String),
			fc.tuple(fc.constantFrom('', ' ', '0', '00'), fc.integer({ min: 1, max: 40 }), fc.constantFrom('', ' ', '\t')).map(
				([before, id, after]) => `${before}${id}${after}`,
			),
			fc.tuple(fc.integer({ min: 1, max: 40 }), fc.constantFrom('/', '/..', '?', '#', '%2F', '.', '..', ';', '\\', 'a', '/../account')).map(
				([id, tail]) => `${id}${tail}`,
			),
			fc.string({ maxLength: 8 }),
			fc.string({ unit: 'grapheme', maxLength: 4 }),
		);
		await fc.assert(
			fc.asyncProperty(idLike, fc.constantFrom(...REPORT_OPERATIONS), async (id, { operation, method, extra }) => {
				server().reset();
				server().seedReports(12);
				const { error } = await runPhpRank(server(), {
					resource: 'report',
					operation,
					reportId: byId(`={{ ${JSON.stringify(id)} }}`),
					...extra,
				});

				const number = /^\s*\d+\s*$/.test(id) ? Number(id) : undefined;
				if (number !== undefined && number >= 1) {
					expect(everyRequest(server())).toEqual([`${method} /api/v1/reports/${number}`]);
				} else {
					expect(inputErrorOf(error).message).toMatch(/^Report ID /);
					expect(everyRequest(server())).toEqual([]);
				}
			}),
			{ numRuns: 60, seed: SEED },
		);
	});
});

const PROJECT_NAMES = [
	'a/b',
	'/',
	'//',
	'a/../b',
	'../account',
	'../../api/v1/account',
	'..a',
	'a..',
	'...',
	' .. ',
	'.a',
	'a?b=c',
	'?',
	'a#b',
	'#',
	'with space',
	' leading',
	'trailing ',
	'%',
	'%2F',
	'%2e%2e',
	'%252F',
	'100%',
	'a+b',
	'a&b=c',
	'a;b',
	'a\\b',
	'..\\..\\account',
	'ünïcode.example',
	'日本語.jp',
	'😀',
	'tab\there',
	'new\nline',
	'nul\u0000byte',
	'\u202eright-to-left',
	'x'.repeat(2_000),
];

const PROJECTS_PREFIX = '/api/v1/projects/';

describe('Project names in the path', () => {
	it.each(PROJECT_NAMES.flatMap((name) => (['typed', 'list', 'expression', 'mapped'] as const).map((supply) => [name, supply] as const)))(
		'sends the name %p given by %s as one encoded path segment',
		async (name, supply) => {
			const { parameter, items } = locator(supply, name, 'name');
			const { error } = await runPhpRank(server(), { resource: 'project', operation: 'delete', projectName: parameter }, { items });

			const requests = server().requests;
			expect(everyRequest(server())).toEqual([`DELETE ${PROJECTS_PREFIX}${encodeURIComponent(name)}`]);
			expect(requests[0].path).toBe(`${PROJECTS_PREFIX}${name}`);
			expect(requests[0].rawPath.slice(PROJECTS_PREFIX.length)).not.toMatch(/[/?#]/);
			// phpRank decoded the segment back to the name and found no such project.
			expect(error?.message).toBe(`Project "${name}" was not found (404)`);
		},
	);

	it('deletes the project it is given, found by its exact name', async () => {
		const { items, error } = await runPhpRank(server(), {
			resource: 'project',
			operation: 'delete',
			projectName: byName('={{ "shop.example.org" }}'),
		});

		expect(error).toBeUndefined();
		expect(everyRequest(server())).toEqual([`DELETE ${PROJECTS_PREFIX}shop.example.org`]);
		expect(items.map((item) => item.json)).toEqual([{ deleted: true, id: 'shop.example.org' }]);
	});

	it.each([
		['.', 'expression'],
		['..', 'expression'],
		['.', 'typed'],
		['..', 'list'],
		[' ', 'expression'],
		['\t\n', 'mapped'],
		['', 'expression'],
	] as const)('refuses the name %p given by %s before any request', async (name, supply) => {
		const { parameter, items } = locator(supply, name, 'name');
		const { error } = await runPhpRank(server(), { resource: 'project', operation: 'delete', projectName: parameter }, { items });

		expect(inputErrorOf(error).message).toMatch(/^Project Name /);
		expect(everyRequest(server())).toEqual([]);
	});

	it('sends any name as one segment that decodes back to it, or refuses it before any request', async () => {
		const character = fc.oneof(
			fc.constantFrom('/', '?', '#', '.', '..', '%', '%2F', '\\', ' ', '+', '&', '=', ';', ':', '@'),
			fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
			fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
		);
		await fc.assert(
			fc.asyncProperty(fc.string({ unit: character, maxLength: 12 }), async (name) => {
				server().reset();
				const { error } = await runPhpRank(server(), {
					resource: 'project',
					operation: 'delete',
					projectName: byName('={{ $json.name }}'),
				}, { items: [{ name }] });

				if (name.trim() === '' || name === '.' || name === '..') {
					expect(inputErrorOf(error).message).toMatch(/^Project Name /);
					expect(everyRequest(server())).toEqual([]);
				} else {
					expect(everyRequest(server())).toEqual([`DELETE ${PROJECTS_PREFIX}${encodeURIComponent(name)}`]);
					expect(server().requests[0].path).toBe(`${PROJECTS_PREFIX}${name}`);
				}
			}),
			{ numRuns: 60, seed: SEED },
		);
	});

	// A lone surrogate (half an emoji, or text from broken JSON) has no UTF-8 form, so it cannot be
	// percent-encoded: the node must refuse it as a project name like any other unusable name.
	it.each([
		['\\ud800', 'expression', '\ud800'],
		['a\\udc00b', 'mapped', 'a\udc00b'],
		['half of 😀 (\\ud83d)', 'list', '😀'.slice(0, 1)],
	] as const)('refuses the name %s (a lone surrogate) given by %s with an error naming Project Name, before any request', async (_label, supply, name) => {
		const { parameter, items } = locator(supply, name, 'name');
		const { error } = await runPhpRank(server(), { resource: 'project', operation: 'delete', projectName: parameter }, { items });

		expect(everyRequest(server())).toEqual([]);
		expect(inputErrorOf(error).message).toMatch(/^Project Name /);
	});
});

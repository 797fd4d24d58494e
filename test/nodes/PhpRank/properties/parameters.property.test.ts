/**
 * Every parameter of every operation, fed random values the way n8n users supply them: mostly as
 * expressions (typed literals, or mapped from the input item with `$json`), and as plain values where
 * the parameter type allows. Whatever the values, each run must end in one of three ways:
 *
 * (a) the node refuses the input with a NodeOperationError naming the field, and sends nothing;
 * (b) every request the server received is one the API contract allows;
 * (c) the node fails with a NodeApiError because phpRank answered an error to such a request.
 *
 * n8n's own parameter check (WorkflowHasIssuesError, before the node runs) is accepted only for what it
 * is meant to catch: an empty required parameter, or a plain report ID the ID field's own rule rejects.
 */
import { WorkflowHasIssuesError } from 'n8n-core';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { ExecutionBaseError, IDataObject, INodeExecutionData } from 'n8n-workflow';
import fc from 'fast-check';

import { parseReportTarget } from '../../../../dev/server/reportUrl';
import { apiRequests, runPhpRank, useServer } from '../../../support/phpRank';
import type { PhpRankServer, RecordedRequest } from '../../../support/phpRank';

/**
 * Fixed so that CI runs the same cases every time. Locally, PROPERTY_SEED and PROPERTY_RUNS explore
 * further, and PROPERTY_OUTCOMES=1 prints how the runs ended (refused by field, sent, phpRank's error).
 */
const SEED = Number(process.env.PROPERTY_SEED ?? 20_261_122);
const RUNS = Number(process.env.PROPERTY_RUNS ?? 40);

const PROJECTS = ['example.com', 'shop.example.org', 'blog.example.net', 'news.example.co.uk'];
const SEEDED_REPORTS = 12;

const server = useServer();

function freshServer(): PhpRankServer {
	const phpRank = server();
	phpRank.reset();
	phpRank.seedReports(SEEDED_REPORTS, { projects: PROJECTS });
	return phpRank;
}

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

const LONG_TEXT = [
	'x'.repeat(10_000),
	'ü😀/'.repeat(2_500),
	`https://example.com/${'a/'.repeat(5_000)}`,
	`${'../'.repeat(3_000)}account`,
	' '.repeat(10_000),
];

const AWKWARD_TEXT = [
	'',
	' ',
	' \t\n ',
	'\u00a0',
	'\u200b',
	'\u0000',
	'/',
	'?',
	'#',
	'.',
	'..',
	'...',
	'%',
	'%2F',
	'%2f',
	'%2e%2e',
	'%00',
	'1/../../account',
	'../account',
	'a/b',
	'a?b=c',
	'a#b',
	'a b',
	'a+b',
	'a&b=c',
	'\\',
	'a\\..\\b',
	'ünïcode.example',
	'日本語.jp',
	'😀',
	'null',
	'undefined',
	'NaN',
	'true',
	'false',
	'[object Object]',
	'{{ 1 }}',
	'=1',
	'$json',
	'\ud800',
	'a\udc00b',
	'😀'.slice(0, 1),
];

const text: fc.Arbitrary<string> = fc.oneof(
	{ weight: 4, arbitrary: fc.constantFrom(...AWKWARD_TEXT) },
	{ weight: 3, arbitrary: fc.string({ maxLength: 24 }) },
	{ weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }) },
	{ weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 10 }) },
	// UTF-16 code units, lone surrogates included: what a string from broken JSON or a sliced emoji holds.
	{ weight: 1, arbitrary: fc.string({ unit: fc.char16bits(), maxLength: 6 }) },
	{ weight: 1, arbitrary: fc.constantFrom(...LONG_TEXT) },
);

const number: fc.Arbitrary<number> = fc.oneof(
	fc.integer(),
	fc.integer({ min: -5, max: 150 }),
	fc.double({ noNaN: true }),
	fc.constantFrom(
		0,
		-0,
		-1,
		0.5,
		1.5,
		2.0000001,
		1e21,
		1e300,
		-1e300,
		Number.MAX_SAFE_INTEGER + 2,
		Number.MAX_VALUE,
		Number.MIN_VALUE,
		Infinity,
		-Infinity,
	),
);

const scalar: fc.Arbitrary<unknown> = fc.oneof(text, number, fc.boolean(), fc.constant(null));

const anyValue: fc.Arbitrary<unknown> = fc.oneof(
	{ weight: 4, arbitrary: text },
	{ weight: 3, arbitrary: number },
	{ weight: 1, arbitrary: fc.boolean() },
	{ weight: 1, arbitrary: fc.constant(null) },
	{ weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) },
	{ weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), scalar, { maxKeys: 3 }) },
	{
		weight: 1,
		arbitrary: fc.constantFrom([], {}, [1], ['url'], [2], { value: 3 }, { __rl: true, mode: 'id', value: '3' }),
	},
);

/** Half valid values, half the typos, types and edge cases next to them. */
const validOrNear = (valid: unknown[], near: unknown[]): fc.Arbitrary<unknown> =>
	fc.oneof(fc.constantFrom(...valid), fc.constantFrom(...near));

const PLAUSIBLE = {
	url: fc.oneof(
		fc.webUrl({ validSchemes: ['http', 'https'], withQueryParameters: true, withFragments: true }),
		fc.constantFrom(
			'https://example.com/page',
			' https://example.com/ ',
			'HTTPS://EXAMPLE.COM/A',
			'https://example.com/a b',
			'https://exämple.com/',
			'https://example.com/?q=1#frag',
			'https://user:pw@example.com/',
			'http://127.0.0.1:8080/x',
			'http://[::1]/',
			'https:///example.com',
			'https://unreachable.invalid/',
		),
		fc.constantFrom(
			'example.com',
			'www.example.com/page',
			'//example.com',
			'ftp://example.com',
			'javascript:alert(1)',
			'mailto:ada@example.com',
			'file:///etc/passwd',
			'data:text/html,hi',
			'https://',
			'http://',
			'https:// example.com',
			'https://example.com:99999/',
			// Accepted by WHATWG URL parsing, refused by phpRank's url rule.
			'http:example.com',
			'https:/example.com',
			'http:\\example.com',
			'\u0001https://example.com/',
		),
	),
	privacy: validOrNear([0, 1, 2, '0', '1', '2'], [' 2 ', '02', '2.0', 2.5, -1, 3, 'Password', 'public', '', true]),
	password: validOrNear(['open sesame', ' ', 'pässwörd 😀', 'a'.repeat(300)], ['', 0, 1234, false]),
	reportId: validOrNear([1, 3, 12, '3', ' 3 ', '003', 99999, '99999'], ['1e1', '3.0', 3.5, 0, -3, '0', '-3', '12abc']),
	projectName: validOrNear([...PROJECTS, ' example.com ', 'EXAMPLE.COM', 'nowhere.example', 'a/b', ' .. ', 5], ['.', '..', '']),
	limit: validOrNear([1, 5, 10, 11, 25, 26, 50, 100, 101, 250, '5', ' 7 ', 1e9], [0, -1, 1.5, '1e1', '']),
	returnAll: validOrNear([true, false], ['true', 'false', 1, 0, '', 'yes']),
	search: validOrNear(['example', 'EXAMPLE', 'blog', 'a&b=c#d', '%', ''], [5, true]),
	reportSearchBy: validOrNear(['url'], ['URL', 'project', ' url', '']),
	projectSearchBy: validOrNear(['project'], ['Project', 'url', 'name', '']),
	projectFilter: validOrNear([...PROJECTS, 'nowhere.example', 'x/y?z', '', 5], [true]),
	grade: validOrNear(['good', 'decent', 'bad'], ['Good', 'BAD ', 'great', '', 1]),
	reportSortBy: validOrNear(['id', 'generated_at', 'url', 'result'], ['created_at', 'project', 'ID', '']),
	projectSortBy: validOrNear(['created_at', 'project'], ['id', 'url', 'name', '']),
	sort: validOrNear(['desc', 'asc'], ['DESC', 'ascending', ' asc', '']),
	perPage: validOrNear([10, 25, 50, 100, '10', '25', ' 50 '], [5, 0, 101, 20, 25.5, '', '1e2']),
	reanalyze: validOrNear([true, false, 'true', 'false', 1, 0, '1', '0'], ['yes', '', 2]),
	ifReportExists: validOrNear(['createAnother', 'returnExisting', 'reanalyzeExisting'], ['ReturnExisting', 'return', 'reanalyze', '', 1, true]),
	includePreviousScore: validOrNear([true, false, 'true', 'false', 1, 0], ['yes', '', 2]),
};

// ---------------------------------------------------------------------------------------------
// How a value reaches a parameter
// ---------------------------------------------------------------------------------------------

type Form = 'expression' | 'mapped' | 'plain';
type Kind = 'string' | 'number' | 'boolean' | 'options' | 'locator';

interface ParamSpec {
	/** Where the value sits in the node's parameters, e.g. 'filters.search'. */
	path: string;
	kind: Kind;
	/** The plain value a valid run has; undefined leaves the parameter out. */
	baseline?: unknown;
	/** Display name n8n's required-parameter check names, for required parameters. */
	required?: string;
	plausible: fc.Arbitrary<unknown>;
	/** Resource locator modes. */
	modes?: string[];
}

interface Supply {
	form: Form;
	value: unknown;
	mode?: string;
}

const ABSENT = Symbol('absent');

type Choice = Supply | typeof ABSENT;

/** A JavaScript literal of the value, for a typed expression. */
function literal(value: unknown): string {
	if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
	return JSON.stringify(value);
}

function plainAllowed(kind: Kind, value: unknown): boolean {
	// A plain text starting with "=" is an expression to n8n; it is supplied by mapping instead.
	if (typeof value === 'string' && value.startsWith('=')) return false;
	switch (kind) {
		case 'string':
			return typeof value === 'string';
		case 'number':
			return typeof value === 'number' && Number.isFinite(value);
		case 'boolean':
			return typeof value === 'boolean';
		case 'options':
		case 'locator':
			return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
	}
}

function supplied(spec: ParamSpec): fc.Arbitrary<Supply> {
	return fc
		.record({
			value: fc.oneof({ weight: 3, arbitrary: spec.plausible }, { weight: 2, arbitrary: anyValue }),
			form: fc.constantFrom<Form>('expression', 'mapped', 'plain', 'expression'),
			mode: fc.constantFrom(...(spec.modes ?? ['-'])),
		})
		.map(({ value, form, mode }) => {
			let chosen = form;
			if (chosen === 'plain' && !plainAllowed(spec.kind, value)) chosen = 'expression';
			// "{{" or "}}" inside a typed literal would end the expression early: n8n refuses such an
			// expression itself ("invalid syntax"), so values that hold them are mapped from the item.
			if (chosen === 'expression' && /\{\{|\}\}/.test(literal(value))) chosen = 'mapped';
			return { form: chosen, value, ...(spec.modes ? { mode } : {}) };
		});
}

type Perturb = 'one' | 'some' | 'all';

function baselineOf(spec: ParamSpec): Choice {
	return spec.baseline === undefined ? ABSENT : { form: 'plain', value: spec.baseline, mode: spec.modes?.[1] };
}

/** 'some': each parameter kept, left out or random; 'all': every parameter random. */
function choice(spec: ParamSpec, perturb: 'some' | 'all'): fc.Arbitrary<Choice> {
	if (perturb === 'all') return supplied(spec);
	return fc.oneof(
		{ weight: 5, arbitrary: fc.constant(baselineOf(spec)) },
		{ weight: spec.required ? 0 : 1, arbitrary: fc.constant<Choice>(ABSENT) },
		{ weight: 2, arbitrary: supplied(spec) },
	);
}

function choices(specs: ParamSpec[], perturb: Perturb): fc.Arbitrary<Choice[]> {
	if (perturb !== 'one') return fc.tuple(...specs.map((spec) => choice(spec, perturb)));
	return fc
		.integer({ min: 0, max: specs.length - 1 })
		.chain((random) => fc.tuple(...specs.map((spec, index) => (index === random ? supplied(spec) : fc.constant(baselineOf(spec))))));
}

interface Case {
	parameters: IDataObject;
	items: IDataObject[];
	supplies: Record<string, Supply>;
	continueOnFail: boolean;
}

function setPath(target: IDataObject, path: string, value: unknown): void {
	const keys = path.split('.');
	let at = target;
	for (const key of keys.slice(0, -1)) {
		at[key] ??= {};
		at = at[key] as IDataObject;
	}
	at[keys[keys.length - 1]] = value as IDataObject[string];
}

function buildCase(specs: ParamSpec[], chosen: Choice[], continueOnFail: boolean): Case {
	const parameters: IDataObject = {};
	const item: IDataObject = {};
	const supplies: Record<string, Supply> = {};
	specs.forEach((spec, index) => {
		const supply = chosen[index];
		if (supply === ABSENT) return;
		supplies[spec.path] = supply;
		let value: unknown;
		if (supply.form === 'plain') value = supply.value;
		else if (supply.form === 'expression') value = `={{ ${literal(supply.value)} }}`;
		else {
			item[spec.path] = supply.value as IDataObject[string];
			value = `={{ $json[${JSON.stringify(spec.path)}] }}`;
		}
		setPath(parameters, spec.path, spec.kind === 'locator' ? { __rl: true, mode: supply.mode, value } : value);
	});
	return { parameters, items: [item], supplies, continueOnFail };
}

// ---------------------------------------------------------------------------------------------
// The operations
// ---------------------------------------------------------------------------------------------

const reportIdSpec: ParamSpec = {
	path: 'reportId',
	kind: 'locator',
	baseline: '3',
	required: 'Report',
	plausible: PLAUSIBLE.reportId,
	modes: ['list', 'id'],
};

function listSpecs(resource: 'report' | 'project'): ParamSpec[] {
	const report = resource === 'report';
	return [
		{ path: 'returnAll', kind: 'boolean', baseline: false, plausible: PLAUSIBLE.returnAll },
		{ path: 'limit', kind: 'number', baseline: 5, plausible: PLAUSIBLE.limit },
		{ path: 'filters.search', kind: 'string', plausible: PLAUSIBLE.search },
		{
			path: 'filters.searchBy',
			kind: 'options',
			plausible: report ? PLAUSIBLE.reportSearchBy : PLAUSIBLE.projectSearchBy,
		},
		...(report
			? [
					{ path: 'filters.project', kind: 'options', plausible: PLAUSIBLE.projectFilter } as ParamSpec,
					{ path: 'filters.grade', kind: 'options', plausible: PLAUSIBLE.grade } as ParamSpec,
				]
			: []),
		{ path: 'options.sortBy', kind: 'options', plausible: report ? PLAUSIBLE.reportSortBy : PLAUSIBLE.projectSortBy },
		{ path: 'options.sort', kind: 'options', plausible: PLAUSIBLE.sort },
		{ path: 'options.perPage', kind: 'options', plausible: PLAUSIBLE.perPage },
	];
}

interface Operation {
	resource: 'report' | 'project';
	operation: string;
	specs: ParamSpec[];
	/** Fields the node may name when it refuses this operation's input. */
	fields: string[];
	/** Contract violations of one request of this operation, given the run's inputs. */
	check: (request: RecordedRequest, index: number, all: RecordedRequest[], run: Case) => string[];
	/** Requests one item may take, when more than one: a lookup or a read before the request itself. */
	requestsPerItem?: number;
}

const DUPLICATE_SAFE_CHOICES = ['returnExisting', 'reanalyzeExisting'];

/** A lookup of the created URL: phpRank's search for it in its own form, within its project, sorted by URL. */
function checkLookup(request: RecordedRequest, index: number, all: RecordedRequest[], run: Case): string[] {
	const problems = [...expectRoute(request, 'GET', '/api/v1/reports'), ...expectNoBody(request)];
	if (!DUPLICATE_SAFE_CHOICES.includes(run.supplies.ifReportExists?.value as string)) {
		problems.push(`a lookup with If the URL Already Has a Report ${JSON.stringify(run.supplies.ifReportExists?.value)}`);
	}
	const lookups = all.filter((candidate) => candidate.method === 'GET');
	problems.push(
		...checkListQuery(request, lookups.indexOf(request), lookups, {
			search: 'text',
			search_by: ['url'],
			project: 'text',
			sort_by: ['url'],
			sort: ['asc'],
		}),
	);
	const created = all.find((candidate) => candidate.method === 'POST')?.body.url;
	const target = typeof created === 'string' ? parseReportTarget(created) : undefined;
	if (target && (request.query.search !== target.url || request.query.project !== target.project)) {
		problems.push(`looked up ${request.query.search} in ${request.query.project}, created ${target.url} in ${target.project}`);
	}
	if (index !== 0) problems.push('a lookup after the create');
	return problems;
}

/** The re-analysis of the report the lookup found: nothing but results=1, never privacy or a password. */
function checkReanalysisOfExisting(request: RecordedRequest, index: number, all: RecordedRequest[], run: Case): string[] {
	const problems: string[] = [];
	if (run.supplies.ifReportExists?.value !== 'reanalyzeExisting') problems.push('a re-analysis without Re-Analyze the Existing Report');
	if (!/^\/api\/v1\/reports\/[1-9][0-9]*$/.test(request.rawPath)) problems.push(`re-analysis of ${request.rawPath}`);
	if (index !== 1 || all[0].method !== 'GET' || all[0].status !== 200) problems.push('a re-analysis without a lookup before it');
	if (request.rawBody !== 'results=1') problems.push(`re-analysis sent "${request.rawBody.slice(0, 80)}"`);
	return [...problems, ...expectNoQuery(request)];
}

const OPERATIONS: Operation[] = [
	{
		resource: 'report',
		operation: 'create',
		specs: [
			{ path: 'url', kind: 'string', baseline: 'https://example.com/page', required: 'URL', plausible: PLAUSIBLE.url },
			{ path: 'ifReportExists', kind: 'options', plausible: PLAUSIBLE.ifReportExists },
			{ path: 'privacy', kind: 'options', baseline: 0, plausible: PLAUSIBLE.privacy },
			{ path: 'password', kind: 'string', required: 'Password', plausible: PLAUSIBLE.password },
		],
		fields: ['URL', 'Privacy', 'Password', 'If the URL Already Has a Report'],
		requestsPerItem: 2,
		check: (request, index, all, run) => {
			if (request.method === 'GET') return checkLookup(request, index, all, run);
			if (request.method === 'PUT') return checkReanalysisOfExisting(request, index, all, run);
			return [
				...expectRoute(request, 'POST', '/api/v1/reports'),
				...expectNoQuery(request),
				...expectForm(request, ['url', 'privacy', 'password']),
				...checkUrlField(request.body.url),
				...expectSent(request.body.url, run.supplies.url, 'url', (value) => value.trim()),
				...checkPrivacyAndPassword(request, true),
				...expectSent(request.body.password, run.supplies.password, 'password'),
			];
		},
	},
	{
		resource: 'report',
		operation: 'get',
		specs: [reportIdSpec],
		fields: ['Report ID'],
		check: (request, _index, _all, run) => [
			...expectReportPath(request, 'GET', run.supplies.reportId),
			...expectNoQuery(request),
			...expectNoBody(request),
		],
	},
	{
		resource: 'report',
		operation: 'getAll',
		specs: listSpecs('report'),
		fields: ['Return All', 'Limit', 'Search', 'Search By', 'Project', 'Grade', 'Sort By', 'Sort Order', 'Page Size'],
		check: (request, index, all, run) => [
			...expectRoute(request, 'GET', '/api/v1/reports'),
			...expectNoBody(request),
			...expectSent(request.query.search, run.supplies['filters.search'], 'search'),
			...expectSent(request.query.project, run.supplies['filters.project'], 'project'),
			...checkListQuery(request, index, all, {
				search: 'text',
				search_by: ['url'],
				project: 'text',
				result: ['good', 'decent', 'bad'],
				sort_by: ['id', 'generated_at', 'url', 'result'],
				sort: ['desc', 'asc'],
			}),
		],
	},
	{
		resource: 'report',
		operation: 'update',
		specs: [
			reportIdSpec,
			{ path: 'updateFields.privacy', kind: 'options', baseline: 1, plausible: PLAUSIBLE.privacy },
			{ path: 'updateFields.password', kind: 'string', plausible: PLAUSIBLE.password },
			{ path: 'updateFields.reanalyze', kind: 'boolean', plausible: PLAUSIBLE.reanalyze },
			{ path: 'options.includePreviousScore', kind: 'boolean', plausible: PLAUSIBLE.includePreviousScore },
		],
		fields: ['Report ID', 'Update Fields', 'Privacy', 'Password', 'Re-Analyze', 'Add Previous Score'],
		requestsPerItem: 2,
		check: (request, index, all, run) => {
			if (request.method === 'GET') {
				return [
					...expectReportPath(request, 'GET', run.supplies.reportId),
					...expectNoQuery(request),
					...expectNoBody(request),
					...(index === 0 && all[1]?.rawPath === request.rawPath && all[1]?.body.results === '1'
						? []
						: ['a read that is not followed by the re-analysis of the same report']),
				];
			}
			return [
			...expectReportPath(request, ['PUT', 'PATCH'], run.supplies.reportId),
			...expectNoQuery(request),
			...expectForm(request, ['privacy', 'password', 'results']),
			...(Object.keys(request.body).length === 0 ? ['an update without any field'] : []),
			...checkPrivacyAndPassword(request, false),
			...expectSent(request.body.password, run.supplies['updateFields.password'], 'password'),
			...(request.body.results === undefined || ['0', '1'].includes(request.body.results as string)
				? []
				: [`results=${JSON.stringify(request.body.results)} is not 0 or 1`]),
			];
		},
	},
	{
		resource: 'report',
		operation: 'delete',
		specs: [reportIdSpec],
		fields: ['Report ID'],
		check: (request, _index, _all, run) => [
			...expectReportPath(request, 'DELETE', run.supplies.reportId),
			...expectNoQuery(request),
			...expectNoBody(request),
		],
	},
	{
		resource: 'project',
		operation: 'getAll',
		specs: listSpecs('project'),
		fields: ['Return All', 'Limit', 'Search', 'Search By', 'Sort By', 'Sort Order', 'Page Size'],
		check: (request, index, all, run) => [
			...expectRoute(request, 'GET', '/api/v1/projects'),
			...expectNoBody(request),
			...expectSent(request.query.search, run.supplies['filters.search'], 'search'),
			...checkListQuery(request, index, all, {
				search: 'text',
				search_by: ['project'],
				sort_by: ['created_at', 'project'],
				sort: ['desc', 'asc'],
			}),
		],
	},
	{
		resource: 'project',
		operation: 'delete',
		specs: [
			{
				path: 'projectName',
				kind: 'locator',
				baseline: 'example.com',
				required: 'Project',
				plausible: fc.oneof(PLAUSIBLE.projectName, text),
				modes: ['list', 'name'],
			},
		],
		fields: ['Project Name'],
		check: (request, _index, _all, run) => [
			...expectProjectPath(request, run.supplies.projectName),
			...expectNoQuery(request),
			...expectNoBody(request),
		],
	},
];

// ---------------------------------------------------------------------------------------------
// What the contract allows
// ---------------------------------------------------------------------------------------------

const ALL_FIELDS = [
	'URL',
	'Privacy',
	'Password',
	'Report ID',
	'Project Name',
	'Project',
	'Return All',
	'Limit',
	'Search By',
	'Search',
	'Grade',
	'Sort By',
	'Sort Order',
	'Page Size',
	'Update Fields',
	'Re-Analyze',
	'If the URL Already Has a Report',
	'Add Previous Score',
];

/** The field a refusal names: the longest known field name the message starts with. */
function fieldNamedBy(message: string): string | undefined {
	return ALL_FIELDS.filter((field) => message.startsWith(`${field} `))
		.sort((a, b) => b.length - a.length)
		.at(0);
}

function expectRoute(request: RecordedRequest, method: string | string[], rawPath: string): string[] {
	const problems: string[] = [];
	const methods = ([] as string[]).concat(method);
	if (!methods.includes(request.method)) problems.push(`method ${request.method}, expected ${methods.join(' or ')}`);
	if (request.rawPath !== rawPath) problems.push(`path ${request.rawPath}, expected ${rawPath}`);
	return problems;
}

function expectNoQuery(request: RecordedRequest): string[] {
	return request.rawQuery === '' ? [] : [`unexpected query string "${request.rawQuery.slice(0, 120)}"`];
}

function expectNoBody(request: RecordedRequest): string[] {
	return request.rawBody === '' ? [] : [`unexpected body "${request.rawBody.slice(0, 120)}"`];
}

function expectForm(request: RecordedRequest, allowed: string[]): string[] {
	const problems: string[] = [];
	const type = request.headers['content-type'] ?? '';
	if (!type.startsWith('application/x-www-form-urlencoded')) problems.push(`content type "${type}", expected a form`);
	const keys = [...new URLSearchParams(request.rawBody).keys()];
	if (new Set(keys).size !== keys.length) problems.push(`repeated form fields: ${keys.join(', ')}`);
	const unknown = keys.filter((key) => !allowed.includes(key));
	if (unknown.length) problems.push(`undocumented form fields: ${unknown.join(', ')}`);
	return problems;
}

/** An absolute http(s) URL with its authority: what phpRank's `url` rule accepts. */
function isAbsoluteHttpUrl(value: unknown): boolean {
	if (typeof value !== 'string' || !/^https?:\/\//i.test(value)) return false;
	try {
		const url = new URL(value);
		return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
	} catch {
		return false;
	}
}

function checkUrlField(url: unknown): string[] {
	return isAbsoluteHttpUrl(url) ? [] : [`url=${JSON.stringify(url)?.slice(0, 120)} is not an absolute http(s) URL`];
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * A free-text value that was sent reaches phpRank as given (numbers as their text). Text with a lone
 * surrogate has no UTF-8 form, so it is only required to arrive as something.
 */
function expectSent(
	received: unknown,
	supply: Supply | undefined,
	name: string,
	normalise: (value: string) => string = (value) => value,
): string[] {
	if (received === undefined || supply === undefined) return [];
	const given = typeof supply.value === 'number' ? String(supply.value) : supply.value;
	if (typeof given !== 'string') return [`${name} sent for the value ${JSON.stringify(given)?.slice(0, 80)}`];
	if (LONE_SURROGATE.test(given)) return [];
	return received === normalise(given)
		? []
		: [`${name} arrived as ${JSON.stringify(received)?.slice(0, 80)}, given ${JSON.stringify(given).slice(0, 80)}`];
}

function checkPrivacyAndPassword(request: RecordedRequest, privacyRequired: boolean): string[] {
	const problems: string[] = [];
	const { privacy, password } = request.body;
	if (privacy === undefined ? privacyRequired : !['0', '1', '2'].includes(privacy as string)) {
		problems.push(`privacy=${JSON.stringify(privacy)} is not 0, 1 or 2`);
	}
	if (privacy === '2' && (typeof password !== 'string' || password === '')) problems.push('privacy 2 without a password');
	if (privacy !== '2' && password !== undefined) problems.push(`a password sent with privacy ${JSON.stringify(privacy)}`);
	return problems;
}

/** The report ID a supplied value stands for, when it stands for one. */
function expectedReportId(supply: Supply | undefined): number | undefined {
	const value = supply?.value;
	if (typeof value === 'number') return value;
	if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) return Number(value);
	return undefined;
}

function expectReportPath(request: RecordedRequest, method: string | string[], supply: Supply | undefined): string[] {
	const id = /^\/api\/v1\/reports\/([1-9][0-9]*)$/.exec(request.rawPath)?.[1];
	const methods = ([] as string[]).concat(method);
	const problems = methods.includes(request.method) ? [] : [`method ${request.method}, expected ${methods.join(' or ')}`];
	if (id === undefined || !Number.isSafeInteger(Number(id))) return [...problems, `path ${request.rawPath} is not /api/v1/reports/<positive integer>`];
	const expected = supply === undefined ? 3 : expectedReportId(supply);
	if (expected === undefined) problems.push(`report ${id} requested for the value ${JSON.stringify(supply?.value)}`);
	else if (Number(id) !== expected) problems.push(`report ${id} requested, the parameter said ${expected}`);
	return problems;
}

function expectProjectPath(request: RecordedRequest, supply: Supply | undefined): string[] {
	const problems = request.method === 'DELETE' ? [] : [`method ${request.method}, expected DELETE`];
	const prefix = '/api/v1/projects/';
	if (!request.rawPath.startsWith(prefix)) return [...problems, `path ${request.rawPath} is not under ${prefix}`];
	const segment = request.rawPath.slice(prefix.length);
	if (segment === '' || segment.includes('/')) problems.push(`path ${request.rawPath} is not exactly one segment under ${prefix}`);
	const value = supply === undefined ? 'example.com' : supply.value;
	const name = typeof value === 'number' ? String(value) : value;
	if (typeof name !== 'string') return [...problems, `project deleted for the value ${JSON.stringify(value)}`];
	if (request.rawPath !== prefix + encodeURIComponent(name)) {
		problems.push(`raw path ${request.rawPath.slice(0, 160)} is not ${prefix}${encodeURIComponent(name).slice(0, 120)}`);
	}
	if (request.path !== prefix + name) problems.push(`decoded path ${request.path.slice(0, 160)} is not the project name`);
	return problems;
}

type QueryRules = Record<string, 'text' | string[]>;

/**
 * Where the pages of a list start: phpRank 1.5 (as the bundled server) sorts by id when asked for generated_at, its
 * page 1 says so, and the node reads the list again from page 1, whole at 100, to sort it itself.
 */
function listStart(index: number, all: RecordedRequest[]): number {
	const readAgain =
		all[0].query.sort_by === 'generated_at' && all[0].query.per_page !== '100' && all[1]?.query.page === '1' && all[1].query.per_page === '100';
	return readAgain && index > 0 ? 1 : 0;
}

function checkListQuery(request: RecordedRequest, index: number, all: RecordedRequest[], rules: QueryRules): string[] {
	const problems: string[] = [];
	const start = listStart(index, all);
	const entries = [...new URLSearchParams(request.rawQuery).entries()];
	const keys = entries.map(([key]) => key);
	if (new Set(keys).size !== keys.length) problems.push(`repeated query parameters: ${keys.join(', ')}`);
	for (const [key, value] of entries) {
		if (key === 'per_page') {
			if (!['10', '25', '50', '100'].includes(value)) problems.push(`per_page=${value} is not 10, 25, 50 or 100`);
		} else if (key === 'page') {
			if (value !== String(index - start + 1)) problems.push(`page=${value} on request ${index + 1}: pages must be read in order from 1`);
		} else if (!(key in rules)) {
			problems.push(`undocumented query parameter ${key}`);
		} else if (rules[key] !== 'text' && !(rules[key] as string[]).includes(value)) {
			problems.push(`${key}=${JSON.stringify(value)} is not one of ${(rules[key] as string[]).join(', ')}`);
		}
	}
	if (!keys.includes('per_page')) problems.push('no per_page');
	if (!keys.includes('page')) problems.push('no page');
	const withoutPage = (raw: string) => {
		const query = new URLSearchParams(raw);
		query.delete('page');
		return query.toString();
	};
	const withoutPageSize = (raw: string) => {
		const query = new URLSearchParams(raw);
		query.delete('per_page');
		return query.toString();
	};
	if (index > start && withoutPage(request.rawQuery) !== withoutPage(all[start].rawQuery)) {
		problems.push(`page ${index + 1} asks for a different list than page 1`);
	}
	if (start === 1 && index === 1 && withoutPageSize(request.rawQuery) !== withoutPageSize(all[0].rawQuery)) {
		problems.push('the list read again whole is not the list asked for');
	}
	return problems;
}

function expectAuthenticated(request: RecordedRequest, phpRank: PhpRankServer): string[] {
	const problems: string[] = [];
	if (request.headers.authorization !== `Bearer ${phpRank.apiKey}`) problems.push('no Bearer authorization');
	if (!(request.headers.accept ?? '').includes('application/json')) problems.push('no Accept: application/json');
	return problems;
}

// ---------------------------------------------------------------------------------------------
// One run, judged
// ---------------------------------------------------------------------------------------------

/**
 * The issues n8n's own parameter check may raise for this case: required values left empty as plain
 * values, and plain IDs the ID field's rule rejects. Create's Password is required only while it is
 * shown, that is for a plain Privacy of 2 (Password); a Privacy given by expression may resolve to 0 or 1.
 */
function allowedIssues(operation: Operation, run: Case): string[] {
	const allowed: string[] = [];
	for (const spec of operation.specs) {
		const supply = run.supplies[spec.path];
		if (spec.path === 'password') {
			const privacy = run.supplies.privacy;
			const shown = privacy?.form === 'plain' && privacy.value === 2;
			if (shown && (supply === undefined || (supply.form === 'plain' && supply.value === ''))) {
				allowed.push(`Parameter "${spec.required}" is required.`);
			}
			continue;
		}
		if (supply?.form !== 'plain') continue;
		if (spec.required && supply.value === '') allowed.push(`Parameter "${spec.required}" is required.`);
		if (spec.path === 'reportId' && supply.mode === 'id' && !/^\s*[1-9][0-9]*\s*$/.test(String(supply.value))) {
			allowed.push('A report ID is a positive whole number');
		}
	}
	return allowed;
}

const URL_PARAMETERS = ['reportId', 'projectName', 'filters.search', 'filters.project'];

/** The length of a value percent-encoded, counting a lone surrogate as its replacement character. */
function encodedLength(value: string): number {
	let length = 0;
	for (const character of value) {
		if (/^[A-Za-z0-9\-_.!~*'()]$/.test(character)) length += 1;
		else length += 3 * Buffer.byteLength(character.length === 1 && /[\ud800-\udfff]/.test(character) ? '\ufffd' : character);
	}
	return length;
}

/** Whether the values that go into the address make it longer than Node's HTTP server reads (16 KiB). */
function urlOverServerLimit(run: Case): boolean {
	const values = URL_PARAMETERS.map((path) => run.supplies[path]?.value).filter((value): value is string => typeof value === 'string');
	return values.reduce((total, value) => total + encodedLength(value), 0) > 15 * 1024;
}

function describeCase(run: Case): string {
	return JSON.stringify({ parameters: run.parameters, item: run.items[0], continueOnFail: run.continueOnFail }, (_key, value: unknown) =>
		typeof value === 'string' && value.length > 200 ? `${value.slice(0, 60)}…(${value.length} chars)` : value,
	);
}

function failureOf(items: INodeExecutionData[], error: ExecutionBaseError | undefined): ExecutionBaseError | undefined {
	return error ?? items.find((item) => item.error !== undefined)?.error;
}

const outcomes = new Map<string, number>();

function count(operation: Operation, outcome: string): void {
	const key = `${operation.resource}.${operation.operation}: ${outcome}`;
	outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
}

async function judge(operation: Operation, run: Case): Promise<void> {
	const phpRank = freshServer();
	const parameters = { resource: operation.resource, operation: operation.operation, ...run.parameters };
	const context = () => `\n  case: ${describeCase(run)}\n  requests: ${apiRequests(phpRank)
		.map((request) => `${request.method} ${request.rawPath.slice(0, 160)}?${request.rawQuery.slice(0, 160)} ${request.rawBody.slice(0, 160)} -> ${request.status}`)
		.join(' | ')}`;

	let result;
	try {
		result = await runPhpRank(phpRank, parameters, { items: run.items, continueOnFail: run.continueOnFail });
	} catch (thrown) {
		if (!(thrown instanceof WorkflowHasIssuesError)) {
			throw new Error(`the run threw ${(thrown as Error)?.constructor?.name}: ${(thrown as Error)?.message}${context()}`);
		}
		const issues = thrown.message.split('\n').filter((line) => line.startsWith('- ')).map((line) => line.slice(2));
		const allowed = allowedIssues(operation, run);
		const unexpected = issues.filter((issue) => !allowed.includes(issue));
		if (unexpected.length > 0) throw new Error(`n8n refused to start the run: ${unexpected.join('; ')}${context()}`);
		if (phpRank.requests.length > 0) throw new Error(`requests were sent although n8n refused the run${context()}`);
		count(operation, "n8n's parameter check");
		return;
	}

	const requests = phpRank.requests;
	const failure = failureOf(result.items, result.error);
	const inputError =
		failure instanceof NodeOperationError ? failure : failure?.cause instanceof NodeOperationError ? failure.cause : undefined;

	if (inputError) {
		// (a) refused, naming a field of this operation, before any request.
		const field = fieldNamedBy(inputError.message);
		if (field === undefined || !operation.fields.includes(field)) {
			throw new Error(`the refusal "${inputError.message.slice(0, 200)}" names no field of this operation${context()}`);
		}
		if (requests.length > 0) throw new Error(`"${inputError.message.slice(0, 200)}" came after requests were sent${context()}`);
		if (run.continueOnFail && (result.items.length !== 1 || result.items[0].json.error === undefined)) {
			throw new Error(`with Continue On Fail the refusal must become one error item${context()}`);
		}
		count(operation, `refused: ${field}`);
		return;
	}

	if (failure !== undefined && !(failure instanceof NodeApiError)) {
		throw new Error(`the node failed with ${failure.constructor.name}: ${failure.message}${context()}`);
	}

	// (b) and (c): whatever was sent must be what the contract allows.
	if (requests.length === 0 && failure !== undefined && (failure as NodeApiError).httpCode === '431' && urlOverServerLimit(run)) {
		// Node's HTTP server refuses a request line over 16 KiB before the bundled server sees it.
		count(operation, 'address too long for the server (431)');
		return;
	}
	if (requests.length === 0) {
		throw new Error(`${failure ? `"${failure.message}"` : 'success'} without any request${context()}`);
	}
	const problems = requests.flatMap((request, index) => [
		...operation.check(request, index, requests, run),
		...expectAuthenticated(request, phpRank),
	]);
	if (problems.length > 0) throw new Error(`requests outside the contract: ${problems.join('; ')}${context()}`);
	if (operation.operation !== 'getAll' && requests.length > (operation.requestsPerItem ?? 1)) {
		throw new Error(`${requests.length} requests for one item${context()}`);
	}

	if (failure !== undefined) {
		// (c) only because phpRank answered an error to the last request.
		const last = requests[requests.length - 1];
		const httpCode = (failure as NodeApiError).httpCode;
		if (last.status === undefined || last.status < 400 || httpCode !== String(last.status)) {
			throw new Error(
				`NodeApiError "${failure.message}" (httpCode ${httpCode}) although phpRank answered ${last.status}${context()}`,
			);
		}
		count(operation, `phpRank answered ${last.status}`);
		return;
	}
	count(operation, 'sent');
}

function caseArbitrary(operation: Operation, perturb: Perturb): fc.Arbitrary<Case> {
	return fc
		.tuple(choices(operation.specs, perturb), fc.boolean())
		.map(([chosen, continueOnFail]) => buildCase(operation.specs, chosen, continueOnFail));
}

/**
 * Runs the property and collects every run that breaks the rules instead of stopping at the first,
 * so that one run of the suite shows every distinct problem, each with a case that reproduces it.
 */
async function expectAllRunsAllowed(operation: Operation, perturb: Perturb, seed: number): Promise<void> {
	const broken: string[] = [];
	await fc.assert(
		fc.asyncProperty(caseArbitrary(operation, perturb), async (run) => {
			try {
				await judge(operation, run);
			} catch (error) {
				broken.push((error as Error).message);
			}
		}),
		{ numRuns: RUNS, seed },
	);
	const distinct = [...new Map(broken.map((message) => [message.split('\n')[0].replace(/"[^"]*"|\d+/g, '…'), message])).values()];
	expect(distinct).toEqual([]);
}

describe.each(OPERATIONS)('$resource > $operation with random parameter values', (operation) => {
	it("refuses naming the field, sends only what the contract allows, or reports phpRank's error: one parameter random", async () => {
		await expectAllRunsAllowed(operation, 'one', SEED);
	});

	it('does the same with some parameters random, the others valid or left out', async () => {
		await expectAllRunsAllowed(operation, 'some', SEED + 1);
	});

	it('does the same with every parameter random at once', async () => {
		await expectAllRunsAllowed(operation, 'all', SEED + 2);
	});
});

afterAll(() => {
	if (process.env.PROPERTY_OUTCOMES) {
		process.stdout.write(`${[...outcomes].map(([key, times]) => `${key} ×${times}`).sort().join('\n')}\n`);
	}
});

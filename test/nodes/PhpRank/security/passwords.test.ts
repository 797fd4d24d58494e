/**
 * A report page password leaves the node only together with privacy Password (2), and only towards
 * phpRank: never with another privacy, never in the items, error messages, descriptions or logs a run
 * produces, also when phpRank or the network fails on the request that carried it.
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { ExecutionBaseError, IDataObject } from 'n8n-workflow';

import { logsToText, producedText } from '../../../../dev/engine';
import type { RunNodeResult } from '../../../../dev/engine';
import { apiRequests, byId, inputErrorOf, runPhpRank, useServer } from '../../../support/phpRank';
import type { PhpRankServer, RecordedRequest } from '../../../support/phpRank';
import type { Fault } from '../../../../dev/server';

const server = useServer({}, (phpRank) => phpRank.seedReports(5));

let secrets = 0;
/** A password unique to the test, with characters that form encoding changes. */
function newSecret(): string {
	secrets += 1;
	return `Pw ${secrets}+zQ7!&=%/ü`;
}

/** The password as it may appear: raw, form-encoded or URL-encoded. */
function spellings(secret: string): string[] {
	return [secret, new URLSearchParams({ p: secret }).toString().slice(2), encodeURIComponent(secret)];
}

function expectNotIn(text: string, secret: string, where: string): void {
	for (const spelling of spellings(secret)) {
		if (text.includes(spelling)) throw new Error(`the password appears in ${where}: …${text.slice(Math.max(0, text.indexOf(spelling) - 200), text.indexOf(spelling) + 80)}…`);
	}
}

function expectNotSent(request: RecordedRequest, secret: string): void {
	expect(request.body).not.toHaveProperty('password');
	expectNotIn(`${request.rawPath}?${request.rawQuery}\n${request.rawBody}`, secret, 'the request');
}

function failureOf(result: RunNodeResult): ExecutionBaseError | undefined {
	return result.error ?? result.items.find((item) => item.error !== undefined)?.error;
}

/**
 * n8n's routing engine reports an input refusal (without Continue On Fail) as a NodeApiError it builds
 * around the node's NodeOperationError, with the node definition as stored in the workflow, which n8n
 * also keeps in every execution's workflow data; the engine logs that error at debug level. The node's
 * own errors carry the node with the password hidden.
 */
function isEngineWrappedRefusal(result: RunNodeResult): boolean {
	return result.error instanceof NodeApiError && result.error.cause instanceof NodeOperationError;
}

function logsOutsideEngineWrapper(result: RunNodeResult): string {
	const engineLines = isEngineWrappedRefusal(result) ? ['Workflow execution finished with error'] : [];
	return logsToText(result.logs.filter((line) => !engineLines.includes(line.message)));
}

/** What users see and what is logged: output items, the error's message and description, log lines. */
function expectNotShown(result: RunNodeResult, secret: string): void {
	expectNotIn(JSON.stringify(result.items.map((item) => item.json)), secret, 'the output items');
	const failure = failureOf(result);
	for (const error of [failure, failure?.cause as ExecutionBaseError | undefined]) {
		expectNotIn(error?.message ?? '', secret, 'the error message');
		expectNotIn(String(error?.description ?? ''), secret, 'the error description');
	}
	const ownError = isEngineWrappedRefusal(result) ? (result.error?.cause as NodeOperationError) : failure;
	if (ownError) expectNotIn(JSON.stringify((ownError as { node?: unknown }).node ?? {}), secret, "the node the node's own error carries");
	expectNotIn(logsOutsideEngineWrapper(result), secret, 'the logs');
	for (const item of result.items) {
		if (item.json.password !== undefined) expect(typeof item.json.password).toBe('boolean');
	}
}

interface Supplied {
	value: unknown;
	item?: IDataObject;
}

const PRIVACY_FORMS: Array<[string, (privacy: number) => Supplied]> = [
	['a plain value', (privacy) => ({ value: privacy })],
	['an expression giving a number', (privacy) => ({ value: `={{ ${privacy} }}` })],
	['an expression giving text', (privacy) => ({ value: `={{ "${privacy}" }}` })],
	['a number mapped from the item', (privacy) => ({ value: '={{ $json.privacy }}', item: { privacy } })],
	['a text mapped from the item', (privacy) => ({ value: '={{ $json.privacy }}', item: { privacy: String(privacy) } })],
];

const MATRIX = [0, 1, 2].flatMap((privacy) => PRIVACY_FORMS.map(([form, supply]) => [privacy, form, supply] as const));

function create(privacy: Supplied, password: unknown) {
	return {
		parameters: { resource: 'report', operation: 'create', url: 'https://example.com/members', privacy: privacy.value, password },
		items: [{ ...privacy.item }],
	};
}

function update(privacy: Supplied, password: unknown) {
	return {
		parameters: { resource: 'report', operation: 'update', reportId: byId('3'), updateFields: { privacy: privacy.value, password } },
		items: [{ ...privacy.item }],
	};
}

function storedPassword(phpRank: PhpRankServer, id: number): string | null | undefined {
	return phpRank.reports().find((report) => report.id === id)?.password;
}

describe('Report > Create', () => {
	it.each(MATRIX)('with privacy %s given as %s sends the password only for 2 and never shows it', async (privacy, _form, supply) => {
		const secret = newSecret();
		const { parameters, items } = create(supply(privacy), secret);
		const result = await runPhpRank(server(), parameters, { items });

		expect(result.error).toBeUndefined();
		const requests = apiRequests(server());
		expect(requests.map((request) => `${request.method} ${request.rawPath}`)).toEqual(['POST /api/v1/reports']);
		expect(requests[0].body.privacy).toBe(String(privacy));
		if (privacy === 2) {
			expect(requests[0].body.password).toBe(secret);
		} else {
			expectNotSent(requests[0], secret);
		}
		expect(server().reports().at(-1)?.password).toBe(privacy === 2 ? secret : null);
		expectNotShown(result, secret);
		expectNotIn(producedText(result), secret, 'the run data');
	});

	it.each([
		['an expression', (secret: string) => ({ password: `={{ ${JSON.stringify(secret)} }}`, item: {} })],
		['a mapping from the item', (secret: string) => ({ password: '={{ $json.secret }}', item: { secret } })],
	])('sends a password given by %s, exactly as given, with privacy 2', async (_form, supply) => {
		const secret = newSecret();
		const { password, item } = supply(secret);
		const result = await runPhpRank(
			server(),
			{ resource: 'report', operation: 'create', url: 'https://example.com/members', privacy: '={{ 2 }}', password },
			{ items: [item] },
		);

		expect(result.error).toBeUndefined();
		expect(apiRequests(server())[0].body).toEqual({ url: 'https://example.com/members', privacy: '2', password: secret });
		expectNotShown(result, secret);
	});

	it('sends each item its own password, and none with the items whose privacy is not 2', async () => {
		const secrets = [newSecret(), newSecret(), newSecret()];
		const result = await runPhpRank(
			server(),
			{
				resource: 'report',
				operation: 'create',
				url: '={{ $json.url }}',
				privacy: '={{ $json.privacy }}',
				password: '={{ $json.secret }}',
			},
			{
				items: [
					{ url: 'https://example.com/a', privacy: 2, secret: secrets[0] },
					{ url: 'https://example.com/b', privacy: 0, secret: secrets[1] },
					{ url: 'https://example.com/c', privacy: 1, secret: secrets[2] },
				],
			},
		);

		expect(result.error).toBeUndefined();
		const byUrl = Object.fromEntries(apiRequests(server()).map((request) => [request.body.url, request]));
		expect(byUrl['https://example.com/a'].body.password).toBe(secrets[0]);
		expectNotSent(byUrl['https://example.com/b'], secrets[1]);
		expectNotSent(byUrl['https://example.com/c'], secrets[2]);
		for (const secret of secrets) expectNotShown(result, secret);
	});

	it.each([
		['={{ 3 }}'],
		['={{ -1 }}'],
		['={{ "Password" }}'],
		['={{ "02" }}'],
		['={{ 2.5 }}'],
		['={{ true }}'],
		['={{ [2] }}'],
	])('refuses privacy %s with a password before any request, without showing the password', async (privacy) => {
		const secret = newSecret();
		const result = await runPhpRank(server(), create({ value: privacy }, secret).parameters);

		expect(inputErrorOf(result.error).message).toMatch(/^Privacy must be one of: 0 \(Public\), 1 \(Private\), 2 \(Password\); got /);
		expect(apiRequests(server())).toEqual([]);
		expectNotShown(result, secret);
	});

	// Only privacy 2 needs a password. A privacy mapped from data (0 or 1 on most rows) must not make
	// the empty Password field block the run: the node itself refuses privacy 2 without a password.
	it.each([
		['an expression giving 0', '={{ 0 }}', {}, '0'],
		['an expression giving 1', '={{ 1 }}', {}, '1'],
		['a mapping from the item', '={{ $json.privacy }}', { privacy: 0 }, '0'],
	])('runs with privacy given by %s and no password, sending no password', async (_form, privacy, item, sent) => {
		const result = await runPhpRank(
			server(),
			{ resource: 'report', operation: 'create', url: 'https://example.com/members', privacy },
			{ items: [item] },
		);

		expect(result.error).toBeUndefined();
		expect(apiRequests(server()).map((request) => request.body)).toEqual([{ url: 'https://example.com/members', privacy: sent }]);
	});
});

describe('Report > Update', () => {
	it.each(MATRIX)('with privacy %s given as %s sends the password only for 2, refuses it otherwise, and never shows it', async (privacy, _form, supply) => {
		const secret = newSecret();
		const { parameters, items } = update(supply(privacy), secret);
		const result = await runPhpRank(server(), parameters, { items });

		if (privacy === 2) {
			expect(result.error).toBeUndefined();
			const requests = apiRequests(server());
			expect(requests.map((request) => `${request.method} ${request.rawPath}`)).toEqual(['PUT /api/v1/reports/3']);
			expect(requests[0].body).toEqual({ privacy: '2', password: secret });
			expect(storedPassword(server(), 3)).toBe(secret);
			expectNotIn(producedText(result), secret, 'the run data');
		} else {
			expect(inputErrorOf(result.error).message).toBe('Password can only be set together with Privacy: Password (2)');
			expect(apiRequests(server())).toEqual([]);
		}
		expectNotShown(result, secret);
	});

	it('refuses a password without any privacy before any request', async () => {
		const secret = newSecret();
		const result = await runPhpRank(server(), {
			resource: 'report',
			operation: 'update',
			reportId: byId('3'),
			updateFields: { password: secret, reanalyze: true },
		});

		expect(inputErrorOf(result.error).message).toBe('Password can only be set together with Privacy: Password (2)');
		expect(apiRequests(server())).toEqual([]);
		expectNotShown(result, secret);
	});

	it.each([["''", ''], ['an expression giving an empty text', '={{ "" }}'], ['an expression giving a number', '={{ 1234 }}']])(
		'refuses privacy 2 with the password %s before any request',
		async (_label, password) => {
			const result = await runPhpRank(server(), update({ value: 2 }, password).parameters);

			expect(inputErrorOf(result.error).message).toBe('Password is required when Privacy is Password (2)');
			expect(apiRequests(server())).toEqual([]);
		},
	);
});

const FAULTS: Array<[string, Pick<Fault, 'kind'> & Partial<Fault>]> = [
	['422 with phpRank\'s validation messages', { kind: 'status', status: 422, body: { message: { password: ['The password field is required.'] }, status: 422 } }],
	['500 with phpRank\'s message', { kind: 'status', status: 500 }],
	['500 with an empty body', { kind: 'empty', status: 500 }],
	['500 with an HTML page', { kind: 'html', status: 500 }],
	['200 with broken JSON', { kind: 'malformedJson' }],
	['a redirect to the login page', { kind: 'redirectLogin' }],
	['a dropped connection', { kind: 'drop' }],
];

const OPERATIONS_WITH_A_PASSWORD = [
	{
		name: 'Create',
		path: '/api/v1/reports',
		method: 'POST',
		parameters: (secret: string) => create({ value: 2 }, secret).parameters,
	},
	{
		name: 'Update',
		path: '/api/v1/reports/3',
		method: 'PUT',
		parameters: (secret: string) => update({ value: 2 }, secret).parameters,
	},
];

async function runAgainstFault(
	operation: (typeof OPERATIONS_WITH_A_PASSWORD)[number],
	fault: Pick<Fault, 'kind'> & Partial<Fault>,
	secret: string,
	continueOnFail: boolean,
): Promise<RunNodeResult> {
	server().injectFault({ ...fault, path: operation.path, method: operation.method, times: Infinity } as Fault);
	const result = await runPhpRank(server(), operation.parameters(secret), { continueOnFail });

	// The password did go to phpRank: privacy is 2. What matters is what comes back. After phpRank's own 500 a probe
	// (GET /account) tells whether phpRank fails every request: it carries no password.
	const requests = apiRequests(server()).filter((request) => request.method === operation.method);
	expect(requests.length).toBeGreaterThan(0);
	for (const request of requests) expect(request.body).toEqual({ ...request.body, privacy: '2', password: secret });
	expect(failureOf(result)).toBeInstanceOf(NodeApiError);
	return result;
}

describe.each(OPERATIONS_WITH_A_PASSWORD)('Report > $name when phpRank or the network fails', (operation) => {
	it.each(FAULTS.flatMap(([label, fault]) => [false, true].map((continueOnFail) => [label, continueOnFail, fault] as const)))(
		'shows no password in items, messages, descriptions or logs after %s (Continue On Fail: %s)',
		async (_label, continueOnFail, fault) => {
			const secret = newSecret();
			const result = await runAgainstFault(operation, fault, secret, continueOnFail);

			expectNotShown(result, secret);
		},
	);
});

// Everything a run produced, as n8n keeps it in the execution: run data, the error as stored, logs.
describe('the password in everything a run produced', () => {
	it.each(OPERATIONS_WITH_A_PASSWORD.flatMap((operation) => FAULTS.slice(0, 2).concat(FAULTS.slice(-1)).map(([label, fault]) => [operation.name, label, operation, fault] as const)))(
		'Report > %s: appears nowhere after %s',
		async (_name, _label, operation, fault) => {
			const secret = newSecret();
			const result = await runAgainstFault(operation, fault, secret, false);

			expectNotIn(producedText(result), secret, 'what the run produced');
		},
	);

	// Switching the Password field to an expression and typing the password into it is still typing it.
	it('Report > Create: a password typed into an expression appears nowhere after 500', async () => {
		const secret = newSecret();
		server().injectFault({ path: '/api/v1/reports', method: 'POST', kind: 'status', status: 500, times: Infinity });
		const result = await runPhpRank(server(), create({ value: 2 }, `={{ ${JSON.stringify(secret)} }}`).parameters);

		expect(apiRequests(server())[0].body.password).toBe(secret);
		expect(failureOf(result)).toBeInstanceOf(NodeApiError);
		expectNotShown(result, secret);
		expectNotIn(producedText(result), secret, 'what the run produced');
	});

	it.each([
		['Create with an invalid URL', { resource: 'report', operation: 'create', url: 'example.com', privacy: 2 }, 'password'],
		['Update with privacy 1', { resource: 'report', operation: 'update', reportId: byId('3'), updateFields: { privacy: 1 } }, 'updateFields.password'],
	] as const)('%s: appears in nothing the node produces when it refuses the input', async (_label, base, at) => {
		const secret = newSecret();
		const parameters: IDataObject = JSON.parse(JSON.stringify(base)) as IDataObject;
		if (at === 'password') parameters.password = secret;
		else (parameters.updateFields as IDataObject).password = secret;
		const result = await runPhpRank(server(), parameters);

		expect(inputErrorOf(result.error)).toBeDefined();
		expect(apiRequests(server())).toEqual([]);
		expectNotShown(result, secret);

		const continued = await runPhpRank(server(), parameters, { continueOnFail: true });
		expect(continued.items[0].error).toBeInstanceOf(NodeOperationError);
		expectNotIn(producedText(continued), secret, 'what the run produced under Continue On Fail');
	});
});

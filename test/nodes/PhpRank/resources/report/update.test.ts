import { apiRequests, byId, changedChecksOnServer, failedCheckNamesOnServer, failedChecksOnServer, inputErrorOf, requestLines, runPhpRank, useServer } from '../../../../support/phpRank';

const server = useServer({}, (phpRank) => phpRank.seedReports(5));

const update = (updateFields: Record<string, unknown>, reportId: unknown = byId('3')) => ({
	resource: 'report',
	operation: 'update',
	reportId,
	updateFields,
});

describe('Report > Update', () => {
	it('changes the privacy with a form PUT and outputs the updated report with its grade', async () => {
		const { items, error } = await runPhpRank(server(), update({ privacy: 1 }));

		expect(error).toBeUndefined();
		const requests = apiRequests(server());
		expect(requests.map((request) => `${request.method} ${request.rawPath}`)).toEqual(['PUT /api/v1/reports/3']);
		expect(requests[0].headers['content-type']).toBe('application/x-www-form-urlencoded');
		expect(requests[0].body).toEqual({ privacy: '1' });
		expect(server().reports().find((report) => report.id === 3)?.privacy).toBe(1);
		expect(items[0].json).toMatchObject({ id: 3, privacy: '1' });
		expect(['good', 'decent', 'bad']).toContain(items[0].json.grade);
	});

	it('sets a password together with privacy Password and never outputs it', async () => {
		const { items, error } = await runPhpRank(server(), update({ privacy: 2, password: 'n3w pass' }));

		expect(error).toBeUndefined();
		expect(apiRequests(server())[0].body).toEqual({ privacy: '2', password: 'n3w pass' });
		expect(server().reports().find((report) => report.id === 3)?.password).toBe('n3w pass');
		expect(JSON.stringify(items)).not.toContain('n3w pass');
	});

	it.each([
		[true, '1'],
		[false, '0'],
	])('sends Re-Analyze %s as results=%s', async (reanalyze, results) => {
		const before = server().reports().find((report) => report.id === 3)!;
		const { items, error } = await runPhpRank(server(), update({ reanalyze }));

		expect(error).toBeUndefined();
		expect(apiRequests(server())[0].body).toEqual({ results });
		const after = server().reports().find((report) => report.id === 3)!;
		if (reanalyze) expect(after.generatedAt >= before.generatedAt).toBe(true);
		expect(items[0].json.id).toBe(3);
	});

	it('refuses a password without privacy Password', async () => {
		const { error } = await runPhpRank(server(), update({ privacy: 1, password: 'secret' }));

		expect(inputErrorOf(error).message).toBe('Password can only be set together with Privacy: Password (2)');
		expect(apiRequests(server())).toHaveLength(0);
	});

	it('refuses privacy Password without a password', async () => {
		const { error } = await runPhpRank(server(), update({ privacy: 2 }));

		expect(inputErrorOf(error).message).toBe('Password is required when Privacy is Password (2)');
		expect(apiRequests(server())).toHaveLength(0);
	});

	it('refuses an update with no fields', async () => {
		const { error } = await runPhpRank(server(), update({}));

		expect(inputErrorOf(error).message).toBe('Update Fields is empty: add Privacy, Password or Re-Analyze');
		expect(apiRequests(server())).toHaveLength(0);
	});

	it('explains the 403 phpRank answers for a report that is missing or not the key owner\'s', async () => {
		const { error } = await runPhpRank(server(), update({ privacy: 1 }, byId('404')));

		expect(error?.message).toBe(
			'Report 404 does not exist or does not belong to the account of this API key (403)',
		);
		expect((error as { httpCode?: string }).httpCode).toBe('403');
	});
});

const gradeOf = (score: number) => (score > 79 ? 'good' : score >= 49 ? 'decent' : 'bad');
const stored = (id: number) => server().reports().find((report) => report.id === id)!;

describe('Report > Update: Add Previous Score', () => {
	it('reads the report once before re-analyzing it, and adds the previous score, grade and change after the grade', async () => {
		const before = stored(3);
		server().changePage(before.url, { quality: 0 });

		const { items, error } = await runPhpRank(server(), {
			...update({ reanalyze: true }),
			options: { includePreviousScore: true },
		});

		expect(error).toBeUndefined();
		expect(requestLines(server())).toEqual(['GET /api/v1/reports/3', 'PUT /api/v1/reports/3']);
		expect(apiRequests(server())[0].rawBody).toBe('');
		const after = stored(3);
		expect(after.result).toBeLessThan(before.result);
		expect(items[0].json).toMatchObject({
			id: 3,
			result: after.result,
			grade: gradeOf(after.result),
			previousResult: before.result,
			previousGrade: gradeOf(before.result),
			resultChange: after.result - before.result,
		});
		expect(Object.keys(items[0].json).slice(3, 14)).toEqual([
			'result',
			'grade',
			'previousResult',
			'previousGrade',
			'resultChange',
			'newlyFailedChecks',
			'newlyFailedCheckNames',
			'fixedChecks',
			'fixedCheckNames',
			'failedChecks',
			'failedCheckNames',
		]);
		expect(items[0].json.failedChecks).toEqual(failedChecksOnServer(after));
		expect(items[0].json.failedCheckNames).toEqual(failedCheckNamesOnServer(after));
		const changed = changedChecksOnServer(before, after);
		expect(changed.newlyFailedChecks.high.length).toBeGreaterThan(0);
		expect(items[0].json).toMatchObject(changed);
		expect(items[0].json).not.toHaveProperty('outcome');
	});

	it('says how far a page that got better moved', async () => {
		const before = stored(3);
		server().changePage(before.url, { quality: 1 });

		const { items } = await runPhpRank(server(), { ...update({ reanalyze: true }), options: { includePreviousScore: true } });

		expect(items[0].json).toMatchObject({ previousResult: before.result, resultChange: stored(3).result - before.result });
		expect(items[0].json.resultChange).toBeGreaterThan(0);
		expect(items[0].json.failedChecks).toEqual({ high: before.targetUrl.startsWith('https:') ? [] : ['https_encryption'], medium: [], low: [] });
		expect(items[0].json.failedCheckNames).toEqual({ high: before.targetUrl.startsWith('https:') ? [] : ['HTTPS encryption'], medium: [], low: [] });
		expect(items[0].json.newlyFailedChecks).toEqual({ high: [], medium: [], low: [] });
		expect(items[0].json.newlyFailedCheckNames).toEqual({ high: [], medium: [], low: [] });
		expect(items[0].json.fixedChecks).toEqual(changedChecksOnServer(before, stored(3)).fixedChecks);
		expect(items[0].json.fixedCheckNames).toEqual(changedChecksOnServer(before, stored(3)).fixedCheckNames);
		expect((items[0].json.fixedChecks as { medium: string[] }).medium.length).toBeGreaterThan(0);
	});

	it('names newly failing and fixed checks a newer phpRank added by their ids made readable', async () => {
		const answer = (results: object) => ({ kind: 'status' as const, status: 200, body: { data: { id: 3, url: 'example.com/', result: 50, results }, status: 200 } });
		server().injectFault({ method: 'GET', path: '/api/v1/reports/3', ...answer({ core_web_vitals: { passed: true, importance: 'high' }, old_check: { passed: false, importance: 'low' }, title: { passed: true, importance: 'high' } }) });
		server().injectFault({ method: 'PUT', path: '/api/v1/reports/3', ...answer({ core_web_vitals: { passed: false, importance: 'high' }, old_check: { passed: true, importance: 'low' }, title: { passed: false, importance: 'high' } }) });

		const { items, error } = await runPhpRank(server(), { ...update({ reanalyze: true }), options: { includePreviousScore: true } });

		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({
			newlyFailedChecks: { high: ['core_web_vitals', 'title'], medium: [], low: [] },
			newlyFailedCheckNames: { high: ['Core web vitals', 'Title'], medium: [], low: [] },
			fixedChecks: { high: [], medium: [], low: ['old_check'] },
			fixedCheckNames: { high: [], medium: [], low: ['Old check'] },
			failedCheckNames: { high: ['Core web vitals', 'Title'], medium: [], low: [] },
		});
	});

	it('gives no names where phpRank sent no per-check results', async () => {
		server().injectFault({ method: 'GET', path: '/api/v1/reports/3', kind: 'status', status: 200, body: { data: { id: 3, url: 'example.com/', result: 50 }, status: 200 } });

		const { items } = await runPhpRank(server(), { ...update({ reanalyze: true }), options: { includePreviousScore: true } });

		expect(items[0].json).toMatchObject({ newlyFailedChecks: null, newlyFailedCheckNames: null, fixedChecks: null, fixedCheckNames: null });
		expect(items[0].json.failedCheckNames).toEqual(failedCheckNamesOnServer(stored(3)));
	});

	it('reads nothing more without Re-Analyze: the score cannot change, so the change is 0', async () => {
		const { items, error } = await runPhpRank(server(), { ...update({ privacy: 1 }), options: { includePreviousScore: true } });

		expect(error).toBeUndefined();
		expect(requestLines(server())).toEqual(['PUT /api/v1/reports/3']);
		expect(items[0].json).toMatchObject({ previousResult: stored(3).result, previousGrade: gradeOf(stored(3).result), resultChange: 0 });
	});

	it('reads nothing more and adds nothing when not asked', async () => {
		const { items } = await runPhpRank(server(), update({ reanalyze: true }));

		expect(requestLines(server())).toEqual(['PUT /api/v1/reports/3']);
		expect(items[0].json).not.toHaveProperty('previousResult');
		expect(items[0].json.failedChecks).toEqual(failedChecksOnServer(stored(3)));
	});

	it('keeps the failed checks when the per-check results are left out', async () => {
		const { items } = await runPhpRank(server(), {
			...update({ reanalyze: true }),
			options: { includePreviousScore: true, includeResults: false },
		});

		expect(items[0].json.results).toBeUndefined();
		expect(items[0].json.failedChecks).toEqual(failedChecksOnServer(stored(3)));
	});

	it('fails without re-analyzing when the report cannot be read', async () => {
		const { error } = await runPhpRank(server(), {
			...update({ reanalyze: true }, byId('404')),
			options: { includePreviousScore: true },
		});

		expect(error?.message).toBe('Report 404 was not found (404)');
		expect(requestLines(server())).toEqual(['GET /api/v1/reports/404']);
	});

	it('refuses an Add Previous Score that is not true or false, before any request', async () => {
		const { error } = await runPhpRank(server(), { ...update({ reanalyze: true }), options: { includePreviousScore: '={{ "often" }}' } });

		expect(inputErrorOf(error).message).toBe('Add Previous Score must be true or false; got "often"');
		expect(apiRequests(server())).toHaveLength(0);
	});
});

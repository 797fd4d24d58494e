import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { PhpRank } from '../../../nodes/PhpRank/PhpRank.node';
import { PhpRankTrigger } from '../../../nodes/PhpRank/PhpRankTrigger.node';

const { description } = new PhpRank();

function propertiesOf(resource: string, operation: string): INodeProperties[] {
	return description.properties.filter((property) => {
		const show = property.displayOptions?.show;
		return show?.resource?.includes(resource) && show?.operation?.includes(operation);
	});
}

function property(resource: string, operation: string, name: string): INodeProperties {
	const found = propertiesOf(resource, operation).find((candidate) => candidate.name === name);
	if (!found) throw new Error(`no parameter ${name} for ${resource}/${operation}`);
	return found;
}

function nested(parent: INodeProperties, name: string): INodeProperties {
	const found = (parent.options as INodeProperties[]).find((option) => option.name === name);
	if (!found) throw new Error(`no option ${name} in ${parent.name}`);
	return found;
}

function values(parameter: INodeProperties): unknown[] {
	return (parameter.options as INodePropertyOptions[]).map((option) => option.value);
}

function namesAndValues(parameter: INodeProperties) {
	return (parameter.options as INodePropertyOptions[]).map(({ name, value }) => [name, value]);
}

function operationsOf(resource: string): unknown[] {
	const operation = description.properties.find(
		(candidate) => candidate.name === 'operation' && candidate.displayOptions?.show?.resource?.includes(resource),
	);
	return values(operation as INodeProperties).sort();
}

describe('phpRank node description', () => {
	it('is a declarative, versioned node usable as an AI tool with the phpRank credential', () => {
		expect(description.name).toBe('phpRank');
		expect(description.version).toBe(1);
		expect(description.usableAsTool).toBe(true);
		// The credential sets the base URL as it authenticates: n8n evaluates nothing for it per item.
		expect(JSON.stringify(description.requestDefaults)).not.toContain('{{');
		expect(description.credentials).toEqual([{ name: 'phpRankApi', required: true }]);
		expect(description.icon).toEqual({
			light: 'file:../../icons/phpRank.svg',
			dark: 'file:../../icons/phpRank.dark.svg',
		});
		expect(description.subtitle).toContain('$parameter["operation"]');
		expect('execute' in new PhpRank()).toBe(false);
	});

	it('offers the Report, Project and Site resources and exactly their documented operations', () => {
		expect(values(description.properties.find((p) => p.name === 'resource') as INodeProperties).sort()).toEqual([
			'project',
			'report',
			'site',
		]);
		expect(operationsOf('report')).toEqual(['create', 'delete', 'get', 'getAll', 'reanalyze', 'update']);
		expect(operationsOf('project')).toEqual(['delete', 'getAll']);
		expect(operationsOf('site')).toEqual(['audit']);
	});

	it('names every parameter as saved workflows store it', () => {
		const names = (resource: string, operation: string) =>
			propertiesOf(resource, operation)
				.filter((p) => p.type !== 'notice')
				.map((p) => p.name)
				.sort();
		expect(names('report', 'create')).toEqual([
			'ifReportExists',
			'olderThan',
			'olderThanUnit',
			'options',
			'password',
			'privacy',
			'toolDescription',
			'url',
		]);
		expect(names('report', 'get')).toEqual(['options', 'reportId', 'toolDescription']);
		expect(names('report', 'delete')).toEqual(['options', 'reportId', 'toolDescription']);
		expect(names('report', 'update')).toEqual(['options', 'reportId', 'toolDescription', 'updateFields']);
		expect(names('report', 'reanalyze')).toEqual(['options', 'reportId', 'toolDescription']);
		expect(names('report', 'getAll')).toEqual(['filters', 'limit', 'options', 'returnAll', 'toolDescription']);
		expect(names('project', 'getAll')).toEqual(['filters', 'limit', 'options', 'returnAll', 'toolDescription']);
		expect(names('project', 'delete')).toEqual(['options', 'projectName', 'toolDescription']);
		expect(names('site', 'audit')).toEqual([
			'discover',
			'ifReportExists',
			'maxPages',
			'olderThan',
			'olderThanUnit',
			'options',
			'password',
			'privacy',
			'siteUrl',
			'toolDescription',
		]);
	});

	it('keeps rarely changed settings in each operation\'s Options, a wait of an hour by default (rate limit, restarts)', () => {
		const optionNames = (resource: string, operation: string) =>
			(property(resource, operation, 'options').options as INodeProperties[])
				.filter((option) => option.displayOptions?.show?.['/operation']?.includes(operation) ?? true)
				.filter((option) => option.displayOptions?.show?.['/resource']?.includes(resource) ?? true)
				.map((option) => option.name)
				.sort();
		expect(optionNames('report', 'create')).toEqual(['includeResults', 'maxWait']);
		expect(optionNames('report', 'get')).toEqual(['includeResults', 'maxWait']);
		expect(optionNames('report', 'update')).toEqual(['includePreviousScore', 'includeResults', 'maxWait']);
		expect(optionNames('report', 'reanalyze')).toEqual(['includePreviousScore', 'includeResults', 'maxWait']);
		expect(optionNames('report', 'delete')).toEqual(['maxWait']);
		expect(optionNames('project', 'delete')).toEqual(['maxWait']);
		expect(optionNames('report', 'getAll')).toEqual(['includeResults', 'maxWait', 'perPage', 'sort', 'sortBy']);
		expect(optionNames('project', 'getAll')).toEqual(['maxWait', 'perPage', 'sort', 'sortBy']);
		expect(optionNames('site', 'audit')).toEqual(['analyzeNonIndexable', 'checkExternalLinks', 'checkImages', 'includeResults', 'leaveOut', 'maxDepth', 'maxWait', 'respectRobotsTxt']);
		const wait = nested(property('report', 'create', 'options'), 'maxWait');
		expect(wait.default).toBe(3600);
		expect(wait.typeOptions?.minValue).toBe(0);
		// The hint says why an hour, not what the field is, in one line.
		expect(wait.hint).toBe('An hour: enough for 1,000 rows, or a phpRank restart');
		// An option named Include takes nothing away when added: it shows on, as a workflow without it outputs the results.
		const results = nested(property('report', 'get', 'options'), 'includeResults');
		expect(results).toMatchObject({ displayName: 'Include Per-Check Results', type: 'boolean', default: true });
		expect(results.hint).toBe('Several KB a report; off for an AI Agent unless added');
		expect(description.properties.filter((p) => p.name === 'maxWait')).toEqual([]);
	});

	it('declares the report picker once for every operation on one report', () => {
		expect(description.properties.filter((p) => p.name === 'reportId')).toHaveLength(1);
		expect(description.properties.filter((p) => p.name === 'options')).toHaveLength(2);
	});

	it('describes each operation in a short sentence, and names in its action which ID it needs, as n8n names a new node after its action', () => {
		const operations = description.properties
			.filter((p) => p.name === 'operation')
			.flatMap((p) => p.options as INodePropertyOptions[]);
		for (const { description: said, action } of operations) {
			expect(said).toMatch(/^(Create|Get|Update|Re-analyze|Delete) an? (report|project)$|^Get many (reports|projects)$|^Audit a site$/);
			expect(action?.startsWith(String(said))).toBe(true);
			expect(action!.length).toBeLessThanOrEqual(25);
		}
		const actions = operations.map((option) => option.action).sort();
		expect(actions).toEqual([
			'Audit a site',
			'Create a report for a URL',
			'Delete a project by name',
			'Delete a report by ID',
			'Get a report by ID',
			'Get many projects',
			'Get many reports',
			'Re-analyze a report by ID',
			'Update a report by ID',
		]);
	});

	it('creates reports with privacy 0 Public, 1 Private, 2 Password (default 0) and shows the password only for 2', () => {
		const privacy = property('report', 'create', 'privacy');
		expect(namesAndValues(privacy)).toEqual([
			['Public', 0],
			['Private', 1],
			['Password', 2],
		]);
		expect(privacy.default).toBe(0);
		const password = property('report', 'create', 'password');
		expect(password.displayOptions?.show?.privacy).toEqual([2]);
		// Required at run time (see create.test.ts): an n8n `required` flag would also demand it when
		// Privacy is an expression that gives 0 or 1.
		expect(password.required).toBeFalsy();
		expect(password.description).toMatch(/required with Privacy: Password/);
		expect(password.typeOptions?.password).toBe(true);
		expect(property('report', 'create', 'url').required).toBe(true);
	});

	it('asks what to do when the URL already has a report, right after URL, creating another by default', () => {
		const names = propertiesOf('report', 'create').map((p) => p.name);
		expect(names.indexOf('ifReportExists')).toBe(names.indexOf('url') + 1);
		const ifReportExists = property('report', 'create', 'ifReportExists');
		expect(ifReportExists).toMatchObject({ displayName: 'If the URL Already Has a Report', type: 'options', noDataExpression: false });
		expect(ifReportExists.default).toBe('createAnother');
		expect(namesAndValues(ifReportExists)).toEqual([
			['Create Another Report', 'createAnother'],
			['Re-Analyze if Older Than', 'reanalyzeIfOlder'],
			['Re-Analyze the Existing Report', 'reanalyzeExisting'],
			['Return the Existing Report', 'returnExisting'],
		]);
		expect(ifReportExists.description).toMatch(/^What to do when phpRank holds a report of this URL; http or https, www\. and capitals in the host make no difference\.$/);
		// No hint, shown whatever is picked: the advice against duplicates is in the description of the choice that makes them.
		expect(ifReportExists.hint).toBeUndefined();
		expect(property('report', 'create', 'privacy').description).toMatch(/applies only to a new report$/);
		expect(ifReportExists.options?.[0]).toMatchObject({ description: expect.stringMatching(/running the same rows again makes duplicates, which the other choices avoid$/) });
		expect(ifReportExists.routing).toBeUndefined();
	});

	it('asks for the age past which Re-Analyze if Older Than analyzes again, by the name of the choice, 7 days by default', () => {
		// Asked by Site > Audit too, declared once for both.
		const shownFor = { show: { resource: ['report', 'site'], operation: ['create', 'audit'], ifReportExists: ['reanalyzeIfOlder'] } };
		const olderThan = property('report', 'create', 'olderThan');
		expect(olderThan).toMatchObject({ displayName: 'Re-Analyze if Older Than', type: 'number', default: 7, displayOptions: shownFor });
		expect(olderThan.hint).toBeUndefined();
		const unit = property('report', 'create', 'olderThanUnit');
		expect(unit).toMatchObject({ displayName: 'Unit', type: 'options', default: 'days', displayOptions: shownFor });
		expect(namesAndValues(unit)).toEqual([
			['Days', 'days'],
			['Hours', 'hours'],
		]);
	});

	it('audits a site from its Site URL, in sitemaps and links by default, 500 pages at most, re-analyzing reports older than 7 days', () => {
		const shown = (name: string) => propertiesOf('site', 'audit').filter((p) => p.name === name && p.displayOptions?.show?.['@tool'] === undefined);
		const [siteUrl] = shown('siteUrl');
		expect(siteUrl).toMatchObject({ displayName: 'Site URL', type: 'string', required: true, default: '' });
		const [discover] = shown('discover');
		expect(discover).toMatchObject({ displayName: 'Find Pages In', type: 'options', default: 'both' });
		expect(namesAndValues(discover)).toEqual([
			['Sitemaps and Links', 'both'],
			['Sitemaps', 'sitemaps'],
			['Links', 'links'],
		]);
		expect(shown('maxPages')).toMatchObject([{ displayName: 'Max Pages', type: 'number', default: 500 }]);
		const [ifReportExists] = shown('ifReportExists');
		expect(ifReportExists).toMatchObject({ displayName: 'If the URL Already Has a Report', default: 'reanalyzeIfOlder' });
		expect(values(ifReportExists)).toEqual(values(property('report', 'create', 'ifReportExists')));
		// In the panel's order: what the audit asks, then the choices Report > Create asks too.
		const order = description.properties
			.filter((p) => p.displayOptions?.show?.resource?.includes('site') && p.displayOptions?.show?.operation?.includes('audit') && p.type !== 'notice')
			.filter((p) => p.displayOptions?.show?.['@tool'] === undefined)
			.map((p) => p.name);
		expect(order).toEqual(['siteUrl', 'discover', 'maxPages', 'ifReportExists', 'olderThan', 'olderThanUnit', 'privacy', 'password', 'options']);
		const options = property('site', 'audit', 'options');
		expect(nested(options, 'maxDepth')).toMatchObject({ displayName: 'Max Depth', type: 'number', default: 10 });
		expect(nested(options, 'leaveOut')).toMatchObject({ displayName: 'Leave Out URLs Matching', type: 'string', default: '' });
		expect(nested(options, 'checkExternalLinks')).toMatchObject({ displayName: 'Check External Links', type: 'boolean', default: false });
		expect(nested(options, 'respectRobotsTxt')).toMatchObject({ displayName: 'Respect robots.txt', type: 'boolean', default: true });
		expect(nested(options, 'analyzeNonIndexable')).toMatchObject({ displayName: 'Analyze Non-Indexable Pages', type: 'boolean', default: false });
	});

	it('offers Add Previous Score on Update and Re-Analyze only, off by default', () => {
		const addPreviousScore = nested(property('report', 'update', 'options'), 'includePreviousScore');
		expect(addPreviousScore).toMatchObject({ displayName: 'Add Previous Score', type: 'boolean', default: false });
		expect(addPreviousScore.displayOptions?.show).toEqual({ '/operation': ['update', 'reanalyze'] });
		expect(addPreviousScore.hint).toMatch(/previousResult, previousGrade, resultChange, newlyFailedChecks and fixedChecks; a re-analysis then reads the report first/);
	});

	it('updates privacy, password and re-analysis', () => {
		const updateFields = property('report', 'update', 'updateFields');
		expect((updateFields.options as INodeProperties[]).map((o) => o.name).sort()).toEqual([
			'password',
			'privacy',
			'reanalyze',
		]);
		expect(values(nested(updateFields, 'privacy'))).toEqual([0, 1, 2]);
		expect(nested(updateFields, 'reanalyze').type).toBe('boolean');
	});

	it('lists reports with the documented filters and options', () => {
		const filters = property('report', 'getAll', 'filters');
		expect((filters.options as INodeProperties[]).map((o) => o.name).sort()).toEqual([
			'grade',
			'project',
			'search',
			'searchBy',
		]);
		expect(values(nested(filters, 'searchBy'))).toEqual(['url']);
		expect(nested(filters, 'grade').displayName).toBe('Grade');
		expect(namesAndValues(nested(filters, 'grade'))).toEqual([
			['Good', 'good'],
			['Decent', 'decent'],
			['Bad', 'bad'],
		]);
		const project = nested(filters, 'project');
		expect(project.displayName).toBe('Project');
		expect(project.type).toBe('resourceLocator');
		expect(project.modes?.map((mode) => mode.name)).toEqual(['list', 'name']);
		expect(project.description).not.toMatch(/\bID\b/);
		const options = property('report', 'getAll', 'options');
		expect(namesAndValues(nested(options, 'sortBy'))).toEqual([
			['Date Created', 'id'],
			['Date Generated', 'generated_at'],
			['URL', 'url'],
			['Result', 'result'],
		]);
		expect(namesAndValues(nested(options, 'sort'))).toEqual([
			['Descending', 'desc'],
			['Ascending', 'asc'],
		]);
		expect(values(nested(options, 'perPage'))).toEqual([10, 25, 50, 100]);
	});

	it('lists projects with the documented filters and options, 100 per page unless set, as when Page Size is left out', () => {
		const filters = property('project', 'getAll', 'filters');
		expect((filters.options as INodeProperties[]).map((o) => o.name).sort()).toEqual(['search', 'searchBy']);
		expect(values(nested(filters, 'searchBy'))).toEqual(['project']);
		const options = property('project', 'getAll', 'options');
		expect(namesAndValues(nested(options, 'sortBy'))).toEqual([
			['Date Created', 'created_at'],
			['Name', 'project'],
		]);
		expect(values(nested(options, 'sort'))).toEqual(['desc', 'asc']);
		expect(values(nested(options, 'perPage'))).toEqual([10, 25, 50, 100]);
		expect(nested(options, 'perPage').default).toBe(100);
		expect(nested(property('report', 'getAll', 'options'), 'perPage').default).toBe(100);
		expect(nested(options, 'perPage').hint).toMatch(/^100 is the most phpRank allows\./);
	});

	it('picks reports and projects from searchable lists or by typed id and name', () => {
		for (const operation of ['get', 'update', 'delete']) {
			const reportId = property('report', operation, 'reportId');
			expect(reportId.type).toBe('resourceLocator');
			expect(reportId.modes?.map((mode) => mode.name)).toEqual(['list', 'id']);
			expect(reportId.modes?.[0].typeOptions?.searchListMethod).toBe('searchReports');
		}
		const projectName = property('project', 'delete', 'projectName');
		expect(projectName.modes?.map((mode) => mode.name)).toEqual(['list', 'name']);
		expect(projectName.modes?.[0].typeOptions?.searchListMethod).toBe('searchProjects');
		expect(Object.keys(new PhpRank().methods.listSearch).sort()).toEqual(['searchProjects', 'searchReports']);
	});

	it('uses Return All and Limit on both lists', () => {
		for (const resource of ['report', 'project']) {
			expect(property(resource, 'getAll', 'returnAll').default).toBe(false);
			const limit = property(resource, 'getAll', 'limit');
			expect(limit.default).toBe(50);
			expect(limit.displayOptions?.show?.returnAll).toEqual([false]);
		}
	});
});

describe('editor texts read like the texts of n8n\'s own nodes', () => {
	const { description: triggerDescription } = new PhpRankTrigger();

	/** Every description in a list of properties and their options, with where it is. */
	function descriptionsOf(properties: Array<INodeProperties | INodePropertyOptions>, where = ''): Array<[string, string]> {
		return properties.flatMap((entry) => {
			const here = `${where}${'displayName' in entry ? entry.displayName : entry.name}`;
			const own: Array<[string, string]> = entry.description ? [[here, entry.description]] : [];
			const children = 'options' in entry && Array.isArray(entry.options) ? (entry.options as INodeProperties[]) : [];
			// The AI tool's Descriptions are what the agent reads, not editor texts.
			return 'name' in entry && entry.name === 'toolDescription' ? [] : [...own, ...descriptionsOf(children, `${here} > `)];
		});
	}

	it.each([
		['phpRank', description.properties],
		['phpRank Trigger', triggerDescription.properties],
	])('%s: each parameter and option describes itself in one short sentence; details go into a hint', (_, properties) => {
		const long = descriptionsOf(properties).filter(([, text]) => /\. [A-Z0-9]/.test(text) || text.length > 120);

		expect(long).toEqual([]);
	});

	it('names the search filters as n8n does', () => {
		const search = (resource: string) => nested(property(resource, 'getAll', 'filters'), 'search').description;

		expect(search('report')).toBe('Only reports whose URL contains this text');
		expect(search('project')).toBe('Only projects whose name contains this text');
	});

	it("gives the trigger's subtitle the words of its Event options", () => {
		const event = triggerDescription.properties.find((candidate) => candidate.name === 'event')!;
		const labels = (event.options as INodePropertyOptions[]).map((option) => option.name);

		for (const label of labels) expect(triggerDescription.subtitle).toContain(`"${label}"`);
	});
});

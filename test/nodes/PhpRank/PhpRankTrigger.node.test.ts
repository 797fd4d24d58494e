import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { PhpRankTrigger } from '../../../nodes/PhpRank/PhpRankTrigger.node';

const { description } = new PhpRankTrigger();
const parameter = (name: string) => description.properties.find((property) => property.name === name) as INodeProperties;
const values = (property: INodeProperties) => (property.options as INodePropertyOptions[]).map((option) => option.value);

describe('phpRank Trigger description', () => {
	it('is a polling trigger with the phpRank credential and no inputs', () => {
		expect(description.name).toBe('phpRankTrigger');
		expect(description.polling).toBe(true);
		expect(description.group).toEqual(['trigger']);
		expect(description.inputs).toEqual([]);
		expect(description.credentials).toEqual([{ name: 'phpRankApi', required: true }]);
		expect(typeof new PhpRankTrigger().poll).toBe('function');
	});

	it('offers the New Report and New Project events, and grade and project filters for reports', () => {
		expect(values(parameter('event'))).toEqual(['newReport', 'newProject']);
		const filters = parameter('filters');
		expect(filters.displayOptions?.show?.event).toEqual(['newReport']);
		const options = filters.options as INodeProperties[];
		expect(options.map((option) => option.name).sort()).toEqual(['grade', 'project']);
		expect(values(options.find((option) => option.name === 'grade') as INodeProperties)).toEqual(['good', 'decent', 'bad']);
		const project = options.find((option) => option.name === 'project') as INodeProperties;
		expect(project.type).toBe('resourceLocator');
		expect(project.modes?.[0].typeOptions?.searchListMethod).toBe('searchProjects');
		expect(Object.keys(new PhpRankTrigger().methods.listSearch)).toEqual(['searchProjects']);
	});
});

import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { listTarget } from '../shared/errors';
import { shapeProject } from '../shared/items';
import { polledList, readNewestPage, scanNewestFirst } from './scan';

/** The trigger's place, kept in the workflow's static data. */
interface NewProjectState {
	/** created_at of the newest project seen. */
	lastProjectCreatedAt?: string;
	/** The projects created at that very moment, as several can be. */
	projectsCreatedThen?: string[];
}

const QUERY: IDataObject = { sort_by: 'created_at', sort: 'desc' };

const createdAt = (project: IDataObject) => String(project.created_at);

export async function pollNewProjects(context: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const list = polledList(context, { url: '/projects', query: QUERY, target: listTarget('project') });
	const state = context.getWorkflowStaticData('node') as NewProjectState;
	if (context.getMode() === 'manual' || state.lastProjectCreatedAt === undefined) {
		const newest = (await readNewestPage(list, { page: 1, perPage: 10 })).records;
		if (context.getMode() === 'manual') return newest.length ? [[{ json: shapeProject(newest[0]) }]] : null;
		// Activation starts from here: history is not replayed.
		state.lastProjectCreatedAt = newest.length ? createdAt(newest[0]) : '';
		state.projectsCreatedThen = newest
			.filter((project) => createdAt(project) === state.lastProjectCreatedAt)
			.map((project) => String(project.project));
		return null;
	}
	const last = state.lastProjectCreatedAt;
	const namesThen = state.projectsCreatedThen ?? [];
	const fresh = await scanNewestFirst(context, list, {
		isSeen: (project) =>
			createdAt(project) < last || (createdAt(project) === last && namesThen.includes(String(project.project))),
		isOlder: (project) => createdAt(project) < last,
		keyOf: (project) => String(project.project),
	});
	if (fresh.length === 0) return null;
	const newest = fresh.map(createdAt).reduce((a, b) => (b > a ? b : a), last);
	const createdThen = fresh.filter((project) => createdAt(project) === newest).map((project) => String(project.project));
	state.projectsCreatedThen = newest === last ? [...namesThen, ...createdThen] : createdThen;
	state.lastProjectCreatedAt = newest;
	return [fresh.reverse().map((project) => ({ json: shapeProject(project) }))];
}

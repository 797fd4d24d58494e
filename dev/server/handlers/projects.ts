import { carriedParameters, PROJECT_LIST_PARAMETERS, projectListQuery } from '../listQuery';
import { paginate } from '../pagination';
import { deletion, projectRecord } from '../presenters';
import { ApiError, json } from '../responses';
import { Handler } from './context';

export const listProjects: Handler = (context) => {
	const query = projectListQuery(context.input);
	const search = query.search?.toLowerCase();
	const { items, total } = context.store.listProjects(
		context.user.id,
		query.sortBy,
		{ descending: query.descending, offset: (query.page - 1) * query.perPage, limit: query.perPage },
		search ? (project) => project.name.toLowerCase().includes(search) : undefined,
	);
	const page = paginate(items.map(projectRecord), total, {
		page: query.page,
		perPage: query.perPage,
		path: context.pathUrl,
		carried: carriedParameters(context.input, PROJECT_LIST_PARAMETERS),
	});
	return json(200, page);
};

export const deleteProject: Handler = (context) => {
	const name = context.params.project;
	const held = context.store.deleteProject(context.user.id, name);
	if (held === undefined) throw new ApiError(404);
	// phpRank 1.2–1.8 mistakes the number of deleted reports for a report id and deletes that one too.
	if (context.settings.projectDeleteHazard) context.store.deleteReport(held);
	return json(200, deletion(name));
};

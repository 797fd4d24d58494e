/** The API's routes, matched the way Laravel's router does: path first, then method. */
import { showAccount } from './handlers/account';
import { Handler } from './handlers/context';
import { deleteProject, listProjects } from './handlers/projects';
import { createReport, deleteReport, listReports, showReport, updateReport } from './handlers/reports';

interface Route {
	/** Path segments after /api/v1; ':name' captures one segment. */
	segments: string[];
	/** In registration order, which is the order of the Allow header. */
	methods: Array<[string, Handler]>;
}

const NUMERIC_ID = /^[0-9]+$/;

const ROUTES: Route[] = [
	{ segments: ['account'], methods: [['GET', showAccount]] },
	{ segments: ['reports'], methods: [['GET', listReports], ['POST', createReport]] },
	{
		segments: ['reports', ':id'],
		methods: [['GET', showReport], ['PUT', updateReport], ['PATCH', updateReport], ['DELETE', deleteReport]],
	},
	{ segments: ['projects'], methods: [['GET', listProjects]] },
	{ segments: ['projects', ':project'], methods: [['DELETE', deleteProject]] },
];

export type RouteMatch =
	| { kind: 'handler'; handler: Handler; params: Record<string, string> }
	| { kind: 'options' | 'wrongMethod'; allow: string }
	| { kind: 'notFound' };

function decodeSegment(segment: string): string | undefined {
	try {
		return decodeURIComponent(segment);
	} catch {
		return undefined;
	}
}

function matchSegments(route: Route, segments: string[]): Record<string, string> | undefined {
	if (route.segments.length !== segments.length) return undefined;
	const params: Record<string, string> = {};
	for (let i = 0; i < segments.length; i++) {
		const expected = route.segments[i];
		const actual = decodeSegment(segments[i]);
		if (actual === undefined || actual === '') return undefined;
		if (!expected.startsWith(':')) {
			if (expected !== actual) return undefined;
			continue;
		}
		// Route constraint: report ids are numeric, so /reports/abc is an unknown path rather than a bad id.
		if (expected === ':id' && !NUMERIC_ID.test(actual)) return undefined;
		params[expected.slice(1)] = actual;
	}
	return params;
}

/** GET routes answer HEAD too, as in Laravel. */
const allowedMethods = (route: Route) => route.methods.flatMap(([method]) => (method === 'GET' ? ['GET', 'HEAD'] : [method]));

/** @param rawApiPath raw (still encoded) path after /api/v1, e.g. '/reports/5' */
export function matchRoute(method: string, rawApiPath: string): RouteMatch {
	// Laravel ignores a trailing slash.
	const segments = rawApiPath.replace(/^\/+|\/+$/g, '').split('/');
	for (const route of ROUTES) {
		const params = matchSegments(route, segments);
		if (!params) continue;
		const wanted = method === 'HEAD' ? 'GET' : method;
		const found = route.methods.find(([candidate]) => candidate === wanted);
		if (found) return { kind: 'handler', handler: found[1], params };
		const allow = allowedMethods(route).join(', ');
		return { kind: method === 'OPTIONS' ? 'options' : 'wrongMethod', allow };
	}
	return { kind: 'notFound' };
}

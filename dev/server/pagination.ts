/** Laravel's LengthAwarePaginator as an API resource collection renders it. */

export interface PageLink {
	url: string | null;
	label: string;
	active: boolean;
}

export interface PageEnvelope<T> {
	data: T[];
	links: { first: string; last: string; prev: string | null; next: string | null };
	meta: {
		current_page: number;
		from: number | null;
		last_page: number;
		links: PageLink[];
		path: string;
		per_page: number;
		to: number | null;
		total: number;
	};
	status: 200;
}

export interface PageRequest {
	page: number;
	perPage: number;
	/** Absolute URL of the list, without query. */
	path: string;
	/** List parameters to carry into every page URL, in order. */
	carried: Array<[string, string]>;
}

const ON_EACH_SIDE = 3;

/** PHP's rawurlencode (RFC 3986), which Laravel's Arr::query uses. */
const rawUrlEncode = (text: string) =>
	encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

/** Laravel's UrlWindow: which page numbers to list, with null standing for a "..." gap. */
function pageWindow(current: number, last: number): Array<number | null> {
	if (last < ON_EACH_SIDE * 2 + 8) return range(1, last);
	const window = ON_EACH_SIDE + 4;
	const start = [1, 2];
	const finish = [last - 1, last];
	if (current <= window) return [...range(1, window + ON_EACH_SIDE), null, ...finish];
	if (current > last - window) return [...start, null, ...range(last - (window + (ON_EACH_SIDE - 1)), last)];
	return [...start, null, ...range(current - ON_EACH_SIDE, current + ON_EACH_SIDE), null, ...finish];
}

export function paginate<T>(items: T[], total: number, request: PageRequest): PageEnvelope<T> {
	const { page, perPage } = request;
	const lastPage = Math.max(Math.ceil(total / perPage), 1);
	const url = (n: number) =>
		`${request.path}?${[...request.carried, ['page', String(n)]].map(([key, value]) => `${rawUrlEncode(key)}=${rawUrlEncode(value)}`).join('&')}`;
	const from = items.length ? (page - 1) * perPage + 1 : null;
	const prev = page > 1 ? url(page - 1) : null;
	const next = page < lastPage ? url(page + 1) : null;
	const numbered = pageWindow(page, lastPage).map((n): PageLink =>
		n === null ? { url: null, label: '...', active: false } : { url: url(n), label: String(n), active: n === page },
	);
	return {
		data: items,
		links: { first: url(1), last: url(lastPage), prev, next },
		meta: {
			current_page: page,
			from,
			last_page: lastPage,
			links: [{ url: prev, label: '&laquo; Previous', active: false }, ...numbered, { url: next, label: 'Next &raquo;', active: false }],
			path: request.path,
			per_page: perPage,
			to: from === null ? null : from + items.length - 1,
			total,
		},
		status: 200,
	};
}

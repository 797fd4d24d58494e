/** Deterministic, varied sample data: same calls on an empty store always give the same reports. */
import { scorePage } from './analysis';
import { parseReportTarget } from './reportUrl';
import { PhpRankStore } from './store';

const SEED_EPOCH = Date.UTC(2026, 0, 5, 8, 0, 0) / 1000;
const SECONDS_BETWEEN_REPORTS = 1020;
const DEFAULT_HOSTS = [
	'example.com',
	'www.shop.example.org',
	'blog.example.net',
	'docs.example.io',
	'news.example.co.uk',
	'store.example.dev',
	'travel.example.info',
	'cafe.example.biz',
];
const SECTIONS = ['blog', 'products', 'guides', 'news', 'pricing', 'about', 'help', 'features'];
const SLUGS = ['getting-started', 'seo-checklist', 'summer-sale', 'release-notes', 'case-study', 'faq', 'contact', 'team'];

export interface SeedRequest {
	userId: number;
	projects?: string[];
}

function seededUrl(host: string, index: number): string {
	// Every ninth page is the bare host; every fifth is served without TLS so https checks vary.
	const scheme = index % 5 === 4 ? 'http' : 'https';
	if (index % 9 === 0) return `${scheme}://${host}/`;
	return `${scheme}://${host}/${SECTIONS[index % SECTIONS.length]}/${SLUGS[(index * 7) % SLUGS.length]}-${index}`;
}

export function seedReports(store: PhpRankStore, count: number, request: SeedRequest): number[] {
	const hosts = request.projects?.length ? request.projects : DEFAULT_HOSTS;
	const latest = store.latestCreatedAt();
	const start = latest === undefined ? SEED_EPOCH : latest + SECONDS_BETWEEN_REPORTS;
	const ids: number[] = [];
	for (let i = 0; i < count; i++) {
		const target = parseReportTarget(seededUrl(hosts[i % hosts.length], i));
		if (!target) throw new Error(`Cannot seed a report for project "${hosts[i % hosts.length]}"`);
		const time = start + i * SECONDS_BETWEEN_REPORTS;
		const privacy = i % 10 === 3 ? 1 : i % 10 === 7 ? 2 : 0;
		const report = store.insertReport(request.userId, {
			...target,
			score: scorePage(target.targetUrl),
			privacy,
			password: privacy === 2 ? 'secret' : null,
			generatedAt: time,
			createdAt: time,
			updatedAt: time,
		});
		ids.push(report.id);
	}
	return ids;
}

/** Project names not yet used by the user: site1.example.com, site2.example.com, … */
export function freshProjectNames(store: PhpRankStore, userId: number, count: number): string[] {
	const names: string[] = [];
	for (let n = 1; names.length < count; n++) {
		const name = `site${n}.example.com`;
		if (!store.hasProject(userId, name)) names.push(name);
	}
	return names;
}

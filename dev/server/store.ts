/** In-memory data of the server: users, their reports and the projects derived from them, and sample data. */
import { DEFAULT_POINTS, scorePage } from './analysis';
import type { Points } from './analysis';
import { parseReportTarget } from './reportUrl';
import { PhpRankUser, ProjectState, ReportState, SeedOptions } from './types';

/** A report as stored: the state tests read, its times in epoch seconds. */
export type StoredReport = Omit<ReportState, 'generatedAt' | 'createdAt' | 'updatedAt'> &
	Record<'generatedAt' | 'createdAt' | 'updatedAt', number>;

interface StoredProject extends Omit<ProjectState, 'createdAt'> {
	createdAt: number;
	/** Creation order, to keep projects created in the same second apart. */
	sequence: number;
}

export type ReportSortKey = 'id' | 'generated_at' | 'url' | 'result';
export type ProjectSortKey = 'created_at' | 'project';

/** Laravel serialises database timestamps (whole seconds) with a microsecond field. */
export const formatTimestamp = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, '.000000Z');

export const nowInSeconds = () => Math.floor(Date.now() / 1000);

const byNumber = (a: number, b: number) => a - b;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const REPORT_ORDER: Record<Exclude<ReportSortKey, 'id'>, (a: StoredReport, b: StoredReport) => number> = {
	generated_at: (a, b) => byNumber(a.generatedAt, b.generatedAt) || byNumber(a.id, b.id),
	url: (a, b) => byText(a.url, b.url) || byNumber(a.id, b.id),
	result: (a, b) => byNumber(a.result, b.result) || byNumber(a.id, b.id),
};

const PROJECT_ORDER: Record<ProjectSortKey, (a: StoredProject, b: StoredProject) => number> = {
	created_at: (a, b) => byNumber(a.createdAt, b.createdAt) || byNumber(a.sequence, b.sequence),
	project: (a, b) => byText(a.project, b.project),
};

const SEED_EPOCH = Date.UTC(2026, 0, 5, 8, 0, 0) / 1000;
const SECONDS_BETWEEN_SEEDED_REPORTS = 1020;
const SEED_HOSTS = [
	'example.com', 'www.shop.example.org', 'blog.example.net', 'docs.example.io',
	'news.example.co.uk', 'store.example.dev', 'travel.example.info', 'cafe.example.biz',
];
const SEED_SECTIONS = ['blog', 'products', 'guides', 'news', 'pricing', 'about', 'help', 'features'];
const SEED_SLUGS = ['getting-started', 'seo-checklist', 'summer-sale', 'release-notes', 'case-study', 'faq', 'contact', 'team'];

function seededUrl(host: string, index: number): string {
	// Every ninth page is the bare host; every fifth is served without TLS so https checks vary.
	const scheme = index % 5 === 4 ? 'http' : 'https';
	if (index % 9 === 0) return `${scheme}://${host}/`;
	return `${scheme}://${host}/${SEED_SECTIONS[index % SEED_SECTIONS.length]}/${SEED_SLUGS[(index * 7) % SEED_SLUGS.length]}-${index}`;
}

/** Thrown by a write while the database is down: phpRank answers 500 and stores nothing. */
export class StoreDown extends Error {
	constructor() {
		super('The database is down');
	}
}

/** One user's data; reports in ascending id, which is also creation order. */
type Library = { reports: StoredReport[]; projects: Map<string, StoredProject> };

export class PhpRankStore {
	private readonly reportsById = new Map<number, StoredReport>();
	private readonly libraries = new Map<number, Library>();
	/** Sorted orders, cached until the next change so paging stays cheap. */
	private readonly sorted = new Map<string, readonly unknown[]>();
	private nextReportId = 1;
	private nextProjectSequence = 1;
	/** The database is down (a restart, a failover): every write fails, so nothing is stored. */
	down = false;

	constructor(
		readonly users: readonly PhpRankUser[],
		private readonly points: Points = DEFAULT_POINTS,
	) {}

	/** The first user with the key, as Laravel's `where(api_token)->first()` finds it. */
	userByApiKey(apiKey: string): PhpRankUser | undefined {
		return this.users.find((user) => user.apiKey === apiKey);
	}

	insertReport(userId: number, fields: Omit<StoredReport, 'id' | 'userId' | 'result'>): StoredReport {
		this.checkUp();
		const report: StoredReport = { ...fields, id: this.nextReportId++, userId, result: Math.round(fields.score) };
		const library = this.library(userId);
		library.reports.push(report);
		this.reportsById.set(report.id, report);
		let project = library.projects.get(report.project);
		if (!project) {
			project = { userId, project: report.project, reports: 0, result: 0, createdAt: report.createdAt, sequence: this.nextProjectSequence++ };
			library.projects.set(project.project, project);
		}
		project.reports++;
		project.result += report.result;
		this.sorted.clear();
		return report;
	}

	report(id: number): StoredReport | undefined {
		return this.reportsById.get(id);
	}

	ownReport(userId: number, id: number): StoredReport | undefined {
		const report = this.reportsById.get(id);
		return report?.userId === userId ? report : undefined;
	}

	updateReport(report: StoredReport, changes: Partial<StoredReport>): void {
		this.checkUp();
		Object.assign(report, changes);
		const result = Math.round(report.score);
		const library = this.library(report.userId);
		const project = library.projects.get(report.project);
		if (project) project.result += result - report.result;
		report.result = result;
		this.sorted.clear();
	}

	deleteReport(id: number): void {
		this.checkUp();
		const report = this.reportsById.get(id);
		if (!report) return;
		const library = this.library(report.userId);
		library.reports.splice(library.reports.indexOf(report), 1);
		this.forget([report], library);
	}

	/** Returns how many reports the project held, or undefined when the user has no such project. */
	deleteProject(userId: number, name: string): number | undefined {
		this.checkUp();
		const library = this.library(userId);
		if (!library.projects.has(name)) return undefined;
		const doomed = library.reports.filter((report) => report.project === name);
		library.reports = library.reports.filter((report) => report.project !== name);
		this.forget(doomed, library);
		return doomed.length;
	}

	private checkUp(): void {
		if (this.down) throw new StoreDown();
	}

	reportCount(userId: number): number {
		return this.library(userId).reports.length;
	}

	sortedReports(userId: number, key: ReportSortKey): readonly StoredReport[] {
		const { reports } = this.library(userId);
		return key === 'id' ? reports : this.cached(`${userId} report:${key}`, () => [...reports].sort(REPORT_ORDER[key]));
	}

	sortedProjects(userId: number, key: ProjectSortKey): readonly StoredProject[] {
		return this.cached(`${userId} project:${key}`, () => [...this.library(userId).projects.values()].sort(PROJECT_ORDER[key]));
	}

	allReports(userId?: number): StoredReport[] {
		return this.userIds(userId).flatMap((id) => this.library(id).reports);
	}

	allProjects(userId?: number): StoredProject[] {
		return this.userIds(userId).flatMap((id) => this.sortedProjects(id, 'created_at'));
	}

	/**
	 * Deterministic, varied sample reports, spread round-robin over `projects` (host names), dated after every
	 * report stored: the same calls on an empty store always give the same reports. Owned by the first user unless told.
	 * Every fourth was re-analyzed a little later, so that their generated_at order is not their id order (some
	 * share a second with another report's).
	 */
	seedReports(count: number, options: SeedOptions = {}): number[] {
		const userId = options.userId ?? this.users[0].id;
		if (!this.users.some((user) => user.id === userId)) throw new Error(`No user with id ${userId}`);
		const hosts = options.projects?.length ? options.projects : SEED_HOSTS;
		const latest = Math.max(...[...this.libraries.values()].map((library) => library.reports.at(-1)?.createdAt ?? -Infinity));
		const start = latest === -Infinity ? SEED_EPOCH : latest + SECONDS_BETWEEN_SEEDED_REPORTS;
		const ids: number[] = [];
		for (let i = 0; i < count; i++) {
			const target = parseReportTarget(seededUrl(hosts[i % hosts.length], i));
			if (!target) throw new Error(`Cannot seed a report for project "${hosts[i % hosts.length]}"`);
			const time = start + i * SECONDS_BETWEEN_SEEDED_REPORTS;
			const privacy = i % 10 === 3 ? 1 : i % 10 === 7 ? 2 : 0;
			const fields = { ...target, score: scorePage(target.targetUrl, undefined, this.points), privacy, password: privacy === 2 ? 'secret' : null };
			const generatedAt = i % 4 === 2 ? time + (2 + ((i * 3) % 5)) * SECONDS_BETWEEN_SEEDED_REPORTS : time;
			ids.push(this.insertReport(userId, { ...fields, generatedAt, createdAt: time, updatedAt: generatedAt }).id);
		}
		return ids;
	}

	/**
	 * Seeds `reports` reports; with `projects`, spreads them over that many new projects (site1.example.com,
	 * site2.example.com, … the user does not have yet), each holding at least one. Returns the new project names.
	 */
	seed(counts: { reports?: number; projects?: number }, userId = this.users[0].id): string[] {
		const names: string[] = [];
		for (let n = 1; names.length < (counts.projects ?? 0); n++) {
			const name = `site${n}.example.com`;
			if (!this.libraries.get(userId)?.projects.has(name)) names.push(name);
		}
		this.seedReports(Math.max(counts.reports ?? 0, names.length), { userId, projects: names });
		return names;
	}

	private userIds(userId?: number): number[] {
		return userId === undefined ? [...this.libraries.keys()].sort((a, b) => a - b) : [userId];
	}

	private cached<T>(key: string, build: () => T[]): readonly T[] {
		if (!this.sorted.has(key)) this.sorted.set(key, build());
		return this.sorted.get(key) as T[];
	}

	private forget(reports: StoredReport[], library: Library): void {
		for (const report of reports) {
			this.reportsById.delete(report.id);
			const project = library.projects.get(report.project);
			if (!project) continue;
			project.reports--;
			project.result -= report.result;
			if (project.reports === 0) library.projects.delete(project.project);
		}
		this.sorted.clear();
	}

	private library(userId: number): Library {
		if (!this.libraries.has(userId)) this.libraries.set(userId, { reports: [], projects: new Map() });
		return this.libraries.get(userId) as Library;
	}
}

/** Server state for tests to assert on, with readable dates. */
export function reportState(report: StoredReport): ReportState {
	const { generatedAt, createdAt, updatedAt, ...rest } = report;
	return { ...rest, generatedAt: formatTimestamp(generatedAt), createdAt: formatTimestamp(createdAt), updatedAt: formatTimestamp(updatedAt) };
}

export function projectState({ sequence: _sequence, createdAt, ...rest }: StoredProject): ProjectState {
	return { ...rest, createdAt: formatTimestamp(createdAt) };
}

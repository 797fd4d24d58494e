/** In-memory data of the server: users, their reports and the projects derived from them. */
import { PhpRankUser, ReportState } from './types';

/** A report as stored: the state tests read (ReportState), its times in epoch milliseconds. */
export interface StoredReport extends Omit<ReportState, 'generatedAt' | 'createdAt' | 'updatedAt'> {
	generatedAt: number;
	createdAt: number;
	updatedAt: number;
}

export interface StoredProject {
	userId: number;
	name: string;
	reports: number;
	result: number;
	createdAt: number;
	/** Creation order, to keep projects created in the same second apart. */
	sequence: number;
}

export type NewReport = Omit<StoredReport, 'id' | 'userId' | 'result'>;

export type ReportChanges = Partial<Pick<StoredReport, 'privacy' | 'password' | 'score' | 'quality' | 'generatedAt' | 'updatedAt'>>;

export type ReportSortKey = 'id' | 'generated_at' | 'url' | 'result';
export type ProjectSortKey = 'created_at' | 'project';

export interface ListWindow {
	descending: boolean;
	offset: number;
	limit: number;
}

export interface Slice<T> {
	items: T[];
	total: number;
}

const byNumber = (a: number, b: number) => a - b;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const REPORT_ORDER: Record<Exclude<ReportSortKey, 'id'>, (a: StoredReport, b: StoredReport) => number> = {
	generated_at: (a, b) => byNumber(a.generatedAt, b.generatedAt) || byNumber(a.id, b.id),
	url: (a, b) => byText(a.url, b.url) || byNumber(a.id, b.id),
	result: (a, b) => byNumber(a.result, b.result) || byNumber(a.id, b.id),
};

const PROJECT_ORDER: Record<ProjectSortKey, (a: StoredProject, b: StoredProject) => number> = {
	created_at: (a, b) => byNumber(a.createdAt, b.createdAt) || byNumber(a.sequence, b.sequence),
	project: (a, b) => byText(a.name, b.name),
};

/** Per-user data with sorted orders cached until the next change, so paging stays cheap. */
class UserLibrary {
	/** Ascending id, which is also creation order. */
	reports: StoredReport[] = [];
	readonly projects = new Map<string, StoredProject>();
	private readonly sortedViews = new Map<string, readonly unknown[]>();

	changed(): void {
		this.sortedViews.clear();
	}

	sortedReports(key: ReportSortKey): readonly StoredReport[] {
		if (key === 'id') return this.reports;
		return this.view(`report:${key}`, () => [...this.reports].sort(REPORT_ORDER[key]));
	}

	sortedProjects(key: ProjectSortKey): readonly StoredProject[] {
		return this.view(`project:${key}`, () => [...this.projects.values()].sort(PROJECT_ORDER[key]));
	}

	private view<T>(key: string, build: () => T[]): readonly T[] {
		let view = this.sortedViews.get(key) as T[] | undefined;
		if (!view) {
			view = build();
			this.sortedViews.set(key, view);
		}
		return view;
	}
}

function slice<T>(ordered: readonly T[], window: ListWindow, keep?: (item: T) => boolean): Slice<T> {
	const at = (i: number) => ordered[window.descending ? ordered.length - 1 - i : i];
	if (!keep) {
		const end = Math.min(ordered.length, window.offset + window.limit);
		const items: T[] = [];
		for (let i = window.offset; i < end; i++) items.push(at(i));
		return { items, total: ordered.length };
	}
	const items: T[] = [];
	let total = 0;
	for (let i = 0; i < ordered.length; i++) {
		const item = at(i);
		if (!keep(item)) continue;
		if (total >= window.offset && items.length < window.limit) items.push(item);
		total++;
	}
	return { items, total };
}

export class PhpRankStore {
	private readonly reportsById = new Map<number, StoredReport>();
	private readonly libraries = new Map<number, UserLibrary>();
	private readonly usersByKey = new Map<string, PhpRankUser>();
	private nextReportId = 1;
	private nextProjectSequence = 1;

	constructor(readonly users: readonly PhpRankUser[]) {
		for (const user of users) this.usersByKey.set(user.apiKey, user);
	}

	userByApiKey(apiKey: string): PhpRankUser | undefined {
		return this.usersByKey.get(apiKey);
	}

	hasUser(userId: number): boolean {
		return this.users.some((user) => user.id === userId);
	}

	reset(): void {
		this.reportsById.clear();
		this.libraries.clear();
		this.nextReportId = 1;
		this.nextProjectSequence = 1;
	}

	insertReport(userId: number, fields: NewReport): StoredReport {
		const report: StoredReport = { ...fields, id: this.nextReportId++, userId, result: Math.round(fields.score) };
		const library = this.library(userId);
		library.reports.push(report);
		this.reportsById.set(report.id, report);
		let project = library.projects.get(report.project);
		if (!project) {
			project = { userId, name: report.project, reports: 0, result: 0, createdAt: report.createdAt, sequence: this.nextProjectSequence++ };
			library.projects.set(project.name, project);
		}
		project.reports++;
		project.result += report.result;
		library.changed();
		return report;
	}

	findReport(id: number): StoredReport | undefined {
		return this.reportsById.get(id);
	}

	ownReport(userId: number, id: number): StoredReport | undefined {
		const report = this.reportsById.get(id);
		return report && report.userId === userId ? report : undefined;
	}

	updateReport(report: StoredReport, changes: ReportChanges): void {
		Object.assign(report, changes);
		const result = Math.round(report.score);
		const library = this.library(report.userId);
		const project = library.projects.get(report.project);
		if (project) project.result += result - report.result;
		report.result = result;
		library.changed();
	}

	deleteReport(id: number): boolean {
		const report = this.reportsById.get(id);
		if (!report) return false;
		const library = this.library(report.userId);
		library.reports.splice(this.indexOfReport(library.reports, id), 1);
		this.forget([report], library);
		return true;
	}

	/** Returns how many reports the project held, or undefined when the user has no such project. */
	deleteProject(userId: number, name: string): number | undefined {
		const library = this.library(userId);
		if (!library.projects.has(name)) return undefined;
		const doomed = library.reports.filter((report) => report.project === name);
		library.reports = library.reports.filter((report) => report.project !== name);
		this.forget(doomed, library);
		return doomed.length;
	}

	reportCount(userId: number): number {
		return this.library(userId).reports.length;
	}

	latestCreatedAt(): number | undefined {
		let latest: number | undefined;
		for (const library of this.libraries.values()) {
			const last = library.reports[library.reports.length - 1];
			if (last && (latest === undefined || last.createdAt > latest)) latest = last.createdAt;
		}
		return latest;
	}

	listReports(userId: number, sortKey: ReportSortKey, window: ListWindow, keep?: (report: StoredReport) => boolean): Slice<StoredReport> {
		return slice(this.library(userId).sortedReports(sortKey), window, keep);
	}

	listProjects(userId: number, sortKey: ProjectSortKey, window: ListWindow, keep?: (project: StoredProject) => boolean): Slice<StoredProject> {
		return slice(this.library(userId).sortedProjects(sortKey), window, keep);
	}

	hasProject(userId: number, name: string): boolean {
		return this.library(userId).projects.has(name);
	}

	allReports(userId?: number): StoredReport[] {
		return this.librariesOf(userId).flatMap((library) => library.reports);
	}

	allProjects(userId?: number): StoredProject[] {
		return this.librariesOf(userId).flatMap((library) => library.sortedProjects('created_at'));
	}

	private librariesOf(userId?: number): UserLibrary[] {
		if (userId !== undefined) return [this.library(userId)];
		return [...this.libraries.entries()].sort(([a], [b]) => a - b).map(([, library]) => library);
	}

	private forget(reports: StoredReport[], library: UserLibrary): void {
		for (const report of reports) {
			this.reportsById.delete(report.id);
			const project = library.projects.get(report.project);
			if (!project) continue;
			project.reports--;
			project.result -= report.result;
			if (project.reports === 0) library.projects.delete(project.name);
		}
		library.changed();
	}

	private indexOfReport(reports: StoredReport[], id: number): number {
		let low = 0;
		let high = reports.length - 1;
		while (low <= high) {
			const middle = (low + high) >> 1;
			if (reports[middle].id === id) return middle;
			if (reports[middle].id < id) low = middle + 1;
			else high = middle - 1;
		}
		throw new Error(`Report ${id} is missing from its owner's list`);
	}

	private library(userId: number): UserLibrary {
		let library = this.libraries.get(userId);
		if (!library) {
			library = new UserLibrary();
			this.libraries.set(userId, library);
		}
		return library;
	}
}

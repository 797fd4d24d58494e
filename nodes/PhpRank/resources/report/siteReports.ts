import { sleep } from 'n8n-workflow';
import type { IDataObject } from 'n8n-workflow';
import type { PhpRankClient } from '../../shared/client';
import { listTarget } from '../../shared/errors';
import { LARGEST_PAGE_SIZE } from '../../shared/values';
import { addressOfReport, findReport } from './existingReport';
import type { ReportAddress } from './existingReport';

/** Every SiteReports of this n8n process, by phpRank server: each hears of the reports created, updated or deleted here. */
const everySiteReports = new Map<string, Set<WeakRef<SiteReports>>>();

/**
 * What one execution knows of one site's reports (a phpRank project, named after the site's host). The rows of
 * a run ask for their URLs together, and when reading the project 100 reports a page takes fewer requests than
 * looking each URL up, the project is read once and the rows are matched against it. Only the reports of the
 * URLs asked for are kept, and only for the execution: other clients change phpRank between runs.
 */
export class SiteReports {
	/** The site's reports as this execution knows them, for the client's phpRank server. */
	static of(client: PhpRankClient, project: string): SiteReports {
		return client.ofExecution(`siteReports\n${project}`, () => {
			const siteReports = new SiteReports(project);
			let ofServer = everySiteReports.get(client.server);
			if (ofServer === undefined) everySiteReports.set(client.server, (ofServer = new Set()));
			ofServer.add(new WeakRef(siteReports));
			return siteReports;
		});
	}

	/** A report this process created or re-analyzed: the newest of its URL now. */
	static stored(client: PhpRankClient, address: ReportAddress, report: IDataObject): void {
		for (const siteReports of SiteReports.ofServer(client.server)) {
			if (siteReports.project !== address.project) continue;
			// A site audit's pages are analyzed once each: it keeps that the URL has a report, not the report (see readWhole).
			siteReports.reports.set(address.url, siteReports.lean ? undefined : report);
			siteReports.held?.add(address.url);
		}
	}

	/** A report this process updated (its new state) or deleted (undefined: its URL may still have older reports). */
	static changed(client: PhpRankClient, id: unknown, report?: IDataObject): void {
		for (const siteReports of SiteReports.ofServer(client.server)) {
			for (const [url, known] of siteReports.reports) {
				if (known === undefined || String(known.id) !== String(id)) continue;
				if (report === undefined) siteReports.reports.delete(url);
				else siteReports.reports.set(url, report);
			}
		}
	}

	private static *ofServer(server: string): Generator<SiteReports> {
		const ofServer = everySiteReports.get(server) ?? [];
		for (const reference of ofServer) {
			const siteReports = reference.deref();
			if (siteReports !== undefined) yield siteReports;
			else everySiteReports.get(server)?.delete(reference);
		}
	}

	/** The URLs asked for, each with its newest report once one is known. */
	private readonly reports = new Map<string, IDataObject | undefined>();

	/** Every URL the project holds a report of, once it was read whole; a URL not in it has none. */
	private held: Set<string> | undefined;

	private reading: Promise<void> | undefined;

	/** Keeps no report once handed out (a site audit's): a URL asked again is looked up. */
	private lean = false;

	private constructor(private readonly project: string) {}

	/**
	 * The newest report phpRank holds for the address, or undefined. The project's pages are read with the
	 * client of the row that asked first; should that fail, each row looks its URL up with its own.
	 */
	async reportOf(client: PhpRankClient, address: ReportAddress): Promise<IDataObject | undefined> {
		const known = this.reports.get(address.url);
		if (known !== undefined) {
			if (this.lean) this.reports.set(address.url, undefined);
			return known;
		}
		this.reports.set(address.url, undefined);
		this.reading ??= this.read(client);
		await this.reading;
		const found = this.reports.get(address.url);
		if (found !== undefined && this.lean) this.reports.set(address.url, undefined);
		if (found !== undefined || (this.held !== undefined && !this.held.has(address.url))) return found;
		const lookedUp = await findReport(client, address);
		if (lookedUp !== undefined && this.reports.get(address.url) === undefined) this.reports.set(address.url, lookedUp);
		return this.reports.get(address.url);
	}

	/**
	 * Reads the site's reports whole now, before the URLs are known: a site audit asks for its pages one by one as it
	 * finds them, and every one of them is matched against this one read (100 reports a request). Unless the read
	 * would take more requests than looking `urls` URLs up: then page 1 only, and a lookup for each URL it leaves open.
	 */
	readWhole(client: PhpRankClient, { urls }: { urls: number }): void {
		// Each report is several kilobytes with its per-check results: a 50,000-page site's would not fit in memory.
		this.lean = true;
		this.reading ??= this.read(client, { whole: true, lookups: urls });
	}

	private unsettled(): number {
		return [...this.reports.values()].filter((report) => report === undefined).length;
	}

	/**
	 * Once every row of the run has asked (n8n starts each item of a run before any answer arrives): page 1 of
	 * the project, newest first, then the other pages only when they are fewer than the URLs page 1 left open.
	 */
	private async read(client: PhpRankClient, { whole = false, lookups = 0 } = {}): Promise<void> {
		await sleep(0);
		// For one URL, its own lookup is the one request needed.
		if (!whole && this.unsettled() < 2) return;
		const held = new Set<string>();
		const readPage = async (page: number) => {
			const query = { project: this.project, sort_by: 'id', sort: 'desc' };
			const read = await client.readPage({ url: '/reports', query, page, perPage: LARGEST_PAGE_SIZE, target: listTarget('report') });
			for (const report of read.records) {
				const url = addressOfReport(report);
				if (url === undefined) continue;
				held.add(url);
				// Newest first: a URL's first report is its newest (or the one a create of this run just stored).
				if ((whole || this.reports.has(url)) && this.reports.get(url) === undefined) this.reports.set(url, report);
			}
			return read;
		};
		try {
			const first = await readPage(1);
			if (first.lastPage - 1 > (whole ? lookups : this.unsettled())) return;
			for (let page = 2, lastPage = first.lastPage; page <= lastPage; page++) {
				const read = await readPage(page);
				// A report deleted meanwhile shifts later ones onto pages already read: the read is not whole.
				if (read.total !== undefined && first.total !== undefined && read.total < first.total) return;
				lastPage = read.lastPage;
			}
			for (const [url, report] of this.reports) if (report !== undefined) held.add(url);
			this.held = held;
		} catch {
			// Each row then looks its URL up, and fails with its own error if phpRank still fails.
		}
	}
}

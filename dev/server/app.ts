/** The request pipeline: record, proxy, worker, delay, faults, rate limit, routing, authentication, handler. */
import { once } from 'node:events';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { callApi, Settings } from './api';
import { deploymentFromJson, faultFromJson, rateLimitFromJson } from './control';
import { BAD_GATEWAY, checkDeployment, GATEWAY_TIMEOUT, RateLimiter, wait, WorkerPool } from './deployment';
import { faultAnswer, FaultBook, FaultStage } from './faults';
import { Answer, ApiError, errorBody, errorPage, expectsJson, html, htmlPage, json, Negotiation, recordRequest, renderError, serverFailure } from './http';
import { parseReportTarget } from './reportUrl';
import { siteFile, SITE_PREFIX } from './site';
import { DEFAULT_POINTS, scorePage } from './analysis';
import type { Points } from './analysis';
import { nowInSeconds, PhpRankStore, projectState, reportState, StoreDown } from './store';
import { Deployment, Fault, PageChange, PhpRankServerOptions, PhpRankUser, RateLimitConfig, RecordedRequest, SeedOptions } from './types';

const CONTROL_PREFIX = '/__sim';

/** Writes the answer unless the connection is gone; returns whether it did. */
function write(res: ServerResponse, answer: Omit<Answer, 'body'> & { body: string | Buffer }, headers: Record<string, string>): boolean {
	if (res.destroyed || res.writableEnded) return false;
	res.writeHead(answer.status, { ...answer.headers, ...headers, Connection: 'close', 'Content-Length': String(Buffer.byteLength(answer.body)) });
	res.end(answer.body);
	return true;
}

/** The headers every answer of phpRank's own carries. */
const LARAVEL_HEADERS = { 'Cache-Control': 'no-cache, private' };

/**
 * One request to the application, and the way back to its client: through the proxy when there is one, which
 * answers 504 itself once its timeout passes and discards the application's answer when it comes (its status still recorded).
 */
class Exchange {
	/** Decoded path after basePath, or undefined when the request is outside the application. */
	readonly appPath?: string;
	/** Raw path after basePath. */
	readonly rawAppPath?: string;
	readonly origin: string;
	readonly negotiation: Negotiation;
	private done = false;
	private timer?: NodeJS.Timeout;
	/** The run of PHP the request arrived in: a request still waiting for a worker when PHP stops is never worked on. */
	readonly phpRun: number;
	/** The data the request arrived to: after a reset it never touches the new data. */
	readonly dataRun: number;

	/** `app.host` is the host:port to build absolute URLs with when the request carries no Host header. */
	constructor(
		readonly record: RecordedRequest,
		private readonly res: ServerResponse,
		app: { basePath: string; host: string; phpRun: number; dataRun: number },
	) {
		this.phpRun = app.phpRun;
		this.dataRun = app.dataRun;
		const base = app.basePath;
		const inside = (path: string) => (path === base || path.startsWith(`${base}/`) ? path.slice(base.length) || '/' : undefined);
		this.appPath = inside(record.path);
		this.rawAppPath = inside(record.rawPath);
		this.origin = `http://${record.headers.host || app.host}`;
		this.negotiation = { expectsJson: expectsJson(record.headers), baseUrl: `${this.origin}${base}`, referer: record.headers.referer };
	}

	/** Starts the proxy's clock, counted from arrival: waiting for a worker uses up the proxy's patience too. */
	startProxy(gatewayTimeoutMs: number | undefined): void {
		if (gatewayTimeoutMs === undefined) return;
		this.timer = setTimeout(() => this.answerFromProxy(GATEWAY_TIMEOUT), gatewayTimeoutMs - (Date.now() - this.record.time)).unref();
	}

	/** The proxy answers in PHP's place (its timeout, PHP down): the application's answer, if any comes, is discarded. */
	answerFromProxy(answer: Answer): void {
		if (this.finish() && write(this.res, answer, {})) this.record.status = answer.status;
	}

	send(answer: Answer, extraHeaders?: Record<string, string>): void {
		this.record.handledStatus = answer.status;
		if (this.finish() && write(this.res, answer, { ...extraHeaders, ...LARAVEL_HEADERS })) this.record.status = answer.status;
	}

	drop(): void {
		if (this.finish()) this.res.socket?.destroy();
	}

	/** Claims the way back; false when the proxy has answered already. */
	private finish(): boolean {
		if (this.done) return false;
		this.done = true;
		clearTimeout(this.timer);
		this.record.answeredAt = Date.now();
		return true;
	}
}

const hostForUrl = (host: string) => (host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host);

/** The operator's points over phpRank's defaults; scores need some check to be worth a point. */
function pointsOf(reportScore: Partial<Points> = {}): Points {
	const points = { ...DEFAULT_POINTS, ...reportScore };
	for (const [importance, worth] of Object.entries(points)) {
		if (!(Number.isInteger(worth) && worth >= 0)) throw new Error(`reportScore.${importance} must be a whole number of points, 0 or more; got ${worth}`);
	}
	if (points.high + points.medium + points.low === 0) throw new Error('reportScore gives no check a point');
	return points;
}

/** A phpRank 1.5-compatible server (see README.md); start one with startPhpRankServer. */
export class PhpRankServer {
	/** Base URL including basePath, e.g. http://127.0.0.1:40123/phprank */
	url = '';
	port = 0;
	/** host:port as listened on, for absolute URLs when a request carries no Host header. */
	private host = '';
	/** API key of the first (default) user. */
	readonly apiKey: string;
	/** Every request received (except control-API calls), in order. */
	readonly requests: RecordedRequest[] = [];
	private store: PhpRankStore;
	private readonly settings: Settings;
	private readonly faults = new FaultBook();
	private readonly limiter: RateLimiter;
	private readonly pool = new WorkerPool();
	private gatewayTimeoutMs?: number;
	private server = this.newListener();
	/** Counts PHP's starts; while PHP is stopped, `phpStopped` is true. */
	private phpRun = 0;
	private phpStopped = false;
	/** Counts resets (see reset). */
	private dataRun = 0;
	/** Requests that reached PHP's side and have not been answered: a stop cuts them off. */
	private readonly pending = new Set<Exchange>();

	readonly setRateLimit = (config: RateLimitConfig | false) => this.limiter.configure(config);
	readonly injectFault = (fault: Fault) => this.faults.add(fault);
	readonly clearFaults = () => this.faults.clear();
	/** Resolves once no request is queued for a worker or being worked on (requests still arriving are not waited for). */
	readonly idle = () => this.pool.idle();
	readonly reports = (userId?: number) => this.store.allReports(userId).map(reportState);
	readonly projects = (userId?: number) => this.store.allProjects(userId).map(projectState);
	readonly seedReports = (count: number, options?: SeedOptions) => this.store.seedReports(count, options);
	/** Creates `count` distinct projects, each with one report; returns their names. */
	readonly seedProjects = (count: number, options: { userId?: number } = {}) => this.store.seed({ projects: count }, options.userId);
	readonly clearRequests = () => this.requests.splice(0);

	/** Requests a `hold` fault stopped, each waiting to go on; and who waits for one to be held. */
	private readonly held: { requests: Array<() => void>; waiters: Array<() => void> } = { requests: [], waiters: [] };

	/** Resolves once a request is held by a `hold` fault (at once if one is). */
	readonly untilHeld = async () => {
		if (this.held.requests.length === 0) await new Promise<void>((resolve) => this.held.waiters.push(resolve));
	};

	/** Lets every held request go on; returns how many there were. */
	readonly releaseHeld = () => {
		const released = this.held.requests.splice(0);
		for (const goOn of released) goOn();
		return released.length;
	};

	/** `basePath` normalised ('' or '/folder'), `users` not empty. */
	constructor(private readonly options: PhpRankServerOptions & { basePath: string; users: PhpRankUser[] }) {
		const points = pointsOf(options.reportScore);
		this.store = new PhpRankStore(options.users, points);
		this.apiKey = options.users[0].apiKey;
		const { analysisMs = 0, projectDeleteHazard = true, maxReportsPerUser, sortsByGeneratedAt = false } = options;
		this.settings = { analysisMs, projectDeleteHazard, maxReportsPerUser, sortsByGeneratedAt, changedPages: new Map(), points };
		this.limiter = new RateLimiter(options.rateLimit ?? false);
		this.setDeployment(options);
		if (options.seedReports || options.seedProjects) this.store.seed({ reports: options.seedReports, projects: options.seedProjects });
	}

	/** Whether PHP is stopped (see stop). */
	get stopped(): boolean {
		return this.phpStopped;
	}

	/**
	 * Stops PHP, as a restart, a deploy or a PHP-FPM reload does. Requests being worked on finish their work (a
	 * create is stored) but their answer is lost; requests waiting for a worker are never worked on. Without a proxy
	 * the port stops listening and connections are refused; behind the proxy (`gatewayTimeoutMs`) it answers nginx's
	 * 502 page at once, to the requests cut off and to every new one, as nginx does when it cannot reach PHP.
	 */
	async stop(): Promise<void> {
		if (this.phpStopped) return;
		this.phpStopped = true;
		this.phpRun++;
		const behindProxy = this.gatewayTimeoutMs !== undefined;
		for (const exchange of this.pending) {
			if (behindProxy) exchange.answerFromProxy(BAD_GATEWAY);
			else exchange.drop();
		}
		this.pending.clear();
		if (!behindProxy) {
			const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
			this.server.closeIdleConnections();
			await closed;
		}
	}

	/** Starts PHP again after `stop`, on the same port. */
	async start(): Promise<void> {
		if (!this.phpStopped) return;
		if (!this.server.listening) {
			this.server = this.newListener();
			await this.listen();
		}
		this.phpStopped = false;
	}

	/** Stops PHP for `ms` milliseconds and starts it again; resolves once it answers again. */
	async outage(ms: number): Promise<void> {
		await this.stop();
		await wait(ms);
		await this.start();
	}

	/** Whether phpRank's database is stopped (see stopStore). */
	get storeStopped(): boolean {
		return this.store.down;
	}

	/**
	 * Stops phpRank's database, as a MariaDB upgrade or a managed database's failover does. PHP goes on and answers
	 * every request to the application with 500 `{"message": "Server Error"}` (the error page without JSON), directly
	 * and through the proxy, before the rate limit counts it; a create or update being worked on stores nothing.
	 */
	stopStore(): void {
		this.store.down = true;
	}

	/** Starts the database again after `stopStore`: the next request is answered as usual. */
	startStore(): void {
		this.store.down = false;
	}

	/** Stops the database for `ms` milliseconds and starts it again. */
	async storeOutage(ms: number): Promise<void> {
		this.stopStore();
		await wait(ms);
		this.startStore();
	}

	async listen(): Promise<void> {
		const host = this.options.host ?? '127.0.0.1';
		// Listening again after a stop: on the port it had.
		await once(this.server.listen(this.port || (this.options.port ?? 0), host), 'listening');
		this.port = (this.server.address() as AddressInfo).port;
		this.host = `${hostForUrl(host)}:${this.port}`;
		this.url = `http://${this.host}${this.options.basePath}`;
	}

	close(): Promise<void> {
		return new Promise((resolve, reject) => {
			if (!this.server.listening) {
				resolve();
				return;
			}
			this.server.close((error) => (error ? reject(error) : resolve()));
			this.server.closeAllConnections();
		});
	}

	private newListener() {
		return createServer((req, res) => void this.handle(req, res));
	}

	/** Replaces all three settings (a key left out means none); requests under way keep their proxy timeout. */
	setDeployment({ workers, analysisMs, gatewayTimeoutMs }: Deployment): void {
		checkDeployment({ workers, analysisMs, gatewayTimeoutMs });
		this.pool.resize(workers);
		this.settings.analysisMs = analysisMs ?? 0;
		this.gatewayTimeoutMs = gatewayTimeoutMs;
	}

	/**
	 * Wipes reports, projects, recorded requests, faults and rate-limit counters; keeps the deployment. Requests still
	 * under way (delayed, held, analyzed) belong to what came before, a test that is over: their connections are
	 * closed, and nothing they do reaches the data after the reset.
	 */
	reset(): void {
		this.dataRun++;
		for (const exchange of this.pending) exchange.drop();
		this.pending.clear();
		// A handler in the middle of its work (an analysis) finishes it in the data it started with, now discarded.
		this.store = new PhpRankStore(this.options.users, this.settings.points);
		this.clearRequests();
		this.faults.clear();
		this.releaseHeld();
		this.limiter.clear();
		this.settings.changedPages.clear();
	}

	/**
	 * Simulates an edit of the page at `url` (absolute, or as phpRank shows it, e.g. example.com/blog): the
	 * next creates and re-analyses of it score the changed page. `undefined` restores the page as it was.
	 */
	changePage(url: string, change: PageChange | undefined): void {
		// An absolute URL is read as phpRank reads it; anything else is taken as a URL phpRank shows.
		const key = parseReportTarget(url)?.url ?? url;
		if (change === undefined) {
			this.settings.changedPages.delete(key);
			return;
		}
		if (!(change.quality >= 0 && change.quality <= 1)) throw new Error('A changed page needs a "quality" from 0 to 1');
		this.settings.changedPages.set(key, { quality: change.quality });
	}

	/**
	 * Reports of these absolute URLs as a create would make them now (changed pages included), without a request:
	 * what an earlier run left. Returns their ids.
	 */
	addReports(urls: string[], userId = this.options.users[0].id): number[] {
		return urls.map((url) => {
			const target = parseReportTarget(url);
			if (!target) throw new Error(`Not an absolute http(s) URL: ${url}`);
			const quality = this.settings.changedPages.get(target.url)?.quality;
			const now = nowInSeconds();
			const times = { generatedAt: now, createdAt: now, updatedAt: now };
			const fields = { ...target, score: scorePage(target.targetUrl, quality, this.settings.points), privacy: 0, password: null, ...times };
			return this.store.insertReport(userId, quality === undefined ? fields : { ...fields, quality }).id;
		});
	}

	/**
	 * Makes reports look analyzed `seconds` earlier than they were (their generated_at moved back), as a report left
	 * by an earlier audit is. Returns how many of the ids were found.
	 */
	ageReports(ids: number[], seconds: number): number {
		if (!(seconds >= 0)) throw new Error('Ageing reports needs "seconds", 0 or more');
		let aged = 0;
		for (const id of ids) {
			const report = this.store.report(id);
			if (report === undefined) continue;
			this.store.updateReport(report, { generatedAt: report.generatedAt - Math.floor(seconds) });
			aged++;
		}
		return aged;
	}

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		let exchange: Exchange | undefined;
		try {
			const current = new Exchange(await recordRequest(req), res, {
				basePath: this.options.basePath,
				host: this.host,
				phpRun: this.phpRun,
				dataRun: this.dataRun,
			});
			exchange = current;
			const { record, appPath } = current;
			if (record.path.startsWith(`${SITE_PREFIX}/`)) {
				this.serveSite(current, res);
				return;
			}
			if (appPath === CONTROL_PREFIX || appPath?.startsWith(`${CONTROL_PREFIX}/`)) {
				current.send(this.controlCall(record, appPath.slice(CONTROL_PREFIX.length) || '/'));
				return;
			}
			this.requests.push(record);
			if (this.phpStopped) {
				// A request that came in on a connection opened before the stop.
				if (this.gatewayTimeoutMs === undefined) current.drop();
				else current.answerFromProxy(BAD_GATEWAY);
				return;
			}
			current.startProxy(this.gatewayTimeoutMs);
			this.pending.add(current);
			try {
				// Everything from here is PHP's work: latency, faults and the rate limit all count from a worker's start.
				await this.pool.run(async () => {
					if (current.phpRun !== this.phpRun || current.dataRun !== this.dataRun) return;
					record.startedAt = Date.now();
					await wait(this.options.latencyMs ?? 0);
					if (await this.applyFault(current)) return;
					// Reset while it waited (its latency, a delay, a hold): cut off already.
					if (current.dataRun !== this.dataRun) return;
					await this.respond(current);
				});
			} finally {
				this.pending.delete(current);
			}
		} catch {
			if (exchange) exchange.send(json(500, errorBody(500)));
			else write(res, json(500, errorBody(500)), LARAVEL_HEADERS);
		}
	}

	/** The fixture site's files (site.ts): another web server on the same port, so no worker, rate limit or fault. */
	private serveSite({ record, origin }: Exchange, res: ServerResponse): void {
		this.requests.push(record);
		const file = siteFile(record.path.slice(SITE_PREFIX.length), `${origin}${SITE_PREFIX}`);
		record.handledStatus = file.status;
		record.answeredAt = Date.now();
		if (write(res, file, {})) record.status = file.status;
	}

	/** A call to the control API; `path` is the path after {basePath}/__sim. */
	private controlCall(record: RecordedRequest, path: string): Answer {
		const done = (act: () => void) => {
			act();
			return json(200, { ok: true });
		};
		// Each endpoint reads its JSON body only if it takes one.
		const routes: Record<string, (body: () => Record<string, unknown>) => Answer> = {
			'POST /reset': () => done(() => this.reset()),
			'POST /seed': (body) => {
				const { userId, reports, projects } = body();
				const owner = typeof userId === 'number' ? userId : undefined;
				const count = (value: unknown) => (typeof value === 'number' && value >= 0 ? Math.floor(value) : undefined);
				this.store.seed({ reports: count(reports), projects: count(projects) }, owner);
				return json(200, { reports: this.reports(owner).length, projects: this.projects(owner).length });
			},
			'POST /faults': (body) => json(201, this.injectFault(faultFromJson(body()))),
			'DELETE /faults': () => done(() => this.clearFaults()),
			'POST /held/release': () => json(200, { released: this.releaseHeld() }),
			'GET /requests': () => json(200, this.requests),
			'DELETE /requests': () => done(() => this.clearRequests()),
			'POST /deployment': (body) => done(() => this.setDeployment(deploymentFromJson(body()))),
			'POST /pages': (body) =>
				done(() => {
					const { url, quality } = body();
					if (typeof url !== 'string') throw new Error('A changed page needs its "url"');
					this.changePage(url, quality === null ? undefined : { quality: quality as number });
				}),
			'POST /reports/age': (body) => {
				const { ids, seconds } = body();
				if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'number')) throw new Error('Ageing reports needs "ids", an array of report ids');
				return json(200, { aged: this.ageReports(ids as number[], seconds as number) });
			},
			'POST /rate-limit': (body) => done(() => this.setRateLimit(rateLimitFromJson(body()))),
			// Answered before PHP stops: without a proxy the port itself stops listening, this route with it.
			'POST /outage': (body) =>
				done(() => {
					const { ms } = body();
					if (typeof ms !== 'number' || !(ms >= 0)) throw new Error('An outage needs "ms", a number of milliseconds, 0 or more');
					setImmediate(() => void this.outage(ms));
				}),
			'POST /store-outage': (body) =>
				done(() => {
					const { ms } = body();
					if (typeof ms !== 'number' || !(ms >= 0)) throw new Error('A database outage needs "ms", a number of milliseconds, 0 or more');
					void this.storeOutage(ms);
				}),
		};
		const route = routes[`${record.method} ${path.replace(/\/+$/, '')}`];
		if (!route) return json(404, { error: `No control endpoint ${record.method} ${path}` });
		try {
			return route(() => (record.rawBody.trim() ? JSON.parse(record.rawBody) : {}));
		} catch (error) {
			return json(400, { error: error instanceof Error ? error.message : String(error) });
		}
	}

	/** The fault that strikes the request at this stage, if any, noted on its record. */
	private takeFault(exchange: Exchange, stage: FaultStage): Fault | undefined {
		const { record } = exchange;
		const taken = this.faults.take({ method: record.method, path: exchange.appPath ?? record.path, query: record.query }, stage);
		if (taken) record.fault = { id: taken.id, kind: taken.fault.kind };
		return taken?.fault;
	}

	/** Returns true when the fault answered (or dropped) the request itself. */
	private async applyFault(exchange: Exchange): Promise<boolean> {
		const fault = this.takeFault(exchange, 'arrival');
		// After-handling kinds are never taken on arrival; the check tells the compiler so.
		if (!fault || fault.kind === 'dropAfterHandling' || fault.kind === 'delayAfterHandling') return false;
		if (fault.kind === 'delay') {
			await wait(fault.delayMs);
			return false;
		}
		if (fault.kind === 'hold') {
			await new Promise<void>((goOn) => {
				this.held.requests.push(goOn);
				for (const waiter of this.held.waiters.splice(0)) waiter();
			});
			return false;
		}
		if (fault.kind === 'drop') exchange.drop();
		else exchange.send(faultAnswer(fault, exchange.negotiation.baseUrl));
		return true;
	}

	private async respond(exchange: Exchange): Promise<void> {
		const { record, appPath, rawAppPath } = exchange;
		// Laravel reads the key's owner (and a signed-in web page's user) from the database before anything else.
		if (this.store.down) {
			exchange.send(serverFailure(exchange.negotiation));
			return;
		}
		if (appPath === undefined || rawAppPath === undefined || !appPath.startsWith('/api/')) {
			exchange.send(this.webPage(exchange));
			return;
		}
		const rate = this.limiter.hit(record.remoteAddress);
		const rateHeaders = rate?.headers ?? {};
		try {
			if (rate && !rate.allowed) throw new ApiError(429, errorBody(429), rate.headers);
			const answer = await callApi(record, { rawAppPath, origin: exchange.origin, store: this.store, settings: this.settings });
			// Faults that strike a request the API carried out with success: the client never learns that it was.
			const fault = answer.status < 300 ? this.takeFault(exchange, 'handled') : undefined;
			if (fault?.kind === 'delayAfterHandling') await wait(fault.delayMs);
			if (fault?.kind === 'dropAfterHandling') exchange.drop();
			else exchange.send(answer, rateHeaders);
		} catch (error) {
			// The database stopped while the request was worked on: its write failed.
			const answer = error instanceof StoreDown ? serverFailure(exchange.negotiation) : renderError(error instanceof ApiError ? error : new ApiError(500), exchange.negotiation);
			exchange.send(answer, rateHeaders);
		}
	}

	/** The non-API part of the application: just enough for redirects to land somewhere real. */
	private webPage(exchange: Exchange): Answer {
		const { record, appPath } = exchange;
		const pages: Record<string, [string, string]> = { '/': ['phpRank', 'SEO reports'], '/login': ['Login', 'Sign in to phpRank'] };
		const page = appPath === undefined ? undefined : pages[appPath];
		if (page && (record.method === 'GET' || record.method === 'HEAD')) return html(200, htmlPage(...page));
		return exchange.negotiation.expectsJson ? json(404, errorBody(404)) : errorPage(404);
	}
}

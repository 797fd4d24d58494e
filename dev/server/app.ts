/** The request pipeline: record, proxy, worker, delay, faults, rate limit, routing, authentication, handler. */
import { IncomingMessage, ServerResponse } from 'node:http';
import { controlApi, ControlHandler } from './control';
import { checkDeployment, GATEWAY_TIMEOUT, WorkerPool } from './deployment';
import { Settings } from './handlers/context';
import { readBody, recordRequest, requestInput } from './incoming';
import { FaultBook, faultAnswer, FaultStage } from './faults';
import { RateLimiter } from './rateLimit';
import { Answer, ApiError, errorBody, errorPage, expectsJson, html, htmlPage, json, Negotiation, renderError } from './responses';
import { matchRoute } from './routes';
import { freshProjectNames, seedReports } from './seed';
import { PhpRankStore } from './store';
import { parseReportTarget } from './reportUrl';
import { Deployment, Fault, PageChange, PhpRankUser, RateLimitConfig, RecordedRequest, SeedOptions } from './types';

export interface AppConfig {
	basePath: string;
	users: PhpRankUser[];
	settings: Settings;
	latencyMs: number;
	rateLimit: RateLimitConfig | false;
	workers?: number;
	gatewayTimeoutMs?: number;
	/** host:port to build absolute URLs with when a request carries no Host header. */
	fallbackHost: () => string;
}

const API_PREFIX = '/api/';
const API_V1 = '/api/v1';
const CONTROL_PREFIX = '/__sim';

export function wait(ms: number): Promise<void> {
	if (ms <= 0) return Promise.resolve();
	// Unreferenced so a pending delay never keeps a finished test run alive.
	return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Writes the answer unless the connection is gone; returns whether it did. */
function write(res: ServerResponse, answer: Answer, headers: Record<string, string>): boolean {
	if (res.destroyed || res.writableEnded) return false;
	res.writeHead(answer.status, { ...answer.headers, ...headers, Connection: 'close', 'Content-Length': String(Buffer.byteLength(answer.body)) });
	res.end(answer.body);
	return true;
}

/** Laravel's answer, with the headers every phpRank answer carries. */
function send(res: ServerResponse, answer: Answer, extraHeaders: Record<string, string> = {}): boolean {
	return write(res, answer, { ...extraHeaders, 'Cache-Control': 'no-cache, private' });
}

/**
 * The way back to the client, through the proxy when there is one: once its timeout passes it answers 504
 * itself, and the application's answer, when it comes, is discarded (its status still recorded).
 */
class Reply {
	private done = false;
	private readonly timer?: NodeJS.Timeout;

	constructor(
		private readonly req: IncomingMessage,
		private readonly res: ServerResponse,
		private readonly record: RecordedRequest,
		gatewayTimeoutMs: number | undefined,
	) {
		if (gatewayTimeoutMs === undefined) return;
		// Counted from arrival: waiting for a worker uses up the proxy's patience too.
		this.timer = setTimeout(() => this.timeOut(), gatewayTimeoutMs - (Date.now() - record.time)).unref();
	}

	send(answer: Answer, extraHeaders?: Record<string, string>): void {
		this.record.handledStatus = answer.status;
		if (this.finish() && send(this.res, answer, extraHeaders)) this.record.status = answer.status;
	}

	drop(): void {
		if (this.finish()) this.req.socket.destroy();
	}

	/** Claims the way back; false when the proxy has answered already. */
	private finish(): boolean {
		if (this.done) return false;
		this.done = true;
		clearTimeout(this.timer);
		this.record.answeredAt = Date.now();
		return true;
	}

	private timeOut(): void {
		if (this.finish() && write(this.res, GATEWAY_TIMEOUT, {})) this.record.status = GATEWAY_TIMEOUT.status;
	}
}

/** What a request looks like from inside the application. */
interface Exchange {
	record: RecordedRequest;
	/** Decoded path after basePath, or undefined when the request is outside the application. */
	appPath?: string;
	/** Raw path after basePath. */
	rawAppPath?: string;
	origin: string;
	negotiation: Negotiation;
}

export class PhpRankApp {
	readonly store: PhpRankStore;
	readonly faults = new FaultBook();
	readonly limiter: RateLimiter;
	readonly requests: RecordedRequest[] = [];
	private readonly control: ControlHandler;
	private readonly pool = new WorkerPool();
	private gatewayTimeoutMs?: number;

	constructor(private readonly config: AppConfig) {
		this.store = new PhpRankStore(config.users);
		this.limiter = new RateLimiter(config.rateLimit);
		this.control = controlApi(this);
		this.setDeployment({ workers: config.workers, analysisMs: config.settings.analysisMs, gatewayTimeoutMs: config.gatewayTimeoutMs });
	}

	/** Replaces all three settings; a key left out means none. reset() leaves them alone. */
	setDeployment(deployment: Deployment): void {
		checkDeployment(deployment);
		this.pool.resize(deployment.workers);
		this.config.settings.analysisMs = deployment.analysisMs ?? 0;
		this.gatewayTimeoutMs = deployment.gatewayTimeoutMs;
	}

	idle(): Promise<void> {
		return this.pool.idle();
	}

	clearRequests(): void {
		this.requests.length = 0;
	}

	reset(): void {
		this.store.reset();
		this.clearRequests();
		this.faults.clear();
		this.limiter.clear();
		this.config.settings.changedPages.clear();
	}

	seedReports(count: number, options: SeedOptions = {}): number[] {
		return seedReports(this.store, count, { userId: this.ownerFor(options.userId), projects: options.projects });
	}

	seedProjects(count: number, options: { userId?: number } = {}): string[] {
		return this.seed({ projects: count }, options.userId);
	}

	/**
	 * Seeds `reports` reports; with `projects`, spreads them over that many new projects, each holding
	 * at least one. Returns the new project names.
	 */
	seed(counts: { reports?: number; projects?: number }, userId?: number): string[] {
		const owner = this.ownerFor(userId);
		const names = freshProjectNames(this.store, owner, counts.projects ?? 0);
		seedReports(this.store, Math.max(counts.reports ?? 0, names.length), { userId: owner, projects: names });
		return names;
	}

	changePage(url: string, change: PageChange | undefined): void {
		// An absolute URL is read as phpRank reads it; anything else is taken as a URL phpRank shows.
		const key = parseReportTarget(url)?.url ?? url;
		if (change === undefined) {
			this.config.settings.changedPages.delete(key);
			return;
		}
		if (!(change.quality >= 0 && change.quality <= 1)) throw new Error('A changed page needs a "quality" from 0 to 1');
		this.config.settings.changedPages.set(key, { quality: change.quality });
	}

	handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		let reply: Reply | undefined;
		try {
			const record = recordRequest(req, await readBody(req));
			const exchange = this.exchange(record);
			const controlPath = this.controlPath(exchange.appPath);
			if (controlPath !== undefined) {
				send(res, await this.control(record, controlPath));
				return;
			}
			this.requests.push(record);
			const current = new Reply(req, res, record, this.gatewayTimeoutMs);
			reply = current;
			// Everything from here is PHP's work: latency, faults and the rate limit all count from a worker's start.
			await this.pool.run(async () => {
				record.startedAt = Date.now();
				await wait(this.config.latencyMs);
				if (await this.applyFault(exchange, current)) return;
				await this.respond(exchange, current);
			});
		} catch {
			if (reply) reply.send(json(500, errorBody(500)));
			else send(res, json(500, errorBody(500)));
		}
	};

	private ownerFor(userId: number | undefined): number {
		const owner = userId ?? this.config.users[0].id;
		if (!this.store.hasUser(owner)) throw new Error(`No user with id ${owner}`);
		return owner;
	}

	/** The path after {basePath}/__sim, or undefined for everything else. */
	private controlPath(appPath: string | undefined): string | undefined {
		if (appPath !== CONTROL_PREFIX && !appPath?.startsWith(`${CONTROL_PREFIX}/`)) return undefined;
		return appPath.slice(CONTROL_PREFIX.length) || '/';
	}

	private exchange(record: RecordedRequest): Exchange {
		const origin = `http://${record.headers.host || this.config.fallbackHost()}`;
		const base = this.config.basePath;
		const inside = (path: string) => path === base || path.startsWith(`${base}/`);
		return {
			record,
			appPath: inside(record.path) ? record.path.slice(base.length) || '/' : undefined,
			rawAppPath: inside(record.rawPath) ? record.rawPath.slice(base.length) || '/' : undefined,
			origin,
			negotiation: { expectsJson: expectsJson(record.headers), baseUrl: `${origin}${base}`, referer: record.headers.referer },
		};
	}

	/** The fault that strikes the request at this stage, if any, noted on its record. */
	private takeFault(exchange: Exchange, stage: FaultStage): Fault | undefined {
		const { record } = exchange;
		const taken = this.faults.take({ method: record.method, path: exchange.appPath ?? record.path, query: record.query }, stage);
		if (taken) record.fault = { id: taken.id, kind: taken.fault.kind };
		return taken?.fault;
	}

	/** Returns true when the fault answered (or dropped) the request itself. */
	private async applyFault(exchange: Exchange, reply: Reply): Promise<boolean> {
		const fault = this.takeFault(exchange, 'arrival');
		// After-handling kinds are never taken on arrival; the check tells the compiler so.
		if (!fault || fault.kind === 'dropAfterHandling' || fault.kind === 'delayAfterHandling') return false;
		if (fault.kind === 'delay') {
			await wait(fault.delayMs);
			return false;
		}
		if (fault.kind === 'drop') {
			reply.drop();
			return true;
		}
		reply.send(faultAnswer(fault, exchange.negotiation.baseUrl));
		return true;
	}

	/**
	 * Faults that strike a request the API carried out with success: the client never learns that it was.
	 * Returns true when the fault dropped the connection; a delay holds the answer back, then lets it go.
	 */
	private async applyFaultAfterHandling(exchange: Exchange, reply: Reply, answer: Answer): Promise<boolean> {
		const fault = answer.status < 300 ? this.takeFault(exchange, 'handled') : undefined;
		if (fault?.kind === 'delayAfterHandling') await wait(fault.delayMs);
		if (fault?.kind !== 'dropAfterHandling') return false;
		reply.drop();
		return true;
	}

	private async respond(exchange: Exchange, reply: Reply): Promise<void> {
		const { record, appPath, rawAppPath } = exchange;
		if (appPath === undefined || rawAppPath === undefined || !appPath.startsWith(API_PREFIX)) {
			reply.send(this.webPage(exchange));
			return;
		}
		const rate = this.limiter.hit(record.remoteAddress);
		const rateHeaders = rate?.headers ?? {};
		try {
			if (rate && !rate.allowed) throw new ApiError(429, errorBody(429), rate.headers);
			const answer = await this.api(exchange, rawAppPath);
			if (await this.applyFaultAfterHandling(exchange, reply, answer)) return;
			reply.send(answer, rateHeaders);
		} catch (error) {
			const failure = error instanceof ApiError ? error : new ApiError(500);
			reply.send(renderError(failure, exchange.negotiation), rateHeaders);
		}
	}

	private async api(exchange: Exchange, rawAppPath: string): Promise<Answer> {
		const { record } = exchange;
		const match = rawAppPath.startsWith(`${API_V1}/`) ? matchRoute(record.method, rawAppPath.slice(API_V1.length)) : { kind: 'notFound' as const };
		switch (match.kind) {
			case 'notFound':
				throw new ApiError(404);
			case 'options':
				return { status: 200, headers: { Allow: match.allow }, body: '' };
			case 'wrongMethod':
				throw new ApiError(
					405,
					{ message: `The ${record.method} method is not supported for this route. Supported methods: ${match.allow}.`, status: 405 },
					{ Allow: match.allow },
				);
		}
		const user = this.authenticate(record);
		return match.handler({
			user,
			params: match.params,
			input: requestInput(record),
			pathUrl: `${exchange.origin}${record.rawPath.replace(/\/+$/, '')}`,
			store: this.store,
			settings: this.config.settings,
			wait,
		});
	}

	/** Laravel's bearerToken(): the text after the last "Bearer " (case-sensitive), up to a comma. */
	private authenticate(record: RecordedRequest): PhpRankUser {
		const header = record.headers.authorization ?? '';
		const at = header.lastIndexOf('Bearer ');
		const token = at < 0 ? '' : header.slice(at + 7).split(',')[0];
		const user = token ? this.store.userByApiKey(token) : undefined;
		if (!user) throw new ApiError(401);
		return user;
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

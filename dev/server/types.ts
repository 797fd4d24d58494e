/** Public types of the phpRank-compatible server. */
import type { Points } from './analysis';
import type { ReportTarget } from './reportUrl';

export interface PhpRankUser {
	id: number;
	name: string;
	email: string;
	/** The 60-character token a phpRank user copies from the account's API page. */
	apiKey: string;
	/** ISO date; defaults to a fixed date so answers stay deterministic. */
	createdAt?: string;
}

export interface RateLimitConfig {
	maxAttempts: number;
	/** Length of the fixed window; may be fractional so tests can compress time. */
	decaySeconds: number;
	/** Report Retry-After / X-RateLimit-Reset as decimal seconds (ms precision) instead of whole seconds. */
	preciseRetryAfter?: boolean;
}

export interface SeedOptions {
	/** Owner of the seeded reports (default: the first user). */
	userId?: number;
	/** Project (host) names to spread the reports over, round-robin. */
	projects?: string[];
}

export interface PhpRankServerOptions {
	port?: number;
	host?: string;
	/** Sub-folder the application is mounted under, e.g. '/phprank'. */
	basePath?: string;
	users?: PhpRankUser[];
	/** Number of reports to seed for the first user at start-up. */
	seedReports?: number;
	/** Number of distinct projects to seed; combined with seedReports the reports are spread over them. */
	seedProjects?: number;
	rateLimit?: RateLimitConfig | false;
	/** Fixed delay before every answer. */
	latencyMs?: number;
	/** Extra delay for create and re-analysis, which real servers do synchronously (spent holding a worker). */
	analysisMs?: number;
	/** PHP worker pool size: at most this many requests are worked on at once, the others wait in arrival order (default: no pool). */
	workers?: number;
	/** A proxy in front answers nginx's 504 page this long after a request arrived, while PHP goes on with it (default: no proxy). */
	gatewayTimeoutMs?: number;
	/** phpRank 1.2–1.8 also deletes the report whose id equals the deleted project's report count. */
	projectDeleteHazard?: boolean;
	/** Plan quota; create answers 422 beyond it. */
	maxReportsPerUser?: number;
	/**
	 * Plays a phpRank whose API sorts reports by generated_at. phpRank 1.5's does not: it sorts by id instead, and
	 * its page links say sort_by=id (default false, as 1.5).
	 */
	sortsByGeneratedAt?: boolean;
	/** The operator's points per check importance (settings report_score_high|medium|low); phpRank's 10, 5 and 0 by default. */
	reportScore?: Partial<Points>;
}

/** The deployment around PHP (see setDeployment); a key left out means none (analysisMs: 0). */
export type Deployment = Pick<PhpRankServerOptions, 'workers' | 'analysisMs' | 'gatewayTimeoutMs'>;

/** How a page has changed since it was first analyzed (see PhpRankServer.changePage). */
export interface PageChange {
	/**
	 * The share of checks the page passes from now on, 0 to 1, in place of its own: 0 fails every check
	 * but HTTPS encryption (which follows the scheme), 1 passes them all.
	 */
	quality: number;
}

interface FaultMatch {
	/** HTTP method, case-insensitive. */
	method?: string;
	/** Exact path or pattern, matched against the decoded path after basePath (e.g. '/api/v1/reports'). */
	path?: string | RegExp;
	/** Every listed query parameter must be present with this value. */
	query?: Record<string, string>;
	/** How many matching requests the fault answers (default 1; Infinity allowed). */
	times?: number;
	/** Let the first N matching requests through before firing. */
	skip?: number;
	/** Fire on every Nth matching request only (the Nth, the 2Nth, …), letting the others through; `times` counts the firings. */
	every?: number;
}

export type FaultAction =
	| { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
	| { kind: 'html'; status?: number; html?: string; headers?: Record<string, string> }
	| { kind: 'empty'; status?: number; headers?: Record<string, string> }
	| { kind: 'malformedJson'; status?: number }
	| { kind: 'drop' }
	| { kind: 'delay'; delayMs: number }
	/** The request waits on arrival until `releaseHeld()`: a test acts while the client waits for its answer. */
	| { kind: 'hold' }
	| { kind: 'redirectLogin' }
	| { kind: 'redirect'; location: string; status?: 301 | 302 | 303 | 307 | 308 }
	/** The request is carried out (a report created, say), then the connection is closed without the answer. */
	| { kind: 'dropAfterHandling' }
	/** The request is carried out, then its answer is held back for `delayMs`: a client with a shorter timeout never gets it. */
	| { kind: 'delayAfterHandling'; delayMs: number };

export type FaultKind = FaultAction['kind'];

export type Fault = FaultMatch & FaultAction;

export interface RecordedRequest {
	method: string;
	/** Decoded pathname as received (including basePath). */
	path: string;
	/** Pathname exactly as on the wire, still percent-encoded. */
	rawPath: string;
	/** Query parameters; a repeated key keeps its last value, as PHP does. */
	query: Record<string, string>;
	/** Query string as on the wire, without '?'. */
	rawQuery: string;
	/** Lower-cased names; repeated headers joined with ', '. */
	headers: Record<string, string>;
	rawBody: string;
	/** Parsed form-urlencoded, multipart or JSON body ({} when absent or unparsable). */
	body: Record<string, unknown>;
	/** Arrival time, epoch milliseconds. */
	time: number;
	remoteAddress: string;
	/** When a worker took the request, epoch milliseconds (absent while it waits). */
	startedAt?: number;
	/** Status the client received once sent: the proxy's 504 when it gave up (absent when the connection was dropped). */
	status?: number;
	/** When the answer was sent or the connection dropped, epoch milliseconds (absent while pending). */
	answeredAt?: number;
	/** Status the application itself answered, even after the proxy's 504; without a 504 it equals `status`. */
	handledStatus?: number;
	/** The injected fault that answered this request, if any. */
	fault?: { id: number; kind: FaultKind };
}

/** A report as stored, for asserting on server state: its times as ISO text. */
export interface ReportState extends ReportTarget {
	id: number;
	userId: number;
	/** Unrounded score of the latest analysis. */
	score: number;
	/** The quality of a changed page at its latest analysis (see PhpRankServer.changePage); absent for a page as phpRank first saw it. */
	quality?: number;
	/** Stored integer score, as reads return it. */
	result: number;
	privacy: number;
	password: string | null;
	generatedAt: string;
	createdAt: string;
	updatedAt: string;
}

export interface ProjectState {
	userId: number;
	project: string;
	reports: number;
	/** Sum of the reports' integer scores. */
	result: number;
	createdAt: string;
}

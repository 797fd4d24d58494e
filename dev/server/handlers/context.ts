/** What an API handler gets to work with. */
import { Input } from '../incoming';
import { Answer } from '../responses';
import { PhpRankStore } from '../store';
import { PageChange, PhpRankUser } from '../types';

export interface Settings {
	analysisMs: number;
	projectDeleteHazard: boolean;
	maxReportsPerUser?: number;
	/** Pages changed since phpRank first saw them, by their URL as phpRank shows it. */
	changedPages: Map<string, PageChange>;
}

export interface ApiContext {
	user: PhpRankUser;
	/** Decoded path parameters. */
	params: Record<string, string>;
	input: Input;
	/** Absolute URL of the requested path without query, as Laravel's paginator uses it. */
	pathUrl: string;
	store: PhpRankStore;
	settings: Settings;
	wait(ms: number): Promise<void>;
}

export type Handler = (context: ApiContext) => Answer | Promise<Answer>;

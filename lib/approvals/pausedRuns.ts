import { createHash } from 'node:crypto';
import type { AgentState, CatalogTool } from '../agent/types';

/**
 * Paused runs, kept in the Agent node's context: n8n persists that object with the execution, so
 * it survives the wait, a restart, and reaches whichever queue-mode worker resumes. It lives only
 * server-side; nothing of it appears in node output or URLs.
 *
 * The tool catalog is most of a paused state (a 1,000-tool server is megabytes), and every item of
 * an execution pauses with the same one. So each distinct catalog is stored once, under its hash,
 * and a paused run refers to it; loading puts it back into the state.
 */
export const STORE_FORMAT = 2;

type StoredState = Omit<AgentState, 'tools'>;

interface PausedEntry {
	/** The run without its catalog (format 2); a format-1 entry holds the full state, tools included. */
	state: StoredState | AgentState;
	/** Key into `catalogs` (format 2). */
	catalog?: string;
	pausedAt: string;
	/** SHA-256 of the approval's review secret (never the secret itself), to recognize its link later. */
	reviewTokenHash?: string;
}

export interface PausedRunStore {
	format?: number;
	runs: Record<string, PausedEntry>;
	/** Each distinct catalog once, by `catalogKey`. */
	catalogs?: Record<string, CatalogTool[]>;
	/** Approvals already decided, so a replayed decision is recognized and ignored. */
	decided: string[];
	/** Approval ids in the order of the last "Needs approval" output (to pair send-and-wait answers). */
	lastOrder: string[];
}

export interface PausedRun {
	state: AgentState;
	pausedAt: string;
	reviewTokenHash?: string;
}

const MAX_DECIDED = 2000;

const keys = new WeakMap<CatalogTool[], string>();

/** A catalog's storage key: hashed once per catalog array (every item of an execution shares one). */
export function catalogKey(tools: CatalogTool[]): string {
	let key = keys.get(tools);
	if (!key) {
		key = createHash('sha256').update(JSON.stringify(tools)).digest('hex');
		keys.set(tools, key);
	}
	return key;
}

/**
 * The store in a node context, created when absent. A store written by the previous release (format
 * 1: the catalog inside every state) is read as it is; its runs are moved to the shared catalogs
 * when they are saved again.
 */
export function openStore(context: Record<string, unknown>): PausedRunStore {
	const existing = context.mcpAgent as PausedRunStore | undefined;
	if (existing && typeof existing === 'object' && existing.runs && typeof existing.runs === 'object') {
		existing.decided ??= [];
		existing.lastOrder ??= [];
		return existing;
	}
	const store: PausedRunStore = { format: STORE_FORMAT, runs: {}, catalogs: {}, decided: [], lastOrder: [] };
	context.mcpAgent = store;
	return store;
}

export function savePausedRun(store: PausedRunStore, approvalId: string, state: AgentState, now: string, reviewTokenHash?: string): void {
	const { tools, ...rest } = state;
	const key = catalogKey(tools);
	store.catalogs ??= {};
	if (!Object.hasOwn(store.catalogs, key)) store.catalogs[key] = tools;
	store.format = STORE_FORMAT;
	store.runs[approvalId] = { state: rest, catalog: key, pausedAt: now, ...(reviewTokenHash ? { reviewTokenHash } : {}) };
}

/** The full state of an entry, or undefined when its catalog is missing (a damaged store: fail closed). */
function load(store: PausedRunStore, entry: PausedEntry): PausedRun | undefined {
	let state: AgentState;
	if (entry.catalog === undefined) {
		// Format 1: the state carries its own catalog.
		if (!Array.isArray((entry.state as AgentState).tools)) return undefined;
		state = entry.state as AgentState;
	} else {
		const tools = store.catalogs && Object.hasOwn(store.catalogs, entry.catalog) ? store.catalogs[entry.catalog] : undefined;
		if (!Array.isArray(tools)) return undefined;
		state = { ...(entry.state as StoredState), tools };
	}
	return { state, pausedAt: entry.pausedAt, ...(entry.reviewTokenHash ? { reviewTokenHash: entry.reviewTokenHash } : {}) };
}

/** A paused run without taking it (it stays paused). */
export function peekPausedRun(store: PausedRunStore, approvalId: string): PausedRun | undefined {
	const entry = Object.hasOwn(store.runs, approvalId) ? store.runs[approvalId] : undefined;
	return entry ? load(store, entry) : undefined;
}

export type TakenRun = ({ kind: 'run' } & PausedRun) | { kind: 'replayed' } | { kind: 'unknown' };

/** Removes and returns a paused run: each approval is resumed at most once. */
export function takePausedRun(store: PausedRunStore, approvalId: string): TakenRun {
	const entry = Object.hasOwn(store.runs, approvalId) ? store.runs[approvalId] : undefined;
	if (!entry) return store.decided.includes(approvalId) ? { kind: 'replayed' } : { kind: 'unknown' };
	const loaded = load(store, entry);
	if (!loaded) return { kind: 'unknown' };
	delete store.runs[approvalId];
	store.decided.push(approvalId);
	if (store.decided.length > MAX_DECIDED) store.decided.splice(0, store.decided.length - MAX_DECIDED);
	dropUnusedCatalogs(store);
	return { kind: 'run', ...loaded };
}

/** Puts a run back (its decision was rejected), so a valid decision can still resume it. */
export function restorePausedRun(store: PausedRunStore, approvalId: string, state: AgentState, pausedAt: string, reviewTokenHash?: string): void {
	savePausedRun(store, approvalId, state, pausedAt, reviewTokenHash);
	store.decided = store.decided.filter((id) => id !== approvalId);
}

/** Replaces the review-secret hash of a paused run (its request was handed out with a new link). */
export function setReviewTokenHash(store: PausedRunStore, approvalId: string, reviewTokenHash: string): void {
	const entry = Object.hasOwn(store.runs, approvalId) ? store.runs[approvalId] : undefined;
	if (entry) entry.reviewTokenHash = reviewTokenHash;
}

function dropUnusedCatalogs(store: PausedRunStore): void {
	if (!store.catalogs) return;
	const used = new Set(Object.values(store.runs).map((entry) => entry.catalog));
	for (const key of Object.keys(store.catalogs)) if (!used.has(key)) delete store.catalogs[key];
}

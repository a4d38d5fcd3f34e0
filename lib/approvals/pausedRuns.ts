import { createHash } from 'node:crypto';
import { migrateAgentState, StoredStateError, UPDATE_THE_PACKAGE } from '../agent/stateSchema';
import type { AgentState } from '../agent/types';
import type { CatalogTool } from '../providers/modelTypes';

/**
 * Paused runs, kept in the Agent node's context: n8n persists that object with the execution, so
 * it survives the wait, a restart, and reaches whichever queue-mode worker resumes. It lives only
 * server-side; nothing of it appears in node output or URLs.
 *
 * The tool catalog is most of a paused state (a 1,000-tool server is megabytes), and every item of
 * an execution pauses with the same one. So each distinct catalog is stored once, under its hash,
 * and a paused run refers to it; loading puts it back into the state.
 *
 * The store has a schema version (`format`), checked when it is opened; each run's state has its
 * own (lib/agent/stateSchema.ts), checked when it is loaded. Released formats:
 * - 1 (0.1.0): no `format` key; each run holds its full state, catalog included.
 * - 2: catalogs stored once (`catalogs`), runs refer to theirs by key; review-secret hashes.
 * A store of an older format is migrated when opened; one from a newer release is refused.
 * test/unit/storedStateFixtures.test.ts resumes a stored fixture of each format.
 */
export const STORE_FORMAT = 2;

type StoredState = Omit<AgentState, 'tools'>;

interface PausedEntry {
	/** The run without its catalog. */
	state: StoredState;
	/** Key into `catalogs`; absent only in an entry whose catalog was lost (damaged: never resumed). */
	catalog?: string;
	pausedAt: string;
	/** SHA-256 of the approval's review secret (never the secret itself), to recognize its link later. */
	reviewTokenHash?: string;
	/**
	 * The approval's decision key (decisionProof.ts): a decision item applies only with a proof made
	 * under it. Derived from the review secret, kept only here; absent in runs paused before it was
	 * recorded, whose decision items then decide nothing (the request goes out again, with a key).
	 */
	decisionKey?: string;
	/**
	 * The n8n execution that handed the approval out. n8n resumes a waiting execution under its own
	 * id; a Retry copies the execution, this store included, under a new one: a decision that
	 * reaches such a copy was made for the other execution (which may have used it already).
	 */
	executionId?: string;
}

export interface PausedRunStore {
	format: number;
	runs: Record<string, PausedEntry>;
	/** Each distinct catalog once, by `catalogKey`. */
	catalogs: Record<string, CatalogTool[]>;
	/** Approvals already decided, so a replayed decision is recognized and ignored. */
	decided: string[];
	/** Approval ids in the order of the last "Needs approval" output (to pair send-and-wait answers). */
	lastOrder: string[];
}

export interface PausedRun {
	state: AgentState;
	pausedAt: string;
	reviewTokenHash?: string;
	decisionKey?: string;
	executionId?: string;
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

/** True when this execution paused a run that has not been taken back yet (it is being resumed). */
export function hasPausedRuns(store: PausedRunStore): boolean {
	return Object.keys(store.runs).length > 0;
}

/**
 * The store in a node context, created when absent, migrated to the current format when an earlier
 * release wrote it. Fails closed on a store from a newer release: its runs cannot be read safely.
 */
export function openStore(context: Record<string, unknown>): PausedRunStore {
	const existing = context.mcpAgent as Record<string, unknown> | undefined;
	if (existing && typeof existing === 'object' && existing.runs && typeof existing.runs === 'object') return migrateStore(existing);
	const store: PausedRunStore = { format: STORE_FORMAT, runs: {}, catalogs: {}, decided: [], lastOrder: [] };
	context.mcpAgent = store;
	return store;
}

/** Brings a stored store to STORE_FORMAT in place (n8n persists the context object as it is). */
function migrateStore(stored: Record<string, unknown>): PausedRunStore {
	const format = stored.format ?? 1;
	if (typeof format !== 'number' || !Number.isInteger(format) || format < 1) {
		throw new StoredStateError(`The Agent's paused runs have an unreadable store format (${JSON.stringify(format)})`);
	}
	if (format > STORE_FORMAT) {
		throw new StoredStateError(
			`The Agent's paused runs were stored by a newer version of n8n-nodes-mcp-agent (store format ${format}; this version reads up to ${STORE_FORMAT})`,
			UPDATE_THE_PACKAGE,
		);
	}
	const store = stored as unknown as PausedRunStore;
	if (!Array.isArray(store.decided)) store.decided = [];
	if (!Array.isArray(store.lastOrder)) store.lastOrder = [];
	if (!store.catalogs || typeof store.catalogs !== 'object') store.catalogs = {};
	if (format === 1) catalogsOutOfStates(store);
	store.format = STORE_FORMAT;
	return store;
}

/** Format 1 -> 2: every state carried its own catalog; each distinct one moves to `catalogs`. */
function catalogsOutOfStates(store: PausedRunStore): void {
	for (const entry of Object.values(store.runs)) {
		const { tools, ...rest } = entry.state as AgentState;
		// A state without a catalog gets no key: loading it fails closed (an unknown run).
		if (!Array.isArray(tools)) continue;
		const key = catalogKey(tools);
		if (!Object.hasOwn(store.catalogs, key)) store.catalogs[key] = tools;
		entry.state = rest;
		entry.catalog = key;
	}
}

export function savePausedRun(
	store: PausedRunStore,
	approvalId: string,
	state: AgentState,
	now: string,
	reviewTokenHash?: string,
	executionId?: string,
	decisionKey?: string,
): void {
	const { tools, ...rest } = state;
	const key = catalogKey(tools);
	if (!Object.hasOwn(store.catalogs, key)) store.catalogs[key] = tools;
	store.runs[approvalId] = {
		state: rest,
		catalog: key,
		pausedAt: now,
		...(reviewTokenHash ? { reviewTokenHash } : {}),
		...(decisionKey ? { decisionKey } : {}),
		...(executionId ? { executionId } : {}),
	};
}

/**
 * The full state of an entry, or undefined when its catalog is missing (a damaged store: fail
 * closed). A state of an older schema is migrated; one of a newer schema throws.
 */
function load(store: PausedRunStore, approvalId: string, entry: PausedEntry): PausedRun | undefined {
	const tools = entry.catalog !== undefined && Object.hasOwn(store.catalogs, entry.catalog) ? store.catalogs[entry.catalog] : undefined;
	if (!Array.isArray(tools)) return undefined;
	const state = migrateAgentState({ ...entry.state, tools }, `The paused run of approval ${approvalId}`);
	return {
		state,
		pausedAt: entry.pausedAt,
		...(entry.reviewTokenHash ? { reviewTokenHash: entry.reviewTokenHash } : {}),
		...(entry.decisionKey ? { decisionKey: entry.decisionKey } : {}),
		...(entry.executionId ? { executionId: entry.executionId } : {}),
	};
}

/** A paused run without taking it (it stays paused). */
export function peekPausedRun(store: PausedRunStore, approvalId: string): PausedRun | undefined {
	const entry = Object.hasOwn(store.runs, approvalId) ? store.runs[approvalId] : undefined;
	return entry ? load(store, approvalId, entry) : undefined;
}

export type TakenRun = ({ kind: 'run' } & PausedRun) | { kind: 'replayed' } | { kind: 'unknown' };

/** Removes and returns a paused run: each approval is resumed at most once. */
export function takePausedRun(store: PausedRunStore, approvalId: string): TakenRun {
	const entry = Object.hasOwn(store.runs, approvalId) ? store.runs[approvalId] : undefined;
	if (!entry) return store.decided.includes(approvalId) ? { kind: 'replayed' } : { kind: 'unknown' };
	const loaded = load(store, approvalId, entry);
	if (!loaded) return { kind: 'unknown' };
	delete store.runs[approvalId];
	store.decided.push(approvalId);
	if (store.decided.length > MAX_DECIDED) store.decided.splice(0, store.decided.length - MAX_DECIDED);
	dropUnusedCatalogs(store);
	return { kind: 'run', ...loaded };
}

/** Puts a run back (its decision was rejected), so a valid decision can still resume it. */
export function restorePausedRun(store: PausedRunStore, approvalId: string, run: PausedRun): void {
	savePausedRun(store, approvalId, run.state, run.pausedAt, run.reviewTokenHash, run.executionId, run.decisionKey);
	store.decided = store.decided.filter((id) => id !== approvalId);
}

/**
 * A paused run's request was handed out again: with this review-secret hash and decision key (a new
 * link, or the same), from this execution (a Retry's copy takes the approval over; a decision for
 * the execution it was copied from no longer applies to it).
 */
export function reissuePausedRun(store: PausedRunStore, approvalId: string, reviewTokenHash: string, executionId?: string, decisionKey?: string): void {
	const entry = Object.hasOwn(store.runs, approvalId) ? store.runs[approvalId] : undefined;
	if (!entry) return;
	// A new secret without a key must not keep the old secret's key (its decisions then apply nothing).
	if (decisionKey) entry.decisionKey = decisionKey;
	else if (entry.reviewTokenHash !== reviewTokenHash) delete entry.decisionKey;
	entry.reviewTokenHash = reviewTokenHash;
	if (executionId) entry.executionId = executionId;
}

function dropUnusedCatalogs(store: PausedRunStore): void {
	const used = new Set(Object.values(store.runs).map((entry) => entry.catalog));
	for (const key of Object.keys(store.catalogs)) if (!used.has(key)) delete store.catalogs[key];
}

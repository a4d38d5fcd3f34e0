import type { AgentState } from '../agent/types';

/**
 * Paused runs, kept in the Agent node's context: n8n persists that object with the execution, so
 * it survives the wait, a restart, and reaches whichever queue-mode worker resumes. It lives only
 * server-side; nothing of it appears in node output or URLs.
 */
export interface PausedRunStore {
	runs: Record<string, { state: AgentState; pausedAt: string }>;
	/** Approvals already decided, so a replayed decision is recognized and ignored. */
	decided: string[];
	/** Approval ids in the order of the last "Needs approval" output (to pair send-and-wait answers). */
	lastOrder: string[];
}

const MAX_DECIDED = 2000;

export function openStore(context: Record<string, unknown>): PausedRunStore {
	const existing = context.mcpAgent as PausedRunStore | undefined;
	if (existing && typeof existing === 'object' && existing.runs) return existing;
	const store: PausedRunStore = { runs: {}, decided: [], lastOrder: [] };
	context.mcpAgent = store;
	return store;
}

export function savePausedRun(store: PausedRunStore, approvalId: string, state: AgentState, now: string): void {
	store.runs[approvalId] = { state, pausedAt: now };
}

export type TakenRun = { kind: 'run'; state: AgentState } | { kind: 'replayed' } | { kind: 'unknown' };

/** Removes and returns a paused run: each approval is resumed at most once. */
export function takePausedRun(store: PausedRunStore, approvalId: string): TakenRun {
	const entry = store.runs[approvalId];
	if (!entry) return store.decided.includes(approvalId) ? { kind: 'replayed' } : { kind: 'unknown' };
	delete store.runs[approvalId];
	store.decided.push(approvalId);
	if (store.decided.length > MAX_DECIDED) store.decided.splice(0, store.decided.length - MAX_DECIDED);
	return { kind: 'run', state: entry.state };
}

/** Puts a run back (its decision was rejected), so a valid decision can still resume it. */
export function restorePausedRun(store: PausedRunStore, approvalId: string, state: AgentState, pausedAt: string): void {
	store.runs[approvalId] = { state, pausedAt };
	store.decided = store.decided.filter((id) => id !== approvalId);
}

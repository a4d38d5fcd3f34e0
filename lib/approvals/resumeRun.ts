import { isAtOrAfter } from '../agent/review';
import { step } from '../agent/step';
import type { AgentState } from '../agent/types';
import { McpAgentError } from '../errors';
import { PROVIDER_NAMES } from '../providers/providerId';
import { peekPausedRun, restorePausedRun, takePausedRun, type PausedRun } from './pausedRuns';
import type { ItemAction, ResumeContext } from './resumeContext';

/**
 * The two ends every resume route comes to: the paused run continues (taken from the store, once),
 * or it stays pending and its request goes out again. Routes decide which; this decides how.
 */

/** Why a decision can find no paused run, and what to check. */
const NOT_PAUSED_HERE =
	'A decision resumes the execution that paused its run: it must reach this node from that execution\'s MCP Approval (or send-and-wait) node, once. A decision copied from another execution, or one whose paused run was lost, cannot be applied.';

export const NOTICE_OTHER_EXECUTION =
	'This execution is a copy of the one that asked for this review (n8n\'s Retry), so the decision made there is not applied here: it may have run the calls already. Decide again on this request to run them in this execution.';

/** The item cannot be applied; the message says what was wrong (never a secret). */
export class ResumeRefused extends McpAgentError {
	constructor(message: string, description?: string) {
		super(message, { code: 'review', ...(description !== undefined ? { description } : {}) });
		this.name = 'ResumeRefused';
	}
}

export function notPausedHere(approvalId: string): ResumeRefused {
	return new ResumeRefused(`No paused run is waiting for approval ${approvalId} in this execution`, NOT_PAUSED_HERE);
}

function openExpiry(run: PausedRun): string | undefined {
	return run.state.phase.name === 'run_tools' ? run.state.phase.approval?.expiresAt : undefined;
}

/** Expired, or not recognizably open: fail closed. */
export function isExpired(run: PausedRun, now: Date): boolean {
	const expiresAt = openExpiry(run);
	return expiresAt === undefined || isAtOrAfter(now.toISOString(), expiresAt);
}

/** The run was handed out by another execution, which this one is a copy of (a Retry). */
function handedOutElsewhere(run: PausedRun, context: ResumeContext): boolean {
	return run.executionId !== undefined && run.executionId !== context.executionId;
}

/**
 * Applies a decision (or, with `decides` false, the expiry) to a paused run, taking it: each
 * approval continues once. A decision that reaches a copy of the execution that asked for it is
 * not applied there; the request goes out again from this execution (an expiry still applies: it
 * only denies).
 */
export function resume(context: ResumeContext, approvalId: string, apply: (state: AgentState) => AgentState, decides = true): ItemAction {
	const paused = decides ? peekPausedRun(context.store, approvalId) : undefined;
	if (paused && handedOutElsewhere(paused, context)) return stillPending(context, approvalId, paused, NOTICE_OTHER_EXECUTION);
	const taken = takePausedRun(context.store, approvalId);
	if (taken.kind === 'replayed') return { kind: 'replayed' };
	if (taken.kind === 'unknown') throw notPausedHere(approvalId);
	refuseOtherProvider(context, approvalId, taken, 'the decision was not applied and nothing ran');
	let state: AgentState;
	try {
		state = apply(taken.state);
	} catch (error) {
		restorePausedRun(context.store, approvalId, taken);
		throw new ResumeRefused(`Decision rejected: ${(error as Error).message}`, McpAgentError.isInstance(error) ? error.description : undefined);
	}
	// The same execution resumed twice at once (n8n 1.x): the other copy of this run goes on.
	if (context.claimResume && !context.claimResume(approvalId, taken.executionId)) return { kind: 'replayed' };
	// Pinning at execution time: approved calls run only if their tool is still what the reviewer saw.
	return { kind: 'continue', state: step(state, { type: 'catalog_refreshed', tools: context.catalog }) };
}

/**
 * A run woken to check its MCP tasks (its approval stays open): taken from the store like any
 * resume, so one wake continues it once; runAgent checks the tasks, and while they run the node
 * pauses it again under the same approval (`reopened`). Not claimed process-wide as decisions are:
 * the same approval wakes again for every check.
 */
export function checkTasksOf(context: ResumeContext, approvalId: string, previousReviewUrl?: string): ItemAction {
	const taken = takePausedRun(context.store, approvalId);
	if (taken.kind === 'replayed') return { kind: 'replayed' };
	if (taken.kind === 'unknown') throw notPausedHere(approvalId);
	const { kind: _kind, ...run } = taken;
	refuseOtherProvider(context, approvalId, run, 'its tasks were not checked');
	return {
		kind: 'continue',
		state: step(run.state, { type: 'catalog_refreshed', tools: context.catalog }),
		reopened: { approvalId, run, ...(previousReviewUrl ? { previousReviewUrl } : {}) },
	};
}

/** A run taken under another Provider than the node's now is put back, and the resume refused saying so. */
function refuseOtherProvider(context: ResumeContext, approvalId: string, run: PausedRun, what: string): void {
	if (!context.provider || run.state.provider === context.provider) return;
	restorePausedRun(context.store, approvalId, run);
	const then = PROVIDER_NAMES[run.state.provider] ?? String(run.state.provider);
	throw new ResumeRefused(
		`This run paused while the Agent's Provider was ${then}; it is now ${PROVIDER_NAMES[context.provider]}, so ${what}`,
		`Set Provider back to ${then} to continue runs that paused with it: their conversation is stored in that API's format. Runs started after the change use the new provider.`,
	);
}

function expire(context: ResumeContext, approvalId: string): ItemAction {
	const at = context.now.toISOString();
	return resume(context, approvalId, (state) => step(state, { type: 'approval_expired', approvalId, at }), false);
}

/** Still pending: expired ones are denied as expired, the others handed out again. */
export function stillPending(context: ResumeContext, approvalId: string, run: PausedRun, notice: string, previousReviewUrl?: string): ItemAction {
	if (isExpired(run, context.now)) return expire(context, approvalId);
	return { kind: 'pending', approvalId, run, notice, ...(previousReviewUrl ? { previousReviewUrl } : {}) };
}

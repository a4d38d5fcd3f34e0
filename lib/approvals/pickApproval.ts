import type { PausedRunStore } from './pausedRuns';
import type { ResumeContext } from './resumeContext';
import { providedTokenHash, reviewTokenHashMatches } from './reviewToken';

/** What a channel answer itself says about the approval it answers. */
export interface AnswerClues {
	/** The approval id the answer names (a POSTed body's or send-and-wait data's `approvalId`). */
	named?: string;
	/** The review secret the answer carries (decisions only: an answer without one has none). */
	reviewToken?: string;
}

export type PickContext = Pick<ResumeContext, 'store' | 'pairedIndex' | 'pairedStraight' | 'legacyOrder'>;

/**
 * Which paused approval a channel answer belongs to; undefined when nothing says so plainly (the
 * route then refuses, or starts a new run). Secrets before positions: n8n pairs a resumed Wait
 * node's one item with the first request, whichever link it was POSTed to.
 */
export function pickApproval(clues: AnswerClues, context: PickContext): string | undefined {
	if (clues.named !== undefined) return clues.named;
	const bySecret = approvalOfSecret(context.store, clues.reviewToken);
	if (bySecret !== undefined) return bySecret;
	if (!positionsHoldAll(context)) return undefined;
	const position = pairedPosition(context);
	if (position !== undefined) return context.store.lastOrder[position];
	return context.store.lastOrder.length === 1 ? context.store.lastOrder[0] : undefined;
}

/** The one paused run whose review secret this is (each approval has its own), if any. */
function approvalOfSecret(store: PausedRunStore, token: string | undefined): string | undefined {
	// Hashed once, whatever the number of paused runs (as the review page does).
	const tokenHash = providedTokenHash(token);
	if (tokenHash === undefined) return undefined;
	const matching = Object.keys(store.runs).filter((id) => reviewTokenHashMatches(tokenHash, store.runs[id].reviewTokenHash));
	return matching.length === 1 ? matching[0] : undefined;
}

/**
 * In the legacy execution order the Agent may run again before an answer comes: when a run paused
 * by an earlier pass is missing from the last output's order, positions name the wrong approval.
 */
function positionsHoldAll(context: PickContext): boolean {
	const { store } = context;
	return !context.legacyOrder || Object.keys(store.runs).every((id) => store.lastOrder.includes(id));
}

/** The answer's position among the last "Needs Approval" items, when that position can be trusted. */
function pairedPosition(context: PickContext): number | undefined {
	const index = context.pairedStraight === true ? context.pairedIndex : undefined;
	return index !== undefined && index >= 0 && index < context.store.lastOrder.length ? index : undefined;
}

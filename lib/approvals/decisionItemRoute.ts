import { step } from '../agent/step';
import type { ReviewDecision } from '../agent/types';
import type { ApprovalDecisionItem } from './approvalRequest';
import { decisionProofMatches } from './decisionProof';
import { peekPausedRun, type PausedRun } from './pausedRuns';
import type { ItemAction, ResumeContext } from './resumeContext';
import { resume, stillPending } from './resumeRun';

export const NOTICE_DECISION_NOT_FROM_APPROVAL =
	'A decision item reached the Agent from a node other than MCP Approval, so it was not applied: anyone who saw the request could write an item of that shape. Connect MCP Approval\'s output straight to the Agent. The calls are still pending.';
export const NOTICE_DECISION_WITHOUT_PROOF =
	'A decision item without a valid proof from MCP Approval reached the Agent, so it was not applied (it was changed on the way, copied from another approval, or made by an earlier version of the package). Decide again on this request. The calls are still pending.';

/**
 * Route "decision item": MCP Approval's signed decision (from the review page, with any answers to
 * a server's input requests). Only MCP Approval's own checks make it count: straight from its
 * node, with its proof. One for no paused run goes on to `resume`, which tells a replay from an
 * unknown approval.
 */
export function resumeByDecisionItem(item: ApprovalDecisionItem, context: ResumeContext): ItemAction {
	const run = peekPausedRun(context.store, item.approvalId);
	const problem = run ? decisionItemProblem(item, run, context) : undefined;
	if (run && problem) return stillPending(context, item.approvalId, run, problem);
	const nowIso = context.now.toISOString();
	return resume(context, item.approvalId, (state) =>
		step(state, {
			type: 'approval_decided',
			approvalId: item.approvalId,
			decisions: item.decisions as ReviewDecision[],
			reviewer: item.reviewer,
			decidedAt: item.decidedAt ?? nowIso,
			receivedAt: nowIso,
		}),
	);
}

/** Why the decision item may not decide this paused run (a notice), or undefined when it may. */
function decisionItemProblem(item: ApprovalDecisionItem, run: PausedRun, context: ResumeContext): string | undefined {
	if (context.fromApprovalNode !== true) return NOTICE_DECISION_NOT_FROM_APPROVAL;
	if (!decisionProofMatches(item as unknown as Record<string, unknown>, run.decisionKey)) return NOTICE_DECISION_WITHOUT_PROOF;
	return undefined;
}

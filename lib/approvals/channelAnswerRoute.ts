import { pendingInputs, step } from '../agent/step';
import { channelReviewDecisions, bindingProblem } from './channelBinding';
import type { ChannelDecision } from './channelDecision';
import { peekPausedRun, type PausedRun } from './pausedRuns';
import { pickApproval } from './pickApproval';
import type { ItemAction, ResumeContext } from './resumeContext';
import { resume, ResumeRefused, stillPending } from './resumeRun';
import { reviewTokenMatches } from './reviewToken';

export const NOTICE_NO_DECISION =
	'The approval channel resumed without a decision (a GET, or a link preview opening the URL); decisions in a URL are ignored. The calls are still pending.';
export const NOTICE_INPUT_ON_PAGE =
	'The approval channel approved, but a tool server asked for input that only a person can give on the review page (or by an API POST); an approval in a chat or e-mail does not answer it. Nothing was decided: open the review link to answer.';
export const NOTICE_WEBHOOK_WITHOUT_SECRET =
	'A decision was POSTed to the Wait node without this approval\'s review secret, so it was not applied (on n8n 1.x anyone who can reach n8n could POST to a Wait node\'s URL). POST to the request\'s reviewUrl, which carries the secret, or add "reviewToken" to the body. The calls are still pending.';
export const NOTICE_NOT_FROM_SEND_AND_WAIT =
	'An answer with data.approved reached the Agent from a node that is not a send-and-wait node, without this approval\'s review secret, so it was not applied (an API\'s answer or a Set node is not a person\'s decision). Wire the send-and-wait node straight to the Agent, or add "reviewToken" (from the request\'s reviewUrl) to the answer. The calls are still pending.';
export const NOTICE_SIGN_IN_REQUIRED =
	'An answer with this approval\'s review secret reached the Agent without going through MCP Approval, whose reviewers must sign in to n8n, so it was not applied: the secret is in every copy of the review link. Decide on the review page. The calls are still pending.';

/**
 * Route "channel decision": a yes or no from a send-and-wait node (Slack, Gmail, a Form…) or a
 * Wait node's POST, for every pending call of one approval (channelDecision.ts). `fromOtherNode`:
 * the answer came through a node that is no send-and-wait node, so only the review secret makes it
 * a person's answer.
 */
export function resumeByChannelDecision(decision: ChannelDecision, fromOtherNode: boolean, context: ResumeContext): ItemAction {
	const approvalId = pickApproval({ named: decision.approvalId, reviewToken: decision.reviewToken }, context);
	if (!approvalId) {
		throw new ResumeRefused(
			'An approval answer arrived, but it is not clear which pending approval it answers',
			'Wire the send-and-wait node directly between "Needs Approval" and this node, or add the request\'s reviewToken (the parameter of its reviewUrl) to the answer.',
		);
	}
	const run = peekPausedRun(context.store, approvalId);
	const problem = run ? channelDecisionProblem(decision, fromOtherNode, run, context) : undefined;
	if (run && problem) return stillPending(context, approvalId, run, problem);
	const nowIso = context.now.toISOString();
	return resume(context, approvalId, (state) =>
		step(state, { type: 'approval_decided', approvalId, decisions: channelReviewDecisions(decision, state), reviewer: decision.reviewer ?? 'approval channel', decidedAt: nowIso, receivedAt: nowIso }),
	);
}

/** Why the channel decision may not decide this paused run (a notice; the calls stay pending), or undefined when it may. */
function channelDecisionProblem(decision: ChannelDecision, fromOtherNode: boolean, run: PausedRun, context: ResumeContext): string | undefined {
	// Neither n8n nor a send-and-wait node signed it: only the approval's review secret makes it count.
	const unsigned = decision.viaWebhook || fromOtherNode;
	if (unsigned && !reviewTokenMatches(decision.reviewToken, run.reviewTokenHash)) return decision.viaWebhook ? NOTICE_WEBHOOK_WITHOUT_SECRET : NOTICE_NOT_FROM_SEND_AND_WAIT;
	if (unsigned && context.approvalSignIn === true) return NOTICE_SIGN_IN_REQUIRED;
	const binding = bindingProblem(decision, run.state);
	if (binding) return binding;
	// Fail closed: an approve cannot answer a server's input request (it carries no values), so nothing is applied.
	// A deny needs no values: it denies every call of the approval, input included, and nothing more runs for them.
	if (decision.approved && run.state.phase.name === 'run_tools' && pendingInputs(run.state.phase).length > 0) return NOTICE_INPUT_ON_PAGE;
	return undefined;
}

/**
 * Route "channel without decision": a channel woke the run with no yes or no (a bare GET of the
 * Wait node's URL, a link preview, a form without `approved`). The calls stay pending; an item that
 * answers nothing paused here (a Webhook trigger's request) starts a new run.
 */
export function resumeByChannelWake(named: string | undefined, context: ResumeContext): ItemAction {
	const approvalId = pickApproval({ named }, context);
	const run = approvalId ? peekPausedRun(context.store, approvalId) : undefined;
	if (!approvalId || !run) return { kind: 'start' };
	return stillPending(context, approvalId, run, NOTICE_NO_DECISION);
}

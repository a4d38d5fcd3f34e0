import { isApprovalDecision, isApprovalRequest, type ApprovalRequest } from './approvalRequest';
import { peekPausedRun } from './pausedRuns';
import type { ItemAction, ResumeContext } from './resumeContext';
import { checkTasksOf, isExpired, notPausedHere, stillPending } from './resumeRun';
import { waitingTasks } from '../agent/step';
import { taskWakeDue } from './taskWait';
import type { PausedRun } from './pausedRuns';

export const NOTICE_STILL_OPEN =
	'Another approval of this execution ended the wait first (it was decided, or it expired); this one has not expired and its calls are still pending.';

/**
 * Route "returned request": the Agent's own "Needs Approval" item back again. MCP Approval passes a
 * request through unchanged when its wait ends, which is at the earliest expiry of all the
 * approvals it holds: each is judged by its own expiry, read from the state, and either expires
 * or goes out again.
 */
export function resumeByReturnedRequest(request: ApprovalRequest, context: ResumeContext): ItemAction {
	const { store } = context;
	const run = peekPausedRun(store, request.approvalId);
	if (!run) {
		if (store.decided.includes(request.approvalId)) return { kind: 'replayed' };
		throw notPausedHere(request.approvalId);
	}
	const previousReviewUrl = typeof request.reviewUrl === 'string' ? request.reviewUrl : undefined;
	// Its tasks are checked whenever the wait ends (their wake, another approval decided): the
	// check is one status request each, and the run pauses again under this approval while they run.
	if (hasWaitingTasks(run) && !isExpired(run, context.now)) return checkTasksOf(context, request.approvalId, previousReviewUrl);
	return stillPending(context, request.approvalId, run, NOTICE_STILL_OPEN, previousReviewUrl);
}

function hasWaitingTasks(run: PausedRun): boolean {
	return run.state.phase.name === 'run_tools' && waitingTasks(run.state.phase).length > 0;
}

/**
 * Request items that come back while none of them has expired and nothing was decided were not
 * passed through by MCP Approval (which wakes at the earliest expiry, or with a decision): the
 * "Needs Approval" output is wired straight back into the Agent. Handing them out again would loop
 * without end inside one execution, so the Agent refuses that wiring.
 */
const WAIT_TIMER_SLACK_MS = 5_000;


/** `fromApprovalNode`: the items come straight from MCP Approval, which passes requests on only at its timer or a task wake. */
export function isWiredStraightBack(items: Array<Record<string, unknown>>, context: Pick<ResumeContext, 'store' | 'now' | 'fromApprovalNode'>): boolean {
	const requests = items.filter((item): item is Record<string, unknown> & { approvalId: string } => isApprovalRequest(item));
	if (requests.length === 0 || items.some(isApprovalDecision)) return false;
	// n8n's wait timer may fire a moment before the expiry it was set to: a few seconds of slack.
	const soon = new Date(context.now.getTime() + WAIT_TIMER_SLACK_MS);
	return requests.every((request) => {
		const run = peekPausedRun(context.store, request.approvalId);
		// A request whose tasks are due for a check came back by MCP Approval's timer or task wake, as expected.
		if (run !== undefined && hasWaitingTasks(run) && (context.fromApprovalNode === true || taskWakeDue(request, context.now))) return false;
		return run !== undefined && !isExpired(run, soon);
	});
}

import { isApprovalDecision, isApprovalRequest, type ApprovalDecisionItem, type ApprovalRequest } from './approvalRequest';
import { resumeByChannelDecision, resumeByChannelWake } from './channelAnswerRoute';
import { isWebhookShaped, readChannelAnswer, type ChannelAnswer, type ChannelDecision } from './channelDecision';
import { resumeByDecisionItem } from './decisionItemRoute';
import { hasPausedRuns } from './pausedRuns';
import type { ItemAction, ResumeContext } from './resumeContext';
import { resumeByReturnedRequest } from './returnedRequestRoute';

/**
 * The routes by which an input item of the Agent may continue a paused run, each in its own module;
 * anything else starts a new run. Answers to a server's input requests take the decision-item
 * route (the review page, through MCP Approval): no channel can carry them.
 */
export type ResumeRoute =
	| { kind: 'decision-item'; item: ApprovalDecisionItem }
	| { kind: 'returned-request'; request: ApprovalRequest }
	/** `fromOtherNode`: a `data` answer from a node that is no send-and-wait node (see InputProvenance). */
	| { kind: 'channel-decision'; decision: ChannelDecision; fromOtherNode: boolean }
	| { kind: 'channel-no-decision'; named?: string }
	| { kind: 'new-run' };

const NEW_RUN: ResumeRoute = { kind: 'new-run' };

/** What routing reads besides the item: the paused runs, and whether the input came from a send-and-wait node. */
type RouteContext = Pick<ResumeContext, 'store' | 'fromSendAndWait'>;

/** The route an item takes, from its shape and where it came from; no run is touched. */
export function routeOf(json: Record<string, unknown>, context: RouteContext): ResumeRoute {
	if (isApprovalDecision(json)) return { kind: 'decision-item', item: json };
	if (isApprovalRequest(json)) return { kind: 'returned-request', request: json };
	const answer = readChannelAnswer(json);
	return answer ? channelRoute(json, answer, context) : NEW_RUN;
}

/** A channel's answer, unless it plainly answers nothing paused here (then it is a new run's input). */
function channelRoute(json: Record<string, unknown>, answer: ChannelAnswer, context: RouteContext): ResumeRoute {
	const { store } = context;
	const named = answer.kind === 'decision' ? answer.decision.approvalId : answer.approvalId;
	// This execution never paused a run: an item that looks like an answer (a Webhook trigger's body
	// with an `approved` field, an HTTP result with `data.approved`) is a new run's input.
	if (!named && !hasPausedRuns(store) && store.decided.length === 0) return NEW_RUN;
	// A `data` answer from a node that is no send-and-wait node (an API's answer in a loop, a Set
	// node): data, unless it carries the approval's review secret (checked by the route, as for a Wait node).
	const fromOtherNode = !isWebhookShaped(json) && context.fromSendAndWait !== true;
	if (fromOtherNode && (answer.kind === 'no-decision' || !hasPausedRuns(store))) return NEW_RUN;
	if (answer.kind === 'decision') return { kind: 'channel-decision', decision: answer.decision, fromOtherNode };
	return { kind: 'channel-no-decision', ...(named ? { named } : {}) };
}

export function actionForItem(json: Record<string, unknown>, context: ResumeContext): ItemAction {
	const route = routeOf(json, context);
	switch (route.kind) {
		case 'decision-item':
			return resumeByDecisionItem(route.item, context);
		case 'returned-request':
			return resumeByReturnedRequest(route.request, context);
		case 'channel-decision':
			return resumeByChannelDecision(route.decision, route.fromOtherNode, context);
		case 'channel-no-decision':
			return resumeByChannelWake(route.named, context);
		case 'new-run':
			return { kind: 'start' };
	}
}

/**
 * Whether the item could continue a paused run by any route (a decision item, a request that comes
 * back, a channel's answer): then its approved calls are checked against the tool listing, which
 * must be current.
 */
export function mayResume(json: Record<string, unknown>): boolean {
	return isApprovalDecision(json) || isApprovalRequest(json) || readChannelAnswer(json) !== undefined;
}

import { boundArgsHash, DecisionRejected, isAtOrAfter } from '../agent/review';
import { awaitingPerson, pendingInputs, step } from '../agent/step';
import type { AgentState, ReviewDecision } from '../agent/types';
import type { CatalogTool } from '../providers/modelTypes';
import { callCode, isApprovalDecision, isApprovalRequest } from './approvalRequest';
import { isWebhookShaped, readChannelAnswer, type ChannelDecision } from './channelDecision';
import { perCallProblem } from './channelForm';
import { hasPausedRuns, peekPausedRun, restorePausedRun, takePausedRun, type PausedRun, type PausedRunStore } from './pausedRuns';
import { providedTokenHash, reviewTokenHashMatches, reviewTokenMatches } from './reviewToken';
import { McpAgentError } from '../errors';
import { decisionProofMatches } from './decisionProof';

/**
 * What one input item of the Agent asks for, decided without n8n: a new run, the continuation of a
 * paused one (a decision from the review page or a channel, an expiry), or nothing new (the calls
 * stay pending, and the request is handed out again with a notice saying why).
 */
export type ItemAction =
	| { kind: 'start' }
	/** A decision for an approval already decided: it changes nothing. */
	| { kind: 'replayed' }
	| { kind: 'continue'; state: AgentState }
	| { kind: 'pending'; approvalId: string; run: PausedRun; notice: string; previousReviewUrl?: string };

/** Why a decision can find no paused run, and what to check. */
const NOT_PAUSED_HERE =
	'A decision resumes the execution that paused its run: it must reach this node from that execution\'s MCP Approval (or send-and-wait) node, once. A decision copied from another execution, or one whose paused run was lost, cannot be applied.';

/** The item cannot be applied; the message says what was wrong (never a secret). */
export class ResumeRefused extends McpAgentError {
	constructor(message: string, description?: string) {
		super(message, { code: 'review', ...(description !== undefined ? { description } : {}) });
		this.name = 'ResumeRefused';
	}
}

export interface ResumeContext {
	store: PausedRunStore;
	/** The servers' current tools: approved calls run only if their tool is still what the reviewer saw. */
	catalog: CatalogTool[];
	now: Date;
	/** Index of the "Needs Approval" item this item is paired with, when n8n knows it. */
	pairedIndex?: number;
	/**
	 * The node the answer came from sits straight on this node's "Needs Approval" output, so its
	 * item positions are those of the approvals. With a node in between (a Filter, IF, Sort…) a
	 * position may name another approval: then it counts only when one approval is pending.
	 */
	pairedStraight?: boolean;
	/**
	 * Claims a paused run (recentDecisions.ts resumedRuns), given the execution that handed it out
	 * (undefined for runs stored before that was recorded): false when this process continued it
	 * already in another copy of that execution, which makes this one a replay.
	 */
	claimResume?: (approvalId: string, handedOutBy: string | undefined) => boolean;
	/** The n8n execution running now (see PausedEntry.executionId). */
	executionId?: string;
	/**
	 * The items come straight from a send-and-wait node (its operation is n8n's `sendAndWait`) that
	 * follows this Agent. n8n signs such a node's links, so its `data.approved` is a person's answer;
	 * the same shape from any other node (an API's `{ data: { approved: true } }`, a Set node) is data
	 * unless it carries the approval's review secret.
	 */
	fromSendAndWait?: boolean;
	/**
	 * The workflow runs in n8n's legacy execution order (v0), where the Agent may run again before
	 * a send-and-wait node answers an earlier run: positions then may name the wrong approval.
	 */
	legacyOrder?: boolean;
	/**
	 * The items come straight from an MCP Approval node of this package (n8n records which node
	 * produced a node's input; an item cannot choose it). A decision item counts only then, and only
	 * with its proof (decisionProof.ts).
	 */
	fromApprovalNode?: boolean;
	/**
	 * An MCP Approval node after this Agent requires reviewers to sign in to n8n: then a review secret
	 * alone (a Wait node's POST, an answer through another node) decides nothing, since anyone sent
	 * the link has it; only MCP Approval's own checks do.
	 */
	approvalSignIn?: boolean;
}

export const NOTICE_NO_DECISION =
	'The approval channel resumed without a decision (a GET, or a link preview opening the URL); decisions in a URL are ignored. The calls are still pending.';
export const NOTICE_INPUT_ON_PAGE =
	'The approval channel approved, but a tool server asked for input that only a person can give on the review page (or by an API POST); an approval in a chat or e-mail does not answer it. Nothing was decided: open the review link to answer.';
export const NOTICE_WEBHOOK_WITHOUT_SECRET =
	'A decision was POSTed to the Wait node without this approval\'s review secret, so it was not applied (on n8n 1.x anyone who can reach n8n could POST to a Wait node\'s URL). POST to the request\'s reviewUrl, which carries the secret, or add "reviewToken" to the body. The calls are still pending.';
export const NOTICE_OTHER_EXECUTION =
	'This execution is a copy of the one that asked for this review (n8n\'s Retry), so the decision made there is not applied here: it may have run the calls already. Decide again on this request to run them in this execution.';
export const NOTICE_NOT_FROM_SEND_AND_WAIT =
	'An answer with data.approved reached the Agent from a node that is not a send-and-wait node, without this approval\'s review secret, so it was not applied (an API\'s answer or a Set node is not a person\'s decision). Wire the send-and-wait node straight to the Agent, or add "reviewToken" (from the request\'s reviewUrl) to the answer. The calls are still pending.';
export const NOTICE_DECISION_NOT_FROM_APPROVAL =
	'A decision item reached the Agent from a node other than MCP Approval, so it was not applied: anyone who saw the request could write an item of that shape. Connect MCP Approval\'s output straight to the Agent. The calls are still pending.';
export const NOTICE_DECISION_WITHOUT_PROOF =
	'A decision item without a valid proof from MCP Approval reached the Agent, so it was not applied (it was changed on the way, copied from another approval, or made by an earlier version of the package). Decide again on this request. The calls are still pending.';
export const NOTICE_SIGN_IN_REQUIRED =
	'An answer with this approval\'s review secret reached the Agent without going through MCP Approval, whose reviewers must sign in to n8n, so it was not applied: the secret is in every copy of the review link. Decide on the review page. The calls are still pending.';
export const NOTICE_STILL_OPEN =
	'Another approval of this execution ended the wait first (it was decided, or it expired); this one has not expired and its calls are still pending.';

function openExpiry(run: PausedRun): string | undefined {
	return run.state.phase.name === 'run_tools' ? run.state.phase.approval?.expiresAt : undefined;
}

/** Expired, or not recognizably open: fail closed. */
function isExpired(run: PausedRun, now: Date): boolean {
	const expiresAt = openExpiry(run);
	return expiresAt === undefined || isAtOrAfter(now.toISOString(), expiresAt);
}

/** The one paused run whose review secret this is (each approval has its own), if any. */
function approvalOfSecret(store: PausedRunStore, token: string | undefined): string | undefined {
	// Hashed once, whatever the number of paused runs (as the review page does).
	const tokenHash = providedTokenHash(token);
	if (tokenHash === undefined) return undefined;
	const matching = Object.keys(store.runs).filter((id) => reviewTokenHashMatches(tokenHash, store.runs[id].reviewTokenHash));
	return matching.length === 1 ? matching[0] : undefined;
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
function resume(context: ResumeContext, approvalId: string, apply: (state: AgentState) => AgentState, decides = true): ItemAction {
	const paused = decides ? peekPausedRun(context.store, approvalId) : undefined;
	if (paused && handedOutElsewhere(paused, context)) return stillPending(context, approvalId, paused, NOTICE_OTHER_EXECUTION);
	const taken = takePausedRun(context.store, approvalId);
	if (taken.kind === 'replayed') return { kind: 'replayed' };
	if (taken.kind === 'unknown') throw new ResumeRefused(`No paused run is waiting for approval ${approvalId} in this execution`, NOT_PAUSED_HERE);
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

function expire(context: ResumeContext, approvalId: string): ItemAction {
	const at = context.now.toISOString();
	return resume(context, approvalId, (state) => step(state, { type: 'approval_expired', approvalId, at }), false);
}

/** Still pending: expired ones are denied as expired, the others handed out again. */
function stillPending(context: ResumeContext, approvalId: string, run: PausedRun, notice: string, previousReviewUrl?: string): ItemAction {
	if (isExpired(run, context.now)) return expire(context, approvalId);
	return { kind: 'pending', approvalId, run, notice, ...(previousReviewUrl ? { previousReviewUrl } : {}) };
}

/**
 * Why a channel decision does not fit the pending calls, or undefined when it does. Codes and
 * hashes are optional; when given, they must name exactly the pending calls, so a person who
 * confirmed a code approves only what they were shown.
 */
function bindingProblem(decision: ChannelDecision, state: AgentState): string | undefined {
	if (state.phase.name !== 'run_tools') return undefined;
	const pending = awaitingPerson(state.phase).map(boundArgsHash);
	if (decision.perCall) return perCallProblem(decision.perCall, pending.map(callCode));
	const check = (given: string[] | undefined, expected: string[], what: string, normalize: (v: string) => string) => {
		if (!given) return undefined;
		const want = new Set(expected.map(normalize));
		const got = new Set(given.map(normalize));
		const fits = got.size === want.size && [...got].every((value) => want.has(value));
		return fits ? undefined : `The approval channel's decision named ${what} ${given.join(', ')}, but the pending calls have ${expected.join(', ')}; it was not applied. The calls are still pending.`;
	};
	return (
		check(decision.codes, pending.map(callCode), 'code(s)', (v) => v.toLowerCase()) ??
		check(decision.argsHashes, pending, 'argument hash(es)', (v) => `sha256:${v.toLowerCase().replace(/^sha256:/, '')}`)
	);
}

/**
 * Request items that come back while none of them has expired and nothing was decided were not
 * passed through by MCP Approval (which wakes at the earliest expiry, or with a decision): the
 * "Needs Approval" output is wired straight back into the Agent. Handing them out again would loop
 * without end inside one execution, so the Agent refuses that wiring.
 */
const WAIT_TIMER_SLACK_MS = 5_000;

export function isWiredStraightBack(items: Array<Record<string, unknown>>, context: Pick<ResumeContext, 'store' | 'now'>): boolean {
	const requests = items.filter((item): item is Record<string, unknown> & { approvalId: string } => isApprovalRequest(item));
	if (requests.length === 0 || items.some(isApprovalDecision)) return false;
	// n8n's wait timer may fire a moment before the expiry it was set to: a few seconds of slack.
	const soon = new Date(context.now.getTime() + WAIT_TIMER_SLACK_MS);
	return requests.every((request) => {
		const run = peekPausedRun(context.store, request.approvalId);
		return run !== undefined && !isExpired(run, soon);
	});
}

/**
 * Whether the item could continue a paused run by any route (a decision item, a request that comes
 * back, a channel's answer): then its approved calls are checked against the tool listing, which
 * must be current.
 */
export function mayResume(json: Record<string, unknown>): boolean {
	return isApprovalDecision(json) || isApprovalRequest(json) || readChannelAnswer(json) !== undefined;
}

export function actionForItem(json: Record<string, unknown>, context: ResumeContext): ItemAction {
	const { store, now } = context;
	const nowIso = now.toISOString();

	if (isApprovalDecision(json)) {
		// Only MCP Approval's own checks make a decision item count: straight from its node, with its proof.
		const run = peekPausedRun(store, json.approvalId);
		const problem = !run ? undefined : context.fromApprovalNode !== true ? NOTICE_DECISION_NOT_FROM_APPROVAL : !decisionProofMatches(json as unknown as Record<string, unknown>, run.decisionKey) ? NOTICE_DECISION_WITHOUT_PROOF : undefined;
		if (run && problem) return stillPending(context, json.approvalId, run, problem);
		return resume(context, json.approvalId, (state) =>
			step(state, {
				type: 'approval_decided',
				approvalId: json.approvalId,
				decisions: json.decisions as ReviewDecision[],
				reviewer: json.reviewer,
				decidedAt: json.decidedAt ?? nowIso,
				receivedAt: nowIso,
			}),
		);
	}

	if (isApprovalRequest(json)) {
		// MCP Approval passes a request through unchanged when its wait ends, which is at the earliest
		// expiry of all the approvals it holds: each is judged by its own expiry, read from the state.
		const run = peekPausedRun(store, json.approvalId);
		if (!run) {
			if (store.decided.includes(json.approvalId)) return { kind: 'replayed' };
			throw new ResumeRefused(`No paused run is waiting for approval ${json.approvalId} in this execution`, NOT_PAUSED_HERE);
		}
		return stillPending(context, json.approvalId, run, NOTICE_STILL_OPEN, typeof json.reviewUrl === 'string' ? json.reviewUrl : undefined);
	}

	const answer = readChannelAnswer(json);
	if (!answer) return { kind: 'start' };
	const named = answer.kind === 'decision' ? answer.decision.approvalId : answer.approvalId;
	// This execution never paused a run: an item that looks like an answer (a Webhook trigger's body
	// with an `approved` field, an HTTP result with `data.approved`) is a new run's input.
	if (!named && !hasPausedRuns(store) && store.decided.length === 0) return { kind: 'start' };
	// A `data` answer from a node that is no send-and-wait node (an API's answer in a loop, a Set
	// node): data, unless it carries the approval's review secret (checked below, as for a Wait node).
	const fromOtherNode = !isWebhookShaped(json) && context.fromSendAndWait !== true;
	if (fromOtherNode && (answer.kind === 'no-decision' || !hasPausedRuns(store))) return { kind: 'start' };
	// Paired back to the "Needs approval" item it answers (when its position can be trusted); with a
	// single pending approval, that one. In the legacy execution order, not when runs paused by an
	// earlier pass of this node are missing from the last output's order: the Agent may have run
	// again before the answer came, and positions would name the wrong approval.
	const positionsHoldAll = !context.legacyOrder || Object.keys(store.runs).every((id) => store.lastOrder.includes(id));
	const index = context.pairedStraight === true ? context.pairedIndex : undefined;
	const approvalId =
		named ??
		// A review secret belongs to one approval: it names it before any position does (n8n pairs a
		// resumed Wait node's one item with the first request, whichever link it was POSTed to).
		(answer.kind === 'decision' ? approvalOfSecret(store, answer.decision.reviewToken) : undefined) ??
		(!positionsHoldAll ? undefined : index !== undefined && index >= 0 && index < store.lastOrder.length ? store.lastOrder[index] : store.lastOrder.length === 1 ? store.lastOrder[0] : undefined);

	if (answer.kind === 'no-decision') {
		const run = approvalId ? peekPausedRun(store, approvalId) : undefined;
		// Not an answer to anything paused here (e.g. a Webhook trigger's request): a new run.
		if (!approvalId || !run) return { kind: 'start' };
		return stillPending(context, approvalId, run, NOTICE_NO_DECISION);
	}

	if (!approvalId) {
		throw new ResumeRefused(
			'An approval answer arrived, but it is not clear which pending approval it answers',
			'Wire the send-and-wait node directly between "Needs Approval" and this node, or add the request\'s reviewToken (the parameter of its reviewUrl) to the answer.',
		);
	}
	const decision = answer.decision;
	const run = peekPausedRun(store, approvalId);
	if (run) {
		if ((decision.viaWebhook || fromOtherNode) && !reviewTokenMatches(decision.reviewToken, run.reviewTokenHash)) {
			return stillPending(context, approvalId, run, decision.viaWebhook ? NOTICE_WEBHOOK_WITHOUT_SECRET : NOTICE_NOT_FROM_SEND_AND_WAIT);
		}
		if ((decision.viaWebhook || fromOtherNode) && context.approvalSignIn === true) return stillPending(context, approvalId, run, NOTICE_SIGN_IN_REQUIRED);
		const problem = bindingProblem(decision, run.state);
		if (problem) return stillPending(context, approvalId, run, problem);
		// Fail closed: an approve cannot answer a server's input request (it carries no values), so nothing is applied.
		// A deny needs no values: it denies every call of the approval, input included, and nothing more runs for them.
		if (decision.approved && run.state.phase.name === 'run_tools' && pendingInputs(run.state.phase).length > 0) {
			return stillPending(context, approvalId, run, NOTICE_INPUT_ON_PAGE);
		}
	}
	return resume(context, approvalId, (state) => {
		if (state.phase.name !== 'run_tools') throw new DecisionRejected('the run is not waiting for a decision');
		const pending = awaitingPerson(state.phase);
		// Checked against the pending codes before (bindingProblem); checked again here, fail closed.
		if (decision.perCall && perCallProblem(decision.perCall, pending.map((call) => callCode(boundArgsHash(call))))) {
			throw new DecisionRejected('the form\'s answers do not match the pending calls');
		}
		const decisions: ReviewDecision[] = pending.map((call, index) => {
			const approved = decision.perCall ? decision.perCall[index].choice === 'approve' : decision.approved;
			return {
				callId: call.id,
				argsHash: boundArgsHash(call),
				decision: approved ? 'approve' : 'deny',
				...(!approved ? { reason: decision.reason ?? 'denied through the approval channel' } : {}),
				...(approved && !decision.perCall && decision.reason ? { reason: decision.reason } : {}),
			};
		});
		return step(state, { type: 'approval_decided', approvalId, decisions, reviewer: decision.reviewer ?? 'approval channel', decidedAt: nowIso, receivedAt: nowIso });
	});
}

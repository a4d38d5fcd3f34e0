import { randomUUID } from 'node:crypto';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { AGENT_DEFAULTS } from '../../lib/agent/defaults';
import { awaitingPerson, step } from '../../lib/agent/step';
import type { AgentState, OpenApproval } from '../../lib/agent/types';
import { buildApprovalRequest } from '../../lib/approvals/approvalRequest';
import { reissuePausedRun, savePausedRun, type PausedRunStore } from '../../lib/approvals/pausedRuns';
import { requestOrigin } from '../../lib/approvals/requestOrigin';
import type { ItemAction } from '../../lib/approvals/resumeContext';
import { reviewLink, type ReviewLink } from '../../lib/approvals/reviewToken';
import { nodeOf } from '../shared/nodeOf';
import type { ApprovalOptions } from './approvalOptions';

/**
 * A run that waits for a person leaves the Agent as one "Needs Approval" item: its state is kept in
 * the node's context (pausedRuns.ts), and only the review link and its secret's hash go out.
 */

/** A "Needs Approval" item and its approval: the output's order is kept, so answers can be paired by position. */
export interface HandedOut {
	item: INodeExecutionData;
	approvalId: string;
}

/** Where paused runs are kept, and n8n's id of the execution that hands them out (a Retry runs under a new one). */
export interface PausedRunsHere {
	store: PausedRunStore;
	executionId?: string;
}

/** Pauses a run that asks for review or input: a new approval, open for the Approval Timeout, with a new secret. */
export function pauseForReview(context: IExecuteFunctions, itemIndex: number, final: AgentState, here: PausedRunsHere): HandedOut {
	const hours = (context.getNodeParameter('approvalOptions', itemIndex, {}) as ApprovalOptions).timeoutHours ?? AGENT_DEFAULTS.approvalTimeoutHours;
	const now = Date.now();
	const approval = { id: randomUUID(), requestedAt: new Date(now).toISOString(), expiresAt: new Date(now + hours * 3_600_000).toISOString() };
	const paused = step(final, { type: 'approval_opened', approval });
	// A new secret per approval: the token goes only into reviewUrl; the store keeps its hash.
	const link = reviewLink(resumeUrl(context, itemIndex));
	savePausedRun(here.store, approval.id, paused, approval.requestedAt, link.reviewTokenHash, here.executionId, link.decisionKey);
	// Nothing is saved to memory while the run waits: the exchange is saved once, when it finishes.
	return { item: approvalRequestItem(context, itemIndex, paused, approval, link), approvalId: approval.id };
}

/** Still pending: the same approval (id, expiry, calls) goes out again from this execution, saying why. */
export function reissueRequest(context: IExecuteFunctions, itemIndex: number, action: Extract<ItemAction, { kind: 'pending' }>, here: PausedRunsHere): HandedOut {
	const { state } = action.run;
	const approval = state.phase.name === 'run_tools' ? state.phase.approval : undefined;
	if (!approval) throw new NodeOperationError(context.getNode(), `The paused run of approval ${action.approvalId} has no open approval`, { itemIndex });
	const link = reviewLink(resumeUrl(context, itemIndex), { reviewUrl: action.previousReviewUrl, reviewTokenHash: action.run.reviewTokenHash });
	reissuePausedRun(here.store, action.approvalId, link.reviewTokenHash, here.executionId, link.decisionKey);
	return { item: approvalRequestItem(context, itemIndex, state, approval, link, action.notice), approvalId: action.approvalId };
}

/** The "Needs Approval" item of a paused run, with its own review secret (only its hash is kept). */
function approvalRequestItem(context: IExecuteFunctions, itemIndex: number, state: AgentState, approval: OpenApproval, link: ReviewLink, notice?: string): INodeExecutionData {
	// Calls waiting for review and calls whose server asked for input: one item carries both.
	const calls = state.phase.name === 'run_tools' ? awaitingPerson(state.phase) : [];
	const origin = { ...requestOrigin(context.getWorkflow().name, nodeOf(context).name, context.getMode()), ...(nodeOf(context).id ? { nodeId: nodeOf(context).id } : {}) };
	// The decision key stays in the node context: only the URL and the secret's hash go out.
	const { reviewUrl, reviewTokenHash } = link;
	const request = buildApprovalRequest(state, approval, calls, { ...(reviewUrl ? { reviewUrl } : {}), reviewTokenHash, origin, ...(notice ? { notice } : {}) });
	// A chat (Chat Trigger, "Last Node" mode) shows `output`: say that the answer waits for a person.
	// The review link is not in it: whoever chats is not necessarily allowed to review.
	return { json: { ...(request as unknown as IDataObject), output: waitingNotice(calls.length) }, pairedItem: { item: itemIndex } };
}

function waitingNotice(calls: number): string {
	return `Waiting for a person to review ${calls === 1 ? 'a tool call' : `${calls} tool calls`} before I can continue.`;
}

function resumeUrl(context: IExecuteFunctions, itemIndex: number): string | undefined {
	return String(context.evaluateExpression('{{ $execution.resumeUrl }}', itemIndex) ?? '') || undefined;
}

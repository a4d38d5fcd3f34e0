import { randomUUID } from 'node:crypto';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { AGENT_DEFAULTS } from '../../lib/agent/defaults';
import { awaitingPerson, step, waitingTasks } from '../../lib/agent/step';
import type { AgentState, OpenApproval, PlannedCall, RunToolsPhase } from '../../lib/agent/types';
import { nextTaskWake, taskWaitExpiry, taskWaitSummaries, taskWaitViews } from '../../lib/approvals/taskWait';
import { buildApprovalRequest } from '../../lib/approvals/approvalRequest';
import { reissuePausedRun, restorePausedRun, savePausedRun, type PausedRun, type PausedRunStore } from '../../lib/approvals/pausedRuns';
import { requestOriginOf, resumeUrlOf } from '../shared/pausedExecution';
import type { ItemAction } from '../../lib/approvals/resumeContext';
import { newReviewToken, reviewLink, type ReviewLink } from '../../lib/approvals/reviewToken';
import type { ApprovalOptions } from './approvalOptions';

/**
 * A run that waits for a person leaves the Agent as one "Needs Approval" item: its state is kept in
 * the node's context (pausedRuns.ts), and only the review link and its secret's hash go out.
 */

/** A "Needs Approval" item and its approval: the output's order is kept, so answers can be paired by position. */
export interface HandedOut {
	item: INodeExecutionData;
	approvalId: string;
	/** A run waiting for MCP tasks: the calls, the pause's wake secret (memory only) and where to wake the execution. */
	taskWake?: { calls: PlannedCall[]; secret: string; resumeUrl: string };
}

/** Where paused runs are kept, and n8n's id of the execution that hands them out (a Retry runs under a new one). */
export interface PausedRunsHere {
	store: PausedRunStore;
	executionId?: string;
}

/**
 * Pauses a run that asks for review or input, or waits for MCP tasks: a new approval with a new
 * secret, open for the Approval Timeout (for tasks alone: until the last task's wait ends). A run
 * that woke to check its tasks while its approval stays open pauses again under that approval
 * (`reopened`): the reviewers' link keeps working.
 */
export function pauseForReview(context: IExecuteFunctions, itemIndex: number, final: AgentState, here: PausedRunsHere, reopened?: ReopenedApproval): HandedOut {
	const open = final.phase.name === 'run_tools' ? final.phase.approval : undefined;
	if (open && reopened?.approvalId === open.id) return pauseAgain(context, itemIndex, final, here, reopened);
	const hours = (context.getNodeParameter('approvalOptions', itemIndex, {}) as ApprovalOptions).timeoutHours ?? AGENT_DEFAULTS.approvalTimeoutHours;
	const now = Date.now();
	const forPerson = final.phase.name === 'run_tools' && awaitingPerson(final.phase).length > 0;
	const tasks = final.phase.name === 'run_tools' ? waitingTasks(final.phase) : [];
	const expiresAt = forPerson || tasks.length === 0 ? now + hours * 3_600_000 : taskWaitExpiry(tasks);
	const approval = { id: randomUUID(), requestedAt: new Date(now).toISOString(), expiresAt: new Date(expiresAt).toISOString() };
	const paused = step(final, { type: 'approval_opened', approval });
	// A new secret per approval: the token goes only into reviewUrl; the store keeps its hash.
	const url = resumeUrlOf(context, itemIndex);
	const link = reviewLink(url);
	savePausedRun(here.store, approval.id, paused, approval.requestedAt, link.reviewTokenHash, here.executionId, link.decisionKey);
	// Nothing is saved to memory while the run waits: the exchange is saved once, when it finishes.
	return handedOut(context, itemIndex, paused, approval, link, url);
}

/** The item, and for a run waiting for tasks a new wake secret (the item carries only its hash). */
function handedOut(context: IExecuteFunctions, itemIndex: number, state: AgentState, approval: OpenApproval, link: ReviewLink, url: string | undefined): HandedOut {
	const calls = state.phase.name === 'run_tools' ? waitingTasks(state.phase) : [];
	if (!url || calls.length === 0) return { item: approvalRequestItem(context, itemIndex, state, approval, link), approvalId: approval.id };
	const wake = newReviewToken();
	const item = approvalRequestItem(context, itemIndex, state, approval, link);
	(item.json as IDataObject).taskWakeHash = wake.hash;
	return { item, approvalId: approval.id, taskWake: { calls, secret: wake.token, resumeUrl: url } };
}

/** The approval a task check woke under (ItemAction `continue` with `reopened`). */
export interface ReopenedApproval {
	approvalId: string;
	run: PausedRun;
	previousReviewUrl?: string;
}

/** The run paused again under its open approval, with its new state (the tasks' new status, results gathered meanwhile). */
function pauseAgain(context: IExecuteFunctions, itemIndex: number, final: AgentState, here: PausedRunsHere, reopened: ReopenedApproval): HandedOut {
	const approval = (final.phase as RunToolsPhase).approval as OpenApproval;
	const url = resumeUrlOf(context, itemIndex);
	const link = reviewLink(url, { reviewUrl: reopened.previousReviewUrl, reviewTokenHash: reopened.run.reviewTokenHash });
	restorePausedRun(here.store, approval.id, { ...reopened.run, state: final });
	reissuePausedRun(here.store, approval.id, link.reviewTokenHash, here.executionId, link.decisionKey);
	return handedOut(context, itemIndex, final, approval, link, url);
}

/** Still pending: the same approval (id, expiry, calls) goes out again from this execution, saying why. */
export function reissueRequest(context: IExecuteFunctions, itemIndex: number, action: Extract<ItemAction, { kind: 'pending' }>, here: PausedRunsHere): HandedOut {
	const { state } = action.run;
	const approval = state.phase.name === 'run_tools' ? state.phase.approval : undefined;
	if (!approval) throw new NodeOperationError(context.getNode(), `The paused run of approval ${action.approvalId} has no open approval`, { itemIndex });
	const link = reviewLink(resumeUrlOf(context, itemIndex), { reviewUrl: action.previousReviewUrl, reviewTokenHash: action.run.reviewTokenHash });
	reissuePausedRun(here.store, action.approvalId, link.reviewTokenHash, here.executionId, link.decisionKey);
	return { item: approvalRequestItem(context, itemIndex, state, approval, link, action.notice), approvalId: action.approvalId };
}

/** The "Needs Approval" item of a paused run, with its own review secret (only its hash is kept). */
function approvalRequestItem(context: IExecuteFunctions, itemIndex: number, state: AgentState, approval: OpenApproval, link: ReviewLink, notice?: string): INodeExecutionData {
	// Calls waiting for review and calls whose server asked for input: one item carries both.
	const calls = state.phase.name === 'run_tools' ? awaitingPerson(state.phase) : [];
	const origin = requestOriginOf(context);
	// The decision key stays in the node context: only the URL and the secret's hash go out.
	const { reviewUrl, reviewTokenHash } = link;
	const request = buildApprovalRequest(state, approval, calls, { ...(reviewUrl ? { reviewUrl } : {}), reviewTokenHash, origin, ...(notice ? { notice } : {}) });
	const tasks = taskWaitViews(state);
	const wakeAt = state.phase.name === 'run_tools' ? nextTaskWake(waitingTasks(state.phase), Date.now()) : undefined;
	const taskWait = tasks.length > 0 && wakeAt !== undefined ? { tasks, wakeAt: new Date(wakeAt).toISOString() } : {};
	// A wait for tasks alone asks nobody anything, and goes out again at every check while they run:
	// `needsPerson` lets a workflow notify people only when they are asked, and the summaries say so.
	const summaries = calls.length === 0 && tasks.length > 0 ? taskWaitSummaries(tasks) : {};
	// A chat (Chat Trigger, "Last Node" mode) shows `output`: say that the answer waits for a person.
	// The review link is not in it: whoever chats is not necessarily allowed to review.
	return {
		json: { ...(request as unknown as IDataObject), ...summaries, ...taskWait, needsPerson: calls.length > 0, output: waitingNotice(calls.length, tasks.length) },
		pairedItem: { item: itemIndex },
	};
}

function waitingNotice(calls: number, tasks: number): string {
	const review = calls === 0 ? '' : `a person to review ${calls === 1 ? 'a tool call' : `${calls} tool calls`}`;
	const running = tasks === 0 ? '' : `${tasks === 1 ? 'a tool that runs' : `${tasks} tools that run`} as a long task`;
	return `Waiting for ${[review, running].filter(Boolean).join(' and for ')} before I can continue.`;
}


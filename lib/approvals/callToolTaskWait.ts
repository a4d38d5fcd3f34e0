import { randomUUID } from 'node:crypto';
import { isRunningTask, type RunningTask } from '../mcp/toolTask';
import { isJsonObject } from '../util/jsonObject';
import { APPROVAL_REQUEST_KIND, isApprovalRequest, type ApprovalRequest, type RequestOrigin } from './approvalRequest';
import { taskWaitSummaries, taskWaitView, taskWakeAt, tasksExpiry } from './taskWait';

/**
 * MCP Call Tool's durable task wait. An item whose call became an MCP task that still runs after
 * Task Wait Before Pausing goes out on the node's "Task Running" output as a wait request MCP
 * Approval understands (an approval request with no calls and one task): MCP Approval puts the
 * execution to wait until the task's next check (or wakes it at once on a task wake) and passes
 * the item back to MCP Call Tool, which checks the task and either gives the result or goes out
 * on "Task Running" again. What a check needs stays in the node's context, keyed by the wait's id;
 * the item names only that id, so an item from elsewhere cannot make the node poll a task.
 */

/** The item's `source`: a wait of MCP Call Tool, not of an Agent (which has calls and a paused run). */
export const CALL_TOOL_TASK_SOURCE = 'mcpCallTool';

/** What a paused item keeps in the node's context (plain JSON, no secret: the task id is the server's handle). */
export interface StoredTaskWait {
	tool: string;
	task: RunningTask;
	/** Input requests declined before the task began: the result carries them once it ends. */
	notes?: string[];
}

export interface CallToolTaskWaitItem extends ApprovalRequest {
	source: typeof CALL_TOOL_TASK_SOURCE;
	needsPerson: false;
	/** The input item's position when the call was made (the item itself is paired with it). */
	itemIndex: number;
	output: string;
}

export function newTaskWaitId(): string {
	return `task-wait-${randomUUID()}`;
}

/**
 * The "Task Running" item of a call whose task still runs. `wakeHash` is the hash of this pause's
 * task-wake secret (the secret stays with the process that follows the task, lib/agent/taskWatch.ts).
 */
export function callToolTaskWaitItem(
	waitId: string,
	wait: StoredTaskWait,
	where: { server: string; itemIndex: number; origin: RequestOrigin; wakeHash?: string; now: number },
): CallToolTaskWaitItem {
	const { task } = wait;
	const view = taskWaitView(`item-${where.itemIndex}`, where.server, wait.tool, task);
	const wakeAt = taskWakeAt([task], where.now) ?? where.now;
	return {
		kind: APPROVAL_REQUEST_KIND,
		source: CALL_TOOL_TASK_SOURCE,
		approvalId: waitId,
		requestedAt: new Date(where.now).toISOString(),
		expiresAt: new Date(tasksExpiry([task])).toISOString(),
		assistantText: '',
		origin: where.origin,
		calls: [],
		tasks: [view],
		wakeAt: new Date(wakeAt).toISOString(),
		...(where.wakeHash ? { taskWakeHash: where.wakeHash } : {}),
		...taskWaitSummaries([view], 'MCP Call Tool'),
		needsPerson: false,
		itemIndex: where.itemIndex,
		output: `Waiting for tool ${wait.tool} on ${where.server}, which runs as a long task (${task.status}).`,
	};
}

/** Whether an input item is a "Task Running" item (of any MCP Call Tool: the node's context decides whose). */
export function isCallToolTaskWait(json: unknown): json is CallToolTaskWaitItem {
	return isApprovalRequest(json) && (json as { source?: unknown }).source === CALL_TOOL_TASK_SOURCE;
}

/** A stored wait as read back from the node's context; undefined when it is missing or damaged. */
export function readStoredTaskWait(value: unknown): StoredTaskWait | undefined {
	if (!isJsonObject(value) || typeof value.tool !== 'string' || !isRunningTask(value.task)) return undefined;
	const notes = Array.isArray(value.notes) ? value.notes.filter((note): note is string => typeof note === 'string') : undefined;
	return { tool: value.tool, task: value.task, ...(notes?.length ? { notes } : {}) };
}

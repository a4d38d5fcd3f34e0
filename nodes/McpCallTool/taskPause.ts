import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { callToolTaskWaitItem, newTaskWaitId, readStoredTaskWait, type CallToolTaskWaitItem, type StoredTaskWait } from '../../lib/approvals/callToolTaskWait';
import { newReviewToken } from '../../lib/approvals/reviewToken';
import { taskWakeDue } from '../../lib/approvals/taskWait';
import { takeWatchedOutcome } from '../../lib/agent/taskWatch';
import type { McpConnection } from '../../lib/mcp/connection';
import type { McpLease } from '../../lib/mcp/pool/connectionPool';
import type { InteractiveToolCallOutcome } from '../../lib/mcp/inputRequests';
import type { TaskState } from '../../lib/mcp/toolTask';
import type { ToolProgress } from '../../lib/mcp/progress';
import { approvalNodeFollows, inputFromApprovalNode } from '../shared/approvalWiring';
import { nodeOf } from '../shared/nodeOf';
import { executionIdOf, followPausedTasks, requestOriginOf, resumeUrlOf } from '../shared/pausedExecution';
import { readTaskPauseAfter } from '../shared/taskOptions';

/**
 * MCP Call Tool's durable task wait, the n8n side (the item and its rules: lib/approvals/callToolTaskWait.ts).
 * An item whose task still runs after Task Wait Before Pausing goes out on Task Running; MCP
 * Approval holds the execution until the task's next check and passes the item back here.
 */

/** Where the waits live: the node's context, which n8n stores with the execution (across waits and loops). */
const WAITS_KEY = 'mcpCallToolTaskWaits';

/** Default request timeout of a follow-up's status checks, as MCP Call Tool's own calls. */
const FOLLOW_UP_TIMEOUT_MS = 60_000;

/** A call still running, to go out on Task Running. */
export interface PausedCall {
	waitId: string;
	wait: StoredTaskWait;
	itemIndex: number;
}

export interface TaskPause {
	/** How long a call waits for its task in place before it goes out on Task Running. */
	handOffAfterMs: number;
}

/**
 * Whether this execution can pause for tasks: Pause Long Tasks on, an MCP Approval node after
 * this one, and a server whose tasks outlive this execution (HTTP, or a kept connection; a local
 * server started for this execution alone ends with it). Otherwise calls wait in place.
 */
export function taskPauseFor(context: IExecuteFunctions, options: { pauseLongTasks?: unknown; taskPauseAfter?: unknown }, lease: McpLease): TaskPause | undefined {
	if (options.pauseLongTasks !== true) return undefined;
	if (lease.connection.config.kind !== 'http' && !lease.pooled) return undefined;
	if (!approvalNodeFollows(context)) return undefined;
	return { handOffAfterMs: readTaskPauseAfter(options) };
}

/** The waits of this node in this execution, by wait id (created on first use). */
export function taskWaitsOf(context: IExecuteFunctions): Record<string, unknown> {
	const store = context.getContext('node') as IDataObject;
	if (!store[WAITS_KEY] || typeof store[WAITS_KEY] !== 'object') store[WAITS_KEY] = {};
	return store[WAITS_KEY] as Record<string, unknown>;
}

/**
 * The stored wait a returned item stands for. Refused: an item of another node or execution (no
 * such wait here), and one wired straight back (neither from MCP Approval nor due for its check),
 * which would check the task in a loop without waiting.
 */
export function waitOfReturnedItem(context: IExecuteFunctions, request: CallToolTaskWaitItem, itemIndex: number, waits: Record<string, unknown>): StoredTaskWait {
	const wait = readStoredTaskWait(waits[request.approvalId]);
	if (!wait) {
		throw new NodeOperationError(
			context.getNode(),
			`This item waits for an MCP task that this node did not start in this execution (wait ${request.approvalId}); nothing was checked`,
			{
				itemIndex,
				description: 'Items of the Task Running output come back, through MCP Approval, to the MCP Call Tool node that sent them, in the same execution.',
			},
		);
	}
	if (!inputFromApprovalNode(context) && !taskWakeDue(request as unknown as Record<string, unknown>, new Date())) {
		throw new NodeOperationError(context.getNode(), `The task wait ${request.approvalId} came back before its next check was due; nothing was checked`, {
			itemIndex,
			description: 'Connect the Task Running output to an MCP Approval node, and its output back to this node: MCP Approval holds the execution until the task is due for a check.',
		});
	}
	return wait;
}

/** The outcome this process already followed the task to (see pauseItems), taken once; `seen` is told its last status and progress. */
export function followedOutcome(
	context: IExecuteFunctions,
	wait: StoredTaskWait,
	seen: { onTaskStatus?: (state: TaskState) => void; onProgress?: (progress: ToolProgress) => void },
): Promise<InteractiveToolCallOutcome> | undefined {
	const executionId = executionIdOf(context);
	return executionId ? takeWatchedOutcome(executionId, nodeOf(context).name, wait.task.taskId, seen.onTaskStatus, seen.onProgress) : undefined;
}

/** A new wait for a call that just went on running as a task. */
export function pausedCall(wait: StoredTaskWait, itemIndex: number, waitId = newTaskWaitId()): PausedCall {
	return { waitId, wait, itemIndex };
}

/**
 * The Task Running items, each wait kept in the node's context, and the tasks followed on in this
 * process so the execution wakes as soon as one ends (a per-pause secret; the timer stands in).
 */
export function pauseItems(
	context: IExecuteFunctions,
	paused: PausedCall[],
	waits: Record<string, unknown>,
	connection: McpConnection,
	options: { timeout?: number },
): INodeExecutionData[] {
	if (paused.length === 0) return [];
	const node = nodeOf(context);
	const url = resumeUrlOf(context, paused[0].itemIndex);
	const wake = url ? newReviewToken() : undefined;
	const origin = requestOriginOf(context);
	const server = connection.config.label ?? node.name;
	const now = Date.now();
	const items = paused.map(({ waitId, wait, itemIndex }) => {
		waits[waitId] = wait as unknown as IDataObject;
		const json = callToolTaskWaitItem(waitId, wait, { server, itemIndex, origin, now, ...(wake ? { wakeHash: wake.hash } : {}) });
		return { json: json as unknown as IDataObject, pairedItem: { item: itemIndex } };
	});
	const executionId = executionIdOf(context);
	if (url && wake && executionId) {
		const tasks = paused.map(({ wait }) => ({ server: node.name, config: connection.config, tool: wait.tool, task: wait.task }));
		followPausedTasks(executionId, { resumeUrl: url, secret: wake.token }, tasks, options.timeout && options.timeout > 0 ? options.timeout : FOLLOW_UP_TIMEOUT_MS);
	}
	return items;
}

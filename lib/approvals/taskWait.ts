import type { AgentState, PlannedCall } from '../agent/types';
import { waitingTasks } from '../agent/step';
import { reviewTokenMatches } from './reviewToken';
import type { TaskWaitView } from './approvalRequest';
import type { RunningTask } from '../mcp/toolTask';

export type { TaskWaitView };

/**
 * The durable task wait as the "Needs Approval" item and MCP Approval see it: a run whose tool calls
 * became MCP tasks that still run pauses like a run that waits for a person, and MCP Approval puts
 * the execution to wait until the next check is due. n8n then passes the item back to the Agent,
 * which checks the tasks (lib/agent/runAgent.ts checkTasks) and pauses again while they run.
 */

/**
 * Bounds of the time between two checks. n8n's wait tracker looks for due executions every 60 s,
 * so a wake set sooner comes at its next look anyway; checking less often than once a minute
 * would add that much to what the user waits after the task ends.
 */
export const MIN_TASK_WAKE_MS = 5_000;
export const MAX_TASK_WAKE_MS = 60_000;
/** A wait that holds only tasks ends this long after the last task's deadline (it is cancelled by then). */
const EXPIRY_GRACE_MS = 60_000;

/**
 * The body field of a task wake: a POST to the execution's resume URL with the pause's wake secret
 * (its hash is the request's taskWakeHash; the secret stays in the memory of the process that
 * paused the run, lib/agent/taskWatch.ts). It makes MCP Approval resume as its wait timer would.
 */
export const TASK_WAKE_FIELD = 'taskWake';

/** Whether `secret` is the wake secret of one of these requests. */
export function wakesOneOf(secret: unknown, requests: Array<{ taskWakeHash?: unknown }>): boolean {
	return requests.some((request) => typeof request.taskWakeHash === 'string' && reviewTokenMatches(secret, request.taskWakeHash));
}

export function taskWaitViews(state: AgentState): TaskWaitView[] {
	if (state.phase.name !== 'run_tools') return [];
	return waitingTasks(state.phase).map((call) => taskWaitView(call.id, call.tool?.serverName ?? '', call.tool?.mcpName ?? call.providerName, call.task as RunningTask));
}

/** A running task as an item shows it (the Agent's calls, MCP Call Tool's items). */
export function taskWaitView(callId: string, server: string, tool: string, task: RunningTask): TaskWaitView {
	return {
		callId,
		server,
		tool,
		taskId: task.taskId,
		status: task.status,
		...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
		waitsUntil: new Date(task.deadline).toISOString(),
	};
}

/**
 * The summaries of a wait for tasks alone (nobody is asked anything): what runs, so a channel
 * message, if a workflow sends one, does not read as a request for approval. `waiter` names the node.
 */
export function taskWaitSummaries(tasks: TaskWaitView[], waiter = 'the MCP Agent'): { summaryText: string; summaryMarkdown: string; summaryTelegram: string } {
	const names = tasks.map((task) => `${task.tool} on ${task.server}`).join(', ');
	const text = `No decision needed: ${waiter} waits for ${tasks.length === 1 ? 'a tool call that runs' : `${tasks.length} tool calls that run`} as a long task (${names}).`;
	// Tool and server names come from servers: kept out of markup by removing what Markdown reads.
	const plain = text.replace(/[\\`*_[\]()<>#|~]/g, ' ');
	return { summaryText: text, summaryMarkdown: plain, summaryTelegram: plain };
}

/**
 * The request's wakeAt has come (a request without one is never due). n8n's timer resumes at its
 * time, not early; the slack is far below the shortest wake (MIN_TASK_WAKE_MS), so a request
 * wired straight back is never taken for one woken by its timer.
 */
const TASK_WAKE_SLACK_MS = 1_000;

export function taskWakeDue(request: Record<string, unknown>, now: Date): boolean {
	const wakeAt = typeof request.wakeAt === 'string' ? Date.parse(request.wakeAt) : NaN;
	return Number.isFinite(wakeAt) && wakeAt <= now.getTime() + TASK_WAKE_SLACK_MS;
}

/** When the next check is due: the shortest poll interval within the bounds, never past a deadline. */
export function nextTaskWake(calls: PlannedCall[], now: number): number | undefined {
	return taskWakeAt(calls.flatMap((call) => (call.task ? [call.task] : [])), now);
}

/** nextTaskWake for the tasks themselves (MCP Call Tool's durable wait has no planned calls). */
export function taskWakeAt(tasks: RunningTask[], now: number): number | undefined {
	if (tasks.length === 0) return undefined;
	const interval = Math.min(...tasks.map((task) => task.pollIntervalMs));
	const wake = now + Math.min(MAX_TASK_WAKE_MS, Math.max(MIN_TASK_WAKE_MS, interval));
	return Math.min(wake, Math.max(now, Math.min(...tasks.map((task) => task.deadline))));
}

/** The expiry of a wait that holds only tasks: past the last deadline, when every task has been given up. */
export function taskWaitExpiry(calls: PlannedCall[]): number {
	return tasksExpiry(calls.flatMap((call) => (call.task ? [call.task] : [])));
}

export function tasksExpiry(tasks: RunningTask[]): number {
	return Math.max(0, ...tasks.map((task) => task.deadline)) + EXPIRY_GRACE_MS;
}

import type { AgentState, PlannedCall } from '../agent/types';
import { waitingTasks } from '../agent/step';
import { reviewTokenMatches } from './reviewToken';
import type { TaskWaitView } from './approvalRequest';

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
	return waitingTasks(state.phase).map((call) => {
		const task = call.task as NonNullable<PlannedCall['task']>;
		return {
			callId: call.id,
			server: call.tool?.serverName ?? '',
			tool: call.tool?.mcpName ?? call.providerName,
			taskId: task.taskId,
			status: task.status,
			...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
			waitsUntil: new Date(task.deadline).toISOString(),
		};
	});
}

/**
 * The summaries of a wait for tasks alone (nobody is asked anything): what runs, so a channel
 * message, if a workflow sends one, does not read as a request for approval.
 */
export function taskWaitSummaries(tasks: TaskWaitView[]): { summaryText: string; summaryMarkdown: string; summaryTelegram: string } {
	const names = tasks.map((task) => `${task.tool} on ${task.server}`).join(', ');
	const text = `No decision needed: the MCP Agent waits for ${tasks.length === 1 ? 'a tool call that runs' : `${tasks.length} tool calls that run`} as a long task (${names}).`;
	// Tool and server names come from servers: kept out of markup by removing what Markdown reads.
	const plain = text.replace(/[\\`*_[\]()<>#|~]/g, ' ');
	return { summaryText: text, summaryMarkdown: plain, summaryTelegram: plain };
}

/** When the next check is due: the shortest poll interval within the bounds, never past a deadline. */
export function nextTaskWake(calls: PlannedCall[], now: number): number | undefined {
	const tasks = calls.flatMap((call) => (call.task ? [call.task] : []));
	if (tasks.length === 0) return undefined;
	const interval = Math.min(...tasks.map((task) => task.pollIntervalMs));
	const wake = now + Math.min(MAX_TASK_WAKE_MS, Math.max(MIN_TASK_WAKE_MS, interval));
	return Math.min(wake, Math.max(now, Math.min(...tasks.map((task) => task.deadline))));
}

/** The expiry of a wait that holds only tasks: past the last deadline, when every task has been given up. */
export function taskWaitExpiry(calls: PlannedCall[]): number {
	return Math.max(...calls.map((call) => call.task?.deadline ?? 0)) + EXPIRY_GRACE_MS;
}

import type { INodePropertyOptions, INodeProperties } from 'n8n-workflow';
import { DEFAULT_MAX_TASK_WAIT_MS, type TaskMode } from '../../lib/mcp/toolTask';

/**
 * Run As Task and Max Task Wait, the options MCP Call Tool and the MCP Agent share for MCP Tasks
 * (lib/mcp/toolTask.ts). `waiter` names who waits ("the node", "the Agent") in the help texts.
 */

const RUN_AS_TASK_CHOICES: INodePropertyOptions[] = [
	{ name: 'When Required', value: 'whenRequired', description: 'Only tools that run only as tasks (execution.taskSupport "required"); the others are called as usual' },
	{ name: 'When Supported', value: 'whenSupported', description: 'Also tools that may run as tasks (taskSupport "optional"), for long calls that should not hold a request open' },
	{ name: 'Never', value: 'never', description: 'No call is sent as a task; a tool that requires it fails, nothing sent' },
];

export function maxTaskWaitOption(waiter: string, onLimit: string): INodeProperties {
	return {
		displayName: 'Max Task Wait (Seconds)',
		name: 'maxTaskWait',
		type: 'number',
		default: 300,
		typeOptions: { minValue: 1 },
		description: `How long ${waiter} waits for a tool call that runs as an MCP task; past it the task is cancelled on the server and ${onLimit}. The task's own ttl, set by the server, bounds it too.`,
	};
}

export function runAsTaskOption(waiter: string, delivery: string): INodeProperties {
	return {
		displayName: 'Run As Task',
		name: 'runAsTask',
		type: 'options',
		default: 'whenRequired',
		options: RUN_AS_TASK_CHOICES,
		description: `Long-running tools (MCP Tasks): the call returns a task, which ${waiter} polls at the server's interval until it ends, then ${delivery}. On MCP 2026-07-28 servers offering the tasks extension the server decides which calls become tasks: any option but Never lets it.`,
	};
}

/**
 * The Agent's durable task wait: a task still running after this long in place pauses the run,
 * and the execution waits in n8n's database (checked at the server's interval, after restarts, on
 * any worker) up to Max Task Wait. Only with an MCP Approval node after the Agent, which holds the wait.
 */
export const DEFAULT_TASK_PAUSE_AFTER_SECONDS = 60;

function taskPauseAfter(description: string): INodeProperties {
	return {
		displayName: 'Task Wait Before Pausing (Seconds)',
		name: 'taskPauseAfter',
		type: 'number',
		default: DEFAULT_TASK_PAUSE_AFTER_SECONDS,
		typeOptions: { minValue: 0 },
		description,
	};
}

export const taskPauseAfterOption = taskPauseAfter(
	'A tool call that runs as an MCP task and still runs after this long pauses the run: the execution waits in n8n (it survives restarts and resumes on any worker) until the task ends, up to Max Task Wait, then the model gets the result. Needs an MCP Approval node on "Needs Approval", which holds the wait; without one the Agent waits in place.',
);

/** MCP Call Tool's durable task wait (lib/approvals/callToolTaskWait.ts): an opt-in, as it adds an output. */
export const pauseLongTasksOption: INodeProperties = {
	displayName: 'Pause Long Tasks',
	name: 'pauseLongTasks',
	type: 'boolean',
	default: false,
	description:
		'Whether an item whose tool call runs as an MCP task that outlasts Task Wait Before Pausing goes out on a second output, Task Running, instead of holding the execution. Connect Task Running to an MCP Approval node and its output back to this node: the execution waits in n8n (it survives restarts and resumes on any worker), and the item comes out of Result when the task ends, up to Max Task Wait. Needs an HTTP server or Keep Server Running; otherwise the node waits in place.',
};

export const callToolTaskPauseAfterOption = taskPauseAfter(
	'With Pause Long Tasks on: how long the node waits in place for a tool call that runs as an MCP task before the item goes out on Task Running and the execution waits in n8n',
);

/** Task Wait Before Pausing in milliseconds (the default when unset or not a number >= 0). */
export function readTaskPauseAfter(options: { taskPauseAfter?: unknown }): number {
	const seconds = options.taskPauseAfter;
	return (typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds : DEFAULT_TASK_PAUSE_AFTER_SECONDS) * 1000;
}

/** The two options as the core takes them; anything unknown falls back to the defaults. */
export function readTaskPolicy(options: { runAsTask?: unknown; maxTaskWait?: unknown }): { mode: TaskMode; maxWaitMs: number } {
	const mode: TaskMode = options.runAsTask === 'whenSupported' || options.runAsTask === 'never' ? options.runAsTask : 'whenRequired';
	const seconds = options.maxTaskWait;
	return { mode, maxWaitMs: typeof seconds === 'number' && seconds > 0 ? seconds * 1000 : DEFAULT_MAX_TASK_WAIT_MS };
}

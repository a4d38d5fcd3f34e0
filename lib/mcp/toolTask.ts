import { specTypeSchemas } from '@modelcontextprotocol/client';
import type { ToolDefinition } from '../tools/toolDefinition';
import { quoteToolName } from '../tools/toolNameRule';
import { hasMarker, McpAgentError } from '../errors';
import { cleanMessage } from './progress';
import { isJsonObject } from '../util/jsonObject';

/**
 * Task-augmented tool calls (MCP 2025-11-25, SEP-1686), the part that needs no connection: when a
 * call goes as a task, and the wait for the task (poll `tasks/get` at the server's interval until a
 * terminal status, then fetch the result once). Requests go through a TaskChannel and time through
 * TaskTimers, so the whole wait runs in unit tests on a fake clock (test/unit/toolTask.test.ts);
 * lib/mcp/taskCall.ts binds both to a connection.
 */

/** How MCP Call Tool's *Run As Task* decides (a tool's `execution.taskSupport` is the other half). */
export type TaskMode = 'whenRequired' | 'whenSupported' | 'never';

/** What a tool says of itself (`execution.taskSupport`); absent means 'forbidden'. */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** The statuses of 2025-11-25; the last three are terminal. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task as the server describes it (CreateTaskResult.task, a tasks/get answer). */
export interface TaskState {
	taskId: string;
	status: TaskStatus;
	statusMessage?: string;
	/** Milliseconds from creation the server keeps the task; null for unlimited. */
	ttl: number | null;
	pollInterval?: number;
	createdAt: string;
	lastUpdatedAt: string;
	/** 2026-07-28 (lib/mcp/modernTask.ts): tasks/get inlines the result of a completed task... */
	result?: Record<string, unknown>;
	/** ...the JSON-RPC error of a failed one... */
	error?: { code?: number; message: string };
	/** ...and the server's requests of one waiting for input (answered with tasks/update). */
	inputRequests?: Record<string, unknown>;
}

/**
 * How a caller wants task-capable tools called (MCP Call Tool's and the Agent's Run As Task and
 * Max Task Wait): `onStatus` sees each status of the task, the created one first.
 */
export interface TaskCallPolicy {
	mode: TaskMode;
	maxWaitMs: number;
	onStatus?: (state: TaskState) => void;
	/**
	 * Wait in place only this long, then hand the task back still running (not cancelled) as a
	 * RunningTask, for the caller to pause the n8n execution and check it later (the Agent's durable
	 * task wait). Unset: wait in place up to maxWaitMs.
	 */
	handOffAfterMs?: number;
	/**
	 * With handOffAfterMs: a 2026-07-28 task's questions for a person (elicitation) hand the task
	 * off at once with them (RunningTask.inputRequests) instead of being declined; the caller asks a
	 * person and checks the task again with the answers (InteractiveCallOptions.continuation).
	 */
	askPerson?: boolean;
}

/** Which task vocabulary follows a task: SEP-1686 (2025-11-25) or the 2026-07-28 extension. */
export type TaskProtocol = '2025-11-25' | '2026-07-28';

/**
 * A task handed back still running (TaskCallPolicy.handOffAfterMs): what a later check needs, all
 * plain JSON and no secret, so a paused run can keep it and any worker can check it after a restart.
 */
export interface RunningTask {
	taskId: string;
	protocol: TaskProtocol;
	status: TaskStatus;
	/** Cleaned as progress messages are (untrusted text, for people only). */
	statusMessage?: string;
	/** The server's pollInterval within the clamps (pollDelay). */
	pollIntervalMs: number;
	/** When waiting ends (epoch ms): Max Task Wait, or the task's ttl, counted from the call. */
	deadline: number;
	/** That limit in words, for the error once it passes. */
	limit: string;
	/**
	 * Status `input_required` (2026-07-28) with questions for a person (TaskCallPolicy.askPerson):
	 * the requests as the server keyed them; the person's answers go back with tasks/update.
	 */
	inputRequests?: Record<string, { method: string; params?: Record<string, unknown> }>;
	/**
	 * 2025-11-25: the progress token the call was sent with. The server may go on sending progress
	 * with it for the task's whole life (SEP-1686), so a later check on a kept connection routes it
	 * again (our own random token: not a secret).
	 */
	progressToken?: string;
}

/** Longer than any token of ours (`task-progress-` and a UUID): a stored value past it was not written here. */
const MAX_PROGRESS_TOKEN_CHARS = 64;

/** Whether a stored value has what a check of a running task reads (a paused run's, or a paused MCP Call Tool's). */
export function isRunningTask(task: unknown): task is RunningTask {
	if (!isJsonObject(task)) return false;
	const { taskId, protocol, status, deadline, pollIntervalMs, limit } = task;
	return (
		typeof taskId === 'string' &&
		(protocol === '2025-11-25' || protocol === '2026-07-28') &&
		typeof status === 'string' &&
		typeof deadline === 'number' &&
		Number.isFinite(deadline) &&
		typeof pollIntervalMs === 'number' &&
		Number.isFinite(pollIntervalMs) &&
		typeof limit === 'string' &&
		(task.progressToken === undefined || (typeof task.progressToken === 'string' && task.progressToken.length <= MAX_PROGRESS_TOKEN_CHARS))
	);
}

/** The last known state of a handed-off task, where a later check starts from (resumed waits ask the server at once). */
export function lastKnownState(task: RunningTask): TaskState {
	return { taskId: task.taskId, status: task.status, ttl: null, pollInterval: task.pollIntervalMs, createdAt: '', lastUpdatedAt: '' };
}

const HANDED_OFF_MARKER = Symbol.for('n8n-nodes-mcp-agent.error.TaskHandedOff');

/**
 * Not a failure: awaitTask's way out when the in-place wait (handOffAfterMs) is over and the task
 * still runs; interactiveCall turns it into a `task_running` outcome. The task is not cancelled.
 */
export class TaskHandedOff extends McpAgentError {
	readonly [HANDED_OFF_MARKER] = true;

	constructor(readonly task: RunningTask) {
		super(`The task ${quoteId(task.taskId)} still runs on the server; the wait continues later`, { code: 'remote' });
		this.name = 'TaskHandedOff';
	}

	static isInstance(error: unknown): error is TaskHandedOff {
		return hasMarker(error, HANDED_OFF_MARKER);
	}
}

/**
 * What the Agent's tool log keeps of a call that ran as a task: the server's id, the last status
 * seen and its message (cleaned as progress messages are: untrusted text, for people only).
 */
export interface TaskSummary {
	taskId: string;
	status: TaskStatus;
	statusMessage?: string;
}

export function summarizeTask(state: TaskState): TaskSummary {
	const message = typeof state.statusMessage === 'string' ? cleanMessage(state.statusMessage) : '';
	return { taskId: state.taskId, status: state.status, ...(message ? { statusMessage: message } : {}) };
}

/** Shortest wait between two `tasks/get` of one task, whatever `pollInterval` the server asks for. */
export const MIN_POLL_INTERVAL_MS = 250;
/** Longest wait between two polls: a server asking for hours still gets asked within this. */
export const MAX_POLL_INTERVAL_MS = 30_000;
/** The wait when the server names no `pollInterval`. */
export const DEFAULT_POLL_INTERVAL_MS = 1_000;
/** Default of MCP Call Tool's *Max Task Wait*: how long the node waits in place for one task. */
export const DEFAULT_MAX_TASK_WAIT_MS = 300_000;
/**
 * Largest `tasks/get` answer (as JSON) taken in: a status with a message is a few hundred bytes;
 * one of megabytes is a broken or hostile server and the task is given up on (and cancelled).
 */
export const MAX_TASK_STATUS_BYTES = 64 * 1024;
/** How long a `tasks/cancel` sent on the way out (abort, limit, bad answer) may take. */
export const CANCEL_GRACE_MS = 5_000;
/** How much longer than the wait the server is asked to keep the task (`ttl`): the result must still be there when fetched. */
const TTL_MARGIN_MS = 60_000;

const TERMINAL = new Set<TaskStatus>(['completed', 'failed', 'cancelled']);
const STATUSES = new Set<string>(['working', 'input_required', 'completed', 'failed', 'cancelled']);

export function taskSupportOf(tool: Pick<ToolDefinition, 'execution'> | undefined): TaskSupport {
	const support = tool?.execution?.taskSupport;
	return support === 'optional' || support === 'required' ? support : 'forbidden';
}

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Whether a 2026-07-28 server's server/discover capabilities name the tasks extension. */
export function serverOffersTasksExtension(capabilities: unknown): boolean {
	const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions;
	const entry = extensions && Object.hasOwn(extensions, TASKS_EXTENSION) ? extensions[TASKS_EXTENSION] : undefined;
	return typeof entry === 'object' && entry !== null;
}

/** What the server offers for tool calls: 2025-11-25 `capabilities.tasks.requests.tools.call`. */
export function serverOffersToolTasks(capabilities: unknown): boolean {
	const tasks = (capabilities as { tasks?: { requests?: { tools?: { call?: unknown } } } } | undefined)?.tasks;
	const call = tasks?.requests?.tools?.call;
	return typeof call === 'object' && call !== null;
}

/**
 * Whether this call goes as a task: `required` tools always (unless the mode is 'never', which
 * refuses them here, nothing sent), `optional` ones with 'whenSupported', and never when the
 * server does not offer tasks for tool calls (the spec forbids it then; a required tool is refused
 * with a message saying so). On 2026-07-28 connections tasks are the `io.modelcontextprotocol/tasks`
 * extension (lib/mcp/modernTask.ts), where the server alone decides per call and tools carry no
 * `execution.taskSupport` (the 2026 tool schema has none): every call with Run As Task other than
 * Never declares the extension when the server offers it, and a server that answers plainly is
 * taken at its word. Without the offer the call goes plainly.
 */
export function decideTaskCall(tool: ToolDefinition, mode: TaskMode, session: { isModern: boolean; capabilities: unknown }): boolean {
	if (session.isModern) return mode !== 'never' && serverOffersTasksExtension(session.capabilities);
	const support = taskSupportOf(tool);
	if (support === 'forbidden') return false;
	const name = quoteToolName(tool.name);
	if (support === 'required' && mode === 'never') {
		throw new McpAgentError(`Tool ${name} runs only as an MCP task (execution.taskSupport "required"), and Run As Task is Never`, {
			code: 'config',
			description: 'Nothing was sent to the server. Set Options > Run As Task to "When Required" (the default) or "When Supported".',
		});
	}
	if (!serverOffersToolTasks(session.capabilities)) {
		if (support === 'optional') return false;
		throw new McpAgentError(
			`Tool ${name} runs only as an MCP task (execution.taskSupport "required"), but the server does not offer tasks for tool calls (capabilities.tasks.requests.tools.call)`,
			{
				code: 'remote',
				description:
					'Nothing was sent to the server: a client may not send a task to a server that does not offer them. The server contradicts itself; update it or report it to its authors.',
			},
		);
	}
	return mode === 'whenSupported' || support === 'required';
}

/** The `task` field of the tools/call request: keep the task a minute past the longest wait. */
export function taskRequestMetadata(maxWaitMs: number): { ttl: number } {
	return { ttl: maxWaitMs + TTL_MARGIN_MS };
}

const TASK_FAILED_MARKER = Symbol.for('n8n-nodes-mcp-agent.error.TaskFailed');

/**
 * The server ended the task as `failed` or `cancelled` (not by us): a tool failure, for MCP Call
 * Tool's On Tool Error (Return as Data outputs it as an isError item).
 */
export class TaskFailed extends McpAgentError {
	readonly [TASK_FAILED_MARKER] = true;

	constructor(
		readonly tool: string,
		readonly taskId: string,
		readonly status: 'failed' | 'cancelled',
		readonly statusMessage: string | undefined,
	) {
		super(
			`The task of tool ${quoteToolName(tool)} ended ${status === 'failed' ? 'failed' : 'cancelled by the server'} (task ${quoteId(taskId)}, status "${status}"): ${statusMessage || 'the server gave no message'}`,
			{
				code: 'remote',
				description:
					status === 'failed'
						? 'The server ran the tool as a task and reported it failed; its message says why. Set Options > On Tool Error to "Return as Data" to receive such failures as items.'
						: "The server cancelled the task before it finished (nobody here asked it to). Run it again, or ask the server's operators why it was cancelled.",
			},
		);
		this.name = 'TaskFailed';
	}

	static isInstance(error: unknown): error is TaskFailed {
		return hasMarker(error, TASK_FAILED_MARKER);
	}
}

/** A task id as the server chose it, cut for messages. */
function quoteId(id: string): string {
	return JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);
}

function taskRefused(tool: string, what: string, description: string): McpAgentError {
	return new McpAgentError(`The task of tool ${quoteToolName(tool)} ${what}`, { code: 'remote', description });
}

const BROKEN_SERVER = 'The server does not answer as MCP Tasks (2025-11-25) require. The task was cancelled; update the server or report it to its authors.';

/**
 * A CreateTaskResult or tasks/get answer checked: the status first (an unknown one named as such),
 * the size, the id, then the rest against the SDK's own schema. `expectedId` is set for tasks/get.
 */
export function parseTaskState(tool: string, answer: unknown, where: 'tools/call' | 'tasks/get', expectedId?: string): TaskState {
	const body = where === 'tools/call' ? (answer as { task?: unknown } | null)?.task : answer;
	if (typeof body !== 'object' || body === null || Array.isArray(body)) {
		throw taskRefused(tool, `could not be followed: the server answered ${where} without a task${where === 'tools/call' ? ' (CreateTaskResult.task)' : ''}`, BROKEN_SERVER);
	}
	let size: number;
	try {
		size = JSON.stringify(body).length;
	} catch {
		size = Infinity;
	}
	if (size > MAX_TASK_STATUS_BYTES) {
		throw taskRefused(tool, `was given up: the server's ${where} answer is larger than ${MAX_TASK_STATUS_BYTES / 1024} KB (a task status is a few hundred bytes)`, BROKEN_SERVER);
	}
	const { status, taskId } = body as { status?: unknown; taskId?: unknown };
	if (typeof status !== 'string' || !STATUSES.has(status)) {
		throw taskRefused(
			tool,
			`has a status this client does not know (${JSON.stringify(typeof status === 'string' ? status.slice(0, 60) : (status ?? null))} in the ${where} answer; known: working, input_required, completed, failed, cancelled)`,
			BROKEN_SERVER,
		);
	}
	if (expectedId !== undefined && taskId !== expectedId) {
		throw taskRefused(
			tool,
			`could not be followed: tasks/get for task ${quoteId(expectedId)} was answered for another task (${typeof taskId === 'string' ? quoteId(taskId) : 'no taskId'})`,
			BROKEN_SERVER,
		);
	}
	const checked = (where === 'tools/call' ? specTypeSchemas.CreateTaskResult : specTypeSchemas.GetTaskResult)['~standard'].validate(answer);
	if ('then' in checked || checked.issues) {
		const issue = 'then' in checked ? undefined : checked.issues?.[0];
		const path = issue?.path?.map((key) => String(typeof key === 'object' ? key.key : key)).join('.');
		throw taskRefused(tool, `could not be followed: the server's ${where} answer is not a valid task (${path ? `${path}: ` : ''}${issue?.message ?? 'invalid'})`, BROKEN_SERVER);
	}
	const state = (where === 'tools/call' ? (checked.value as { task: TaskState }).task : checked.value) as TaskState;
	return state;
}

/** The requests a task wait makes; lib/mcp/taskCall.ts sends them on a connection. */
export interface TaskChannel {
	/** `tasks/get`: the raw answer (parsed here). */
	get(taskId: string, signal: AbortSignal): Promise<unknown>;
	/** `tasks/result`: the tool's CallToolResult; blocks on the server until the task ends. */
	result(taskId: string, timeoutMs: number | undefined, signal: AbortSignal): Promise<Record<string, unknown>>;
	/** `tasks/cancel`, bounded by CANCEL_GRACE_MS; failures are the caller's to ignore. */
	cancel(taskId: string): Promise<unknown>;
	/**
	 * `notifications/tasks/status` for the task: `wake` on each, until the returned function is
	 * called. The wait then polls at once (at most once per MIN_POLL_INTERVAL_MS).
	 */
	watch?(taskId: string, wake: () => void): () => void;
	/** How a tasks/get answer is read; absent: 2025-11-25 (parseTaskState). */
	parse?(answer: unknown, expectedId: string): TaskState;
	/**
	 * 2026-07-28: answers an `input_required` task's requests (`tasks/update`); the wait then
	 * polls on. Absent: 2025-11-25, where the requests come on `tasks/result`. Resolves with the
	 * requests left for a person (TaskCallPolicy.askPerson): the wait then hands the task off with them.
	 */
	answerInput?(state: TaskState, signal: AbortSignal): Promise<void | { forPerson: NonNullable<RunningTask['inputRequests']> }>;
}

/** The clock of a wait (injected in tests). */
export interface TaskTimers {
	now(): number;
	setTimeout(run: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

export const REAL_TIMERS: TaskTimers = {
	now: () => Date.now(),
	setTimeout: (run, ms) => setTimeout(run, ms),
	clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface TaskWaitOptions {
	tool: string;
	/** Past this the task is cancelled and the call fails naming the limit (Max Task Wait). */
	maxWaitMs: number;
	/** n8n's Stop: the task is cancelled on the server, the wait ends at once. */
	signal?: AbortSignal;
	timers?: TaskTimers;
	/** Each status seen, the created one first (progress on n8n's log, later the Agent's output). */
	onStatus?: (state: TaskState) => void;
	/** See TaskCallPolicy.handOffAfterMs. */
	handOffAfterMs?: number;
	/** The protocol, for the RunningTask a hand-off returns. */
	protocol?: TaskProtocol;
	/**
	 * A task handed off earlier, checked again: `created` is its last known state, the wait keeps
	 * the task's deadline, and asks the server for the status at once.
	 */
	resumed?: Pick<RunningTask, 'deadline' | 'limit'>;
}

/** The poll wait: the server's interval within [MIN_POLL_INTERVAL_MS, MAX_POLL_INTERVAL_MS]. */
export function pollDelay(state: Pick<TaskState, 'pollInterval'>): number {
	const asked = state.pollInterval;
	if (typeof asked !== 'number' || !Number.isFinite(asked)) return DEFAULT_POLL_INTERVAL_MS;
	return Math.min(MAX_POLL_INTERVAL_MS, Math.max(MIN_POLL_INTERVAL_MS, asked));
}

/**
 * Waits for a created task and returns its result, as a quick call would have: polls `tasks/get`
 * at the server's interval; on `input_required` calls `tasks/result` at once (2025-11-25: that is
 * where the server sends its requests, which the session answers, and it blocks until the task
 * ends), or, with `channel.answerInput` (2026-07-28), answers them with `tasks/update` and polls
 * on; on `completed` takes the result `tasks/get` carried (2026-07-28) or fetches `tasks/result` once. `failed` or `cancelled` by the server reject
 * with TaskFailed. A status it does not know, a malformed or oversized answer, the wait passing
 * `maxWaitMs` (or the task's own ttl), or an abort: the task is cancelled on the server
 * (`tasks/cancel`, not awaited past CANCEL_GRACE_MS) and the call rejects saying which. No timer
 * is left behind however it ends.
 */
export async function awaitTask(created: TaskState, channel: TaskChannel, options: TaskWaitOptions): Promise<Record<string, unknown>> {
	const timers = options.timers ?? REAL_TIMERS;
	const started = timers.now();
	const { tool } = options;
	const taskId = created.taskId;
	// One controller for every request of the wait: n8n's Stop and our own limits both end it.
	const stop = new AbortController();
	const outer = options.signal;
	const onOuterAbort = () => stop.abort(outer?.reason);
	if (outer?.aborted) onOuterAbort();
	else outer?.addEventListener('abort', onOuterAbort, { once: true });
	// The ttl counts from creation on the server's clock; ours starts at the answer, close enough.
	const ttlBound = typeof created.ttl === 'number' && created.ttl > 0 ? created.ttl : Infinity;
	const limitMs = Math.min(options.maxWaitMs, ttlBound);
	const limitName = options.resumed?.limit ?? (ttlBound < options.maxWaitMs ? `the task's ttl (${seconds(ttlBound)}, set by the server)` : `Max Task Wait (${seconds(options.maxWaitMs)})`);
	const deadline = options.resumed?.deadline ?? started + limitMs;
	const handOffAt = options.handOffAfterMs !== undefined ? started + options.handOffAfterMs : undefined;
	const handOff = (at: TaskState, inputRequests?: RunningTask['inputRequests']) =>
		new TaskHandedOff({
			taskId,
			protocol: options.protocol ?? '2025-11-25',
			status: at.status,
			...(typeof at.statusMessage === 'string' && cleanMessage(at.statusMessage) ? { statusMessage: cleanMessage(at.statusMessage) } : {}),
			pollIntervalMs: pollDelay(at),
			deadline,
			limit: limitName,
			...(inputRequests ? { inputRequests } : {}),
		});
	let cancelSent = false;
	const cancelOnServer = (): Promise<void> => {
		if (cancelSent) return Promise.resolve();
		cancelSent = true;
		return channel.cancel(taskId).then(
			() => undefined,
			() => undefined,
		);
	};
	const overLimit = () =>
		taskRefused(
			tool,
			`did not finish within ${limitName}; it was cancelled on the server (task ${quoteId(taskId)})`,
			"Raise Options > Max Task Wait if the tool needs longer (the task's ttl, which the server sets, bounds it too).",
		);
	const aborted = () =>
		new McpAgentError(`The call of tool ${quoteToolName(tool)} was stopped while its task ran; the task was cancelled on the server (task ${quoteId(taskId)})`, {
			code: 'cancelled',
		});

	let state = created;
	// A status notice ends the current sleep early (see sleep); between sleeps it has nothing to do.
	let wakeEarly: (() => void) | undefined;
	const unwatch = channel.watch?.(taskId, () => wakeEarly?.());
	try {
		if (options.resumed) {
			if (timers.now() >= deadline) throw overLimit();
			state = channel.parse ? channel.parse(await channel.get(taskId, stop.signal), taskId) : parseTaskState(tool, await channel.get(taskId, stop.signal), 'tasks/get', taskId);
		}
		options.onStatus?.(state);
		for (;;) {
			if (stop.signal.aborted) throw aborted();
			// 2026-07-28 inlines the result in tasks/get; 2025-11-25 fetches it.
			if (state.status === 'completed') return state.result ?? (await channel.result(taskId, undefined, stop.signal));
			if (state.status === 'failed' || state.status === 'cancelled') throw new TaskFailed(tool, taskId, state.status, state.statusMessage ?? state.error?.message);
			const remaining = deadline - timers.now();
			if (remaining <= 0) throw overLimit();
			if (state.status === 'input_required' && channel.answerInput) {
				const answered = await withDeadline(channel.answerInput(state, stop.signal), remaining, timers, stop);
				if (answered === OVER) throw overLimit();
				if (answered && handOffAt !== undefined) throw handOff(state, answered.forPerson);
			} else if (state.status === 'input_required') {
				// The server's requests come on this one (answered by the session: declined on MCP Call
				// Tool), which then answers with the result once the task has ended.
				const result = await withDeadline(channel.result(taskId, remaining, stop.signal), remaining, timers, stop);
				if (result === OVER) throw overLimit();
				return result;
			}
			if (handOffAt !== undefined && timers.now() >= handOffAt) throw handOff(state);
			const untilHandOff = handOffAt !== undefined ? handOffAt - timers.now() : Infinity;
			const slept = await sleep(Math.min(pollDelay(state), remaining, Math.max(untilHandOff, MIN_POLL_INTERVAL_MS)), timers, stop.signal, (wake) => (wakeEarly = wake));
			wakeEarly = undefined;
			if (!slept) throw aborted();
			if (timers.now() >= deadline) throw overLimit();
			const answer = await channel.get(taskId, stop.signal);
			state = channel.parse ? channel.parse(answer, taskId) : parseTaskState(tool, answer, 'tasks/get', taskId);
			options.onStatus?.(state);
		}
	} catch (error) {
		// Whatever ended the wait here (Stop, a limit, a bad answer, a failed request) leaves no task
		// running on the server for nobody; one that ended (a result that could not be fetched, a
		// failure the server reported) needs no cancel.
		const stopped = outer?.aborted === true;
		if (TaskHandedOff.isInstance(error) && !stopped) throw error;
		if (!TERMINAL.has(state.status)) {
			stop.abort();
			await cancelOnServer();
		}
		if (stopped) throw aborted();
		throw error;
	} finally {
		unwatch?.();
		outer?.removeEventListener('abort', onOuterAbort);
	}
}

const OVER = Symbol('over the limit');

/** `pending`, or OVER once `ms` have passed (the request is then aborted). */
function withDeadline<T>(pending: Promise<T>, ms: number, timers: TaskTimers, stop: AbortController): Promise<T | typeof OVER> {
	return new Promise<T | typeof OVER>((resolve, reject) => {
		const handle = timers.setTimeout(() => {
			resolve(OVER);
			stop.abort();
		}, Math.max(0, ms));
		pending.then(
			(value) => {
				timers.clearTimeout(handle);
				resolve(value);
			},
			(error: unknown) => {
				timers.clearTimeout(handle);
				reject(error);
			},
		);
	});
}

/**
 * True after `ms`, false as soon as `signal` aborts (the timer cleared). `onWake` is handed a
 * function that ends the sleep early (a status notice), though never before MIN_POLL_INTERVAL_MS
 * of it have passed: a server sending notices without end gets one poll per that interval.
 */
function sleep(ms: number, timers: TaskTimers, signal: AbortSignal, onWake?: (wake: () => void) => void): Promise<boolean> {
	if (signal.aborted) return Promise.resolve(false);
	const started = timers.now();
	return new Promise<boolean>((resolve) => {
		let handle: unknown;
		let early = false;
		const done = () => {
			signal.removeEventListener('abort', onAbort);
			resolve(true);
		};
		const onAbort = () => {
			timers.clearTimeout(handle);
			resolve(false);
		};
		// A check made past the deadline (a wake that came late) has nothing left to sleep.
		handle = timers.setTimeout(done, Math.max(0, ms));
		signal.addEventListener('abort', onAbort, { once: true });
		onWake?.(() => {
			if (early) return;
			early = true;
			const soonest = Math.max(0, MIN_POLL_INTERVAL_MS - (timers.now() - started));
			if (soonest >= ms - (timers.now() - started)) return;
			timers.clearTimeout(handle);
			handle = timers.setTimeout(done, soonest);
		});
	});
}

function seconds(ms: number): string {
	return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

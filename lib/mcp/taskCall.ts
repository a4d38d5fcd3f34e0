import { specTypeSchemas, type Client, type StandardSchemaV1 } from '@modelcontextprotocol/client';
import type { ToolDefinition } from '../tools/toolDefinition';
import { quoteToolName } from '../tools/toolNameRule';
import { toolResultValidator } from './legacyToolCall';
import { awaitTask, CANCEL_GRACE_MS, TaskHandedOff, lastKnownState, parseTaskState, taskRequestMetadata, type RunningTask, type TaskChannel, type TaskState, type TaskTimers } from './toolTask';
import type { DeclinedRequest } from './legacyInputRequests';
import { McpAgentError } from '../errors';

/**
 * A tool call sent as an MCP task (2025-11-25) on a connection, and waited for in place: the
 * connection's side of lib/mcp/toolTask.ts. Plain requests with the SDK's task schemas: the v2
 * client carries the 2025-11-25 task vocabulary (`specTypeSchemas.CreateTaskResult`, ...) but no
 * task runtime, and the 1.x SDK's `client.experimental.tasks` is not the client this package runs.
 *
 * Works on every transport the connection may have: stdio, the SDK's Streamable HTTP and the lean
 * HTTP path (tasks/* are ordinary requests on an established 2025-era session; a `tasks/result`
 * answered as an event stream carries the server's requests, which the session answers).
 */

/** What the task path needs of its connection (McpConnection, through interactiveCall's CallChannel). */
export interface TaskCallChannel {
	readonly config: { requestTimeoutMs: number };
	request<T>(phase: string, run: (client: Client) => Promise<T>): Promise<T>;
	trackLegacyInput<T>(call: () => Promise<T>): Promise<{ value: T; declined?: DeclinedRequest[] }>;
	watchTask?(taskId: string, wake: () => void): () => void;
	routeTaskProgress?(onProgress: (params: unknown) => void, token?: string): { token: string; stop: () => void } | undefined;
}

export interface TaskCallOptions {
	maxWaitMs: number;
	/** Per request (the tools/call that creates the task, each tasks/get, the final tasks/result). */
	timeoutMs: number;
	signal?: AbortSignal;
	timers?: TaskTimers;
	onStatus?: (state: TaskState) => void;
	/** TaskCallPolicy.handOffAfterMs: past it, awaitTask throws TaskHandedOff (the task runs on). */
	handOffAfterMs?: number;
	/** TaskCallPolicy.askPerson (2026-07-28 tasks). */
	askPerson?: boolean;
	/** Each progress notification of the task's call, as sent (2025-11-25: for as long as it is waited for here). */
	onProgress?: (params: unknown) => void;
}

/** What awaitTask takes from the call's options (the same for both protocols). */
export function waitOptions(name: string, options: TaskCallOptions, protocol: RunningTask['protocol']) {
	return {
		tool: name,
		maxWaitMs: options.maxWaitMs,
		protocol,
		...(options.signal ? { signal: options.signal } : {}),
		...(options.timers ? { timers: options.timers } : {}),
		...(options.onStatus ? { onStatus: options.onStatus } : {}),
		...(options.handOffAfterMs !== undefined ? { handOffAfterMs: options.handOffAfterMs } : {}),
	};
}

/** Takes the answer as it came: it is checked here (parseTaskState), with messages that say what was wrong. */
const AS_SENT: StandardSchemaV1 = { '~standard': { version: 1, vendor: 'n8n-nodes-mcp-agent', validate: (value: unknown) => ({ value }) } };

/**
 * Calls `tool` as a task and resolves with its CallToolResult (with the notes of requests the
 * session declined while it ran), as a quick call would. A server that answers the task-augmented
 * call with a plain result (it chose to run it at once) is taken at its word.
 */
export async function callToolAsTask(
	connection: TaskCallChannel,
	tool: ToolDefinition,
	args: Record<string, unknown>,
	options: TaskCallOptions,
): Promise<{ value: Record<string, unknown>; declined?: DeclinedRequest[] }> {
	const name = tool.name;
	const quoted = quoteToolName(name);
	const requestOptions = (timeout: number, signal?: AbortSignal) => ({ timeout, ...(signal ? { signal } : {}) });
	return connection.trackLegacyInput(async () => {
		// The call's progress token stays the task's (SEP-1686): routed here while the task is waited for.
		const progress = options.onProgress ? connection.routeTaskProgress?.(options.onProgress) : undefined;
		try {
			const answer = await connection
				.request(`calling tool ${quoted} as a task`, (client) =>
					client.request(
						{ method: 'tools/call', params: { name, arguments: args, task: taskRequestMetadata(options.maxWaitMs), ...(progress ? { _meta: { progressToken: progress.token } } : {}) } },
						AS_SENT,
						requestOptions(options.timeoutMs, options.signal),
					),
				)
				.catch((error: unknown) => {
					// Stopped before the server named the task: there is no id to cancel (the client told the
					// server the request was cancelled; a server that made the task anyway lets it expire).
					if (!options.signal?.aborted) throw error;
					throw new McpAgentError(`The call of tool ${quoted} was stopped before the server created its task`, { code: 'cancelled', cause: error });
				});
			if (isPlainResult(answer)) return answer as Record<string, unknown>;
			const created = parseTaskState(name, answer, 'tools/call');
			return await keepingProgressToken(awaitTask(created, legacyTaskChannel(connection, name, options), waitOptions(name, options, '2025-11-25')), progress?.token);
		} finally {
			progress?.stop();
		}
	});
}

/** A task handed off with the progress token of its call, so a later check can route the server's progress again. */
function keepingProgressToken<T>(waiting: Promise<T>, token: string | undefined): Promise<T> {
	if (!token) return waiting;
	return waiting.catch((error: unknown) => {
		if (TaskHandedOff.isInstance(error)) error.task.progressToken = token;
		throw error;
	});
}

/**
 * A 2025-11-25 task handed off earlier (RunningTask), checked again: its status now, and its result
 * once it completed (fetched once, with tasks/result), else TaskHandedOff again after
 * `handOffAfterMs` in place. Past the task's deadline it is cancelled, as in the first wait.
 */
export function resumeLegacyTask(
	connection: TaskCallChannel,
	name: string,
	task: RunningTask,
	options: TaskCallOptions,
): Promise<{ value: Record<string, unknown>; declined?: DeclinedRequest[] }> {
	return connection.trackLegacyInput(async () => {
		// The server may still send progress with the call's token: on a kept connection (the same
		// session), it reaches this check as it reached the call.
		const token = task.progressToken;
		const progress = token && options.onProgress ? connection.routeTaskProgress?.(options.onProgress, token) : undefined;
		try {
			return await keepingProgressToken(
				awaitTask(lastKnownState(task), legacyTaskChannel(connection, name, options), { ...waitOptions(name, options, '2025-11-25'), resumed: { deadline: task.deadline, limit: task.limit } }),
				token,
			);
		} finally {
			progress?.stop();
		}
	});
}

/** The requests of a 2025-11-25 task wait, on a connection. */
function legacyTaskChannel(connection: TaskCallChannel, name: string, options: TaskCallOptions): TaskChannel {
	const quoted = quoteToolName(name);
	const requestOptions = (timeout: number, signal?: AbortSignal) => ({ timeout, ...(signal ? { signal } : {}) });
	const watchTask = connection.watchTask?.bind(connection);
	return {
		...statusRequests(connection, name, options.timeoutMs),
		result: (taskId, timeoutMs, signal) =>
			connection.request(`fetching the result of the task of tool ${quoted}`, (client) =>
				client.request(
					{ method: 'tasks/result', params: { taskId } },
					toolResultValidator(client) ?? specTypeSchemas.CallToolResult,
					requestOptions(timeoutMs ?? options.timeoutMs, signal),
				),
			) as Promise<Record<string, unknown>>,
		...(watchTask ? { watch: watchTask } : {}),
	};
}

/** tasks/get and tasks/cancel, the same on both protocols (the answers are checked by the caller's parse). */
export function statusRequests(connection: Pick<TaskCallChannel, 'request'>, name: string, timeoutMs: number): Pick<TaskChannel, 'get' | 'cancel'> {
	const quoted = quoteToolName(name);
	return {
		get: (taskId, signal) =>
			connection.request(`following the task of tool ${quoted}`, (client) =>
				client.request({ method: 'tasks/get', params: { taskId } }, AS_SENT, { timeout: timeoutMs, ...(signal ? { signal } : {}) }),
			),
		// Not under the call's signal: it is what an aborted call sends on its way out.
		cancel: (taskId) =>
			connection.request(`cancelling the task of tool ${quoted}`, (client) =>
				client.request({ method: 'tasks/cancel', params: { taskId } }, AS_SENT, { timeout: CANCEL_GRACE_MS }),
			),
	};
}

/** A CallToolResult where a CreateTaskResult was asked for: content and no task. */
function isPlainResult(answer: unknown): boolean {
	return typeof answer === 'object' && answer !== null && !('task' in answer) && Array.isArray((answer as { content?: unknown }).content);
}

import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { quoteToolName } from '../tools/toolNameRule';
import { McpAgentError } from '../errors';
import { MAX_TASK_STATUS_BYTES, TASKS_EXTENSION, type TaskState, type TaskStatus } from './toolTask';

/**
 * MCP Tasks on 2026-07-28 connections: the `io.modelcontextprotocol/tasks` extension (SEP-2663,
 * github.com/modelcontextprotocol/ext-tasks, specification/2026-07-28/tasks.md). What differs
 * from 2025-11-25 and needs no connection: how support is negotiated (server/discover's
 * `capabilities.extensions`, the client's per-request `_meta` capabilities), the handle
 * (`resultType: "task"` with the task inlined, `ttlMs`/`pollIntervalMs`), and `tasks/get`
 * answers that carry the result, the error or the server's `inputRequests`. The wait itself is
 * awaitTask's (lib/mcp/toolTask.ts); lib/mcp/taskCall.ts binds both to a connection.
 */

/** Where the transports put a `resultType: "task"` answer so the v2 client, which rejects that result type, lets it through. */
export const TASK_HANDLE_FIELD = 'n8n-nodes-mcp-agent/taskHandle';

/**
 * The `_meta` of a call that may take a task: the client's capabilities restated with the
 * extension (our `_meta` key wins over the client's own envelope key, so all of them are given).
 */
export function tasksExtensionMeta(capabilities: Record<string, unknown>): Record<string, unknown> {
	return { 'io.modelcontextprotocol/clientCapabilities': withTasksExtension(capabilities) };
}

/** The client's per-request capabilities with the extension added (only on calls that can take a task). */
export function withTasksExtension(capabilities: Record<string, unknown>): Record<string, unknown> {
	const extensions = (capabilities.extensions as Record<string, unknown> | undefined) ?? {};
	return { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
}

/**
 * A `resultType: "task"` answer (a CreateTaskResult) rewritten as a complete result that keeps the
 * handle under TASK_HANDLE_FIELD: the v2 client rejects unknown result types outright, answer lost.
 * `content: []` keeps it a valid CallToolResult; the call path looks for the key before anything
 * else (a plain call that gets one is refused: the server sent a task nobody asked for).
 */
export function withTaskHandle(message: JSONRPCMessage): JSONRPCMessage {
	const result = (message as { result?: unknown }).result;
	if (!result || typeof result !== 'object' || Array.isArray(result) || (result as { resultType?: unknown }).resultType !== 'task') return message;
	const { resultType: _task, ...handle } = result as Record<string, unknown>;
	return { ...message, result: { resultType: 'complete', content: [], [TASK_HANDLE_FIELD]: handle } } as JSONRPCMessage;
}

export function taskHandleOf(answer: unknown): unknown {
	return typeof answer === 'object' && answer !== null && Object.hasOwn(answer, TASK_HANDLE_FIELD) ? (answer as Record<string, unknown>)[TASK_HANDLE_FIELD] : undefined;
}

const STATUSES = new Set<string>(['working', 'input_required', 'completed', 'failed', 'cancelled']);
const BROKEN_SERVER =
	'The server does not answer as the MCP tasks extension (io.modelcontextprotocol/tasks, 2026-07-28) requires. The task was cancelled; update the server or report it to its authors.';

function refused(tool: string, what: string): McpAgentError {
	return new McpAgentError(`The task of tool ${quoteToolName(tool)} ${what}`, { code: 'remote', description: BROKEN_SERVER });
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A task handle (CreateTaskResult) or `tasks/get` answer (DetailedTask) checked and put in the
 * 2025 shape awaitTask follows (`ttlMs` → `ttl`, `pollIntervalMs` → `pollInterval`), with what
 * 2026 inlines: the result of a completed task, the error of a failed one, the requests of one
 * waiting for input. The status is checked first, so an unknown one is named as such.
 */
export function parseModernTaskState(tool: string, body: unknown, where: 'tools/call' | 'tasks/get', expectedId?: string): TaskState {
	if (!isObject(body)) throw refused(tool, `could not be followed: the server answered ${where} without a task`);
	let size: number;
	try {
		size = JSON.stringify(body).length;
	} catch {
		size = Infinity;
	}
	// tasks/get carries the tool's result too: the bound is the result's, not a status's.
	const limit = where === 'tasks/get' && body.status === 'completed' ? Infinity : MAX_TASK_STATUS_BYTES;
	if (size > limit) throw refused(tool, `was given up: the server's ${where} answer is larger than ${MAX_TASK_STATUS_BYTES / 1024} KB (a task status is a few hundred bytes)`);
	const { status, taskId } = body;
	if (typeof status !== 'string' || !STATUSES.has(status)) {
		throw refused(
			tool,
			`has a status this client does not know (${JSON.stringify(typeof status === 'string' ? status.slice(0, 60) : (status ?? null))} in the ${where} answer; known: working, input_required, completed, failed, cancelled)`,
		);
	}
	if (typeof taskId !== 'string' || taskId === '') throw refused(tool, `could not be followed: the server's ${where} answer has no taskId`);
	if (expectedId !== undefined && taskId !== expectedId) {
		throw refused(
			tool,
			`could not be followed: tasks/get for task ${JSON.stringify(expectedId.slice(0, 80))} was answered for another task (${JSON.stringify(taskId.slice(0, 80))})`,
		);
	}
	const ttl = body.ttlMs;
	if (ttl !== null && !(typeof ttl === 'number' && Number.isFinite(ttl) && ttl >= 0))
		throw refused(tool, `could not be followed: the server's ${where} answer has no valid ttlMs (a number of milliseconds, or null)`);
	const state: TaskState = {
		taskId,
		status: status as TaskStatus,
		ttl,
		createdAt: typeof body.createdAt === 'string' ? body.createdAt : '',
		lastUpdatedAt: typeof body.lastUpdatedAt === 'string' ? body.lastUpdatedAt : '',
		...(typeof body.statusMessage === 'string' ? { statusMessage: body.statusMessage } : {}),
		...(typeof body.pollIntervalMs === 'number' ? { pollInterval: body.pollIntervalMs } : {}),
	};
	if (where === 'tools/call') return state;
	if (status === 'completed') {
		if (!isObject(body.result)) throw refused(tool, 'could not be followed: the server reported it completed without its result (tasks/get "result")');
		state.result = body.result;
	}
	if (status === 'failed' && isObject(body.error) && typeof body.error.message === 'string')
		state.error = { message: body.error.message, ...(typeof body.error.code === 'number' ? { code: body.error.code } : {}) };
	if (status === 'input_required') {
		if (!isObject(body.inputRequests)) throw refused(tool, 'could not be followed: the server asked for input without its requests (tasks/get "inputRequests")');
		state.inputRequests = body.inputRequests;
	}
	return state;
}

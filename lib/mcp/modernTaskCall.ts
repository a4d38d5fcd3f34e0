import type { Client, StandardSchemaV1 } from '@modelcontextprotocol/client';
import { quoteToolName } from '../tools/toolNameRule';
import { awaitTask, lastKnownState, type RunningTask, type TaskChannel, type TaskState } from './toolTask';
import { parseModernTaskState } from './modernTask';
import { describeInputRequest, ROOTS_NOT_GIVEN, SAMPLING_DECLINED, taskInputDeclinedNote } from './inputRequestMessages';
import { rootsListResult, type McpRoot } from './roots';
import type { DeclinedRequest } from './legacyInputRequests';
import { statusRequests, waitOptions, type TaskCallOptions } from './taskCall';
import { McpAgentError } from '../errors';

/**
 * A task an MCP 2026-07-28 server answered a tool call with (the `io.modelcontextprotocol/tasks`
 * extension, lib/mcp/modernTask.ts), followed in place with awaitTask: `tasks/get` (which carries
 * the result), `tasks/update` for the server's input requests, `tasks/cancel` on the way out. The
 * call itself, declaring the extension on each of its rounds, is interactiveCall's.
 */

export interface ModernTaskCallChannel {
	request<T>(phase: string, run: (client: Client) => Promise<T>): Promise<T>;
}

export interface ModernTaskFollowOptions extends TaskCallOptions {
	/** The credential's roots: a task asking for them gets them, as a plain call would. */
	roots?: readonly McpRoot[];
	/** A person's answers to the task's questions (a check after they answered): sent first, with tasks/update. */
	inputResponses?: Record<string, unknown>;
}

/** Takes the answer as it came: it is checked here, with messages that say what was wrong. */
const AS_SENT: StandardSchemaV1 = { '~standard': { version: 1, vendor: 'n8n-nodes-mcp-agent', validate: (value: unknown) => ({ value }) } };

export async function followModernTask(
	connection: ModernTaskCallChannel,
	name: string,
	handle: unknown,
	options: ModernTaskFollowOptions,
): Promise<{ value: Record<string, unknown>; declined?: DeclinedRequest[] }> {
	const created = parseModernTaskState(name, handle, 'tools/call');
	return followFrom(connection, name, created, options);
}

/**
 * A 2026-07-28 task handed off earlier (RunningTask), checked again: tasks/get at once (carrying
 * the result when it completed), then as followModernTask, until `handOffAfterMs` hands it off again.
 */
export function resumeModernTask(
	connection: ModernTaskCallChannel,
	name: string,
	task: RunningTask,
	options: ModernTaskFollowOptions,
): Promise<{ value: Record<string, unknown>; declined?: DeclinedRequest[] }> {
	return followFrom(connection, name, lastKnownState(task), options, { deadline: task.deadline, limit: task.limit }, task.taskId);
}

async function followFrom(
	connection: ModernTaskCallChannel,
	name: string,
	created: TaskState,
	options: ModernTaskFollowOptions,
	resumed?: Pick<RunningTask, 'deadline' | 'limit'>,
	resumedId?: string,
): Promise<{ value: Record<string, unknown>; declined?: DeclinedRequest[] }> {
	const quoted = quoteToolName(name);
	const requestOptions = (timeout: number, signal?: AbortSignal) => ({ timeout, ...(signal ? { signal } : {}) });
	const declined: DeclinedRequest[] = [];
	// Keys a person answered are not asked again while the server still lists them (it takes a moment to take the answer).
	const answeredKeys = new Set<string>(Object.keys(options.inputResponses ?? {}));
	if (resumedId && options.inputResponses && Object.keys(options.inputResponses).length > 0) {
		await connection.request(`answering the input requests of the task of tool ${quoted}`, (client) =>
			client.request({ method: 'tasks/update', params: { taskId: resumedId, inputResponses: options.inputResponses } }, AS_SENT, requestOptions(options.timeoutMs, options.signal)),
		);
	}
	const channel: TaskChannel = {
		...statusRequests(connection, name, options.timeoutMs),
		parse: (raw, expectedId) => parseModernTaskState(name, raw, 'tasks/get', expectedId),
		// Never called: tasks/get carries the result (awaitTask takes state.result).
		result: () => Promise.reject(new McpAgentError(`The task of tool ${quoted} completed without its result`, { code: 'remote' })),
		answerInput: async (state, signal) => {
			const forPerson = options.askPerson ? personRequests(state, answeredKeys) : undefined;
			const responses = answerInputRequests(name, state, answeredKeys, declined, options.roots, forPerson);
			if (Object.keys(responses).length > 0) {
				await connection.request(`answering the input requests of the task of tool ${quoted}`, (client) =>
					client.request({ method: 'tasks/update', params: { taskId: state.taskId, inputResponses: responses } }, AS_SENT, requestOptions(options.timeoutMs, signal)),
				);
			}
			if (forPerson && Object.keys(forPerson).length > 0) return { forPerson };
			return;
			await connection.request(`answering the input requests of the task of tool ${quoted}`, (client) =>
				client.request({ method: 'tasks/update', params: { taskId: state.taskId, inputResponses: responses } }, AS_SENT, requestOptions(options.timeoutMs, signal)),
			);
		},
	};
	const value = await awaitTask(created, channel, { ...waitOptions(name, options, '2026-07-28'), ...(resumed ? { resumed } : {}) });
	return declined.length ? { value, declined } : { value };
}

/** The task's questions for a person (form and link elicitation) not answered yet, keyed as the server keyed them. */
function personRequests(state: TaskState, answered: Set<string>): NonNullable<RunningTask['inputRequests']> {
	const entries: Array<[string, { method: string; params?: Record<string, unknown> }]> = [];
	for (const [key, request] of Object.entries(state.inputRequests ?? {})) {
		const { method, params } = (request ?? {}) as { method?: unknown; params?: Record<string, unknown> };
		if (answered.has(key) || method !== 'elicitation/create') continue;
		entries.push([key, { method, ...(params ? { params } : {}) }]);
	}
	return Object.fromEntries(entries);
}

/**
 * The `inputResponses` for an input_required task, each key once (the server repeats outstanding
 * requests on every poll until it has taken the answer): elicitation declined with a note, as MCP
 * Call Tool does on 2025-era servers; roots given when the credential names some. Sampling, or
 * roots without any, cannot be declined within the protocol: the wait ends (and the task is cancelled).
 */
export function answerInputRequests(
	tool: string,
	state: TaskState,
	answered: Set<string>,
	declined: DeclinedRequest[],
	roots?: readonly McpRoot[],
	forPerson?: Record<string, unknown>,
): Record<string, unknown> {
	const responses: Array<[string, unknown]> = [];
	for (const [key, request] of Object.entries(state.inputRequests ?? {})) {
		if (answered.has(key) || (forPerson && Object.hasOwn(forPerson, key))) continue;
		const { method, params } = (request ?? {}) as { method?: unknown; params?: Record<string, unknown> };
		if (method === 'elicitation/create') {
			const asked = describeInputRequest('elicitation/create', params);
			declined.push({ request: asked, note: taskInputDeclinedNote(asked) });
			responses.push([key, { action: 'decline' }]);
		} else if (method === 'roots/list' && roots && roots.length > 0) {
			responses.push([key, rootsListResult(roots)]);
		} else {
			const what =
				method === 'sampling/createMessage'
					? SAMPLING_DECLINED
					: method === 'roots/list'
						? ROOTS_NOT_GIVEN
						: `The server asked for ${describeInputRequest(String(method), params)}, which this client cannot answer.`;
			throw new McpAgentError(`The task of tool ${quoteToolName(tool)} was ended and cancelled on the server: ${what}`, {
				code: 'remote',
				description: 'Only form and link questions can be answered (declined) while a task runs; the tool needs what this client does not offer.',
			});
		}
		answered.add(key);
	}
	// Built with fromEntries (own keys): a request keyed "__proto__" must stay a request.
	return Object.fromEntries(responses);
}

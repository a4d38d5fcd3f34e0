import type { Client, Tool } from '@modelcontextprotocol/client';
import type { McpServerConfig } from './serverConfig';
import type { Redactor } from './secrets';
import type { InteractiveCallOptions, ServerInputRequest, ToolCallCompleted, ToolInputRequired, ToolTaskRunning } from './inputRequests';
import type { DeclinedRequest } from './legacyInputRequests';
import { ROOTS_NOT_GIVEN, SAMPLING_DECLINED } from './inputRequestMessages';
import { hasRoots, rootsListResult } from './roots';
import { checkToolOutput } from './toolOutput';
import { callToolOnLegacySession } from './legacyToolCall';
import type { ToolDefinition } from '../tools/toolDefinition';
import { McpAgentError } from '../errors';
import { decideTaskCall, TaskHandedOff, type RunningTask, type TaskCallPolicy, type TaskTimers } from './toolTask';
import { callToolAsTask, resumeLegacyTask } from './taskCall';
import { followModernTask, resumeModernTask } from './modernTaskCall';
import { taskHandleOf, tasksExtensionMeta } from './modernTask';
import { clientCapabilitiesFor } from './clientCapabilities';
import { MAX_TOTAL_TIMEOUT_FACTOR, readProgress, type ToolProgress } from './progress';

/**
 * What a call needs of its connection (McpConnection implements it). Named here, not imported, so
 * the connection can use this module without the two importing each other.
 */
export interface CallChannel {
	readonly knownTools: ReadonlyMap<string, ToolDefinition>;
	readonly config: McpServerConfig;
	readonly isModern: boolean;
	readonly redact: Redactor;
	request<T>(phase: string, run: (client: Client) => Promise<T>): Promise<T>;
	requestUnredacted<T>(phase: string, run: (client: Client) => Promise<T>): Promise<T>;
	trackLegacyInput<T>(call: () => Promise<T>): Promise<{ value: T; declined?: DeclinedRequest[] }>;
	/** The server's capabilities (whether it offers tasks for tool calls); absent on stand-ins. */
	readonly serverCapabilities?: unknown;
	/** `notifications/tasks/status` for one task (lib/mcp/taskNotices.ts); absent on stand-ins. */
	watchTask?(taskId: string, wake: () => void): () => void;
}

/**
 * Rounds answered here without a person (roots-only or state-only `input_required` answers) before
 * the call is given up: a server that keeps asking for roots must not hold a run forever.
 */
export const MAX_AUTOMATIC_ROUNDS = 8;


interface InputRequiredAnswer {
	resultType: 'input_required';
	inputRequests?: Record<string, { method: string; params?: Record<string, unknown> }>;
	requestState?: string;
}

function isInputRequired(value: unknown): value is InputRequiredAnswer {
	return typeof value === 'object' && value !== null && (value as { resultType?: unknown }).resultType === 'input_required';
}

/**
 * What the client needs of a listed tool for `Mcp-Param-*` header mirroring (SEP-2243): the input
 * schema. The output schema is left out on purpose: we check results ourselves (checkToolOutput,
 * on the RE2-backed validator), and the client would also check an `input_required` answer against
 * it and fail it for lacking structured content.
 */
function mirroringDefinition(tool: ToolDefinition | undefined): Tool | undefined {
	return tool ? ({ name: tool.name, inputSchema: tool.inputSchema } as Tool) : undefined;
}

/** What the package's own callers may add to the shared options. */
export interface InternalCallOptions extends InteractiveCallOptions {
	/** The listed definition (else the connection's knownTools): output check and header mirroring. */
	tool?: ToolDefinition;
	/** As InteractiveCallOptions.tasks, with the clock of the wait (tests run it on a fake one). */
	tasks?: TaskCallPolicy & { timers?: TaskTimers };
	/** The outcome as callToolInteractive returns it: without the package-internal `declined` details (built so at once: no extra promise layer per call). */
	publicOnly?: boolean;
}

/** A completed call with, on 2025-era connections, what the server asked in the middle of it. */
export interface CompletedCall extends ToolCallCompleted {
	declined?: DeclinedRequest[];
}

export type InternalCallOutcome = CompletedCall | ToolInputRequired | ToolTaskRunning;

/** A TaskHandedOff becomes the outcome it stands for; any other error stays one. */
function stillRunning(error: unknown): ToolTaskRunning {
	if (TaskHandedOff.isInstance(error)) return { kind: 'task_running', task: error.task };
	throw error;
}

/**
 * McpConnection.callToolInteractive. 2026-07-28: calls in the client's manual multi-round-trip mode
 * and returns the server's input requests, or the result. 2025 era: an ordinary call; requests the
 * server sends in the middle are declined at once (LegacyInputRequests) and come back as notes.
 */
export function callInteractively(
	connection: CallChannel,
	name: string,
	args: Record<string, unknown>,
	options: InternalCallOptions,
): Promise<InternalCallOutcome> {
	const tool = options.tool ?? connection.knownTools.get(name);
	const timeout = options.timeoutMs ?? connection.config.requestTimeoutMs;
	const onProgress = options.onProgress;
	const requestOptions = {
		timeout,
		// The SDK sends a progress token when onprogress is given, and resets the timeout on each
		// notification only up to maxTotalTimeout (checked when a notification arrives, so a call
		// lasts at most the maximum total plus one timeout).
		...(onProgress ? { onprogress: (params: unknown) => deliverProgress(onProgress, params) } : options.resetTimeoutOnProgress ? { onprogress: ignoreProgress } : {}),
		...(options.resetTimeoutOnProgress ? { resetTimeoutOnProgress: true, maxTotalTimeout: options.maxTotalTimeoutMs ?? timeout * MAX_TOTAL_TIMEOUT_FACTOR } : {}),
		...(options.signal ? { signal: options.signal } : {}),
	};
	const phase = `calling tool "${name}"`;
	let asTask = false;
	if (options.tasks && tool) {
		try {
			asTask = decideTaskCall(tool, options.tasks.mode, { isModern: connection.isModern, capabilities: connection.serverCapabilities });
		} catch (error) {
			return Promise.reject(error);
		}
	}
	const tasks = options.tasks;
	const taskOptions = tasks && taskWaitOptions(tasks, timeout, options.signal);
	const asCompleted = completedBy(tool, options.publicOnly === true);
	if (asTask && tool && taskOptions && !connection.isModern) {
		const withProgress = onProgress ? { ...taskOptions, onProgress: (params: unknown) => deliverProgress(onProgress, params) } : taskOptions;
		return callToolAsTask(connection, tool, args, withProgress).then(asCompleted, stillRunning);
	}
	if (!connection.isModern) {
		// Straight to the client's request with the session's own result validator (legacyToolCall.ts);
		// we check results against the output schema ourselves.
		const definition = mirroringDefinition(tool);
		return connection.request(phase, (client) =>
			connection.trackLegacyInput(() => callToolOnLegacySession(client, { name, arguments: args }, requestOptions, definition)).then(asCompleted),
		);
	}
	const callOptions = { ...requestOptions, allowInputRequired: true, ...(tool ? { toolDefinition: mirroringDefinition(tool) } : {}) };
	const continuation = options.continuation;
	// The tasks extension (lib/mcp/modernTask.ts) is declared on every round of the call, retries
	// included: the server may answer any of them with a task, followed once out of the loop.
	const declared = asTask ? { _meta: tasksExtensionMeta(clientCapabilitiesFor(connection.config)) } : {};
	const firstParams: Record<string, unknown> = {
		...declared,
		name,
		arguments: args,
		...(continuation ? { inputResponses: continuation.inputResponses } : {}),
		...(continuation?.requestState !== undefined ? { requestState: continuation.requestState } : {}),
	};
	const calling = connection.requestUnredacted(phase, async (client): Promise<InternalCallOutcome | TaskHandle> => {
		let params = firstParams;
		for (let round = 0; round <= MAX_AUTOMATIC_ROUNDS; round++) {
			const answer: unknown = await client.callTool(params as never, callOptions);
			const handle = taskHandleOf(answer);
			if (handle !== undefined) {
				if (!asTask) throw unaskedTask(name);
				return { kind: 'task', handle };
			}
			if (!isInputRequired(answer)) {
				const result = connection.redact.active ? connection.redact.value(answer as Record<string, unknown>) : (answer as Record<string, unknown>);
				if (tool) checkToolOutput(tool, result);
				return { kind: 'result', result };
			}
			const requests = answer.inputRequests ?? {};
			// Built with fromEntries (own keys): a request keyed "__proto__" must stay a request.
			const personEntries: Array<[string, ServerInputRequest]> = [];
			const automaticEntries: Array<[string, unknown]> = [];
			for (const [key, request] of Object.entries(requests)) {
				if (request?.method === 'sampling/createMessage') return samplingDeclined();
				if (request?.method === 'roots/list') {
					// Without roots the capability is not declared: a server asking anyway gets no
					// made-up empty list (that would take its own directories away), the call ends.
					if (!hasRoots(connection.config)) return rootsNotGiven();
					automaticEntries.push([key, rootsListResult(connection.config.roots)]);
				}
				else personEntries.push([key, { method: String(request?.method ?? ''), ...(request?.params ? { params: request.params } : {}) }]);
			}
			const forPerson: Record<string, ServerInputRequest> = Object.fromEntries(personEntries);
			const automatic: Record<string, unknown> = Object.fromEntries(automaticEntries);
			if (personEntries.length > 0) {
				// Roots answers asked for alongside are not carried over: the retry carries only the
				// person's answers, and a server missing one asks again (answered here then).
				const visible = connection.redact.active ? connection.redact.value(forPerson) : forPerson;
				return { kind: 'input_required', inputRequests: visible, ...(answer.requestState !== undefined ? { requestState: answer.requestState } : {}) };
			}
			params = { ...declared, name, arguments: args, inputResponses: automatic, ...(answer.requestState !== undefined ? { requestState: answer.requestState } : {}) };
		}
		throw new McpAgentError(`the server kept answering with input requests that need no person (roots or state only) for more than ${MAX_AUTOMATIC_ROUNDS} rounds`, {
			code: 'remote',
			description: 'Every answer was given and the server asked again: the server loops. Check its configuration (the Roots of the credential, if it asks for them), or report it to the server\'s authors.',
		});
	});
	return calling.then((outcome) => {
		if (outcome.kind !== 'task') return outcome;
		// Followed outside the call's own request: each tasks/* request is one of its own (redacted).
		return followModernTask(connection, name, outcome.handle, {
			...(taskOptions as NonNullable<typeof taskOptions>),
			...(hasRoots(connection.config) ? { roots: connection.config.roots } : {}),
		}).then(asCompleted, stillRunning);
	});
}

/** What the task wait takes of a call's options. */
function taskWaitOptions(tasks: NonNullable<InternalCallOptions['tasks']>, timeoutMs: number, signal: AbortSignal | undefined) {
	return {
		maxWaitMs: tasks.maxWaitMs,
		timeoutMs,
		...(signal ? { signal } : {}),
		...(tasks.timers ? { timers: tasks.timers } : {}),
		...(tasks.onStatus ? { onStatus: tasks.onStatus } : {}),
		...(tasks.handOffAfterMs !== undefined ? { handOffAfterMs: tasks.handOffAfterMs } : {}),
		...(tasks.askPerson ? { askPerson: true } : {}),
	};
}

/** A task's (or a plain call's) result as the call's outcome: checked against the output schema, with the notes of declined requests. */
function completedBy(tool: ToolDefinition | undefined, publicOnly: boolean) {
	return ({ value: result, declined }: { value: Record<string, unknown>; declined?: DeclinedRequest[] }): CompletedCall => {
		if (tool) checkToolOutput(tool, result);
		if (!declined) return { kind: 'result', result };
		const notes = declined.map((entry) => entry.note);
		return publicOnly ? { kind: 'result', result, notes } : { kind: 'result', result, notes, declined };
	};
}

/**
 * McpConnection.resumeTask: a task a call handed off (RunningTask) checked again on this
 * connection, which may be a new one on another worker (task ids are the server's, not the
 * session's). The result as the call would have had it, or `task_running` again after
 * `tasks.handOffAfterMs` in place (default: hand off after one status check).
 */
export function resumeTaskInteractively(
	connection: CallChannel,
	name: string,
	task: RunningTask,
	options: InternalCallOptions,
): Promise<InternalCallOutcome> {
	const tool = options.tool ?? connection.knownTools.get(name);
	const timeout = options.timeoutMs ?? connection.config.requestTimeoutMs;
	const policy = options.tasks ?? { mode: 'whenRequired' as const, maxWaitMs: Math.max(0, task.deadline - Date.now()) };
	const waitOptions = taskWaitOptions({ ...policy, handOffAfterMs: policy.handOffAfterMs ?? 0 }, timeout, options.signal);
	const asCompleted = completedBy(tool, options.publicOnly === true);
	const following =
		task.protocol === '2026-07-28'
			? resumeModernTask(connection, name, task, {
					...waitOptions,
					...(hasRoots(connection.config) ? { roots: connection.config.roots } : {}),
					...(options.continuation ? { inputResponses: options.continuation.inputResponses } : {}),
				})
			: resumeLegacyTask(connection, name, task, options.onProgress ? { ...waitOptions, onProgress: (params: unknown) => deliverProgress(options.onProgress as (progress: ToolProgress) => void, params) } : waitOptions);
	return following.then(asCompleted, stillRunning);
}

/** A 2026-07-28 call answered with a task handle, to be followed (lib/mcp/modernTaskCall.ts). */
interface TaskHandle {
	kind: 'task';
	handle: unknown;
}

function ignoreProgress(): void {}

/** A task handle on a call that did not declare the tasks extension: the extension forbids it, and there is nothing to show. */
function unaskedTask(name: string): McpAgentError {
	return new McpAgentError(`Tool "${name}" was answered with a task (resultType "task") although this call did not offer the tasks extension`, {
		code: 'remote',
		description:
			'A server may answer with a task only a call that declares io.modelcontextprotocol/tasks (MCP Call Tool does when the tool asks for it, see Options > Run As Task). The server breaks the extension; report it to its authors.',
	});
}

function deliverProgress(onProgress: (progress: ToolProgress) => void, params: unknown): void {
	const progress = readProgress(params);
	if (!progress) return;
	try {
		onProgress(progress);
	} catch {
		// The caller's logging or bookkeeping never fails the call.
	}
}

/** Roots asked of a connection that declared none: an error result saying so, as for sampling. */
function rootsNotGiven(): CompletedCall {
	return { kind: 'result', result: { content: [{ type: 'text', text: ROOTS_NOT_GIVEN }], isError: true }, notes: [ROOTS_NOT_GIVEN] };
}

/** Sampling is never offered: the call ends with an error result saying so, nothing is sent back. */
function samplingDeclined(): CompletedCall {
	return { kind: 'result', result: { content: [{ type: 'text', text: SAMPLING_DECLINED }], isError: true }, notes: [SAMPLING_DECLINED] };
}

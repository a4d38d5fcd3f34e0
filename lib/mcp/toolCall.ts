import type { McpConnection } from './connection';
import type { ToolDefinition } from '../tools/toolDefinition';
import { validateArguments, type ArgumentProblem } from '../tools/argumentValidator';
import { quoteToolName } from '../tools/toolNameRule';
import { callInteractively, resumeTaskInteractively, type InternalCallOptions, type InternalCallOutcome } from './interactiveCall';
import { describeInputRequest, inputDeclinedNote, inputRequestFailure } from './inputRequestMessages';
import { hasMarker, McpAgentError, REPORT_A_BUG } from '../errors';
import type { ToolProgress } from './progress';
import type { InteractiveToolCallOutcome } from './inputRequests';
import { DEFAULT_MAX_TASK_WAIT_MS, type RunningTask, type TaskMode, type TaskState } from './toolTask';

export interface ToolCallOptions {
	timeoutMs?: number;
	/** Progress notifications from the server restart the timeout (long-running tools). */
	resetTimeoutOnProgress?: boolean;
	/** Upper bound even with progress, so a chatty server cannot hold a call forever. */
	maxTotalTimeoutMs?: number;
	/** Each progress notification of the call, cleaned (lib/mcp/progress.ts). */
	onProgress?: (progress: ToolProgress) => void;
	signal?: AbortSignal;
	/**
	 * When the server asks for input during the call and no person can answer (MCP Call Tool):
	 * 'decline' (default) answers every request with decline and lets the server finish, with a
	 * note; 'fail' rejects with InputRequestRefused naming the tool and the server's message.
	 */
	onInputRequest?: 'decline' | 'fail';
	/**
	 * MCP Tasks (lib/mcp/toolTask.ts): which tools are called as a task and waited for in place.
	 * Unset: none is (a tool that requires it is then refused by the server).
	 */
	runAsTask?: TaskMode;
	/** How long a task is waited for before it is cancelled and the call fails (DEFAULT_MAX_TASK_WAIT_MS). */
	maxTaskWaitMs?: number;
	/** Each status of a task the call became. */
	onTaskStatus?: (state: TaskState) => void;
}

/** A call that may hand its task off still running (MCP Call Tool's durable wait). */
export interface HandOffCallOptions extends ToolCallOptions {
	/**
	 * Wait in place for a task only this long, then answer with it still running (`running`), for
	 * the caller to pause the n8n execution and check it later. Unset: wait in place up to maxTaskWaitMs.
	 */
	handOffAfterMs?: number;
}

/** A completed call, and what the caller should be told about it (declined input requests). */
export interface AnsweredToolCall {
	result: Record<string, unknown>;
	notes?: string[];
}

/** A call whose task still ran after ToolCallOptions.handOffAfterMs: check it later with checkToolTask. */
export interface HandedOffToolCall {
	running: RunningTask;
	/** Input requests declined before the task began (the result carries them once it ends). */
	notes?: string[];
}

/**
 * A call that failed because the caller stopped it (n8n's Stop) says so, whatever the client made of
 * the abort; errors that already say it (a task's) stay as they are.
 */
function stoppedOr(error: unknown, tool: string, signal: AbortSignal | undefined): unknown {
	if (!signal?.aborted || (McpAgentError.isInstance(error) && error.code === 'cancelled')) return error;
	return new McpAgentError(`The call of tool ${quoteToolName(tool)} was stopped before the server answered`, { code: 'cancelled', cause: error });
}

/** Rounds of declining before a server that keeps asking is given up on. */
export const MAX_DECLINE_ROUNDS = 3;

export class ArgumentValidationError extends McpAgentError {
	constructor(readonly tool: string, readonly problems: ArgumentProblem[], summary: string) {
		super(`Invalid arguments for tool "${tool}": ${summary}`, {
			code: 'tool',
			description: "Nothing was sent to the server. Give arguments that match the tool's input schema (MCP List Tools outputs it as inputSchema).",
		});
		this.name = 'ArgumentValidationError';
	}
}

const INPUT_REFUSED_MARKER = Symbol.for('n8n-nodes-mcp-agent.error.InputRequestRefused');

/** The server asked for input and the caller chose to fail rather than decline. */
export class InputRequestRefused extends McpAgentError {
	readonly [INPUT_REFUSED_MARKER] = true;

	constructor(readonly tool: string, readonly request: string) {
		super(inputRequestFailure(quoteToolName(tool), request), { code: 'tool' });
		this.name = 'InputRequestRefused';
	}

	static isInstance(error: unknown): error is InputRequestRefused {
		return hasMarker(error, INPUT_REFUSED_MARKER);
	}
}

/**
 * Validates, then calls. A validation failure rejects before any byte reaches the server: model or
 * user input is untrusted until it matches the tool's own schema. Input requests are declined (see
 * callToolAnsweringInput). (A promise chain rather than async functions: fewer suspended frames on
 * each of a large run's calls.)
 */
export function callToolValidated(
	connection: McpConnection,
	tool: ToolDefinition,
	args: unknown,
	options: ToolCallOptions = {},
): Promise<Record<string, unknown>> {
	return callToolAnsweringInput(connection, tool, args, options).then((answered) => answered.result);
}

/**
 * Validates and calls through the client's own call path (so `Mcp-Param-*` headers are set for
 * marked arguments on 2026-07-28 connections), answering input requests without a person: on a
 * 2026-07-28 connection each `input_required` round is answered with decline (or fails, with
 * `onInputRequest: 'fail'`), at most MAX_DECLINE_ROUNDS times; on a 2025 connection requests sent
 * in the middle of the call were declined already. Either way the result carries notes saying so.
 * With `handOffAfterMs`, a task still running then comes back as `running` (else never).
 */
export function callToolAnsweringInput(connection: McpConnection, tool: ToolDefinition, args: unknown, options?: ToolCallOptions & { handOffAfterMs?: undefined }): Promise<AnsweredToolCall>;
export function callToolAnsweringInput(connection: McpConnection, tool: ToolDefinition, args: unknown, options: HandOffCallOptions): Promise<AnsweredToolCall | HandedOffToolCall>;
export function callToolAnsweringInput(
	connection: McpConnection,
	tool: ToolDefinition,
	args: unknown,
	options: HandOffCallOptions = {},
): Promise<AnsweredToolCall | HandedOffToolCall> {
	let outcome: ReturnType<typeof validateArguments>;
	try {
		outcome = validateArguments(tool.inputSchema, args);
	} catch (error) {
		return Promise.reject(error);
	}
	if (!outcome.valid) return Promise.reject(new ArgumentValidationError(tool.name, outcome.problems, outcome.summary));
	const callOptions = internalCallOptions(tool, options, options.maxTaskWaitMs ?? DEFAULT_MAX_TASK_WAIT_MS);
	const call = (more: Partial<InternalCallOptions> = {}) => callInteractively(connection, tool.name, args as Record<string, unknown>, { ...callOptions, ...more });
	return answeringInput(tool.name, options, call);
}

/**
 * A task handed off by callToolAnsweringInput checked again, on this connection or a new one (after
 * a restart, on another worker): the result as the call would have had it, declined input included;
 * `running` again when it still runs after `handOffAfterMs` (default: one status check). Past its
 * deadline the task is cancelled and the check fails naming the limit.
 */
export function checkToolTask(
	connection: McpConnection,
	tool: ToolDefinition,
	task: RunningTask,
	options: HandOffCallOptions & { followed?: Promise<InteractiveToolCallOutcome> } = {},
): Promise<AnsweredToolCall | HandedOffToolCall> {
	const { followed, ...rest } = options;
	const checking = { ...rest, runAsTask: rest.runAsTask ?? 'whenRequired', handOffAfterMs: rest.handOffAfterMs ?? 0 };
	const callOptions = internalCallOptions(tool, checking, Math.max(1, task.deadline - Date.now()));
	// The outcome this process followed the task to (lib/agent/taskWatch.ts) stands for the first check.
	let first = followed;
	return answeringInput(tool.name, checking, (more = {}) => {
		const outcome = first ?? resumeTaskInteractively(connection, tool.name, task, { ...callOptions, ...more });
		first = undefined;
		return outcome;
	});
}

function internalCallOptions(tool: ToolDefinition, options: HandOffCallOptions, maxWaitMs: number): InternalCallOptions {
	return {
		tool,
		timeoutMs: options.timeoutMs,
		resetTimeoutOnProgress: options.resetTimeoutOnProgress ?? false,
		maxTotalTimeoutMs: options.maxTotalTimeoutMs,
		...(options.onProgress ? { onProgress: options.onProgress } : {}),
		...(options.signal ? { signal: options.signal } : {}),
		...(options.runAsTask
			? {
					tasks: {
						mode: options.runAsTask,
						maxWaitMs,
						...(options.onTaskStatus ? { onStatus: options.onTaskStatus } : {}),
						...(options.handOffAfterMs !== undefined ? { handOffAfterMs: options.handOffAfterMs } : {}),
					},
				}
			: {}),
	};
}

/** The outcome of `call` with every input request declined (or refused), round after round. */
function answeringInput(
	toolName: string,
	options: HandOffCallOptions,
	call: (more?: Partial<InternalCallOptions>) => Promise<InternalCallOutcome>,
): Promise<AnsweredToolCall | HandedOffToolCall> {
	const policy = options.onInputRequest ?? 'decline';
	const answered = call().then((called) => {
		if (called.kind === 'result' && !called.notes) return { result: called.result };
		return settle(called, [], 0);
	});
	return options.signal ? answered.catch((error: unknown) => Promise.reject(stoppedOr(error, toolName, options.signal))) : answered;

	function settle(called: InternalCallOutcome, notes: string[], round: number): AnsweredToolCall | HandedOffToolCall | Promise<AnsweredToolCall | HandedOffToolCall> {
		if (called.kind === 'result') {
			if (policy === 'fail' && called.declined?.length) throw new InputRequestRefused(toolName, called.declined[0].request);
			const all = [...notes, ...(called.notes ?? [])];
			return all.length ? { result: called.result, notes: all } : { result: called.result };
		}
		if (called.kind === 'task_running') {
			// Only a caller that sets handOffAfterMs is handed a running task; any other waits in place.
			if (options.handOffAfterMs === undefined) throw new McpAgentError(`Tool ${quoteToolName(toolName)}: a task was handed off that this call waits for in place`, { code: 'state', description: REPORT_A_BUG });
			return notes.length ? { running: called.task, notes } : { running: called.task };
		}
		const asked = Object.values(called.inputRequests).map((request) => describeInputRequest(request.method, request.params));
		if (policy === 'fail') throw new InputRequestRefused(toolName, asked[0] ?? 'input');
		if (round >= MAX_DECLINE_ROUNDS) {
			throw new McpAgentError(`Tool ${quoteToolName(toolName)} kept asking for input after ${MAX_DECLINE_ROUNDS} rounds of declined requests (last: ${asked.join(', ')}).`, {
				code: 'tool',
				description: 'This tool cannot finish without the input it asks for, and nobody can give it here. Use the MCP Agent with MCP Approval, where a person answers on the review page.',
			});
		}
		const declined = asked.map(inputDeclinedNote).filter((note) => !notes.includes(note));
		const inputResponses = Object.fromEntries(Object.keys(called.inputRequests).map((key) => [key, { action: 'decline' as const }]));
		return call({ continuation: { inputResponses, ...(called.requestState !== undefined ? { requestState: called.requestState } : {}) } }).then((next) => settle(next, [...notes, ...declined], round + 1));
	}
}


import type { McpConnection } from '../mcp/connection';
import { checkToolOutput } from '../mcp/toolOutput';
import { setEntry } from './ownEntry';
import { outputSchemaKey } from './servers';
import { mapWithConcurrency } from '../util/mapWithConcurrency';
import { trimOutcome, untrimmedOutcomeFromMcp, type OutcomeLimits } from './toolOutcome';
import { invokeN8nTool, type N8nToolIndex } from './n8nTools';
import type { InteractiveCallOptions, InteractiveToolCallOutcome } from '../mcp/inputRequests';
import type { PlannedCall, ToolInputNeeded } from './types';
import type { ToolOutcome } from '../providers/modelTypes';
import type { ToolProgress } from '../mcp/progress';
import { summarizeTask, type RunningTask, type TaskCallPolicy, type TaskMode, type TaskState, type TaskSummary } from '../mcp/toolTask';

/**
 * One tool call that may end with the server asking for input (MCP 2026-07-28 `input_required`)
 * instead of a result; `options.continuation` carries a person's answers on the retry.
 */
export type InteractiveToolCall = (
	connection: McpConnection,
	name: string,
	args: Record<string, unknown>,
	options: InteractiveCallOptions,
) => Promise<InteractiveToolCallOutcome>;

export interface ToolRunnerOptions {
	connections: Map<string, McpConnection>;
	concurrency: number;
	timeoutMs: number;
	limits: OutcomeLimits;
	/**
	 * Full Tool Results in Output: each call's text before it is trimmed for the model goes to
	 * ToolRunResult.fullResults, for the node's output item only (never into the run's state).
	 */
	keepFullResults?: boolean;
	/** From connectServers(): the output schemas to check results against. */
	outputSchemas?: Map<string, Record<string, unknown>>;
	/** How a call reaches the server; defaults to the connection's interactive call (tests inject fakes). */
	callTool?: InteractiveToolCall;
	/** The second kind of executor: tools of n8n tool nodes, by node name and tool name. */
	n8nTools?: N8nToolIndex;
	/**
	 * Told when each call starts; the function it returns is told how the call ended (the outcome,
	 * or undefined and why: the server asked for input first, or its task still runs) and how long it took. For the node's
	 * execution view and logger; an observer that throws changes nothing for the run.
	 */
	observer?: ToolCallObserver;
	/**
	 * Progress notifications restart a call's timeout, up to maxTotalTimeoutMs (default ten times
	 * timeoutMs): a tool that keeps reporting may run longer than its timeout, never forever.
	 */
	resetTimeoutOnProgress?: boolean;
	maxTotalTimeoutMs?: number;
	/**
	 * Run As Task and Max Task Wait: tools whose `execution.taskSupport` asks for it are called as
	 * MCP tasks and waited for in place (lib/mcp/toolTask.ts). Unset: no call goes as a task.
	 */
	tasks?: {
		mode: TaskMode;
		maxWaitMs: number;
		/** Wait in place this long, then hand the task back still running (the run pauses for it)... */
		handOffAfterMs?: number;
		/** ...only for calls to these servers (absent: all); the others wait in place up to maxWaitMs. */
		handOffServers?: ReadonlySet<string>;
		/** A 2026-07-28 task's questions for a person pause the run for them (TaskCallPolicy.askPerson) instead of being declined. */
		askPerson?: boolean;
		/** A check takes the outcome this process already followed to its end (lib/agent/taskWatch.ts), if any, instead of asking the server. */
		watched?: (server: string, taskId: string, onStatus?: (state: TaskState) => void, onProgress?: (progress: ToolProgress) => void) => Promise<InteractiveToolCallOutcome> | undefined;
	};
	/** n8n's Stop: calls in flight are cancelled (`notifications/cancelled`, `tasks/cancel` for tasks). */
	signal?: AbortSignal;
}

/**
 * What an observer returns for one call: told how it ended, and (`progress`, optional) each of its
 * progress notifications, cleaned, as they arrive.
 */
export type ToolCallEnd = ((outcome: ToolOutcome | undefined, durationMs: number, waiting?: 'input' | 'task') => void) & { progress?: (progress: ToolProgress) => void };

export type ToolCallObserver = (call: PlannedCall) => ToolCallEnd | undefined;

export interface ToolRunResult {
	outcomes: ToolOutcome[];
	durations: Record<string, number>;
	/** Calls that did not finish: the server needs a person's input first (absent when none). */
	inputRequired?: ToolInputNeeded[];
	/** The last progress notification of each call that sent any, by call id (absent when none did). */
	progress?: Record<string, ToolProgress>;
	/** Calls that ran as MCP tasks: the task's id and last status, by call id (absent when none did). */
	tasks?: Record<string, TaskSummary>;
	/** Calls whose task still runs after the wait in place (tasks.handOffAfterMs), by call id (absent when none). */
	running?: Record<string, RunningTask>;
	/** With keepFullResults: each finished call's text as the tool returned it, before trimming, by call id. */
	fullResults?: Record<string, string>;
}

/**
 * The connection core's interactive call: input requests come back instead of being answered, and
 * it checks results against the listed tool's output schema itself (the connection knows the tools
 * listed through it), so the runner checks only results of an injected callTool.
 */
const defaultCallTool: InteractiveToolCall = (connection, name, args, options) => connection.callToolInteractive(name, args, options);

/** The task policy of one call: hand-off only to the servers that allow it. */
function callTaskPolicy(tasks: NonNullable<ToolRunnerOptions['tasks']>, serverId: string, onStatus: (state: TaskState) => void): TaskCallPolicy {
	const { handOffServers, handOffAfterMs, askPerson, watched: _watched, ...policy } = tasks;
	const handsOff = handOffAfterMs !== undefined && (!handOffServers || handOffServers.has(serverId));
	// A person can only be asked by a run that can pause for the task: elsewhere its questions are declined.
	return { ...policy, onStatus, ...(handsOff ? { handOffAfterMs, ...(askPerson ? { askPerson } : {}) } : {}) };
}

/** A call whose task still runs (PlannedCall.task) is checked, never sent again. */
const taskCheck =
	(task: RunningTask, server: string, watched: NonNullable<ToolRunnerOptions['tasks']>['watched']): InteractiveToolCall =>
	(connection, name, _args, options) =>
		watched?.(server, task.taskId, options.tasks?.onStatus, options.onProgress) ?? connection.resumeTask(name, task, options);

/**
 * Runs every requested call of a turn (bounded concurrency, per-call timeout). Nothing here
 * throws: a timeout, a dead server or an MCP isError all become error results for the model.
 */
export function runToolCalls(calls: PlannedCall[], options: ToolRunnerOptions): Promise<ToolRunResult> {
	const durations: Record<string, number> = {};
	const result: ToolRunResult = { outcomes: [], durations };
	const run = options.observer ? (call: PlannedCall) => runObserved(call, options, result) : (call: PlannedCall) => runOne(call, options, result);
	// One call per turn is the common case: no lanes to schedule. (Not an async function: one
	// suspended frame less per turn; runOne and mapWithConcurrency never throw synchronously.)
	if (calls.length === 1) {
		return run(calls[0]).then((outcome) => {
			if (outcome) result.outcomes.push(outcome);
			return result;
		});
	}
	return mapWithConcurrency(calls, options.concurrency, run).then((outcomes) => {
		// Every call has an outcome unless one asked for input or still runs as a task: then only those are left out.
		if (!result.inputRequired && !result.running) result.outcomes = outcomes as ToolOutcome[];
		else for (let i = 0; i < outcomes.length; i++) if (outcomes[i]) result.outcomes.push(outcomes[i] as ToolOutcome);
		return result;
	});
}

/** A legacy server's elicitation, declined mid-call by the connection core: the model learns why the result may be partial. */
function withNotes(outcome: ToolOutcome, notes: unknown): ToolOutcome {
	if (!Array.isArray(notes) || notes.length === 0) return outcome;
	const lines = notes.filter((note): note is string => typeof note === 'string' && note.trim() !== '');
	return lines.length ? { ...outcome, text: `${lines.join('\n')}\n${outcome.text}` } : outcome;
}

/** runOne, with the observer told about the start and the end (its failures are swallowed: logging never fails a call). */
function runObserved(call: PlannedCall, options: ToolRunnerOptions, run: ToolRunResult): Promise<ToolOutcome | undefined> {
	let finish: ReturnType<ToolCallObserver>;
	try {
		finish = (options.observer as ToolCallObserver)(call);
	} catch {
		finish = undefined;
	}
	const watch = finish?.progress;
	const onProgress = watch
		? (progress: ToolProgress) => {
				try {
					watch(progress);
				} catch {
					// As above: the observer is for people.
				}
			}
		: undefined;
	return runOne(call, options, run, onProgress).then((outcome) => {
		try {
			finish?.(outcome, run.durations[call.id] ?? 0, outcome ? undefined : run.running && Object.hasOwn(run.running, call.id) ? 'task' : 'input');
		} catch {
			// The execution view and the logger are for people; the run goes on without them.
		}
		return outcome;
	});
}

/**
 * One call to its outcome, or to nothing when the server needs input first (then it is listed in
 * `run.inputRequired`); never rejects. A promise chain, not an async function: one suspended frame
 * less per call.
 */
function runOne(call: PlannedCall, options: ToolRunnerOptions, run: ToolRunResult, watch?: (progress: ToolProgress) => void): Promise<ToolOutcome | undefined> {
	const durations = run.durations;
	const started = performance.now();
	// Every outcome is trimmed here, once, for the model; the full text is kept only when asked.
	const done = (untrimmed: ToolOutcome): ToolOutcome => {
		setEntry(durations, call.id, Math.round(performance.now() - started));
		if (options.keepFullResults) setEntry((run.fullResults ??= {}), call.id, untrimmed.text);
		return trimOutcome(untrimmed, options.limits.maxChars);
	};
	const error = (text: string): ToolOutcome => ({ id: call.id, isError: true, text, images: [] });
	const failed = (reason: unknown): ToolOutcome => {
		const message = reason instanceof Error ? reason.message : String(reason);
		return done(error(`The tool call failed: ${message}`));
	};
	try {
		if (!call.tool) return Promise.resolve(done(error(call.rejection ?? 'Unknown tool.')));
		const n8nSource = options.n8nTools?.get(call.tool.serverId);
		if (n8nSource) {
			const tool = n8nSource.get(call.tool.mcpName);
			if (!tool) return Promise.resolve(done(error(`The n8n tool "${call.tool.mcpName}" is no longer connected through "${call.tool.serverName}".`)));
			// Untrimmed (maxChars 0): done() trims it like every other result.
			return invokeN8nTool(tool, call.arguments as Record<string, unknown>, { timeoutMs: options.timeoutMs, maxChars: 0 }).then((result) =>
				done({ id: call.id, isError: result.isError, text: result.text, images: [] }),
			);
		}
		const connection = options.connections.get(call.tool.serverId);
		if (!connection) return Promise.resolve(done(error(`Server "${call.tool.serverName}" is not connected.`)));
		const { mcpName, serverId } = call.tool;
		// A retry after a person answered the server's input requests: their answers and the server's state go back.
		const input = call.input;
		const callOptions: InteractiveCallOptions = {
			timeoutMs: options.timeoutMs,
			// Always given, so every call carries a progress token; the last notification goes to the tool log.
			onProgress: (progress) => {
				setEntry((run.progress ??= {}), call.id, progress);
				watch?.(progress);
			},
			...(options.resetTimeoutOnProgress ? { resetTimeoutOnProgress: true, ...(options.maxTotalTimeoutMs !== undefined ? { maxTotalTimeoutMs: options.maxTotalTimeoutMs } : {}) } : {}),
			...(options.signal ? { signal: options.signal } : {}),
			...(options.tasks ? { tasks: callTaskPolicy(options.tasks, serverId, (state) => setEntry((run.tasks ??= {}), call.id, summarizeTask(state))) } : {}),
			// A task's answers go once, with the check that follows the person's answer (the task then
			// waited for input); later checks of the same task only poll it. A task's questions nobody
			// answered in time go as "cancel" (review.ts expireApproval).
			...((input?.status === 'answered' || (input?.status === 'expired' && call.task && input.responses)) && (!call.task || call.task.status === 'input_required')
				? { continuation: { inputResponses: input.responses ?? {}, ...(input.requestState !== undefined ? { requestState: input.requestState } : {}) } }
				: {}),
		};
		const injected = options.callTool;
		const callTool = call.task ? taskCheck(call.task, serverId, options.tasks?.watched) : (injected ?? defaultCallTool);
		return callTool(connection, mcpName, call.arguments as Record<string, unknown>, callOptions).then((outcome) => {
			try {
				if (outcome?.kind === 'input_required') {
					setEntry(durations, call.id, Math.round(performance.now() - started));
					(run.inputRequired ??= []).push({ id: call.id, inputRequests: outcome.inputRequests, ...(outcome.requestState !== undefined ? { requestState: outcome.requestState } : {}) });
					return undefined;
				}
				if (outcome?.kind === 'task_running') {
					setEntry(durations, call.id, Math.round(performance.now() - started));
					const { inputRequests, ...task } = outcome.task;
					setEntry((run.running ??= {}), call.id, task);
					// The task asks a person (askPerson): the run pauses for the input as for a call's own request.
					if (inputRequests && Object.keys(inputRequests).length > 0) (run.inputRequired ??= []).push({ id: call.id, inputRequests });
					return undefined;
				}
				const result = outcome.result;
				try {
					if (callTool === injected) checkToolOutput({ name: mcpName, outputSchema: options.outputSchemas?.get(outputSchemaKey(serverId, mcpName)) }, result);
				} catch (reason) {
					// Explained as every other server error is ("MCP server … returned an error while calling tool …").
					return failed(typeof connection.explain === 'function' ? connection.explain(reason, `calling tool "${mcpName}"`) : reason);
				}
				return done(withNotes(untrimmedOutcomeFromMcp(call.id, result, options.limits), (outcome as { notes?: unknown }).notes));
			} catch (reason) {
				return failed(reason);
			}
		}, failed);
	} catch (reason) {
		return Promise.resolve(failed(reason));
	}
}

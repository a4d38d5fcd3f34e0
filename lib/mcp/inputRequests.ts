/**
 * Input a server asks for in the middle of a tool call, in a neutral form shared by the connection
 * core (lib/mcp) and the Agent (lib/agent): under MCP 2026-07-28 a server answers `tools/call`
 * with an `input_required` result (embedded elicitation / sampling / roots requests, keyed, plus
 * an opaque `requestState`), and the client retries the same call with `inputResponses` and the
 * `requestState` echoed byte for byte. A person may take hours to answer, so the Agent stores this
 * in its paused run and retries later, possibly on another worker.
 */

import type { ToolProgress } from './progress';
import type { RunningTask, TaskCallPolicy } from './toolTask';

/** One embedded request, as the server sent it (`method` is e.g. "elicitation/create"). */
export interface ServerInputRequest {
	method: string;
	params?: Record<string, unknown>;
}

/** A tool call that did not finish: the server needs these inputs first. */
export interface ToolInputRequired {
	kind: 'input_required';
	/** Keyed as the server keyed them; the responses must use the same keys. */
	inputRequests: Record<string, ServerInputRequest>;
	/** Opaque; echoed back unchanged on the retry. */
	requestState?: string;
}

export interface ToolCallCompleted {
	kind: 'result';
	result: Record<string, unknown>;
	/**
	 * Said about the call to the person or the model: e.g. a 2025-era server asked for input in the
	 * middle of the call and the client declined it, or sampling was declined
	 * (lib/mcp/inputRequestMessages.ts). Absent when there is nothing to say.
	 */
	notes?: string[];
}

/**
 * A call that became a task which still runs when the in-place wait is over (TaskCallPolicy.handOffAfterMs):
 * the caller keeps `task` and checks it later (McpConnection.resumeTask). Nothing was cancelled.
 */
export interface ToolTaskRunning {
	kind: 'task_running';
	task: RunningTask;
}

export type InteractiveToolCallOutcome = ToolCallCompleted | ToolInputRequired | ToolTaskRunning;

/** The answer to an elicitation request (MCP ElicitResult). */
export interface ElicitationAnswer {
	action: 'accept' | 'decline' | 'cancel';
	content?: Record<string, unknown>;
}

/** What the retry of a call carries: the answers by request key, and the server's state. */
export interface InputContinuation {
	inputResponses: Record<string, unknown>;
	requestState?: string;
}

/** Options of McpConnection.callToolInteractive (implemented by the connection core). */
export interface InteractiveCallOptions {
	timeoutMs?: number;
	signal?: AbortSignal;
	/**
	 * Each `notifications/progress` of the call, cleaned (lib/mcp/progress.ts). Given, the call
	 * carries a progress token; a callback that throws changes nothing for the call.
	 */
	onProgress?: (progress: ToolProgress) => void;
	/** Progress notifications restart the timeout, up to maxTotalTimeoutMs (default: ten times the timeout). */
	resetTimeoutOnProgress?: boolean;
	maxTotalTimeoutMs?: number;
	/** Present on a retry after a person answered. */
	continuation?: InputContinuation;
	/**
	 * MCP Tasks (lib/mcp/toolTask.ts): when set, a tool whose `execution.taskSupport` asks for it
	 * (per `mode`) is called as a task and waited for in place, up to `maxWaitMs`. Unset: no call
	 * is ever sent as a task.
	 */
	tasks?: TaskCallPolicy;
}

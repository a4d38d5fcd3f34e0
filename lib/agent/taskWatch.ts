import type { McpServerConfig } from '../mcp/serverConfig';
import { storedTokenAuth, type StoredTokenAuth } from '../mcp/oauth/storedTokenAuth';
import type { InteractiveToolCallOutcome } from '../mcp/inputRequests';
import type { ConnectionPool } from '../mcp/pool/connectionPool';
import type { RunningTask, TaskState } from '../mcp/toolTask';
import type { ToolProgress } from '../mcp/progress';

/**
 * The quick way out of a durable task wait, in the process that paused the run: the tasks go on
 * being followed here at the server's poll interval, and once one ends (its result in hand) the
 * execution's resume URL is told to wake (MCP Approval's task wake, a per-pause secret), so the
 * result reaches the model within a poll interval instead of at n8n's next wait-tracker look.
 * The result is kept here for the check the woken run makes (takeWatchedOutcome): the server hands
 * it out once. Everything here is best effort: after a restart, on another worker, or when the wake
 * is not accepted, the timer wake and the check do the same, later.
 */

export interface WatchedTask {
	/** The MCP Server sub-node's name and its connection settings (memory only, never stored). */
	server: string;
	config: McpServerConfig;
	tool: string;
	task: RunningTask;
}

export interface TaskWatchOptions {
	/** n8n's id of the execution that waits: outcomes are kept for it alone. */
	executionId: string;
	tasks: WatchedTask[];
	/** Asks the waiting execution to wake; true once it accepted or refused for good (then no retry). */
	wake: () => Promise<boolean>;
	pool: ConnectionPool;
	/** Per request, as the Agent's tool calls. */
	timeoutMs: number;
	/**
	 * Whether the execution no longer waits and never will (stopped in n8n, deleted, finished):
	 * asked every probeEveryMs while a task is followed; then the task is cancelled on the server,
	 * since nobody will read its result. n8n runs no node code when a waiting execution is stopped.
	 */
	gone?: () => Promise<boolean>;
	probeEveryMs?: number;
}

/**
 * How the followed task ended, its last status and the last progress its server sent while it was
 * followed (2025-11-25, kept connections): the check reports them as if it had seen them.
 */
type Settled = ({ outcome: InteractiveToolCallOutcome } | { error: unknown }) & { last?: TaskState; progress?: ToolProgress };

/** Outcomes not taken within this are dropped: the run was woken elsewhere, or stopped. */
const KEEP_MS = 15 * 60_000;
/** How often a followed task's execution is probed for having been stopped (TaskWatchOptions.gone). */
const PROBE_EVERY_MS = 15_000;
/** Waits between wake attempts while the execution is not waiting yet (or n8n is busy). */
const WAKE_RETRIES_MS = [500, 1_000, 2_000, 4_000, 8_000, 15_000, 30_000];

/** Tasks followed now, with the wake of the execution's latest pause (a re-pause has a new secret). */
const watching = new Map<string, { wake: () => Promise<boolean> }>();
const settled = new Map<string, { value: Settled; timer: NodeJS.Timeout }>();

const keyOf = (executionId: string, server: string, taskId: string) => JSON.stringify([executionId, server, taskId]);

/**
 * Follows each task until it ends or its wait would reach its deadline; the first one that ends
 * wakes the execution. A task followed already (the run paused again after a timer wake) is not
 * followed twice: its follow-up wakes with the new pause's secret. A server signed in with n8n's
 * OAuth credential is followed while its stored token lasts (followedConfig).
 */
export function watchTasks(options: TaskWatchOptions): void {
	for (const entry of options.tasks) {
		const config = followedConfig(entry.config);
		if (!config) continue;
		const key = keyOf(options.executionId, entry.server, entry.task.taskId);
		const followed = watching.get(key);
		if (followed) {
			followed.wake = options.wake;
			continue;
		}
		// Its outcome is here already (the wake went to an earlier pause): wake this pause for it.
		if (settled.has(key)) {
			void wakeWithRetries(options.wake);
			continue;
		}
		const current = { wake: options.wake };
		watching.set(key, current);
		void follow({ ...entry, config }, options).then((value) => {
			watching.delete(key);
			if (!value) return;
			// A question for a person: the woken run's check asks the server again and pauses for the person.
			if (value !== ASKS_PERSON) {
				const timer = setTimeout(() => settled.delete(key), KEEP_MS);
				timer.unref();
				settled.set(key, { value, timer });
			}
			void wakeWithRetries(current.wake);
		});
	}
}

/** The outcome this process followed for the task, taken once; undefined when none is at hand. */
export function takeWatchedOutcome(
	executionId: string,
	server: string,
	taskId: string,
	onStatus?: (state: TaskState) => void,
	onProgress?: (progress: ToolProgress) => void,
): Promise<InteractiveToolCallOutcome> | undefined {
	const key = keyOf(executionId, server, taskId);
	const entry = settled.get(key);
	if (!entry) return undefined;
	settled.delete(key);
	clearTimeout(entry.timer);
	const { value } = entry;
	if (value.last) onStatus?.(value.last);
	if (value.progress) onProgress?.(value.progress);
	return 'outcome' in value ? Promise.resolve(value.outcome) : Promise.reject(value.error);
}

/**
 * The connection settings the follow-up uses; undefined when the server cannot be followed here.
 * n8n's OAuth credential (tokens held by the host): its token may be refreshed only on behalf of
 * a running execution, and this one waits. So the follow-up sends the stored access token as it
 * is, on a connection of its own (never the kept one, where it would stand in for the auth of the
 * executions using it), and gives up at the first refusal (tokenRefused): the timer wake, in a
 * running execution, checks the task then. Client-credentials grants renew themselves and are
 * followed as they are; an interactive session of our own (tests, conformance) is not followed.
 */
function followedConfig(config: McpServerConfig): McpServerConfig | undefined {
	if (config.kind !== 'http' || !config.auth || config.auth.kind === 'client-credentials') return config;
	if (config.auth.kind !== 'host') return undefined;
	return { ...config, auth: storedTokenAuth(config.auth), pooling: undefined, unkeptIdentity: undefined };
}

function tokenRefused(config: McpServerConfig): boolean {
	return config.kind === 'http' && (config.auth as Partial<StoredTokenAuth> | undefined)?.refused === true;
}

/** For tests: nothing followed, nothing kept. */
export function forgetWatchedTasks(): void {
	for (const entry of settled.values()) clearTimeout(entry.timer);
	settled.clear();
	watching.clear();
}

/** The task asks a person something (2026-07-28 input_required): never answered here, the run wakes to ask them. */
const ASKS_PERSON = Symbol('asks a person');

/**
 * The task followed to its end on a connection of its own from the pool (the kept one, for a kept
 * server); ASKS_PERSON when it asked a question; undefined when it still ran near its deadline
 * (the timer wake's check cancels it then) or the connection could not be had.
 */
async function follow(entry: WatchedTask, options: TaskWatchOptions): Promise<Settled | typeof ASKS_PERSON | undefined> {
	let lease;
	try {
		lease = await options.pool.acquire(entry.config);
	} catch {
		return undefined;
	}
	let last: TaskState | undefined;
	let progress: ToolProgress | undefined;
	const seen = () => ({ ...(last ? { last } : {}), ...(progress ? { progress } : {}) });
	const stopped = new AbortController();
	const stopProbing = probeExecution(options, stopped);
	try {
		// Stop a poll interval short of the deadline: cancelling at the limit is the check's, which says so to the model.
		const handOffAfterMs = Math.max(0, entry.task.deadline - Date.now() - entry.task.pollIntervalMs);
		const outcome = await lease.connection.resumeTask(entry.tool, entry.task, {
			timeoutMs: options.timeoutMs,
			// The execution was stopped: the wait ends as on n8n's Stop, with tasks/cancel.
			signal: stopped.signal,
			onProgress: (sent) => (progress = sent),
			tasks: { mode: 'whenRequired', maxWaitMs: Math.max(1, entry.task.deadline - Date.now()), handOffAfterMs, askPerson: true, onStatus: (state) => (last = state) },
		});
		if (outcome.kind === 'task_running') return outcome.task.inputRequests ? ASKS_PERSON : undefined;
		return { outcome, ...seen() };
	} catch (error) {
		// Nobody to wake, nothing to keep: the task was cancelled because its execution is gone.
		if (stopped.signal.aborted) return undefined;
		// The stored OAuth token stopped working: not the task's failure; the timer wake's check, with a fresh token, tells.
		if (tokenRefused(entry.config)) return undefined;
		return { error, ...seen() };
	} finally {
		stopProbing();
		await lease.release().catch(() => undefined);
	}
}

/**
 * Asks options.gone now and then while a task is followed (one question at a time, the next a
 * period after the last answer); aborts `stopped` once it says yes. Returns the way to stop asking.
 */
function probeExecution(options: TaskWatchOptions, stopped: AbortController): () => void {
	const { gone } = options;
	if (!gone) return () => undefined;
	let timer: NodeJS.Timeout | undefined;
	let ended = false;
	const next = () => {
		timer = setTimeout(() => {
			gone()
				.then((isGone) => {
					if (isGone) stopped.abort();
				})
				// Not reachable now (n8n restarting, busy): ask again next time.
				.catch(() => undefined)
				.finally(() => {
					if (!ended && !stopped.signal.aborted) next();
				});
		}, options.probeEveryMs ?? PROBE_EVERY_MS);
		timer.unref();
	};
	next();
	return () => {
		ended = true;
		if (timer) clearTimeout(timer);
	};
}

async function wakeWithRetries(wake: () => Promise<boolean>): Promise<void> {
	for (const delay of [0, ...WAKE_RETRIES_MS]) {
		if (delay) await new Promise((resolve) => setTimeout(resolve, delay).unref());
		try {
			if (await wake()) return;
		} catch {
			// n8n not reachable at its resume URL from here, or restarting: try again, then leave it to the timer.
		}
	}
}

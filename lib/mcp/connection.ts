import type { Client, RequestOptions } from '@modelcontextprotocol/client';
import type { McpServerConfig } from './serverConfig';
import { answeredByServer, explainMcpError, httpStatusOf, McpFailure } from './errors';
import { describeServer, redactorForServer, type Redactor } from './secrets';
import type { DeclinedRequest } from './legacyInputRequests';
import type { InteractiveCallOptions, InteractiveToolCallOutcome } from './inputRequests';
import type { ServerIdentity, ToolDefinition } from '../tools/toolDefinition';
import { callInteractively, resumeTaskInteractively } from './interactiveCall';
import { endSession, serverOutputOf, startSession, type LiveSession, type SessionOptions } from './session';
import { ToolListCache } from './toolListCache';
import { TaskNotices } from './taskNotices';
import type { RunningTask } from './toolTask';

export interface OpenOptions extends SessionOptions {
	/**
	 * Called once when the transport closes on its own (the process exited, the stream dropped), not
	 * on close(). The pool takes such a connection out at once.
	 */
	onLost?: () => void;
}

let connectionCount = 0;

/**
 * One connected MCP client for one server, used for every item of a node execution. `request`
 * wraps each call so failures come back explained, and an expired HTTP session (404 on a request
 * that carried a session id) is re-initialized once before giving up.
 *
 * The client is the SDK's v2 client with version negotiation on: MCP 2026-07-28 (`server/discover`,
 * no initialize, per-request `_meta` and headers) where the server speaks it, the 2025 initialize
 * handshake (2025-11-25, 2025-06-18, 2025-03-26) otherwise, and legacy SSE as configured.
 */
export class McpConnection {
	private closed = false;
	/**
	 * Everything a server sends back passes through this (results, listings, its name and
	 * instructions), so a server cannot echo the credential's secrets into node outputs or the
	 * model's context. Inactive, at no cost, when the configuration holds no secrets.
	 */
	private readonly redactor: Redactor;
	/** Unique in this process: names the connection in caches keyed by what it listed. */
	readonly id = ++connectionCount;
	/** The tool list between listings: lib/mcp/listing.ts fills and reads it, announcements mark it stale. */
	readonly toolList = new ToolListCache();
	/** When a request last failed for a reason other than the server's own answer (timeouts included). */
	private failedAt = 0;
	private lost = false;
	/** Task waits listening for `notifications/tasks/status` (lib/mcp/taskNotices.ts). */
	readonly taskNotices = new TaskNotices();
	/** The session replacing an expired one, shared by every request that saw it expire. */
	private reopening?: { expired: LiveSession; done: Promise<void> };

	private constructor(
		readonly config: McpServerConfig,
		private session: LiveSession,
		private readonly options: OpenOptions,
	) {
		this.redactor = redactorForServer(config);
		this.attach(session);
	}

	/** The last listing's tools by name (see ToolListCache.byName): header mirroring and output checks. */
	get knownTools(): ReadonlyMap<string, ToolDefinition> {
		return this.toolList.byName;
	}

	/** Changes only when a listing differs from the one before. */
	get toolListVersion(): number {
		return this.toolList.version;
	}

	/** True once the server announced a change (or the session was re-initialized) since the last listing. */
	get toolListStale(): boolean {
		return this.toolList.isStale;
	}

	/** When a request last failed for a reason other than the server's own answer (timeouts included). */
	get lastFailureAt(): number {
		return this.failedAt;
	}

	static async open(config: McpServerConfig, options: OpenOptions = {}): Promise<McpConnection> {
		let session: LiveSession;
		try {
			session = await startSession(config, options);
		} catch (error) {
			// Every failure leaves explained and redacted, including ones nothing above expected.
			throw explainMcpError(error, config, 'connecting');
		}
		return new McpConnection(config, session, options);
	}

	/**
	 * False once the connection cannot serve another request: closed, its process exited, or its
	 * transport closed. (A hung server still counts as alive here; the pool pings to find it.)
	 */
	get isAlive(): boolean {
		return !this.closed && !this.lost && !(this.session.stdio?.hasExited ?? false);
	}

	/** The local server's process id, when there is one. */
	get pid(): number | undefined {
		return this.session.stdio?.pid;
	}

	/** A round trip that proves the server still answers (MCP `ping`), within `timeoutMs`. */
	async ping(timeoutMs: number): Promise<void> {
		await this.session.client.ping({ timeout: timeoutMs });
	}

	/** Sends SIGKILL to the local process group at once; for process exit, where nothing can wait. */
	killNow(): void {
		this.closed = true;
		this.session.stdio?.killNow();
	}

	private attach(session: LiveSession): void {
		this.taskNotices.install(session.client);
		session.legacyInput.redact = (text) => this.redactor.text(text);
		session.events.toolsChanged = () => this.toolList.markStale();
		session.events.lost = () => {
			if (this.closed || session !== this.session || this.lost) return;
			this.lost = true;
			this.options.onLost?.();
		};
	}

	get client(): Client {
		return this.session.client;
	}

	get server(): ServerIdentity {
		const info = this.session.client.getServerVersion();
		const identity = { name: info?.name ?? 'unknown', version: info?.version ?? 'unknown', ...(info?.title ? { title: info.title } : {}) };
		return this.redactor.active ? this.redactor.value(identity) : identity;
	}

	get instructions(): string | undefined {
		const instructions = this.session.client.getInstructions();
		return this.redactor.active && instructions !== undefined ? this.redactor.text(instructions) : instructions;
	}

	/** Calls `wake` when the server says task `taskId` changed status, until the returned function is called. */
	watchTask(taskId: string, wake: () => void): () => void {
		return this.taskNotices.watch(taskId, wake);
	}

	/** A progress token for a 2025-11-25 task call, routed to `onProgress` until stopped (lib/mcp/taskNotices.ts). */
	routeTaskProgress(onProgress: (params: unknown) => void, token?: string): { token: string; stop: () => void } | undefined {
		return this.taskNotices.routeProgress(onProgress, token);
	}

	/** What the server declared it offers (tasks for tool calls among others). */
	get serverCapabilities(): unknown {
		return this.session.client.getServerCapabilities();
	}

	get protocolVersion(): string | undefined {
		return this.session.client.getNegotiatedProtocolVersion();
	}

	/** True on an MCP 2026-07-28 (or later) connection: input requests arrive as `input_required` results. */
	get isModern(): boolean {
		return this.session.client.getProtocolEra() === 'modern';
	}

	/** The secret-removing pass every server answer goes through (see `redactor`). */
	get redact(): Redactor {
		return this.redactor;
	}

	/** Default per-request options: the credential's timeout. */
	requestOptions(overrides: RequestOptions = {}): RequestOptions {
		return { timeout: this.config.requestTimeoutMs, ...overrides };
	}

	/**
	 * Runs one MCP request; `phase` names it in errors ("calling tool echo"). A promise chain, not an
	 * async function: one suspended frame less on every tool call of a large run.
	 */
	request<T>(phase: string, run: (client: Client) => Promise<T>): Promise<T> {
		const answered = this.requestUnredacted(phase, run);
		const redactor = this.redactor;
		return redactor.active ? answered.then((result) => redactor.value(result)) : answered;
	}

	/** As `request`, for callers that redact themselves (parts of an answer must stay byte-exact). */
	requestUnredacted<T>(phase: string, run: (client: Client) => Promise<T>): Promise<T> {
		const session = this.session;
		// Counted for LegacyInputRequests: a server's request during several requests of ours (other
		// executions' on a kept connection) cannot be told apart.
		const legacy = session.legacyInput;
		legacy.requestsInFlight++;
		let pending: Promise<T>;
		try {
			pending = run(session.client);
		} catch (error) {
			pending = Promise.reject(error);
		}
		return pending.then(
			(value) => {
				legacy.requestsInFlight--;
				return value;
			},
			(error: unknown) => {
				legacy.requestsInFlight--;
				return this.retryOrExplain(error, phase, run, session);
			},
		);
	}

	/**
	 * Runs `call` and returns the notes left by server-to-client requests that a 2025-era server
	 * sent while it was open (each answered at once: elicitation declined, sampling refused).
	 */
	trackLegacyInput<T>(call: () => Promise<T>): Promise<{ value: T; declined?: DeclinedRequest[] }> {
		return this.session.legacyInput.track(call);
	}

	/**
	 * Calls a tool and hands input requests back instead of answering them: under MCP 2026-07-28 an
	 * `input_required` answer becomes `{ kind: 'input_required' }` (roots requests are answered here
	 * with an empty list, sampling ends the call with an error result), and `options.continuation`
	 * retries the call with the answers and the server's request state. On a 2025-era connection
	 * the call runs as usual and requests in the middle of it are declined, with notes saying so.
	 * See lib/mcp/interactiveCall.ts.
	 */
	callToolInteractive(name: string, args: Record<string, unknown>, options: InteractiveCallOptions = {}): Promise<InteractiveToolCallOutcome> {
		return callInteractively(this, name, args, {
			timeoutMs: options.timeoutMs,
			signal: options.signal,
			continuation: options.continuation,
			onProgress: options.onProgress,
			resetTimeoutOnProgress: options.resetTimeoutOnProgress,
			maxTotalTimeoutMs: options.maxTotalTimeoutMs,
			tasks: options.tasks,
			publicOnly: true,
		});
	}

	/**
	 * Checks a task a call of this server handed off still running (InteractiveCallOptions.tasks
	 * with handOffAfterMs): its result once it completed, else `task_running` with its new status.
	 * See lib/mcp/interactiveCall.ts resumeTaskInteractively.
	 */
	resumeTask(name: string, task: RunningTask, options: InteractiveCallOptions = {}): Promise<InteractiveToolCallOutcome> {
		return resumeTaskInteractively(this, name, task, {
			timeoutMs: options.timeoutMs,
			signal: options.signal,
			onProgress: options.onProgress,
			tasks: options.tasks,
			continuation: options.continuation,
			publicOnly: true,
		});
	}

	private async retryOrExplain<T>(error: unknown, phase: string, run: (client: Client) => Promise<T>, session: LiveSession): Promise<T> {
		if (!this.isExpiredSession(error, session)) throw this.explain(error, phase);
		try {
			await this.reopen(session);
			return await run(this.session.client);
		} catch (retryError) {
			throw this.explain(retryError, phase);
		}
	}

	explain(error: unknown, phase: string): McpFailure {
		// An error the server answered with says nothing about the connection; anything else
		// (a timeout, a dropped stream) makes the pool ping before handing it out again.
		if (!answeredByServer(error)) this.failedAt = Date.now();
		const stdio = this.session.stdio;
		return explainMcpError(error, this.config, phase, stdio ? serverOutputOf(stdio) : undefined, stdio?.exitDescription, this.session.client.getServerVersion()?.name);
	}

	/** Ends the HTTP session (DELETE) or the local process tree. Safe to call twice. */
	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		await endSession(this.session);
	}

	private isExpiredSession(error: unknown, session: LiveSession): boolean {
		return this.config.kind === 'http' && httpStatusOf(error) === 404 && session.transport.sessionId !== undefined;
	}

	/**
	 * A new session in place of `expired`. Requests that saw the same session expire at once share
	 * one new session; one that saw it after the replacement just retries on the new one.
	 */
	private reopen(expired: LiveSession): Promise<void> {
		if (this.session !== expired) return Promise.resolve();
		if (this.closed) return Promise.reject(this.closedFailure());
		if (this.reopening?.expired !== expired) {
			const done = this.replaceSession(expired).finally(() => {
				if (this.reopening?.done === done) this.reopening = undefined;
			});
			this.reopening = { expired, done };
		}
		return this.reopening.done;
	}

	private async replaceSession(old: LiveSession): Promise<void> {
		const next = await startSession(this.config, this.options);
		if (this.closed) {
			// Closed while the new session was starting (a shutdown): it must not outlive the connection.
			await endSession(next);
			throw this.closedFailure();
		}
		this.session = next;
		this.attach(next);
		// A new session may come with another tool list; the cached one is not trusted across it.
		this.toolList.markStale();
		// Not awaited by the requests waiting to retry: the new session serves them now.
		void endSession(old).catch(() => undefined);
	}

	private closedFailure(): McpFailure {
		return new McpFailure(`The connection to MCP server ${describeServer(this.config, this.session.client.getServerVersion()?.name)} was closed.`, 'protocol');
	}
}

import { Client, SSEClientTransport, StreamableHTTPClientTransport, type RequestOptions, type Transport } from '@modelcontextprotocol/client';
import type { HttpServerConfig, McpServerConfig, StdioServerConfig } from './serverConfig';
import { ProcessStdioTransport } from './processStdioTransport';
import { answeredByServer, explainMcpError, httpStatusOf, McpFailure } from './errors';
import { assertStdioAllowed } from './stdioPolicy';
import { describeServer, redactorForServer, type Redactor } from './secrets';
import { LegacyInputRequests, type DeclinedRequest } from './legacyInputRequests';
import type { InteractiveCallOptions, InteractiveToolCallOutcome } from './inputRequests';
import type { ServerIdentity, ToolDefinition } from '../tools/toolDefinition';
import { callInteractively } from './interactiveCall';
import { ResultTypeDefaulting } from './resultTypeDefault';
import { ForwardingTransport } from './forwardingTransport';
import { LeanHttpTransport, proxyConfigured } from './leanHttpTransport';
import { boundedReconnection, pacedStreamOpens } from './streamReconnect';
import { limitedFetch, MAX_ANSWER_BYTES } from './streamLimits';
import { serverNamedUrlPolicy } from './urlPolicy';
import { PACKAGE_INFO } from '../packageInfo';
import { MAX_LIST_PAGES } from './pageLimit';
import { hasRoots } from './roots';

/** How this client introduces itself to servers (initialize's clientInfo): the installed release. */
export const CLIENT_INFO = { name: PACKAGE_INFO.name, version: PACKAGE_INFO.version };


/**
 * How long a local server may take to answer the `server/discover` probe before it counts as a
 * 2025-era server that ignores unknown requests (the initialize handshake follows on the same
 * pipe). Bounded by the connect timeout.
 */
const STDIO_PROBE_TIMEOUT_MS = 5_000;

interface LiveSession {
	client: Client;
	transport: Transport;
	stdio?: ProcessStdioTransport;
	legacyInput: LegacyInputRequests;
	/** Set by the connection once it exists: what the session's callbacks report to. */
	events: SessionEvents;
}

/** What a session tells its connection about, after the handshake. */
interface SessionEvents {
	/** The server said its tool list changed (`notifications/tools/list_changed`). */
	toolsChanged?: () => void;
	/** The transport closed without close() being called (process exit, dropped stream). */
	lost?: () => void;
}

export interface OpenOptions {
	/**
	 * Follow `notifications/tools/list_changed` (on 2026-07-28, through a `subscriptions/listen`
	 * stream when the server offers one). For connections kept between executions, whose cached
	 * tool list must not outlive a change the server announced.
	 */
	watchToolList?: boolean;
}

/** The tool list as last listed, and when (lib/mcp/listing.ts reads and writes it). */
export interface ListedTools {
	tools: ToolDefinition[];
	listedAt: number;
	/** The listing's JSON, to tell a changed list from the same one listed again. */
	json: string;
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
	/**
	 * The tools last listed through listAllTools, by name: their input schemas let the client mirror
	 * marked arguments into `Mcp-Param-*` headers (SEP-2243) and their output schemas are checked on
	 * every interactive call, without another tools/list.
	 */
	readonly knownTools = new Map<string, ToolDefinition>();
	/** Unique in this process: names the connection in caches keyed by what it listed. */
	readonly id = ++connectionCount;
	/**
	 * The last tool listing, reused by listToolsCached while it is young and no list_changed
	 * arrived; `toolListVersion` changes only when a listing differs from the one before.
	 */
	listedTools?: ListedTools;
	toolListVersion = 0;
	/** True once the server announced a change (or the session was re-initialized) since the last listing. */
	toolListStale = false;
	/**
	 * Counts those announcements: a listing clears toolListStale only when none arrived while it was
	 * in flight (the announcement may overtake the answer, over HTTP on another stream).
	 */
	toolListChanges = 0;
	/** When a request last failed for a reason other than the server's own answer (timeouts included). */
	lastFailureAt = 0;
	/** Called once when the transport closes on its own (the process exited, the stream dropped). */
	onLost?: () => void;
	private lost = false;
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
		session.legacyInput.redact = (text) => this.redactor.text(text);
		session.events.toolsChanged = () => this.markToolListStale();
		session.events.lost = () => {
			if (this.closed || session !== this.session || this.lost) return;
			this.lost = true;
			this.onLost?.();
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
		return callInteractively(this, name, args, { timeoutMs: options.timeoutMs, signal: options.signal, continuation: options.continuation, publicOnly: true });
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
		if (!answeredByServer(error)) this.lastFailureAt = Date.now();
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

	/** The server said its tools changed, or the session they were listed on is gone. */
	private markToolListStale(): void {
		this.toolListStale = true;
		this.toolListChanges++;
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
		this.markToolListStale();
		// Not awaited by the requests waiting to retry: the new session serves them now.
		void endSession(old).catch(() => undefined);
	}

	private closedFailure(): McpFailure {
		return new McpFailure(`The connection to MCP server ${describeServer(this.config, this.session.client.getServerVersion()?.name)} was closed.`, 'protocol');
	}
}

/**
 * How long the session's DELETE may take: a server that stopped answering (the one a failed ping
 * just evicted) would otherwise hold the close, and n8n's shutdown with it, until fetch gives up
 * (minutes). Closing the client then aborts the request.
 */
const SESSION_DELETE_GRACE_MS = 2_000;

async function endSession(session: LiveSession): Promise<void> {
	let transport = session.transport;
	while (transport instanceof ForwardingTransport) transport = transport.inner;
	if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
		let timer: NodeJS.Timeout | undefined;
		const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, SESSION_DELETE_GRACE_MS)));
		await Promise.race([transport.terminateSession().catch(() => undefined), grace]);
		clearTimeout(timer);
	}
	await session.client.close().catch(() => undefined);
	if (session.stdio) await session.stdio.close();
}

function serverOutputOf(stdio: ProcessStdioTransport): string | undefined {
	const stderr = stdio.stderr.text();
	const noise = stdio.stdoutNoise.text();
	const parts = [stderr, noise ? `(non-JSON lines on stdout, which breaks the stdio protocol)\n${noise}` : ''].filter(Boolean);
	return parts.length ? parts.join('\n') : undefined;
}

/**
 * Capabilities: elicitation (form and URL), so 2026-07-28 servers may ask a person through the
 * Agent; on 2025-era connections such requests are declined at once with a note (LegacyInputRequests).
 * Roots only when the credential names some (lib/mcp/roots.ts): servers such as server-pdf and
 * server-filesystem replace their command-line directories with the client's roots, so declaring
 * the capability with an empty list would take those away. No sampling: we offer no model to servers.
 */
interface NewClient {
	client: Client;
	legacyInput: LegacyInputRequests;
	events: SessionEvents;
}

function newClient(config: McpServerConfig, options: OpenOptions, probeTimeoutMs?: number): NewClient {
	const events: SessionEvents = {};
	const client = new Client(CLIENT_INFO, {
		// listChanged false: a credential's roots change only by editing it, which starts a new connection.
		capabilities: { elicitation: { form: {}, url: {} }, ...(hasRoots(config) ? { roots: { listChanged: false } } : {}) },
		versionNegotiation: { mode: 'auto', ...(probeTimeoutMs ? { probe: { timeoutMs: probeTimeoutMs } } : {}) },
		inputRequired: { autoFulfill: false },
		listMaxPages: MAX_LIST_PAGES,
		// Only marks the cached list stale; the next use lists again (no refetch here, nobody may need it).
		...(options.watchToolList ? { listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => events.toolsChanged?.() } } } : {}),
	});
	client.onclose = () => events.lost?.();
	const legacyInput = new LegacyInputRequests();
	legacyInput.install(client, hasRoots(config) ? config.roots : undefined);
	return { client, legacyInput, events };
}

async function startSession(config: McpServerConfig, options: OpenOptions): Promise<LiveSession> {
	if (config.kind === 'stdio') return startStdioSession(config, options);
	if (config.transport === 'sse') return connectHttp(config, 'sse', options);
	if (config.transport === 'streamableHttp') return connectHttp(config, 'streamableHttp', options);
	// Auto: the spec's backwards-compatibility rule. Try Streamable HTTP; a 4xx on the initialize
	// POST means an old HTTP+SSE server, so open the SSE stream instead.
	try {
		return await connectHttp(config, 'streamableHttp', options);
	} catch (error) {
		const status = McpFailure.isInstance(error) ? error.httpStatus : httpStatusOf(error);
		if (status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403) {
			return connectHttp(config, 'sse', options);
		}
		throw error;
	}
}

function newStdioTransport(config: StdioServerConfig): ProcessStdioTransport {
	const redactor = redactorForServer(config);
	return new ProcessStdioTransport({
		command: config.command,
		args: config.args,
		env: config.env,
		cwd: config.cwd,
		...(redactor.active ? { redact: redactor.text } : {}),
	});
}

/**
 * The version probe runs in place on our own stdio transport. A 2025-era server that ignores it is
 * found by the probe timeout (the handshake follows on the same pipe); one that exits on it (some
 * SDKs stop on any request before initialize) is started once more and connected with the 2025
 * handshake directly.
 */
async function startStdioSession(config: StdioServerConfig, options: OpenOptions): Promise<LiveSession> {
	assertStdioAllowed();
	if (!config.command) throw new McpFailure('The credential has no command to start. Enter a program such as npx, node or an absolute path.', 'config');
	const first = await connectStdio(config, 'negotiate', options);
	if ('session' in first) return first.session;
	if (!first.diedDuringProbe) throw first.failure;
	const second = await connectStdio(config, 'legacy', options);
	if ('session' in second) return second.session;
	throw second.failure;
}

type StdioAttempt = { session: LiveSession } | { failure: McpFailure; diedDuringProbe: boolean };

async function connectStdio(config: StdioServerConfig, mode: 'negotiate' | 'legacy', options: OpenOptions): Promise<StdioAttempt> {
	const stdio = newStdioTransport(config);
	const { client, legacyInput, events } = newClient(config, options, Math.min(STDIO_PROBE_TIMEOUT_MS, config.connectTimeoutMs));
	try {
		await client.connect(stdio, { timeout: config.connectTimeoutMs, ...(mode === 'legacy' ? { prior: { kind: 'legacy' as const } } : {}) });
	} catch (error) {
		const failure = explainMcpError(error, config, 'connecting', serverOutputOf(stdio), stdio.exitDescription);
		// The process started and then exited while the probe was under way. It may be a server that
		// fails on start anyway (the second attempt then fails the same way, with the same message).
		const diedDuringProbe = mode === 'negotiate' && failure.kind === 'process-exited';
		await client.close().catch(() => undefined);
		await stdio.close();
		return { failure, diedDuringProbe };
	}
	return { session: { client, transport: stdio, stdio, legacyInput, events } };
}

async function connectHttp(config: HttpServerConfig, kind: 'streamableHttp' | 'sse', options: OpenOptions): Promise<LiveSession> {
	let url: URL;
	try {
		url = new URL(config.url);
	} catch {
		throw new McpFailure('The MCP server URL in the credential is not a valid URL (it must start with http:// or https://).', 'config');
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw new McpFailure(`The MCP server URL must use http:// or https:// (got ${url.protocol}).`, 'config');
	}
	const requestInit: RequestInit = { headers: { ...config.headers } };
	// OAuth: the transport asks for a token before each request and hands 401s (and, for an
	// interactive session, 403 insufficient_scope) to the provider; see lib/mcp/oauth.
	const auth = config.auth ? { authProvider: config.auth.provider } : {};
	// The SDK fetches other origins only for OAuth (the authorization servers the server's metadata
	// names, their endpoints, a resource_metadata URL in a 401; redirects it follows only within an
	// origin): those are the server's choice and held to the URL policy. The server's own origin passes untouched.
	const named = serverNamedUrlPolicy(url.href, 'OAuth');
	let transport: Transport;
	if (kind === 'sse') {
		// Its POSTs (and their error bodies, read whole) are held to the answer limit as well as its stream.
		transport = new SSEClientTransport(url, {
			requestInit,
			...auth,
			fetch: limitedFetch(named.fetch()),
			eventSourceInit: { fetch: pacedStreamOpens(limitedFetch(named.guard(headerFetch(config.headers)), MAX_ANSWER_BYTES)) },
		});
	} else {
		// A POST answer the fetch cuts for its size fails its requests at once, not at their timeout.
		let answers: ResultTypeDefaulting | undefined;
		const cut = (ids: Array<string | number>, error: Error) => ids.forEach((id) => answers?.failRequest(id, error.message));
		const streamable = new StreamableHTTPClientTransport(url, {
			requestInit,
			fetch: limitedFetch(named.fetch(), undefined, cut),
			reconnectionScheduler: boundedReconnection,
			...auth,
			...(config.auth ? { onInsufficientScope: config.auth.onInsufficientScope } : {}),
		});
		// OAuth and proxies change requests in ways only fetch and the SDK know about: they keep the SDK path.
		answers = new ResultTypeDefaulting(config.auth || proxyConfigured() ? streamable : new LeanHttpTransport(streamable, url, config.headers));
		transport = answers;
	}
	const { client, legacyInput, events } = newClient(config, options);
	try {
		// HTTP+SSE is the 2024-11-05 transport: no server speaking 2026-07-28 serves it, so skip the probe.
		await client.connect(transport, { timeout: config.connectTimeoutMs, ...(kind === 'sse' ? { prior: { kind: 'legacy' as const } } : {}) });
	} catch (error) {
		await client.close().catch(() => undefined);
		throw explainMcpError(error, config, kind === 'sse' ? 'connecting (legacy SSE)' : 'connecting');
	}
	return { client, transport, legacyInput, events };
}

/** The SSE stream's GET must carry the same auth headers as the POSTs. */
function headerFetch(headers: Record<string, string>) {
	return (input: string | URL | Request, init?: RequestInit) => {
		const merged = new Headers(init?.headers);
		for (const [name, value] of Object.entries(headers)) merged.set(name, value);
		return fetch(input, { ...init, headers: merged });
	};
}

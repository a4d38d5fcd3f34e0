import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { deliverProgressBeforeResponses } from './progressOrdering';
import type { HttpServerConfig, McpServerConfig, StdioServerConfig } from './serverConfig';
import type { ProcessStdioTransport } from './processStdioTransport';
import { explainMcpError, httpStatusOf, McpFailure } from './errors';
import { assertStdioAllowed } from './stdioPolicy';
import { LegacyInputRequests } from './legacyInputRequests';
import { ForwardingTransport } from './forwardingTransport';
import { createMcpTransport } from './transportFactory';
import { PACKAGE_INFO } from '../packageInfo';
import { MAX_LIST_PAGES } from './pageLimit';
import { hasRoots } from './roots';
import { clientCapabilitiesFor } from './clientCapabilities';

/** How this client introduces itself to servers (initialize's clientInfo): the installed release. */
export const CLIENT_INFO = { name: PACKAGE_INFO.name, version: PACKAGE_INFO.version };

/**
 * How long a local server may take to answer the `server/discover` probe before it counts as a
 * 2025-era server that ignores unknown requests (the initialize handshake follows on the same
 * pipe). Bounded by the connect timeout.
 */
const STDIO_PROBE_TIMEOUT_MS = 5_000;

/** A connected client and what it connected through: one session with the server, until it ends. */
export interface LiveSession {
	client: Client;
	transport: Transport;
	stdio?: ProcessStdioTransport;
	legacyInput: LegacyInputRequests;
	/** Set by the connection once it exists: what the session's callbacks report to. */
	events: SessionEvents;
}

/** What a session tells its connection about, after the handshake. */
export interface SessionEvents {
	/** The server said its tool list changed (`notifications/tools/list_changed`). */
	toolsChanged?: () => void;
	/** The transport closed without close() being called (process exit, dropped stream). */
	lost?: () => void;
}

export interface SessionOptions {
	/**
	 * Follow `notifications/tools/list_changed` (on 2026-07-28, through a `subscriptions/listen`
	 * stream when the server offers one). For connections kept between executions, whose cached
	 * tool list must not outlive a change the server announced.
	 */
	watchToolList?: boolean;
}

/**
 * A new session with the server `config` names, handshake done. Every way it can fail leaves as an
 * McpFailure (or an error explainMcpError turns into one, see McpConnection.open).
 */
export async function startSession(config: McpServerConfig, options: SessionOptions): Promise<LiveSession> {
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

/**
 * How long the session's DELETE may take: a server that stopped answering (the one a failed ping
 * just evicted) would otherwise hold the close, and n8n's shutdown with it, until fetch gives up
 * (minutes). Closing the client then aborts the request.
 */
const SESSION_DELETE_GRACE_MS = 2_000;

/** Ends the HTTP session (DELETE, within SESSION_DELETE_GRACE_MS), the client, and the local process tree. */
export async function endSession(session: LiveSession): Promise<void> {
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

/** What the local server wrote that explains a failure: its stderr, and non-JSON lines on stdout. */
export function serverOutputOf(stdio: ProcessStdioTransport): string | undefined {
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

function newClient(config: McpServerConfig, options: SessionOptions, probeTimeoutMs?: number): NewClient {
	const events: SessionEvents = {};
	const client = new Client(CLIENT_INFO, {
		capabilities: clientCapabilitiesFor(config),
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

/**
 * The version probe runs in place on our own stdio transport. A 2025-era server that ignores it is
 * found by the probe timeout (the handshake follows on the same pipe); one that exits on it (some
 * SDKs stop on any request before initialize) is started once more and connected with the 2025
 * handshake directly.
 */
async function startStdioSession(config: StdioServerConfig, options: SessionOptions): Promise<LiveSession> {
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

async function connectStdio(config: StdioServerConfig, mode: 'negotiate' | 'legacy', options: SessionOptions): Promise<StdioAttempt> {
	const { transport: stdio } = createMcpTransport(config);
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
	deliverProgressBeforeResponses(stdio);
	return { session: { client, transport: stdio, stdio, legacyInput, events } };
}

async function connectHttp(config: HttpServerConfig, kind: 'streamableHttp' | 'sse', options: SessionOptions): Promise<LiveSession> {
	const { transport } = createMcpTransport(config, kind);
	const { client, legacyInput, events } = newClient(config, options);
	try {
		// HTTP+SSE is the 2024-11-05 transport: no server speaking 2026-07-28 serves it, so skip the probe.
		await client.connect(transport, { timeout: config.connectTimeoutMs, ...(kind === 'sse' ? { prior: { kind: 'legacy' as const } } : {}) });
	} catch (error) {
		await client.close().catch(() => undefined);
		throw explainMcpError(error, config, kind === 'sse' ? 'connecting (legacy SSE)' : 'connecting');
	}
	deliverProgressBeforeResponses(transport);
	return { client, transport, legacyInput, events };
}

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { HttpServerConfig, McpServerConfig, StdioServerConfig } from './serverConfig';
import { ProcessStdioTransport } from './processStdioTransport';
import { explainMcpError, httpStatusOf, McpFailure } from './errors';
import { assertStdioAllowed } from './stdioPolicy';
import { redactorForServer, type Redactor } from './secrets';

export const CLIENT_INFO = { name: 'n8n-nodes-mcp-agent', version: '0.1.0' };

export interface ServerIdentity {
	name: string;
	version: string;
	title?: string;
}

interface LiveSession {
	client: Client;
	transport: Transport;
	stdio?: ProcessStdioTransport;
	/** Set during initialize; the SDK has no getter, so we listen on the transport. */
	protocolVersion?: string;
}

/** Connects `client` over `transport`, recording the negotiated protocol version. */
async function connectRecordingVersion(client: Client, transport: Transport, timeout: number): Promise<{ protocolVersion?: string }> {
	const seen: { protocolVersion?: string } = {};
	const original = transport.setProtocolVersion?.bind(transport);
	transport.setProtocolVersion = (version: string) => {
		seen.protocolVersion = version;
		original?.(version);
	};
	await client.connect(transport, { timeout });
	return seen;
}

/**
 * One connected MCP client for one server, used for every item of a node execution. `request`
 * wraps each call so failures come back explained, and an expired HTTP session (404 on a request
 * that carried a session id) is re-initialized once before giving up.
 */
export class McpConnection {
	private closed = false;
	/**
	 * Everything a server sends back passes through this (results, listings, its name and
	 * instructions), so a server cannot echo the credential's secrets into node outputs or the
	 * model's context. Inactive, at no cost, when the configuration holds no secrets.
	 */
	private readonly redactor: Redactor;

	private constructor(
		readonly config: McpServerConfig,
		private session: LiveSession,
	) {
		this.redactor = redactorForServer(config);
	}

	static async open(config: McpServerConfig): Promise<McpConnection> {
		let session: LiveSession;
		try {
			session = await startSession(config);
		} catch (error) {
			// Every failure leaves explained and redacted, including ones nothing above expected.
			throw explainMcpError(error, config, 'connecting');
		}
		return new McpConnection(config, session);
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
		return this.session.protocolVersion;
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
		let pending: Promise<T>;
		try {
			pending = run(this.session.client);
		} catch (error) {
			pending = Promise.reject(error);
		}
		const answered = pending.catch((error: unknown) => this.retryOrExplain(error, phase, run));
		const redactor = this.redactor;
		return redactor.active ? answered.then((result) => redactor.value(result)) : answered;
	}

	private async retryOrExplain<T>(error: unknown, phase: string, run: (client: Client) => Promise<T>): Promise<T> {
		if (!this.isExpiredSession(error)) throw this.explain(error, phase);
		await this.reopen();
		try {
			return await run(this.session.client);
		} catch (retryError) {
			throw this.explain(retryError, phase);
		}
	}

	explain(error: unknown, phase: string): McpFailure {
		const stdio = this.session.stdio;
		return explainMcpError(error, this.config, phase, stdio ? serverOutputOf(stdio) : undefined, stdio?.exitDescription);
	}

	/** Ends the HTTP session (DELETE) or the local process tree. Safe to call twice. */
	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		await endSession(this.session);
	}

	private isExpiredSession(error: unknown): boolean {
		return this.config.kind === 'http' && httpStatusOf(error) === 404 && this.session.transport.sessionId !== undefined;
	}

	private async reopen(): Promise<void> {
		const old = this.session;
		this.session = await startSession(this.config);
		await endSession(old).catch(() => undefined);
	}
}

async function endSession(session: LiveSession): Promise<void> {
	const transport = session.transport;
	if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
		await transport.terminateSession().catch(() => undefined);
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

function newClient(): Client {
	return new Client(CLIENT_INFO, { capabilities: {} });
}

async function startSession(config: McpServerConfig): Promise<LiveSession> {
	if (config.kind === 'stdio') return startStdioSession(config);
	if (config.transport === 'sse') return connectHttp(config, 'sse');
	if (config.transport === 'streamableHttp') return connectHttp(config, 'streamableHttp');
	// Auto: the spec's backwards-compatibility rule. Try Streamable HTTP; a 4xx on the initialize
	// POST means an old HTTP+SSE server, so open the SSE stream instead.
	try {
		return await connectHttp(config, 'streamableHttp');
	} catch (error) {
		const status = error instanceof McpFailure ? error.httpStatus : httpStatusOf(error);
		if (status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403) {
			return connectHttp(config, 'sse');
		}
		throw error;
	}
}

async function startStdioSession(config: StdioServerConfig): Promise<LiveSession> {
	assertStdioAllowed();
	if (!config.command) throw new McpFailure('The credential has no command to start. Enter a program such as npx, node or an absolute path.', 'config');
	const redactor = redactorForServer(config);
	const stdio = new ProcessStdioTransport({
		command: config.command,
		args: config.args,
		env: config.env,
		cwd: config.cwd,
		...(redactor.active ? { redact: redactor.text } : {}),
	});
	const client = newClient();
	let seen: { protocolVersion?: string };
	try {
		seen = await connectRecordingVersion(client, stdio, config.connectTimeoutMs);
	} catch (error) {
		const failure = explainMcpError(error, config, 'connecting', serverOutputOf(stdio), stdio.exitDescription);
		await client.close().catch(() => undefined);
		await stdio.close();
		throw failure;
	}
	return { client, transport: stdio, stdio, ...seen };
}

async function connectHttp(config: HttpServerConfig, kind: 'streamableHttp' | 'sse'): Promise<LiveSession> {
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
	const transport: Transport =
		kind === 'sse'
			? new SSEClientTransport(url, { requestInit, eventSourceInit: { fetch: headerFetch(config.headers) } })
			: new StreamableHTTPClientTransport(url, { requestInit });
	const client = newClient();
	let seen: { protocolVersion?: string };
	try {
		seen = await connectRecordingVersion(client, transport, config.connectTimeoutMs);
	} catch (error) {
		await client.close().catch(() => undefined);
		throw explainMcpError(error, config, kind === 'sse' ? 'connecting (legacy SSE)' : 'connecting');
	}
	return { client, transport, ...seen };
}

/** The SSE stream's GET must carry the same auth headers as the POSTs. */
function headerFetch(headers: Record<string, string>) {
	return (input: string | URL | Request, init?: RequestInit) => {
		const merged = new Headers(init?.headers);
		for (const [name, value] of Object.entries(headers)) merged.set(name, value);
		return fetch(input, { ...init, headers: merged });
	};
}

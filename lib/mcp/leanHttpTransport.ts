import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import {
	isJSONRPCErrorResponse,
	isJSONRPCResultResponse,
	parseJSONRPCMessage,
	PROTOCOL_VERSION_META_KEY,
	SdkError,
	SdkErrorCode,
	SdkHttpError,
	type JSONRPCMessage,
	type MessageExtraInfo,
	type StreamableHTTPClientTransport,
	type Transport,
	type TransportSendOptions,
} from '@modelcontextprotocol/client';
import { SseParser } from './sseParser';

/**
 * Streamable HTTP with a lean path for the messages of an established 2025-era session.
 *
 * Why: a kept connection's tool call is one POST, and on a small machine the SDK transport spends
 * about 1-1.5 ms of it in fetch and web streams (request objects, TextDecoderStream and the SSE
 * parser stream, a schema parse per message) around a server round trip of 2-4 ms. For a
 * webhook-triggered execution with one call that is a sixth of the node's time. This transport
 * POSTs those messages with node:http on a keep-alive agent and reads JSON or SSE answers itself.
 *
 * Everything else goes to the SDK transport it wraps, unchanged: the handshake and the GET stream
 * that follows it, batches, messages with per-request headers or a resumption token, 2026-07-28
 * (envelope-carrying) messages, session termination, and any answer that says the message was not
 * processed (redirects, 401, 403), which the SDK handles with its own redirect and auth logic. A
 * stream that ends before the answer, after the server gave a resumption point, is resumed through
 * the SDK (GET with Last-Event-ID) after the server's retry delay. It is only used without OAuth
 * and without proxy settings (see connection.ts), where nothing else would change the request.
 */
export class LeanHttpTransport implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
	private protocolVersion: string | undefined;
	private closed = false;
	private readonly agent: http.Agent;
	private readonly requests = new Set<http.ClientRequest>();
	private readonly resumeTimers = new Set<NodeJS.Timeout>();

	constructor(
		readonly inner: StreamableHTTPClientTransport,
		private readonly url: URL,
		private readonly headers: Record<string, string>,
	) {
		const wrapped: Transport = inner;
		wrapped.onclose = () => this.onclose?.();
		wrapped.onerror = (error) => {
			reportedByInner.add(error);
			this.onerror?.(error);
		};
		wrapped.onmessage = (message, extra) => this.onmessage?.(message, extra);
		this.agent = idleClosingAgent(url.protocol === 'https:');
	}

	get hasPerRequestStream(): boolean | undefined {
		return this.inner.hasPerRequestStream;
	}

	get sessionId(): string | undefined {
		return this.inner.sessionId;
	}

	start(): Promise<void> {
		return this.inner.start();
	}

	setProtocolVersion(version: string): void {
		this.protocolVersion = version;
		this.inner.setProtocolVersion?.(version);
	}

	setSupportedProtocolVersions(versions: string[]): void {
		(this.inner as Transport).setSupportedProtocolVersions?.(versions);
	}

	terminateSession(): Promise<void> {
		return this.inner.terminateSession();
	}

	async close(): Promise<void> {
		this.closed = true;
		for (const timer of this.resumeTimers) clearTimeout(timer);
		this.resumeTimers.clear();
		for (const request of this.requests) request.destroy();
		this.agent.destroy();
		await this.inner.close();
	}

	send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
		if (!this.takesLeanPath(message, options)) return this.inner.send(message, options);
		return this.post(message, options, false).catch((error: unknown) => {
			const reported = typeof error === 'object' && error !== null && reportedByInner.has(error);
			if (!reported && !this.closed && options?.requestSignal?.aborted !== true) this.onerror?.(error as Error);
			throw error;
		});
	}

	private takesLeanPath(message: JSONRPCMessage, options: TransportSendOptions | undefined): boolean {
		if (this.closed || this.protocolVersion === undefined || Array.isArray(message)) return false;
		if (options?.resumptionToken !== undefined || (options?.headers && Object.keys(options.headers).length > 0)) return false;
		const method = (message as { method?: unknown }).method;
		if (method === 'initialize' || method === 'notifications/initialized') return false;
		const meta = (message as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
		return meta?.[PROTOCOL_VERSION_META_KEY] === undefined;
	}

	private requestHeaders(body: string): Record<string, string | number> {
		const out: Record<string, string | number> = {};
		for (const [name, value] of Object.entries(this.headers)) out[name.toLowerCase()] = value;
		const accept = new Set([...(out.accept ? String(out.accept).split(',') : []).map((type) => type.trim().toLowerCase()), 'application/json', 'text/event-stream']);
		accept.delete('');
		out.accept = [...accept].join(', ');
		out['content-type'] = 'application/json';
		out['content-length'] = Buffer.byteLength(body);
		const session = this.inner.sessionId;
		if (session) out['mcp-session-id'] = session;
		if (this.protocolVersion) out['mcp-protocol-version'] = this.protocolVersion;
		return out;
	}

	private post(message: JSONRPCMessage, options: TransportSendOptions | undefined, isRetry: boolean): Promise<void> {
		const body = JSON.stringify(message);
		return new Promise<void>((resolve, reject) => {
			let request: http.ClientRequest;
			try {
				request = (this.url.protocol === 'https:' ? https : http).request(this.url, { method: 'POST', headers: this.requestHeaders(body), agent: this.agent });
			} catch (error) {
				reject(error);
				return;
			}
			this.requests.add(request);
			let answered = false;
			const signal = options?.requestSignal;
			const onAbort = () => request.destroy(signal?.reason instanceof Error ? signal.reason : new Error('The request was aborted'));
			signal?.addEventListener('abort', onAbort, { once: true });
			request.on('close', () => {
				this.requests.delete(request);
				signal?.removeEventListener('abort', onAbort);
			});
			request.on('response', (response) => {
				answered = true;
				this.handleResponse(message, options, response).then(resolve, reject);
			});
			request.on('error', (error: NodeJS.ErrnoException) => {
				if (answered) return;
				// A kept socket the server closed while idle: the request never reached it (Node's documented retry).
				if (!isRetry && request.reusedSocket && error.code === 'ECONNRESET' && !this.closed) {
					resolve(this.post(message, options, true));
					return;
				}
				reject(error);
			});
			if (signal?.aborted) onAbort();
			request.end(body);
		});
	}

	private async handleResponse(message: JSONRPCMessage, options: TransportSendOptions | undefined, response: http.IncomingMessage): Promise<void> {
		const status = response.statusCode ?? 0;
		// Not processed: the SDK follows its redirect policy and runs its auth handling on a resend.
		if ((status >= 300 && status < 400) || status === 401 || status === 403) {
			response.resume();
			return this.inner.send(message, options);
		}
		if (status < 200 || status >= 300) {
			const text = await readText(response);
			throw new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${text}`, { status, statusText: response.statusMessage ?? '', text });
		}
		if (status === 202 || !expectsAnswer(message)) {
			await readText(response);
			return;
		}
		const contentType = response.headers['content-type'];
		const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
		if (mediaType === 'text/event-stream') {
			this.readEventStream(message, options, response);
			return;
		}
		if (mediaType === 'application/json') {
			const data = JSON.parse(await readText(response)) as unknown;
			const messages = (Array.isArray(data) ? data : [data]).map(parseJSONRPCMessage);
			for (const each of messages) this.onmessage?.(each);
			return;
		}
		response.resume();
		throw new SdkError(SdkErrorCode.ClientHttpUnexpectedContent, `Unexpected content type: ${contentType}`, { contentType });
	}

	/** A POST's SSE answer, read as it arrives: the server may send requests and notifications first. */
	private readEventStream(message: JSONRPCMessage, options: TransportSendOptions | undefined, response: http.IncomingMessage): void {
		const decoder = new StringDecoder('utf8');
		let lastEventId: string | undefined;
		let retryMs: number | undefined;
		let answered = false;
		let ended = false;
		const parser = new SseParser({
			onEvent: (event) => {
				if (event.id) {
					lastEventId = event.id;
					options?.onresumptiontoken?.(event.id);
				}
				if (!event.data || (event.event && event.event !== 'message')) return;
				let parsed: JSONRPCMessage;
				try {
					parsed = parseJSONRPCMessage(JSON.parse(event.data));
				} catch (error) {
					this.onerror?.(error as Error);
					return;
				}
				if (isJSONRPCResultResponse(parsed) || isJSONRPCErrorResponse(parsed)) answered = true;
				this.onmessage?.(parsed);
			},
			onRetry: (ms) => (retryMs = ms),
		});
		const finish = (error?: Error) => {
			if (ended) return;
			ended = true;
			parser.end();
			const intentional = this.closed || options?.requestSignal?.aborted === true;
			if (intentional) return;
			if (error) this.onerror?.(new Error(`SSE stream disconnected: ${error}`));
			if (!answered && lastEventId !== undefined) this.resumeLater(message, options, lastEventId, retryMs);
			else options?.onRequestStreamEnd?.();
		};
		response.on('data', (chunk: Buffer) => parser.push(decoder.write(chunk)));
		response.on('end', () => {
			parser.push(decoder.end());
			finish();
		});
		response.on('error', (error) => finish(error));
		response.on('close', () => finish(response.complete ? undefined : new Error('the connection closed')));
	}

	/** As the SDK does: wait the server's retry delay (or its first reconnection delay), then GET with Last-Event-ID. */
	private resumeLater(message: JSONRPCMessage, options: TransportSendOptions | undefined, lastEventId: string, retryMs: number | undefined): void {
		const timer = setTimeout(() => {
			this.resumeTimers.delete(timer);
			if (this.closed) return;
			this.inner
				.send(message, { resumptionToken: lastEventId, onresumptiontoken: options?.onresumptiontoken, requestSignal: options?.requestSignal })
				.catch((error: unknown) => this.onerror?.(error as Error));
		}, retryMs ?? FIRST_RECONNECTION_DELAY_MS);
		timer.unref();
		this.resumeTimers.add(timer);
	}
}

/** Errors the SDK transport already reported through onerror (a message handed back to it failed there). */
const reportedByInner = new WeakSet<object>();

/** The SDK's first reconnection delay when the server gave no retry field. */
const FIRST_RECONNECTION_DELAY_MS = 1000;
/** Idle kept sockets close before a typical server's keep-alive timeout (Node's default: 5 s) ends them under a request. */
const IDLE_SOCKET_MS = 4000;

function idleClosingAgent(secure: boolean): http.Agent {
	const agent: http.Agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
	// Node's agent destroys a free socket whose timeout fires; a reused one must not inherit it.
	const keep = agent.keepSocketAlive.bind(agent) as (socket: Duplex) => boolean;
	const reuse = agent.reuseSocket.bind(agent);
	Object.assign(agent, {
		keepSocketAlive(socket: Duplex & { setTimeout(ms: number): void }): boolean {
			const kept = keep(socket);
			if (kept) socket.setTimeout(IDLE_SOCKET_MS);
			return kept;
		},
		reuseSocket(socket: Duplex & { setTimeout(ms: number): void }, request: http.ClientRequest): void {
			socket.setTimeout(0);
			reuse(socket, request);
		},
	});
	return agent;
}

function readText(response: http.IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		response.on('data', (chunk: Buffer) => chunks.push(chunk));
		response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		response.on('error', reject);
		// A connection cut in the middle of the body: settled either way (after 'end' this changes nothing).
		response.on('close', () => reject(new Error('The connection closed before the answer was complete')));
	});
}

/** A request (method and id), as the SDK decides whether a POST's body carries its answer. */
function expectsAnswer(message: JSONRPCMessage): boolean {
	return 'method' in message && 'id' in message && message.id !== undefined;
}

import http from 'node:http';
import https from 'node:https';
import { pipeline, type Duplex, type Readable } from 'node:stream';
import { contentDecoder } from './contentCoding';
import {
	parseJSONRPCMessage,
	PROTOCOL_VERSION_META_KEY,
	SdkError,
	SdkErrorCode,
	SdkHttpError,
	type JSONRPCMessage,
	type StreamableHTTPClientTransport,
	type TransportSendOptions,
} from '@modelcontextprotocol/client';
import { ForwardingTransport } from './forwardingTransport';
import { readEventStream, type EventStreamEnd } from './eventStreamReader';
import { boundedReopenDelay } from './streamReconnect';
import { AnswerTooLarge, MAX_ANSWER_BYTES } from './streamLimits';

import { McpAgentError } from '../errors';
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
 * processed (redirects, 401, 403), which the SDK handles with its own redirect and auth logic. An
 * SSE answer that ends before the response, after the server gave a resumption point, is resumed
 * here (GET with Last-Event-ID) with the SDK's delays and retries. A POST is never sent twice. It
 * is only used without OAuth and without proxy settings (see connection.ts), where nothing else
 * would change the request.
 */
export class LeanHttpTransport extends ForwardingTransport<StreamableHTTPClientTransport> {
	private protocolVersion: string | undefined;
	private closed = false;
	private readonly agent: http.Agent;
	/** Where every request goes, with the kept-alive agent: worked out once, not from the URL on each request. */
	private readonly target: http.RequestOptions;
	private readonly client: typeof http | typeof https;
	private readonly requests = new Set<http.ClientRequest>();
	/** Each request's POST while its answer is awaited, by JSON-RPC id: cut when the call is cancelled. */
	private readonly answering = new Map<string | number, http.ClientRequest>();
	/** Ids of calls the client gave up on (timeout, abort): their streams end without a word. */
	private readonly cancelled = new Set<string | number>();
	/** Resumptions waiting for their delay, by the request's id. */
	private readonly resuming = new Map<string | number, NodeJS.Timeout>();
	private readonly resumeTimers = new Set<NodeJS.Timeout>();
	/** The credential's headers, names lower-cased. */
	private readonly credentialHeaders: Record<string, string> = {};
	private readonly postAccept: string;
	private readonly streamAccept: string;

	constructor(
		inner: StreamableHTTPClientTransport,
		url: URL,
		headers: Record<string, string>,
	) {
		super(inner);
		const secure = url.protocol === 'https:';
		this.agent = idleClosingAgent(secure);
		this.client = secure ? https : http;
		this.target = { ...requestTarget(url), agent: this.agent };
		// The credential's part of every request, worked out once per connection, not per call.
		for (const [name, value] of Object.entries(headers)) this.credentialHeaders[name.toLowerCase()] = value;
		const accepted = (this.credentialHeaders.accept ?? '').split(',').map((type) => type.trim().toLowerCase());
		const acceptWith = (types: string[]) => [...new Set([...accepted, ...types])].filter(Boolean).join(', ');
		this.postAccept = acceptWith(['application/json', 'text/event-stream']);
		this.streamAccept = acceptWith(['text/event-stream']);
	}

	protected override fromInnerError(error: Error): void {
		reportedByInner.add(error);
		super.fromInnerError(error);
	}

	override setProtocolVersion(version: string): void {
		this.protocolVersion = version;
		super.setProtocolVersion(version);
	}

	override async close(): Promise<void> {
		this.closed = true;
		for (const timer of this.resumeTimers) clearTimeout(timer);
		this.resumeTimers.clear();
		this.resuming.clear();
		for (const request of this.requests) request.destroy();
		this.agent.destroy();
		await super.close();
	}

	override send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
		this.cutCancelled(message);
		if (!this.takesLeanPath(message, options)) return super.send(message, options);
		return this.post(message, options).catch((error: unknown) => {
			const reported = typeof error === 'object' && error !== null && reportedByInner.has(error);
			if (!reported && !this.given(message, options)) this.onerror?.(error as Error);
			throw error;
		});
	}

	/** Closed, or the request's own signal aborted: whatever fails then was asked for, not reported. */
	private stopped(options: TransportSendOptions | undefined): boolean {
		return this.closed || options?.requestSignal?.aborted === true;
	}

	/** stopped(), or the call this message asked for was cancelled by the client. */
	private given(message: JSONRPCMessage, options: TransportSendOptions | undefined): boolean {
		return this.stopped(options) || ('id' in message && message.id !== undefined && this.cancelled.has(message.id));
	}

	/**
	 * On a 2025-era session the client cancels a call (its timeout, an aborted execution) with
	 * `notifications/cancelled` and gives the request no signal: the POST still reading its answer
	 * is cut here, so a server that keeps streaming cannot hold a socket and a growing buffer on a
	 * kept connection after the call is over.
	 */
	private cutCancelled(message: JSONRPCMessage): void {
		if ((message as { method?: unknown }).method !== 'notifications/cancelled') return;
		const id = (message as { params?: { requestId?: unknown } }).params?.requestId;
		if (typeof id !== 'string' && typeof id !== 'number') return;
		const waiting = this.resuming.get(id);
		if (waiting) {
			clearTimeout(waiting);
			this.resumeTimers.delete(waiting);
			this.resuming.delete(id);
		}
		const request = this.answering.get(id);
		if (!request) return;
		this.cancelled.add(id);
		request.destroy();
	}

	private takesLeanPath(message: JSONRPCMessage, options: TransportSendOptions | undefined): boolean {
		if (this.closed || this.protocolVersion === undefined || Array.isArray(message)) return false;
		if (options?.resumptionToken !== undefined || (options?.headers && Object.keys(options.headers).length > 0)) return false;
		const method = (message as { method?: unknown }).method;
		if (method === 'initialize' || method === 'notifications/initialized') return false;
		const meta = (message as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
		return meta?.[PROTOCOL_VERSION_META_KEY] === undefined;
	}

	/** The credential's headers, the session's, and Accept (the credential's types with ours added). */
	private baseHeaders(accept: 'post' | 'stream'): Record<string, string> {
		const out: Record<string, string> = { ...this.credentialHeaders, accept: accept === 'post' ? this.postAccept : this.streamAccept };
		const session = this.inner.sessionId;
		if (session) out['mcp-session-id'] = session;
		if (this.protocolVersion) out['mcp-protocol-version'] = this.protocolVersion;
		return out;
	}

	/** A request on the kept-alive agent, tracked until it closes and cut by the request's signal. */
	private open(method: 'POST' | 'GET', headers: Record<string, string | number>, options: TransportSendOptions | undefined): http.ClientRequest {
		const request = this.client.request({ ...this.target, method, headers });
		this.requests.add(request);
		const signal = options?.requestSignal;
		const onAbort = () => request.destroy(signal?.reason instanceof Error ? signal.reason : new McpAgentError('The request was aborted', { code: 'cancelled' }));
		signal?.addEventListener('abort', onAbort, { once: true });
		request.on('close', () => {
			this.requests.delete(request);
			signal?.removeEventListener('abort', onAbort);
		});
		if (signal?.aborted) onAbort();
		return request;
	}

	/**
	 * Sent once, never again: a POST that failed on its way (even on a kept socket that turned out to
	 * be closed) may have reached the server, and a tool call must not run twice. Idle sockets the
	 * server closes are dropped as soon as it does (idleClosingAgent), which leaves only the race of
	 * a close crossing a request, as with fetch.
	 */
	private post(message: JSONRPCMessage, options: TransportSendOptions | undefined): Promise<void> {
		const body = JSON.stringify(message);
		return new Promise<void>((resolve, reject) => {
			let request: http.ClientRequest;
			try {
				const headers: Record<string, string | number> = this.baseHeaders('post');
				headers['content-type'] = 'application/json';
				headers['content-length'] = Buffer.byteLength(body);
				request = this.open('POST', headers, options);
			} catch (error) {
				reject(error);
				return;
			}
			if (expectsAnswer(message)) this.trackAnswering((message as { id: string | number }).id, request);
			let answered = false;
			request.on('response', (response) => {
				answered = true;
				this.handleResponse(message, options, response).then(resolve, reject);
			});
			request.on('error', (error) => {
				if (!answered) reject(error);
			});
			request.end(body);
		});
	}

	private async handleResponse(message: JSONRPCMessage, options: TransportSendOptions | undefined, response: http.IncomingMessage): Promise<void> {
		const status = response.statusCode ?? 0;
		// Not processed: the SDK follows its redirect policy on a resend. (A 401 or 403 is not resent:
		// this path carries no OAuth, so the SDK would only fail the same way, as below.)
		if (status >= 300 && status < 400) {
			response.resume();
			return this.inner.send(message, options);
		}
		// As the SDK: a body that cannot be read leaves the status to speak (a 404 still re-initializes).
		if (status < 200 || status >= 300) {
			const text = await readText(response).catch(() => '');
			throw new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${text}`, { status, statusText: response.statusMessage ?? '', text });
		}
		if (status === 202 || !expectsAnswer(message)) {
			await readText(response).catch(() => undefined);
			return;
		}
		const contentType = response.headers['content-type'];
		const mediaType = mediaTypeOf(response);
		if (mediaType === 'text/event-stream') {
			this.readEventStream(message, options, bodyOrDrain(response));
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

	/**
	 * An SSE answer, read as it arrives (eventStreamReader.ts): a POST's, or a resumed one
	 * (`resumed`: its responses take the request's id, as the SDK does on a replayed stream). When it
	 * ends without the answer it is resumed from the server's last event id, or the request fails.
	 */
	private readEventStream(message: JSONRPCMessage, options: TransportSendOptions | undefined, body: Readable, resumed?: ResumePoint): void {
		readEventStream(
			body,
			{
				onMessage: (parsed) => this.onmessage?.(parsed),
				onError: (error) => this.onerror?.(error),
				onEventId: (id) => options?.onresumptiontoken?.(id),
				onEnd: (end) => this.streamEnded(message, options, end, resumed),
			},
			{
				maxEventChars: MAX_ANSWER_BYTES,
				tooLarge: () => new AnswerTooLarge("An event of the server's answer", MAX_ANSWER_BYTES),
				...(resumed ? { resumedFrom: resumed } : {}),
				...(resumed && 'id' in message ? { answerId: message.id } : {}),
			},
		);
	}

	private streamEnded(message: JSONRPCMessage, options: TransportSendOptions | undefined, end: EventStreamEnd, resumed: ResumePoint | undefined): void {
		const { answered, lastEventId, retryMs, error } = end;
		if (this.given(message, options) || end.cutAfterAnswer) return;
		// Resuming would replay the same event: the call fails now, saying why.
		if (error instanceof AnswerTooLarge) {
			if (!answered && expectsAnswer(message)) this.failWith(message, error.message);
			return;
		}
		if (error) this.onerror?.(exchangeFailed(`SSE stream disconnected: ${error}`));
		if (!answered && lastEventId !== undefined) this.resume(message, options, { lastEventId, retryMs }, 0);
		else {
			options?.onRequestStreamEnd?.();
			// The answer can come on no other stream (the spec keeps a request's answer on its own
			// stream): the call fails now instead of waiting for its timeout.
			if (!answered && !resumed && expectsAnswer(message)) this.failUnanswered(message, error);
		}
	}

	/** Ends a request whose answer stream closed without the answer and without a point to resume from. */
	private failUnanswered(message: JSONRPCMessage, cause?: Error): void {
		const why = cause ? `the stream broke (${cause.message})` : 'the server closed it';
		this.failWith(message, `No answer: the answer's event stream ended before the answer arrived (${why}), and the server gave no point to resume from`);
	}

	/** The request's answer, as an error the client hands to the waiting call. */
	private failWith(message: JSONRPCMessage, text: string): void {
		const id = (message as { id: string | number }).id;
		this.onmessage?.({ jsonrpc: '2.0', id, error: { code: -32603, message: text } } as JSONRPCMessage);
	}

	/** A request's POST, cut by cutCancelled while its answer is awaited; forgotten once it closes. */
	private trackAnswering(id: string | number, request: http.ClientRequest): void {
		this.answering.set(id, request);
		request.on('close', () => {
			if (this.answering.get(id) === request) this.answering.delete(id);
			// Only a cancelled call's id is held, until after the stream's own close handlers look it up:
			// no timer on every request.
			if (this.cancelled.has(id)) setTimeout(() => this.cancelled.delete(id), 0);
		});
	}

	/**
	 * A stream that ended before its answer, after the server gave a resumption point: GET it again
	 * with Last-Event-ID after the server's retry delay (held within the bounds of streamReconnect.ts)
	 * or the SDK's backoff, at most MAX_RESUME_ATTEMPTS failed attempts in a row, as the SDK does.
	 */
	private resume(message: JSONRPCMessage, options: TransportSendOptions | undefined, point: ResumePoint, attempt: number): void {
		if (attempt >= MAX_RESUME_ATTEMPTS) {
			this.onerror?.(exchangeFailed(`Maximum reconnection attempts (${MAX_RESUME_ATTEMPTS}) exceeded.`));
			options?.onRequestStreamEnd?.();
			return;
		}
		const delay = point.retryMs !== undefined ? boundedReopenDelay(point.retryMs) : Math.min(FIRST_RECONNECTION_DELAY_MS * 1.5 ** attempt, MAX_RECONNECTION_DELAY_MS);
		const id = expectsAnswer(message) ? (message as { id: string | number }).id : undefined;
		const timer = setTimeout(() => {
			this.resumeTimers.delete(timer);
			if (id !== undefined) this.resuming.delete(id);
			if (this.given(message, options)) return;
			this.getResumed(message, options, point).catch((error: unknown) => {
				if (this.given(message, options)) return;
				this.onerror?.(exchangeFailed(`Failed to reconnect SSE stream: ${error instanceof Error ? error.message : String(error)}`));
				this.resume(message, options, point, attempt + 1);
			});
		}, delay);
		timer.unref();
		this.resumeTimers.add(timer);
		if (id !== undefined) this.resuming.set(id, timer);
	}

	private getResumed(message: JSONRPCMessage, options: TransportSendOptions | undefined, point: ResumePoint): Promise<void> {
		return new Promise<void>((resolve, reject) => {
			let request: http.ClientRequest;
			try {
				request = this.open('GET', { ...this.baseHeaders('stream'), 'last-event-id': point.lastEventId }, options);
			} catch (error) {
				reject(error);
				return;
			}
			if (expectsAnswer(message)) this.trackAnswering((message as { id: string | number }).id, request);
			request.on('response', (response) => {
				const status = response.statusCode ?? 0;
				if (status !== 200 || mediaTypeOf(response) !== 'text/event-stream') {
					response.resume();
					const reason = status === 200 ? `Unexpected content type: ${response.headers['content-type']}` : response.statusMessage ?? `HTTP ${status}`;
					reject(new SdkHttpError(SdkErrorCode.ClientHttpFailedToOpenStream, `Failed to open SSE stream: ${reason}`, { status, statusText: response.statusMessage ?? '' }));
					return;
				}
				let body: Readable;
				try {
					body = bodyOrDrain(response);
				} catch (error) {
					reject(error);
					return;
				}
				resolve();
				this.readEventStream(message, options, body, point);
			});
			request.on('error', reject);
			request.end();
		});
	}
}

interface ResumePoint {
	lastEventId: string;
	retryMs?: number;
}

/** node:http's options for a URL, as its own conversion of a URL argument makes them (brackets off an IPv6 host). */
function requestTarget(url: URL): http.RequestOptions {
	const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
	const auth = url.username || url.password ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined;
	return { protocol: url.protocol, hostname, ...(url.port ? { port: Number(url.port) } : {}), path: `${url.pathname}${url.search}`, ...(auth ? { auth } : {}) };
}

/** Proxy settings in the environment (Node's fetch may honour them; node:http would not): then the SDK path only. */
export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
	return Object.keys(env).some((name) => /^(?:https?|all)_proxy$/i.test(name) && Boolean(env[name]));
}

/**
 * What the transport fails with: the SDK client hands it on, and McpConnection explains it (server,
 * phase) with its advice kept.
 */
function exchangeFailed(message: string, description?: string): McpAgentError {
	return new McpAgentError(message, { code: 'remote', ...(description !== undefined ? { description } : {}) });
}

/** Errors the SDK transport already reported through onerror (a message handed back to it failed there). */
const reportedByInner = new WeakSet<object>();

/** The SDK transport's reconnection defaults: first delay, growth 1.5, cap, failed attempts in a row. */
const FIRST_RECONNECTION_DELAY_MS = 1000;
const MAX_RECONNECTION_DELAY_MS = 30_000;
const MAX_RESUME_ATTEMPTS = 2;
/** Idle kept sockets close before a typical server's keep-alive timeout (Node's default: 5 s) ends them under a request. */
const IDLE_SOCKET_MS = 4000;

/**
 * A keep-alive agent whose idle sockets close before a typical server's keep-alive timeout (Node's
 * default: 5 s) ends them, and are dropped at once when the server closes them first: Node's agent
 * does not read an idle socket, so it would only learn of the close by writing the next request
 * into it.
 */
function idleClosingAgent(secure: boolean): http.Agent {
	const agent: http.Agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
	const keep = agent.keepSocketAlive.bind(agent) as (socket: Duplex) => boolean;
	const reuse = agent.reuseSocket.bind(agent);
	const dropOnEnd = new WeakMap<Duplex, () => void>();
	Object.assign(agent, {
		keepSocketAlive(socket: KeptSocket): boolean {
			const kept = keep(socket);
			if (!kept) return false;
			// Node's agent destroys a free socket whose timeout fires (a shorter one from the server's
			// Keep-Alive hint stays).
			const current = socket.timeout;
			if (!current || current > IDLE_SOCKET_MS) socket.setTimeout(IDLE_SOCKET_MS);
			const drop = () => socket.destroy();
			dropOnEnd.set(socket, drop);
			socket.once('end', drop);
			// Reading is what lets 'end' arrive; an idle HTTP/1.1 connection carries nothing else.
			socket.resume();
			return true;
		},
		reuseSocket(socket: KeptSocket, request: http.ClientRequest): void {
			const drop = dropOnEnd.get(socket);
			if (drop) socket.removeListener('end', drop);
			socket.setTimeout(0);
			reuse(socket, request);
		},
	});
	return agent;
}

type KeptSocket = Duplex & { setTimeout(ms: number): void; readonly timeout?: number };

/** The Content-Type without its parameters, lower-cased. */
function mediaTypeOf(response: http.IncomingMessage): string {
	return (response.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

function readText(response: http.IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		// A coding that cannot be decoded throws here, in the executor: the promise rejects with it.
		const body = bodyOrDrain(response);
		const chunks: Buffer[] = [];
		let bytes = 0;
		let ended = false;
		body.on('data', (chunk: Buffer) => {
			bytes += chunk.length;
			if (bytes <= MAX_ANSWER_BYTES) chunks.push(chunk);
			else {
				// Settled now (the error wins over the close that follows); reading stops.
				reject(new AnswerTooLarge("The server's answer", MAX_ANSWER_BYTES));
				body.destroy();
			}
		});
		body.on('end', () => {
			ended = true;
			// Inside the stream's listener: a body too large for a string (over 512 MiB) must reject,
			// not throw where nothing catches it.
			try {
				resolve(Buffer.concat(chunks).toString('utf8'));
			} catch (error) {
				reject(error);
			}
		});
		body.on('error', reject);
		// A connection cut in the middle of the body: settled either way.
		body.on('close', () => {
			if (!ended) reject(exchangeFailed('The connection closed before the answer was complete'));
		});
	});
}

/** decodedBody, or (for a coding it cannot read) the answer drained and the error thrown. */
function bodyOrDrain(response: http.IncomingMessage): Readable {
	try {
		return decodedBody(response);
	} catch (error) {
		response.resume();
		throw error;
	}
}

/**
 * The body as sent before any content coding: fetch undoes gzip, deflate and br by itself, and a
 * server may compress (when the credential's headers ask for it, or unasked).
 */
function decodedBody(response: http.IncomingMessage): Readable {
	const coding = String(response.headers['content-encoding'] ?? '').trim().toLowerCase();
	if (coding === '' || coding === 'identity') return response;
	const decoder = contentDecoder(coding);
	if (!decoder) {
		throw exchangeFailed(
			`The server answered with a content coding this client cannot read (${coding})`,
			'n8n reads gzip, deflate and br. Remove any Accept-Encoding header from the credential\'s headers, or configure the server (or the proxy in front of it) not to use this coding.',
		);
	}
	pipeline(response, decoder, () => undefined);
	return decoder;
}

/** A request (method and id), as the SDK decides whether a POST's body carries its answer. */
function expectsAnswer(message: JSONRPCMessage): boolean {
	return 'method' in message && 'id' in message && message.id !== undefined;
}

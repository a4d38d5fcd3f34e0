import http from 'node:http';
import { once } from 'node:events';
import { StreamableHTTPClientTransport, type Transport, type TransportSendOptions } from '@modelcontextprotocol/client';
import { McpConnection } from '../../lib/mcp/connection';
import { McpFailure } from '../../lib/mcp/errors';
import { LeanHttpTransport } from '../../lib/mcp/leanHttpTransport';
import { listAllTools } from '../../lib/mcp/listing';
import type { McpAuth } from '../../lib/mcp/oauth/types';
import { ResultTypeDefaulting } from '../../lib/mcp/resultTypeDefault';
import type { HttpServerConfig } from '../../lib/mcp/serverConfig';
import { callToolValidated } from '../../lib/mcp/toolCall';
import { extractToolResult } from '../../lib/tools/callResult';
import { httpConfig, startEverythingHttp, startSelfAnnouncingHttpFixture, type RunningServer } from '../support/servers';

/**
 * lib/mcp/leanHttpTransport.ts through McpConnection, the way the nodes use it: once the SDK has
 * done the handshake, requests are POSTed with node:http and their JSON or SSE answers read by our
 * own code; redirects, resumption, OAuth and proxies stay with the SDK. The servers are real SDK
 * servers on loopback ports: server-everything, and test/fixtures/lean-http-server.js, which
 * records what reached it (headers, counts, sockets) and can misbehave in the ways tested here.
 *
 * Which path a message took is seen from both ends: every node:http request this process makes is
 * recorded (the SDK's own requests go through fetch, never node:http), and the SDK transport's
 * send is spied on.
 */

// ---------------------------------------------------------------------------------------------
// What went through node:http (the lean path).

interface LeanPost {
	url: string;
	method: string;
	message: { method?: string; params?: { name?: string; arguments?: Record<string, unknown> } };
}

let leanPosts: LeanPost[] = [];
let requestSpy: jest.SpyInstance | undefined;

function recordNodeHttpRequests(): void {
	const original = http.request.bind(http) as (...args: unknown[]) => http.ClientRequest;
	requestSpy = jest.spyOn(http, 'request').mockImplementation(((...args: unknown[]) => {
		const request = original(...args);
		// request(url, options) or request(options): the lean transport passes one options object.
		const options = (args.find((arg) => typeof arg === 'object' && arg !== null && !(arg instanceof URL)) ?? {}) as http.RequestOptions;
		const url = typeof args[0] === 'string' || args[0] instanceof URL ? String(args[0]) : `${options.protocol}//${options.hostname}:${options.port}${options.path}`;
		const end = request.end.bind(request) as (...endArgs: unknown[]) => http.ClientRequest;
		// The lean transport writes each message whole with end(body).
		request.end = ((...endArgs: unknown[]) => {
			if (typeof endArgs[0] === 'string') leanPosts.push({ url, method: options.method ?? 'GET', message: JSON.parse(endArgs[0]) as LeanPost['message'] });
			return end(...endArgs);
		}) as typeof request.end;
		return request;
	}) as unknown as typeof http.request);
}

const leanCallsOf = (tool: string) => leanPosts.filter((post) => post.message.method === 'tools/call' && post.message.params?.name === tool);

// ---------------------------------------------------------------------------------------------
// Servers, connections and their clean-up.

/** Proxy variables switch the lean path off; the tests that want it must not inherit any. */
const PROXY_VARIABLE = /^(?:https?|all)_proxy$/i;
const savedProxyEnv: Record<string, string | undefined> = {};

beforeAll(() => {
	for (const name of Object.keys(process.env).filter((key) => PROXY_VARIABLE.test(key))) {
		savedProxyEnv[name] = process.env[name];
		delete process.env[name];
	}
});

afterAll(() => {
	for (const [name, value] of Object.entries(savedProxyEnv)) if (value !== undefined) process.env[name] = value;
});

let servers: RunningServer[] = [];
let connections: McpConnection[] = [];

beforeEach(() => {
	leanPosts = [];
	servers = [];
	connections = [];
	recordNodeHttpRequests();
});

afterEach(async () => {
	await Promise.all(connections.map((connection) => connection.close()));
	requestSpy?.mockRestore();
	await Promise.all(servers.map((server) => server.stop()));
});

async function open(config: HttpServerConfig): Promise<McpConnection> {
	const connection = await McpConnection.open(config);
	connections.push(connection);
	return connection;
}

/** The transport McpConnection connected through (under the resultType wrapper). */
function transportOf(connection: McpConnection): Transport {
	const transport = (connection as unknown as { session: { transport: Transport } }).session.transport;
	expect(transport).toBeInstanceOf(ResultTypeDefaulting);
	return (transport as ResultTypeDefaulting).inner;
}

function leanOf(connection: McpConnection): LeanHttpTransport {
	const transport = transportOf(connection);
	expect(transport).toBeInstanceOf(LeanHttpTransport);
	return transport as LeanHttpTransport;
}

interface SdkSend {
	message: Parameters<StreamableHTTPClientTransport['send']>[0];
	options?: TransportSendOptions;
}

/** Every message the SDK transport was asked to send, with its options. */
function spyOnSdkSends(lean: LeanHttpTransport): SdkSend[] {
	const sends: SdkSend[] = [];
	const inner = lean.inner as StreamableHTTPClientTransport;
	const send = inner.send.bind(inner);
	jest.spyOn(inner, 'send').mockImplementation((message, options) => {
		sends.push({ message, options });
		return send(message, options);
	});
	return sends;
}

const toolCallsIn = (sends: SdkSend[]) => sends.filter((send) => !Array.isArray(send.message) && (send.message as { method?: string }).method === 'tools/call');

async function call(connection: McpConnection, name: string, args: Record<string, unknown> = {}): Promise<string> {
	const tool = (await listAllTools(connection)).find((t) => t.name === name);
	if (!tool) throw new Error(`the server has no tool ${name}`);
	return extractToolResult(name, await callToolValidated(connection, tool, args)).json.text;
}

/** The McpFailure a promise rejects with (fails the test when it resolves or throws something else). */
async function failureOf(promise: Promise<unknown>): Promise<McpFailure> {
	const caught = await promise.then(
		() => undefined,
		(error: unknown) => error,
	);
	expect(caught).toBeInstanceOf(McpFailure);
	return caught as McpFailure;
}

// ---------------------------------------------------------------------------------------------
// test/fixtures/lean-http-server.js and what it recorded.

interface FixtureRequest {
	method: string;
	path: string;
	methods: string[];
	tool?: string;
	headers: Record<string, string | undefined>;
	socket: number;
	reused: boolean;
	dropped?: boolean;
}

interface EndlessAnswer {
	tool: string;
	bytes: number;
	finished: boolean;
	closed: boolean;
}

interface FixtureStats {
	endless: EndlessAnswer[];
	requests: FixtureRequest[];
	executions: Record<string, number>;
	primingIds: string[];
	dropped: number;
	slowEnded: string[];
	openSockets: number;
}

async function startLean(env: Record<string, string> = {}): Promise<RunningServer> {
	const server = await startSelfAnnouncingHttpFixture('lean-http-server.js', [], env);
	servers.push(server);
	return server;
}

const baseOf = (server: RunningServer) => `http://127.0.0.1:${server.port}`;

async function statsOf(server: RunningServer): Promise<FixtureStats> {
	const response = await fetch(`${baseOf(server)}/stats`);
	return (await response.json()) as FixtureStats;
}

/** Resolves once the fixture reports the event; the deadline only turns a hang into a clear failure. */
async function until(server: RunningServer, event: 'slow-started' | 'tool-sockets-closed'): Promise<void> {
	const response = await fetch(`${baseOf(server)}/until?event=${event}`, { signal: AbortSignal.timeout(20_000) });
	expect(response.status).toBe(200);
	await response.text();
}

const toolPosts = (stats: FixtureStats, tool: string) => stats.requests.filter((request) => request.method === 'POST' && request.tool === tool);

// ---------------------------------------------------------------------------------------------

describe('server-everything over Streamable HTTP', () => {
	it('lists and calls echo through node:http, one call at a time and several at once', async () => {
		const server = await startEverythingHttp();
		servers.push(server);
		const connection = await open(httpConfig(server.url));
		const sdkSends = spyOnSdkSends(leanOf(connection));

		const names = (await listAllTools(connection)).map((tool) => tool.name);
		expect(names).toContain('echo');
		for (const message of ['one', 'two', 'three']) expect(await call(connection, 'echo', { message })).toBe(`Echo: ${message}`);
		const together = ['a', 'b', 'c', 'd', 'e'];
		expect(await Promise.all(together.map((message) => call(connection, 'echo', { message })))).toEqual(together.map((message) => `Echo: ${message}`));

		// Every call was a POST of our own to the server's URL, each exactly once; none went to the SDK.
		const echoes = leanCallsOf('echo');
		expect(echoes.map((post) => post.message.params?.arguments?.message).sort()).toEqual(['one', 'two', 'three', ...together].sort());
		expect(new Set(echoes.map((post) => `${post.method} ${post.url}`))).toEqual(new Set([`POST ${server.url}`]));
		expect(leanPosts.some((post) => post.message.method === 'tools/list')).toBe(true);
		expect(toolCallsIn(sdkSends)).toEqual([]);
	});
});

describe('lean-http-server fixture', () => {
	it('reads JSON answers (enableJsonResponse), sequential and concurrent', async () => {
		const server = await startLean({ LEAN_RESPONSE: 'json' });
		const connection = await open(httpConfig(server.url));
		const sdkSends = spyOnSdkSends(leanOf(connection));

		expect(await call(connection, 'echo', { message: 'first' })).toBe('echo: first');
		const many = ['p', 'q', 'r', 's'];
		expect(await Promise.all(many.map((message) => call(connection, 'echo', { message })))).toEqual(many.map((message) => `echo: ${message}`));

		const stats = await statsOf(server);
		expect(stats.executions.echo).toBe(5);
		expect(toolPosts(stats, 'echo')).toHaveLength(5);
		expect(leanCallsOf('echo')).toHaveLength(5);
		expect(toolCallsIn(sdkSends)).toEqual([]);
		// The answers really were JSON: the SSE mode's event store wrote no priming event.
		expect(stats.primingIds).toEqual([]);
	});

	it('sends the credential headers with the session id and protocol version on every lean POST, merging a credential Accept', async () => {
		const server = await startLean();
		const connection = await open(httpConfig(server.url, { headers: { 'X-Api-Key': 'key-123', Accept: 'application/x-ndjson' } }));
		const lean = leanOf(connection);

		expect(await call(connection, 'echo', { message: 'with headers' })).toBe('echo: with headers');
		expect(await call(connection, 'echo', { message: 'again' })).toBe('echo: again');

		const stats = await statsOf(server);
		const toolRequests = stats.requests.filter((request) => request.methods.some((method) => method.startsWith('tools/')));
		// These are exactly the lean POSTs (tools/list per call, then tools/call).
		expect(toolRequests).toHaveLength(leanPosts.length);
		expect(toolRequests.length).toBeGreaterThanOrEqual(3);
		for (const request of toolRequests) {
			expect(request.headers['x-api-key']).toBe('key-123');
			expect(request.headers['mcp-session-id']).toBe(lean.sessionId);
			expect(request.headers['mcp-protocol-version']).toBe(connection.protocolVersion);
			expect(request.headers['content-type']).toBe('application/json');
			const accept = (request.headers.accept ?? '').split(',').map((type) => type.trim());
			expect(accept).toEqual(expect.arrayContaining(['application/x-ndjson', 'application/json', 'text/event-stream']));
		}
		expect(lean.sessionId).toEqual(expect.any(String));
		expect(connection.protocolVersion).toEqual(expect.any(String));
	});

	it('fails a call answered HTTP 500 with an McpFailure naming the status, without sending it again', async () => {
		const server = await startLean();
		const connection = await open(httpConfig(server.url));
		const sdkSends = spyOnSdkSends(leanOf(connection));

		const failure = await failureOf(call(connection, 'status500'));
		expect(failure.kind).toBe('http-status');
		expect(failure.httpStatus).toBe(500);
		expect(failure.message).toContain('HTTP 500');
		expect(failure.message).toContain('calling tool');
		expect(failure.message).toContain('deliberate failure of the lean fixture');

		const stats = await statsOf(server);
		expect(toolPosts(stats, 'status500')).toHaveLength(1);
		expect(leanCallsOf('status500')).toHaveLength(1);
		expect(toolCallsIn(sdkSends)).toEqual([]);
		// The connection is still usable.
		expect(await call(connection, 'echo', { message: 'after 500' })).toBe('echo: after 500');
	});

	it('fails a call answered 401 without sending it again (no OAuth on this path: the SDK could only fail the same way)', async () => {
		const server = await startLean();
		const connection = await open(httpConfig(server.url));
		const sdkSends = spyOnSdkSends(leanOf(connection));

		const failure = await failureOf(call(connection, 'status401'));
		expect(failure.kind).toBe('unauthorized');
		expect(failure.httpStatus).toBe(401);
		expect(toolPosts(await statsOf(server), 'status401')).toHaveLength(1);
		expect(toolCallsIn(sdkSends)).toEqual([]);
		expect(await call(connection, 'echo', { message: 'after 401' })).toBe('echo: after 401');
	});

	it('keeps the status of an error answer whose body cannot be decoded (an empty gzip body)', async () => {
		const server = await startLean();
		const connection = await open(httpConfig(server.url));

		const failure = await failureOf(call(connection, 'gzip500Empty'));
		expect(failure.kind).toBe('http-status');
		expect(failure.httpStatus).toBe(500);
		expect(await call(connection, 'echo', { message: 'still usable' })).toBe('echo: still usable');
	});

	it('fails a call at once whose answer stream closes without the answer or a point to resume from (not at its timeout)', async () => {
		const server = await startLean();
		const connection = await open(httpConfig(server.url, { requestTimeoutMs: 60_000 }));
		// Its own failure, not the request timeout's ("did not answer in time").
		const failure = await failureOf(call(connection, 'closeSse'));
		expect(failure.message).toContain("the answer's event stream ended before the answer arrived");
		expect(failure.message).not.toContain('did not answer in time');
		expect(toolPosts(await statsOf(server), 'closeSse')).toHaveLength(1);
		expect(await call(connection, 'echo', { message: 'still usable' })).toBe('echo: still usable');
	});

	it('reports what a message handler throws to onerror, never as an uncaught exception from the socket', async () => {
		const server = await startLean();
		const connection = await open(httpConfig(server.url));
		const lean = leanOf(connection);
		const handle = lean.onmessage!;
		const report = lean.onerror;
		const errors: string[] = [];
		lean.onerror = (error) => {
			errors.push(error.message);
			report?.(error);
		};
		// After the client took the answer: the call completes, and the throw has to go somewhere.
		lean.onmessage = (message, extra) => {
			handle(message, extra);
			throw new Error('a handler failed');
		};
		try {
			expect(await call(connection, 'echo', { message: 'answered' })).toBe('echo: answered');
		} finally {
			lean.onmessage = handle;
			lean.onerror = report;
		}
		expect(errors).toContain('a handler failed');
	});

	it('hands a call answered 307 to the SDK, which follows the redirect: the tool runs once', async () => {
		const server = await startLean();
		const connection = await open(httpConfig(server.url));
		const sdkSends = spyOnSdkSends(leanOf(connection));

		expect(await call(connection, 'redirect', { message: 'moved' })).toBe('redirected: moved');

		const stats = await statsOf(server);
		expect(stats.executions.redirect).toBe(1);
		const posts = toolPosts(stats, 'redirect');
		// Ours (307), the SDK's resend to the same URL (307), the SDK's follow-up at the target.
		expect(posts.map((post) => post.path)).toEqual(['/mcp', '/mcp', '/alt/mcp']);
		expect(leanCallsOf('redirect')).toHaveLength(1);
		expect(toolCallsIn(sdkSends).map((send) => (send.message as { params?: { name?: string } }).params?.name)).toEqual(['redirect']);
		expect(await call(connection, 'echo', { message: 'after redirect' })).toBe('echo: after redirect');
	});

	it('resumes an SSE answer that ended after its priming event: GET with Last-Event-ID brings the result', async () => {
		const server = await startLean({ LEAN_RETRY_MS: '50' });
		const connection = await open(httpConfig(server.url));
		const sdkSends = spyOnSdkSends(leanOf(connection));

		expect(await call(connection, 'resume', { message: 'later' })).toBe('resumed: later');

		const stats = await statsOf(server);
		expect(stats.executions.resume).toBe(1);
		const posts = toolPosts(stats, 'resume');
		expect(posts).toHaveLength(1);
		expect(leanCallsOf('resume')).toHaveLength(1);
		// The resumption: a GET after that POST, from the point the priming event gave.
		const resumed = stats.requests.filter((request) => request.method === 'GET' && request.headers['last-event-id'] !== undefined);
		expect(resumed).toHaveLength(1);
		expect(stats.primingIds).toContain(resumed[0].headers['last-event-id']);
		expect(stats.requests.indexOf(resumed[0])).toBeGreaterThan(stats.requests.indexOf(posts[0]));
		// The transport resumed it itself: nothing of the call went to the SDK transport.
		expect(toolCallsIn(sdkSends)).toEqual([]);
		expect(resumed[0].headers['mcp-session-id']).toBe(posts[0].headers['mcp-session-id']);
		expect(await call(connection, 'echo', { message: 'after resume' })).toBe('echo: after resume');
	});

	it('fails a call answered text/plain with "Unexpected content type", and the next call works', async () => {
		const server = await startLean();
		const connection = await open(httpConfig(server.url));

		const failure = await failureOf(call(connection, 'plain'));
		expect(failure.message).toContain('Unexpected content type');
		expect(failure.message).toContain('text/plain');
		expect(toolPosts(await statsOf(server), 'plain')).toHaveLength(1);

		expect(await call(connection, 'echo', { message: 'still usable' })).toBe('echo: still usable');
		expect(leanCallsOf('echo')).toHaveLength(1);
	});

	it('reads gzip-coded JSON and SSE answers (fetch undoes content codings by itself)', async () => {
		const server = await startLean();
		const connection = await open(httpConfig(server.url));

		expect(await call(connection, 'gzipJson')).toBe('gzipJson: decoded');
		expect(await call(connection, 'gzipSse')).toBe('gzipSse: decoded');
		expect(leanCallsOf('gzipJson')).toHaveLength(1);
		expect(leanCallsOf('gzipSse')).toHaveLength(1);
	});

	it('fails a call answered in a content coding it cannot read, naming it, and the next call works', async () => {
		const server = await startLean();
		const connection = await open(httpConfig(server.url));

		const failure = await failureOf(call(connection, 'zstdJson'));
		expect(failure.message).toContain('zstd');
		// What to do comes with it (issue 27, point 4).
		expect(failure.description).toMatch(/reads gzip, deflate and br/);
		expect(toolPosts(await statsOf(server), 'zstdJson')).toHaveLength(1);
		expect(await call(connection, 'echo', { message: 'still usable' })).toBe('echo: still usable');
	});

	it('keeps working when the server closes idle kept sockets between calls', async () => {
		const server = await startLean({ LEAN_KEEPALIVE_MS: '50' });
		const connection = await open(httpConfig(server.url));
		const errors: Error[] = [];
		connection.client.onerror = (error) => errors.push(error);

		for (const message of ['one', 'two', 'three']) {
			expect(await call(connection, 'echo', { message })).toBe(`echo: ${message}`);
			// The server has ended every socket that carried our POSTs before the next call starts
			// (after its keep-alive timeout plus the second Node's server adds). Node's agent keeps
			// such a half-closed socket as free, so the next POST is written to it and reset: the
			// transport must send it again on a new socket, once, without reporting anything.
			await until(server, 'tool-sockets-closed');
		}

		const stats = await statsOf(server);
		expect(stats.executions.echo).toBe(3);
		expect(toolPosts(stats, 'echo')).toHaveLength(3);
		expect(errors).toEqual([]);
	});

	it('never sends a POST twice: one dropped on a reused kept socket fails its call, and the next call works', async () => {
		// The transport cannot tell a POST the server never read from one it read and then lost, so
		// it resends neither (as fetch does not): a tool call must not run twice.
		const server = await startLean({ LEAN_DROP_REUSED: '1', LEAN_RESPONSE: 'json' });
		const connection = await open(httpConfig(server.url));
		const lean = leanOf(connection);
		const tool = (await listAllTools(connection)).find((t) => t.name === 'echo')!;

		await freeSocketOf(lean);
		const outcome = await callToolValidated(connection, tool, { message: 'once' }).catch((error: unknown) => error);
		expect(outcome).toBeInstanceOf(McpFailure);

		const stats = await statsOf(server);
		expect(stats.dropped).toBe(1);
		expect(toolPosts(stats, 'echo')).toHaveLength(1);
		expect(leanCallsOf('echo')).toHaveLength(1);
		expect(stats.executions.echo ?? 0).toBe(0);
	});

	it.each([
		['SSE answers', {}],
		['JSON answers', { LEAN_RESPONSE: 'json' }],
		['SSE answers, session termination refused', { LEAN_NO_DELETE: '1' }],
		['JSON answers, session termination refused', { LEAN_RESPONSE: 'json', LEAN_NO_DELETE: '1' }],
	])('closing during a slow call (%s) rejects it, without error reports or sockets left', async (_label, env) => {
		// With termination refused, nothing on the server's side ends the slow call's answer: only our close does.
		const server = await startLean(env);
		const connection = await open(httpConfig(server.url));
		const lean = leanOf(connection);
		const errors: Error[] = [];
		connection.client.onerror = (error) => errors.push(error);
		// Two calls at once leave two kept sockets, so one is idle while the slow call holds the other.
		await Promise.all(['x', 'y'].map((message) => call(connection, 'echo', { message })));

		const settled = call(connection, 'slow').then(
			() => 'resolved',
			(error: unknown) => error,
		);
		await until(server, 'slow-started');
		await connection.close();

		const outcome = await settled;
		expect(outcome).toBeInstanceOf(McpFailure);
		expect((outcome as McpFailure).message).toMatch(/closed/i);
		expect(errors).toEqual([]);
		// close() destroyed the request in flight and every socket, busy or idle; the 'close' events
		// that make the agent and the transport forget them come later.
		const internals = lean as unknown as { requests: Set<http.ClientRequest>; resumeTimers: Set<unknown>; agent: http.Agent };
		expect([...internals.requests].every((request) => request.destroyed)).toBe(true);
		expect(socketsOf(internals.agent).length).toBeGreaterThan(0);
		expect(socketsOf(internals.agent).every((socket) => socket.destroyed)).toBe(true);
		expect(internals.resumeTimers.size).toBe(0);
		// The server saw every socket that carried our POSTs close...
		await until(server, 'tool-sockets-closed');
		// ...and nothing of ours is left to hold the process: no request, socket or resumption timer.
		expect(internals.requests.size).toBe(0);
		expect(socketsOf(internals.agent)).toEqual([]);
		expect(internals.resumeTimers.size).toBe(0);
		expect(errors).toEqual([]);
	});

	// As the SDK transport does for its own streams (_scheduleReconnection, maxRetries 2): a failed
	// GET with Last-Event-ID (here the first one is answered 503) is tried again after the delay.
	it('resumes again when the first GET with Last-Event-ID fails', async () => {
		const server = await startLean({ LEAN_RESUME_GET_FAIL: '1' });
		const connection = await open(httpConfig(server.url, { requestTimeoutMs: 5_000 }));
		connection.client.onerror = () => undefined;

		const outcome = await call(connection, 'resume', { message: 'second try' }).catch((error: unknown) => error);
		const stats = await statsOf(server);
		const resumptions = stats.requests.filter((request) => request.method === 'GET' && request.headers['last-event-id'] !== undefined);
		expect(resumptions.length).toBeGreaterThanOrEqual(2);
		expect(outcome).toBe('resumed: second try');
	});
});

describe('a server that asks to be reconnected at once, again and again (retry: 0, or more than a timer holds)', () => {
	const gets = (stats: FixtureStats) => stats.requests.filter((request) => request.method === 'GET').length;
	const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

	it.each(['0', '99999999999'])('reopens the standing event stream at most every 250 ms (retry: %s)', async (retry) => {
		const server = await startLean({ LEAN_REOPEN_STORM: retry });
		const connection = await open(httpConfig(server.url));
		connection.client.onerror = () => undefined;
		const before = gets(await statsOf(server));
		await wait(1000);
		// The SDK takes the server's delay as given (each reopen resumes from the last event id):
		// hundreds of GETs a second without the bounds.
		expect(gets(await statsOf(server)) - before).toBeLessThanOrEqual(6);
	});

	it("resumes a call's answer stream at most every 250 ms until the call times out", async () => {
		const server = await startLean({ LEAN_REOPEN_STORM: '0' });
		const connection = await open(httpConfig(server.url, { requestTimeoutMs: 1000 }));
		connection.client.onerror = () => undefined;
		const failure = await failureOf(call(connection, 'storm'));
		expect(failure.message).toMatch(/did not answer in time/);
		expect(gets(await statsOf(server))).toBeLessThanOrEqual(12);
	});
});

/** An OAuth-style auth with a fixed token (the fixture does not check it): the connection keeps the SDK's path. */
function fixedTokenAuth(token: string): McpAuth {
	return {
		kind: 'session',
		provider: { token: async () => token },
		onInsufficientScope: 'throw',
		remedy: 'Reconnect.',
		secrets: () => [token],
		secretsVersion: 1,
	};
}

describe('a server whose answer never ends', () => {
	/** The fixture's record of the endless answer written for `tool`, once `done` holds for it (deadline 10 s). */
	async function endlessOnceSettled(server: RunningServer, tool: string, done: (answer: EndlessAnswer) => boolean): Promise<EndlessAnswer> {
		const deadline = Date.now() + 10_000;
		for (;;) {
			const answer = (await statsOf(server)).endless.find((entry) => entry.tool === tool);
			if ((answer && done(answer)) || Date.now() > deadline) return answer as EndlessAnswer;
			await new Promise((resolve) => setTimeout(resolve, 50));
		}
	}

	it.each(['trickleJson', 'trickleSse'])('cuts the POST of a call that timed out (%s): no socket or buffer is left reading on the kept connection', async (tool) => {
		const server = await startLean();
		const connection = await open(httpConfig(server.url, { requestTimeoutMs: 500 }));
		connection.client.onerror = () => undefined;
		expect((await failureOf(call(connection, tool))).message).toMatch(/did not answer in time/);
		// The client cancels the call (notifications/cancelled) and its POST is cut: the server sees the close.
		expect(await endlessOnceSettled(server, tool, (answer) => answer.closed)).toMatchObject({ closed: true });
		expect(await call(connection, 'echo', { message: 'still here' })).toBe('echo: still here');
	});

	it('cuts an answer stream the server keeps open after the answer (a socket per call otherwise)', async () => {
		const server = await startLean();
		const connection = await open(httpConfig(server.url));
		const errors: Error[] = [];
		connection.client.onerror = (error) => errors.push(error);
		expect(await call(connection, 'answerThenLinger')).toBe('lingering');
		expect(await endlessOnceSettled(server, 'answerThenLinger', (answer) => answer.closed)).toMatchObject({ closed: true });
		// Cut on purpose: no disconnection is reported.
		expect(errors).toEqual([]);
	});

	it.each(['floodJson', 'floodSseLine', 'floodSseData'])('fails a call whose answer passes 128 MB (%s) and cuts the stream', async (tool) => {
		const server = await startLean();
		const connection = await open(httpConfig(server.url, { requestTimeoutMs: 60_000 }));
		connection.client.onerror = () => undefined;
		expect((await failureOf(call(connection, tool))).message).toMatch(/larger than 128 MB/);
		expect(await endlessOnceSettled(server, tool, (answer) => answer.closed)).toMatchObject({ closed: true, finished: false });
		expect(await call(connection, 'echo', { message: 'after' })).toBe('echo: after');
	});

	it("on the SDK's path (OAuth, proxies) too: an answer over 128 MB fails the call at once, and a resumed answer of 20 MB is not held to the standing stream's 16 MB", async () => {
		const server = await startLean({ LEAN_RETRY_MS: '300' });
		const connection = await open(httpConfig(server.url, { auth: fixedTokenAuth('t'), requestTimeoutMs: 60_000 }));
		connection.client.onerror = () => undefined;
		expect(transportOf(connection)).not.toBeInstanceOf(LeanHttpTransport);
		expect((await failureOf(call(connection, 'floodSseLine'))).message).toMatch(/larger than 128 MB/);
		expect(await endlessOnceSettled(server, 'floodSseLine', (answer) => answer.closed)).toMatchObject({ closed: true, finished: false });
		expect(await call(connection, 'resumeBig')).toHaveLength(20 * 1024 * 1024);
	});

	it('cuts a standing event stream whose event passes 16 MB, while the connection sits idle', async () => {
		const server = await startLean({ LEAN_STANDING: 'endless', LEAN_ENDLESS_BYTES: String(40 * 1024 * 1024) });
		const connection = await open(httpConfig(server.url));
		connection.client.onerror = () => undefined;
		const standing = await endlessOnceSettled(server, 'standing', (answer) => answer.closed || answer.finished);
		// The SDK buffered the whole never-ending line before: the fixture wrote its 40 MB and waited.
		expect(standing).toMatchObject({ closed: true, finished: false });
		expect(await call(connection, 'echo', { message: 'idle' })).toBe('echo: idle');
	});
});

describe('when the lean path is not used', () => {
	it('keeps every request on the SDK transport with an OAuth configuration', async () => {
		const server = await startLean();
		const connection = await open(httpConfig(server.url, { auth: fixedTokenAuth('oauth-token-1') }));
		const transport = transportOf(connection);
		expect(transport).toBeInstanceOf(StreamableHTTPClientTransport);
		expect(transport).not.toBeInstanceOf(LeanHttpTransport);

		expect(await call(connection, 'echo', { message: 'via sdk' })).toBe('echo: via sdk');
		expect(leanPosts).toEqual([]);
		const posts = toolPosts(await statsOf(server), 'echo');
		expect(posts).toHaveLength(1);
		expect(posts[0].headers.authorization).toBe('Bearer oauth-token-1');
	});

	it.each(['HTTPS_PROXY', 'http_proxy', 'ALL_PROXY'])('keeps every request on the SDK transport while %s is set', async (name) => {
		const server = await startLean();
		// Node 20's fetch ignores proxy variables, so the SDK still reaches the loopback server directly.
		process.env[name] = 'http://127.0.0.1:9';
		try {
			const connection = await open(httpConfig(server.url));
			expect(transportOf(connection)).toBeInstanceOf(StreamableHTTPClientTransport);
			expect(await call(connection, 'echo', { message: 'no proxy of ours' })).toBe('echo: no proxy of ours');
		} finally {
			delete process.env[name];
		}
		expect(leanPosts).toEqual([]);
		expect(toolPosts(await statsOf(server), 'echo')).toHaveLength(1);
	});

	it('still uses it when a proxy variable is set but empty', async () => {
		const server = await startLean();
		process.env.HTTPS_PROXY = '';
		try {
			const connection = await open(httpConfig(server.url));
			leanOf(connection);
			expect(await call(connection, 'echo', { message: 'lean' })).toBe('echo: lean');
		} finally {
			delete process.env.HTTPS_PROXY;
		}
		expect(leanCallsOf('echo')).toHaveLength(1);
	});
});

// ---------------------------------------------------------------------------------------------

/** Every socket the agent holds, busy or idle. */
function socketsOf(agent: http.Agent): Array<{ destroyed: boolean }> {
	return [...Object.values(agent.sockets), ...Object.values(agent.freeSockets)].flatMap((list) => list ?? []);
}

/** Resolves once the lean transport's agent holds an idle kept socket (the next POST reuses it). */
async function freeSocketOf(lean: LeanHttpTransport): Promise<void> {
	const agent = (lean as unknown as { agent: http.Agent }).agent;
	const hasFree = () => Object.values(agent.freeSockets).some((list) => (list?.length ?? 0) > 0);
	if (hasFree()) return;
	// The agent files a socket under freeSockets in its own 'free' listener, which runs before ours.
	await once(agent, 'free');
	expect(hasFree()).toBe(true);
}

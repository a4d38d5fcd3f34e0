import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { explainMcpError, httpStatusOf, McpFailure } from '../../lib/mcp/errors';
import { ProcessExitError } from '../../lib/mcp/processStdioTransport';
import type { HttpServerConfig, StdioServerConfig } from '../../lib/mcp/serverConfig';
import { describeServer, describeUrl } from '../../lib/mcp/secrets';

const http: HttpServerConfig = {
	kind: 'http',
	url: 'https://alice:pa55word@mcp.example.com:8443/mcp?api_key=k-123&team=core',
	transport: 'streamableHttp',
	headers: { Authorization: 'Bearer tok-abc' },
	trustAnnotations: false,
	connectTimeoutMs: 1000,
	requestTimeoutMs: 1000,
};
const stdio: StdioServerConfig = {
	kind: 'stdio',
	command: 'npx',
	args: ['-y', 'some-server'],
	env: { API_KEY: 'env-secret' },
	trustAnnotations: false,
	connectTimeoutMs: 1000,
	requestTimeoutMs: 1000,
};
// The issue-10 rule: origin and path only, never user-info or query.
const WHERE = 'https://mcp.example.com:8443/mcp';

/** What undici's fetch throws for network failures: a TypeError whose cause carries the code. */
function fetchFailure(code: string): TypeError {
	const cause = Object.assign(new Error(`connect ${code}`), { code });
	return new TypeError('fetch failed', { cause });
}

function secretsIn(text: string): string[] {
	return ['pa55word', 'alice', 'k-123', 'tok-abc', 'env-secret'].filter((secret) => text.includes(secret));
}

describe('describeServer / describeUrl', () => {
	it('drops user info and query values from URLs', () => {
		expect(describeServer(http)).toBe(WHERE);
		expect(describeUrl('http://127.0.0.1:3000/mcp')).toBe('http://127.0.0.1:3000/mcp');
		expect(describeUrl('not a url')).toBe('(invalid URL)');
	});

	it('names a local command without its arguments or environment', () => {
		expect(describeServer(stdio)).toBe('local command "npx"');
	});

	it('names a local command by the credential and the server\'s own name when known, not by the command (issue 26, point 5)', () => {
		const labelled = { ...stdio, label: 'Orders DB' };
		expect(describeServer(labelled, 'sdk-orders')).toBe('"sdk-orders" (credential "Orders DB")');
		expect(describeServer(labelled)).toBe('of credential "Orders DB"');
		expect(describeServer(stdio, 'sdk-orders')).toBe('"sdk-orders" (local command "npx")');
		// A server's name is its own text: one line, no quotes, bounded.
		expect(describeServer(labelled, `a"b\nc${'x'.repeat(100)}`)).toBe(`"a b c${'x'.repeat(75)}…" (credential "Orders DB")`);
		expect(describeServer({ ...http, label: 'Remote' }, 'srv')).toBe(WHERE);
	});
});

describe('McpFailure', () => {
	it('keeps the server output in its own field, out of the message (issue 27, point 4)', () => {
		const failure = new McpFailure('It broke.', 'protocol', 'line 1\nline 2');
		expect(failure.message).toBe('It broke.');
		expect(failure.serverOutput).toBe('line 1\nline 2');
		expect(failure.summary).toBe('It broke.');
		expect(failure.name).toBe('McpFailure');
		expect(failure).toBeInstanceOf(Error);
		expect(new McpFailure('Plain.', 'unknown').message).toBe('Plain.');
	});
});

describe('explainMcpError', () => {
	it('passes an McpFailure through untouched', () => {
		const original = new McpFailure('already explained', 'config');
		expect(explainMcpError(original, http, 'connecting')).toBe(original);
	});

	it('network failures: dns, refused, reset, tls', () => {
		const dns = explainMcpError(fetchFailure('ENOTFOUND'), http, 'connecting');
		expect({ kind: dns.kind, message: dns.message }).toEqual({
			kind: 'dns',
			message: 'Could not resolve host "mcp.example.com" while connecting (DNS lookup failed). Check the URL in the credential.',
		});
		expect(explainMcpError(fetchFailure('EAI_AGAIN'), http, 'connecting').kind).toBe('dns');

		const refused = explainMcpError(fetchFailure('ECONNREFUSED'), http, 'listing tools');
		expect(refused.kind).toBe('refused');
		expect(refused.message).toBe(`Connection refused by ${WHERE} while listing tools. Is the server running and listening on that address and port?`);

		expect(explainMcpError(fetchFailure('ECONNRESET'), http, 'connecting').kind).toBe('protocol');
		expect(explainMcpError(fetchFailure('UND_ERR_SOCKET'), http, 'connecting').message).toContain('closed by the server while connecting');

		for (const code of ['SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'DEPTH_ZERO_SELF_SIGNED_CERT']) {
			const tls = explainMcpError(fetchFailure(code), http, 'connecting');
			expect({ code, kind: tls.kind }).toEqual({ code, kind: 'tls' });
			expect(tls.message).toContain(code);
			expect(tls.message).toContain('NODE_EXTRA_CA_CERTS');
		}
	});

	it('HTTP statuses from the SDK transports', () => {
		const unauthorized = explainMcpError(new StreamableHTTPError(401, 'Error POSTing to endpoint: {"error":"invalid_token","token":"tok-abc"}'), http, 'connecting');
		expect({ kind: unauthorized.kind, status: unauthorized.httpStatus }).toEqual({ kind: 'unauthorized', status: 401 });
		expect(unauthorized.message).toBe(`${WHERE} answered 401 Unauthorized while connecting: the token or headers in the credential were rejected or are missing.`);

		const forbidden = explainMcpError(new StreamableHTTPError(403, 'Error POSTing to endpoint: nope'), http, 'calling tool "x"');
		expect({ kind: forbidden.kind, status: forbidden.httpStatus }).toEqual({ kind: 'forbidden', status: 403 });

		for (const status of [404, 405]) {
			const notMcp = explainMcpError(new StreamableHTTPError(status, 'Error POSTing to endpoint: Not Found'), http, 'connecting');
			expect({ kind: notMcp.kind, status: notMcp.httpStatus }).toEqual({ kind: 'not-mcp', status });
			expect(notMcp.message).toContain(`(HTTP ${status})`);
			expect(notMcp.message).toContain('often /mcp or /sse');
		}

		const server = explainMcpError(new StreamableHTTPError(502, 'Error POSTing to endpoint: Bad Gateway'), http, 'connecting');
		expect({ kind: server.kind, status: server.httpStatus }).toEqual({ kind: 'http-status', status: 502 });
		expect(server.message).toBe(`${WHERE} answered HTTP 502 while connecting: Streamable HTTP error: Error POSTing to endpoint: Bad Gateway`);

		const sse = explainMcpError(new SseError(500, 'Non-200 status code (500)', undefined as never), http, 'connecting (legacy SSE)');
		expect({ kind: sse.kind, status: sse.httpStatus }).toEqual({ kind: 'http-status', status: 500 });

		const html = explainMcpError(new StreamableHTTPError(-1, 'Unexpected content type: text/html; charset=utf-8'), http, 'connecting');
		expect(html.kind).toBe('not-mcp');
		expect(html.httpStatus).toBeUndefined();
		expect(html.message).toContain('Unexpected content type: text/html');
	});

	it('never puts URL credentials, query values or header values into a message', () => {
		const errors = [
			fetchFailure('ENOTFOUND'),
			fetchFailure('ECONNREFUSED'),
			fetchFailure('CERT_HAS_EXPIRED'),
			new StreamableHTTPError(401, 'x'),
			new StreamableHTTPError(404, 'x'),
			new StreamableHTTPError(500, 'x'),
			new McpError(ErrorCode.RequestTimeout, 'Request timed out'),
			new Error('weird'),
		];
		for (const error of errors) expect(secretsIn(explainMcpError(error, http, 'connecting').message)).toEqual([]);
		for (const error of errors) expect(secretsIn(explainMcpError(error, stdio, 'connecting').message)).toEqual([]);
	});

	it('MCP errors: timeout, connection closed, and errors the server returned', () => {
		const timeout = explainMcpError(new McpError(ErrorCode.RequestTimeout, 'Request timed out'), stdio, 'calling tool "slow"');
		expect({ kind: timeout.kind, message: timeout.message }).toEqual({
			kind: 'timeout',
			message: 'MCP server local command "npx" did not answer in time while calling tool "slow".',
		});
		const closed = explainMcpError(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'), http, 'listing tools');
		expect({ kind: closed.kind, message: closed.message }).toEqual({
			kind: 'protocol',
			message: `The connection to MCP server ${WHERE} closed while listing tools.`,
		});
		const invalid = explainMcpError(new McpError(ErrorCode.InvalidParams, 'Tool nope not found'), stdio, 'calling tool "nope"');
		expect(invalid.kind).toBe('protocol');
		expect(invalid.message).toBe('MCP server local command "npx" returned an error while calling tool "nope": MCP error -32602: Tool nope not found');
	});

	it('an MCP error whose text mentions an HTTP status is still a server error, not a transport status', () => {
		// e.g. a tool handler that let an axios error escape: "Request failed with status code 404"
		const upstream = new McpError(ErrorCode.InternalError, 'Request failed with status code 404');
		expect(httpStatusOf(upstream)).toBeUndefined();
		const failure = explainMcpError(upstream, http, 'calling tool "lookup"');
		expect({ kind: failure.kind, status: failure.httpStatus }).toEqual({ kind: 'protocol', status: undefined });
		expect(failure.message).toContain('Request failed with status code 404');
	});

	it('local processes: exit, spawn failure, and the stderr tail', () => {
		const exited = explainMcpError(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'), stdio, 'calling tool "x"', 'Error: boom\n  at main', 'the server process exited with code 1');
		expect(exited.kind).toBe('process-exited');
		expect(exited.summary).toBe('MCP server local command "npx" stopped while calling tool "x": the server process exited with code 1.');
		expect(exited.serverOutput).toBe('Error: boom\n  at main');
		expect(exited.message).not.toContain('Error: boom');

		const notFound = new ProcessExitError('command "npx" was not found (check the path, or that it is on n8n\'s PATH)', null, null);
		expect(explainMcpError(notFound, stdio, 'connecting').kind).toBe('spawn-failed');
		expect(explainMcpError(new ProcessExitError('command "npx" is not executable', null, null), stdio, 'connecting').kind).toBe('spawn-failed');
		// The transport records the same reason as the exit description; it is still a spawn failure.
		expect(explainMcpError(notFound, stdio, 'connecting', undefined, notFound.message).kind).toBe('spawn-failed');
		expect(explainMcpError(new ProcessExitError('the server process exited with code 3', 3, null), stdio, 'connecting').kind).toBe('process-exited');

		expect(explainMcpError(new Error('x'), stdio, 'connecting', '   \n ').serverOutput).toBeUndefined();
	});

	it('bad JSON is not-mcp, anything else is unknown with a trimmed one-line detail', () => {
		expect(explainMcpError(new SyntaxError('Unexpected token < in JSON at position 0'), http, 'connecting').kind).toBe('not-mcp');
		const unknown = explainMcpError(new Error(`first line\nsecond   line ${'x'.repeat(600)}`), http, 'connecting');
		expect(unknown.kind).toBe('unknown');
		expect(unknown.message).toMatch(new RegExp(`^Error talking to MCP server ${WHERE.replace(/[.*?+^$()[\]{}|\\]/g, '\\$&')} while connecting: first line second line x+…$`));
		expect(unknown.message.length).toBeLessThan(600);
		expect(explainMcpError('a thrown string', http, 'connecting').message).toContain('a thrown string');
	});
});

describe('httpStatusOf', () => {
	it('reads the status of the SDK transport errors, and from messages', () => {
		expect(httpStatusOf(new StreamableHTTPError(418, 'teapot'))).toBe(418);
		expect(httpStatusOf(new SseError(503, 'x', undefined as never))).toBe(503);
		expect(httpStatusOf(new Error('Non-200 status code (502)'))).toBe(502);
		expect(httpStatusOf(new Error('HTTP 429 Too Many Requests'))).toBe(429);
		expect(httpStatusOf(new Error('status: 500'))).toBe(500);
	});

	it('finds nothing where there is none', () => {
		expect(httpStatusOf(new StreamableHTTPError(-1, 'Unexpected content type: text/html'))).toBeUndefined();
		expect(httpStatusOf(new Error('took 4040 ms'))).toBeUndefined();
		expect(httpStatusOf(Object.assign(new Error('x'), { code: 404 }))).toBeUndefined();
		expect(httpStatusOf(null)).toBeUndefined();
		expect(httpStatusOf('HTTP 500')).toBeUndefined();
	});
});

describe('unexplained fetch failures', () => {
	it('carry their causes, so "fetch failed" is never alone', () => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { explainMcpError: explain } = require('../../lib/mcp/errors');
		const error = new TypeError('fetch failed', { cause: new Error('bad port') });
		const failure = explain(error, { kind: 'http', url: 'http://127.0.0.1:9/mcp', transport: 'streamableHttp', headers: {}, trustAnnotations: false, connectTimeoutMs: 1, requestTimeoutMs: 1 }, 'connecting');
		expect(failure.message).toBe('Error talking to MCP server http://127.0.0.1:9/mcp while connecting: fetch failed (bad port)');
	});
});

import { applyMiddlewares, SSEClientTransport, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import type { HttpServerConfig, McpServerConfig, StdioServerConfig } from './serverConfig';
import { ProcessStdioTransport } from './processStdioTransport';
import { McpFailure } from './errors';
import { redactorForServer } from './secrets';
import { ResultTypeDefaulting } from './resultTypeDefault';
import { LeanHttpTransport, proxyConfigured } from './leanHttpTransport';
import { boundedReconnection } from './streamReconnect';
import { MAX_ANSWER_BYTES } from './streamLimits';
import { serverNamedUrlPolicy } from './urlPolicy';
import { answerLimits, credentialHeaders, globalFetch, pacedOpens, urlPolicyChecked } from './fetchMiddleware';

/** How a session reaches its server: a local process, Streamable HTTP, or the legacy HTTP+SSE transport. */
export type TransportKind = 'stdio' | 'streamableHttp' | 'sse';

/** A local server's transport: the process is the transport (its output explains failures, close() ends its tree). */
export interface StdioTransportChoice {
	kind: 'stdio';
	transport: ProcessStdioTransport;
}

export interface HttpTransportChoice {
	kind: 'streamableHttp' | 'sse';
	transport: Transport;
}

export type McpTransport = StdioTransportChoice | HttpTransportChoice;

/**
 * The one place that decides the transport stack for a server (as vercel/ai's createMcpTransport):
 * stdio through our own ProcessStdioTransport; Streamable HTTP through the SDK transport, on the
 * lean node:http path where nothing else changes requests; legacy SSE through the SDK's. An HTTP
 * credential set to try both (`auto`) names the kind of each attempt (see session.ts).
 */
export function createMcpTransport(config: StdioServerConfig): StdioTransportChoice;
export function createMcpTransport(config: HttpServerConfig, kind: HttpTransportChoice['kind']): HttpTransportChoice;
export function createMcpTransport(config: McpServerConfig, kind?: HttpTransportChoice['kind']): McpTransport {
	if (config.kind === 'stdio') return { kind: 'stdio', transport: stdioTransport(config) };
	const url = serverUrl(config);
	if (kind === 'sse') return { kind, transport: sseTransport(config, url) };
	return { kind: 'streamableHttp', transport: streamableHttpTransport(config, url, leanPathFits(config) ? 'lean' : 'sdk') };
}

/** OAuth and proxies change requests in ways only fetch and the SDK know about: they keep the SDK path. */
function leanPathFits(config: HttpServerConfig): boolean {
	return !config.auth && !proxyConfigured();
}

function stdioTransport(config: StdioServerConfig): ProcessStdioTransport {
	const redactor = redactorForServer(config);
	return new ProcessStdioTransport({
		command: config.command,
		args: config.args,
		env: config.env,
		cwd: config.cwd,
		...(redactor.active ? { redact: redactor.text } : {}),
	});
}

function serverUrl(config: HttpServerConfig): URL {
	let url: URL;
	try {
		url = new URL(config.url);
	} catch {
		throw new McpFailure('The MCP server URL in the credential is not a valid URL (it must start with http:// or https://).', 'config');
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw new McpFailure(`The MCP server URL must use http:// or https:// (got ${url.protocol}).`, 'config');
	}
	return url;
}

/**
 * What both HTTP transports share: the credential's headers on every request and, for OAuth, the
 * provider the transport asks for a token before each request and hands 401s (and, for an
 * interactive session, 403 insufficient_scope) to; see lib/mcp/oauth.
 *
 * The SDK fetches other origins only for OAuth (the authorization servers the server's metadata
 * names, their endpoints, a resource_metadata URL in a 401; redirects it follows only within an
 * origin): those are the server's choice and held to the URL policy. The server's own origin
 * passes untouched.
 */
function httpBasics(config: HttpServerConfig, url: URL) {
	return {
		requestInit: { headers: { ...config.headers } } satisfies RequestInit,
		auth: config.auth ? { authProvider: config.auth.provider } : {},
		policy: serverNamedUrlPolicy(url.href, 'OAuth'),
	};
}

function sseTransport(config: HttpServerConfig, url: URL): Transport {
	const { requestInit, auth, policy } = httpBasics(config, url);
	// Its POSTs (and their error bodies, read whole) are held to the answer limit as well as its
	// stream, which carries every answer (so MAX_ANSWER_BYTES per event there too). The stream's GET
	// must carry the same credential headers as the POSTs.
	const streamFetch = applyMiddlewares(credentialHeaders(config.headers), urlPolicyChecked(policy), answerLimits({ standingEventBytes: MAX_ANSWER_BYTES }), pacedOpens())(globalFetch);
	return new SSEClientTransport(url, {
		requestInit,
		...auth,
		fetch: applyMiddlewares(answerLimits())(policy.fetch()),
		eventSourceInit: { fetch: streamFetch },
	});
}

/**
 * Streamable HTTP: the SDK transport, under our lean path unless `path` says 'sdk', under the
 * resultType defaulting every session gets (resultTypeDefault.ts).
 */
function streamableHttpTransport(config: HttpServerConfig, url: URL, path: 'lean' | 'sdk'): ResultTypeDefaulting {
	const { requestInit, auth, policy } = httpBasics(config, url);
	// A POST answer the fetch cuts for its size fails its requests at once, not at their timeout.
	let answers: ResultTypeDefaulting | undefined;
	const cut = (ids: Array<string | number>, error: Error) => ids.forEach((id) => answers?.failRequest(id, error.message));
	const streamable = new StreamableHTTPClientTransport(url, {
		requestInit,
		fetch: applyMiddlewares(answerLimits({ onTooLarge: cut }))(policy.fetch()),
		reconnectionScheduler: boundedReconnection,
		...auth,
		...(config.auth ? { onInsufficientScope: config.auth.onInsufficientScope } : {}),
	});
	answers = new ResultTypeDefaulting(path === 'lean' ? new LeanHttpTransport(streamable, url, config.headers) : streamable);
	return answers;
}

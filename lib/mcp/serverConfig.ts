import type { McpAuth } from './oauth/types';
import type { McpRoot } from './roots';

/**
 * A resolved MCP server connection setting, independent of n8n: the credential glue turns
 * credential data into one of these, and everything else (connections, tests, the conformance
 * client) starts from it.
 */
export type HttpTransportKind = 'streamableHttp' | 'sse' | 'auto';

export interface HttpServerConfig {
	kind: 'http';
	url: string;
	transport: HttpTransportKind;
	/** Extra request headers (bearer token or custom headers). Values are secrets. */
	headers: Record<string, string>;
	/**
	 * OAuth (lib/mcp/oauth): the transport asks it for a token before every request and lets it
	 * refresh on a 401. Not serializable; made again from the credential for every execution.
	 */
	auth?: McpAuth;
	/**
	 * The client's roots (lib/mcp/roots.ts): given, the `roots` capability is declared and
	 * `roots/list` answered with them; absent or empty, neither (servers keep their own directories).
	 */
	roots?: McpRoot[];
	trustAnnotations: boolean;
	connectTimeoutMs: number;
	requestTimeoutMs: number;
}

export interface StdioServerConfig {
	kind: 'stdio';
	command: string;
	args: string[];
	/** Extra environment for the process. Values may be secrets. */
	env: Record<string, string>;
	/**
	 * Names in `env` that came from Secret Environment Variables, whose values are redacted from
	 * every message and output. The credential always sets it; a config made in code without it
	 * gets only the values that look like credentials redacted (lib/mcp/secrets.ts).
	 */
	secretEnvNames?: string[];
	cwd?: string;
	/**
	 * The client's roots (lib/mcp/roots.ts): given, the `roots` capability is declared and
	 * `roots/list` answered with them; absent or empty, neither (servers keep their own directories).
	 */
	roots?: McpRoot[];
	trustAnnotations: boolean;
	connectTimeoutMs: number;
	requestTimeoutMs: number;
}

/**
 * How a connection is kept between executions (lib/mcp/pool). Absent: one connection per use,
 * closed at its end (Keep Server Running off, or nothing identifies the credential).
 */
export interface PoolingSettings {
	/** The credential (type and id) plus a keyed hash of its data: equal keys share a connection. */
	key: string;
	/** The credential alone (type and id): a new key for it retires the connections of older ones. */
	identity: string;
	/** Idle time after which the connection is closed (and its process ended). */
	idleMs: number;
}

export type McpServerConfig = (HttpServerConfig | StdioServerConfig) & {
	/**
	 * The credential's name as n8n shows it (never a value from it): messages name a local-command
	 * server by it, as every node, python or uvx server shares its command path.
	 */
	label?: string;
	pooling?: PoolingSettings;
	/**
	 * Keep Server Running off for a stored credential: its identity (type and id), so that a
	 * connection the pool kept for it before the setting changed is closed too, not left running
	 * with the old settings until its idle time ends.
	 */
	unkeptIdentity?: string;
};

export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

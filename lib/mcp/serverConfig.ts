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
	cwd?: string;
	trustAnnotations: boolean;
	connectTimeoutMs: number;
	requestTimeoutMs: number;
}

export type McpServerConfig = HttpServerConfig | StdioServerConfig;

export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** A short, secret-free label for messages: the URL without credentials or query, or the command. */
export function describeServer(config: McpServerConfig): string {
	if (config.kind === 'stdio') return `local command "${config.command}"`;
	return redactUrl(config.url);
}

/** Drops userinfo and query values from a URL so tokens passed that way never reach a message. */
export function redactUrl(raw: string): string {
	try {
		const url = new URL(raw);
		url.username = '';
		url.password = '';
		for (const key of [...url.searchParams.keys()]) url.searchParams.set(key, '***');
		return url.toString().replace(/%2A%2A%2A/g, '***');
	} catch {
		return '(invalid URL)';
	}
}

import { parseArguments, parseEnvironment, parseHeaders } from './commandLine';
import {
	DEFAULT_CONNECT_TIMEOUT_MS,
	DEFAULT_REQUEST_TIMEOUT_MS,
	type HttpServerConfig,
	type HttpTransportKind,
	type McpServerConfig,
	type StdioServerConfig,
} from './serverConfig';

/** The credential type names, shared by nodes and credential tests. */
export const HTTP_CREDENTIAL = 'mcpServerHttpApi';
export const STDIO_CREDENTIAL = 'mcpServerStdioApi';

type CredentialData = Record<string, unknown>;

function text(data: CredentialData, key: string): string {
	const value = data[key];
	return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}

function positiveNumber(data: CredentialData, key: string, fallback: number): number {
	const value = Number(data[key]);
	return Number.isFinite(value) && value > 0 ? value : fallback;
}

export function httpConfigFromCredential(data: CredentialData): HttpServerConfig {
	const url = text(data, 'url').trim();
	const authentication = text(data, 'authentication') || 'none';
	let headers: Record<string, string> = {};
	if (authentication === 'bearer') {
		const token = text(data, 'token').trim();
		if (token) headers = { Authorization: `Bearer ${token}` };
	} else if (authentication === 'headers') {
		headers = parseHeaders(text(data, 'headers'), 'Headers (credential)');
	}
	const transport = (text(data, 'transport') || 'streamableHttp') as HttpTransportKind;
	return {
		kind: 'http',
		url,
		transport: ['streamableHttp', 'sse', 'auto'].includes(transport) ? transport : 'streamableHttp',
		headers,
		trustAnnotations: data.trustAnnotations === true,
		connectTimeoutMs: positiveNumber(data, 'connectTimeout', DEFAULT_CONNECT_TIMEOUT_MS),
		requestTimeoutMs: positiveNumber(data, 'requestTimeout', DEFAULT_REQUEST_TIMEOUT_MS),
	};
}

export function stdioConfigFromCredential(data: CredentialData): StdioServerConfig {
	const env = {
		...parseEnvironment(text(data, 'environment'), 'Environment Variables (credential)'),
		...parseEnvironment(text(data, 'secretEnvironment'), 'Secret Environment Variables (credential)'),
	};
	return {
		kind: 'stdio',
		command: text(data, 'command').trim(),
		args: parseArguments(text(data, 'args'), 'Arguments (credential)'),
		env,
		cwd: text(data, 'cwd').trim() || undefined,
		trustAnnotations: data.trustAnnotations === true,
		connectTimeoutMs: positiveNumber(data, 'connectTimeout', DEFAULT_CONNECT_TIMEOUT_MS),
		requestTimeoutMs: positiveNumber(data, 'requestTimeout', DEFAULT_REQUEST_TIMEOUT_MS),
	};
}

export function serverConfigFromCredential(type: string, data: CredentialData): McpServerConfig {
	if (type === STDIO_CREDENTIAL) return stdioConfigFromCredential(data);
	if (type === HTTP_CREDENTIAL) return httpConfigFromCredential(data);
	throw new Error(`Unsupported credential type "${type}"`);
}

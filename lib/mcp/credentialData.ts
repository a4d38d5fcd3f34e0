import { checkNoNul, ConfigFormatError, headerValueProblem, parseArguments, parseEnvironment, parseHeaders } from './commandLine';
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
		// Surrounding whitespace of a pasted token is trimmed; anything fetch would refuse inside it
		// is refused here, because fetch's own error quotes the whole header value.
		const token = text(data, 'token').trim();
		const problem = headerValueProblem(token);
		if (problem) throw new ConfigFormatError(`The Bearer Token in the credential ${problem}; paste it again without it.`);
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
	const secretEnv = parseEnvironment(text(data, 'secretEnvironment'), 'Secret Environment Variables (credential)');
	const env = {
		...parseEnvironment(text(data, 'environment'), 'Environment Variables (credential)'),
		...secretEnv,
	};
	const command = text(data, 'command').trim();
	checkNoNul(command, 'Command (credential)');
	const cwd = text(data, 'cwd').trim();
	checkNoNul(cwd, 'Working Directory (credential)');
	return {
		kind: 'stdio',
		command,
		args: parseArguments(text(data, 'args'), 'Arguments (credential)'),
		env,
		secretEnvNames: Object.keys(secretEnv),
		cwd: cwd || undefined,
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

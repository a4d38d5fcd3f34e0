import { checkNoNul, ConfigFormatError, headerValueProblem, parseArguments, parseEnvironment, parseHeaders } from './commandLine';
import {
	DEFAULT_CONNECT_TIMEOUT_MS,
	DEFAULT_REQUEST_TIMEOUT_MS,
	type HttpServerConfig,
	type HttpTransportKind,
	type McpServerConfig,
	type StdioServerConfig,
} from './serverConfig';
import { clientCredentialsAuth, type ClientAuthentication } from './oauth/clientCredentials';
import { hostTokenAuth, type HostTokenSource } from './oauth/hostTokenAuth';
import { checkStoredGrantIssuer } from './oauth/storedGrantCheck';
import { parseRoots, type McpRoot } from './roots';
import { configError, McpAgentError, REPORT_A_BUG } from '../errors';

/** The credential type names, shared by nodes and credential tests. */
export const HTTP_CREDENTIAL = 'mcpServerHttpApi';
export const STDIO_CREDENTIAL = 'mcpServerStdioApi';
/**
 * The OAuth2 credential, where a person signs in (Connect my account). Its constant's name has no
 * "auth" in it: n8n's scanner (no-hardcoded-secrets) takes a name with "auth" holding a string with
 * letters and a digit for a secret.
 */
export const SIGN_IN_CREDENTIAL = 'mcpServerOAuth2Api';

/** The host's side of an OAuth credential: its stored tokens and its refresh (n8n's helper). */
export interface HostTokens extends HostTokenSource {
	/** The credential's name for messages. */
	label?: string;
	/** Skips the issuer checks of the stored grant (tests without a network). */
	skipGrantCheck?: boolean;
}

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
	} else if (authentication === 'oauthClientCredentials') {
		return { ...httpBase(data, url), auth: clientCredentialsAuth(clientCredentialsOf(data)) };
	}
	return { ...httpBase(data, url), headers };
}

function httpBase(data: CredentialData, url: string): HttpServerConfig {
	refuseUserInfo(url);
	const transport = (text(data, 'transport') || 'streamableHttp') as HttpTransportKind;
	return {
		kind: 'http',
		url,
		transport: ['streamableHttp', 'sse', 'auto'].includes(transport) ? transport : 'streamableHttp',
		headers: {},
		...rootsOf(data),
		trustAnnotations: data.trustAnnotations === true,
		connectTimeoutMs: positiveNumber(data, 'connectTimeout', DEFAULT_CONNECT_TIMEOUT_MS),
		requestTimeoutMs: positiveNumber(data, 'requestTimeout', DEFAULT_REQUEST_TIMEOUT_MS),
	};
}

/**
 * `https://token@host/...` or `https://user:password@host/...`: fetch refuses such a URL and quotes
 * it whole in its error. Refused here, without quoting it.
 */
function refuseUserInfo(url: string): void {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return;
	}
	if (parsed.username || parsed.password) {
		throw new ConfigFormatError('The URL in the credential contains a user name or password (before an "@"), which HTTP clients do not send. Remove it from the URL and put the token under Authentication (Bearer Token or Custom Headers) instead.');
	}
}

function clientCredentialsOf(data: CredentialData) {
	const method = text(data, 'clientAuthMethod') || 'client_secret_basic';
	let authentication: ClientAuthentication;
	if (method === 'private_key_jwt') {
		authentication = { method, privateKeyPem: text(data, 'privateKey'), algorithm: text(data, 'signingAlgorithm') || 'ES256' };
	} else if (method === 'client_secret_basic' || method === 'client_secret_post') {
		authentication = { method, clientSecret: text(data, 'clientSecret') };
	} else {
		throw new ConfigFormatError(`Client Authentication "${method}" is not one this credential offers.`);
	}
	return { clientId: text(data, 'clientId'), authentication, scope: text(data, 'scope'), expectedIssuer: text(data, 'issuer') };
}

/**
 * The OAuth credential (extends n8n's oAuth2Api): the MCP URL is `serverUrl`, the tokens are in
 * `oauthTokenData`, which only the host can renew (`host.refresh`).
 */
export function oauthConfigFromCredential(data: CredentialData, host: HostTokens): HttpServerConfig {
	const url = text(data, 'serverUrl').trim();
	const base = httpBase(data, url);
	return {
		...base,
		auth: hostTokenAuth(host, {
			credentialLabel: host.label,
			clientSecret: text(data, 'clientSecret'),
			// The credential's default is on; n8n may leave a default out of the stored data.
			registration: data.useDynamicClientRegistration === false ? 'manual' : 'automatic',
			checkGrant: host.skipGrantCheck ? undefined : (tokens) => checkStoredGrantIssuer(url, tokens, { timeoutMs: base.connectTimeoutMs }),
		}),
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
		...rootsOf(data),
		trustAnnotations: data.trustAnnotations === true,
		connectTimeoutMs: positiveNumber(data, 'connectTimeout', DEFAULT_CONNECT_TIMEOUT_MS),
		requestTimeoutMs: positiveNumber(data, 'requestTimeout', DEFAULT_REQUEST_TIMEOUT_MS),
	};
}

/** The Roots field (both credentials): absent from the config when empty, so nothing is declared. */
function rootsOf(data: CredentialData): { roots?: McpRoot[] } {
	const roots = parseRoots(text(data, 'roots'), 'Roots (credential)');
	return roots.length ? { roots } : {};
}

export function serverConfigFromCredential(type: string, data: CredentialData, host?: HostTokens): McpServerConfig {
	if (type === STDIO_CREDENTIAL) return stdioConfigFromCredential(data);
	if (type === HTTP_CREDENTIAL) return httpConfigFromCredential(data);
	if (type === SIGN_IN_CREDENTIAL) {
		// Every node passes n8n's token store with this credential type: without one, a caller of ours forgot it.
		if (!host) throw new McpAgentError('The OAuth credential needs the host\'s token store', { code: 'config', description: REPORT_A_BUG });
		return oauthConfigFromCredential(data, host);
	}
	throw configError(
		`Unsupported credential type "${type}"`,
		`Select one of the MCP server credentials of this package (${[STDIO_CREDENTIAL, HTTP_CREDENTIAL, SIGN_IN_CREDENTIAL].join(', ')}) in the node's Server Connection.`,
	);
}

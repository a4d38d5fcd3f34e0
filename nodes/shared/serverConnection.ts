import type {
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	IExecuteFunctions,
	ILoadOptionsFunctions,
	INodeCredentialDescription,
	INodeCredentialTestResult,
	INodeProperties,
	ISupplyDataFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { McpConnection } from '../../lib/mcp/connection';
import { HTTP_CREDENTIAL, SIGN_IN_CREDENTIAL, STDIO_CREDENTIAL, serverConfigFromCredential, type HostTokens } from '../../lib/mcp/credentialData';
import type { HostTokenData } from '../../lib/mcp/oauth/hostTokenAuth';
import { McpFailure, messageWithServerOutput } from '../../lib/mcp/errors';
import { redactorForServer } from '../../lib/mcp/secrets';
import { listAllTools, serverOffers } from '../../lib/mcp/listing';
import type { McpServerConfig } from '../../lib/mcp/serverConfig';
import { credentialIdentity, poolingFor } from '../../lib/mcp/pool/poolSettings';
import { acquireConnection } from '../../lib/mcp/pool/sharedPool';
import type { McpLease } from '../../lib/mcp/pool/connectionPool';
import { rememberRedactor, toNodeError } from './nodeErrors';
import { nodeOf } from './nodeOf';

/** n8n glue shared by the MCP nodes: which credential, and turning it into a live connection. */

export const CONNECTION_TEST_METHOD = 'mcpServerConnectionTest';

export const serverConnectionProperty: INodeProperties = {
	displayName: 'Server Connection',
	name: 'connection',
	type: 'options',
	noDataExpression: true,
	default: 'http',
	options: [
		{ name: 'HTTP (Streamable HTTP or SSE)', value: 'http', description: 'A remote MCP server reached by URL (no auth, a token, headers, or OAuth client credentials)' },
		{ name: 'HTTP with OAuth (Connect My Account)', value: 'oauth', description: 'A hosted MCP server where you sign in: n8n\'s "Connect my account" from the server URL alone' },
		{ name: 'Local Command (Stdio)', value: 'stdio', description: 'An MCP server started as a process on the n8n host' },
	],
};

export const serverCredentials: INodeCredentialDescription[] = [
	{ name: HTTP_CREDENTIAL, required: true, testedBy: CONNECTION_TEST_METHOD, displayOptions: { show: { connection: ['http'] } } },
	{ name: STDIO_CREDENTIAL, required: true, testedBy: CONNECTION_TEST_METHOD, displayOptions: { show: { connection: ['stdio'] } } },
	{ name: SIGN_IN_CREDENTIAL, required: true, testedBy: CONNECTION_TEST_METHOD, displayOptions: { show: { connection: ['oauth'] } } },
];

type NodeContext = IExecuteFunctions | ILoadOptionsFunctions;

/** The credential type a Server Connection value stands for. */
export function credentialTypeFor(connection: string): string {
	if (connection === 'stdio') return STDIO_CREDENTIAL;
	if (connection === 'oauth') return SIGN_IN_CREDENTIAL;
	return HTTP_CREDENTIAL;
}

/** n8n's stored (or freshly returned) OAuth token data, when it is an object. */
function tokenData(value: unknown): HostTokenData | undefined {
	return value && typeof value === 'object' ? (value as HostTokenData) : undefined;
}

/**
 * The OAuth credential's tokens as n8n stores them, and n8n's own refresh: it locks across
 * processes (n8n 2.x), persists the new tokens encrypted, and fails with "needs to be reconnected"
 * on invalid_grant. Bound to the context that owns the credential (for the MCP Server sub-node, its
 * own supplyData context), as n8n's MCP Client Tool does.
 */
export function hostTokensOf(context: NodeContext | ISupplyDataFunctions, data: Record<string, unknown>): HostTokens {
	return {
		initial: tokenData(data.oauthTokenData),
		label: nodeOf(context).credentials?.[SIGN_IN_CREDENTIAL]?.name,
		refresh: async () => {
			const refreshed = (await context.helpers.refreshOAuth2Token.call(context as IExecuteFunctions, SIGN_IN_CREDENTIAL)) as unknown;
			const returned = tokenData(refreshed);
			if (returned && (returned.access_token || returned.accessToken)) return returned;
			// n8n 1.x returns its own token object; what it stored is what counts.
			const stored = (await context.getCredentials(SIGN_IN_CREDENTIAL)) as Record<string, unknown>;
			return tokenData(stored.oauthTokenData);
		},
	};
}

/** Execute functions take an item index; load-options functions (dropdowns) do not. */
function readConnectionKind(context: NodeContext): string {
	if ('getInputData' in context) return (context as IExecuteFunctions).getNodeParameter('connection', 0, 'http') as string;
	return (context as ILoadOptionsFunctions).getNodeParameter('connection', 'http') as string;
}

/**
 * The server configuration of a credential as a node (or the MCP Server sub-node) resolved it,
 * with its pooling settings: the credential's id from the node (n8n gives each stored credential
 * one), its Keep Server Running and Idle Shutdown fields, and a keyed hash of its data.
 */
export function serverConfigForNode(
	context: NodeContext | ISupplyDataFunctions,
	type: string,
	data: Record<string, unknown>,
): McpServerConfig {
	const named = nodeOf(context).credentials?.[type];
	const config = withLabel(serverConfigFromCredential(type, data, type === SIGN_IN_CREDENTIAL ? hostTokensOf(context, data) : undefined), named?.name);
	const credential = { type, id: named?.id ?? undefined };
	const pooling = poolingFor(credential, data);
	if (pooling) return { ...config, pooling };
	const unkeptIdentity = credentialIdentity(credential);
	return unkeptIdentity ? { ...config, unkeptIdentity } : config;
}

/** The credential's name on the config, for messages (lib/mcp/secrets.ts describeServer). */
function withLabel(config: McpServerConfig, name: string | undefined): McpServerConfig {
	return name?.trim() ? { ...config, label: name.trim() } : config;
}

export async function resolveServerConfig(context: NodeContext): Promise<McpServerConfig> {
	const type = credentialTypeFor(readConnectionKind(context));
	const data = (await context.getCredentials(type)) as Record<string, unknown>;
	let config: McpServerConfig;
	try {
		config = serverConfigForNode(context, type, data);
	} catch (error) {
		// Credential parsing errors name the field and line, never a value.
		throw new NodeOperationError(context.getNode(), (error as Error).message);
	}
	rememberRedactor(context, redactorForServer(config));
	return config;
}

/**
 * The one connection a node execution uses for all its items: the credential's kept connection
 * (Keep Server Running, the default) or a new one. Release the lease at the end, whatever happened.
 */
export async function acquireServerConnection(context: NodeContext): Promise<McpLease> {
	const config = await resolveServerConfig(context);
	try {
		return await acquireConnection(config);
	} catch (error) {
		throw toNodeError(context, error);
	}
}

/** The credential "Test" button: a real handshake and tools/list, reported in one line. */
export async function mcpServerConnectionTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	let connection: McpConnection | undefined;
	let config: McpServerConfig | undefined;
	try {
		const data = (credential.data ?? {}) as Record<string, unknown>;
		config = withLabel(serverConfigFromCredential(credential.type, data, credential.type === SIGN_IN_CREDENTIAL ? storedTokensOnly(data) : undefined), credential.name);
		connection = await McpConnection.open(config);
		const tools = serverOffers(connection, 'tools') ? await listAllTools(connection) : [];
		const { name, version } = connection.server;
		// A server may give an empty version string ("sdk-orders , protocol ..." otherwise).
		const named = version.trim() ? `${name} ${version.trim()}` : name;
		const protocol = connection.protocolVersion ? `, protocol ${connection.protocolVersion}` : '';
		return { status: 'OK', message: `Connected to ${named}${protocol}: ${tools.length} tool${tools.length === 1 ? '' : 's'}.` };
	} catch (error) {
		// Failures from McpConnection are redacted already; a credential that did not parse has no
		// config, and its parsing errors never quote a value.
		const message = McpFailure.isInstance(error) ? messageWithServerOutput(error) : ((error as Error)?.message ?? String(error));
		return { status: 'Error', message: config ? redactorForServer(config).text(message) : message };
	} finally {
		await connection?.close();
	}
}

/**
 * The Test button of the OAuth credential uses the stored access token as it is. It never
 * refreshes: a credential test has no way to store the rotated tokens, and a refresh whose result
 * is lost would burn the refresh token.
 */
function storedTokensOnly(data: Record<string, unknown>): HostTokens {
	const stored = tokenData(data.oauthTokenData);
	return {
		// Without an expiry stamp the token is used as is, whatever its age.
		initial: stored ? { ...stored, n8n_expires_at: undefined } : undefined,
		label: typeof data.serverUrl === 'string' ? data.serverUrl : undefined,
		refresh: async () => {
			throw new Error('The Test button does not refresh tokens; run the workflow (it refreshes them), or click "Connect my account" again');
		},
	};
}

import {
	ClientCredentialsProvider,
	PrivateKeyJwtProvider,
	type OAuthClientProvider,
	type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { McpFailure } from '../errors';
import { privateKeyJwtAuthentication, readPrivateKey, type PrivateKeyJwtAlgorithm } from './clientAssertion';
import { SecretLedger, type McpAuth } from './types';

/**
 * The client-credentials grant (no person involved) for scheduled automations: the SDK's own
 * providers do discovery from the MCP URL, the token request and the retry on 401. Tokens live in
 * this object only, for one node execution: a client-credentials grant has no refresh token, and
 * a new grant per run is cheap, so nothing is ever persisted.
 */

export type ClientAuthentication =
	| { method: 'client_secret_basic' | 'client_secret_post'; clientSecret: string }
	| { method: 'private_key_jwt'; privateKeyPem: string; algorithm: string };

export interface ClientCredentialsOptions {
	clientId: string;
	authentication: ClientAuthentication;
	/**
	 * Space-separated scopes to ask for, whatever the server's 401 challenge names (the SDK would
	 * ask for the challenge's); empty lets the SDK pick (challenge, then scopes_supported).
	 */
	scope?: string;
	/**
	 * The authorization server's issuer these credentials belong to. Given, the secret is sent to no
	 * other server (SEP-2352), whatever the MCP server's metadata says. Left empty, the issuer the
	 * server's metadata names is used.
	 */
	expectedIssuer?: string;
}

export const CLIENT_CREDENTIALS_REMEDY = 'Check the client ID, the client secret or private key and the scope in the credential, and that the authorization server allows the client-credentials grant for this client.';

/**
 * The SDK stamps client information with the issuer it belongs to and warns when none is given.
 * Without a pin we construct with this placeholder and stamp the client information with whatever
 * issuer discovery found, which is what "no pin" means: the server's metadata names the
 * authorization server.
 */
const UNPINNED = 'urn:n8n-nodes-mcp-agent:issuer-not-pinned';

function unpinned(provider: OAuthClientProvider): void {
	const read = provider.clientInformation.bind(provider);
	provider.clientInformation = (ctx) => {
		const info = read(ctx) as Record<string, unknown> | undefined;
		if (!info) return info;
		// Stamped with the issuer discovery found (the SDK warns about unstamped information).
		const { issuer: _issuer, ...rest } = info;
		return (ctx?.issuer ? { ...rest, issuer: ctx.issuer } : rest) as ReturnType<OAuthClientProvider['clientInformation']>;
	};
}

/**
 * The SDK asks for the scope of the server's 401 challenge ahead of the client's own (its
 * determineScope: challenge, then the resource's scopes_supported, then clientMetadata.scope), so
 * a challenge naming `mcp:read` would narrow a configured `mcp:read mcp:write` and the first tool
 * needing `mcp:write` would fail. A configured Scope is what the person asked for: the token
 * request carries it as entered.
 */
function requestConfiguredScope(provider: OAuthClientProvider, scope: string): void {
	const prepare = provider.prepareTokenRequest?.bind(provider);
	if (!prepare) return;
	provider.prepareTokenRequest = () => prepare(scope);
}

/** Keeps the issued tokens in the ledger, so redaction knows them the moment they exist. */
function recordTokens(provider: OAuthClientProvider, ledger: SecretLedger): void {
	const save = provider.saveTokens.bind(provider);
	provider.saveTokens = (tokens: StoredOAuthTokens, ctx) => {
		ledger.add(tokens.access_token, tokens.refresh_token);
		return save(tokens, ctx);
	};
}

export function clientCredentialsAuth(options: ClientCredentialsOptions): McpAuth {
	const clientId = options.clientId.trim();
	if (!clientId) throw new McpFailure('The credential has no Client ID for the client-credentials grant.', 'config');
	const pinned = options.expectedIssuer?.trim() || undefined;
	const expectedIssuer = pinned ?? UNPINNED;
	const scope = options.scope?.trim() || undefined;
	const ledger = new SecretLedger();
	const auth = options.authentication;
	let provider: OAuthClientProvider;
	if (auth.method === 'private_key_jwt') {
		if (!auth.privateKeyPem.trim()) throw new McpFailure('The credential has no private key for private_key_jwt.', 'config');
		const key = readPrivateKey(auth.privateKeyPem.trim(), auth.algorithm);
		ledger.add(auth.privateKeyPem.trim());
		provider = new PrivateKeyJwtProvider({
			clientId,
			privateKey: auth.privateKeyPem.trim(),
			algorithm: auth.algorithm,
			clientName: 'n8n-nodes-mcp-agent',
			scope,
			expectedIssuer,
		});
		// Our own signer (lib/mcp/oauth/clientAssertion.ts) instead of the SDK's, which imports jose at request time.
		provider.addClientAuthentication = privateKeyJwtAuthentication(clientId, key, auth.algorithm as PrivateKeyJwtAlgorithm);
	} else {
		if (!auth.clientSecret) throw new McpFailure('The credential has no client secret for the client-credentials grant.', 'config');
		ledger.add(auth.clientSecret);
		provider = new ClientCredentialsProvider({ clientId, clientSecret: auth.clientSecret, clientName: 'n8n-nodes-mcp-agent', scope, expectedIssuer });
		if (auth.method === 'client_secret_post') {
			// The SDK's provider authenticates with HTTP Basic; some servers accept only the form body.
			const secret = auth.clientSecret;
			(provider as OAuthClientProvider).addClientAuthentication = (_headers, params) => {
				params.set('client_id', clientId);
				params.set('client_secret', secret);
			};
		}
	}
	if (!pinned) unpinned(provider);
	if (scope) requestConfiguredScope(provider, scope);
	recordTokens(provider, ledger);
	return {
		kind: 'client-credentials',
		provider,
		// Re-running the grant cannot widen the scope a client is allowed: say which one is missing.
		onInsufficientScope: 'throw',
		remedy: CLIENT_CREDENTIALS_REMEDY,
		secrets: () => ledger.list(),
		get secretsVersion() {
			return ledger.version;
		},
	};
}

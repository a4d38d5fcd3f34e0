import { randomBytes } from 'node:crypto';
import {
	auth,
	type OAuthClientInformationContext,
	type OAuthClientMetadata,
	type OAuthClientProvider,
	type OAuthDiscoveryState,
	type StoredOAuthClientInformation,
	type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { explainOAuthError, McpFailure } from '../errors';
import { describeUrl } from '../secrets';
import { refusalIn, serverNamedUrlPolicy } from '../urlPolicy';
import { SecretLedger, type McpAuth } from './types';

/**
 * An interactive OAuth session (authorization code + PKCE) run by our own code, for hosts other
 * than n8n: the conformance client and the tests. In n8n the same grant is n8n's "Connect my
 * account" (it owns the redirect and stores the tokens), and the nodes use hostTokenAuth.
 *
 * The session is the SDK's OAuthClientProvider over an in-memory store keyed by authorization
 * server (client registrations and tokens never cross issuers), plus an AuthorizationDriver that
 * plays the person's part: it opens the authorization URL and hands back the callback's query.
 * `run` wraps an operation: when it stopped for an authorization, the code is redeemed (the SDK
 * checks the callback's `iss` first, RFC 9207) and the operation runs again, at most
 * `maxAuthorizations` times.
 */

export interface AuthorizationDriver {
	/** Sends the person to `url`; resolves with the query string the redirect URI received. */
	authorize(url: URL): Promise<URLSearchParams>;
}

/**
 * The driver for authorization servers that answer without a consent page (test fixtures, the
 * conformance suite): GET the URL without following the redirect and read the callback query from
 * its Location. The redirect URI itself is never contacted.
 */
export function headlessRedirect(fetchFn: typeof fetch = fetch): AuthorizationDriver {
	return {
		async authorize(url) {
			const response = await fetchFn(url, { redirect: 'manual' });
			await response.body?.cancel().catch(() => undefined);
			const location = response.headers.get('location');
			if (response.status < 300 || response.status >= 400 || !location) {
				throw new McpFailure(`The authorization endpoint ${url.origin}${url.pathname} answered HTTP ${response.status} without a redirect.`, 'oauth');
			}
			return new URL(location, url).searchParams;
		},
	};
}

export interface PreRegisteredClient {
	client_id: string;
	client_secret?: string;
	token_endpoint_auth_method?: string;
}

export interface OAuthSessionOptions {
	serverUrl: string;
	/** Where the authorization server sends the person back (registered with the client). */
	redirectUrl: string;
	driver: AuthorizationDriver;
	/** An https URL of a Client ID Metadata Document, used as client_id where the server supports it. */
	clientMetadataUrl?: string;
	/** A client registered beforehand (no dynamic registration). */
	client?: PreRegisteredClient;
	clientName?: string;
	/** Asked for when neither the server's challenge nor its metadata names scopes. */
	scope?: string;
	/** Authorizations per `run` (the first one included) before giving up. */
	maxAuthorizations?: number;
	fetchFn?: typeof fetch;
}

const DEFAULT_MAX_AUTHORIZATIONS = 3;

export class OAuthSession implements OAuthClientProvider {
	readonly clientMetadataUrl?: string;
	private readonly clients = new Map<string, StoredOAuthClientInformation>();
	private readonly tokensByIssuer = new Map<string, StoredOAuthTokens>();
	private latestTokens?: StoredOAuthTokens;
	private verifier?: string;
	private discovery?: OAuthDiscoveryState;
	private expectedState?: string;
	private callback?: URLSearchParams;
	private authorizations = 0;
	private readonly ledger = new SecretLedger();

	constructor(private readonly options: OAuthSessionOptions) {
		this.clientMetadataUrl = options.clientMetadataUrl;
		if (options.client) this.ledger.add(options.client.client_secret);
	}

	get redirectUrl(): string {
		return this.options.redirectUrl;
	}

	get clientMetadata(): OAuthClientMetadata {
		return {
			client_name: this.options.clientName ?? 'n8n-nodes-mcp-agent',
			redirect_uris: [this.options.redirectUrl],
			// refresh_token also makes the SDK ask for offline_access where the server offers it.
			grant_types: ['authorization_code', 'refresh_token'],
			response_types: ['code'],
			...(this.options.scope ? { scope: this.options.scope } : {}),
		};
	}

	/** What the HTTP connection needs: this provider, step-up by re-authorization, the secrets. */
	get auth(): McpAuth {
		const ledger = this.ledger;
		return {
			kind: 'session',
			provider: this,
			onInsufficientScope: 'reauthorize',
			remedy: 'Authorize again.',
			secrets: () => ledger.list(),
			get secretsVersion() {
				return ledger.version;
			},
		};
	}

	state(): string {
		this.expectedState = randomBytes(16).toString('base64url');
		return this.expectedState;
	}

	clientInformation(ctx?: OAuthClientInformationContext): StoredOAuthClientInformation | undefined {
		// A pre-registered client belongs to the authorization server the MCP server names.
		if (this.options.client) return { ...this.options.client, ...(ctx ? { issuer: ctx.issuer } : {}) } as StoredOAuthClientInformation;
		return ctx ? this.clients.get(ctx.issuer) : undefined;
	}

	saveClientInformation(info: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext): void {
		const issuer = ctx?.issuer ?? (info as { issuer?: string }).issuer;
		if (!issuer) return;
		this.clients.set(issuer, info);
		this.ledger.add((info as { client_secret?: string }).client_secret);
	}

	tokens(ctx?: OAuthClientInformationContext): StoredOAuthTokens | undefined {
		// Without ctx the transport asks for the bearer token of the resource: the latest set.
		return ctx ? this.tokensByIssuer.get(ctx.issuer) : this.latestTokens;
	}

	saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): void {
		const issuer = ctx?.issuer ?? (tokens as { issuer?: string }).issuer;
		if (issuer) this.tokensByIssuer.set(issuer, tokens);
		this.latestTokens = tokens;
		this.ledger.add(tokens.access_token, tokens.refresh_token);
	}

	async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
		const limit = this.options.maxAuthorizations ?? DEFAULT_MAX_AUTHORIZATIONS;
		if (this.authorizations >= limit) {
			throw new McpFailure(`The MCP server still refuses access after ${limit} authorizations (it keeps asking for more scope or rejecting the grant). Giving up.`, 'oauth');
		}
		this.authorizations++;
		const params = await this.options.driver.authorize(authorizationUrl);
		// The SDK checks `iss`; `state` is ours to check (it ties the callback to this request).
		if (!this.expectedState || params.get('state') !== this.expectedState) {
			throw new McpFailure('The authorization callback carries a state that does not match the request: refused (possible cross-site request forgery).', 'oauth');
		}
		this.callback = params;
	}

	saveCodeVerifier(verifier: string): void {
		this.verifier = verifier;
	}

	codeVerifier(): string {
		if (!this.verifier) throw new McpFailure('No PKCE code verifier was saved for this authorization.', 'oauth');
		return this.verifier;
	}

	saveDiscoveryState(state: OAuthDiscoveryState): void {
		this.discovery = state;
	}

	discoveryState(): OAuthDiscoveryState | undefined {
		return this.discovery;
	}

	invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
		if (scope === 'all' || scope === 'client') this.clients.clear();
		if (scope === 'all' || scope === 'tokens') {
			this.tokensByIssuer.clear();
			this.latestTokens = undefined;
		}
		if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
		if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
	}

	/**
	 * Runs `operation`; when it stopped because the server needs an authorization (a 401 with no
	 * usable token, or a step-up for more scope), redeems the callback and runs it again.
	 */
	async run<T>(operation: () => Promise<T>): Promise<T> {
		this.authorizations = 0;
		for (;;) {
			try {
				return await operation();
			} catch (error) {
				const callback = this.callback;
				this.callback = undefined;
				if (!callback) throw error;
				await this.redeem(callback);
			}
		}
	}

	private async redeem(callback: URLSearchParams): Promise<void> {
		const code = callback.get('code');
		if (!code) {
			// The error code is from a fixed vocabulary; its description is the server's free text
			// and could be crafted (RFC 9207 mix-up), so it is not repeated.
			const reason = callback.get('error');
			throw new McpFailure(`The authorization was not granted${reason ? ` (${/^[a-z_]{1,64}$/.test(reason) ? reason : 'error'})` : ''}.`, 'oauth');
		}
		let result: Awaited<ReturnType<typeof auth>>;
		try {
			result = await auth(this, {
				serverUrl: this.options.serverUrl,
				authorizationCode: code,
				iss: callback.get('iss') ?? undefined,
				// The authorization server and its token endpoint are the MCP server's choice (lib/mcp/urlPolicy.ts).
				fetchFn: serverNamedUrlPolicy(this.options.serverUrl, 'OAuth').fetch(this.options.fetchFn),
			});
		} catch (error) {
			const refused = refusalIn(error);
			if (refused) throw refused;
			const explained = explainOAuthError(error, this.auth, describeUrl(this.options.serverUrl), 'redeeming the authorization code');
			if (explained) throw new McpFailure(explained.message, explained.kind, undefined, explained.httpStatus);
			throw error;
		} finally {
			// Discovery is kept only across the redirect (the code is bound to the server that issued
			// it). Any later authorization discovers again, so a server that moved to another
			// authorization server (SEP-2352) is followed there, with a registration of its own.
			this.discovery = undefined;
		}
		if (result !== 'AUTHORIZED') throw new McpFailure('The authorization server did not issue a token for the authorization code.', 'oauth');
	}
}

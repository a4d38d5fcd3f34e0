import { createHash, randomBytes } from 'node:crypto';

/** Typed access to test/fixtures/oauth-server.js (a plain JS module, shared with the n8n e2e tests). */
export interface OAuthFixtureUrls {
	issuer: string;
	mcpUrl: string;
	authorizationEndpoint: string;
	tokenEndpoint: string;
	registrationEndpoint: string;
	revokeUrl: string;
	statsUrl: string;
	configUrl: string;
	clients: {
		secret: { client_id: string; client_secret: string };
		jwt: { client_id: string; private_key_pem: string; algorithm: string };
		preRegistered: { client_id: string; client_secret: string };
	};
}

export interface OAuthFixtureStats {
	authorize: number;
	register: number;
	token: { authorization_code: number; refresh_token: number; client_credentials: number };
	tokenErrors: number;
	mcp401: number;
	mcp403: number;
	mcpRequests: number;
	/** Every Host header a request arrived with. */
	hosts: string[];
	lastAuthorize: Record<string, string> | null;
	lastToken: Record<string, string> | null;
	lastRegistration: Record<string, unknown> | null;
}

export interface OAuthFixtureOptions {
	accessTokenTtl?: number;
	dcr?: boolean;
	offlineAccess?: boolean;
	challengeScope?: string;
	iss?: 'correct' | 'omit' | 'wrong';
	/** The protected-resource metadata's authorization_servers (default: the fixture's own origin). */
	authorizationServers?: string[];
}

export interface OAuthFixture {
	urls: OAuthFixtureUrls;
	stats(): OAuthFixtureStats;
	revokeAll(): void;
	expireAccessTokens(): void;
	configure(changes: OAuthFixtureOptions): void;
	close(): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-var-requires
const fixtureModule = require('../fixtures/oauth-server.js') as { startOAuthFixture(options?: OAuthFixtureOptions): Promise<OAuthFixture> };

export function startOAuthFixture(options: OAuthFixtureOptions = {}): Promise<OAuthFixture> {
	return fixtureModule.startOAuthFixture(options);
}

export interface TokenResponse {
	access_token: string;
	refresh_token?: string;
	expires_in: number;
	scope?: string;
	[key: string]: unknown;
}

const REDIRECT = 'http://127.0.0.1:9/callback';

/**
 * What n8n's "Connect my account" leaves in `oauthTokenData`, obtained here with the fixture's
 * pre-registered client (authorization code + PKCE), plus a refresh function that does what
 * n8n's refreshOAuth2Token helper does (refresh_token grant, stored data replaced).
 */
export async function connectLikeN8n(fixture: OAuthFixture, scope = 'mcp:read offline_access'): Promise<{ tokens: TokenResponse; refresh(refreshToken: string): Promise<TokenResponse> }> {
	const { client_id, client_secret } = fixture.urls.clients.preRegistered;
	const verifier = randomBytes(32).toString('base64url');
	const authorize = new URL(fixture.urls.authorizationEndpoint);
	authorize.search = new URLSearchParams({
		response_type: 'code',
		client_id,
		redirect_uri: REDIRECT,
		code_challenge: createHash('sha256').update(verifier).digest('base64url'),
		code_challenge_method: 'S256',
		state: 'st',
		scope,
		resource: fixture.urls.mcpUrl,
	}).toString();
	const redirect = await fetch(authorize, { redirect: 'manual' });
	const code = new URL(redirect.headers.get('location') as string).searchParams.get('code') as string;
	const basic = `Basic ${Buffer.from(`${client_id}:${client_secret}`).toString('base64')}`;
	const token = async (body: Record<string, string>): Promise<TokenResponse> => {
		const response = await fetch(fixture.urls.tokenEndpoint, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) });
		const json = (await response.json()) as TokenResponse & { error?: string };
		if (!response.ok) throw Object.assign(new Error(`token endpoint: ${json.error}`), { body: json });
		return json;
	};
	const tokens = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, resource: fixture.urls.mcpUrl });
	return { tokens, refresh: (refreshToken) => token({ grant_type: 'refresh_token', refresh_token: refreshToken, resource: fixture.urls.mcpUrl }) };
}

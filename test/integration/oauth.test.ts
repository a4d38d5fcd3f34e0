import { McpConnection } from '../../lib/mcp/connection';
import { listAllTools } from '../../lib/mcp/listing';
import { clientCredentialsAuth } from '../../lib/mcp/oauth/clientCredentials';
import { oauthConfigFromCredential } from '../../lib/mcp/credentialData';
import { hostTokenAuth, type HostTokenData } from '../../lib/mcp/oauth/hostTokenAuth';
import { headlessRedirect, OAuthSession } from '../../lib/mcp/oauth/oauthSession';
import type { McpAuth } from '../../lib/mcp/oauth/types';
import { httpConfig } from '../support/servers';
import { connectLikeN8n, startOAuthFixture, type OAuthFixture, type OAuthFixtureOptions } from '../support/oauthFixture';
import { mcpFailureOf } from '../support/mcpFailure';

/**
 * The OAuth paths of lib/mcp against the loopback authorization server + protected MCP server in
 * test/fixtures/oauth-server.js: the interactive session (what the conformance client runs), the
 * host-held tokens n8n's "Connect my account" leaves (refreshed through a host callback, as n8n's
 * helper does), and the client-credentials grant.
 */

let fixture: OAuthFixture;

async function withFixture(options: OAuthFixtureOptions = {}): Promise<OAuthFixture> {
	fixture = await startOAuthFixture(options);
	return fixture;
}

afterEach(async () => {
	await fixture?.close();
});

function config(auth: McpAuth) {
	return httpConfig(fixture.urls.mcpUrl, { auth, connectTimeoutMs: 10_000, requestTimeoutMs: 10_000 });
}

async function callText(connection: McpConnection, name: string, args: Record<string, unknown> = {}): Promise<string> {
	const result = await connection.request(`calling tool ${name}`, (client) => client.callTool({ name, arguments: args }));
	return ((result.content as Array<{ text?: string }>)[0]?.text ?? '') as string;
}

function newSession(extra: Partial<ConstructorParameters<typeof OAuthSession>[0]> = {}): OAuthSession {
	return new OAuthSession({ serverUrl: fixture.urls.mcpUrl, redirectUrl: 'http://127.0.0.1:9/callback', driver: headlessRedirect(), ...extra });
}

describe('interactive session (authorization code, discovery from the 401)', () => {
	it('discovers, registers, authorizes with PKCE S256, the resource and the challenge scope plus offline_access, then lists and calls', async () => {
		await withFixture();
		const session = newSession();
		const connection = await session.run(() => McpConnection.open(config(session.auth)));
		try {
			const tools = await listAllTools(connection);
			expect(tools.map((t) => t.name)).toContain('echo');
			expect(await callText(connection, 'echo', { message: 'hi' })).toBe('Echo: hi');
		} finally {
			await connection.close();
		}
		const stats = fixture.stats();
		expect(stats.register).toBe(1);
		expect(stats.lastRegistration?.grant_types).toEqual(['authorization_code', 'refresh_token']);
		expect(stats.authorize).toBe(1);
		expect(stats.lastAuthorize).toMatchObject({ code_challenge_method: 'S256', resource: fixture.urls.mcpUrl, scope: 'mcp:read offline_access' });
		expect(stats.token.authorization_code).toBe(1);
		expect(stats.lastToken).toMatchObject({ grant_type: 'authorization_code', resource: fixture.urls.mcpUrl });
	});

	it('never asks for offline_access when the server does not offer it', async () => {
		await withFixture({ offlineAccess: false });
		const session = newSession();
		const connection = await session.run(() => McpConnection.open(config(session.auth)));
		await connection.close();
		expect(fixture.stats().lastAuthorize?.scope).toBe('mcp:read');
	});

	it('falls back to the resource metadata scopes_supported when the challenge names none', async () => {
		await withFixture({ challengeScope: '', offlineAccess: false });
		const session = newSession();
		const connection = await session.run(() => McpConnection.open(config(session.auth)));
		await connection.close();
		expect(fixture.stats().lastAuthorize?.scope).toBe('mcp:read mcp:write');
	});

	it('steps up on 403 insufficient_scope by authorizing again with the union of scopes', async () => {
		await withFixture({ offlineAccess: false });
		const session = newSession();
		const text = await session.run(async () => {
			const connection = await McpConnection.open(config(session.auth));
			try {
				return await callText(connection, 'write_note', { text: 'x' });
			} finally {
				await connection.close();
			}
		});
		expect(text).toBe('Saved: x');
		const stats = fixture.stats();
		expect(stats.authorize).toBe(2);
		expect(stats.lastAuthorize?.scope).toBe('mcp:read mcp:write');
	});

	it('refuses an authorization response whose iss names another issuer, before any token request', async () => {
		await withFixture({ iss: 'wrong' });
		const session = newSession();
		const failure = await mcpFailureOf(session.run(() => McpConnection.open(config(session.auth))));
		expect(failure.message).toMatch(/issuer check/);
		expect(failure.message).not.toContain('evil.example.com');
		expect(fixture.stats().token.authorization_code).toBe(0);
	});

	it('refuses a missing iss when the server advertises it', async () => {
		await withFixture({ iss: 'omit' });
		const session = newSession();
		await mcpFailureOf(session.run(() => McpConnection.open(config(session.auth))));
		expect(fixture.stats().token.authorization_code).toBe(0);
	});

	it('uses a pre-registered client when there is no dynamic registration', async () => {
		await withFixture({ dcr: false });
		const session = newSession({ client: fixture.urls.clients.preRegistered });
		const connection = await session.run(() => McpConnection.open(config(session.auth)));
		await connection.close();
		expect(fixture.stats().register).toBe(0);
		expect(fixture.stats().token.authorization_code).toBe(1);
	});
});

/** Host-held tokens as n8n keeps them, refreshed through a callback that does what n8n's helper does. */
async function hostAuth(data: HostTokenData, refresh: () => Promise<HostTokenData>, now?: () => number) {
	let refreshes = 0;
	const auth = hostTokenAuth(
		{
			initial: data,
			refresh: async () => {
				refreshes++;
				return refresh();
			},
		},
		{ credentialLabel: 'My MCP', ...(now ? { now } : {}) },
	);
	return { auth, refreshes: () => refreshes };
}

describe('host-held tokens (n8n "Connect my account")', () => {
	it('refreshes before expiry, so the server never sees the expiring token refused', async () => {
		await withFixture({ accessTokenTtl: 3600 });
		const { tokens, refresh } = await connectLikeN8n(fixture);
		let stored: HostTokenData = { ...tokens, n8n_expires_at: Date.now() + 30_000 };
		const { auth, refreshes } = await hostAuth(stored, async () => {
			stored = { ...(await refresh(stored.refresh_token as string)), n8n_expires_at: Date.now() + 3_600_000 };
			return stored;
		});
		const connection = await McpConnection.open(config(auth));
		expect(await callText(connection, 'echo', { message: 'a' })).toBe('Echo: a');
		await connection.close();
		expect(refreshes()).toBe(1);
		expect(fixture.stats().token.refresh_token).toBe(1);
		expect(fixture.stats().mcp401).toBe(0);
	});

	it('refreshes once on a 401 (token expired at the server) and goes on', async () => {
		await withFixture();
		const { tokens, refresh } = await connectLikeN8n(fixture);
		let stored: HostTokenData = { ...tokens };
		const { auth, refreshes } = await hostAuth(stored, async () => {
			stored = await refresh(stored.refresh_token as string);
			return stored;
		});
		const connection = await McpConnection.open(config(auth));
		try {
			fixture.expireAccessTokens();
			expect(await callText(connection, 'echo', { message: 'b' })).toBe('Echo: b');
		} finally {
			await connection.close();
		}
		expect(refreshes()).toBe(1);
		expect(fixture.stats().mcp401).toBe(1);
	});

	it('a revoked grant fails with "reconnect", naming the credential and no token', async () => {
		await withFixture();
		const { tokens, refresh } = await connectLikeN8n(fixture);
		const { auth } = await hostAuth({ ...tokens }, () => refresh(tokens.refresh_token as string));
		fixture.revokeAll();
		const failure = await mcpFailureOf(McpConnection.open(config(auth)));
		expect(failure.kind).toBe('reconnect');
		expect(failure.message).toMatch(/"My MCP" was revoked or has expired \(.*invalid_grant.*\)\. Open the credential and click "Connect my account" again/);
		expect(failure.message).not.toContain(tokens.access_token);
		expect(failure.message).not.toContain(tokens.refresh_token as string);
	});

	it('a second 401 after a refresh fails with "reconnect" and does not refresh again', async () => {
		await withFixture();
		const { tokens } = await connectLikeN8n(fixture);
		// The host hands back a token the server does not know (as if another instance's refresh won).
		const { auth, refreshes } = await hostAuth({ ...tokens }, async () => ({ access_token: 'at_not-known-to-the-server-0123456789', refresh_token: 'rt_x1234567890' }));
		fixture.expireAccessTokens();
		const failure = await mcpFailureOf(McpConnection.open(config(auth)));
		expect(failure.kind).toBe('reconnect');
		expect(failure.message).toMatch(/again after the access token was renewed|even after a token refresh/);
		expect(refreshes()).toBe(1);
		expect(failure.message).not.toContain('at_not-known-to-the-server-0123456789');
	});

	/** The OAuth credential as the nodes read it (issue 26, point 5: the advice follows Register Client Automatically). */
	function credentialConfig(tokens: HostTokenData, useDynamicClientRegistration: boolean) {
		return oauthConfigFromCredential(
			{ serverUrl: fixture.urls.mcpUrl, useDynamicClientRegistration, connectTimeout: 10_000, requestTimeout: 10_000 },
			{ initial: tokens, label: 'My MCP', skipGrantCheck: true, refresh: async () => { throw new Error('the host has no refresh token to use'); } },
		);
	}

	const AUTOMATIC = /with Register Client Automatically on, n8n asks for exactly the scopes the MCP server publishes.*turn Register Client Automatically off.*put "(offline_access|mcp:write)" with the other scopes you need in Scope, and click "Connect my account" again\.$/;

	it.each([
		['on', true, AUTOMATIC],
		['off', false, /: open the credential, add "offline_access" to Scope, and click "Connect my account" again\.$/],
	])('no refresh token (Register Client Automatically %s): the 401 says how to get one with offline_access', async (_label, automatic, advice) => {
		await withFixture();
		const { tokens } = await connectLikeN8n(fixture, 'mcp:read');
		// An authorization server that issues refresh tokens only for offline_access gave none.
		const { refresh_token: _none, ...withoutRefresh } = tokens;
		fixture.expireAccessTokens();
		const failure = await mcpFailureOf(McpConnection.open(credentialConfig(withoutRefresh, automatic)));
		expect(failure.kind).toBe('reconnect');
		expect(failure.message).toMatch(/^The OAuth credential "My MCP" was refused by the MCP server .*holds no refresh token.*only when the scope includes "offline_access"/);
		expect(failure.message).toMatch(advice);
		expect(failure.message).not.toContain(tokens.access_token);
	});

	it.each([
		['on', true, AUTOMATIC],
		['off', false, /A person has to approve more access: open the credential, add "mcp:write" to Scope, and click "Connect my account" again\.$/],
	])('403 insufficient_scope (Register Client Automatically %s): the advice fits the registration mode', async (_label, automatic, advice) => {
		await withFixture();
		const { tokens } = await connectLikeN8n(fixture, 'mcp:read');
		const connection = await McpConnection.open(credentialConfig(tokens, automatic));
		try {
			const failure = await mcpFailureOf(callText(connection, 'write_note', { text: 'x' }));
			expect(failure.kind).toBe('insufficient-scope');
			expect(failure.message).toMatch(advice);
			expect(failure.message).not.toContain('where the field is shown');
		} finally {
			await connection.close();
		}
	});

	it('403 insufficient_scope fails the call naming the missing scope and asking to reconnect', async () => {
		await withFixture();
		const { tokens, refresh } = await connectLikeN8n(fixture, 'mcp:read');
		const { auth } = await hostAuth({ ...tokens }, () => refresh(tokens.refresh_token as string));
		const connection = await McpConnection.open(config(auth));
		try {
			const failure = await mcpFailureOf(callText(connection, 'write_note', { text: 'x' }));
			expect(failure.kind).toBe('insufficient-scope');
			expect(failure.message).toContain('the scope "mcp:write"');
			expect(failure.message).toContain('Connect my account');
			expect(fixture.stats().authorize).toBe(1); // no authorization attempted by the node
		} finally {
			await connection.close();
		}
	});

	it('keeps tokens out of results and errors, also the ones a refresh brought', async () => {
		await withFixture();
		const { tokens, refresh } = await connectLikeN8n(fixture);
		let stored: HostTokenData = { ...tokens };
		const { auth } = await hostAuth(stored, async () => {
			stored = await refresh(stored.refresh_token as string);
			return stored;
		});
		const connection = await McpConnection.open(config(auth));
		try {
			expect(await callText(connection, 'echo_authorization')).toBe('You sent: Bearer [redacted]');
			fixture.expireAccessTokens();
			const echoed = await callText(connection, 'echo_authorization');
			expect(echoed).toBe('You sent: Bearer [redacted]');
			expect(stored.access_token).not.toBe(tokens.access_token);
			expect(connection.redact.text(`old ${tokens.access_token} new ${stored.access_token as string}`)).toBe('old [redacted] new [redacted]');
		} finally {
			await connection.close();
		}
	});
});

describe('issuer checks of a grant n8n redeemed (callbackQueryString.iss)', () => {
	async function openWithStoredIss(iss: string | undefined) {
		const { tokens } = await connectLikeN8n(fixture);
		const data = { serverUrl: fixture.urls.mcpUrl, oauthTokenData: { ...tokens, ...(iss === undefined ? {} : { callbackQueryString: { iss } }) } };
		const config = oauthConfigFromCredential(data, { initial: data.oauthTokenData, refresh: async () => undefined, label: 'My MCP' });
		return McpConnection.open({ ...config, connectTimeoutMs: 10_000, requestTimeoutMs: 10_000 });
	}

	it('a matching iss: the token is used', async () => {
		await withFixture();
		const connection = await openWithStoredIss(fixture.urls.issuer);
		await connection.close();
		expect(fixture.stats().mcpRequests).toBeGreaterThan(0);
	});

	it.each([
		['another issuer', 'https://evil.example.com'],
		['a normalized issuer (trailing slash)', 'ISSUER/'],
		['no iss although the server advertises it', undefined],
	])('%s: the token never reaches the MCP server', async (_label, iss) => {
		await withFixture();
		const failure = await mcpFailureOf(openWithStoredIss(iss === 'ISSUER/' ? `${fixture.urls.issuer}/` : iss));
		expect(failure.kind).toBe('reconnect');
		expect(failure.message).toMatch(/did not come from its authorization server.*RFC 9207.*Connect my account/);
		expect(failure.message).not.toContain('evil');
		expect(fixture.stats().mcpRequests).toBe(0);
	});
});

describe('client-credentials grant', () => {
	it.each(['client_secret_basic', 'client_secret_post'] as const)('%s: discovers the token endpoint from the MCP URL, lists and calls', async (method) => {
		await withFixture();
		const { client_id, client_secret } = fixture.urls.clients.secret;
		const auth = clientCredentialsAuth({ clientId: client_id, authentication: { method, clientSecret: client_secret }, scope: 'mcp:read' });
		const connection = await McpConnection.open(config(auth));
		try {
			expect(await callText(connection, 'echo', { message: 'cc' })).toBe('Echo: cc');
			expect(JSON.parse(await callText(connection, 'whoami'))).toEqual({ client_id, scope: 'mcp:read' });
		} finally {
			await connection.close();
		}
		expect(fixture.stats().token.client_credentials).toBe(1);
		expect(fixture.stats().lastToken).toMatchObject({ grant_type: 'client_credentials', resource: fixture.urls.mcpUrl, ...(method === 'client_secret_post' ? { client_id } : {}) });
	});

	it('a configured Scope wider than the 401 challenge\'s is what the token request asks for', async () => {
		await withFixture({ challengeScope: 'mcp:read' });
		const { client_id, client_secret } = fixture.urls.clients.secret; // allowed mcp:read mcp:write
		const auth = clientCredentialsAuth({ clientId: client_id, authentication: { method: 'client_secret_basic', clientSecret: client_secret }, scope: 'mcp:read mcp:write' });
		const connection = await McpConnection.open(config(auth));
		try {
			expect(await callText(connection, 'write_note', { text: 'cc' })).toBe('Saved: cc');
		} finally {
			await connection.close();
		}
		expect(fixture.stats().lastToken).toMatchObject({ grant_type: 'client_credentials', scope: 'mcp:read mcp:write' });
		expect(fixture.stats().token.client_credentials).toBe(1);
	});

	it('with Scope empty, the challenge\'s scope is asked for (as before)', async () => {
		await withFixture({ challengeScope: 'mcp:read' });
		const { client_id, client_secret } = fixture.urls.clients.secret;
		const auth = clientCredentialsAuth({ clientId: client_id, authentication: { method: 'client_secret_basic', clientSecret: client_secret }, scope: '  ' });
		const connection = await McpConnection.open(config(auth));
		try {
			expect(JSON.parse(await callText(connection, 'whoami')).scope).toBe('mcp:read');
		} finally {
			await connection.close();
		}
		expect(fixture.stats().lastToken).toMatchObject({ grant_type: 'client_credentials', scope: 'mcp:read' });
	});

	it('private_key_jwt (ES256), pinned to the issuer', async () => {
		await withFixture();
		const { client_id, private_key_pem, algorithm } = fixture.urls.clients.jwt;
		const auth = clientCredentialsAuth({ clientId: client_id, authentication: { method: 'private_key_jwt', privateKeyPem: private_key_pem, algorithm }, expectedIssuer: fixture.urls.issuer });
		const connection = await McpConnection.open(config(auth));
		try {
			expect(JSON.parse(await callText(connection, 'whoami')).client_id).toBe(client_id);
		} finally {
			await connection.close();
		}
		expect(fixture.stats().token.client_credentials).toBe(1);
	});

	it('a wrong secret fails with the OAuth error code and what to check, never the secret', async () => {
		await withFixture();
		const secret = 'wrong-secret-value-1234567890';
		const auth = clientCredentialsAuth({ clientId: fixture.urls.clients.secret.client_id, authentication: { method: 'client_secret_basic', clientSecret: secret } });
		const failure = await mcpFailureOf(McpConnection.open(config(auth)));
		expect(failure.kind).toBe('oauth');
		expect(failure.message).toMatch(/refused the token request with invalid_client.*Check the client ID/);
		expect(failure.message).not.toContain(secret);
	});

	it('a pinned issuer other than the server\'s authorization server: the secret is never sent', async () => {
		await withFixture();
		const { client_id, client_secret } = fixture.urls.clients.secret;
		const auth = clientCredentialsAuth({ clientId: client_id, authentication: { method: 'client_secret_basic', clientSecret: client_secret }, expectedIssuer: 'https://other-issuer.example.com' });
		await mcpFailureOf(McpConnection.open(config(auth)));
		expect(fixture.stats().token.client_credentials).toBe(0);
	});

	it('insufficient scope names the scope and points at the credential\'s Scope field', async () => {
		await withFixture();
		const { client_id, private_key_pem, algorithm } = fixture.urls.clients.jwt; // allowed mcp:read only
		const auth = clientCredentialsAuth({ clientId: client_id, authentication: { method: 'private_key_jwt', privateKeyPem: private_key_pem, algorithm } });
		const connection = await McpConnection.open(config(auth));
		try {
			const failure = await mcpFailureOf(callText(connection, 'write_note', { text: 'x' }));
			expect(failure.kind).toBe('insufficient-scope');
			expect(failure.message).toMatch(/"mcp:write".*Scope in the credential/);
			expect(failure.message).not.toContain('BEGIN PRIVATE KEY');
		} finally {
			await connection.close();
		}
	});
});

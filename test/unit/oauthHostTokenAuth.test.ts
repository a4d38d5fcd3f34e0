import { createPublicKey, verify } from 'node:crypto';
import { generateKeyPairSync } from 'node:crypto';
import { explainMcpError } from '../../lib/mcp/errors';
import { hostTokenAuth, type HostTokenData } from '../../lib/mcp/oauth/hostTokenAuth';
import { readPrivateKey, signClientAssertion } from '../../lib/mcp/oauth/clientAssertion';
import { httpConfigFromCredential, oauthConfigFromCredential } from '../../lib/mcp/credentialData';
import { redactorForServer } from '../../lib/mcp/secrets';
import { InsufficientScopeError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { AuthProvider } from '@modelcontextprotocol/client';
import { mcpFailureOf } from '../support/mcpFailure';

/** hostTokenAuth without a network: the host's refresh is a counted stub. */
function host(initial: HostTokenData | undefined, refresh: () => Promise<HostTokenData | undefined>, now = () => 1_000_000) {
	let calls = 0;
	const auth = hostTokenAuth(
		{
			initial,
			refresh: () => {
				calls++;
				return refresh();
			},
		},
		{ credentialLabel: 'Linear', now },
	);
	return { auth, provider: auth.provider as AuthProvider, calls: () => calls };
}

const unauthorized = {} as Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0];

describe('hostTokenAuth', () => {
	it('uses the stored token as long as it is not about to expire', async () => {
		const { provider, calls } = host({ access_token: 'at-1', refresh_token: 'rt-1', expires_in: 3600, n8n_expires_at: 1_000_000 + 3_600_000 }, async () => ({ access_token: 'at-2' }));
		expect(await provider.token()).toBe('at-1');
		expect(calls()).toBe(0);
	});

	it('refreshes first when the token expires within a tenth of its lifetime (at most 2 minutes)', async () => {
		// 3600 s lifetime: the buffer is 2 min; 100 s left is inside it.
		const { provider, calls } = host({ access_token: 'at-1', refresh_token: 'rt-1', expires_in: 3600, n8n_expires_at: 1_000_000 + 100_000 }, async () => ({ access_token: 'at-2', refresh_token: 'rt-2' }));
		expect(await provider.token()).toBe('at-2');
		expect(calls()).toBe(1);
		// 60 s lifetime: the buffer is 6 s; 10 s left is outside it.
		const later = host({ access_token: 'at-1', refresh_token: 'rt-1', expires_in: 60, n8n_expires_at: 1_000_000 + 10_000 }, async () => ({ access_token: 'at-2' }));
		expect(await later.provider.token()).toBe('at-1');
	});

	it('without an expiry stamp (n8n 1.x) it waits for the server\'s 401', async () => {
		const { provider, calls } = host({ access_token: 'at-1', refresh_token: 'rt-1', expires_in: 1 }, async () => ({ access_token: 'at-2' }));
		expect(await provider.token()).toBe('at-1');
		expect(calls()).toBe(0);
	});

	it('parallel requests share one refresh', async () => {
		let release: (value: HostTokenData) => void = () => undefined;
		const { provider, calls } = host({ access_token: 'at-1', refresh_token: 'rt-1', expires_in: 3600, n8n_expires_at: 1 }, () => new Promise((resolve) => (release = resolve)));
		const tokens = Promise.all([provider.token(), provider.token(), provider.token()]);
		await new Promise((resolve) => setImmediate(resolve));
		release({ access_token: 'at-2', refresh_token: 'rt-2' });
		expect(await tokens).toEqual(['at-2', 'at-2', 'at-2']);
		expect(calls()).toBe(1);
	});

	it('refreshes on a 401; a 401 right after a refresh is retried with the new token, without another refresh', async () => {
		let clock = 1_000_000;
		let issued = 1;
		const { provider, calls } = host({ access_token: 'at-1', refresh_token: 'rt-1' }, async () => ({ access_token: `at-${++issued}`, refresh_token: `rt-${issued}` }), () => clock);
		// Two requests went out with at-1; both come back 401, the second after the first one's refresh.
		await provider.onUnauthorized?.(unauthorized);
		expect(await provider.token()).toBe('at-2');
		await provider.onUnauthorized?.(unauthorized);
		expect(await provider.token()).toBe('at-2');
		expect(calls()).toBe(1);
		// Later in the same run (n8n 1.x stores no expiry): the renewed token expired too, and is renewed on its 401.
		clock += 10 * 60_000;
		await provider.onUnauthorized?.(unauthorized);
		expect(await provider.token()).toBe('at-3');
		expect(calls()).toBe(2);
	});

	it('n8n\'s "needs to be reconnected" and a raw invalid_grant both become the reconnect message', async () => {
		for (const thrown of [new Error('The credential "Linear" needs to be reconnected.'), Object.assign(new Error('refresh failed'), { body: { error: 'invalid_grant' } })]) {
			const { provider } = host({ access_token: 'at-1', refresh_token: 'rt-1' }, async () => {
				throw thrown;
			});
			const refused = await mcpFailureOf(provider.onUnauthorized!(unauthorized));
			expect(refused.kind).toBe('reconnect');
			expect(refused.message).toMatch(/^The OAuth credential "Linear" was revoked or has expired \(the authorization server answered invalid_grant to the token refresh\)\. Open the credential and click "Connect my account" again/);
		}
	});

	it('no token yet: says to connect, and makes no request', async () => {
		const { provider } = host(undefined, async () => undefined);
		expect((await mcpFailureOf(provider.token())).message).toMatch(/"Linear" is not connected yet \(no access token\)\. Open the credential and click "Connect my account"/);
	});

	it('every token it held is a secret of the configuration, the refreshed ones too', async () => {
		const data = { serverUrl: 'https://mcp.example.com/mcp', oauthTokenData: { access_token: 'at-first-0123456789', refresh_token: 'rt-first-0123456789' } };
		const config = oauthConfigFromCredential(data, { initial: data.oauthTokenData, refresh: async () => ({ access_token: 'at-second-0123456789', refresh_token: 'rt-second-0123456789' }) });
		const redactor = redactorForServer(config);
		expect(redactor.text('at-first-0123456789 rt-first-0123456789')).toBe('[redacted] [redacted]');
		await (config.auth?.provider as AuthProvider).onUnauthorized?.(unauthorized);
		expect(redactor.text('at-first-0123456789 / at-second-0123456789 / rt-second-0123456789')).toBe('[redacted] / [redacted] / [redacted]');
	});
});

describe('private_key_jwt keys and their algorithm', () => {
	it('an ES algorithm takes a key on its own curve only, and says which one it needs', () => {
		const pem = (namedCurve: string) => generateKeyPairSync('ec', { namedCurve }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
		expect(() => readPrivateKey(pem('P-256'), 'ES256')).not.toThrow();
		expect(() => readPrivateKey(pem('P-384'), 'ES384')).not.toThrow();
		expect(() => readPrivateKey(pem('P-384'), 'ES256')).toThrow('ES256 needs a prime256v1 key (P-256)');
		expect(() => readPrivateKey(pem('P-256'), 'ES512')).toThrow('ES512 needs a secp521r1 key (P-521)');
	});
});

describe('the OAuth credential\'s client secret', () => {
	it('is redacted from a failed refresh that quotes it, also after many token rotations', async () => {
		const clientSecret = 'cs_9f8e7d6c5b4a3210ZYXWVUTS';
		let issued = 0;
		let fail = false;
		const data = { serverUrl: 'https://mcp.example.com/mcp', clientSecret, oauthTokenData: { access_token: 'at-0-0123456789', refresh_token: 'rt-0-0123456789' } };
		let clock = 1_000_000;
		const now = Date.now;
		// hostTokenAuth reads the clock it was given at creation (Date.now here).
		Date.now = () => clock;
		const config = oauthConfigFromCredential(data, {
			initial: data.oauthTokenData,
			skipGrantCheck: true,
			refresh: async () => {
				if (fail) throw new Error(`token endpoint said: bad request (client_id=svc&client_secret=${clientSecret})`);
				issued++;
				return { access_token: `at-${issued}-0123456789`, refresh_token: `rt-${issued}-0123456789` };
			},
		});
		const provider = config.auth!.provider as AuthProvider;
		try {
			for (let i = 0; i < 40; i++) {
				clock += 60_000;
				await provider.onUnauthorized!(unauthorized);
			}
			fail = true;
			clock += 60_000;
			const failure = await provider.onUnauthorized!(unauthorized).then(() => undefined, (error: unknown) => error);
			const explained = explainMcpError(failure, config, 'calling tool x');
			expect(explained.message).toContain('could not be refreshed');
			expect(explained.message).not.toContain(clientSecret);
		} finally {
			Date.now = now;
		}
	});
});

describe('OAuth errors explained (lib/mcp/errors.ts)', () => {
	const config = oauthConfigFromCredential({ serverUrl: 'https://mcp.example.com/mcp' }, { initial: { access_token: 'at-secret-0123456789' }, refresh: async () => undefined });

	it('insufficient_scope names the scope and says to reconnect', () => {
		const explained = explainMcpError(new InsufficientScopeError({ requiredScope: 'issues:write' }), config, 'calling tool create_issue');
		expect(explained.kind).toBe('insufficient-scope');
		expect(explained.message).toBe(
			'https://mcp.example.com/mcp answered 403 insufficient_scope while calling tool create_issue: the access token lacks the scope "issues:write". A person has to approve more access: with Register Client Automatically on, n8n asks for exactly the scopes the MCP server publishes (its scopes_supported) and shows no Scope field, so either the server\'s operator publishes "issues:write" there, or you turn Register Client Automatically off, register a client with the authorization server (for the OAuth Redirect URL shown in the credential), enter its endpoints, client ID and secret, put "issues:write" with the other scopes you need in Scope, and click "Connect my account" again.',
		);
	});

	it('a scope that is not OAuth scope syntax is not repeated (it comes from the server)', () => {
		const explained = explainMcpError(new InsufficientScopeError({ requiredScope: 'x"\n[click](https://evil)' }), config, 'calling tool t');
		expect(explained.message).toContain('lacks a scope the server requires');
		expect(explained.message).not.toContain('evil');
	});

	it('a second 401 is "reconnect" and never shows the token', () => {
		const error = new SdkError(SdkErrorCode.ClientHttpAuthentication, 'Server returned 401 after re-authentication at-secret-0123456789', { status: 401 });
		const explained = explainMcpError(error, config, 'listing tools');
		expect(explained.kind).toBe('reconnect');
		expect(explained.message).toMatch(/answered 401 Unauthorized again after the access token was renewed, while listing tools\. Open the credential/);
		expect(explained.message).not.toContain('at-secret-0123456789');
	});
});

describe('client credentials from the HTTP credential', () => {
	it('builds the OAuth client-credentials auth, with the secret redacted', () => {
		const config = httpConfigFromCredential({ url: 'https://mcp.example.com/mcp', authentication: 'oauthClientCredentials', clientId: 'svc', clientAuthMethod: 'client_secret_post', clientSecret: 'cs-0123456789abcdef', scope: 'a b' });
		expect(config.auth?.kind).toBe('client-credentials');
		expect(config.headers).toEqual({});
		expect(redactorForServer(config).text('cs-0123456789abcdef')).toBe('[redacted]');
	});

	it('a broken private key fails at once without quoting it', () => {
		const pem = '-----BEGIN PRIVATE KEY-----\nnot-a-key-0123456789\n-----END PRIVATE KEY-----';
		expect(() => httpConfigFromCredential({ url: 'https://mcp.example.com/mcp', authentication: 'oauthClientCredentials', clientId: 'svc', clientAuthMethod: 'private_key_jwt', privateKey: pem, signingAlgorithm: 'ES256' })).toThrow(
			/not a PEM private key/,
		);
		try {
			httpConfigFromCredential({ url: 'https://x/mcp', authentication: 'oauthClientCredentials', clientId: 'svc', clientAuthMethod: 'private_key_jwt', privateKey: pem, signingAlgorithm: 'ES256' });
		} catch (error) {
			expect((error as Error).message).not.toContain('not-a-key');
		}
	});

	it.each(['ES256', 'RS256', 'PS256', 'EdDSA'])('%s client assertion verifies with the public key; iss = sub = client id, aud = the issuer', (alg) => {
		const pair =
			alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : alg === 'EdDSA' ? generateKeyPairSync('ed25519') : generateKeyPairSync('rsa', { modulusLength: 2048 });
		const pem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
		const key = readPrivateKey(pem, alg);
		const jwt = signClientAssertion({ clientId: 'svc', audience: 'https://auth.example.com', key, algorithm: alg as 'ES256' });
		const [header, payload, signature] = jwt.split('.');
		const data = Buffer.from(`${header}.${payload}`);
		const sig = Buffer.from(signature, 'base64url');
		const publicKey = createPublicKey(pem);
		const hash = alg === 'EdDSA' ? null : 'sha256';
		const options = alg === 'ES256' ? { key: publicKey, dsaEncoding: 'ieee-p1363' as const } : alg === 'PS256' ? { key: publicKey, padding: 6, saltLength: 32 } : publicKey;
		expect(verify(hash, data, options, sig)).toBe(true);
		expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg, typ: 'JWT' });
		const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
		expect(claims).toMatchObject({ iss: 'svc', sub: 'svc', aud: 'https://auth.example.com' });
		expect(claims.exp - claims.iat).toBe(300);
	});

	it('refuses a key that cannot sign the chosen algorithm', () => {
		const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
		expect(() => readPrivateKey(rsa, 'ES256')).toThrow('The private key in the credential is a rsa key, which cannot sign ES256.');
	});
});

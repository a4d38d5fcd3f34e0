import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpConnection } from '../../lib/mcp/connection';
import { clientCredentialsAuth } from '../../lib/mcp/oauth/clientCredentials';
import { checkStoredGrantIssuer } from '../../lib/mcp/oauth/storedGrantCheck';
import { AddressRefused, ALLOWED_PRIVATE_HOSTS_VARIABLE, type ResolveHost } from '../../lib/mcp/urlPolicy';
import { httpConfig } from '../support/servers';
import { connectLikeN8n, startOAuthFixture, type OAuthFixture } from '../support/oauthFixture';

/**
 * A remote MCP server must not make n8n send requests to hosts of its choosing inside n8n's
 * network (lib/mcp/urlPolicy.ts). The loopback OAuth fixture names, in its protected-resource
 * metadata, an authorization server n8n must not contact; the test shows that nothing was sent
 * there. Nothing leaves 127.0.0.1: 0.0.0.0 is this machine on Linux (the fixture would see its Host
 * header), and names are resolved by an injected resolver and fetched through a fetch that sends
 * every request to the fixture.
 */

let fixture: OAuthFixture;

afterEach(async () => {
	await fixture?.close();
});

function port(): string {
	return new URL(fixture.urls.issuer).port;
}

/** A fetch that sends every request to the fixture (whatever host the URL names) and records the URLs. */
function toFixture(seen: string[]): typeof fetch {
	return (async (input: string | URL | Request, init?: RequestInit) => {
		const url = new URL(input instanceof Request ? input.url : input);
		seen.push(url.href);
		url.protocol = 'http:';
		url.host = `127.0.0.1:${port()}`;
		return fetch(url, init);
	}) as typeof fetch;
}

describe("the stored grant's issuer check (n8n's Connect my account)", () => {
	it('does not fetch the metadata of an authorization server at 0.0.0.0, which a loopback MCP server names', async () => {
		fixture = await startOAuthFixture();
		const { tokens } = await connectLikeN8n(fixture);
		fixture.configure({ authorizationServers: [`http://0.0.0.0:${port()}`] });
		const before = fixture.stats().hosts;
		const failure = await checkStoredGrantIssuer(fixture.urls.mcpUrl, { ...tokens, callbackQueryString: { iss: fixture.urls.issuer } }, { timeoutMs: 10_000 }).catch(
			(error: unknown) => error,
		);
		expect(failure).toBeInstanceOf(AddressRefused);
		expect((failure as AddressRefused).message).toBe(
			`n8n did not contact 0.0.0.0:${port()}, which the MCP server ${fixture.urls.mcpUrl} named for OAuth discovery: it is an unspecified address (0.0.0.0 or ::).`,
		);
		expect((failure as AddressRefused).description).toContain(ALLOWED_PRIVATE_HOSTS_VARIABLE);
		expect(fixture.stats().hosts).toEqual(before);
		expect(before).not.toContain(`0.0.0.0:${port()}`);
	});

	it('does not fetch an authorization server whose name resolves to a private address when the MCP server is on loopback', async () => {
		fixture = await startOAuthFixture();
		fixture.configure({ authorizationServers: [`http://auth.corp.test:${port()}`] });
		const seen: string[] = [];
		const resolve: ResolveHost = async (host) => (host === 'auth.corp.test' ? ['10.0.0.1'] : ['127.0.0.1']);
		const failure = await checkStoredGrantIssuer(
			fixture.urls.mcpUrl,
			{ access_token: 'at', callbackQueryString: {} },
			{ timeoutMs: 10_000, fetchFn: toFixture(seen), resolve, env: {} },
		).catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(AddressRefused);
		expect((failure as AddressRefused).reason).toBe("it is a private network address (auth.corp.test resolves to 10.0.0.1), and the MCP server's own address is not");
		expect(seen.length).toBeGreaterThan(0);
		expect(seen.filter((url) => new URL(url).hostname === 'auth.corp.test')).toEqual([]);
	});

	it('fetches it when an administrator allows the host', async () => {
		fixture = await startOAuthFixture();
		fixture.configure({ authorizationServers: [`http://auth.corp.test:${port()}`] });
		const seen: string[] = [];
		const resolve: ResolveHost = async (host) => (host === 'auth.corp.test' ? ['10.0.0.1'] : ['127.0.0.1']);
		// The fixture's metadata names its own origin as issuer, not auth.corp.test: the check fails on
		// the issuer (RFC 8414), after fetching, which is the point here.
		const failure = await checkStoredGrantIssuer(
			fixture.urls.mcpUrl,
			{ access_token: 'at', callbackQueryString: {} },
			{
				timeoutMs: 10_000,
				fetchFn: toFixture(seen),
				resolve,
				env: { [ALLOWED_PRIVATE_HOSTS_VARIABLE]: '10.0.0.0/8' },
			},
		).catch((error: unknown) => error);
		expect(failure).not.toBeInstanceOf(AddressRefused);
		expect(seen.some((url) => new URL(url).hostname === 'auth.corp.test')).toBe(true);
	});
	it('connects to the address it checked, not to a second DNS answer (pinned)', async () => {
		fixture = await startOAuthFixture();
		fixture.configure({ authorizationServers: [`http://auth.loop.test:${port()}`] });
		const asked: string[] = [];
		// Loopback for the check (the MCP server is on loopback too: allowed); the system resolver
		// would not know the name at all, so the request can only have used the checked address.
		const resolve: ResolveHost = async (host) => {
			asked.push(host);
			return ['127.0.0.1'];
		};
		const failure = await checkStoredGrantIssuer(fixture.urls.mcpUrl, { access_token: 'at', callbackQueryString: {} }, { timeoutMs: 10_000, resolve, env: {} }).catch(
			(error: unknown) => error,
		);
		// The fixture's metadata names its own origin as issuer, not auth.loop.test: RFC 8414 refuses it.
		expect(failure).not.toBeInstanceOf(AddressRefused);
		expect(String((failure as Error).message)).toMatch(/issuer does not match/);
		expect(fixture.stats().hosts).toContain(`auth.loop.test:${port()}`);
		expect(asked.every((host) => host === 'auth.loop.test')).toBe(true);
	});
});

describe('the client-credentials grant (discovery by the SDK transport)', () => {
	it('does not send the client secret to, nor fetch metadata from, an authorization server at 0.0.0.0', async () => {
		fixture = await startOAuthFixture();
		fixture.configure({ authorizationServers: [`http://0.0.0.0:${port()}`] });
		const { client_id, client_secret } = fixture.urls.clients.secret;
		const auth = clientCredentialsAuth({ clientId: client_id, authentication: { method: 'client_secret_basic', clientSecret: client_secret }, scope: 'mcp:read' });
		const failure = await McpConnection.open(httpConfig(fixture.urls.mcpUrl, { auth, connectTimeoutMs: 10_000, requestTimeoutMs: 10_000 })).then(
			async (connection) => {
				await connection.close();
				return undefined;
			},
			(error: unknown) => error,
		);
		expect(failure).toBeInstanceOf(AddressRefused);
		expect((failure as AddressRefused).message).toContain(`n8n did not contact 0.0.0.0:${port()}`);
		expect((failure as AddressRefused).message).not.toContain(client_secret);
		expect(fixture.stats().hosts).not.toContain(`0.0.0.0:${port()}`);
		expect(fixture.stats().token.client_credentials).toBe(0);
	});
});

describe('redirects of the MCP server', () => {
	it.each(['streamableHttp', 'sse'] as const)('%s: a redirect to another origin (0.0.0.0) is not followed', async (transport) => {
		const target = createServer((_req, res) => res.writeHead(500).end());
		let targetRequests = 0;
		target.on('request', () => targetRequests++);
		await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
		const targetPort = (target.address() as AddressInfo).port;
		const redirecting = createServer((req, res) => res.writeHead(307, { location: `http://0.0.0.0:${targetPort}${req.url ?? '/'}` }).end());
		await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
		const url = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/mcp`;
		try {
			await expect(McpConnection.open(httpConfig(url, { transport, connectTimeoutMs: 5_000, requestTimeoutMs: 5_000 }))).rejects.toThrow();
			expect(targetRequests).toBe(0);
		} finally {
			redirecting.closeAllConnections();
			target.closeAllConnections();
			await new Promise((resolve) => redirecting.close(resolve));
			await new Promise((resolve) => target.close(resolve));
		}
	});
});

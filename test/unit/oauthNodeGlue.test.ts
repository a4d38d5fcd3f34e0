/**
 * The n8n side of the OAuth credential: the Server Connection "oauth" resolves the
 * mcpServerOAuth2Api credential, the transport gets its stored token, and a refresh goes through
 * n8n's own helper (refreshOAuth2Token, bound to the context that owns the credential) whose
 * result is used at once; the MCP Server sub-node hands the Agent a config that does the same.
 */
import { createServer, type Server } from 'node:http';
import type { AuthProvider } from '@modelcontextprotocol/client';
import type { IExecuteFunctions, INode, ISupplyDataFunctions } from 'n8n-workflow';
import { SIGN_IN_CREDENTIAL } from '../../lib/mcp/credentialData';
import type { HttpServerConfig } from '../../lib/mcp/serverConfig';
import { REDACTED } from '../../lib/mcp/secrets';
import { McpServer } from '../../nodes/McpServer/McpServer.node';
import { resolveServerConfig, serverCredentials } from '../../nodes/shared/serverConnection';
import { toNodeError } from '../../nodes/shared/nodeErrors';

const NODE: INode = {
	id: '1',
	name: 'MCP Call Tool',
	type: 'mcpCallTool',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
	credentials: { [SIGN_IN_CREDENTIAL]: { id: 'c1', name: 'Linear (OAuth)' } },
};

const STORED = { serverUrl: '', transport: 'streamableHttp', oauthTokenData: { access_token: 'at-stored-0123456789', refresh_token: 'rt-stored-0123456789', expires_in: 3600 } };

// A server that publishes no OAuth metadata (404 everywhere): the stored grant's issuer check has
// nothing to check against, and the token is used as n8n stored it.
let server: Server;
beforeAll(async () => {
	server = createServer((_req, res) => res.writeHead(404).end());
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	STORED.serverUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function context(refreshed: unknown) {
	const refreshCalls: Array<{ self: unknown; type: string }> = [];
	const ctx = {
		getNodeParameter: (name: string) => (name === 'connection' ? 'oauth' : ''),
		getCredentials: async (type: string) => {
			if (type !== SIGN_IN_CREDENTIAL) throw new Error(`unexpected credential ${type}`);
			return STORED;
		},
		getNode: () => NODE,
		getInputData: () => [{ json: {} }],
		helpers: {
			async refreshOAuth2Token(this: unknown, type: string) {
				refreshCalls.push({ self: this, type });
				return refreshed;
			},
		},
	};
	return { ctx, refreshCalls };
}

const unauthorized = {} as Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0];

describe('Server Connection "HTTP with OAuth"', () => {
	it('offers the OAuth credential, tested like the others', () => {
		expect(serverCredentials.find((c) => c.name === SIGN_IN_CREDENTIAL)).toMatchObject({ displayOptions: { show: { connection: ['oauth'] } }, testedBy: 'mcpServerConnectionTest' });
	});

	it('sends the stored token and refreshes through n8n\'s helper on the node\'s own context', async () => {
		const { ctx, refreshCalls } = context({ access_token: 'at-new-0123456789', refresh_token: 'rt-new-0123456789' });
		const config = (await resolveServerConfig(ctx as unknown as IExecuteFunctions)) as HttpServerConfig;
		expect(config.url).toBe(STORED.serverUrl);
		const provider = config.auth?.provider as AuthProvider;
		expect(await provider.token()).toBe('at-stored-0123456789');
		await provider.onUnauthorized?.(unauthorized);
		expect(refreshCalls).toEqual([{ self: ctx, type: SIGN_IN_CREDENTIAL }]);
		expect(await provider.token()).toBe('at-new-0123456789');
		// Both tokens are redacted from anything the node reports.
		const error = toNodeError(ctx as unknown as IExecuteFunctions, new Error('at-stored-0123456789 at-new-0123456789'));
		expect(error.message).toBe(`${REDACTED} ${REDACTED}`);
	});

	it('a failed refresh names the credential, not the node', async () => {
		const { ctx } = context(undefined);
		ctx.helpers.refreshOAuth2Token = async () => {
			throw new Error('The credential "Linear (OAuth)" needs to be reconnected.');
		};
		const config = (await resolveServerConfig(ctx as unknown as IExecuteFunctions)) as HttpServerConfig;
		await expect((config.auth?.provider as AuthProvider).onUnauthorized?.(unauthorized)).rejects.toThrow(/^The OAuth credential "Linear \(OAuth\)" was revoked or has expired/);
	});

	it('MCP Server sub-node: the Agent gets a config whose refresh runs on the sub-node\'s context', async () => {
		const { ctx, refreshCalls } = context({ access_token: 'at-new-0123456789' });
		const supply = { ...ctx, getNodeParameter: (name: string, _i: number, fallback: unknown) => (name === 'connection' ? 'oauth' : fallback) };
		const { response } = await new McpServer().supplyData.call(supply as unknown as ISupplyDataFunctions, 0);
		const config = (response as { config: HttpServerConfig }).config;
		await (config.auth?.provider as AuthProvider).onUnauthorized?.(unauthorized);
		expect(refreshCalls).toEqual([{ self: supply, type: SIGN_IN_CREDENTIAL }]);
	});
});

describe('Keep Server Running in the node glue', () => {
	it('on: pooled by the credential; off: not pooled, but named so the pool closes what it kept for it', async () => {
		const kept = await resolveServerConfig(context({}).ctx as unknown as IExecuteFunctions);
		expect(kept.pooling?.identity).toBe(`${SIGN_IN_CREDENTIAL}\u0000c1`);
		expect(kept.unkeptIdentity).toBeUndefined();
		const off = context({}).ctx;
		off.getCredentials = async () => ({ ...STORED, keepServerRunning: false });
		const unkept = await resolveServerConfig(off as unknown as IExecuteFunctions);
		expect(unkept.pooling).toBeUndefined();
		expect(unkept.unkeptIdentity).toBe(kept.pooling?.identity);
	});
});

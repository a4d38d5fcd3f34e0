/**
 * A kept OAuth connection and n8n's tokens: every execution brings its own auth (bound to its own
 * context, which refreshes through n8n's helper); the pooled connection's transport asks the newest
 * one, and redaction covers the tokens of all of them.
 */
import type { AuthProvider } from '@modelcontextprotocol/client';
import type { McpConnection } from '../../lib/mcp/connection';
import { hostTokenAuth } from '../../lib/mcp/oauth/hostTokenAuth';
import { ConnectionPool } from '../../lib/mcp/pool/connectionPool';
import { poolingFor } from '../../lib/mcp/pool/poolSettings';
import { SwappableAuth } from '../../lib/mcp/pool/swappableAuth';
import { REDACTED, redactorForServer } from '../../lib/mcp/secrets';
import type { HttpServerConfig, McpServerConfig } from '../../lib/mcp/serverConfig';

const unauthorized = {} as Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0];

function execution(token: string, refreshed: string) {
	const refreshes: string[] = [];
	const auth = hostTokenAuth({
		initial: { access_token: token, refresh_token: `rt-${token}` },
		refresh: async () => {
			refreshes.push(token);
			return { access_token: refreshed, refresh_token: `rt-${refreshed}` };
		},
	});
	const data = { serverUrl: 'https://mcp.example.com/mcp', oauthTokenData: { access_token: token } };
	const config: HttpServerConfig & McpServerConfig = {
		kind: 'http', url: 'https://mcp.example.com/mcp', transport: 'streamableHttp', headers: {}, auth,
		trustAnnotations: false, connectTimeoutMs: 1000, requestTimeoutMs: 1000,
		pooling: poolingFor({ type: 'mcpServerOAuthApi', id: 'c1' }, data),
	};
	return { config, refreshes };
}

/** Two executions of the same credential, each with its own tokens (as n8n hands them over). */
function twoExecutions() {
	return { first: execution('at-first-0123456789', 'at-first-new-0123456789'), second: execution('at-second-0123456789', 'at-second-new-0123456789') };
}

/**
 * A pool whose "connections" record the config they were opened with and, for each ping, the token
 * it would carry (the real transport asks the auth provider before every request).
 */
function fakePool(now?: () => number) {
	const opened: McpServerConfig[] = [];
	const pingTokens: Array<string | undefined> = [];
	const pool = new ConnectionPool({
		maxSize: 5,
		now,
		open: async (config) => {
			opened.push(config);
			const ping = async () => {
				pingTokens.push(await ((config as HttpServerConfig).auth!.provider as AuthProvider).token());
			};
			return { config, isAlive: true, lastFailureAt: 0, ping, close: async () => undefined, killNow: () => undefined } as unknown as McpConnection;
		},
	});
	return { pool, opened, pingTokens };
}

describe('pooled OAuth connection', () => {
	it('uses the newest execution\'s tokens and refreshes through its context', async () => {
		const { pool, opened } = fakePool();
		const { first, second } = twoExecutions();
		const leaseA = await pool.acquire(first.config);
		await leaseA.release();
		const leaseB = await pool.acquire(second.config);
		expect(opened).toHaveLength(1);
		expect(leaseB.connection).toBe(leaseA.connection);
		const kept = opened[0] as HttpServerConfig;
		expect(kept.auth).toBeInstanceOf(SwappableAuth);
		const provider = kept.auth!.provider as AuthProvider;
		expect(await provider.token()).toBe('at-second-0123456789');
		await provider.onUnauthorized!(unauthorized);
		// The refresh ran on the second execution's auth (its context), never on the finished first one.
		expect(second.refreshes).toEqual(['at-second-0123456789']);
		expect(first.refreshes).toEqual([]);
		expect(await provider.token()).toBe('at-second-new-0123456789');
		await leaseB.release();
		await pool.closeAll();
	});

	it('the health check after a long idle time pings with the arriving execution\'s tokens, not the finished one\'s', async () => {
		let clock = 1_000_000;
		const { pool, pingTokens } = fakePool(() => clock);
		const { first, second } = twoExecutions();
		await (await pool.acquire(first.config)).release();
		clock += 10 * 60_000;
		const lease = await pool.acquire(second.config);
		expect(pingTokens).toEqual(['at-second-0123456789']);
		expect(first.refreshes).toEqual([]);
		await lease.release();
		await pool.closeAll();
	});

	it('while no execution uses the connection (idle shutdown, eviction, a stream reconnecting), nothing refreshes on a finished execution\'s behalf', async () => {
		const { pool, opened } = fakePool();
		const { first } = twoExecutions();
		const lease = await pool.acquire(first.config);
		const provider = (opened[0] as HttpServerConfig).auth!.provider as AuthProvider;
		await lease.release();
		// The stored token as it is; a 401 is not answered with a refresh.
		expect(await provider.token()).toBe('at-first-0123456789');
		await expect(provider.onUnauthorized!(unauthorized)).rejects.toThrow(/no execution is using/);
		expect(first.refreshes).toEqual([]);
		await pool.closeAll();
	});

	it('a connection refused a token while idle (its stream reopened with an expired one) is replaced for the next execution', async () => {
		const { pool, opened } = fakePool();
		const { first, second } = twoExecutions();
		const leaseA = await pool.acquire(first.config);
		await leaseA.release();
		const provider = (opened[0] as HttpServerConfig).auth!.provider as AuthProvider;
		await expect(provider.onUnauthorized!(unauthorized)).rejects.toThrow(/no execution is using/);
		const leaseB = await pool.acquire(second.config);
		expect(opened).toHaveLength(2);
		expect(leaseB.connection).not.toBe(leaseA.connection);
		expect(await ((opened[1] as HttpServerConfig).auth!.provider as AuthProvider).token()).toBe('at-second-0123456789');
		await leaseB.release();
		await pool.closeAll();
	});

	it('an expiring token is not refreshed while idle either, and the next execution refreshes through its own context', async () => {
		const { pool, opened } = fakePool();
		const expiring = (token: string, refreshed: string) => {
			const made = execution(token, refreshed);
			const refreshes = made.refreshes;
			const auth = hostTokenAuth({
				initial: { access_token: token, refresh_token: `rt-${token}`, expires_in: 10, n8n_expires_at: Date.now() + 1000 } as never,
				refresh: async () => {
					refreshes.push(token);
					return { access_token: refreshed, refresh_token: `rt-${refreshed}` };
				},
			});
			return { config: { ...made.config, auth }, refreshes };
		};
		const first = expiring('at-first-0123456789', 'at-first-new-0123456789');
		const second = expiring('at-second-0123456789', 'at-second-new-0123456789');
		await (await pool.acquire(first.config)).release();
		const provider = (opened[0] as HttpServerConfig).auth!.provider as AuthProvider;
		expect(await provider.token()).toBe('at-first-0123456789');
		expect(first.refreshes).toEqual([]);
		const lease = await pool.acquire(second.config);
		expect(await provider.token()).toBe('at-second-new-0123456789');
		expect(second.refreshes).toEqual(['at-second-0123456789']);
		expect(first.refreshes).toEqual([]);
		await lease.release();
		await pool.closeAll();
	});

	it('when the newest execution finishes first, the one still running takes its auth back', async () => {
		const { pool, opened } = fakePool();
		const { first, second } = twoExecutions();
		const leaseA = await pool.acquire(first.config);
		const leaseB = await pool.acquire(second.config);
		await leaseB.release();
		const provider = (opened[0] as HttpServerConfig).auth!.provider as AuthProvider;
		expect(await provider.token()).toBe('at-first-0123456789');
		await provider.onUnauthorized!(unauthorized);
		expect(first.refreshes).toEqual(['at-first-0123456789']);
		expect(second.refreshes).toEqual([]);
		await leaseA.release();
		await pool.closeAll();
	});

	it('redacts every token the kept connection has carried, old and refreshed', async () => {
		const { pool, opened } = fakePool();
		const { first, second } = twoExecutions();
		await (await pool.acquire(first.config)).release();
		const lease = await pool.acquire(second.config);
		const redactor = redactorForServer(opened[0]);
		await ((opened[0] as HttpServerConfig).auth!.provider as AuthProvider).token();
		await ((opened[0] as HttpServerConfig).auth!.provider as AuthProvider).onUnauthorized!(unauthorized);
		expect(redactor.text('at-first-0123456789 at-second-0123456789 at-second-new-0123456789')).toBe(`${REDACTED} ${REDACTED} ${REDACTED}`);
		await lease.release();
		await pool.closeAll();
	});
});

describe('the stored token handed out while idle', () => {
	const grant = (check: () => Promise<void>) => hostTokenAuth({ initial: { access_token: 'at-grant-0123456789', refresh_token: 'rt-grant-0123456789' }, refresh: async () => undefined }, { checkGrant: check });

	it('is never a grant whose issuer check failed (or never ran)', async () => {
		const refused = grant(async () => {
			throw new Error('issuer check failed');
		});
		expect(refused.storedToken?.()).toBeUndefined();
		await expect((refused.provider as AuthProvider).token()).rejects.toThrow(/issuer check failed/);
		expect(refused.storedToken?.()).toBeUndefined();
		const swappable = new SwappableAuth(refused);
		swappable.use(refused);
		swappable.release(refused);
		await expect((swappable.provider as AuthProvider).token()).rejects.toThrow(/no execution is using it/);
	});

	it('is the grant\'s token once its check passed', async () => {
		const passed = grant(async () => undefined);
		expect(passed.storedToken?.()).toBeUndefined();
		expect(await (passed.provider as AuthProvider).token()).toBe('at-grant-0123456789');
		expect(passed.storedToken?.()).toBe('at-grant-0123456789');
	});
});

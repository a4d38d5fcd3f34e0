/**
 * A kept OAuth connection and n8n's tokens: every execution brings its own auth (bound to its own
 * context, which refreshes through n8n's helper); the pooled connection's transport asks the newest
 * one, and redaction covers the tokens of all of them. Executions share the connection only while
 * they are handed a token the connection produced (the first one's, or one its own refreshes
 * returned, which n8n stored); any other token gets a connection of its own.
 */
import { createHash } from 'node:crypto';
import type { AuthProvider } from '@modelcontextprotocol/client';
import type { McpConnection } from '../../lib/mcp/connection';
import { hostTokenAuth } from '../../lib/mcp/oauth/hostTokenAuth';
import { ConnectionPool } from '../../lib/mcp/pool/connectionPool';
import { poolingFor } from '../../lib/mcp/pool/poolSettings';
import { SwappableAuth } from '../../lib/mcp/pool/swappableAuth';
import { REDACTED, redactorForServer } from '../../lib/mcp/secrets';
import type { HttpServerConfig, McpServerConfig } from '../../lib/mcp/serverConfig';

const unauthorized = {} as Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0];

function execution(token: string, refreshed: string, expiresAt?: number) {
	const refreshes: string[] = [];
	const auth = hostTokenAuth({
		initial: { access_token: token, refresh_token: `rt-${token}`, ...(expiresAt === undefined ? {} : { expires_in: 10, n8n_expires_at: expiresAt }) },
		refresh: async () => {
			refreshes.push(token);
			return { access_token: refreshed, refresh_token: `rt-${refreshed}` };
		},
	});
	const data = { serverUrl: 'https://mcp.example.com/mcp', oauthTokenData: { access_token: token } };
	const config: HttpServerConfig & McpServerConfig = {
		kind: 'http', url: 'https://mcp.example.com/mcp', transport: 'streamableHttp', headers: {}, auth,
		trustAnnotations: false, connectTimeoutMs: 1000, requestTimeoutMs: 1000,
		pooling: poolingFor({ type: 'mcpServerOAuth2Api', id: 'c1' }, data),
	};
	return { config, refreshes };
}

/** The access token n8n stores for the credential and hands every execution. */
const STORED = 'at-stored-0123456789';

/**
 * Two executions of the same credential, each with its own auth over the tokens n8n stores (the
 * same token for both), each refreshing to a token of its own. `expiresAt`: the stored token's expiry.
 */
function twoExecutions(expiresAt?: number) {
	return { first: execution(STORED, 'at-first-new-0123456789', expiresAt), second: execution(STORED, 'at-second-new-0123456789', expiresAt) };
}

/**
 * A pool whose "connections" record the config they were opened with and, for each ping, the token
 * it would carry (the real transport asks the auth provider before every request).
 */
function fakePool(now?: () => number) {
	const opened: McpServerConfig[] = [];
	const closed: McpServerConfig[] = [];
	const pingTokens: Array<string | undefined> = [];
	const pool = new ConnectionPool({
		maxSize: 5,
		now,
		open: async (config) => {
			opened.push(config);
			const ping = async () => {
				pingTokens.push(await ((config as HttpServerConfig).auth!.provider as AuthProvider).token());
			};
			const close = async () => {
				if (!closed.includes(config)) closed.push(config);
			};
			return { config, isAlive: true, lastFailureAt: 0, ping, close, killNow: () => undefined } as unknown as McpConnection;
		},
	});
	return { pool, opened, closed, pingTokens };
}

const providerOf = (config: McpServerConfig) => (config as HttpServerConfig).auth!.provider as AuthProvider;

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
		expect(await provider.token()).toBe(STORED);
		await provider.onUnauthorized!(unauthorized);
		// The refresh ran on the second execution's auth (its context), never on the finished first one.
		expect(second.refreshes).toEqual([STORED]);
		expect(first.refreshes).toEqual([]);
		expect(await provider.token()).toBe('at-second-new-0123456789');
		await leaseB.release();
		await pool.closeAll();
	});

	it('the health check after a long idle time pings with the arriving execution\'s tokens, not the finished one\'s', async () => {
		let clock = 1_000_000;
		const { pool, pingTokens } = fakePool(() => clock);
		// Both were handed the same stored token, which has expired by the time the second arrives:
		// the ping's token is the one the arriving execution's own refresh returned.
		const { first, second } = twoExecutions(Date.now() + 1000);
		await (await pool.acquire(first.config)).release();
		clock += 10 * 60_000;
		const lease = await pool.acquire(second.config);
		expect(pingTokens).toEqual(['at-second-new-0123456789']);
		expect(second.refreshes).toEqual([STORED]);
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
		expect(await provider.token()).toBe(STORED);
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
		expect(await ((opened[1] as HttpServerConfig).auth!.provider as AuthProvider).token()).toBe(STORED);
		await leaseB.release();
		await pool.closeAll();
	});

	it('an expiring token is not refreshed while idle either, and the next execution refreshes through its own context', async () => {
		const { pool, opened } = fakePool();
		const { first, second } = twoExecutions(Date.now() + 1000);
		await (await pool.acquire(first.config)).release();
		const provider = (opened[0] as HttpServerConfig).auth!.provider as AuthProvider;
		expect(await provider.token()).toBe(STORED);
		expect(first.refreshes).toEqual([]);
		const lease = await pool.acquire(second.config);
		expect(opened).toHaveLength(1);
		expect(await provider.token()).toBe('at-second-new-0123456789');
		expect(second.refreshes).toEqual([STORED]);
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
		expect(opened).toHaveLength(1);
		const provider = (opened[0] as HttpServerConfig).auth!.provider as AuthProvider;
		expect(await provider.token()).toBe(STORED);
		await provider.onUnauthorized!(unauthorized);
		expect(first.refreshes).toEqual([STORED]);
		expect(second.refreshes).toEqual([]);
		await leaseA.release();
		await pool.closeAll();
	});

	it('redacts every token the kept connection has carried, old and refreshed', async () => {
		const { pool, opened } = fakePool();
		// The first execution refreshes; n8n stores the result and hands it to the second.
		const first = execution('at-first-0123456789', 'at-second-0123456789');
		const second = execution('at-second-0123456789', 'at-second-new-0123456789');
		const leaseA = await pool.acquire(first.config);
		await providerOf(opened[0]).onUnauthorized!(unauthorized);
		await leaseA.release();
		const lease = await pool.acquire(second.config);
		expect(opened).toHaveLength(1);
		const redactor = redactorForServer(opened[0]);
		await providerOf(opened[0]).token();
		await providerOf(opened[0]).onUnauthorized!(unauthorized);
		expect(redactor.text('at-first-0123456789 at-second-0123456789 at-second-new-0123456789')).toBe(`${REDACTED} ${REDACTED} ${REDACTED}`);
		await lease.release();
		await pool.closeAll();
	});
});

describe('pooled OAuth connection: whose tokens it carries', () => {
	it('a token the connection did not produce (the credential connected again, to another account) gets a connection of its own; the old one closes once released', async () => {
		const { pool, opened, closed } = fakePool();
		const alice = execution('at-alice-0123456789', 'at-alice-new-0123456789');
		const bob = execution('at-bob-0123456789', 'at-bob-new-0123456789');
		const leaseA = await pool.acquire(alice.config);
		const leaseB = await pool.acquire(bob.config);
		expect(opened).toHaveLength(2);
		expect(leaseB.connection).not.toBe(leaseA.connection);
		expect(await providerOf(opened[1]).token()).toBe('at-bob-0123456789');
		// The execution still on the first account keeps its connection (and its token) to the end.
		expect(await providerOf(opened[0]).token()).toBe('at-alice-0123456789');
		expect(closed).toEqual([]);
		await leaseA.release();
		expect(closed).toEqual([opened[0]]);
		await leaseB.release();
		// The new account's connection is the kept one now.
		const again = await pool.acquire(execution('at-bob-0123456789', 'at-bob-new-0123456789').config);
		expect(again.connection).toBe(leaseB.connection);
		expect(opened).toHaveLength(2);
		await again.release();
		await pool.closeAll();
		expect(closed).toEqual([opened[0], opened[1]]);
	});

	it('an idle connection is closed at once when a token not its own arrives', async () => {
		const { pool, opened, closed } = fakePool();
		await (await pool.acquire(execution('at-alice-0123456789', 'at-alice-new-0123456789').config)).release();
		const lease = await pool.acquire(execution('at-bob-0123456789', 'at-bob-new-0123456789').config);
		expect(opened).toHaveLength(2);
		expect(closed).toEqual([opened[0]]);
		expect(pool.size).toBe(1);
		await lease.release();
		await pool.closeAll();
	});

	it('the connection\'s own refreshes keep it: the next execution, handed what a refresh returned, shares it', async () => {
		const { pool, opened } = fakePool();
		// Refreshed after a 401, and the refreshed token handed on without a request carrying it first.
		const first = execution('at-1-0123456789', 'at-2-0123456789');
		const leaseA = await pool.acquire(first.config);
		await providerOf(opened[0]).onUnauthorized!(unauthorized);
		await leaseA.release();
		// Refreshed before a request, its token about to expire.
		const second = execution('at-2-0123456789', 'at-3-0123456789', Date.now() + 1000);
		const leaseB = await pool.acquire(second.config);
		expect(await providerOf(opened[0]).token()).toBe('at-3-0123456789');
		await leaseB.release();
		// Both refreshed tokens are the connection's, and so still is the one it started with.
		for (const token of ['at-3-0123456789', 'at-2-0123456789', 'at-1-0123456789']) {
			const lease = await pool.acquire(execution(token, 'at-unused-0123456789').config);
			expect(lease.connection).toBe(leaseA.connection);
			await lease.release();
		}
		expect(opened).toHaveLength(1);
		expect([...first.refreshes, ...second.refreshes]).toEqual(['at-1-0123456789', 'at-2-0123456789']);
		await pool.closeAll();
	});

	it('a token another process refreshed (queue mode: another worker, stored through n8n) retires the connection too', async () => {
		const { pool, opened, closed } = fakePool();
		await (await pool.acquire(execution('at-1-0123456789', 'at-2-0123456789').config)).release();
		// This process never saw at-2 from a refresh of its own: it cannot tell it from a reconnect.
		const lease = await pool.acquire(execution('at-2-0123456789', 'at-3-0123456789').config);
		expect(opened).toHaveLength(2);
		expect(closed).toEqual([opened[0]]);
		await lease.release();
		await pool.closeAll();
	});

	it('an execution handed no token at all does not share the connection', async () => {
		const { pool, opened } = fakePool();
		await (await pool.acquire(execution('at-1-0123456789', 'at-2-0123456789').config)).release();
		const none = execution('at-1-0123456789', 'at-2-0123456789');
		const config = { ...none.config, auth: hostTokenAuth({ initial: undefined, refresh: async () => undefined }) };
		await (await pool.acquire(config)).release();
		expect(opened).toHaveLength(2);
		await pool.closeAll();
	});

	it('keeps no token, nor a plain hash of one, in its keys or in what it remembers of its tokens', async () => {
		const { pool, opened } = fakePool();
		const tokens = ['at-alice-0123456789', 'at-bob-0123456789'];
		await (await pool.acquire(execution(tokens[0], 'at-alice-new-0123456789').config)).release();
		await (await pool.acquire(execution(tokens[1], 'at-bob-new-0123456789').config)).release();
		const keys = [...(pool as unknown as { entries: Map<string, unknown> }).entries.keys()];
		const remembered = opened.flatMap((config) => [...((config as HttpServerConfig).auth as unknown as { ownTokens: Set<string> }).ownTokens]);
		expect(remembered).toHaveLength(2);
		const kept = [...keys, ...remembered].join(' ');
		for (const value of tokens) {
			expect(kept).not.toContain(value);
			expect(kept).not.toContain(createHash('sha256').update(value).digest('hex').slice(0, 16));
		}
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

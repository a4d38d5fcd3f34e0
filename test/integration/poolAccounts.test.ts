/**
 * One OAuth credential, two accounts: a kept connection against a real Streamable HTTP server whose
 * sessions belong to the account that opened them (test/fixtures/account-http-server.js). A token
 * the connection did not produce (the credential connected again, to another account) must get a
 * session, a tool list and instructions of its own; a token the connection's own refresh produced
 * keeps the warm connection.
 */
import { oauthConfigFromCredential, SIGN_IN_CREDENTIAL } from '../../lib/mcp/credentialData';
import type { HostTokenData } from '../../lib/mcp/oauth/hostTokenAuth';
import { listToolsCached } from '../../lib/mcp/listing';
import { ConnectionPool, type McpLease } from '../../lib/mcp/pool/connectionPool';
import { poolingFor } from '../../lib/mcp/pool/poolSettings';
import type { McpServerConfig } from '../../lib/mcp/serverConfig';
import { callToolValidated } from '../../lib/mcp/toolCall';

interface AccountServer {
	url: string;
	requests: Array<{ httpMethod: string; method?: string; session?: string; account: string | null }>;
	openSessions(): Array<{ id: string; account: string }>;
	grant(token: string, account: string): void;
	revoke(token: string): void;
	close(): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-var-requires
const { startAccountServer } = require('../fixtures/account-http-server.js') as { startAccountServer(): Promise<AccountServer> };

let server: AccountServer;
let pool: ConnectionPool;

beforeEach(async () => {
	server = await startAccountServer();
	pool = new ConnectionPool({ maxSize: 5 });
});

afterEach(async () => {
	await pool.closeAll();
	await server.close();
});

/**
 * What one execution of the credential (id c1) resolves, as serverConfigForNode does: the same
 * credential data but for the token data n8n hands it, and n8n's refresh (here: `refreshed`).
 */
function execution(tokens: HostTokenData, refreshed?: () => HostTokenData): McpServerConfig {
	const data = { serverUrl: server.url, transport: 'streamableHttp', oauthTokenData: tokens };
	const config = oauthConfigFromCredential(data, {
		initial: tokens,
		skipGrantCheck: true,
		refresh: async () => {
			if (!refreshed) throw new Error('no refresh in this test');
			return refreshed();
		},
	});
	return { ...config, pooling: poolingFor({ type: SIGN_IN_CREDENTIAL, id: 'c1' }, data) };
}

async function whoami(lease: McpLease): Promise<{ session: string; request: string }> {
	const tool = (await listToolsCached(lease.connection)).find((entry) => entry.name === 'whoami')!;
	const result = await callToolValidated(lease.connection, tool, {});
	return JSON.parse((result.content as Array<{ text: string }>)[0].text);
}

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error('timed out waiting for the condition');
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

/** The sessions the server saw requests on for an account's tokens. */
function sessionsOf(account: string): string[] {
	return [...new Set(server.requests.filter((request) => request.account === account && request.session).map((request) => request.session as string))];
}

describe('a kept OAuth connection and the account behind its token', () => {
	it('a token the connection did not produce (reconnected to another account) gets its own session, tool list and instructions', async () => {
		server.grant('at-alice-0123456789', 'alice');
		server.grant('at-bob-0123456789', 'bob');

		const alice = await pool.acquire(execution({ access_token: 'at-alice-0123456789', refresh_token: 'rt-alice-0123456789' }));
		expect((await listToolsCached(alice.connection)).map((tool) => tool.name)).toEqual(['files_alice', 'whoami']);
		expect(alice.connection.instructions).toBe('Instructions for alice');
		expect(await whoami(alice)).toEqual({ session: 'alice', request: 'alice' });
		await alice.release();

		// The person clicks "Connect my account" again and signs in as bob: same credential, same settings.
		const bob = await pool.acquire(execution({ access_token: 'at-bob-0123456789', refresh_token: 'rt-bob-0123456789' }));
		expect((await listToolsCached(bob.connection)).map((tool) => tool.name)).toEqual(['files_bob', 'whoami']);
		expect(bob.connection.instructions).toBe('Instructions for bob');
		expect(await whoami(bob)).toEqual({ session: 'bob', request: 'bob' });
		await bob.release();

		// Bob's requests went to a session of his own, and none rode alice's.
		expect(sessionsOf('alice')).toHaveLength(1);
		expect(sessionsOf('bob')).toHaveLength(1);
		expect(sessionsOf('bob')).not.toContain(sessionsOf('alice')[0]);
		expect(bob.connection.id).not.toBe(alice.connection.id);
		// Alice's connection was closed (its session ended with a DELETE, sent in the background), bob's is the kept one.
		expect(alice.connection.isAlive).toBe(false);
		await until(() => server.requests.some((request) => request.httpMethod === 'DELETE' && request.session === sessionsOf('alice')[0]));
		expect(server.openSessions()).toEqual([{ id: sessionsOf('bob')[0], account: 'bob' }]);
		expect(pool.size).toBe(1);
	});

	it('the connection\'s own refresh keeps it: the next execution, handed the refreshed token, shares the session and the cached tool list', async () => {
		server.grant('at-alice-1-0123456789', 'alice');
		const first = await pool.acquire(
			execution({ access_token: 'at-alice-1-0123456789', refresh_token: 'rt-alice-1-0123456789' }, () => {
				server.grant('at-alice-2-0123456789', 'alice');
				return { access_token: 'at-alice-2-0123456789', refresh_token: 'rt-alice-2-0123456789' };
			}),
		);
		expect((await listToolsCached(first.connection)).map((tool) => tool.name)).toEqual(['files_alice', 'whoami']);
		// The token expires during the run: the server answers 401, the connection refreshes (n8n stores the result).
		server.revoke('at-alice-1-0123456789');
		expect(await whoami(first)).toEqual({ session: 'alice', request: 'alice' });
		await first.release();
		const listings = server.requests.filter((request) => request.method === 'tools/list').length;

		// The next execution is handed what n8n stored: the token the connection's own refresh returned.
		const second = await pool.acquire(execution({ access_token: 'at-alice-2-0123456789', refresh_token: 'rt-alice-2-0123456789' }));
		expect(second.connection.id).toBe(first.connection.id);
		expect((await listToolsCached(second.connection)).map((tool) => tool.name)).toEqual(['files_alice', 'whoami']);
		expect(await whoami(second)).toEqual({ session: 'alice', request: 'alice' });
		await second.release();

		expect(sessionsOf('alice')).toHaveLength(1);
		// Served from the cache: no second tools/list.
		expect(server.requests.filter((request) => request.method === 'tools/list')).toHaveLength(listings);
		// One refused request, then only the refreshed token.
		expect(server.requests.filter((request) => request.account === null)).toHaveLength(1);
		expect(server.requests.every((request) => request.account === 'alice' || request.account === null)).toBe(true);
	});
});

/**
 * The pool's health check with connections that only record what happens to them: an execution
 * that arrives while another one's ping is under way waits for its verdict, instead of being handed
 * the connection that a failed ping then closes.
 */
import type { McpConnection } from '../../lib/mcp/connection';
import { ConnectionPool } from '../../lib/mcp/pool/connectionPool';
import type { McpServerConfig } from '../../lib/mcp/serverConfig';

const config = { kind: 'http', url: 'https://mcp.example.com/mcp', transport: 'streamableHttp', headers: {}, trustAnnotations: false, connectTimeoutMs: 1000, requestTimeoutMs: 1000, pooling: { key: 'k1', identity: 'i1', idleMs: 600_000 } } as unknown as McpServerConfig;

interface FakeConnection {
	closed: boolean;
	pings: number;
}

it('an execution arriving during another one\'s ping shares its verdict: a failed ping moves both to a new connection', async () => {
	let clock = 1_000_000;
	let failPing: (error: Error) => void = () => undefined;
	const made: FakeConnection[] = [];
	const pool = new ConnectionPool({
		maxSize: 5,
		now: () => clock,
		open: async (opened) => {
			const connection = {
				config: opened,
				closed: false,
				pings: 0,
				lastFailureAt: 0,
				get isAlive() {
					return !this.closed;
				},
				ping() {
					this.pings++;
					return new Promise<void>((_resolve, reject) => (failPing = reject));
				},
				close: async () => void (connection.closed = true),
				killNow: () => undefined,
			};
			made.push(connection);
			return connection as unknown as McpConnection;
		},
	});
	await (await pool.acquire(config)).release();
	clock += 60_000; // idle long enough for the next use to ping first
	const first = pool.acquire(config);
	await new Promise((resolve) => setImmediate(resolve));
	const second = pool.acquire(config);
	await new Promise((resolve) => setImmediate(resolve));
	failPing(new Error('the server did not answer the ping'));
	const [a, b] = await Promise.all([first, second]);
	expect(made).toHaveLength(2);
	expect(made[0]).toMatchObject({ closed: true, pings: 1 });
	expect(a.connection).toBe(b.connection);
	expect(a.connection).toBe(made[1]);
	await Promise.all([a.release(), b.release()]);
	await pool.closeAll();
});

it('executions arriving in the same tick after a long idle still ping first: one that is only acquiring is no proof the server answers', async () => {
	let clock = 1_000_000;
	const made: FakeConnection[] = [];
	const pool = new ConnectionPool({
		maxSize: 5,
		now: () => clock,
		open: async (opened) => {
			const connection = {
				config: opened,
				closed: false,
				pings: 0,
				lastFailureAt: 0,
				get isAlive() {
					return !this.closed;
				},
				// The first connection hangs (a stopped process): its ping fails; a new one answers.
				ping() {
					this.pings++;
					return made.indexOf(connection) === 0 ? Promise.reject(new Error('the server did not answer the ping')) : Promise.resolve();
				},
				close: async () => void (connection.closed = true),
				killNow: () => undefined,
			};
			made.push(connection);
			return connection as unknown as McpConnection;
		},
	});
	await (await pool.acquire(config)).release();
	clock += 60_000;
	// Two MCP Server sub-nodes on one credential: the Agent acquires both at once.
	const [a, b] = await Promise.all([pool.acquire(config), pool.acquire(config)]);
	expect(made[0]).toMatchObject({ closed: true, pings: 1 });
	expect(a.connection).toBe(made[1]);
	expect(b.connection).toBe(made[1]);
	await Promise.all([a.release(), b.release()]);
	await pool.closeAll();
});

it('a connection in use by a running execution is not pinged for a new one (a busy server may answer pings late)', async () => {
	let clock = 1_000_000;
	const made: FakeConnection[] = [];
	const pool = new ConnectionPool({
		maxSize: 5,
		now: () => clock,
		open: async (opened) => {
			const connection = { config: opened, closed: false, pings: 0, lastFailureAt: 0, isAlive: true, ping: async () => void connection.pings++, close: async () => undefined, killNow: () => undefined };
			made.push(connection);
			return connection as unknown as McpConnection;
		},
	});
	const running = await pool.acquire(config);
	clock += 60_000;
	const next = await pool.acquire(config);
	expect(next.connection).toBe(running.connection);
	expect(made[0].pings).toBe(0);
	await Promise.all([running.release(), next.release()]);
	await pool.closeAll();
});

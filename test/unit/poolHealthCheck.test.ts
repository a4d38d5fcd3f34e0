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

/**
 * A pool on a settable clock whose connections record pings and closes; `ping(index)` answers the
 * ping of the index-th connection made.
 */
function recordingPool(ping: (index: number) => Promise<void>) {
	const clock = { now: 1_000_000 };
	const made: FakeConnection[] = [];
	const pool = new ConnectionPool({
		maxSize: 5,
		now: () => clock.now,
		open: async (opened) => {
			const index = made.length;
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
					return ping(index);
				},
				close: async () => void (connection.closed = true),
				killNow: () => undefined,
			};
			made.push(connection);
			return connection as unknown as McpConnection;
		},
	});
	return { pool, made, clock };
}

it('an execution arriving during another one\'s ping shares its verdict: a failed ping moves both to a new connection', async () => {
	let failPing: (error: Error) => void = () => undefined;
	const { pool, made, clock } = recordingPool(() => new Promise<void>((_resolve, reject) => (failPing = reject)));
	await (await pool.acquire(config)).release();
	clock.now += 60_000; // idle long enough for the next use to ping first
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
	// The first connection hangs (a stopped process): its ping fails; a new one answers.
	const { pool, made, clock } = recordingPool((index) => (index === 0 ? Promise.reject(new Error('the server did not answer the ping')) : Promise.resolve()));
	await (await pool.acquire(config)).release();
	clock.now += 60_000;
	// Two MCP Server sub-nodes on one credential: the Agent acquires both at once.
	const [a, b] = await Promise.all([pool.acquire(config), pool.acquire(config)]);
	expect(made[0]).toMatchObject({ closed: true, pings: 1 });
	expect(a.connection).toBe(made[1]);
	expect(b.connection).toBe(made[1]);
	await Promise.all([a.release(), b.release()]);
	await pool.closeAll();
});

it('a connection in use by a running execution is not pinged for a new one (a busy server may answer pings late)', async () => {
	const { pool, made, clock } = recordingPool(async () => undefined);
	const running = await pool.acquire(config);
	clock.now += 60_000;
	const next = await pool.acquire(config);
	expect(next.connection).toBe(running.connection);
	expect(made[0].pings).toBe(0);
	await Promise.all([running.release(), next.release()]);
	await pool.closeAll();
});

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

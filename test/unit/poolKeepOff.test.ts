/**
 * Keep Server Running turned off for a credential whose connection the pool kept: the kept one
 * closes (at once when unused, after its last user otherwise) instead of running on with the old
 * settings until its idle time ends, which may be days.
 */
import type { McpConnection } from '../../lib/mcp/connection';
import { ConnectionPool } from '../../lib/mcp/pool/connectionPool';
import { credentialIdentity, poolingFor } from '../../lib/mcp/pool/poolSettings';
import type { McpServerConfig } from '../../lib/mcp/serverConfig';

const STDIO = 'mcpServerStdioApi';
const data = { command: 'node server.js', idleShutdownMinutes: 1440 };
const base = { kind: 'stdio', command: 'node', args: ['server.js'], env: {}, trustAnnotations: false, connectTimeoutMs: 1000, requestTimeoutMs: 1000 } as unknown as McpServerConfig;

function fakePool() {
	const made: Array<{ closed: boolean }> = [];
	const pool = new ConnectionPool({
		maxSize: 5,
		open: async (config) => {
			const connection = { config, closed: false, lastFailureAt: 0, get isAlive() { return !this.closed; }, ping: async () => undefined, close: async () => void (connection.closed = true), killNow: () => undefined };
			made.push(connection);
			return connection as unknown as McpConnection;
		},
	});
	return { pool, made };
}

it('the identity names the credential (type and id) and nothing without an id', () => {
	expect(credentialIdentity({ type: STDIO, id: '7' })).toBe(poolingFor({ type: STDIO, id: '7' }, data)!.identity);
	expect(credentialIdentity({ type: STDIO, id: undefined })).toBeUndefined();
});

it('an unused kept connection closes at once when its credential turns Keep Server Running off', async () => {
	const { pool, made } = fakePool();
	await (await pool.acquire({ ...base, pooling: poolingFor({ type: STDIO, id: '7' }, data) })).release();
	expect(made[0].closed).toBe(false);
	const unkept = await pool.acquire({ ...base, unkeptIdentity: credentialIdentity({ type: STDIO, id: '7' }) });
	expect(unkept.pooled).toBe(false);
	await new Promise((resolve) => setImmediate(resolve));
	expect(made[0].closed).toBe(true);
	expect(pool.size).toBe(0);
	await unkept.release();
	expect(made[1].closed).toBe(true);
});

it('one in use serves its execution to the end, then closes; another credential\'s is left alone', async () => {
	const { pool, made } = fakePool();
	const running = await pool.acquire({ ...base, pooling: poolingFor({ type: STDIO, id: '7' }, data) });
	await (await pool.acquire({ ...base, pooling: poolingFor({ type: STDIO, id: '8' }, data) })).release();
	await (await pool.acquire({ ...base, unkeptIdentity: credentialIdentity({ type: STDIO, id: '7' }) })).release();
	expect(made[0].closed).toBe(false);
	await running.release();
	await new Promise((resolve) => setImmediate(resolve));
	expect(made[0].closed).toBe(true);
	expect(made[1].closed).toBe(false);
	await pool.closeAll();
});

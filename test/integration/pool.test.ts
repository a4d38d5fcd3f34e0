/**
 * The connection pool against a real stdio server (test/fixtures/pool-server.js), which appends
 * its pid to a file on start: how many processes a sequence of uses started, and that each is gone
 * when it should be, is read from there. Each test has its own pool and closes it at the end.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { listToolsCached } from '../../lib/mcp/listing';
import { ConnectionPool } from '../../lib/mcp/pool/connectionPool';
import { poolingFor } from '../../lib/mcp/pool/poolSettings';
import type { McpServerConfig } from '../../lib/mcp/serverConfig';
import { STDIO_ENABLE_VARIABLE } from '../../lib/mcp/stdioPolicy';
import { callToolValidated } from '../../lib/mcp/toolCall';
import { fixtureStdio, isRunning, readPidFile, waitForGone } from '../support/servers';

process.env[STDIO_ENABLE_VARIABLE] = 'true';

let workDir: string;
let pidFile: string;
let testNumber = 0;
let pools: ConnectionPool[] = [];

beforeAll(() => {
	workDir = mkdtempSync(path.join(tmpdir(), 'mcp-pool-'));
});

afterAll(() => {
	rmSync(workDir, { recursive: true, force: true });
});

beforeEach(() => {
	pidFile = path.join(workDir, `pids-${++testNumber}.txt`);
	pools = [];
});

afterEach(async () => {
	await Promise.all(pools.map((pool) => pool.closeAll()));
	// Nothing any test started may outlive it.
	expect(await waitForGone(readPidFile(pidFile), 5000)).toEqual([]);
});

function newPool(options: Partial<ConstructorParameters<typeof ConnectionPool>[0]> = {}): ConnectionPool {
	const pool = new ConnectionPool({ maxSize: 20, ...options });
	pools.push(pool);
	return pool;
}

/** The fixture as a credential would configure it, kept between uses unless `keep` is false. */
function credential(id: string, data: Record<string, unknown> = {}, env: Record<string, string> = {}): McpServerConfig {
	const config = fixtureStdio('pool-server.js', { POOL_PID_FILE: pidFile, ...env }, { requestTimeoutMs: 10_000 });
	const pooling = poolingFor({ type: 'mcpServerStdioApi', id }, { command: 'node', args: 'pool-server.js', ...data });
	return pooling ? { ...config, pooling } : config;
}

async function echo(pool: ConnectionPool, config: McpServerConfig, message: string): Promise<string> {
	const lease = await pool.acquire(config);
	try {
		const tools = await listToolsCached(lease.connection);
		const tool = tools.find((t) => t.name === 'echo')!;
		const result = await callToolValidated(lease.connection, tool, { message });
		return (result.content as Array<{ text: string }>)[0].text;
	} finally {
		await lease.release();
	}
}

const pidOf = (text: string) => Number(/\(pid (\d+)\)/.exec(text)?.[1]);

describe('connection pool: keying', () => {
	it('reuses one process for the same credential data, and starts another for another credential', async () => {
		const pool = newPool();
		const a = credential('cred-a');
		const pids = new Set<number>();
		for (let i = 0; i < 20; i++) pids.add(pidOf(await echo(pool, a, `a${i}`)));
		expect(pids.size).toBe(1);
		// Same data, another credential id: never shared.
		const b = credential('cred-b');
		const other = pidOf(await echo(pool, b, 'b'));
		expect(pids.has(other)).toBe(false);
		expect(readPidFile(pidFile)).toHaveLength(2);
		expect(pool.size).toBe(2);
	});

	it('an edited credential gets a new process, and the old one ends once released', async () => {
		const pool = newPool();
		const before = credential('cred-a', { cwd: '' });
		const held = await pool.acquire(before);
		const oldPid = held.connection.pid as number;
		const edited = credential('cred-a', { cwd: '/tmp' });
		const newPid = pidOf(await echo(pool, edited, 'after edit'));
		expect(newPid).not.toBe(oldPid);
		// Still in use by the execution that holds it: not killed under it.
		expect(isRunning(oldPid)).toBe(true);
		await held.release();
		expect(await waitForGone([oldPid], 5000)).toEqual([]);
		expect(pool.size).toBe(1);
	});

	it('Keep Server Running off: one process per use, ended at release', async () => {
		const pool = newPool();
		const off = credential('cred-a', { keepServerRunning: false });
		expect(off.pooling).toBeUndefined();
		const pids = [];
		for (let i = 0; i < 3; i++) {
			const lease = await pool.acquire(off);
			expect(lease.pooled).toBe(false);
			pids.push(lease.connection.pid as number);
			await lease.release();
			expect(isRunning(pids[i])).toBe(false);
		}
		expect(new Set(pids).size).toBe(3);
		expect(pool.size).toBe(0);
	});
});

describe('connection pool: concurrent uses of one connection', () => {
	it('parallel calls share one process; a timed-out call fails alone', async () => {
		const pool = newPool();
		const config = credential('cred-a');
		const leases = await Promise.all(Array.from({ length: 4 }, () => pool.acquire(config)));
		expect(new Set(leases.map((lease) => lease.connection)).size).toBe(1);
		const connection = leases[0].connection;
		const tools = await listToolsCached(connection);
		const slow = tools.find((t) => t.name === 'slow')!;
		const started = Date.now();
		const [timedOut, ...answered] = await Promise.allSettled([
			callToolValidated(connection, slow, { ms: 3000, message: 'late' }, { timeoutMs: 150 }),
			callToolValidated(connection, slow, { ms: 300, message: 'one' }),
			callToolValidated(connection, slow, { ms: 200, message: 'two' }),
			callToolValidated(connection, slow, { ms: 100, message: 'three' }),
		]);
		expect(timedOut.status).toBe('rejected');
		expect(String((timedOut as PromiseRejectedResult).reason.message)).toMatch(/did not answer in time|timed out/i);
		expect(answered.map((r) => (r.status === 'fulfilled' ? (r.value.content as Array<{ text: string }>)[0].text.split(' (')[0] : 'failed'))).toEqual(['slow: one', 'slow: two', 'slow: three']);
		// In parallel: the calls took about the longest one, not their sum.
		expect(Date.now() - started).toBeLessThan(2000);
		await Promise.all(leases.map((lease) => lease.release()));
		// The timeout marked the connection for a check; the server answers the ping, so it is kept.
		const again = await pool.acquire(config);
		expect(again.connection).toBe(connection);
		await again.release();
		expect(readPidFile(pidFile)).toHaveLength(1);
	});

	it('a server busy with one execution\'s synchronous call is neither pinged nor replaced when another execution arrives', async () => {
		const pool = newPool({ pingAfterIdleMs: 50, pingTimeoutMs: 200 });
		const config = credential('cred-a');
		const first = await pool.acquire(config);
		const connection = first.connection;
		const block = (await listToolsCached(connection)).find((t) => t.name === 'block')!;
		const ping = jest.spyOn(connection, 'ping');
		// The server answers nothing (a ping included) for 1.5 s, long past the idle and ping bounds.
		const busy = callToolValidated(connection, block, { ms: 1500 });
		await new Promise((resolve) => setTimeout(resolve, 300));
		const second = await pool.acquire(config);
		expect(second.connection).toBe(connection);
		expect(ping).not.toHaveBeenCalled();
		expect((await busy).content).toEqual([{ type: 'text', text: `blocked (pid ${connection.pid})` }]);
		await Promise.all([first.release(), second.release()]);
		expect(readPidFile(pidFile)).toHaveLength(1);
	});

	it('an error the server answered with does not make the next use ping; a timeout does', async () => {
		const pool = newPool();
		const config = credential('cred-a');
		const lease = await pool.acquire(config);
		const connection = lease.connection;
		const ping = jest.spyOn(connection, 'ping');
		const unknown = await connection.request('calling tool "nope"', (client) => client.callTool({ name: 'nope', arguments: {} })).then(
			() => 'answered',
			(error: Error) => error.message,
		);
		expect(unknown).toContain('unknown tool nope');
		await lease.release();
		const again = await pool.acquire(config);
		expect(again.connection).toBe(connection);
		expect(ping).not.toHaveBeenCalled();
		const slow = (await listToolsCached(connection)).find((t) => t.name === 'slow')!;
		await expect(callToolValidated(connection, slow, { ms: 1000 }, { timeoutMs: 50 })).rejects.toThrow(/did not answer in time/);
		await again.release();
		const third = await pool.acquire(config);
		expect(third.connection).toBe(connection);
		expect(ping).toHaveBeenCalledTimes(1);
		await third.release();
	});
});

describe('connection pool: failures', () => {
	it('a crashed server: the call that saw it gets its stderr, the next use starts a new process', async () => {
		const pool = newPool();
		const config = credential('cred-a');
		const lease = await pool.acquire(config);
		const firstPid = lease.connection.pid as number;
		const crash = (await listToolsCached(lease.connection)).find((t) => t.name === 'crash')!;
		const failure = await callToolValidated(lease.connection, crash, {}).then(
			() => undefined,
			(error: Error & { serverOutput?: string }) => error,
		);
		expect(failure).toBeDefined();
		expect(`${failure!.message}\n${failure!.serverOutput ?? ''}`).toContain('fatal: pool-server crashed in tool crash');
		await lease.release();
		// Taken out as soon as the process exited.
		expect(pool.size).toBe(0);
		const text = await echo(pool, config, 'after crash');
		expect(text).toContain('echo: after crash');
		expect(pidOf(text)).not.toBe(firstPid);
		expect(readPidFile(pidFile)).toHaveLength(2);
	});

	it('a hung server fails the ping before reuse and is replaced', async () => {
		const pool = newPool({ pingAfterIdleMs: 50, pingTimeoutMs: 300 });
		const config = credential('cred-a');
		const firstPid = pidOf(await echo(pool, config, 'before'));
		process.kill(firstPid, 'SIGSTOP');
		try {
			await new Promise((resolve) => setTimeout(resolve, 80));
			const text = await echo(pool, config, 'after hang');
			expect(pidOf(text)).not.toBe(firstPid);
		} finally {
			// The stopped process is being closed by the pool; SIGKILL reaches it even stopped.
			try {
				process.kill(firstPid, 'SIGCONT');
			} catch {
				// gone already
			}
		}
		expect(await waitForGone([firstPid], 6000)).toEqual([]);
	});
});

describe('connection pool: lifecycle', () => {
	it('idle shutdown ends the process after the configured time', async () => {
		const pool = newPool();
		const config = credential('cred-a', { idleShutdownMinutes: 0.005 }); // 300 ms
		const pid = pidOf(await echo(pool, config, 'x'));
		expect(isRunning(pid)).toBe(true);
		expect(pool.size).toBe(1);
		expect(await waitForGone([pid], 3000)).toEqual([]);
		expect(pool.size).toBe(0);
	});

	it('an idle shutdown longer than a timer can wait (about 24.8 days) does not end the process at once', async () => {
		const pool = newPool();
		const config = credential('cred-a', { idleShutdownMinutes: 50_000 });
		const pid = pidOf(await echo(pool, config, 'x'));
		// Node fires a timeout over 2^31 - 1 ms after 1 ms instead.
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(isRunning(pid)).toBe(true);
		expect(pool.size).toBe(1);
	});

	it('beyond the size limit the least recently used idle connection closes; one in use never does', async () => {
		const pool = newPool({ maxSize: 2 });
		const a = pidOf(await echo(pool, credential('a'), 'a'));
		const busy = await pool.acquire(credential('b'));
		const c = pidOf(await echo(pool, credential('c'), 'c'));
		// a was the least recently used idle one.
		expect(await waitForGone([a], 5000)).toEqual([]);
		expect(isRunning(busy.connection.pid as number)).toBe(true);
		expect(isRunning(c)).toBe(true);
		const d = pidOf(await echo(pool, credential('d'), 'd'));
		// b is in use: c goes instead.
		expect(await waitForGone([c], 5000)).toEqual([]);
		expect(isRunning(busy.connection.pid as number)).toBe(true);
		expect(isRunning(d)).toBe(true);
		await busy.release();
		expect(pool.size).toBe(2);
	});

	it('no orphans after 1,000 uses of three credentials, some at the same time', async () => {
		const pool = newPool();
		const configs = [credential('a'), credential('b'), credential('c')];
		for (let round = 0; round < 250; round++) {
			await Promise.all([0, 1, 2, round % 3].map((index) => echo(pool, configs[index], `r${round}`)));
		}
		expect(readPidFile(pidFile)).toHaveLength(3);
		await pool.closeAll();
		expect(await waitForGone(readPidFile(pidFile), 5000)).toEqual([]);
		expect(pool.size).toBe(0);
	});

	it('killNow (process exit) kills every process group at once', async () => {
		const pool = newPool();
		await echo(pool, credential('a'), 'a');
		const held = await pool.acquire(credential('b'));
		pool.killNow();
		expect(await waitForGone(readPidFile(pidFile), 3000)).toEqual([]);
		await held.release();
	});

	it('drain (SIGTERM): idle connections close now, busy ones at release, new uses get their own', async () => {
		const pool = newPool();
		const idle = pidOf(await echo(pool, credential('a'), 'a'));
		const busy = await pool.acquire(credential('b'));
		pool.drain();
		expect(await waitForGone([idle], 5000)).toEqual([]);
		expect(isRunning(busy.connection.pid as number)).toBe(true);
		const during = await pool.acquire(credential('a'));
		expect(during.pooled).toBe(false);
		await during.release();
		await busy.release();
		expect(await waitForGone(readPidFile(pidFile), 5000)).toEqual([]);
		expect(pool.size).toBe(0);
	});
});

describe('cached tool lists', () => {
	it('serve the last listing until the server announces a change', async () => {
		const pool = newPool();
		const lease = await pool.acquire(credential('a'));
		try {
			const connection = lease.connection;
			const first = await listToolsCached(connection);
			expect(await listToolsCached(connection)).toBe(first);
			const retool = first.find((t) => t.name === 'retool')!;
			await callToolValidated(connection, retool, { description: 'Echoes, changed', notify: true });
			// The notification arrives on its own; wait for it rather than for a fixed time.
			for (let i = 0; i < 100 && !connection.toolListStale; i++) await new Promise((resolve) => setTimeout(resolve, 10));
			const second = await listToolsCached(connection);
			expect(second).not.toBe(first);
			expect(second.find((t) => t.name === 'echo')?.description).toBe('Echoes, changed');
		} finally {
			await lease.release();
		}
	});

	it('a change announced while a listing is in flight is not lost: the next use lists again', async () => {
		const pool = newPool();
		// tools/list answers 400 ms after taking its snapshot: the change lands in between.
		const lease = await pool.acquire(credential('a', {}, { POOL_LIST_DELAY_MS: '400' }));
		try {
			const connection = lease.connection;
			const retool = (await listToolsCached(connection)).find((t) => t.name === 'retool')!;
			const inFlight = listToolsCached(connection, { fresh: true });
			await new Promise((resolve) => setTimeout(resolve, 100));
			await callToolValidated(connection, retool, { description: 'Changed mid-listing', notify: true });
			expect((await inFlight).find((t) => t.name === 'echo')?.description).toBe('Echoes the message');
			expect(connection.toolListStale).toBe(true);
			expect((await listToolsCached(connection)).find((t) => t.name === 'echo')?.description).toBe('Changed mid-listing');
		} finally {
			await lease.release();
		}
	});

	it('a change without notification is seen after the age bound, or at once when fresh', async () => {
		const pool = newPool();
		const descriptionFile = path.join(workDir, `description-${testNumber}.txt`);
		const lease = await pool.acquire(credential('a', {}, { POOL_DESCRIPTION_FILE: descriptionFile }));
		try {
			const connection = lease.connection;
			const first = await listToolsCached(connection);
			const version = connection.toolListVersion;
			writeFileSync(descriptionFile, 'Silently changed');
			expect((await listToolsCached(connection)).find((t) => t.name === 'echo')?.description).toBe('Echoes the message');
			const later = Date.now() + 61_000;
			expect((await listToolsCached(connection, { now: () => later })).find((t) => t.name === 'echo')?.description).toBe('Silently changed');
			expect(connection.toolListVersion).toBe(version + 1);
			// Listed again unchanged: the same array, the same version.
			const fresh = await listToolsCached(connection, { fresh: true });
			expect(connection.toolListVersion).toBe(version + 1);
			expect(fresh).not.toBe(first);
			expect(await listToolsCached(connection, { fresh: true })).toBe(fresh);
		} finally {
			await lease.release();
		}
	});
});

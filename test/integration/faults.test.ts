import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { McpConnection } from '../../lib/mcp/connection';
import { McpFailure, type McpFailureKind } from '../../lib/mcp/errors';
import { listAllTools } from '../../lib/mcp/listing';
import type { McpServerConfig } from '../../lib/mcp/serverConfig';
import { STDIO_ENABLE_VARIABLE } from '../../lib/mcp/stdioPolicy';
import { callToolValidated, type ToolCallOptions } from '../../lib/mcp/toolCall';
import { extractToolResult } from '../../lib/tools/callResult';
import { REDACTED } from '../../lib/mcp/secrets';
import {
	fixtureStdio,
	freePort,
	httpConfig,
	isRunning,
	readPidFile,
	startHttpFixture,
	startProcessServer,
	stdioConfig,
	FIXTURES_DIR,
	waitForGone,
	type RunningServer,
} from '../support/servers';

process.env[STDIO_ENABLE_VARIABLE] = 'true';

/**
 * Every fixture process appends its pid to the current test's pid file; HTTP fixtures are tracked
 * directly. After each test, connections are closed through the library (never by killing pids)
 * and no fixture process may still be running.
 */
let workDir: string;
let pidFile: string;
let testNumber = 0;
let connections: McpConnection[] = [];
let httpServers: RunningServer[] = [];

beforeAll(() => {
	workDir = mkdtempSync(path.join(tmpdir(), 'mcp-faults-'));
});

afterAll(() => {
	rmSync(workDir, { recursive: true, force: true });
});

beforeEach(() => {
	pidFile = path.join(workDir, `pids-${++testNumber}.txt`);
	connections = [];
	httpServers = [];
});

afterEach(async () => {
	await Promise.all(connections.map((connection) => connection.close()));
	await Promise.all(httpServers.map((server) => server.stop()));
	const pids = [...readPidFile(pidFile), ...httpServers.map((server) => server.process.pid as number)];
	const left = await waitForGone(pids, 3000);
	for (const pid of left) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {
			// already gone
		}
	}
	expect(left).toEqual([]);
});

/** A stdio fixture whose processes are recorded in this test's pid file. */
function fixture(file: string, env: Record<string, string> = {}, extra: Parameters<typeof fixtureStdio>[2] = {}) {
	return fixtureStdio(file, { FAULT_PID_FILE: pidFile, ...env }, extra);
}

async function open(config: McpServerConfig): Promise<McpConnection> {
	const connection = await McpConnection.open(config);
	connections.push(connection);
	return connection;
}

async function http(mode: string, env: Record<string, string> = {}): Promise<RunningServer> {
	const server = await startHttpFixture(mode, env);
	httpServers.push(server);
	return server;
}

/** The failure a promise rejects with; fails the test when it resolves or throws something else. */
async function failureOf(promise: Promise<unknown>, kind: McpFailureKind): Promise<McpFailure> {
	let caught: unknown;
	try {
		await promise;
	} catch (error) {
		caught = error;
	}
	expect(caught).toBeInstanceOf(McpFailure);
	const failure = caught as McpFailure;
	expect({ kind: failure.kind, message: failure.message }).toEqual({ kind, message: failure.message });
	return failure;
}

async function call(connection: McpConnection, name: string, args: Record<string, unknown> = {}, options: ToolCallOptions = {}) {
	const tool = (await listAllTools(connection)).find((t) => t.name === name);
	if (!tool) throw new Error(`fixture has no tool ${name}`);
	return callToolValidated(connection, tool, args, options);
}

function textOf(result: Record<string, unknown>, tool = 'tool'): string {
	return extractToolResult(tool, result).json.text;
}

function stdioPid(connection: McpConnection): number {
	return (connection as unknown as { session: { stdio: { pid: number } } }).session.stdio.pid;
}

function stdoutNoise(connection: McpConnection): string {
	return (connection as unknown as { session: { stdio: { stdoutNoise: { text(): string } } } }).session.stdio.stdoutNoise.text();
}

describe('stdio server faults', () => {
	it('a crash mid-call is reported as process-exited with the exit code and the stderr line', async () => {
		const connection = await open(fixture('stdio-fault-server.js'));
		const pid = stdioPid(connection);
		expect(textOf(await call(connection, 'echo', { message: 'before' }))).toBe('echo: before');

		const failure = await failureOf(call(connection, 'crash'), 'process-exited');
		expect(failure.message).toContain('exited with code 7');
		expect(failure.message).toContain('calling tool "crash"');
		expect(failure.message).not.toContain('fatal:');
		expect(failure.serverOutput).toContain('fatal: simulated crash in tool crash');
		expect(failure.summary).not.toContain('fatal:');
		expect(isRunning(pid)).toBe(false);

		// Later calls on the dead connection fail the same clear way instead of hanging.
		const again = await failureOf(call(connection, 'echo', { message: 'after' }), 'process-exited');
		expect(again.message).toContain('exited with code 7');
	});

	it('a command that does not exist is reported as spawn-failed', async () => {
		const failure = await failureOf(McpConnection.open(stdioConfig('/nonexistent/bin/mcp-server-missing', ['--flag'])), 'spawn-failed');
		expect(failure.message).toContain('"/nonexistent/bin/mcp-server-missing"');
		expect(failure.message).toContain('was not found');
	});

	it('a Working Directory that does not exist, or is a file, is named with the problem', async () => {
		const missing = await failureOf(McpConnection.open(stdioConfig(process.execPath, ['-e', ''], { cwd: '/nonexistent/working-dir' })), 'spawn-failed');
		expect(missing.message).toContain('or the Working Directory "/nonexistent/working-dir" does not exist');
		const file = await failureOf(McpConnection.open(stdioConfig(process.execPath, ['-e', ''], { cwd: process.execPath })), 'spawn-failed');
		expect(file.message).toContain(`the Working Directory "${process.execPath}" is not a directory`);
	});

	it('a tool that hangs fails with kind timeout after the request timeout, and the connection stays usable', async () => {
		const connection = await open(fixture('stdio-fault-server.js', {}, { requestTimeoutMs: 300 }));
		const started = Date.now();
		const failure = await failureOf(call(connection, 'hang'), 'timeout');
		const elapsed = Date.now() - started;
		expect(failure.message).toContain('did not answer in time while calling tool "hang"');
		expect(elapsed).toBeGreaterThanOrEqual(250);
		expect(elapsed).toBeLessThan(5000);
		expect(textOf(await call(connection, 'echo', { message: 'still here' }))).toBe('echo: still here');
	});

	it('non-JSON lines on stdout do not break the connection and are kept as diagnostics', async () => {
		const connection = await open(fixture('stdio-fault-server.js', { FAULT_NOISE: '1' }));
		expect(textOf(await call(connection, 'echo', { message: 'hi' }))).toBe('echo: hi');
		expect(stdoutNoise(connection).split('\n')).toEqual([
			'Starting stdio-fault-server v1.0.0 (this banner is not JSON)',
			'server connected, waiting for messages',
			'debug: echo called with hi',
			// Valid JSON that is not JSON-RPC is noise too.
			'{"level":"info","msg":"structured log line, not JSON-RPC"}',
		]);
		expect(textOf(await call(connection, 'echo', { message: 'again' }))).toBe('echo: again');
		// Only the last lines are kept.
		const noise = stdoutNoise(connection).split('\n');
		expect(noise).toHaveLength(5);
		expect(noise[3]).toBe('debug: echo called with again');

		// When the server then fails, its output (kept beside the message) shows that stray output.
		const failure = await failureOf(call(connection, 'crash'), 'process-exited');
		expect(failure.serverOutput).toContain('non-JSON lines on stdout');
		expect(failure.serverOutput).toContain('debug: echo called with again');
		expect(failure.serverOutput).toContain('fatal: simulated crash in tool crash');
	});

	it('a slow-starting server still connects within the connect timeout', async () => {
		const started = Date.now();
		const connection = await open(fixture('stdio-fault-server.js', { FAULT_START_DELAY_MS: '1500' }, { connectTimeoutMs: 15_000 }));
		expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
		expect(connection.server.name).toBe('stdio-fault-server');
		expect(textOf(await call(connection, 'echo', { message: 'late' }))).toBe('echo: late');
	});

	it('a slow-starting server fails with kind timeout when the connect timeout is shorter, and is not left running', async () => {
		const started = Date.now();
		const failure = await failureOf(
			McpConnection.open(fixture('stdio-fault-server.js', { FAULT_START_DELAY_MS: '1500' }, { connectTimeoutMs: 300 })),
			'timeout',
		);
		expect(Date.now() - started).toBeLessThan(1400 + 3000);
		expect(failure.message).toContain('did not answer in time while connecting');
		const pids = readPidFile(pidFile);
		expect(pids).toHaveLength(1);
		expect(await waitForGone(pids, 3000)).toEqual([]);
	});

	it('progress notifications keep a long call alive with resetTimeoutOnProgress', async () => {
		const connection = await open(fixture('stdio-fault-server.js'));
		// Three times the timeout, with a notification every sixth of it.
		const args = { durationMs: 1800, intervalMs: 100 };
		const result = await call(connection, 'progress', args, { timeoutMs: 600, resetTimeoutOnProgress: true });
		expect(textOf(result)).toMatch(/^done after \d+ progress notifications$/);
		expect(Number(/(\d+)/.exec(textOf(result))?.[1])).toBeGreaterThanOrEqual(15);
	});

	it('without resetTimeoutOnProgress the same call times out, and maxTotalTimeoutMs bounds a chatty server', async () => {
		const connection = await open(fixture('stdio-fault-server.js'));
		const args = { durationMs: 1800, intervalMs: 100 };
		const plain = await failureOf(call(connection, 'progress', args, { timeoutMs: 600 }), 'timeout');
		expect(plain.message).toContain('did not answer in time while calling tool "progress"');

		// Progress keeps arriving (the previous test shows this call succeeds without the cap).
		const capped = await failureOf(
			call(connection, 'progress', args, { timeoutMs: 600, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 900 }),
			'timeout',
		);
		expect(capped.message).toContain('calling tool "progress"');
	});

	it('close() ends both the launcher and the grandchild it started (npx-style)', async () => {
		const connection = await open(fixture('npx-like-launcher.js'));
		const launcherPid = stdioPid(connection);
		const pids = JSON.parse(textOf(await call(connection, 'pids'))) as { pid: number; ppid: number };
		expect(pids.ppid).toBe(launcherPid);
		expect(pids.pid).not.toBe(launcherPid);
		expect(isRunning(launcherPid)).toBe(true);
		expect(isRunning(pids.pid)).toBe(true);
		expect(readPidFile(pidFile).sort()).toEqual([launcherPid, pids.pid].sort());

		await connection.close();
		expect(isRunning(launcherPid)).toBe(false);
		// SIGKILL was sent to the group; allow the kernel a moment to reap the re-parented grandchild.
		expect(await waitForGone([pids.pid], 2000)).toEqual([]);
	});

	it('stdio disabled (variable unset) fails with kind disabled, names the variable and starts nothing', async () => {
		const saved = process.env[STDIO_ENABLE_VARIABLE];
		delete process.env[STDIO_ENABLE_VARIABLE];
		try {
			const failure = await failureOf(McpConnection.open(fixture('stdio-fault-server.js')), 'disabled');
			expect(failure.message).toContain(`${STDIO_ENABLE_VARIABLE}=true`);
			process.env[STDIO_ENABLE_VARIABLE] = 'false';
			await failureOf(McpConnection.open(fixture('stdio-fault-server.js')), 'disabled');
		} finally {
			if (saved === undefined) delete process.env[STDIO_ENABLE_VARIABLE];
			else process.env[STDIO_ENABLE_VARIABLE] = saved;
		}
		expect(readPidFile(pidFile)).toEqual([]);
	});
});

describe('pagination', () => {
	it('listAllTools follows every cursor and sorts by name', async () => {
		const connection = await open(fixture('paginated-server.js', { PAGE_SIZE: '2', TOOL_COUNT: '7' }));
		const names = (await listAllTools(connection)).map((tool) => tool.name);
		expect(names).toEqual(['alpha', 'beta', 'delta', 'kappa', 'list_calls', 'mu', 'omega', 'zeta']);
		const cursors = JSON.parse(textOf(await call(connection, 'list_calls'))) as Array<string | null>;
		// listAllTools ran twice (once above, once inside call()): 4 pages each, first without a cursor.
		expect(cursors).toHaveLength(8);
		expect(cursors[0]).toBeNull();
		expect(cursors.slice(1, 4).map((c) => Buffer.from(c as string, 'base64').toString())).toEqual(['page-2', 'page-4', 'page-6']);
	});

	it('a server that repeats its cursor ends with an error instead of looping', async () => {
		const connection = await open(fixture('paginated-server.js', { LOOP_CURSOR: '1' }));
		const failure = await failureOf(listAllTools(connection), 'unknown');
		expect(failure.message).toContain('repeated the pagination cursor while listing tools');
	});
});

describe('HTTP server faults', () => {
	it('connection refused on a closed loopback port is kind refused', async () => {
		const port = await freePort();
		for (const transport of ['streamableHttp', 'auto'] as const) {
			const failure = await failureOf(McpConnection.open(httpConfig(`http://127.0.0.1:${port}/mcp`, { transport })), 'refused');
			expect(failure.message).toContain(`127.0.0.1:${port}`);
			expect(failure.message).toContain('Connection refused');
		}
	});

	it('closing a connection to a server that stopped answering ends within seconds (the session DELETE is given 2 s)', async () => {
		const server = await http('auth', { FAULT_TOKEN: 'close-token-5e1c' });
		const connection = await McpConnection.open(httpConfig(server.url, { transport: 'streamableHttp', headers: { Authorization: 'Bearer close-token-5e1c' } }));
		await listAllTools(connection);
		process.kill(server.process.pid as number, 'SIGSTOP');
		try {
			const started = performance.now();
			await connection.close();
			expect(performance.now() - started).toBeLessThan(5_000);
		} finally {
			process.kill(server.process.pid as number, 'SIGCONT');
		}
	}, 20_000);

	it('an unknown host is kind dns and names the host', async () => {
		const failure = await failureOf(McpConnection.open(httpConfig('http://nonexistent.invalid/mcp')), 'dns');
		expect(failure.message).toContain('"nonexistent.invalid"');
	});

	it('401 is kind unauthorized and never shows the token; the right token connects', async () => {
		const rightToken = 'right-token-4b1d9c';
		const server = await http('auth', { FAULT_TOKEN: rightToken });
		const wrongToken = 'wrong-token-77f0aa';
		for (const transport of ['streamableHttp', 'auto'] as const) {
			const failure = await failureOf(
				McpConnection.open(httpConfig(`${server.url}?api_key=query-secret-913`, { transport, headers: { Authorization: `Bearer ${wrongToken}` } })),
				'unauthorized',
			);
			expect(failure.httpStatus).toBe(401);
			expect(failure.message).toContain('401 Unauthorized');
			expect(failure.message).not.toContain(wrongToken);
			expect(failure.message).not.toContain(rightToken);
			expect(failure.message).not.toContain('query-secret-913');
		}
		await failureOf(McpConnection.open(httpConfig(server.url)), 'unauthorized');

		const connection = await open(httpConfig(server.url, { headers: { Authorization: `Bearer ${rightToken}` } }));
		expect(textOf(await call(connection, 'echo', { message: 'authorized' }))).toBe('session 1: authorized');
		const stats = JSON.parse(textOf(await call(connection, 'stats'))) as { unauthorized: number };
		// streamableHttp, auto (no SSE fallback on 401) and the header-less attempt: one 401 each.
		expect(stats.unauthorized).toBe(3);
	});

	it('500 is kind http-status with the status', async () => {
		const server = await http('status500');
		for (const transport of ['streamableHttp', 'auto'] as const) {
			const failure = await failureOf(McpConnection.open(httpConfig(server.url, { transport })), 'http-status');
			expect(failure.httpStatus).toBe(500);
			expect(failure.message).toContain('HTTP 500 while connecting');
			expect(failure.message).toContain('internal failure in the fault server');
		}
	});

	it('an HTML page (200 text/html) is kind not-mcp', async () => {
		const server = await http('html');
		for (const transport of ['streamableHttp', 'auto'] as const) {
			const failure = await failureOf(McpConnection.open(httpConfig(server.url, { transport })), 'not-mcp');
			expect(failure.message).toContain('does not look like an MCP endpoint');
			expect(failure.message).toContain('text/html');
		}
	});

	it('an expired session (404 for the old Mcp-Session-Id) is re-initialized once and the call succeeds', async () => {
		const server = await http('expiring', { EXPIRE_AFTER_CALLS: '1' });
		const connection = await open(httpConfig(server.url));
		const firstSession = connection.client;
		expect(textOf(await call(connection, 'echo', { message: 'first' }))).toBe('session 1: first');
		expect(textOf(await call(connection, 'echo', { message: 'second' }))).toBe('session 2: second');
		expect(connection.client).not.toBe(firstSession);
		const stats = JSON.parse(textOf(await call(connection, 'stats'))) as { initializeRequests: number; expiredSessions: number };
		expect(stats).toMatchObject({ initializeRequests: 2, expiredSessions: 1 });
	});

	it('calls that see the session expire at the same time share one new session, and no session is left open', async () => {
		const server = await http('expiring', { EXPIRE_AFTER_CALLS: '2' });
		const connection = await open(httpConfig(server.url));
		await call(connection, 'echo', { message: 'one' });
		await call(connection, 'echo', { message: 'two' });
		// Session 1 expires under the first of these; the second then finds it gone too.
		const answers = await Promise.all(['a', 'b'].map((message) => call(connection, 'echo', { message })));
		expect(answers.map((answer) => textOf(answer))).toEqual(['session 2: a', 'session 2: b']);
		const stats = JSON.parse(textOf(await call(connection, 'stats'))) as { initializeRequests: number; expiredSessions: number; openSessions: number };
		expect(stats).toMatchObject({ initializeRequests: 2, expiredSessions: 1, openSessions: 1 });
	});

	it('a JSON-RPC error that mentions "status code 404" is not taken for an expired session: the tool runs once', async () => {
		const server = await http('expiring', { EXPIRE_AFTER_CALLS: '100' });
		const connection = await open(httpConfig(server.url));
		const failure = await failureOf(call(connection, 'charge'), 'protocol');
		expect(failure.message).toContain('returned an error while calling tool "charge"');
		expect(failure.message).toContain('Request failed with status code 404');
		expect(failure.httpStatus).toBeUndefined();
		const stats = JSON.parse(textOf(await call(connection, 'stats'))) as { initializeRequests: number; charges: number };
		expect(stats).toMatchObject({ charges: 1, initializeRequests: 1 });
	});
});

describe('secrets never leave in errors, stderr tails or outputs (issue 10, point 3)', () => {
	const KEY = 'sk-live-abcdef1234567890';

	function leaking(mode: 'exit' | 'serve') {
		return fixture('secret-echo-server.js', { LEAK_MODE: mode, API_KEY: KEY }, { secretEnvNames: ['API_KEY'] });
	}

	it('a stdio server that prints its secret environment variable to stderr and exits: redacted in message and server output', async () => {
		const failure = await failureOf(open(leaking('exit')), 'process-exited');
		expect(failure.message).toContain('exited with code 3');
		expect(failure.serverOutput).toContain(`starting with API_KEY=${REDACTED}`);
		expect(failure.serverOutput).toContain(`?key=${REDACTED}`);
		expect(failure.message).not.toContain('abcdef1234567890');
	});

	it('a server echoing the secret in its instructions, tool list and tool results: redacted at the connection', async () => {
		const connection = await open(leaking('serve'));
		expect(connection.instructions).toBe(`Use the key ${REDACTED} for everything.`);
		const [tool] = await listAllTools(connection);
		expect(tool.description).toBe(`Tells which key (${REDACTED}) the server uses`);
		const result = await callToolValidated(connection, tool, {});
		expect(textOf(result)).toBe(`my key is ${REDACTED}`);
		expect(result.structuredContent).toEqual({ key: REDACTED });
		expect(JSON.stringify(result)).not.toContain('abcdef1234567890');
	});

	it('a token in the URL path never appears in a connection-refused error', async () => {
		const port = await freePort();
		const failure = await failureOf(McpConnection.open(httpConfig(`http://127.0.0.1:${port}/${KEY}/mcp`, { connectTimeoutMs: 3000 })), 'refused');
		expect(failure.message).toContain(`http://127.0.0.1:${port}/${REDACTED}/mcp`);
		expect(failure.message).not.toContain('abcdef1234567890');
	});

	it('an HTTP server answering 500 with the bearer token in its body: redacted', async () => {
		const port = await freePort();
		const server = await startProcessServer([path.join(FIXTURES_DIR, 'secret-echo-http-server.js')], { PORT: String(port) }, /listening on/, (p) => `http://127.0.0.1:${p}/mcp`, port);
		httpServers.push(server);
		const failure = await failureOf(McpConnection.open(httpConfig(server.url, { headers: { Authorization: `Bearer ${KEY}` } })), 'http-status');
		expect(failure.httpStatus).toBe(500);
		expect(failure.message).toContain(`Authorization: ${REDACTED}`);
		expect(failure.message).not.toContain('abcdef1234567890');
	});

	it('a header value with a line break that reaches fetch (a config made in code): the error does not quote it', async () => {
		const port = await freePort();
		const config = httpConfig(`http://127.0.0.1:${port}/mcp`, { headers: { Authorization: `Bearer ${KEY}\nX-Evil: 1` }, connectTimeoutMs: 3000 });
		let caught: unknown;
		await McpConnection.open(config).catch((error: unknown) => {
			caught = error;
		});
		expect(caught).toBeInstanceOf(McpFailure);
		expect((caught as McpFailure).message).not.toContain('abcdef1234567890');
	});
});

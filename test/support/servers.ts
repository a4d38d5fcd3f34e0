import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import * as path from 'node:path';
import type { HttpServerConfig, StdioServerConfig } from '../../lib/mcp/serverConfig';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const EVERYTHING_BIN = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM_BIN = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const PDF_BIN = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-pdf/dist/index.js');

export function stdioConfig(command: string, args: string[], extra: Partial<StdioServerConfig> = {}): StdioServerConfig {
	return { kind: 'stdio', command, args, env: {}, trustAnnotations: false, connectTimeoutMs: 20_000, requestTimeoutMs: 20_000, ...extra };
}

export function httpConfig(url: string, extra: Partial<HttpServerConfig> = {}): HttpServerConfig {
	return { kind: 'http', url, transport: 'streamableHttp', headers: {}, trustAnnotations: false, connectTimeoutMs: 20_000, requestTimeoutMs: 20_000, ...extra };
}

export function everythingStdio(extra: Partial<StdioServerConfig> = {}): StdioServerConfig {
	return stdioConfig(process.execPath, [EVERYTHING_BIN, 'stdio'], extra);
}

export async function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

/** A child server process that is ready when `readyPattern` shows up on its stderr or stdout. */
export interface RunningServer {
	url: string;
	port: number;
	process: ChildProcess;
	stop(): Promise<void>;
}

export async function startProcessServer(
	args: string[],
	env: Record<string, string>,
	readyPattern: RegExp,
	urlFor: (port: number) => string,
	port: number,
): Promise<RunningServer> {
	const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
	let output = '';
	await new Promise<void>((resolve, reject) => {
		const onData = (chunk: Buffer) => {
			output += chunk.toString();
			if (readyPattern.test(output)) resolve();
		};
		child.stdout?.on('data', onData);
		child.stderr?.on('data', onData);
		child.once('exit', (code) => reject(new Error(`server exited early (${code}): ${output}`)));
	});
	child.removeAllListeners('exit');
	return {
		url: urlFor(port),
		port,
		process: child,
		stop: () =>
			new Promise<void>((resolve) => {
				if (child.exitCode !== null || child.signalCode !== null) return resolve();
				child.once('exit', () => resolve());
				try {
					process.kill(-(child.pid as number), 'SIGTERM');
				} catch {
					resolve();
				}
			}),
	};
}

/** server-everything over Streamable HTTP on a free loopback port. */
export async function startEverythingHttp(): Promise<RunningServer> {
	const port = await freePort();
	return startProcessServer([EVERYTHING_BIN, 'streamableHttp'], { PORT: String(port) }, /listening on port/i, (p) => `http://127.0.0.1:${p}/mcp`, port);
}

/** True when a process with this pid still exists. */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

// ---------------------------------------------------------------------------------------------
// Fault-server fixtures (test/fixtures/*.js) and process checks for test/integration/faults.test.ts.

import { existsSync, readFileSync } from 'node:fs';

export const FIXTURES_DIR = path.join(REPO_ROOT, 'test', 'fixtures');

/** A stdio config that runs `node test/fixtures/<file>` with extra environment for the fixture. */
export function fixtureStdio(file: string, env: Record<string, string> = {}, extra: Partial<StdioServerConfig> = {}): StdioServerConfig {
	return stdioConfig(process.execPath, [path.join(FIXTURES_DIR, file)], { ...extra, env: { ...env, ...(extra.env ?? {}) } });
}

/**
 * test/fixtures/http-fault-server.js in the given FAULT_MODE, on a port the server picks itself
 * (no race between choosing and binding it); ready once it prints its URL.
 */
export function startHttpFixture(mode: string, env: Record<string, string> = {}): Promise<RunningServer> {
	return startSelfAnnouncingHttpFixture('http-fault-server.js', [], { ...env, FAULT_MODE: mode });
}

/**
 * `node test/fixtures/<file> ...args` with PORT=0, in its own process group: the server picks its
 * port itself and is ready once it prints "listening on http://127.0.0.1:<port>/mcp".
 */
export async function startSelfAnnouncingHttpFixture(file: string, args: string[] = [], env: Record<string, string> = {}): Promise<RunningServer> {
	const child = spawn(process.execPath, [path.join(FIXTURES_DIR, file), ...args], {
		env: { ...process.env, ...env, PORT: '0' },
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true,
	});
	let output = '';
	const url = await new Promise<string>((resolve, reject) => {
		const onData = (chunk: Buffer) => {
			output += chunk.toString();
			const match = /listening on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/.exec(output);
			if (match) resolve(match[1]);
		};
		child.stdout?.on('data', onData);
		child.stderr?.on('data', onData);
		child.once('exit', (code) => reject(new Error(`${file} exited early (${code}): ${output}`)));
	});
	child.removeAllListeners('exit');
	return {
		url,
		port: Number(new URL(url).port),
		process: child,
		stop: () =>
			new Promise<void>((resolve) => {
				if (child.exitCode !== null || child.signalCode !== null) return resolve();
				child.once('exit', () => resolve());
				try {
					process.kill(-(child.pid as number), 'SIGKILL');
				} catch {
					resolve();
				}
			}),
	};
}

/**
 * True while the process exists and is not a zombie. A killed grandchild is re-parented to PID 1,
 * which in a container may never reap it, so "exists" alone would report it alive forever.
 */
export function isRunning(pid: number): boolean {
	if (!isAlive(pid)) return false;
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
		return state !== 'Z' && state !== 'X';
	} catch {
		return true; // no /proc (macOS): trust kill(pid, 0)
	}
}

/** Waits until none of `pids` is running; returns those still running after `timeoutMs`. */
export async function waitForGone(pids: number[], timeoutMs = 5000): Promise<number[]> {
	const deadline = Date.now() + timeoutMs;
	let left = pids.filter(isRunning);
	while (left.length > 0 && Date.now() < deadline) {
		await new Promise((resolve) => setTimeout(resolve, 25));
		left = left.filter(isRunning);
	}
	return left;
}

/** Pids that fixtures appended to a FAULT_PID_FILE (missing file: none). */
export function readPidFile(file: string): number[] {
	if (!existsSync(file)) return [];
	return readFileSync(file, 'utf8')
		.split('\n')
		.filter(Boolean)
		.map(Number);
}

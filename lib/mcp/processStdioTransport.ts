import { spawn, type ChildProcess } from 'node:child_process';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { OutputTail } from './outputTail';
import { isModernRevision, modernResult } from './resultTypeDefault';

export interface ProcessStdioOptions {
	command: string;
	args: string[];
	env: Record<string, string>;
	cwd?: string;
	/** Removes secrets from what the server writes, before it is kept for error messages. */
	redact?: (text: string) => string;
	/** The longest stdout line read (MAX_LINE_CHARS unless a test says otherwise). */
	maxLineChars?: number;
}

/** Environment variables a child needs to find its tools; the rest of n8n's environment (its secrets) is not passed. */
const INHERITED_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'TMPDIR', 'TEMP', 'TMP', 'LANG', 'LC_ALL', 'NODE_EXTRA_CA_CERTS', 'SystemRoot', 'APPDATA', 'npm_config_cache', 'npm_config_registry', 'npm_config_userconfig', 'NPM_CONFIG_CACHE', 'NPM_CONFIG_REGISTRY', 'NPM_CONFIG_USERCONFIG'];

/**
 * Tells a JSON-RPC message from other JSON a server prints on stdout (structured logs). Only the
 * envelope is checked: the SDK's Protocol validates every message it receives again, in full, and
 * a full schema parse here as well cost as much as the rest of a call's client-side work.
 */
export function isJsonRpcEnvelope(value: unknown): value is JSONRPCMessage {
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
	const message = value as Record<string, unknown>;
	if (message.jsonrpc !== '2.0') return false;
	if (typeof message.method === 'string') return true;
	// An error response may lack an id (a parse error); a result always has one.
	if ('error' in message) return true;
	return (typeof message.id === 'string' || typeof message.id === 'number') && 'result' in message;
}

export class ProcessExitError extends Error {
	constructor(message: string, readonly exitCode: number | null, readonly signal: NodeJS.Signals | null) {
		super(message);
		this.name = 'ProcessExitError';
	}
}

/** The longest stdout line (one JSON-RPC message) read, in characters. */
const MAX_LINE_CHARS = 128 * 1024 * 1024;

/**
 * Every server process this process started and has not finished closing, pooled or not, still
 * starting or running: at exit, where nothing asynchronous runs any more, each group gets SIGKILL
 * (a server still in its handshake is in no pool yet).
 */
const started = new Set<ProcessStdioTransport>();
let exitHookInstalled = false;

function track(transport: ProcessStdioTransport): void {
	started.add(transport);
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	process.once('exit', killEveryServer);
}

/** SIGKILL to the process group of every server started here and not closed yet; synchronous. */
export function killEveryServer(): void {
	for (const transport of started) transport.killNow();
	started.clear();
}

/**
 * MCP stdio transport that starts the server in its own process group. The SDK's transport kills
 * only the direct child; servers started through npx or a shell script leave their real process
 * behind that way. Killing the group takes the whole tree. Non-JSON lines on stdout are kept as
 * diagnostics instead of tearing the connection down.
 */
export class ProcessStdioTransport implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: (message: JSONRPCMessage) => void;

	readonly stderr: OutputTail;
	readonly stdoutNoise: OutputTail;
	private child?: ChildProcess;
	/** Pieces of the line being received; joined once its newline arrives. */
	private pending: string[] = [];
	private pendingLength = 0;
	private readonly maxLineChars: number;
	private exited = false;
	private closing = false;
	private modern = false;
	private exitPromise?: Promise<void>;
	exitDescription?: string;

	constructor(private readonly options: ProcessStdioOptions) {
		this.maxLineChars = options.maxLineChars ?? MAX_LINE_CHARS;
		this.stderr = new OutputTail(20, 500, options.redact);
		this.stdoutNoise = new OutputTail(5, 500, options.redact);
	}

	async start(): Promise<void> {
		// The SDK client starts its transport once per connection; no input can start it twice (a plain Error: a fault of the caller).
		if (this.child) throw new Error('transport already started');
		const env: Record<string, string> = {};
		for (const name of INHERITED_ENV) if (process.env[name] !== undefined) env[name] = process.env[name] as string;
		Object.assign(env, this.options.env);
		await new Promise<void>((resolve, reject) => {
			let child: ChildProcess;
			try {
				child = spawn(this.options.command, this.options.args, {
					cwd: this.options.cwd || undefined,
					env,
					stdio: ['pipe', 'pipe', 'pipe'],
					detached: process.platform !== 'win32',
					windowsHide: true,
				});
			} catch (error) {
				// Some failures are thrown at once instead of emitted (a Working Directory that is a file, E2BIG).
				this.exited = true;
				this.exitDescription = this.spawnFailure(error as NodeJS.ErrnoException);
				reject(new ProcessExitError(this.exitDescription, null, null));
				return;
			}
			this.child = child;
			if (child.pid) track(this);
			this.exitPromise = new Promise((done) => {
				child.once('exit', () => done());
				child.once('error', () => done());
			});
			child.once('error', (error: NodeJS.ErrnoException) => {
				const reason = this.spawnFailure(error);
				this.exited = true;
				this.exitDescription = reason;
				const wrapped = new ProcessExitError(reason, null, null);
				reject(wrapped);
				this.onerror?.(wrapped);
			});
			child.once('spawn', () => resolve());
			child.once('exit', (code, signal) => {
				this.exited = true;
				// 'exit' can arrive before the last stderr/stdout chunks are read, and the pending
				// requests are rejected in onclose: report once the pipes are drained ('close'), or after
				// a short grace when a grandchild that inherited them keeps them open.
				let reported = false;
				const report = () => {
					if (reported) return;
					reported = true;
					clearTimeout(grace);
					if (!this.closing) {
						this.exitDescription = signal ? `the server process was killed by ${signal}` : `the server process exited with code ${code}`;
						this.onerror?.(new ProcessExitError(this.exitDescription, code, signal));
					}
					this.onclose?.();
				};
				const grace = setTimeout(report, 200);
				child.once('close', report);
			});
			child.stdout?.setEncoding('utf8');
			child.stdout?.on('data', (chunk: string) => this.readStdout(chunk));
			child.stderr?.setEncoding('utf8');
			child.stderr?.on('data', (chunk: string) => this.stderr.write(chunk));
			child.stdin?.on('error', () => {
				// EPIPE after the server died; the exit handler reports it.
			});
		});
	}

	/** Why the process could not start, naming the credential field involved. */
	private spawnFailure(error: NodeJS.ErrnoException): string {
		const { command, cwd } = this.options;
		// Node reports a missing working directory as ENOENT too: with one set, both are named.
		if (error.code === 'ENOENT') {
			return cwd
				? `command "${command}" was not found, or the Working Directory "${cwd}" does not exist (check both, and that the command is on n8n's PATH)`
				: `command "${command}" was not found (check the path, or that it is on n8n's PATH)`;
		}
		if (error.code === 'ENOTDIR' && cwd) return `could not start "${command}": the Working Directory "${cwd}" is not a directory`;
		if (error.code === 'EACCES') return `command "${command}" is not executable`;
		return `could not start "${command}": ${error.code ?? error.message}`;
	}

	/**
	 * Splits stdout into lines. Only the new chunk is searched and a long line is joined once, so a
	 * large message (a 1,000-tool list is ~1 MB) costs O(size), not O(size × chunks).
	 */
	private readStdout(chunk: string): void {
		if (this.closing) return;
		let start = 0;
		let newline: number;
		while ((newline = chunk.indexOf('\n', start)) !== -1) {
			const piece = chunk.slice(start, newline);
			const line = this.pending.length > 0 ? this.pending.join('') + piece : piece;
			this.pending = [];
			this.pendingLength = 0;
			start = newline + 1;
			this.readLine(line.endsWith('\r') ? line.slice(0, -1) : line);
		}
		if (start < chunk.length) {
			this.pending.push(start === 0 ? chunk : chunk.slice(start));
			this.pendingLength += chunk.length - start;
			if (this.pendingLength > this.maxLineChars) this.refuseLongLine();
		}
	}

	/**
	 * A line longer than any message we would read: held, it would grow n8n's memory without bound
	 * and at last fail to join into one string where nothing catches it. The server is stopped, and
	 * the calls open on it fail saying why.
	 */
	private refuseLongLine(): void {
		this.pending = [];
		this.pendingLength = 0;
		const limit = this.maxLineChars;
		this.exitDescription = `the server wrote a line of more than ${limit >= 1024 * 1024 ? `${Math.round(limit / (1024 * 1024))} MB` : `${limit} characters`} to stdout (a message too large to read), so it was stopped`;
		this.onerror?.(new ProcessExitError(this.exitDescription, null, null));
		void this.close();
	}

	private readLine(line: string): void {
		if (line.trim() === '') return;
		let parsed: unknown;
		try {
			parsed = JSON.parse(line);
		} catch {
			this.stdoutNoise.push(line);
			return;
		}
		if (!isJsonRpcEnvelope(parsed)) {
			this.stdoutNoise.push(line);
			return;
		}
		this.onmessage?.(this.modern ? modernResult(parsed) : parsed);
	}

	/** Called by the client once the protocol version is known (see resultTypeDefault.ts). */
	setProtocolVersion(version: string): void {
		this.modern = isModernRevision(version);
	}

	async send(message: JSONRPCMessage): Promise<void> {
		const stdin = this.child?.stdin;
		if (!stdin || this.exited) throw new ProcessExitError(this.exitDescription ?? 'the server process is not running', null, null);
		const line = JSON.stringify(message) + '\n';
		await new Promise<void>((resolve) => {
			if (stdin.write(line)) resolve();
			else stdin.once('drain', resolve);
		});
	}

	/** Ends stdin (the spec's polite shutdown), then SIGTERM and SIGKILL to the whole process group. */
	async close(): Promise<void> {
		const child = this.child;
		if (!child || this.closing) return this.exitPromise;
		this.closing = true;
		if (!this.exited) {
			child.stdin?.end();
			if (!(await this.waitForExit(1000))) {
				this.killGroup('SIGTERM');
				if (!(await this.waitForExit(2000))) {
					this.killGroup('SIGKILL');
					await this.waitForExit(2000);
				}
			}
		}
		// The leader may be gone while grandchildren (npx -> node) still run in its group.
		this.killGroup('SIGKILL');
		started.delete(this);
		return undefined;
	}

	get pid(): number | undefined {
		return this.child?.pid;
	}

	/** True once the process has exited (or never started). */
	get hasExited(): boolean {
		return this.exited;
	}

	/**
	 * SIGKILL to the whole group, synchronously: for the moment the host process exits, when no
	 * polite shutdown can be awaited any more.
	 */
	killNow(): void {
		this.closing = true;
		this.killGroup('SIGKILL');
		started.delete(this);
	}

	private killGroup(signal: NodeJS.Signals): void {
		const pid = this.child?.pid;
		if (!pid) return;
		try {
			if (process.platform === 'win32') this.child?.kill(signal);
			else process.kill(-pid, signal);
		} catch {
			// ESRCH: already gone.
		}
	}

	private async waitForExit(ms: number): Promise<boolean> {
		if (this.exited) return true;
		let timer: NodeJS.Timeout | undefined;
		const timedOut = new Promise<boolean>((resolve) => {
			timer = setTimeout(() => resolve(false), ms);
		});
		const exited = (this.exitPromise ?? Promise.resolve()).then(() => true);
		const result = await Promise.race([exited, timedOut]);
		clearTimeout(timer);
		return result;
	}
}

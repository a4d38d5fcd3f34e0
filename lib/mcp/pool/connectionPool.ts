import { McpConnection, type OpenOptions } from '../connection';
import type { McpServerConfig } from '../serverConfig';
import type { McpAuth } from '../oauth/types';
import { SwappableAuth } from './swappableAuth';

/**
 * Connections kept between executions, one pool per process (n8n main, each queue-mode worker).
 *
 * A connection is shared by every execution that uses the same credential (same type, id and data:
 * `config.pooling.key`) and, for OAuth tokens held by n8n, a token the connection produced itself
 * (swappableAuth.ts: another token retires it); several may use it at once, their requests kept apart by JSON-RPC ids, so
 * a call's timeout or cancellation ends only that call. Between uses it is checked: a connection
 * whose process exited or whose transport closed is replaced, and one that saw a failure or sat
 * idle for a while must answer a ping first (not while another execution uses it: a server busy
 * with that execution's call may be slow to answer, and replacing the connection would end the
 * call). Unused connections close after the credential's idle time; beyond the size limit the
 * least recently used idle one closes first.
 */

/** One use of a connection: `release` when done, never `connection.close()`. */
export interface McpLease {
	readonly connection: McpConnection;
	/** Whether the connection is kept after release (false: release closes it). */
	readonly pooled: boolean;
	release(): Promise<void>;
}

export interface PoolOptions {
	/** Most connections kept; more may be in use at once, the surplus closes when released. */
	maxSize: number;
	/** An idle connection older than this answers a ping before it is handed out again. */
	pingAfterIdleMs?: number;
	/** Upper bound for that ping (the credential's request timeout when shorter). */
	pingTimeoutMs?: number;
	now?: () => number;
	/** Opens a connection; McpConnection.open unless a test says otherwise. */
	open?: (config: McpServerConfig, options: OpenOptions) => Promise<McpConnection>;
}

interface Entry {
	key: string;
	identity: string;
	idleMs: number;
	ready: Promise<McpConnection>;
	connection?: McpConnection;
	auth?: SwappableAuth;
	leases: number;
	/** Leases handed out (executions using the connection); `leases` also counts those still acquiring. */
	active: number;
	lastUsed: number;
	/** When the connection last proved it answers (handshake, ping). */
	lastHealthy: number;
	/** A health check under way: executions arriving meanwhile wait for its verdict instead of sharing a connection it may close. */
	checking?: Promise<boolean>;
	idleTimer?: NodeJS.Timeout;
	/** Replaced by a newer version of its credential: closes when its last lease is released. */
	retired: boolean;
	removed: boolean;
}

const DEFAULT_PING_AFTER_IDLE_MS = 30_000;
const DEFAULT_PING_TIMEOUT_MS = 5_000;
/** The longest delay setTimeout honours (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMEOUT_MS = 2_147_483_647;

export class ConnectionPool {
	private readonly entries = new Map<string, Entry>();
	/** Connections being closed, so a shutdown can wait for (or cut short) them too. */
	private readonly closing = new Set<Promise<void>>();
	/** Every connection this pool opened and has not finished closing, for killNow at exit. */
	private readonly live = new Set<McpConnection>();
	private draining = false;
	/** Numbers the connections retired for a token not their own (see supersede). */
	private superseded = 0;
	private readonly now: () => number;
	private readonly open: (config: McpServerConfig, options: OpenOptions) => Promise<McpConnection>;

	constructor(private readonly options: PoolOptions) {
		this.now = options.now ?? Date.now;
		this.open = options.open ?? ((config, openOptions) => McpConnection.open(config, openOptions));
	}

	/** Connections kept (in use or idle). */
	get size(): number {
		return this.entries.size;
	}

	/** What is kept, for tests and diagnostics: never credential data, only counts and pids. */
	stats(): Array<{ leases: number; pid?: number; idleMs: number; retired: boolean }> {
		return [...this.entries.values()].map((entry) => ({ leases: entry.leases, pid: entry.connection?.pid, idleMs: entry.idleMs, retired: entry.retired }));
	}

	/**
	 * A connection for `config`: the kept one when its settings allow (`config.pooling`) and it is
	 * healthy, else a new one. Without pooling settings, or while the pool drains for shutdown, a
	 * fresh connection that release() closes, as before pooling existed.
	 */
	async acquire(config: McpServerConfig): Promise<McpLease> {
		const pooling = config.pooling;
		if (!pooling || this.draining || this.options.maxSize <= 0) {
			// Keep Server Running turned off: what was kept for the credential closes (once unused).
			if (!pooling && config.unkeptIdentity) this.retireIdentity(config.unkeptIdentity);
			return this.unpooled(config);
		}
		// Two rounds: a kept connection found dead is replaced once; a new one failing is the answer.
		for (let round = 0; ; round++) {
			const entry = this.entryFor(config);
			entry.leases++;
			this.touch(entry);
			let connection: McpConnection;
			try {
				connection = await entry.ready;
			} catch (error) {
				entry.leases--;
				this.remove(entry);
				throw error;
			}
			// This execution's tokens from now on, the health check's ping included: a refresh must never
			// run on a finished execution's behalf (swappableAuth.ts).
			const auth = entry.auth && config.kind === 'http' && SwappableAuth.needed(config.auth) ? config.auth : undefined;
			if (auth) entry.auth?.use(auth);
			if (round > 0 || (await this.usable(entry, connection))) return this.lease(entry, connection, auth);
			if (auth) entry.auth?.release(auth);
			entry.leases--;
			this.evict(entry);
		}
	}

	/** Closes every kept connection (idle and in use) and waits until their processes are gone. */
	async closeAll(): Promise<void> {
		for (const entry of [...this.entries.values()]) this.evict(entry);
		await Promise.all([...this.closing]);
	}

	/**
	 * From now on: idle connections close at once, connections in use close when released, and new
	 * uses get a connection of their own. For a host that is shutting down but lets running
	 * executions finish (n8n waits for them on SIGTERM).
	 */
	drain(): void {
		this.draining = true;
		for (const entry of [...this.entries.values()]) this.retire(entry);
	}

	/** Synchronous last resort at process exit: SIGKILL to every local server's process group. */
	killNow(): void {
		for (const connection of this.live) connection.killNow();
		this.live.clear();
		this.entries.clear();
	}

	private async unpooled(config: McpServerConfig): Promise<McpLease> {
		const connection = await this.open(config, { watchToolList: true });
		this.live.add(connection);
		let released = false;
		return {
			connection,
			pooled: false,
			release: async () => {
				if (released) return;
				released = true;
				await this.track(connection);
			},
		};
	}

	/** The credential's kept connections (but `except`) serve their current users, then close. */
	private retireIdentity(identity: string, except?: string): void {
		for (const entry of [...this.entries.values()]) if (entry.identity === identity && entry.key !== except) this.retire(entry);
	}

	private entryFor(config: McpServerConfig): Entry {
		const pooling = config.pooling as NonNullable<McpServerConfig['pooling']>;
		const existing = this.entries.get(pooling.key);
		if (existing && !this.foreignToken(existing, config)) return existing;
		if (existing) this.supersede(existing);
		// An edited credential: its older connections serve their current users, then close.
		this.retireIdentity(pooling.identity, pooling.key);
		let auth: SwappableAuth | undefined;
		let kept = config;
		if (config.kind === 'http' && SwappableAuth.needed(config.auth)) {
			auth = new SwappableAuth(config.auth);
			kept = { ...config, auth };
		}
		const started = this.now();
		const entry: Entry = {
			key: pooling.key,
			identity: pooling.identity,
			idleMs: pooling.idleMs,
			leases: 0,
			active: 0,
			lastUsed: started,
			lastHealthy: started,
			retired: false,
			removed: false,
			auth,
			ready: undefined as unknown as Promise<McpConnection>,
		};
		// A process that exits or a stream that closes takes the connection out at once, so its
		// process group is reaped now and the next use starts a new one.
		entry.ready = this.open(kept, { watchToolList: true, onLost: () => this.evict(entry) }).then((connection) => {
			this.live.add(connection);
			entry.connection = connection;
			entry.lastHealthy = this.now();
			if (entry.removed) void this.track(connection);
			return connection;
		});
		// Waiters handle the rejection; this keeps an unawaited failure from being reported twice.
		entry.ready.catch(() => undefined);
		this.entries.set(entry.key, entry);
		this.enforceLimit();
		return entry;
	}

	/**
	 * The execution brings OAuth tokens the kept connection did not produce: the credential was
	 * connected again (perhaps to another account), or another process refreshed it. Its calls must
	 * not ride the session, server state, tool list or instructions of the tokens before.
	 */
	private foreignToken(entry: Entry, config: McpServerConfig): boolean {
		return Boolean(entry.auth && config.kind === 'http' && SwappableAuth.needed(config.auth) && !entry.auth.produced(config.auth));
	}

	/**
	 * Retires a connection whose credential was reconnected: out of the key's place (the next use
	 * opens a new one there), closed once its current users release it, as an edited credential's.
	 */
	private supersede(entry: Entry): void {
		this.entries.delete(entry.key);
		entry.key = `${entry.key}\u0000superseded ${++this.superseded}`;
		this.entries.set(entry.key, entry);
		this.retire(entry);
	}

	/**
	 * Whether a new use may share the connection: the verdict of a health check under way; else
	 * alive, and, when it saw a failure or sat idle long and no other execution is using it (a busy
	 * server is not pinged), answering a ping. Synchronous when no ping is due, the warm path.
	 */
	private usable(entry: Entry, connection: McpConnection): boolean | Promise<boolean> {
		if (entry.checking) return entry.checking;
		if (!connection.isAlive || entry.auth?.refusedWhileIdle) return false;
		const failedSince = connection.lastFailureAt > entry.lastHealthy;
		const idleLong = this.now() - entry.lastHealthy > (this.options.pingAfterIdleMs ?? DEFAULT_PING_AFTER_IDLE_MS);
		// Only an execution that holds the connection counts as using it: others still acquiring (two
		// MCP Server sub-nodes on one credential arrive together) prove nothing and share this check.
		if (entry.active > 0 || (!failedSince && !idleLong)) return true;
		const checking = this.answersPing(entry, connection).finally(() => {
			if (entry.checking === checking) entry.checking = undefined;
		});
		entry.checking = checking;
		return checking;
	}

	/** The connection answers a ping (and is still alive after it). */
	private async answersPing(entry: Entry, connection: McpConnection): Promise<boolean> {
		try {
			await connection.ping(Math.min(this.options.pingTimeoutMs ?? DEFAULT_PING_TIMEOUT_MS, connection.config.requestTimeoutMs));
		} catch {
			return false;
		}
		entry.lastHealthy = this.now();
		return connection.isAlive;
	}

	private lease(entry: Entry, connection: McpConnection, auth?: McpAuth): McpLease {
		let released = false;
		entry.active++;
		return {
			connection,
			pooled: true,
			release: async () => {
				if (released) return;
				released = true;
				if (auth) entry.auth?.release(auth);
				entry.leases--;
				entry.active--;
				this.touch(entry);
				// Requests that completed prove the server answers; a failure since then is kept for the check.
				if (connection.lastFailureAt <= entry.lastHealthy) entry.lastHealthy = Math.max(entry.lastHealthy, this.now());
				if (entry.leases > 0) return;
				if (entry.removed) return;
				if (entry.retired || !connection.isAlive) {
					this.remove(entry);
					await this.track(connection);
					return;
				}
				this.startIdleTimer(entry);
				this.enforceLimit();
			},
		};
	}

	/** Most recently used last: Map order is the LRU order. */
	private touch(entry: Entry): void {
		entry.lastUsed = this.now();
		if (entry.idleTimer) {
			clearTimeout(entry.idleTimer);
			entry.idleTimer = undefined;
		}
		if (!entry.removed && this.entries.get(entry.key) === entry) {
			this.entries.delete(entry.key);
			this.entries.set(entry.key, entry);
		}
	}

	private startIdleTimer(entry: Entry, remainingMs = entry.idleMs): void {
		// Node fires a longer timeout after 1 ms: a long idle time waits in steps.
		const step = Math.min(remainingMs, MAX_TIMEOUT_MS);
		entry.idleTimer = setTimeout(() => {
			entry.idleTimer = undefined;
			if (entry.leases > 0) return;
			if (remainingMs > step) this.startIdleTimer(entry, remainingMs - step);
			else this.evict(entry);
		}, step);
		// Never the reason a process stays up.
		entry.idleTimer.unref();
	}

	/** Beyond the size limit, the least recently used idle connections close. */
	private enforceLimit(): void {
		if (this.entries.size <= this.options.maxSize) return;
		for (const entry of [...this.entries.values()]) {
			if (this.entries.size <= this.options.maxSize) return;
			if (entry.leases === 0 && entry.connection) this.evict(entry);
		}
	}

	private retire(entry: Entry): void {
		entry.retired = true;
		if (entry.leases === 0) this.evict(entry);
	}

	private remove(entry: Entry): void {
		if (entry.removed) return;
		entry.removed = true;
		if (entry.idleTimer) clearTimeout(entry.idleTimer);
		if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
	}

	/** Out of the pool now, closed in the background (users still holding it see it fail). */
	private evict(entry: Entry): void {
		const wasRemoved = entry.removed;
		this.remove(entry);
		if (wasRemoved && !entry.connection) return;
		if (entry.connection) void this.track(entry.connection);
		// Still opening: closed as soon as it is open (see entryFor).
	}

	private track(connection: McpConnection): Promise<void> {
		const closing = connection.close().finally(() => {
			this.closing.delete(closing);
			this.live.delete(connection);
		});
		this.closing.add(closing);
		return closing;
	}
}

import type { AuthProvider } from '@modelcontextprotocol/client';
import { McpFailure } from '../errors';
import type { McpAuth } from '../oauth/types';

/** Auths remembered for redaction after they were swapped out (their tokens may still be echoed). */
const REMEMBERED_AUTHS = 8;

/**
 * The auth of a connection kept between executions, for tokens held by the host (n8n's OAuth
 * credential). Each execution brings its own auth, bound to its own context: n8n's refresh helper
 * runs on the context of the execution that owns the credential, and a finished execution's context
 * must not be the one asked for a refresh later. So the pool swaps the newest execution's auth in
 * on every use, and the transport's provider always asks the current one; when that execution
 * releases the connection while others still use it, the newest of theirs takes over.
 *
 * Redaction covers every token any of the recent auths has held, old ones included: a server may
 * echo a token it received before the swap.
 */
export class SwappableAuth implements McpAuth {
	readonly kind: McpAuth['kind'];
	readonly onInsufficientScope: McpAuth['onInsufficientScope'];
	readonly remedy: string;
	readonly provider: AuthProvider;
	private current: McpAuth;
	private readonly held: McpAuth[];
	/** The auths of the executions using the connection now, oldest first (one entry per use). */
	private readonly inUse: McpAuth[] = [];
	private swaps = 0;
	/**
	 * No execution uses the connection (the last one released it): requests now (the closing DELETE,
	 * the SDK reconnecting a stream) carry the stored token as it is; nothing is refreshed, since the
	 * only context that could be asked belongs to an execution that has finished.
	 */
	private idle = false;

	constructor(initial: McpAuth) {
		this.current = initial;
		this.held = [initial];
		this.kind = initial.kind;
		this.onInsufficientScope = initial.onInsufficientScope;
		this.remedy = initial.remedy;
		this.provider = {
			token: async () => {
				if (!this.idle) return (this.current.provider as AuthProvider).token();
				const stored = this.current.storedToken?.();
				if (!stored) throw this.idleRefusal();
				return stored;
			},
			onUnauthorized: async (context) => {
				if (this.idle) throw this.idleRefusal();
				const provider = this.current.provider as AuthProvider;
				if (provider.onUnauthorized) await provider.onUnauthorized(context);
			},
		};
	}

	/**
	 * A request was refused a token while idle (a stream the SDK reopened, and lost for good): the
	 * next execution gets a new connection instead of one that may miss notifications.
	 */
	refusedWhileIdle = false;

	private idleRefusal(): McpFailure {
		this.refusedWhileIdle = true;
		return new McpFailure('The kept connection has no fresh token: no execution is using it now, and tokens are renewed only on behalf of a running execution.', 'reconnect');
	}

	/** Only host-held tokens need a per-execution auth; other grants keep their own client. */
	static needed(auth: McpAuth | undefined): auth is McpAuth {
		return auth?.kind === 'host';
	}

	/** An execution starts using the connection with its auth. */
	use(next: McpAuth): void {
		this.inUse.push(next);
		this.idle = false;
		this.switchTo(next);
	}

	/** That execution is done: if its auth was the current one, the newest still in use takes over. */
	release(auth: McpAuth): void {
		const at = this.inUse.lastIndexOf(auth);
		if (at !== -1) this.inUse.splice(at, 1);
		if (this.inUse.length === 0) this.idle = true;
		else if (auth === this.current) this.switchTo(this.inUse[this.inUse.length - 1]);
	}

	private switchTo(next: McpAuth): void {
		if (next === this.current) return;
		this.current = next;
		if (!this.held.includes(next)) {
			this.held.push(next);
			if (this.held.length > REMEMBERED_AUTHS) this.held.shift();
		}
		this.swaps++;
	}

	secrets(): string[] {
		return [...new Set(this.held.flatMap((auth) => auth.secrets()))];
	}

	/** Changes whenever any held auth saw a new value, or another auth was swapped in. */
	get secretsVersion(): number {
		return this.swaps * 1_000_000 + this.held.reduce((sum, auth) => sum + auth.secretsVersion, 0);
	}
}

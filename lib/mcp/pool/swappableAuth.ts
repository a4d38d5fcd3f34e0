import type { AuthProvider } from '@modelcontextprotocol/client';
import { SecretDigest } from '../../util/secretDigest';
import { McpFailure } from '../errors';
import type { McpAuth } from '../oauth/types';

/** Auths remembered for redaction after they were swapped out (their tokens may still be echoed). */
const REMEMBERED_AUTHS = 8;
/** Access tokens of its own a connection remembers (a few refreshes a day: weeks of them). */
const OWN_TOKENS = 64;
/** Tokens are remembered and compared as digests under a per-process secret, never as values. */
const tokenDigest = new SecretDigest();

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
 *
 * It also remembers which access tokens are the connection's own: the one its first execution was
 * handed, and every one a refresh returned while the connection used it (n8n stores that and hands
 * it to the next execution). A token that is none of these was not produced by this connection (a
 * person connected the credential again, perhaps to another account; or another process
 * refreshed it), and the pool gives that execution a connection of its own (`produced`).
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
	/** Digests of the connection's own access tokens, oldest first. */
	private readonly ownTokens = new Set<string>();

	constructor(initial: McpAuth) {
		this.current = initial;
		this.held = [initial];
		this.kind = initial.kind;
		this.onInsufficientScope = initial.onInsufficientScope;
		this.remedy = initial.remedy;
		this.remember(initial.handedToken?.());
		this.provider = {
			token: async () => {
				if (!this.idle) return this.remember(await (this.current.provider as AuthProvider).token());
				const stored = this.current.storedToken?.();
				if (!stored) throw this.idleRefusal();
				return stored;
			},
			onUnauthorized: async (context) => {
				if (this.idle) throw this.idleRefusal();
				const auth = this.current;
				const provider = auth.provider as AuthProvider;
				if (provider.onUnauthorized) await provider.onUnauthorized(context);
				// The refreshed token, even if no request carries it before the execution ends.
				this.remember(auth.storedToken?.());
			},
		};
	}

	/**
	 * Whether `next` starts from one of the connection's own tokens; false for any other token, and
	 * for none. Only then may its execution share the connection (its session, its server-side
	 * state, its cached tool list and instructions).
	 */
	produced(next: McpAuth): boolean {
		const token = next.handedToken?.();
		return token !== undefined && this.ownTokens.has(tokenDigest.of(token));
	}

	private remember<T extends string | undefined>(token: T): T {
		if (token === undefined || token === '') return token;
		const digest = tokenDigest.of(token);
		if (this.ownTokens.has(digest)) return token;
		this.ownTokens.add(digest);
		if (this.ownTokens.size > OWN_TOKENS) this.ownTokens.delete(this.ownTokens.values().next().value as string);
		return token;
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

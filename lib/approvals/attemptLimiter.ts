/**
 * Failed sign-ins per review, so the review page cannot be used to try passwords against n8n's
 * login. Kept in memory of the n8n process serving the page: a restart, or another webhook process
 * in queue mode, starts counting afresh. n8n's own login limit (per e-mail) still applies on top.
 */
export interface AttemptLimiterOptions {
	maxFailures: number;
	windowMs: number;
	/** Bound on remembered keys, so a flood of reviews cannot grow the map without limit. */
	maxKeys?: number;
}

interface Window {
	failures: number;
	resetAt: number;
}

export class AttemptLimiter {
	private readonly windows = new Map<string, Window>();

	constructor(private readonly options: AttemptLimiterOptions) {}

	/** Milliseconds until `key` may try again, or 0 when it may try now. */
	retryAfterMs(key: string, now = Date.now()): number {
		const window = this.windows.get(key);
		if (!window || window.resetAt <= now) return 0;
		return window.failures >= this.options.maxFailures ? window.resetAt - now : 0;
	}

	recordFailure(key: string, now = Date.now()): void {
		const current = this.windows.get(key);
		if (current && current.resetAt > now) {
			current.failures += 1;
			return;
		}
		this.prune(now);
		this.windows.set(key, { failures: 1, resetAt: now + this.options.windowMs });
	}

	/** Takes back one failure of `key` (an attempt reserved before its outcome was known, that did not fail). */
	refund(key: string, now = Date.now()): void {
		const current = this.windows.get(key);
		if (current && current.resetAt > now && current.failures > 0) current.failures -= 1;
	}

	private prune(now: number): void {
		for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
		const maxKeys = this.options.maxKeys ?? 10_000;
		// Oldest first (Map keeps insertion order); forgetting a key only ever gives it a fresh window.
		for (const key of this.windows.keys()) {
			if (this.windows.size < maxKeys) break;
			this.windows.delete(key);
		}
	}
}

/** 5 failed sign-ins per approval per 15 minutes, shared by every review page of this process. */
export const REVIEW_SIGN_IN_LIMIT = { maxFailures: 5, windowMs: 15 * 60_000 };
export const reviewSignInLimiter = new AttemptLimiter(REVIEW_SIGN_IN_LIMIT);

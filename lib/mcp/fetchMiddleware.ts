import type { FetchLike, Middleware } from '@modelcontextprotocol/client';
import { limitedFetch, type AnswerTooLarge } from './streamLimits';
import { pacedStreamOpens } from './streamReconnect';
import type { ServerNamedUrlPolicy } from './urlPolicy';

/**
 * What the HTTP transports' fetches are made of, each as the SDK's fetch middleware
 * (`(next) => fetch`), stacked with its `applyMiddlewares`: the first middleware listed sits next to
 * the fetch it is applied to, the last one sees the transport's request first.
 */

/** The global fetch, looked up on every request as a bare `fetch(...)` call would (tests replace it). */
export const globalFetch: FetchLike = (url, init) => fetch(url, init);

/** Every answer body held to the bounds of streamLimits.ts (see limitedFetch). */
export function answerLimits(options: { standingEventBytes?: number; onTooLarge?: (ids: Array<string | number>, error: AnswerTooLarge) => void } = {}): Middleware {
	return (next) => limitedFetch(next, options.standingEventBytes, options.onTooLarge);
}

/** Each request opens at least MIN_STREAM_REOPEN_MS after the one before (see pacedStreamOpens). */
export function pacedOpens(): Middleware {
	return (next) => pacedStreamOpens(next);
}

/** Every URL checked against the URL policy before it is fetched (the fetch below resolves it again itself). */
export function urlPolicyChecked(policy: ServerNamedUrlPolicy): Middleware {
	return (next) => async (url, init) => {
		await policy.check(url);
		return next(url, init);
	};
}

/** The credential's headers on every request, over whatever the request carried under those names. */
export function credentialHeaders(headers: Record<string, string>): Middleware {
	return (next) => (url, init) => {
		const merged = new Headers(init?.headers);
		for (const [name, value] of Object.entries(headers)) merged.set(name, value);
		return next(url, { ...init, headers: merged });
	};
}

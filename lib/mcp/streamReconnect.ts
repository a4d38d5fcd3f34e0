import type { FetchLike, ReconnectionScheduler } from '@modelcontextprotocol/client';

/**
 * How soon a dropped event stream may be opened again. A server picks the delay with SSE's `retry:`
 * field, and the clients take it as given: a hostile or broken server can ask for 0 ms and close
 * every stream at once, or ask for more than a timer holds (Node then fires after 1 ms), and a kept
 * connection would reconnect in a tight loop for as long as it lives, burning n8n's CPU. Every
 * reconnection delay is held between these bounds; a polling server still gets four reopens a second.
 */
export const MIN_STREAM_REOPEN_MS = 250;
export const MAX_STREAM_REOPEN_MS = 5 * 60_000;

export function boundedReopenDelay(ms: number): number {
	if (!Number.isFinite(ms)) return Number.isNaN(ms) ? MIN_STREAM_REOPEN_MS : MAX_STREAM_REOPEN_MS;
	return Math.min(Math.max(ms, MIN_STREAM_REOPEN_MS), MAX_STREAM_REOPEN_MS);
}

/** The SDK Streamable HTTP transport's scheduler (its reconnectionScheduler option), with bounded delays. */
export const boundedReconnection: ReconnectionScheduler = (reconnect, delay) => {
	const timer = setTimeout(reconnect, boundedReopenDelay(delay));
	return () => clearTimeout(timer);
};

/**
 * For the legacy SSE transport, whose EventSource keeps its reconnection delay to itself: each
 * stream it opens waits until MIN_STREAM_REOPEN_MS after the one before (the first goes at once).
 * A wait ends early, with the fetch's abort reason, when the stream is closed meanwhile.
 */
export function pacedStreamOpens(fetchImpl: FetchLike): FetchLike {
	let lastOpen = Number.NEGATIVE_INFINITY;
	return async (url, init) => {
		const wait = lastOpen + MIN_STREAM_REOPEN_MS - performance.now();
		if (wait > 0) await abortableWait(wait, init?.signal ?? undefined);
		lastOpen = performance.now();
		return fetchImpl(url, init);
	};
}

function abortableWait(ms: number, signal: AbortSignal | undefined): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) {
			reject(signal.reason);
			return;
		}
		const onAbort = () => {
			clearTimeout(timer);
			reject(signal?.reason);
		};
		const timer = setTimeout(() => {
			signal?.removeEventListener('abort', onAbort);
			resolve();
		}, ms);
		signal?.addEventListener('abort', onAbort, { once: true });
	});
}

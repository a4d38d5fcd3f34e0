/** How long synchronous work may run before it lets the event loop go on (webhooks, /healthz, timers). */
export const YIELD_SLICE_MS = 15;

/** Lets the event loop run what is due (I/O callbacks, timers) before the work goes on. */
export function yieldToEventLoop(): Promise<void> {
	return new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * `compute` for every item, into a map, yielding to the event loop whenever `sliceMs` of work is
 * done: for per-item work over a listing a server chose the size of (2,000 tools), so no single
 * stall lasts much longer than one slice and one item.
 */
export async function mapYielding<T, R>(items: readonly T[], compute: (item: T) => R, sliceMs = YIELD_SLICE_MS): Promise<Map<T, R>> {
	const results = new Map<T, R>();
	let sliceStart = performance.now();
	for (const item of items) {
		results.set(item, compute(item));
		if (performance.now() - sliceStart >= sliceMs) {
			await yieldToEventLoop();
			sliceStart = performance.now();
		}
	}
	return results;
}

/** The fake clock the MCP Tasks unit tests run their waits on (lib/mcp/toolTask.ts TaskTimers). */
import type { TaskTimers } from '../../lib/mcp/toolTask';

/** A clock that moves only when the test says so; records every wait asked for. */
export class FakeClock implements TaskTimers {
	time = 0;
	private next = 1;
	readonly pending = new Map<number, { at: number; run: () => void }>();
	readonly waits: number[] = [];

	now(): number {
		return this.time;
	}

	setTimeout(run: () => void, ms: number): unknown {
		const id = this.next++;
		this.waits.push(ms);
		this.pending.set(id, { at: this.time + ms, run });
		return id;
	}

	clearTimeout(handle: unknown): void {
		this.pending.delete(handle as number);
	}

	/** Runs the earliest timer (moving the clock to it); false when none is pending. */
	fireNext(): boolean {
		const [id, timer] = [...this.pending.entries()].sort((a, b) => a[1].at - b[1].at)[0] ?? [];
		if (id === undefined || !timer) return false;
		this.pending.delete(id);
		this.time = Math.max(this.time, timer.at);
		timer.run();
		return true;
	}
}

export const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Drives `pending` to its end: microtasks first, then the next fake timer, until it settles. */
export async function settle<T>(clock: FakeClock, pending: Promise<T>, maxSteps = 1000): Promise<T> {
	let done = false;
	pending.then(
		() => (done = true),
		() => (done = true),
	);
	for (let step = 0; step < maxSteps && !done; step++) {
		await flush();
		if (!done && !clock.fireNext()) await flush();
	}
	return pending;
}

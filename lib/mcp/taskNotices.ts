import type { Client } from '@modelcontextprotocol/client';

/**
 * `notifications/tasks/status` (MCP 2025-11-25, optional for servers) by task id: a task wait
 * watches its task and polls at once when the server says its status changed, instead of at the
 * end of the poll interval (lib/mcp/toolTask.ts bounds how often). One per connection, installed
 * on each session's client (a re-initialized session gets it too).
 */
export class TaskNotices {
	private readonly watchers = new Map<string, Set<() => void>>();

	install(client: Client): void {
		// Not in the client's typed method list (2025-11-25 only), though its 2025 codec validates it.
		client.setNotificationHandler('notifications/tasks/status' as never, (notification: unknown) => {
			const taskId = (notification as { params?: { taskId?: unknown } }).params?.taskId;
			if (typeof taskId !== 'string') return;
			for (const wake of this.watchers.get(taskId) ?? []) wake();
		});
	}

	/** Calls `wake` on each notice for `taskId` until the returned function is called. */
	watch(taskId: string, wake: () => void): () => void {
		let set = this.watchers.get(taskId);
		if (!set) this.watchers.set(taskId, (set = new Set()));
		set.add(wake);
		return () => {
			set.delete(wake);
			if (set.size === 0 && this.watchers.get(taskId) === set) this.watchers.delete(taskId);
		};
	}

	/** Tasks watched now (tests: nothing is left watched after a wait). */
	get size(): number {
		return this.watchers.size;
	}
}

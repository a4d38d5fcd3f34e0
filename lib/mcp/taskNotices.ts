import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';

/**
 * `notifications/tasks/status` (MCP 2025-11-25, optional for servers) by task id, and the progress
 * notifications of 2025-11-25 task calls by their token (routeProgress). A task wait
 * watches its task and polls at once when the server says its status changed, instead of at the
 * end of the poll interval (lib/mcp/toolTask.ts bounds how often). One per connection, installed
 * on each session's client (a re-initialized session gets it too).
 */
export class TaskNotices {
	private readonly watchers = new Map<string, Set<() => void>>();
	/** Progress tokens of 2025-11-25 task calls, to their call's handler (see routeProgress). */
	private readonly progressRoutes = new Map<string, (params: unknown) => void>();
	private routing = false;

	install(client: Client): void {
		this.installProgressRoutes(client);
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

	/**
	 * A progress token for a 2025-11-25 task call and the route of its notifications, until `stop`.
	 * The server keeps sending progress with the call's token for the task's whole life (SEP-1686),
	 * while the SDK forgets a token once the call is answered (here: with the task). Undefined when
	 * the client could not be given the route (then the call carries no token). `token`: the one a
	 * handed-off task's call was sent with (RunningTask.progressToken), routed again while a later
	 * check waits for the task on this connection.
	 */
	routeProgress(onProgress: (params: unknown) => void, token = `task-progress-${randomUUID()}`): { token: string; stop: () => void } | undefined {
		if (!this.routing) return undefined;
		this.progressRoutes.set(token, onProgress);
		return {
			token,
			stop: () => {
				if (this.progressRoutes.get(token) === onProgress) this.progressRoutes.delete(token);
			},
		};
	}

	/**
	 * Our tokens to their routes; every other notification to the SDK's own handling (a quick call's
	 * progress, its timeout reset), as before. Only where the SDK's handler is there to hand them to.
	 */
	private installProgressRoutes(client: Client): void {
		const sdkProgress = (client as unknown as { _onprogress?: (notification: unknown) => void })._onprogress;
		if (typeof sdkProgress !== 'function') return;
		client.setNotificationHandler('notifications/progress', (notification) => {
			const token = (notification as { params?: { progressToken?: unknown } }).params?.progressToken;
			const route = typeof token === 'string' ? this.progressRoutes.get(token) : undefined;
			if (route) route(notification.params);
			else sdkProgress.call(client, notification);
		});
		this.routing = true;
	}

	/** Tasks watched now (tests: nothing is left watched after a wait). */
	get size(): number {
		return this.watchers.size;
	}
}

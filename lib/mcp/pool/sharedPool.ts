import type { McpServerConfig } from '../serverConfig';
import { ConnectionPool, type McpLease } from './connectionPool';
import { poolSizeFromEnvironment } from './poolSettings';

/**
 * The one pool of this process, shared by every node of the package, and its ties to the process's
 * life: nothing it started may outlive n8n.
 *
 * n8n stops on SIGTERM/SIGINT by running its shutdown hooks (a queue-mode worker first lets its
 * running jobs finish) and then calling process.exit. So on those signals the pool only drains:
 * idle connections close at once, busy ones when their execution releases them. At 'exit', where
 * nothing asynchronous runs any more, every local server's process group still alive is killed
 * with SIGKILL, synchronously. If nothing else listens for a signal (a plain Node process using the
 * library), the signal's default action is restored and re-raised, so adding our listener never
 * keeps a process alive that would have ended.
 */

let shared: ConnectionPool | undefined;
const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

export function sharedPool(): ConnectionPool {
	if (!shared) {
		const pool = new ConnectionPool({ maxSize: poolSizeFromEnvironment() });
		shared = pool;
		installProcessHooks(pool);
	}
	return shared;
}

/** A connection for one use: kept between executions when the config's pooling settings say so. */
export function acquireConnection(config: McpServerConfig): Promise<McpLease> {
	return sharedPool().acquire(config);
}

function installProcessHooks(pool: ConnectionPool): void {
	process.once('exit', () => pool.killNow());
	for (const signal of SIGNALS) {
		const onSignal = () => {
			pool.drain();
			// Our listener runs first and is already removed: any listener left (n8n's own shutdown,
			// registered at its start) ends the process; none left means nobody else will.
			if (process.listenerCount(signal) === 0) {
				pool.killNow();
				process.kill(process.pid, signal);
			}
		};
		// Prepended: n8n registers its `once` SIGTERM listener before this package loads, and Node
		// removes a `once` listener before calling it, so a listener of ours running after n8n's would
		// count none left and kill the process in the middle of n8n's graceful shutdown.
		process.prependOnceListener(signal, onSignal);
	}
}

import type { McpServerConfig } from './serverConfig';
import { hasRoots } from './roots';

/**
 * The capabilities this client declares (lib/mcp/session.ts explains the choice). Named here too
 * because a 2026-07-28 call that may take a task restates them in its own `_meta` with the tasks
 * extension added (lib/mcp/taskCall.ts), and the client's own copy is not public.
 */
export function clientCapabilitiesFor(config: Pick<McpServerConfig, 'roots'>): Record<string, unknown> {
	// listChanged false: a credential's roots change only by editing it, which starts a new connection.
	return { elicitation: { form: {}, url: {} }, ...(hasRoots(config) ? { roots: { listChanged: false } } : {}) };
}

import type { Client } from '@modelcontextprotocol/client';

/**
 * The tools/call requests a client sent, whichever client method sent them (a 2025-era call goes
 * through `request()` with the session's validator, see lib/mcp/legacyToolCall.ts; a 2026-07-28
 * one through `callTool()`, which also ends in `request()`). Restore it after the test.
 */
export function spyOnToolCalls(client: Client): { calls: () => unknown[]; mockRestore: () => void } {
	const spy = jest.spyOn(client, 'request');
	return {
		calls: () =>
			spy.mock.calls
				.map((call) => call[0] as { method?: string; params?: unknown })
				.filter((request) => request.method === 'tools/call')
				.map((request) => request.params),
		mockRestore: () => spy.mockRestore(),
	};
}

import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { isJsonRpcEnvelope } from '../../lib/mcp/processStdioTransport';

// The stdio transport tells JSON-RPC from other JSON on stdout with a cheap envelope check (the
// SDK's Protocol validates each message in full afterwards). It must accept every message the
// SDK's own schema accepts, and route the structured-log kind of JSON to the noise buffer.
describe('isJsonRpcEnvelope', () => {
	const messages = [
		{ jsonrpc: '2.0', id: 1, method: 'tools/list' },
		{ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'echo', arguments: {} } },
		{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
		{ jsonrpc: '2.0', id: 3, result: {} },
		{ jsonrpc: '2.0', id: 'x', result: { content: [] } },
		{ jsonrpc: '2.0', id: 4, error: { code: -32601, message: 'Method not found' } },
		{ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } },
	];
	it.each(messages.map((m) => [JSON.stringify(m), m]))('accepts %s, as the SDK schema does', (_label, message) => {
		expect(JSONRPCMessageSchema.safeParse(message).success).toBe(true);
		expect(isJsonRpcEnvelope(message)).toBe(true);
	});

	const notMessages: unknown[] = [
		{ level: 'info', msg: 'structured log line' },
		{ jsonrpc: '1.0', id: 1, method: 'x' },
		{ jsonrpc: '2.0', id: 1 },
		{ jsonrpc: '2.0', id: null, result: {} },
		{ jsonrpc: '2.0', id: {}, result: {} },
		{ jsonrpc: '2.0', method: 42 },
		[{ jsonrpc: '2.0', id: 1, result: {} }],
		'{"jsonrpc":"2.0"}',
		42,
		null,
	];
	it.each(notMessages.map((m) => [JSON.stringify(m), m]))('routes %s to the noise buffer, as the SDK schema does', (_label, value) => {
		expect(JSONRPCMessageSchema.safeParse(value).success).toBe(false);
		expect(isJsonRpcEnvelope(value)).toBe(false);
	});
});

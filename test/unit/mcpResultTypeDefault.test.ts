import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { ResultTypeDefaulting, withDefaultResultType, withUsableCacheHint } from '../../lib/mcp/resultTypeDefault';

describe('resultType defaults to "complete" on 2026-07-28 connections (SEP-2322)', () => {
	it('fills in a missing resultType and leaves everything else as it is', () => {
		const bare = { jsonrpc: '2.0', id: 3, result: { content: [] } } as JSONRPCMessage;
		expect(withDefaultResultType(bare)).toEqual({ jsonrpc: '2.0', id: 3, result: { content: [], resultType: 'complete' } });
		const asking = { jsonrpc: '2.0', id: 4, result: { resultType: 'input_required', requestState: 's' } } as JSONRPCMessage;
		expect(withDefaultResultType(asking)).toBe(asking);
		const failure = { jsonrpc: '2.0', id: 5, error: { code: -1, message: 'x' } } as JSONRPCMessage;
		expect(withDefaultResultType(failure)).toBe(failure);
		const note = { jsonrpc: '2.0', method: 'notifications/progress' } as JSONRPCMessage;
		expect(withDefaultResultType(note)).toBe(note);
	});

	it('the HTTP wrapper changes messages only after a 2026-07-28 version was set', () => {
		const inner: Transport = { start: async () => undefined, send: async () => undefined, close: async () => undefined, sessionId: 'sid' };
		const wrapped = new ResultTypeDefaulting(inner);
		const seen: unknown[] = [];
		wrapped.onmessage = (message) => seen.push(message);
		const bare = { jsonrpc: '2.0', id: 1, result: {} } as JSONRPCMessage;
		inner.onmessage?.(bare);
		wrapped.setProtocolVersion('2025-11-25');
		inner.onmessage?.(bare);
		wrapped.setProtocolVersion('2026-07-28');
		inner.onmessage?.(bare);
		expect(seen).toEqual([bare, bare, { jsonrpc: '2.0', id: 1, result: { resultType: 'complete' } }]);
		expect(wrapped.sessionId).toBe('sid');
	});
});

describe('caching hints a 2026-07-28 client can use (SEP-2549)', () => {
	it('repairs a bad or missing ttlMs / cacheScope on list results and resources/read, and leaves good ones and other results alone', () => {
		const read = { jsonrpc: '2.0', id: 1, result: { contents: [{ uri: 'file:///a', text: 'x' }], ttlMs: -1 } } as JSONRPCMessage;
		expect(withUsableCacheHint(read)).toEqual({ jsonrpc: '2.0', id: 1, result: { contents: [{ uri: 'file:///a', text: 'x' }], ttlMs: 0, cacheScope: 'private' } });
		const prompts = { jsonrpc: '2.0', id: 2, result: { prompts: [], ttlMs: 1.5, cacheScope: 'public' } } as JSONRPCMessage;
		expect(withUsableCacheHint(prompts)).toEqual({ jsonrpc: '2.0', id: 2, result: { prompts: [], ttlMs: 0, cacheScope: 'public' } });
		const good = { jsonrpc: '2.0', id: 3, result: { tools: [], ttlMs: 60_000, cacheScope: 'private' } } as JSONRPCMessage;
		expect(withUsableCacheHint(good)).toBe(good);
		const call = { jsonrpc: '2.0', id: 4, result: { content: [] } } as JSONRPCMessage;
		expect(withUsableCacheHint(call)).toBe(call);
	});
});

import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/client';
import { ForwardingTransport } from './forwardingTransport';
import { withTaskHandle } from './modernTask';

/**
 * MCP 2026-07-28 results carry `resultType`; when a server leaves it out, the client must assume
 * "complete" (SEP-2322). The v2 client rejects such results instead, so our transports fill the
 * field in on 2026-07-28 connections before the client sees the message. Earlier revisions have no
 * such field and are left alone.
 */
const FIRST_MODERN_REVISION = '2026-07-28';

export function isModernRevision(version: string | undefined): boolean {
	return version !== undefined && version >= FIRST_MODERN_REVISION;
}

export function withDefaultResultType(message: JSONRPCMessage): JSONRPCMessage {
	const result = (message as { result?: unknown }).result;
	if (!result || typeof result !== 'object' || Array.isArray(result) || 'resultType' in result) return message;
	return { ...message, result: { ...(result as Record<string, unknown>), resultType: 'complete' } } as JSONRPCMessage;
}

/** The arrays of the results that carry caching hints (SEP-2549): the lists, and resources/read's contents. */
const LISTED = ['tools', 'prompts', 'resources', 'resourceTemplates', 'contents'];

/**
 * A cacheable result's hint as the client's schema requires it: a `ttlMs` that is missing or not
 * a whole number from 0 (negative, fractional, past the safe range) becomes 0, "stale at once", and
 * a `cacheScope` that is missing or other than public or private becomes private. The client
 * refused the whole listing for a bad hint, leaving the server without a single tool; a bad hint
 * now means no caching.
 */
export function withUsableCacheHint(message: JSONRPCMessage): JSONRPCMessage {
	const result = (message as { result?: Record<string, unknown> }).result;
	if (!result || typeof result !== 'object' || Array.isArray(result) || !LISTED.some((key) => Array.isArray(result[key]))) return message;
	const ttl = result.ttlMs;
	const ttlUsable = Number.isSafeInteger(ttl) && (ttl as number) >= 0;
	const scopeUsable = result.cacheScope === 'public' || result.cacheScope === 'private';
	if (ttlUsable && scopeUsable) return message;
	return { ...message, result: { ...result, ...(ttlUsable ? {} : { ttlMs: 0 }), ...(scopeUsable ? {} : { cacheScope: 'private' }) } } as JSONRPCMessage;
}

/** What a 2026-07-28 connection's client is given: task handles kept (modernTask.ts), resultType filled in, caching hints usable. */
export function modernResult(message: JSONRPCMessage): JSONRPCMessage {
	return withUsableCacheHint(withDefaultResultType(withTaskHandle(message)));
}

/**
 * Wraps an HTTP transport (Streamable HTTP) and, once the connection is on 2026-07-28, fills in
 * `resultType` and repairs caching hints (modernResult). Everything else passes straight through.
 */
export class ResultTypeDefaulting extends ForwardingTransport {
	private modern = false;

	protected override fromInnerMessage(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
		super.fromInnerMessage(this.modern ? modernResult(message) : message, extra);
	}

	/** Answers a request with an error, as the server would have: its answer was cut (streamLimits.ts). */
	failRequest(id: string | number, text: string): void {
		this.fromInnerMessage({ jsonrpc: '2.0', id, error: { code: -32603, message: text } } as JSONRPCMessage);
	}

	override setProtocolVersion(version: string): void {
		this.modern = isModernRevision(version);
		super.setProtocolVersion(version);
	}
}

import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/client';
import { ForwardingTransport } from './forwardingTransport';

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

/**
 * Wraps an HTTP transport (Streamable HTTP) and fills in `resultType` once the connection is on
 * 2026-07-28. Everything else passes straight through.
 */
export class ResultTypeDefaulting extends ForwardingTransport {
	private modern = false;

	protected override fromInnerMessage(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
		super.fromInnerMessage(this.modern ? withDefaultResultType(message) : message, extra);
	}

	override setProtocolVersion(version: string): void {
		this.modern = isModernRevision(version);
		super.setProtocolVersion(version);
	}
}

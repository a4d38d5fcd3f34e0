import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from '@modelcontextprotocol/client';

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
export class ResultTypeDefaulting implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
	private modern = false;

	constructor(readonly inner: Transport) {
		inner.onclose = () => this.onclose?.();
		inner.onerror = (error) => this.onerror?.(error);
		inner.onmessage = (message, extra) => this.onmessage?.(this.modern ? withDefaultResultType(message) : message, extra);
	}

	get hasPerRequestStream(): boolean | undefined {
		return this.inner.hasPerRequestStream;
	}

	get sessionId(): string | undefined {
		return this.inner.sessionId;
	}

	start(): Promise<void> {
		return this.inner.start();
	}

	send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
		return this.inner.send(message, options);
	}

	close(): Promise<void> {
		return this.inner.close();
	}

	setProtocolVersion(version: string): void {
		this.modern = isModernRevision(version);
		this.inner.setProtocolVersion?.(version);
	}

	setSupportedProtocolVersions(versions: string[]): void {
		this.inner.setSupportedProtocolVersions?.(versions);
	}
}

import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from '@modelcontextprotocol/client';

/**
 * A transport that wraps another and passes everything through; subclasses change what they need
 * (ResultTypeDefaulting: incoming results; LeanHttpTransport: how some requests are sent).
 */
export class ForwardingTransport<Inner extends Transport = Transport> implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

	constructor(readonly inner: Inner) {
		const wrapped: Transport = inner;
		wrapped.onclose = () => this.onclose?.();
		wrapped.onerror = (error) => this.fromInnerError(error);
		wrapped.onmessage = (message, extra) => this.fromInnerMessage(message, extra);
	}

	protected fromInnerError(error: Error): void {
		this.onerror?.(error);
	}

	protected fromInnerMessage(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
		this.onmessage?.(message, extra);
	}

	get hasPerRequestStream(): boolean | undefined {
		return (this.inner as Transport).hasPerRequestStream;
	}

	get sessionId(): string | undefined {
		return (this.inner as Transport).sessionId;
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
		(this.inner as Transport).setProtocolVersion?.(version);
	}

	setSupportedProtocolVersions(versions: string[]): void {
		(this.inner as Transport).setSupportedProtocolVersions?.(versions);
	}
}

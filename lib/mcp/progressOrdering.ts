import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/client';

/**
 * The client runs notification handlers a microtask later but settles responses at once, so a
 * server's last `notifications/progress`, sent just before its result, reached nobody: the
 * response had already removed the call's progress handler. Installed on a connected transport,
 * this delivers the messages that follow a progress notification one microtask later, in order,
 * so each notification is handled before the response after it. Messages that follow no progress
 * notification pass straight through.
 */
type OnMessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

function isProgress(message: JSONRPCMessage): boolean {
	return (message as { method?: unknown }).method === 'notifications/progress';
}

export function deliverProgressBeforeResponses(transport: { onmessage?: OnMessage }): void {
	const deliver = transport.onmessage;
	if (!deliver) return;
	const held: Array<[JSONRPCMessage, MessageExtraInfo | undefined]> = [];
	let holding = false;
	const release = (): void => {
		holding = false;
		while (held.length) {
			const [message, extra] = held.shift() as [JSONRPCMessage, MessageExtraInfo | undefined];
			deliver(message, extra);
			if (isProgress(message)) {
				hold();
				return;
			}
		}
	};
	// Two hops: the client schedules the handler one microtask after delivery; this runs after it.
	const hold = (): void => {
		holding = true;
		void Promise.resolve().then(release);
	};
	transport.onmessage = (message, extra) => {
		if (holding) {
			held.push([message, extra]);
			return;
		}
		deliver(message, extra);
		if (isProgress(message)) hold();
	};
}

/**
 * The words people read when a server asks the client for something during a tool call, shared by
 * MCP Call Tool and the Agent so both say the same thing. Every server-supplied string goes through
 * `quoteServerText`: it is cut and kept on one line, so a server cannot add lines or flood a note.
 */

const MAX_QUOTED = 300;

/** A server's message, on one line, at most MAX_QUOTED characters. */
export function quoteServerText(text: unknown): string {
	const oneLine = String(text ?? '')
		.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ')
		.replace(/\s+/g, ' ')
		.trim();
	return oneLine.length > MAX_QUOTED ? `${oneLine.slice(0, MAX_QUOTED)}…` : oneLine;
}

/** What the server asked, for notes and errors: its message, or what kind of input it wanted. */
export function describeInputRequest(method: string, params: Record<string, unknown> | undefined): string {
	if (method === 'elicitation/create') {
		const message = quoteServerText(params?.message);
		if (params?.mode === 'url') return message ? `"${message}" (a link to open)` : 'a link to open';
		return message ? `"${message}"` : 'input without a message';
	}
	if (method === 'sampling/createMessage') return 'a model completion (sampling)';
	if (method === 'roots/list') return 'the list of roots';
	return `"${quoteServerText(method)}"`;
}

export const SAMPLING_DECLINED =
	'The server asked the client to sample from a model, which n8n-nodes-mcp-agent does not offer; the request was declined.';

export const ROOTS_NOT_GIVEN =
	'The server asked the client for its roots (directories), but the credential names none, so the roots capability is not declared; the call was ended. Give the directories under Roots in the credential if the server needs them.';

/** Legacy (2025) servers ask in the middle of an open call, where no person can answer in time. */
export function legacyInputDeclinedNote(request: string): string {
	return `The server asked for input (${request}) during this call; it was declined because input requests can only be answered by a person when the server supports MCP 2026-07-28.`;
}

/** MCP Call Tool, On Input Request = Decline (no person is asked). */
export function inputDeclinedNote(request: string): string {
	return `The server asked for input (${request}); MCP Call Tool declined it (Options > On Input Request).`;
}

/** MCP Call Tool, On Input Request = Fail the Item. */
export function inputRequestFailure(toolLabel: string, request: string): string {
	return `Tool ${toolLabel} asked for input (${request}), and On Input Request is set to fail the item.`;
}

/** MCP Call Tool and a 2026-07-28 task's input requests (tasks/update): declined, as on 2025-era sessions. */
export function taskInputDeclinedNote(request: string): string {
	return `The server asked for input (${request}) while the tool's task ran; it was declined (MCP Call Tool answers a task's input requests with a decline, as on MCP 2025-11-25 servers).`;
}

import { ProtocolError, ProtocolErrorCode, type Client } from '@modelcontextprotocol/client';
import { describeInputRequest, legacyInputDeclinedNote, SAMPLING_DECLINED } from './inputRequestMessages';
import { rootsListResult, type McpRoot } from './roots';

/**
 * Server-to-client requests in the middle of an open call, as 2025-era servers send them
 * (`elicitation/create`, `sampling/createMessage`). Nobody can answer within the call, so every
 * such request is answered at once: elicitation declined, sampling refused with a JSON-RPC error,
 * roots/list answered with the credential's roots when it names some (else, as for anything else
 * undeclared, "method not found"). Each refusal leaves a note on the calls
 * open at that moment, for the caller to show. The protocol does not say which call a request
 * belongs to: with one call open the note lands on exactly that call and quotes the request; with
 * several (executions sharing a kept connection) each gets a note that does not quote it.
 *
 * On 2026-07-28 connections the client drops inbound requests by itself (input arrives in-band as
 * `input_required` results instead), so these handlers only ever run on legacy connections.
 */
/** One request answered in the middle of a call: what the server asked, and the note about it. */
export interface DeclinedRequest {
	request: string;
	note: string;
}

const UNATTRIBUTED: DeclinedRequest = {
	request: 'a request for input, sent while other calls were running on the same connection, so it may belong to one of them',
	note: 'The server asked for input while this call and others were running on the same connection; it was declined. Which call it concerned cannot be told (servers before MCP 2026-07-28 do not say).',
};

/** Distinct notes one call keeps: a server asking in a loop must not grow a result without end. */
export const MAX_DECLINED_NOTES = 10;

/** One open call's notes: the first MAX_DECLINED_NOTES distinct ones, and how many more came. */
interface Sink {
	entries: DeclinedRequest[];
	notes: Set<string>;
	more: number;
}

export class LegacyInputRequests {
	private readonly open = new Set<Sink>();
	/** Requests of ours in flight on the connection (any kind: tool calls, prompts, resources); kept by McpConnection. */
	requestsInFlight = 0;
	/**
	 * Removes the server configuration's secrets from a request's text before it is cut into a note
	 * (a secret cut in two would be redacted in neither half). Set by the connection.
	 */
	redact: (text: string) => string = (text) => text;

	/** Registers the answering handlers on a client (before it connects). */
	install(client: Client, roots?: readonly McpRoot[]): void {
		client.setRequestHandler('elicitation/create', (request) => {
			const params = request.params as Record<string, unknown> | undefined;
			const message = typeof params?.message === 'string' ? this.redact(params.message) : params?.message;
			const asked = describeInputRequest('elicitation/create', params ? { ...params, message } : params);
			this.record({ request: asked, note: legacyInputDeclinedNote(asked) });
			return { action: 'decline' };
		});
		// Only with the capability declared: a server asking anyway gets "method not found" below, and
		// servers such as server-filesystem then keep their command-line directories.
		if (roots) client.setRequestHandler('roots/list', () => rootsListResult(roots));
		client.fallbackRequestHandler = async (request) => {
			if (request.method === 'sampling/createMessage') {
				this.record({ request: describeInputRequest(request.method, undefined), note: SAMPLING_DECLINED });
				throw new ProtocolError(ProtocolErrorCode.MethodNotFound, SAMPLING_DECLINED);
			}
			throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
		};
	}

	/**
	 * Runs `call` and collects the requests declined while it was open (`declined` only when there
	 * are any, so the common path allocates nothing more than the sink).
	 */
	track<T>(call: () => Promise<T>): Promise<{ value: T; declined?: DeclinedRequest[] }> {
		const sink: Sink = { entries: [], notes: new Set(), more: 0 };
		this.open.add(sink);
		let pending: Promise<T>;
		try {
			pending = call();
		} catch (error) {
			pending = Promise.reject(error);
		}
		return pending.then(
			(value) => {
				this.open.delete(sink);
				if (sink.more > 0) sink.entries.push({ request: 'more requests', note: `The server made ${sink.more} more requests for input during this call; they were declined too.` });
				return sink.entries.length ? { value, declined: sink.entries } : { value };
			},
			(error: unknown) => {
				this.open.delete(sink);
				throw error;
			},
		);
	}

	private record(asked: DeclinedRequest): void {
		// A kept connection serves several executions at once, and a 2025-era server's request does
		// not say which request of ours it belongs to: with more than one open, no call is told what
		// another execution's server asked (it may be that execution's data), only that a request
		// came, which On Input Request = Fail still treats as a request.
		const entry = this.open.size > 1 || this.requestsInFlight > 1 ? UNATTRIBUTED : asked;
		for (const sink of this.open) {
			if (sink.notes.has(entry.note)) continue;
			if (sink.entries.length >= MAX_DECLINED_NOTES) {
				sink.more += 1;
				continue;
			}
			sink.notes.add(entry.note);
			sink.entries.push(entry);
		}
	}
}

import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { isJSONRPCErrorResponse, isJSONRPCResultResponse, parseJSONRPCMessage, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { SseParser } from './sseParser';
import { McpAgentError } from '../errors';

/**
 * One request's SSE answer on the lean transport (leanHttpTransport.ts), read as it arrives: bytes
 * to text (UTF-8 split anywhere), text to events (sseParser.ts), events to JSON-RPC messages. The
 * server may send requests and notifications before the response; each goes out as it comes. What
 * to do once the stream ends (resume it, fail the request, nothing) is the transport's decision,
 * from what the reader tells it then.
 */

/** How a stream ended, and what it carried that matters afterwards. */
export interface EventStreamEnd {
	/** A response (result or error) was among its messages. */
	answered: boolean;
	/** The last event id the server gave: where a resumption starts (Last-Event-ID). */
	lastEventId?: string;
	/** The server's last `retry:` field, in ms. */
	retryMs?: number;
	/** Why it ended other than by its end: a socket error, a cut connection, an event over the size limit. */
	error?: Error;
	/** Cut here after the answer, since the server kept it open past ANSWERED_STREAM_GRACE_MS: nothing is missing. */
	cutAfterAnswer: boolean;
}

export interface EventStreamHandlers {
	/** Each message of the stream, in order. */
	onMessage(message: JSONRPCMessage): void;
	/** What went wrong with one event (not JSON-RPC, a handler threw): that event is lost, reading goes on. */
	onError(error: Error): void;
	/** An event carried an id: the point to resume from from now on. */
	onEventId?(id: string): void;
	/** Once, when the stream is over however it ended. */
	onEnd(end: EventStreamEnd): void;
}

export interface EventStreamOptions {
	/** Most characters of one event; past it the stream is cut and ends with `tooLarge()`. */
	maxEventChars: number;
	tooLarge(): Error;
	/** Where a resumption picks up: its last event id and retry delay so far. */
	resumedFrom?: { lastEventId: string; retryMs?: number };
	/** A replayed stream's responses take the request's id, as the SDK does on one. */
	answerId?: string | number;
}

/** How long a stream may stay open after its answer before it is cut. */
export const ANSWERED_STREAM_GRACE_MS = 2_000;

export function readEventStream(body: Readable, handlers: EventStreamHandlers, options: EventStreamOptions): void {
	const decoder = new StringDecoder('utf8');
	let lastEventId = options.resumedFrom?.lastEventId;
	let retryMs = options.resumedFrom?.retryMs;
	let answered = false;
	let ended = false;
	/** Armed once the answer is in: a stream the server keeps open after it is cut (see below). */
	let lingering: NodeJS.Timeout | undefined;
	let cutAfterAnswer = false;
	const parser = new SseParser(
		{
			// Runs inside the body's 'data' listener: whatever a handler throws goes to onError (as in
			// the SDK), never up the socket's event emitter, where it would be uncaught.
			onEvent: (event) => {
				try {
					if (event.id) {
						lastEventId = event.id;
						handlers.onEventId?.(event.id);
					}
					if (!event.data || (event.event && event.event !== 'message')) return;
					const parsed = parseJSONRPCMessage(JSON.parse(event.data));
					if (isJSONRPCResultResponse(parsed) || isJSONRPCErrorResponse(parsed)) {
						answered = true;
						if (options.answerId !== undefined) parsed.id = options.answerId;
						// The server should end the stream with the answer; one that keeps it open
						// (comments, pings) would hold a socket per call on a kept connection for ever.
						lingering ??= setTimeout(() => {
							cutAfterAnswer = true;
							body.destroy();
						}, ANSWERED_STREAM_GRACE_MS).unref();
					}
					handlers.onMessage(parsed);
				} catch (error) {
					handlers.onError(error as Error);
				}
			},
			onRetry: (ms) => (retryMs = ms),
		},
		{ maxEventChars: options.maxEventChars, tooLarge: options.tooLarge },
	);
	const finish = (error?: Error) => {
		if (ended) return;
		ended = true;
		clearTimeout(lingering);
		parser.end();
		handlers.onEnd({ answered, lastEventId, retryMs, error, cutAfterAnswer });
	};
	// A line too long for a string (over 512 MiB), or an event over the limit, ends the stream with
	// an error, not the process.
	const read = (text: () => string): boolean => {
		try {
			parser.push(text());
			return true;
		} catch (error) {
			finish(error as Error);
			body.destroy();
			return false;
		}
	};
	body.on('data', (chunk: Buffer) => read(() => decoder.write(chunk)));
	body.on('end', () => {
		if (read(() => decoder.end())) finish();
	});
	body.on('error', (error) => finish(error));
	// After 'end' this changes nothing; without it, the stream was cut off.
	body.on('close', () => finish(new McpAgentError('the connection closed', { code: 'remote' })));
}

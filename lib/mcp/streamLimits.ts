import type { FetchLike } from '@modelcontextprotocol/client';

/**
 * How much of one server message n8n holds before it is complete. A server (hostile or broken) can
 * answer with headers and then an endless body: whitespace after JSON, an SSE line that never ends,
 * `data:` lines without the blank line that closes the event. Without a bound the client buffers
 * it all, on a kept connection even after the call timed out. Past these sizes the stream is cut
 * and the call fails saying why (local servers have the same bound per stdout line).
 */
export const MAX_ANSWER_BYTES = 128 * 1024 * 1024;
/** The standing event stream carries the server's own requests and notifications: small messages. */
export const MAX_STANDING_EVENT_BYTES = 16 * 1024 * 1024;

/** Statuses a Response cannot be built with a body for. */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

export class AnswerTooLarge extends Error {
	constructor(what: string, limit: number) {
		super(`${what} is larger than ${Math.round(limit / (1024 * 1024))} MB; the stream was cut`);
		this.name = 'AnswerTooLarge';
	}
}

/**
 * A byte stream that fails once one SSE event (the bytes since the last blank line) exceeds `limit`;
 * for any other body, once the whole body does. Lines end with LF (a CR before it is not counted),
 * which is how servers end them; a stream of lone CRs is only held to the limit as one event.
 */
export function limitedBody(kind: 'event-stream' | 'whole', limit: number, what: string): TransformStream<Uint8Array, Uint8Array> {
	let eventBytes = 0;
	let lineBytes = 0;
	/** The previous chunk ended on CR (the first half of a CRLF split across chunks). */
	let endedOnCr = false;
	return new TransformStream({
		transform(chunk, controller) {
			if (kind === 'whole') {
				eventBytes += chunk.byteLength;
			} else {
				let from = 0;
				for (let lf = chunk.indexOf(10); lf !== -1; lf = chunk.indexOf(10, from)) {
					lineBytes += lf - from;
					const crBefore = lf > 0 ? chunk[lf - 1] === 13 : endedOnCr;
					const length = crBefore && lineBytes > 0 ? lineBytes - 1 : lineBytes;
					// An empty line closes the event.
					eventBytes = length === 0 ? 0 : eventBytes + length + 1;
					lineBytes = 0;
					from = lf + 1;
				}
				lineBytes += chunk.byteLength - from;
				endedOnCr = chunk.byteLength > 0 && chunk[chunk.byteLength - 1] === 13;
			}
			if (eventBytes + lineBytes > limit) {
				controller.error(new AnswerTooLarge(what, limit));
				return;
			}
			controller.enqueue(chunk);
		},
	});
}

/**
 * The SDK transport's fetch with every answer body held to the bounds above: an event stream per
 * event (GET, the standing stream: `standingEventBytes`; a POST's answer: MAX_ANSWER_BYTES), any
 * other body as a whole. A stream cut this way ends like a dropped one. The legacy SSE transport's
 * GET stream carries every answer, so it passes MAX_ANSWER_BYTES.
 */
export function limitedFetch(fetchImpl: FetchLike = fetch, standingEventBytes = MAX_STANDING_EVENT_BYTES): FetchLike {
	return async (url, init) => {
		const response = await fetchImpl(url, init);
		if (!response.body || NULL_BODY_STATUS.has(response.status)) return response;
		const eventStream = (response.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream');
		const standing = (init?.method ?? 'GET').toUpperCase() === 'GET';
		const limit = eventStream && standing ? standingEventBytes : MAX_ANSWER_BYTES;
		const what = eventStream ? (standing ? "An event of the server's event stream" : "An event of the server's answer") : "The server's answer";
		const body = response.body.pipeThrough(limitedBody(eventStream ? 'event-stream' : 'whole', limit, what));
		return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
	};
}

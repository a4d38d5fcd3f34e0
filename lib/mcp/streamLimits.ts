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

/** Whether `response` has a body a new Response can carry (200-599, not 204/205/304). */
export function hasRebuildableBody(response: Response): response is Response & { body: ReadableStream<Uint8Array> } {
	return response.body !== null && !NULL_BODY_STATUS.has(response.status) && response.status >= 200 && response.status <= 599;
}

/** `response` with another body (and headers): undici decodes the reason phrase as UTF-8, and the constructor takes only a plain one. */
export function withBody(response: Response, body: BodyInit | null, headers: Headers = response.headers): Response {
	const statusText = /^[\t\x20-\x7e\x80-\xff]*$/.test(response.statusText) ? response.statusText : '';
	return new Response(body, { status: response.status, statusText, headers });
}

/** The media type is text/event-stream (parameters aside): not a type that only mentions it. */
export function isEventStream(contentType: string | null): boolean {
	return (contentType ?? '').split(';')[0].trim().toLowerCase() === 'text/event-stream';
}

export class AnswerTooLarge extends Error {
	constructor(what: string, limit: number) {
		super(`${what} is larger than ${Math.round(limit / (1024 * 1024))} MB; the stream was cut`);
		this.name = 'AnswerTooLarge';
	}
}

/**
 * A byte stream that fails once one SSE event (the bytes since the last blank line) exceeds `limit`;
 * for any other body, once the whole body does. Lines end with CRLF, LF or CR, as the SSE parser
 * reads them (a CR at the end of a chunk may be the first half of a CRLF).
 */
export function limitedBody(kind: 'event-stream' | 'whole', limit: number, what: string, onTooLarge?: (error: AnswerTooLarge) => void): TransformStream<Uint8Array, Uint8Array> {
	let eventBytes = 0;
	let lineBytes = 0;
	/** The previous chunk ended on CR: a LF first in this one ends no second line. */
	let pendingCr = false;
	const lineEnd = () => {
		// An empty line closes the event.
		eventBytes = lineBytes === 0 ? 0 : eventBytes + lineBytes + 1;
		lineBytes = 0;
	};
	return new TransformStream({
		transform(chunk, controller) {
			if (kind === 'whole') {
				eventBytes += chunk.byteLength;
			} else {
				let from = pendingCr && chunk[0] === 10 ? 1 : 0;
				pendingCr = false;
				let lf = chunk.indexOf(10, from);
				let cr = chunk.indexOf(13, from);
				while (lf !== -1 || cr !== -1) {
					const end = cr !== -1 && (lf === -1 || cr < lf) ? cr : lf;
					lineBytes += end - from;
					lineEnd();
					from = end + 1;
					if (end === cr) {
						if (from === chunk.byteLength) pendingCr = true;
						else if (chunk[from] === 10) from += 1;
					}
					if (lf !== -1 && lf < from) lf = chunk.indexOf(10, from);
					if (cr !== -1 && cr < from) cr = chunk.indexOf(13, from);
				}
				lineBytes += chunk.byteLength - from;
			}
			if (eventBytes + lineBytes > limit) {
				const error = new AnswerTooLarge(what, limit);
				onTooLarge?.(error);
				controller.error(error);
				return;
			}
			controller.enqueue(chunk);
		},
	});
}

/** A body read whole, failing (and cancelling it) once it passes `limit` bytes. */
export async function readLimited(body: ReadableStream<Uint8Array>, limit: number, what: string): Promise<Uint8Array<ArrayBuffer>> {
	const reader = body.getReader();
	const chunks: Uint8Array[] = [];
	let size = 0;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		size += value.byteLength;
		if (size > limit) {
			await reader.cancel().catch(() => undefined);
			throw new AnswerTooLarge(what, limit);
		}
		chunks.push(value);
	}
	const whole = new Uint8Array(size);
	let at = 0;
	for (const chunk of chunks) {
		whole.set(chunk, at);
		at += chunk.byteLength;
	}
	return whole;
}

/** The JSON-RPC ids of the requests in a POST's body (read only when its answer is cut). */
function requestIds(body: unknown): Array<string | number> {
	if (typeof body !== 'string') return [];
	try {
		const parsed: unknown = JSON.parse(body);
		return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((message) => {
			const id = (message as { id?: unknown; method?: unknown } | null)?.id;
			return (typeof id === 'string' || typeof id === 'number') && typeof (message as { method?: unknown }).method === 'string' ? [id] : [];
		});
	} catch {
		return [];
	}
}

/**
 * The SDK transport's fetch with every answer body held to the bounds above: an event stream the
 * SDK reads as one, per event (the standing stream, a GET without Last-Event-ID:
 * `standingEventBytes`; a resumption: MAX_ANSWER_BYTES), any other body as a whole (MAX_ANSWER_BYTES,
 * a POST's streamed answer included). The SDK takes a cut stream for a
 * dropped one and would leave the call waiting for its timeout: `onTooLarge` is told the ids of
 * the POST's requests, to fail them at once. The legacy SSE transport's GET stream carries every
 * answer, so it passes MAX_ANSWER_BYTES.
 */
export function limitedFetch(
	fetchImpl: FetchLike = fetch,
	standingEventBytes = MAX_STANDING_EVENT_BYTES,
	onTooLarge?: (ids: Array<string | number>, error: AnswerTooLarge) => void,
): FetchLike {
	return async (url, init) => {
		const response = await fetchImpl(url, init);
		if (!hasRebuildableBody(response)) return response;
		const method = (init?.method ?? 'GET').toUpperCase();
		// Event by event only where the SDK reads a stream: a GET that asked for one, answered 2xx as
		// one. A POST's answer is held as a whole, as on the lean transport; so is everything else
		// (metadata, tokens, error bodies), which is read whole however it is labelled. The request's
		// headers are read only for such a GET, not on every POST.
		const requestHeaders = method === 'GET' && response.ok && isEventStream(response.headers.get('content-type')) ? new Headers(init?.headers) : undefined;
		const eventStream = (requestHeaders?.get('accept') ?? '').toLowerCase().includes('text/event-stream');
		const standing = eventStream && !requestHeaders?.has('last-event-id');
		const limit = standing ? standingEventBytes : MAX_ANSWER_BYTES;
		const what = eventStream ? (standing ? "An event of the server's event stream" : "An event of the server's answer") : "The server's answer";
		const tooLarge = onTooLarge && method === 'POST' ? (error: AnswerTooLarge) => onTooLarge(requestIds(init?.body), error) : undefined;
		const body = response.body.pipeThrough(limitedBody(eventStream ? 'event-stream' : 'whole', limit, what, tooLarge));
		return withBody(response, body);
	};
}

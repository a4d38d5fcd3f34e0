import { hasRebuildableBody, isEventStream, limitedBody, readLimited, withBody } from '../mcp/streamLimits';
import { fetchWithCheckedRedirects } from '../mcp/checkedRedirects';

/**
 * The provider SDKs' fetch, held to what a model endpoint may ask of n8n. The base URL may point at
 * any compatible server (a gateway, a proxy), so a hostile or broken one must not:
 * - make a run sleep for hours: the SDKs honour retry-after as given (3600 s, or 23 days); a wait
 *   over MAX_RETRY_WAIT_SECONDS is shortened to it, the server's own value kept in ORIGINAL_WAIT
 *   headers for the error message;
 * - fill n8n's memory: an answer read whole over MAX_MODEL_ANSWER_BYTES (however it is labelled,
 *   packed or not), one streamed event over MAX_MODEL_EVENT_BYTES, or a streamed answer over
 *   MAX_MODEL_ANSWER_BYTES in all, is cut (the run fails saying so);
 * - stall the event loop: a streamed answer's line ends are written as LF (lineFeedsOnly);
 * - send n8n into its own network: a redirect to another origin is followed only where the URL
 *   policy allows (lib/mcp/urlPolicy.ts: https, public, or the base URL's own kind of network).
 */
export const MAX_RETRY_WAIT_SECONDS = 60;
export const MAX_MODEL_ANSWER_BYTES = 64 * 1024 * 1024;
export const MAX_MODEL_EVENT_BYTES = 16 * 1024 * 1024;
/** Where the server's own retry-after values are kept when they were shortened. */
export const ORIGINAL_WAIT = { seconds: 'x-mcp-agent-retry-after', ms: 'x-mcp-agent-retry-after-ms' };

/** The headers with retry-after (and retry-after-ms) held to MAX_RETRY_WAIT_SECONDS, or undefined when they ask no more. */
function shortenedWait(headers: Headers, now: number): Headers | undefined {
	const ms = headers.get('retry-after-ms');
	const seconds = headers.get('retry-after');
	const msValue = ms === null ? NaN : Number.parseFloat(ms);
	const secondsValue = seconds === null ? NaN : /^\s*\d+(\.\d+)?\s*$/.test(seconds) ? Number(seconds) : (Date.parse(seconds) - now) / 1000;
	const tooLong = (Number.isFinite(msValue) && msValue > MAX_RETRY_WAIT_SECONDS * 1000) || (Number.isFinite(secondsValue) && secondsValue > MAX_RETRY_WAIT_SECONDS);
	if (!tooLong) return undefined;
	const shortened = new Headers(headers);
	if (ms !== null) {
		shortened.set(ORIGINAL_WAIT.ms, ms);
		shortened.set('retry-after-ms', String(Math.min(msValue, MAX_RETRY_WAIT_SECONDS * 1000)));
	}
	if (seconds !== null) {
		shortened.set(ORIGINAL_WAIT.seconds, seconds);
		shortened.set('retry-after', String(MAX_RETRY_WAIT_SECONDS));
	}
	return shortened;
}

/**
 * How the SDK will read the answers of this fetch: `whole` (a non-streamed request, model lists:
 * read with .json() or .text()), or `stream` (a streamed request: a 2xx event stream is read event
 * by event; its error answers are still read whole). The label alone never decides it: a server
 * that calls a whole answer an event stream must not escape the whole-answer bound.
 */
export type ModelReading = 'whole' | 'stream';

export function modelFetch(base?: typeof fetch, reading: ModelReading = 'whole'): typeof fetch {
	const send = fetchWithCheckedRedirects(base, 'the model endpoint');
	return async (input, init) => {
		const response = await send(input, init);
		const waitHeaders = response.status === 429 || response.status >= 500 ? shortenedWait(response.headers, Date.now()) : undefined;
		if (!hasRebuildableBody(response)) return waitHeaders ? withBody(response, null, waitHeaders) : response;
		const headers = waitHeaders ?? response.headers;
		if (reading === 'stream' && response.ok && isEventStream(response.headers.get('content-type'))) {
			return withBody(response, response.body.pipeThrough(lineFeedsOnly()).pipeThrough(limitedBody('event-stream', MAX_MODEL_EVENT_BYTES, "An event of the model's streamed answer")).pipeThrough(limitedBody('whole', MAX_MODEL_ANSWER_BYTES, "The model's streamed answer")), headers);
		}
		// A body whose declared length is within the limit is left as it is (the common JSON answer):
		// fetch ends it at that length. Not a packed one: the length counts gzip or br bytes, and fetch
		// unpacks them (a few hundred KB can unpack to gigabytes).
		const declared = Number(response.headers.get('content-length') ?? NaN);
		const packed = (response.headers.get('content-encoding') ?? 'identity').trim().toLowerCase() !== 'identity';
		if (!packed && Number.isFinite(declared) && declared <= MAX_MODEL_ANSWER_BYTES && !waitHeaders) return response;
		// Read whole here, counted (cheaper than a transform stream the SDK then reads through).
		return withBody(response, await readLimited(response.body, MAX_MODEL_ANSWER_BYTES, "The model's answer"), headers);
	};
}

/**
 * An event stream with every line ending (CRLF, CR, LF: all equal in SSE) written as LF. The
 * OpenAI SDK splits events only at LF LF, CR CR and CRLF CRLF: a server ending blank lines with
 * LF CRLF made it keep one growing buffer and rescan it on every chunk (42 s for 32 MB of comments).
 */
export function lineFeedsOnly(): TransformStream<Uint8Array, Uint8Array> {
	/** The previous chunk ended on CR (written as LF): a LF first in this one belongs to it. */
	let afterCr = false;
	return new TransformStream({
		transform(chunk, controller) {
			// An empty chunk between a CR and its LF must not end the wait for the LF.
			if (chunk.byteLength === 0) return;
			if (chunk.indexOf(13) === -1 && !(afterCr && chunk[0] === 10)) {
				afterCr = false;
				controller.enqueue(chunk);
				return;
			}
			const out = new Uint8Array(chunk.byteLength);
			let length = 0;
			for (const byte of chunk) {
				if (byte === 10 && afterCr) {
					afterCr = false;
					continue;
				}
				afterCr = byte === 13;
				out[length++] = afterCr ? 10 : byte;
			}
			controller.enqueue(out.subarray(0, length));
		},
	});
}

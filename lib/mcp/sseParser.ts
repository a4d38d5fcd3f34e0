/**
 * An incremental Server-Sent Events parser (the WHATWG "event stream interpretation"), fed with
 * text as it arrives from a socket: lines end with CRLF, LF or CR (a CR at the end of a chunk may
 * be the first half of a CRLF), `:` starts a comment, an empty line dispatches the event, `data`
 * lines join with "\n", an `id` containing NUL is ignored, `retry` takes only digits. Linear in
 * the stream's length however it is cut: only the new chunk is searched, and a line that spans
 * chunks (a large result's base64) is joined once, when its end arrives.
 */

export interface SseEvent {
	/** The event type; undefined means the default, "message". */
	event?: string;
	data: string;
	/** The event's own id field, when it had one (a resumption point for the stream). */
	id?: string;
}

export interface SseHandlers {
	onEvent(event: SseEvent): void;
	onRetry?(ms: number): void;
}

export interface SseLimits {
	/** Most characters of one event (its lines up to the blank line); past it push() throws `tooLarge()`. */
	maxEventChars: number;
	tooLarge(): Error;
}

export class SseParser {
	/** Pieces of the line being received, and their length. */
	private pending: string[] = [];
	private pendingChars = 0;
	/** Characters of the event being received, its complete lines. */
	private eventChars = 0;
	/** A chunk ended on CR: a LF at the start of the next one belongs to the same line end. */
	private pendingCr = false;
	private event: string | undefined;
	private data: string[] = [];
	private id: string | undefined;
	private started = false;

	constructor(
		private readonly handlers: SseHandlers,
		private readonly limits?: SseLimits,
	) {}

	push(chunk: string): void {
		// An empty chunk must not end a CR's wait for its LF.
		if (chunk === '') return;
		let text = chunk;
		if (!this.started) {
			this.started = true;
			if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
		}
		if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
		this.pendingCr = false;
		let start = 0;
		// The next LF and CR at or after `start`, each searched again only once passed.
		let lf = text.indexOf('\n');
		let cr = text.indexOf('\r');
		while (lf !== -1 || cr !== -1) {
			let end: number;
			let next: number;
			if (cr !== -1 && (lf === -1 || cr < lf)) {
				end = cr;
				if (cr + 1 === text.length) {
					this.pendingCr = true;
					next = cr + 1;
				} else {
					next = text.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
				}
			} else {
				end = lf;
				next = lf + 1;
			}
			const piece = text.slice(start, end);
			const line = this.pending.length > 0 ? this.pending.join('') + piece : piece;
			this.pending = [];
			this.pendingChars = 0;
			this.eventChars = line === '' ? 0 : this.eventChars + line.length + 1;
			this.checkSize();
			this.line(line);
			start = next;
			if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
			if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
		}
		if (start < text.length) {
			this.pending.push(start === 0 ? text : text.slice(start));
			this.pendingChars += text.length - start;
			this.checkSize();
		}
	}

	private checkSize(): void {
		if (this.limits && this.eventChars + this.pendingChars > this.limits.maxEventChars) throw this.limits.tooLarge();
	}

	/** The stream ended: an event without its closing blank line is dropped, as the spec says. */
	end(): void {
		this.pending = [];
		this.pendingChars = 0;
		this.eventChars = 0;
		this.data = [];
		this.event = undefined;
		this.id = undefined;
	}

	private line(line: string): void {
		if (line === '') {
			this.dispatch();
			return;
		}
		if (line.charCodeAt(0) === 58 /* : */) return;
		const colon = line.indexOf(':');
		const field = colon === -1 ? line : line.slice(0, colon);
		let value = colon === -1 ? '' : line.slice(colon + 1);
		if (value.charCodeAt(0) === 32) value = value.slice(1);
		switch (field) {
			case 'event':
				this.event = value;
				break;
			case 'data':
				this.data.push(value);
				break;
			case 'id':
				if (!value.includes('\0')) this.id = value;
				break;
			case 'retry':
				if (/^\d+$/.test(value)) this.handlers.onRetry?.(Number(value));
				break;
			default:
			// Unknown fields are ignored.
		}
	}

	private dispatch(): void {
		const { data, event, id } = this;
		this.data = [];
		this.event = undefined;
		this.id = undefined;
		// An event with an id and empty data is still one: a priming event marks where to resume.
		if (data.length === 0 && id === undefined) return;
		this.handlers.onEvent({ ...(event ? { event } : {}), data: data.join('\n'), ...(id !== undefined ? { id } : {}) });
	}
}

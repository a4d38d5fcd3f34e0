import { SseParser, type SseEvent } from '../../lib/mcp/sseParser';

/**
 * lib/mcp/sseParser.ts against the WHATWG "event stream interpretation" rules, as the lean HTTP
 * transport relies on them: it reads each POST's SSE answer with this parser, so a wrong line end,
 * a lost space or a missed id would corrupt or lose a JSON-RPC answer, or break resumption.
 *
 * Deliberate differences from an EventSource, which the transport depends on: an event's `id` is
 * reported only on the event that carried it (the transport keeps the last one itself), and an
 * event with an id and no data is still dispatched (the priming event of a resumable stream).
 * Multi-byte UTF-8 split across chunks is not the parser's concern: it gets text, and the
 * transport decodes bytes with a StringDecoder.
 */

interface Parsed {
	events: SseEvent[];
	retries: number[];
}

/** Feeds the chunks in order, then ends the stream, and returns everything the parser reported. */
function parse(chunks: string[], options: { end?: boolean } = {}): Parsed {
	const events: SseEvent[] = [];
	const retries: number[] = [];
	const parser = new SseParser({ onEvent: (event) => events.push(event), onRetry: (ms) => retries.push(ms) });
	for (const chunk of chunks) parser.push(chunk);
	if (options.end !== false) parser.end();
	return { events, retries };
}

const one = (text: string) => parse([text]);

describe('SseParser: line ends', () => {
	it.each([
		['LF', 'data: a\ndata: b\n\n'],
		['CRLF', 'data: a\r\ndata: b\r\n\r\n'],
		['CR', 'data: a\rdata: b\r\r'],
		['mixed', 'data: a\r\ndata: b\n\r'],
	])('%s ends lines, and an empty line dispatches', (_label, text) => {
		expect(one(text).events).toEqual([{ data: 'a\nb' }]);
	});

	it('counts a CRLF as one line end, not two (which would dispatch an event early)', () => {
		expect(one('data: a\r\ndata: b\r\n\r\n').events).toEqual([{ data: 'a\nb' }]);
	});

	it('joins a CRLF split across two chunks ("\\r" | "\\n") into one line end', () => {
		// Were the LF a second line end, "a" would be dispatched alone and "b" would follow as its own event.
		expect(parse(['data: a\r', '\ndata: b\n\n']).events).toEqual([{ data: 'a\nb' }]);
	});

	it('takes a CR at the end of a chunk as a line end at once, whatever the next chunk starts with', () => {
		// The first chunk's event is complete when its second CR arrives: nothing waits for the next chunk.
		const events: SseEvent[] = [];
		const parser = new SseParser({ onEvent: (event) => events.push(event) });
		parser.push('data: a\r\r');
		expect(events).toEqual([{ data: 'a' }]);
		// The CR that ended the first chunk is not joined with a "d" that follows.
		parser.push('data: b\r');
		parser.push('\r');
		expect(events).toEqual([{ data: 'a' }, { data: 'b' }]);
	});

	// The transport never sends empty chunks today, but the parser takes text as it arrives.
	it('keeps a CRLF whole across an empty chunk between its CR and its LF', () => {
		expect(parse(['data: a\r', '', '\ndata: b\n\n']).events).toEqual([{ data: 'a\nb' }]);
	});

	it('joins a line split across chunks, even inside its field name', () => {
		expect(parse(['da', 'ta: hel', 'lo wor', 'ld\n', '\n']).events).toEqual([{ data: 'hello world' }]);
	});

	it('gives the same events however a stream with every kind of line end is cut into chunks', () => {
		const stream = ': comment\r\nevent: note\rdata: one\ndata:  two\r\n\r\nid: 7\r\nretry: 50\ndata: \n\nid: 8\rdata: {"x":1}\r\r';
		const expected = one(stream);
		expect(expected).toEqual({
			events: [{ event: 'note', data: 'one\n two' }, { id: '7', data: '' }, { id: '8', data: '{"x":1}' }],
			retries: [50],
		});
		for (let cut = 1; cut < stream.length; cut++) {
			expect({ cut, ...parse([stream.slice(0, cut), stream.slice(cut)]) }).toEqual({ cut, ...expected });
		}
		expect(parse([...stream])).toEqual(expected);
	});
});

describe('SseParser: fields', () => {
	it('joins multi-line data with "\\n" (no trailing newline)', () => {
		expect(one('data: {"a":\ndata: 1}\n\n').events).toEqual([{ data: '{"a":\n1}' }]);
	});

	it('ignores comment lines, also between data lines and alone', () => {
		expect(one(': keep-alive\n\n').events).toEqual([]);
		expect(one('data: a\n: a comment\ndata: b\n\n').events).toEqual([{ data: 'a\nb' }]);
		expect(one(':\n:data: x\n\n').events).toEqual([]);
	});

	it('reads a line without a colon as the field name with an empty value', () => {
		expect(one('data\ndata: x\n\n').events).toEqual([{ data: '\nx' }]);
		expect(one('data: x\ndata\n\n').events).toEqual([{ data: 'x\n' }]);
	});

	it('removes one leading space from a value, and only one', () => {
		expect(one('data:x\n\n').events).toEqual([{ data: 'x' }]);
		expect(one('data: x\n\n').events).toEqual([{ data: 'x' }]);
		expect(one('data:  x\n\n').events).toEqual([{ data: ' x' }]);
		expect(one('data:\tx\n\n').events).toEqual([{ data: '\tx' }]);
		expect(one('data: x \n\n').events).toEqual([{ data: 'x ' }]);
	});

	it('splits a line at its first colon only', () => {
		expect(one('data: {"a": "b:c"}\n\n').events).toEqual([{ data: '{"a": "b:c"}' }]);
	});

	it('reports the event type on its event only, and none for the default type', () => {
		expect(one('event: ping\ndata: x\n\ndata: y\n\n').events).toEqual([{ event: 'ping', data: 'x' }, { data: 'y' }]);
		expect(one('event: message\ndata: x\n\n').events).toEqual([{ event: 'message', data: 'x' }]);
		expect(one('event:\ndata: x\n\n').events).toEqual([{ data: 'x' }]);
		// An event type without data dispatches nothing and does not leak into the next event.
		expect(one('event: lost\n\ndata: y\n\n').events).toEqual([{ data: 'y' }]);
	});

	it('carries an id on the event that has it, not on later ones', () => {
		expect(one('id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\n').events).toEqual([{ id: '1', data: 'a' }, { data: 'b' }, { id: '2', data: 'c' }]);
		// The last id field of an event wins; an empty id is an id (it resets the resumption point).
		expect(one('id: 1\nid: 2\ndata: a\n\n').events).toEqual([{ id: '2', data: 'a' }]);
		expect(one('id\ndata: a\n\n').events).toEqual([{ id: '', data: 'a' }]);
	});

	it('ignores an id that contains NUL, keeping an earlier id of the same event', () => {
		expect(one('id: a\0b\ndata: x\n\n').events).toEqual([{ data: 'x' }]);
		expect(one('id: 5\nid: a\0b\ndata: x\n\n').events).toEqual([{ id: '5', data: 'x' }]);
	});

	it('reports retry only when its value is all ASCII digits', () => {
		expect(one('retry: 50\n\n').retries).toEqual([50]);
		expect(one('retry:0\n\n').retries).toEqual([0]);
		for (const bad of ['retry: 5x', 'retry: -1', 'retry: 1.5', 'retry:  50', 'retry: ', 'retry', 'retry: ５０']) {
			expect({ bad, retries: one(`${bad}\n\n`).retries }).toEqual({ bad, retries: [] });
		}
		// retry alone dispatches no event.
		expect(one('retry: 50\n\n').events).toEqual([]);
	});

	it('ignores unknown fields and field names in another case', () => {
		expect(one('foo: bar\nData: x\nDATA: y\ndata: z\n\n').events).toEqual([{ data: 'z' }]);
	});
});

describe('SseParser: dispatch and stream boundaries', () => {
	it('removes a byte order mark at the very start of the stream only', () => {
		expect(one('\uFEFFdata: a\n\n').events).toEqual([{ data: 'a' }]);
		// An empty first chunk does not end "the start".
		expect(parse(['', '\uFEFFdata: a\n\n']).events).toEqual([{ data: 'a' }]);
		// Later, a BOM is part of the line: "\uFEFFdata" is an unknown field and is ignored.
		expect(parse(['data: a\n\n', '\uFEFFdata: b\n\n']).events).toEqual([{ data: 'a' }]);
		expect(one('\uFEFF\uFEFFdata: a\n\n').events).toEqual([]);
		// Inside a value it is data.
		expect(one('data: \uFEFFa\n\n').events).toEqual([{ data: '\uFEFFa' }]);
	});

	it('dispatches an event with an id and empty data (a priming event, the point to resume from)', () => {
		expect(one('id: prime-1\nretry: 50\ndata: \n\n')).toEqual({ events: [{ id: 'prime-1', data: '' }], retries: [50] });
		expect(one('id: prime-2\n\n').events).toEqual([{ id: 'prime-2', data: '' }]);
	});

	it('dispatches nothing for blank lines without any field', () => {
		expect(one('\n\n\r\n\r\r').events).toEqual([]);
		expect(one('data: a\n\n\n\n\ndata: b\n\n').events).toEqual([{ data: 'a' }, { data: 'b' }]);
	});

	it('dispatches an event as soon as its blank line arrives, before the stream ends', () => {
		const events: SseEvent[] = [];
		const parser = new SseParser({ onEvent: (event) => events.push(event) });
		parser.push('data: first\n');
		expect(events).toEqual([]);
		parser.push('\ndata: second');
		expect(events).toEqual([{ data: 'first' }]);
	});

	it('drops an unterminated event when the stream ends', () => {
		expect(one('data: a\n\ndata: b\n').events).toEqual([{ data: 'a' }]);
		expect(one('data: a\n\nid: 3\ndata: b').events).toEqual([{ data: 'a' }]);
		const events: SseEvent[] = [];
		const parser = new SseParser({ onEvent: (event) => events.push(event) });
		parser.push('id: 9\ndata: half\n');
		parser.end();
		// Nothing of the dropped event survives into what the parser is fed afterwards.
		parser.push('data: next\n\n');
		expect(events).toEqual([{ data: 'next' }]);
	});

	it('works without a retry handler', () => {
		const events: SseEvent[] = [];
		const parser = new SseParser({ onEvent: (event) => events.push(event) });
		parser.push('retry: 10\ndata: x\n\n');
		expect(events).toEqual([{ data: 'x' }]);
	});
});

describe('large answers', () => {
	it('reads a 4 MB data line cut into 1,000 chunks, around line ends of every kind, exactly', () => {
		const payload = 'x'.repeat(4 * 1024 * 1024);
		const stream = `id: 1\r\ndata: ${payload}\r\ndata: second\rdata: third\n\n`;
		const size = Math.ceil(stream.length / 1000);
		const chunks: string[] = [];
		for (let at = 0; at < stream.length; at += size) chunks.push(stream.slice(at, at + size));
		const { events } = parse(chunks);
		expect(events).toHaveLength(1);
		expect(events[0].id).toBe('1');
		expect(events[0].data.length).toBe(payload.length + '\nsecond\nthird'.length);
		expect(events[0].data.endsWith('x\nsecond\nthird')).toBe(true);
	});
});

import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { ANSWERED_STREAM_GRACE_MS, readEventStream, type EventStreamEnd, type EventStreamOptions } from '../../lib/mcp/eventStreamReader';

/**
 * lib/mcp/eventStreamReader.ts: one SSE answer of the lean HTTP transport, from the socket's bytes
 * to JSON-RPC messages, and what the transport is told when the stream ends (whether the answer
 * came, where to resume, why it ended). The transport's decisions after that are tested through
 * real servers in test/integration/leanHttpTransport.test.ts.
 */

interface Read {
	body: PassThrough;
	messages: JSONRPCMessage[];
	errors: Error[];
	ids: string[];
	ended: Promise<EventStreamEnd>;
	endCount: () => number;
}

function read(options: Partial<EventStreamOptions> = {}): Read {
	const body = new PassThrough();
	const messages: JSONRPCMessage[] = [];
	const errors: Error[] = [];
	const ids: string[] = [];
	let ends = 0;
	let resolveEnd: (end: EventStreamEnd) => void = () => undefined;
	const ended = new Promise<EventStreamEnd>((resolve) => (resolveEnd = resolve));
	readEventStream(
		body,
		{
			onMessage: (message) => messages.push(message),
			onError: (error) => errors.push(error),
			onEventId: (id) => ids.push(id),
			onEnd: (end) => {
				ends++;
				resolveEnd(end);
			},
		},
		{ maxEventChars: 1024, tooLarge: () => new Error('too large'), ...options },
	);
	return { body, messages, errors, ids, ended, endCount: () => ends };
}

const event = (message: object, id?: string) => `${id ? `id: ${id}\n` : ''}data: ${JSON.stringify(message)}\n\n`;
const response = (id: number, text: string) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } };

describe('readEventStream', () => {
	it('hands over each message in order, however the bytes are cut (a multi-byte character included)', async () => {
		const stream = read();
		const bytes = Buffer.from(event(progress) + event(response(1, 'grüße ✓')));
		for (let at = 0; at < bytes.length; at += 3) stream.body.write(bytes.subarray(at, at + 3));
		stream.body.end();
		const end = await stream.ended;
		expect(stream.messages).toEqual([progress, response(1, 'grüße ✓')]);
		expect(end).toEqual({ answered: true, lastEventId: undefined, retryMs: undefined, error: undefined, cutAfterAnswer: false });
	});

	it('reports event ids as they come, and the last id and retry delay at the end', async () => {
		const stream = read();
		stream.body.end(`id: a\ndata:\n\nretry: 1500\n\n${event(progress, 'b')}`);
		const end = await stream.ended;
		expect(stream.ids).toEqual(['a', 'b']);
		expect(end).toMatchObject({ answered: false, lastEventId: 'b', retryMs: 1500, error: undefined });
	});

	it('a resumed stream starts from the resumption point and gives its responses the request id', async () => {
		const stream = read({ resumedFrom: { lastEventId: 'x', retryMs: 300 }, answerId: 7 });
		stream.body.end(event(progress) + event(response(99, 'replayed')));
		const end = await stream.ended;
		expect(stream.messages).toEqual([progress, response(7, 'replayed')]);
		expect(end).toMatchObject({ answered: true, lastEventId: 'x', retryMs: 300 });
	});

	it('skips events of other types and events without data', async () => {
		const stream = read();
		stream.body.end(`event: ping\ndata: {}\n\n: a comment\n\nevent: message\n${event(response(1, 'ok'))}`);
		await stream.ended;
		expect(stream.messages).toEqual([response(1, 'ok')]);
	});

	it('an event that is not JSON-RPC is reported and reading goes on', async () => {
		const stream = read();
		stream.body.end(`data: not json\n\n${event(response(1, 'after'))}`);
		const end = await stream.ended;
		expect(stream.errors).toHaveLength(1);
		expect(stream.messages).toEqual([response(1, 'after')]);
		expect(end.answered).toBe(true);
	});

	it('a handler that throws does not break the stream', async () => {
		const errors: Error[] = [];
		const body = new PassThrough();
		const ended = new Promise<EventStreamEnd>((resolve) =>
			readEventStream(
				body,
				{
					onMessage: () => {
						throw new Error('handler failed');
					},
					onError: (error) => errors.push(error),
					onEnd: resolve,
				},
				{ maxEventChars: 1024, tooLarge: () => new Error('too large') },
			),
		);
		body.end(event(progress) + event(response(1, 'x')));
		expect((await ended).answered).toBe(true);
		expect(errors.map((error) => error.message)).toEqual(['handler failed', 'handler failed']);
	});

	it('an event over the size limit ends the stream with the limit error and cuts the body', async () => {
		const stream = read({ maxEventChars: 64, tooLarge: () => new Error('event too large') });
		stream.body.write(`data: ${'x'.repeat(100)}`);
		const end = await stream.ended;
		expect(end.error?.message).toBe('event too large');
		expect(stream.body.destroyed).toBe(true);
		expect(stream.messages).toEqual([]);
	});

	it('a body cut before its end says so, once', async () => {
		const stream = read();
		stream.body.write(event(progress, 'p1'));
		await new Promise((resolve) => setImmediate(resolve));
		stream.body.destroy();
		const end = await stream.ended;
		expect(end).toMatchObject({ answered: false, lastEventId: 'p1', error: new Error('the connection closed') });
		await new Promise((resolve) => setImmediate(resolve));
		expect(stream.endCount()).toBe(1);
	});

	it('a socket error ends the stream with that error, and an event left without its blank line is dropped', async () => {
		const stream = read();
		stream.body.write('data: {"jsonrpc":"2.0","id":1,"result":{}}');
		await new Promise((resolve) => setImmediate(resolve));
		stream.body.destroy(new Error('ECONNRESET'));
		const end = await stream.ended;
		expect(end.error?.message).toBe('ECONNRESET');
		expect(stream.messages).toEqual([]);
		expect(stream.endCount()).toBe(1);
	});

	describe('a stream the server keeps open after the answer', () => {
		beforeEach(() => jest.useFakeTimers());
		afterEach(() => jest.useRealTimers());

		it(`is cut ${ANSWERED_STREAM_GRACE_MS} ms after the answer, and the end says nothing is missing`, async () => {
			const stream = read();
			stream.body.write(event(response(1, 'done')));
			await Promise.resolve();
			jest.advanceTimersByTime(ANSWERED_STREAM_GRACE_MS - 1);
			expect(stream.body.destroyed).toBe(false);
			jest.advanceTimersByTime(1);
			expect(stream.body.destroyed).toBe(true);
			jest.useRealTimers();
			const end = await stream.ended;
			expect(end).toMatchObject({ answered: true, cutAfterAnswer: true });
		});

		it('is left alone while no answer came', async () => {
			const stream = read();
			stream.body.write(event(progress));
			await Promise.resolve();
			jest.advanceTimersByTime(ANSWERED_STREAM_GRACE_MS * 5);
			expect(stream.body.destroyed).toBe(false);
			stream.body.end();
			jest.useRealTimers();
			expect((await stream.ended).cutAfterAnswer).toBe(false);
		});
	});
});

import { AnswerTooLarge, limitedBody } from '../../lib/mcp/streamLimits';

/** Runs `chunks` through a limitedBody and reports what came out, or the error it failed with. */
async function through(kind: 'event-stream' | 'whole', limit: number, chunks: string[]): Promise<string | Error> {
	const source = new ReadableStream<Uint8Array>({
		start(controller) {
			for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
			controller.close();
		},
	});
	try {
		let out = '';
		for await (const chunk of source.pipeThrough(limitedBody(kind, limit, 'The answer')) as unknown as AsyncIterable<Uint8Array>) out += new TextDecoder().decode(chunk);
		return out;
	} catch (error) {
		return error as Error;
	}
}

describe('limitedBody: how much of one server message is held', () => {
	it('counts an event stream per event: many small events pass, however CRLF and blank lines are cut', async () => {
		const event = 'data: 12345678\r\n\r\n';
		const chunks: string[] = [];
		for (let i = 0; i < 200; i++) chunks.push(event.slice(0, 15), event.slice(15, 16), event.slice(16));
		expect(await through('event-stream', 20, chunks)).toBe(event.repeat(200));
		expect(await through('event-stream', 20, ['data: 1\n', '\n', 'data: 2\n\n'])).toBe('data: 1\n\ndata: 2\n\n');
	});

	it('fails once one event passes the limit, whether in one line or in data lines without the closing blank line', async () => {
		const long = await through('event-stream', 20, ['data: ', 'x'.repeat(10), 'x'.repeat(10)]);
		expect(long).toBeInstanceOf(AnswerTooLarge);
		expect((long as Error).message).toBe('The answer is larger than 0 MB; the stream was cut');
		expect(await through('event-stream', 20, ['data: 1234\n', 'data: 1234\n', 'data: 1234\n'])).toBeInstanceOf(AnswerTooLarge);
	});

	it('holds any other body to the limit as a whole', async () => {
		expect(await through('whole', 20, ['{"a":', '"1234567890"}'])).toBe('{"a":"1234567890"}');
		expect(await through('whole', 20, ['{"a":', '"1234567890', '      '])).toBeInstanceOf(AnswerTooLarge);
	});
});

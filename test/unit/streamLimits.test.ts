import http from 'node:http';
import net from 'node:net';
import { AnswerTooLarge, limitedBody, limitedFetch } from '../../lib/mcp/streamLimits';

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

	it('ends lines at CR alone too, as the SSE parser does', async () => {
		const events = Array.from({ length: 100 }, (_, i) => `data: {"n":${i}}\r\r`);
		expect(await through('event-stream', 30, events)).toBe(events.join(''));
		expect(await through('event-stream', 30, ['data: 1\r', '\ndata: 2\r', '\r'])).toBe('data: 1\r\ndata: 2\r\r');
	});

	it('holds any other body to the limit as a whole', async () => {
		expect(await through('whole', 20, ['{"a":', '"1234567890"}'])).toBe('{"a":"1234567890"}');
		expect(await through('whole', 20, ['{"a":', '"1234567890', '      '])).toBeInstanceOf(AnswerTooLarge);
	});
});

/** Just over the 128 MB answer limit. */
const MAX_FOR_TEST = 128 * 1024 * 1024 + 10;

describe('limitedFetch', () => {
	it('keeps a status whose reason phrase the Response constructor would refuse (a 404 must still re-initialize)', async () => {
		const server = net.createServer((socket) => {
			socket.once('data', () => socket.end('HTTP/1.1 404 Sess\u00e3o expirada \u2014 reconecte\r\ncontent-type: text/plain\r\ncontent-length: 2\r\nconnection: close\r\n\r\nno'));
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const { port } = server.address() as net.AddressInfo;
			const response = await limitedFetch()(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' });
			expect(response.status).toBe(404);
			expect(await response.text()).toBe('no');
		} finally {
			server.close();
		}
	});

	/** Serves `handler` on loopback for `run`, then closes. */
	async function serving(handler: http.RequestListener, run: (url: string) => Promise<void>): Promise<void> {
		const server = http.createServer(handler);
		server.on('connection', (socket) => socket.on('error', () => undefined));
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			await run(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}/mcp`);
		} finally {
			server.closeAllConnections();
			server.close();
		}
	}

	/** Writes `chunk` `times` times, waiting for the client to read (nothing piles up here). */
	async function writeMany(res: http.ServerResponse, chunk: string, times: number): Promise<void> {
		for (let i = 0; i < times && !res.destroyed; i++) {
			if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
		}
		res.end();
	}

	const newlines = '\n'.repeat(1024 * 1024);

	it.each([
		['a GET that asked for JSON (OAuth metadata), answered as an event stream', 'GET', { accept: 'application/json' }, 200, 'text/event-stream'],
		['an error answer labelled as an event stream', 'POST', { accept: 'application/json, text/event-stream' }, 500, 'text/event-stream'],
		['JSON whose type only mentions event streams in a parameter', 'GET', { accept: 'application/json' }, 200, 'application/json; profile="text/event-stream"'],
	])('holds %s to the limit as a whole: blank lines do not reset it', async (_what, method, headers, status, contentType) => {
		await serving(
			(_req, res) => {
				res.writeHead(status, { 'content-type': contentType });
				void writeMany(res, newlines, 130);
			},
			async (url) => {
				const response = await limitedFetch()(url, { method, headers, ...(method === 'POST' ? { body: '{}' } : {}) });
				await expect(response.text()).rejects.toBeInstanceOf(AnswerTooLarge);
			},
		);
	});

	it('still reads a standing event stream event by event: a GET that asked for one, answered 200 as one', async () => {
		const event = `data: ${'x'.repeat(1024 * 1024)}\n\n`;
		await serving(
			(_req, res) => {
				res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
				void writeMany(res, event, 20);
			},
			async (url) => {
				const response = await limitedFetch()(url, { method: 'GET', headers: { accept: 'text/event-stream' } });
				expect((await response.text()).length).toBe(event.length * 20);
			},
		);
	});

	it("tells which of a POST's requests lost their answer to the limit", async () => {
		const server = http.createServer((_req, res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			res.end(`data: ${'x'.repeat(MAX_FOR_TEST)}`);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const { port } = server.address() as net.AddressInfo;
			const cut: Array<Array<string | number>> = [];
			const response = await limitedFetch(undefined, undefined, (ids) => cut.push(ids))(`http://127.0.0.1:${port}/mcp`, {
				method: 'POST',
				body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: {} }),
			});
			await expect(response.text()).rejects.toBeInstanceOf(AnswerTooLarge);
			expect(cut).toEqual([[7]]);
		} finally {
			server.close();
		}
	});
});

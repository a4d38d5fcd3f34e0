import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { buildModelClient } from '../../lib/providers/clients';
import { retryAfterSeconds } from '../../lib/providers/errors';
import { MAX_RETRY_WAIT_SECONDS, modelFetch, ORIGINAL_WAIT } from '../../lib/providers/modelFetch';
import type { ProviderId } from '../../lib/providers/types';

/**
 * A model endpoint that misbehaves, on loopback, against the real SDK clients: the base URL of a
 * provider credential may point at any compatible server, and none of it may hold a run for ever,
 * fill n8n's memory or stall its event loop.
 */

const servers: http.Server[] = [];
afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

async function endpoint(handler: http.RequestListener): Promise<string> {
	const server = http.createServer(handler);
	servers.push(server);
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	// Ends the handlers' endless writes when the client goes.
	server.on('connection', (socket) => socket.on('error', () => undefined));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

/** Writes `chunk` every `everyMs` until the client closes. */
function forEver(res: http.ServerResponse, chunk: () => string, everyMs: number): void {
	const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(chunk())), everyMs);
	res.on('close', () => clearInterval(timer));
}

const client = (provider: ProviderId, baseUrl: string, timeoutMs: number) => buildModelClient({ provider, apiKey: 'sk-test-key', baseUrl, maxRetries: 0, timeoutMs });
const elapsed = async (run: () => Promise<unknown>) => {
	const started = performance.now();
	const outcome = await run().then(
		() => 'resolved',
		(error: Error) => error.message,
	);
	return { outcome, ms: performance.now() - started };
};

describe('a model endpoint that never finishes its answer', () => {
	it.each(['openaiChat', 'anthropic'] as const)('%s: a body that trickles after the headers ends at the timeout, the body included', async (provider) => {
		const url = await endpoint((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.write('{"id":"x","choices":[');
			forEver(res, () => ' ', 50);
		});
		const { outcome, ms } = await elapsed(() => client(provider, url, 500).send({ model: 'm', messages: [], max_tokens: 5 }));
		expect(outcome).toMatch(/answer was not complete after 1 s/);
		expect(ms).toBeLessThan(5_000);
	});

	it('openaiChat: a non-streamed answer over 64 MB is cut, not held', async () => {
		const url = await endpoint((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.write('{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"');
			forEver(res, () => 'x'.repeat(1024 * 1024), 1);
		});
		const { outcome } = await elapsed(() => client('openaiChat', url, 60_000).send({ model: 'm', messages: [] }));
		expect(outcome).toMatch(/larger than 64 MB/);
	});

	it.each(['gzip', 'br'] as const)('openaiChat: a %s answer whose small declared length unpacks past 64 MB is cut (the length counts packed bytes)', async (coding) => {
		const unpacked = Buffer.concat([Buffer.from('{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"'), Buffer.alloc(70 * 1024 * 1024, 'x'), Buffer.from('"}}]}')]);
		const packed = coding === 'gzip' ? zlib.gzipSync(unpacked) : zlib.brotliCompressSync(unpacked, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } });
		expect(packed.length).toBeLessThan(1024 * 1024);
		const url = await endpoint((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding, 'content-length': packed.length });
			res.end(packed);
		});
		const { outcome } = await elapsed(() => client('openaiChat', url, 60_000).send({ model: 'm', messages: [] }));
		expect(outcome).toMatch(/larger than 64 MB/);
	});

	it('openaiChat, streamed: an answer that never ends is cut past 16 MB of text', async () => {
		const delta = JSON.stringify({ id: 'c', choices: [{ index: 0, delta: { content: 'x'.repeat(256 * 1024) }, finish_reason: null }] });
		const url = await endpoint((_req, res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			forEver(res, () => `data: ${delta}\n\n`, 1);
		});
		let streamed = 0;
		const { outcome } = await elapsed(() => client('openaiChat', url, 60_000).stream!({ model: 'm', messages: [] }, (text) => (streamed += text.length)));
		expect(outcome).toMatch(/larger than 16 MB of text/);
		expect(streamed).toBeLessThanOrEqual(16 * 1024 * 1024);
	});

	it.each([
		['openaiChat', `data: ${JSON.stringify({ id: 'c', choices: [{ index: 0, delta: { tool_calls: [{ index: 4294967294, id: 'a', type: 'function', function: { name: 'x', arguments: '{}' } }] }, finish_reason: null }] })}\n\ndata: ${JSON.stringify({ id: 'c', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })}\n\ndata: [DONE]\n\n`],
		['anthropic', `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'm', role: 'assistant', content: [], usage: { input_tokens: 1, output_tokens: 0 } } })}\n\nevent: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 4294967294, content_block: { type: 'text', text: '' } })}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`],
	] as const)('%s, streamed: a block index far past any real answer is refused at once, not walked', async (provider, body) => {
		const url = await endpoint((_req, res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			res.end(body);
		});
		const { outcome, ms } = await elapsed(() => client(provider, url, 60_000).stream!({ model: 'm', messages: [], max_tokens: 5 }, () => undefined));
		expect(outcome).toMatch(/malformed: it names block 4294967294/);
		expect(ms).toBeLessThan(2_000);
	});
});

describe('a model endpoint that asks to be retried much later', () => {
	it(`shortens a retry-after over ${MAX_RETRY_WAIT_SECONDS} s for the SDK's retries, and keeps the server's value for the message`, async () => {
		const base = (async () => new Response('{"error":{"message":"slow down"}}', { status: 429, headers: { 'retry-after': '3600', 'retry-after-ms': '3600000', 'content-type': 'application/json' } })) as typeof fetch;
		const response = await modelFetch(base)('http://model.test/v1/chat/completions', { method: 'POST' });
		expect(response.headers.get('retry-after')).toBe(String(MAX_RETRY_WAIT_SECONDS));
		expect(response.headers.get('retry-after-ms')).toBe(String(MAX_RETRY_WAIT_SECONDS * 1000));
		expect(retryAfterSeconds({ headers: response.headers })).toBe(3600);
		expect(response.headers.get(ORIGINAL_WAIT.seconds)).toBe('3600');
	});

	it('shortens it on an answer without a body too', async () => {
		const base = (async () => new Response(null, { status: 503, headers: { 'retry-after': '3600' } })) as typeof fetch;
		const response = await modelFetch(base)('http://model.test/v1/chat/completions', { method: 'POST' });
		expect(response.status).toBe(503);
		expect(response.headers.get('retry-after')).toBe(String(MAX_RETRY_WAIT_SECONDS));
		expect(response.headers.get(ORIGINAL_WAIT.seconds)).toBe('3600');
	});

	it('never sleeps past the call timeout, whatever retry-after says', async () => {
		// 3 s (kept as asked, under the 60 s bound) against a 0.7 s timeout; the SDK's own sleep runs
		// out unobserved after the test instead of holding the worker for a minute.
		const url = await endpoint((_req, res) => {
			res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3' });
			res.end('{"error":{"message":"rate limited"}}');
		});
		const model = buildModelClient({ provider: 'openaiChat', apiKey: 'sk-test-key', baseUrl: url, maxRetries: 1, timeoutMs: 700 });
		const { outcome, ms } = await elapsed(() => model.send({ model: 'm', messages: [] }));
		expect(outcome).toMatch(/answer was not complete after 1 s/);
		expect(ms).toBeLessThan(2_000);
	});
});

/** Writes `chunk()` until `total` bytes went out, as fast as the client reads; then `last`. */
function writeUntil(res: http.ServerResponse, chunk: string, total: number, last = ''): void {
	let sent = 0;
	const more = () => {
		while (!res.destroyed && sent < total) {
			sent += chunk.length;
			if (!res.write(chunk)) return;
		}
		if (!res.destroyed && !res.writableEnded) res.end(last);
	};
	res.on('drain', more);
	more();
}

describe('a model endpoint that labels its answer to mislead the bounds', () => {
	const padded = (res: http.ServerResponse, contentType: string) => {
		res.writeHead(200, { 'content-type': contentType });
		res.write('{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"hi"}}]');
		// JSON allows any whitespace: 80 MB of blank lines, which would reset a per-event count.
		writeUntil(res, '\n'.repeat(1024 * 1024), 80 * 1024 * 1024, '}');
	};

	it.each(['text/event-stream', 'application/json; profile="text/event-stream"'])('a non-streamed answer labelled %s is held to 64 MB as a whole', async (contentType) => {
		const url = await endpoint((_req, res) => padded(res, contentType));
		for (const provider of ['openaiChat', 'anthropic'] as const) {
			const { outcome } = await elapsed(() => client(provider, url, 60_000).send({ model: 'm', messages: [], max_tokens: 5 }));
			expect(outcome).toMatch(/larger than 64 MB/);
		}
	}, 60_000);

	it('a streamed request answered with an error labelled as an event stream is held as a whole too', async () => {
		const url = await endpoint((_req, res) => {
			res.writeHead(500, { 'content-type': 'text/event-stream' });
			writeUntil(res, '\n'.repeat(1024 * 1024), 80 * 1024 * 1024);
		});
		const { outcome } = await elapsed(() => client('openaiChat', url, 60_000).stream!({ model: 'm', messages: [] }, () => undefined));
		expect(outcome).toMatch(/larger than 64 MB/);
	}, 60_000);

	it('listing models ends at the timeout when the answer trickles, and stops at a bound when pages never end', async () => {
		const trickling = await endpoint((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
			res.write('{"data":[');
		});
		const slow = await elapsed(() => client('openaiChat', trickling, 500).listModels!());
		expect(slow.outcome).toMatch(/not complete after 1 s/);
		let pages = 0;
		const endless = await endpoint((_req, res) => {
			pages++;
			const data = Array.from({ length: 100 }, (_, i) => ({ type: 'model', id: `m-${pages}-${i}`, display_name: 'x'.repeat(1024), created_at: '2025-01-01T00:00:00Z' }));
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ data, has_more: true, first_id: data[0].id, last_id: data[99].id }));
		});
		const listed = await client('anthropic', endless, 60_000).listModels!();
		expect(listed.length).toBeLessThanOrEqual(1000);
		expect(pages).toBeLessThanOrEqual(11);
	});

	it('openaiResponses, streamed: text past 16 MB is cut, as for the other APIs', async () => {
		const delta = 'x'.repeat(1024 * 1024);
		const url = await endpoint((_req, res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			const event = (data: Record<string, unknown>) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
			res.write(event({ type: 'response.created', sequence_number: 0, response: { id: 'r', object: 'response', status: 'in_progress', output: [] } }));
			res.write(event({ type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { id: 'i', type: 'message', role: 'assistant', status: 'in_progress', content: [] } }));
			res.write(event({ type: 'response.content_part.added', sequence_number: 2, item_id: 'i', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }));
			let n = 3;
			forEver(res, () => `event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', sequence_number: n++, item_id: 'i', output_index: 0, content_index: 0, delta, logprobs: [] })}\n\n`, 1);
		});
		let streamed = 0;
		const { outcome } = await elapsed(() => client('openaiResponses', url, 60_000).stream!({ model: 'm', input: 'x' }, (text) => (streamed += text.length)));
		expect(outcome).toMatch(/larger than 16 MB of text/);
		expect(streamed).toBeLessThanOrEqual(16 * 1024 * 1024);
	}, 60_000);

	it('anthropic, streamed: citations are counted and bounded, and added in linear time', async () => {
		const event = (data: unknown) => `event: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n`;
		const url = await endpoint((_req, res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			res.write(event({ type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', content: [], model: 'm', usage: { input_tokens: 1, output_tokens: 0 } } }));
			res.write(event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
			const citation = event({ type: 'content_block_delta', index: 0, delta: { type: 'citations_delta', citation: { type: 'char_location', cited_text: 'c', document_index: 0, start_char_index: 0, end_char_index: 1 } } });
			writeUntil(res, citation, citation.length * 40_000, event({ type: 'content_block_stop', index: 0 }) + event({ type: 'message_stop' }));
		});
		const { outcome, ms } = await elapsed(() => client('anthropic', url, 60_000).stream!({ model: 'm', messages: [], max_tokens: 5 }, () => undefined));
		expect(outcome).toMatch(/citations/);
		expect(ms).toBeLessThan(5_000);
	}, 30_000);

	it('openaiChat, streamed: blank lines written as LF CR LF end events as the SSE rules say (the SDK splits only at LF LF, CR CR and CRLF CRLF)', async () => {
		const chunk = (data: unknown) => `data: ${JSON.stringify(data)}\n\r\n`;
		const url = await endpoint((_req, res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			writeUntil(
				res,
				`:${'p'.repeat(1022)}\n\r\n`,
				32 * 1024 * 1024,
				chunk({ id: 'c', choices: [{ index: 0, delta: { content: 'done' }, finish_reason: null }] }) + chunk({ id: 'c', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) + 'data: [DONE]\n\r\n',
			);
		});
		let text = '';
		const { outcome, ms } = await elapsed(() => client('openaiChat', url, 60_000).stream!({ model: 'm', messages: [] }, (delta) => (text += delta)));
		expect(outcome).toBe('resolved');
		expect(text).toBe('done');
		// The SDK's own splitter rescanned one growing buffer: 42 s for this before.
		expect(ms).toBeLessThan(15_000);
	}, 60_000);
});

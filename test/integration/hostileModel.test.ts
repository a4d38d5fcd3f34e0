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

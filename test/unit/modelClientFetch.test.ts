/**
 * createModelClient with a `fetch` of its own (ProviderConnection.fetch): the real SDK clients send
 * through it instead of the global fetch, and errors come back explained as without it.
 */
import { lineFeedsOnly } from '../../lib/providers/modelFetch';
import { createModelClient } from '../../lib/providers/clients';
import { isContextOverflow, ProviderError } from '../../lib/providers/errors';
import type { ApiProviderId } from '../../lib/providers/types';

interface Seen {
	url: string;
	body: Record<string, unknown>;
}

/** A fetch answering every request with `status` and `reply`, recording what it was sent. */
function recordingFetch(status: number, reply: unknown): { fetch: typeof globalThis.fetch; seen: Seen[] } {
	const seen: Seen[] = [];
	const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
		const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
		seen.push({ url, body: JSON.parse(String(init?.body ?? '{}')) as Record<string, unknown> });
		return new Response(JSON.stringify(reply), { status, headers: { 'content-type': 'application/json' } });
	}) as typeof globalThis.fetch;
	return { fetch, seen };
}

const REPLIES: Record<ApiProviderId, { path: string; reply: unknown }> = {
	anthropic: {
		path: '/v1/messages',
		reply: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } },
	},
	openaiChat: {
		path: '/v1/chat/completions',
		reply: { id: 'c1', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] },
	},
	openaiResponses: {
		path: '/v1/responses',
		reply: { id: 'r1', object: 'response', status: 'completed', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hi' }] }] },
	},
};

const BASE_URLS: Record<ApiProviderId, string> = {
	anthropic: 'http://fake.invalid',
	openaiChat: 'http://fake.invalid/v1',
	openaiResponses: 'http://fake.invalid/v1',
};

describe('createModelClient with a fetch of its own', () => {
	it.each(Object.keys(REPLIES) as ApiProviderId[])('%s: sends through it and returns the parsed body', async (provider) => {
		const { fetch, seen } = recordingFetch(200, REPLIES[provider].reply);
		const client = createModelClient({ provider, apiKey: 'k', baseUrl: BASE_URLS[provider], maxRetries: 0, timeoutMs: 5000, fetch });
		const body = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hello' }] };
		await expect(client.send(body)).resolves.toMatchObject(REPLIES[provider].reply as Record<string, unknown>);
		expect(seen).toHaveLength(1);
		expect(new URL(seen[0].url).pathname).toBe(REPLIES[provider].path);
		expect(seen[0].body).toEqual(body);
	});

	it('explains an error answer, keeping the original for context-overflow detection', async () => {
		const { fetch } = recordingFetch(400, { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 300000 tokens > 200000 maximum' } });
		const client = createModelClient({ provider: 'anthropic', apiKey: 'k', baseUrl: BASE_URLS.anthropic, maxRetries: 0, timeoutMs: 5000, fetch });
		const failure = await client.send({ model: 'm', max_tokens: 10, messages: [] }).catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(ProviderError);
		expect((failure as ProviderError).message).toMatch(/^Anthropic rejected the request \(400\): .*prompt is too long/);
		expect(isContextOverflow(failure)).toBe(true);
	});

	it('explains a 401', async () => {
		const { fetch } = recordingFetch(401, { error: { message: 'invalid x-api-key' } });
		const client = createModelClient({ provider: 'openaiChat', apiKey: 'k', baseUrl: BASE_URLS.openaiChat, maxRetries: 0, timeoutMs: 5000, fetch });
		await expect(client.send({ model: 'm', messages: [] })).rejects.toThrow('OpenAI rejected the API key (401 Unauthorized)');
	});
});

describe('lineFeedsOnly', () => {
	async function through(chunks: string[]): Promise<string> {
		const source = new ReadableStream<Uint8Array>({
			start(controller) {
				for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
				controller.close();
			},
		});
		let out = '';
		for await (const chunk of source.pipeThrough(lineFeedsOnly()) as unknown as AsyncIterable<Uint8Array>) out += new TextDecoder().decode(chunk);
		return out;
	}

	it('writes CRLF, CR and LF as LF, a CRLF split between chunks included, and leaves other bytes alone', async () => {
		expect(await through(['data: a\r\n\r\ndata: b\r\rdata: c\n\r\n'])).toBe('data: a\n\ndata: b\n\ndata: c\n\n');
		expect(await through(['data: a\r', '\n', '\r', '\ndata: é\r', 'x\n'])).toBe('data: a\n\ndata: é\nx\n');
		expect(await through(['no line end', ' at all'])).toBe('no line end at all');
		expect(await through(['data: a\r', 'b'])).toBe('data: a\nb');
		expect(await through(['data: a\r', '', '\ndata: b\r\n\r\n'])).toBe('data: a\ndata: b\n\n');
	});
});

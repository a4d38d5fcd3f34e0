/**
 * Streaming through the real provider SDK clients (createModelClient) against in-process
 * server-sent events in each API's documented format: text reaches onText before the response has
 * ended, and the final response parses exactly like a non-streamed one (text and tool calls). Also:
 * the SDKs' retries honour a 429's retry-after, and the error that ends them carries it.
 */
import { createModelClient } from '../../lib/providers/clients';
import { adapterFor } from '../../lib/providers/registry';
import { ProviderError, retryAfterSeconds } from '../../lib/providers/errors';
import type { ProviderId } from '../../lib/providers/types';

const encoder = new TextEncoder();

/** An SSE response whose last events are held back until `release` is called. */
function sseResponse(head: string[], tail: string[]): { response: Response; release: () => void } {
	let release!: () => void;
	const released = new Promise<void>((resolve) => (release = resolve));
	const body = new ReadableStream<Uint8Array>({
		async start(controller) {
			for (const event of head) controller.enqueue(encoder.encode(event));
			await released;
			for (const event of tail) controller.enqueue(encoder.encode(event));
			controller.close();
		},
	});
	return { response: new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }), release };
}

const sse = (event: string | undefined, data: unknown) => `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

/** Each API's events for: text "Hello world", then a tool call get_weather({"city":"Oslo"}). Split: head (text), tail (rest). */
function eventsFor(kind: ProviderId): { head: string[]; tail: string[] } {
	if (kind === 'anthropic') {
		return {
			head: [
				sse('message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } } }),
				sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
				sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello ' } }),
				sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'world' } }),
			],
			tail: [
				sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
				sse('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} } }),
				sse('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } }),
				sse('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"Oslo"}' } }),
				sse('content_block_stop', { type: 'content_block_stop', index: 1 }),
				sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } }),
				sse('message_stop', { type: 'message_stop' }),
			],
		};
	}
	if (kind === 'openaiChat') {
		const chunk = (delta: unknown, finish: string | null = null) => sse(undefined, { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
		return {
			head: [chunk({ role: 'assistant', content: 'Hello ' }), chunk({ content: 'world' })],
			tail: [
				chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
				chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Oslo"}' } }] }),
				chunk({}, 'tool_calls'),
				sse(undefined, { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 } }),
				sse(undefined, '[DONE]'),
			],
		};
	}
	const message = { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello world', annotations: [] }] };
	const call = { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}', status: 'completed' };
	const response = (status: string, output: unknown[]) => ({ id: 'resp_1', object: 'response', created_at: 1, status, model: 'm', output, usage: status === 'completed' ? { input_tokens: 12, output_tokens: 9, total_tokens: 21 } : null });
	let n = 0;
	const event = (type: string, data: Record<string, unknown>) => sse(type, { type, sequence_number: n++, ...data });
	return {
		head: [
			event('response.created', { response: response('in_progress', []) }),
			event('response.output_item.added', { output_index: 0, item: { ...message, status: 'in_progress', content: [] } }),
			event('response.content_part.added', { item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }),
			event('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hello ' }),
			event('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'world' }),
		],
		tail: [
			event('response.output_text.done', { item_id: 'msg_1', output_index: 0, content_index: 0, text: 'Hello world' }),
			event('response.content_part.done', { item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: 'Hello world', annotations: [] } }),
			event('response.output_item.done', { output_index: 0, item: message }),
			event('response.output_item.added', { output_index: 1, item: { ...call, arguments: '', status: 'in_progress' } }),
			event('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 1, delta: '{"city":"Oslo"}' }),
			event('response.function_call_arguments.done', { item_id: 'fc_1', output_index: 1, arguments: '{"city":"Oslo"}' }),
			event('response.output_item.done', { output_index: 1, item: call }),
			event('response.completed', { response: response('completed', [message, call]) }),
		],
	};
}

const KINDS: ProviderId[] = ['anthropic', 'openaiChat', 'openaiResponses'];

describe.each(KINDS)('streaming with %s', (kind) => {
	it('hands the text over before the response ends, and the final response parses like a plain one', async () => {
		const { head, tail } = eventsFor(kind);
		const { response, release } = sseResponse(head, tail);
		const sent: Array<Record<string, unknown>> = [];
		const fetch = (async (_url: string, init: RequestInit) => {
			sent.push(JSON.parse(String(init.body)));
			return response;
		}) as unknown as typeof globalThis.fetch;
		const client = createModelClient({ provider: kind, apiKey: 'sk-test', baseUrl: 'http://fake.invalid/v1', maxRetries: 0, timeoutMs: 5000, fetch });
		const deltas: string[] = [];
		let ended = false;
		const final = client.stream!({ model: 'm', max_tokens: 10, messages: [] }, (delta) => {
			deltas.push(delta);
			if (deltas.join('') === 'Hello world') release();
		}).then((body) => {
			ended = true;
			return body;
		});
		// The text arrived while the response was still open (the tail waits for it).
		await new Promise((resolve) => setTimeout(resolve, 0));
		const body = await final;
		expect(ended).toBe(true);
		expect(deltas).toEqual(['Hello ', 'world']);
		expect(sent[0]).toMatchObject({ stream: true });
		if (kind === 'openaiChat') expect(sent[0].stream_options).toEqual({ include_usage: true });
		const turn = adapterFor(kind).parseResponse(body);
		expect(turn).toMatchObject({ text: 'Hello world', stop: 'tool_use', toolCalls: [{ name: 'get_weather' }] });
		expect(adapterFor(kind).parseArguments(turn.toolCalls[0].rawArguments)).toEqual({ ok: true, value: { city: 'Oslo' } });
		expect(turn.usage.outputTokens).toBe(9);
	});
});

describe.each(['anthropic', 'openaiChat'] as ProviderId[])('streaming with %s: arguments that are not JSON', (kind) => {
	it('end the stream like any answer; the loop gets them as text to refuse, and the replayed transcript stays valid', async () => {
		const { head, tail } = eventsFor(kind);
		// The same events, with the arguments' text made invalid JSON: {"city": Oslo}.
		const broken = [...head, ...tail].map((event) => {
			const [first, data] = event.split('data: ');
			if (data.startsWith('[DONE]')) return event;
			const json = JSON.stringify(JSON.parse(data)).replace('\\"Oslo\\"}', 'Oslo}').replace('{\\"city\\":\\"Oslo\\"}', '{\\"city\\": Oslo}');
			return `${first}data: ${json}\n\n`;
		});
		expect(broken.join('')).toContain('Oslo}');
		const { response, release } = sseResponse(broken, []);
		release();
		const fetch = (async () => response) as unknown as typeof globalThis.fetch;
		const client = createModelClient({ provider: kind, apiKey: 'sk-test', baseUrl: 'http://fake.invalid/v1', maxRetries: 0, timeoutMs: 5000, fetch });
		// A strict tool, as the Agent sends most (the OpenAI SDK's helper parses those arguments itself).
		const tools = kind === 'openaiChat' ? [{ type: 'function', function: { name: 'get_weather', strict: true, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } } }] : [];
		const body = await client.stream!({ model: 'm', max_tokens: 10, messages: [], ...(tools.length ? { tools } : {}) }, () => undefined);
		const turn = adapterFor(kind).parseResponse(body);
		expect(turn.toolCalls).toHaveLength(1);
		expect(adapterFor(kind).parseArguments(turn.toolCalls[0].rawArguments)).toMatchObject({ ok: false });
		if (kind === 'anthropic') expect(JSON.stringify(turn.transcriptItems)).toContain('"input":{}');
	});
});

describe('rate limits', () => {
	it('the SDK waits what retry-after asks before retrying, and the final error carries it', async () => {
		const times: number[] = [];
		const limited = () => new Response(JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }), { status: 429, headers: { 'content-type': 'application/json', 'retry-after-ms': '400', 'retry-after': '1' } });
		const fetch = (async () => {
			times.push(Date.now());
			return limited();
		}) as unknown as typeof globalThis.fetch;
		const client = createModelClient({ provider: 'anthropic', apiKey: 'sk-test', baseUrl: 'http://fake.invalid', maxRetries: 1, timeoutMs: 5000, fetch });
		const error = await client.send({ model: 'm', max_tokens: 1, messages: [] }).catch((e: unknown) => e);
		expect(times).toHaveLength(2);
		expect(times[1] - times[0]).toBeGreaterThanOrEqual(380);
		expect(error).toBeInstanceOf(ProviderError);
		expect(error).toMatchObject({ status: 429, retryAfterSeconds: 1, message: expect.stringContaining('asked to retry after 1 s') });
	});

	it('reads retry-after as seconds, milliseconds or an HTTP date', () => {
		const withHeaders = (headers: Record<string, string>) => ({ headers: new Headers(headers) });
		expect(retryAfterSeconds(withHeaders({ 'retry-after': '30' }))).toBe(30);
		expect(retryAfterSeconds(withHeaders({ 'retry-after-ms': '1500' }))).toBe(2);
		expect(retryAfterSeconds(withHeaders({ 'retry-after': new Date(Date.parse('2030-01-01T00:01:00Z')).toUTCString() }), Date.parse('2030-01-01T00:00:00Z'))).toBe(60);
		expect(retryAfterSeconds(withHeaders({ 'retry-after': 'soon' }))).toBeUndefined();
		expect(retryAfterSeconds({ headers: { 'retry-after': '5' } })).toBe(5);
	});
});

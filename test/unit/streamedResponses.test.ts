/**
 * Streamed answers put back together from raw events (lib/providers/streamedResponses.ts), in the
 * cases where a hand-written accumulator can differ from the SDKs' own stream helpers: counts a
 * delta leaves null, an input sent whole at the start, a name repeated in every chunk, fields of a
 * provider's own, and a stream cut off before its end.
 */
import { anthropicMessageFromEvents, chatCompletionFromChunks } from '../../lib/providers/streamedResponses';
import { anthropicMessages } from '../../lib/providers/anthropicMessages';
import { openAiChat } from '../../lib/providers/openAiChat';

async function* from(events: unknown[]) {
	for (const event of events) yield event;
}
const ignore = () => undefined;

const messageStart = (usage: Record<string, unknown>) => ({ type: 'message_start', message: { id: 'm', role: 'assistant', content: [], usage } });

describe('Anthropic events', () => {
	it('counts a message_delta leaves null keep their message_start value', async () => {
		const message = await anthropicMessageFromEvents(
			from([
				messageStart({ input_tokens: 1234, output_tokens: 1, cache_read_input_tokens: 50, cache_creation_input_tokens: 7 }),
				{ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
				{ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } },
				{ type: 'content_block_stop', index: 0 },
				{ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9, input_tokens: null, cache_read_input_tokens: null, cache_creation_input_tokens: null } },
				{ type: 'message_stop' },
			]),
			ignore,
		);
		expect(anthropicMessages.parseResponse(message).usage).toEqual({ inputTokens: 1234, outputTokens: 9, cacheReadTokens: 50, cacheWriteTokens: 7 });
	});

	it('a tool_use input sent whole in content_block_start is kept when no delta follows', async () => {
		const message = await anthropicMessageFromEvents(
			from([
				messageStart({ input_tokens: 1, output_tokens: 1 }),
				{ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } } },
				{ type: 'content_block_stop', index: 0 },
				{ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 3 } },
				{ type: 'message_stop' },
			]),
			ignore,
		);
		expect(anthropicMessages.parseResponse(message).toolCalls[0].rawArguments).toEqual({ city: 'Oslo' });
	});

	it('a stream cut off before message_stop is refused, not taken for a whole answer', async () => {
		const cut = anthropicMessageFromEvents(
			from([
				messageStart({ input_tokens: 1, output_tokens: 1 }),
				{ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'delete_file', input: {} } },
				{ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"path":"/tmp/a"}' } },
				{ type: 'content_block_stop', index: 0 },
			]),
			ignore,
		);
		await expect(cut).rejects.toThrow('ended before it was complete (no message_stop)');
	});
});

describe('OpenAI Chat Completions chunks', () => {
	const chunk = (delta: Record<string, unknown>, finish?: string) => ({ id: 'c', choices: [{ index: 0, delta, ...(finish ? { finish_reason: finish } : {}) }] });

	it('a name a compatible server repeats in every chunk is the name, not the name three times', async () => {
		const completion = await chatCompletionFromChunks(
			from([
				chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
				chunk({ tool_calls: [{ index: 0, function: { name: 'get_weather', arguments: '{"city":' } }] }),
				chunk({ tool_calls: [{ index: 0, function: { name: 'get_weather', arguments: '"Oslo"}' } }] }, 'tool_calls'),
			]),
			ignore,
		);
		const turn = openAiChat.parseResponse(completion);
		expect(turn.toolCalls).toEqual([{ id: 'call_1', name: 'get_weather', rawArguments: '{"city":"Oslo"}' }]);
	});

	it('a provider\'s own fields on a tool call (Gemini\'s thought signature) are kept for the transcript', async () => {
		const completion = await chatCompletionFromChunks(
			from([chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' }, extra_content: { google: { thought_signature: 'sig' } } }] }, 'tool_calls')]),
			ignore,
		);
		const replayed = openAiChat.parseResponse(completion).transcriptItems[0] as { tool_calls: Array<Record<string, unknown>> };
		expect(replayed.tool_calls[0].extra_content).toEqual({ google: { thought_signature: 'sig' } });
	});

	it('a stream cut off before its finish_reason is refused, not taken for a whole answer', async () => {
		const cut = chatCompletionFromChunks(from([chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'delete_file', arguments: '{"path":"/tmp/a"}' } }] })]), ignore);
		await expect(cut).rejects.toThrow('ended before it was complete (no finish_reason)');
	});
});

/**
 * Streamed answers put back together from the raw events, into the shape a non-streamed request
 * returns, so the adapters parse both alike. The SDKs' own stream helpers parse each tool call's
 * arguments as they finish and throw on invalid JSON (Anthropic always, OpenAI for strict tools):
 * a model, or a compatible server, that sends `{"city": Oslo}` would end the whole run as a
 * provider failure. Here the arguments stay text, and the loop answers the model that they are not
 * valid JSON, as it does for a non-streamed answer.
 */

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Anthropic Messages stream events (message_start, content_block_*, message_delta) → a Message. */
export async function anthropicMessageFromEvents(events: AsyncIterable<unknown>, onText: (delta: string) => void): Promise<Json> {
	let message: Json = { role: 'assistant', content: [] };
	const blocks: Json[] = [];
	const argumentText = new Map<number, string>();
	for await (const event of events) {
		if (!isRecord(event)) continue;
		const index = typeof event.index === 'number' ? event.index : -1;
		const delta = isRecord(event.delta) ? event.delta : {};
		switch (event.type) {
			case 'message_start':
				if (isRecord(event.message)) message = { ...event.message };
				break;
			case 'content_block_start':
				if (index >= 0 && isRecord(event.content_block)) blocks[index] = { ...event.content_block };
				if (index >= 0 && isRecord(event.content_block) && 'input' in event.content_block) argumentText.set(index, '');
				break;
			case 'content_block_delta': {
				const block = blocks[index];
				if (!block) break;
				if (delta.type === 'text_delta' && typeof delta.text === 'string') {
					block.text = `${typeof block.text === 'string' ? block.text : ''}${delta.text}`;
					onText(delta.text);
				} else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
					argumentText.set(index, `${argumentText.get(index) ?? ''}${delta.partial_json}`);
				} else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') {
					block.thinking = `${typeof block.thinking === 'string' ? block.thinking : ''}${delta.thinking}`;
				} else if (delta.type === 'signature_delta' && typeof delta.signature === 'string') {
					block.signature = delta.signature;
				} else if (delta.type === 'citations_delta' && delta.citation !== undefined) {
					block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
				}
				break;
			}
			case 'content_block_stop': {
				const text = argumentText.get(index);
				// Empty arguments mean none ({}); invalid JSON stays text for the loop to refuse.
				if (blocks[index] && text !== undefined) blocks[index].input = text.trim() === '' ? {} : parsedOrText(text);
				break;
			}
			case 'message_delta':
				message = { ...message, ...delta, usage: { ...(isRecord(message.usage) ? message.usage : {}), ...(isRecord(event.usage) ? event.usage : {}) } };
				break;
			default:
			// message_stop, ping and event types added later change nothing here.
		}
	}
	return { ...message, content: blocks.filter(Boolean) };
}

/** OpenAI Chat Completions chunks → a ChatCompletion (its first choice). */
export async function chatCompletionFromChunks(chunks: AsyncIterable<unknown>, onText: (delta: string) => void): Promise<Json> {
	let head: Json = {};
	let content: string | null = null;
	let refusal: string | null = null;
	let finishReason: unknown = null;
	let usage: unknown;
	const calls: Array<{ id?: string; type: string; function: { name: string; arguments: string } }> = [];
	for await (const chunk of chunks) {
		if (!isRecord(chunk)) continue;
		if (!head.id && typeof chunk.id === 'string') head = { id: chunk.id, object: 'chat.completion', created: chunk.created, model: chunk.model };
		if (isRecord(chunk.usage)) usage = chunk.usage;
		const choice = Array.isArray(chunk.choices) ? chunk.choices.find((c) => isRecord(c) && (c.index === 0 || c.index === undefined)) : undefined;
		if (!isRecord(choice)) continue;
		if (choice.finish_reason) finishReason = choice.finish_reason;
		const delta = isRecord(choice.delta) ? choice.delta : {};
		if (typeof delta.content === 'string') {
			content = (content ?? '') + delta.content;
			onText(delta.content);
		}
		if (typeof delta.refusal === 'string') refusal = (refusal ?? '') + delta.refusal;
		for (const part of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
			if (!isRecord(part)) continue;
			const at = typeof part.index === 'number' ? part.index : calls.length;
			const call = (calls[at] ??= { type: 'function', function: { name: '', arguments: '' } });
			if (typeof part.id === 'string') call.id = part.id;
			const fn = isRecord(part.function) ? part.function : {};
			if (typeof fn.name === 'string') call.function.name += fn.name;
			if (typeof fn.arguments === 'string') call.function.arguments += fn.arguments;
		}
	}
	const toolCalls = calls.filter(Boolean);
	const message: Json = { role: 'assistant', content, ...(refusal !== null ? { refusal } : {}), ...(toolCalls.length ? { tool_calls: toolCalls } : {}) };
	return { ...head, choices: [{ index: 0, message, finish_reason: finishReason }], ...(usage ? { usage } : {}) };
}

function parsedOrText(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}

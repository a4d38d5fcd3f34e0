/**
 * Streamed answers put back together from the raw events, into the shape a non-streamed request
 * returns, so the adapters parse both alike. The SDKs' own stream helpers parse each tool call's
 * arguments as they finish and throw on invalid JSON (Anthropic always, OpenAI for strict tools):
 * a model, or a compatible server, that sends `{"city": Oslo}` would end the whole run as a
 * provider failure. Here the arguments stay text, and the loop answers the model that they are not
 * valid JSON, as it does for a non-streamed answer.
 */
import { isJsonObject } from '../util/jsonObject';
import { parseJsonArguments } from './shared';
import { McpAgentError } from '../errors';

type Json = Record<string, unknown>;

/**
 * Bounds on what one streamed answer may hold, against a hostile or broken endpoint: block and
 * tool call indexes are positions in one answer (a chunk naming index 4294967294 made the final
 * filter walk a sparse array for 80 s), and the text and arguments received add up to at most
 * MAX_STREAMED_CHARS (an endless stream grew n8n's memory without end). Real answers are far below.
 */
export const MAX_STREAM_INDEX = 1024;
const MAX_STREAMED_CHARS = 16 * 1024 * 1024;

/** What to do about an endpoint that streams what no model API sends (no model answer is 16 MB of text). */
const NOT_A_MODEL_API =
	"Check the Base URL of the model credential: it must point at the provider's API or a server compatible with it. Turning off the Agent's Enable Streaming option reads the answer whole instead.";

/** What to do about a stream that stopped before its end. */
const STREAM_CUT =
	'The connection to the model endpoint was cut before the answer ended (a network drop, a proxy or load balancer closing long responses, or the endpoint stopping). Retry the item (Retry On Fail); if it keeps happening, check proxies between n8n and the endpoint, or turn off the Agent\'s Enable Streaming option.';

/** A streamed answer refused here; explainProviderError (errors.ts) puts the provider's name in front of the message. */
function streamRefused(message: string, description: string): McpAgentError {
	return new McpAgentError(message, { code: 'remote', description });
}

/** Counts what a stream adds to the answer and stops it past MAX_STREAMED_CHARS. */
export function streamBudget(): (text: string) => string {
	let received = 0;
	return (text) => {
		received += text.length;
		if (received > MAX_STREAMED_CHARS) throw streamRefused(`The model's streamed answer is larger than ${MAX_STREAMED_CHARS / (1024 * 1024)} MB of text; it was cut`, NOT_A_MODEL_API);
		return text;
	};
}

/** Citations one block may hold: a real answer cites far fewer (each is a delta of its own). */
const MAX_CITATIONS = 1024;

/** A citation delta: appended in place (no copy per delta), its quoted text counted with the answer's. */
function addCitation(block: Json, citation: unknown, take: (text: string) => string): void {
	const citations = Array.isArray(block.citations) ? (block.citations as unknown[]) : (block.citations = []);
	if (citations.length >= MAX_CITATIONS) throw streamRefused(`The model's streamed answer is malformed: one block has more than ${MAX_CITATIONS} citations`, NOT_A_MODEL_API);
	const quoted = isJsonObject(citation) && typeof citation.cited_text === 'string' ? citation.cited_text : '';
	take(quoted);
	citations.push(citation);
}

function checkedIndex(index: number): number {
	if (!Number.isInteger(index) || index < 0 || index >= MAX_STREAM_INDEX) throw streamRefused(`The model's streamed answer is malformed: it names block ${index} (at most ${MAX_STREAM_INDEX} are read)`, NOT_A_MODEL_API);
	return index;
}

/** Anthropic Messages stream events (message_start, content_block_*, message_delta) → a Message. */
export async function anthropicMessageFromEvents(events: AsyncIterable<unknown>, onText: (delta: string) => void): Promise<Json> {
	let message: Json = { role: 'assistant', content: [] };
	const blocks: Json[] = [];
	const argumentText = new Map<number, string>();
	let complete = false;
	const take = streamBudget();
	for await (const event of events) {
		if (!isJsonObject(event)) continue;
		const index = typeof event.index === 'number' ? checkedIndex(event.index) : -1;
		const delta = isJsonObject(event.delta) ? event.delta : {};
		switch (event.type) {
			case 'message_start':
				if (isJsonObject(event.message)) message = { ...event.message };
				break;
			case 'content_block_start':
				// A tool_use block's input as it starts ({} unless a proxy sends it whole) is replaced only by the deltas that follow.
				if (index >= 0 && isJsonObject(event.content_block)) blocks[index] = { ...event.content_block };
				break;
			case 'content_block_delta': {
				const block = blocks[index];
				if (!block) break;
				if (delta.type === 'text_delta' && typeof delta.text === 'string') {
					block.text = `${typeof block.text === 'string' ? block.text : ''}${take(delta.text)}`;
					onText(delta.text);
				} else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
					argumentText.set(index, `${argumentText.get(index) ?? ''}${take(delta.partial_json)}`);
				} else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') {
					block.thinking = `${typeof block.thinking === 'string' ? block.thinking : ''}${take(delta.thinking)}`;
				} else if (delta.type === 'signature_delta' && typeof delta.signature === 'string') {
					block.signature = delta.signature;
				} else if (delta.type === 'citations_delta' && delta.citation !== undefined) {
					addCitation(block, delta.citation, take);
				}
				break;
			}
			case 'content_block_stop': {
				const text = argumentText.get(index);
				// Deltas that add up to nothing mean no arguments ({}); invalid JSON stays text for the loop to refuse.
				if (blocks[index] && text !== undefined) {
					const parsed = parseJsonArguments(text);
					blocks[index].input = parsed.ok ? parsed.value : text;
				}
				break;
			}
			case 'message_delta':
				// Counts the delta leaves null keep their value from message_start (as the SDK's own stream does).
				message = { ...message, ...delta, usage: { ...(isJsonObject(message.usage) ? message.usage : {}), ...withoutNulls(event.usage) } };
				break;
			case 'message_stop':
				complete = true;
				break;
			default:
			// ping, and event types added later, change nothing here.
		}
	}
	// A stream cut off before its end must not pass for a complete answer (the SDK's helper refused it too).
	if (!complete) throw streamRefused('The model\'s streamed answer ended before it was complete (no message_stop)', STREAM_CUT);
	return { ...message, content: blocks.filter(Boolean) };
}

/** OpenAI Chat Completions chunks → a ChatCompletion (its first choice). */
export async function chatCompletionFromChunks(chunks: AsyncIterable<unknown>, onText: (delta: string) => void): Promise<Json> {
	let head: Json = {};
	let content: string | null = null;
	let refusal: string | null = null;
	let finishReason: unknown = null;
	let usage: unknown;
	const calls: Array<Json & { function: Json & { name: string; arguments: string } }> = [];
	const take = streamBudget();
	for await (const chunk of chunks) {
		if (!isJsonObject(chunk)) continue;
		if (!head.id && typeof chunk.id === 'string') head = { id: chunk.id, object: 'chat.completion', created: chunk.created, model: chunk.model };
		if (isJsonObject(chunk.usage)) usage = chunk.usage;
		const choice = Array.isArray(chunk.choices) ? chunk.choices.find((c) => isJsonObject(c) && (c.index === 0 || c.index === undefined)) : undefined;
		if (!isJsonObject(choice)) continue;
		if (choice.finish_reason) finishReason = choice.finish_reason;
		const delta = isJsonObject(choice.delta) ? choice.delta : {};
		if (typeof delta.content === 'string') {
			content = (content ?? '') + take(delta.content);
			onText(delta.content);
		}
		if (typeof delta.refusal === 'string') refusal = (refusal ?? '') + take(delta.refusal);
		for (const part of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
			if (!isJsonObject(part)) continue;
			const { index, function: fnPart, ...rest } = part;
			const at = checkedIndex(typeof index === 'number' ? index : calls.length);
			const call = (calls[at] ??= { type: 'function', function: { name: '', arguments: '' } });
			// Every other field is kept (a provider's own, such as Gemini's thought signature, must be replayed).
			Object.assign(call, withoutNulls(rest));
			const { name, arguments: args, ...fnRest } = isJsonObject(fnPart) ? fnPart : {};
			Object.assign(call.function, withoutNulls(fnRest));
			// The name arrives whole (some servers repeat it in every chunk); the arguments in pieces.
			if (typeof name === 'string' && name) call.function.name = name;
			if (typeof args === 'string') call.function.arguments += take(args);
		}
	}
	// A stream cut off before its end must not pass for a complete answer (the SDK's helper refused it too).
	if (!finishReason) throw streamRefused('The model\'s streamed answer ended before it was complete (no finish_reason)', STREAM_CUT);
	const toolCalls = calls.filter(Boolean);
	const message: Json = { role: 'assistant', content, ...(refusal !== null ? { refusal } : {}), ...(toolCalls.length ? { tool_calls: toolCalls } : {}) };
	return { ...head, choices: [{ index: 0, message, finish_reason: finishReason }], ...(usage ? { usage } : {}) };
}

function withoutNulls(value: unknown): Json {
	const kept: Json = {};
	if (isJsonObject(value)) for (const [key, item] of Object.entries(value)) if (item !== null && item !== undefined) kept[key] = item;
	return kept;
}

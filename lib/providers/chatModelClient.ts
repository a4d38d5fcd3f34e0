/**
 * The network side of the chatModel adapter (chatModel.ts): a LangChain chat model object, as an
 * n8n Chat Model sub-node hands it over, read by duck typing (`bindTools`, `invoke`, `stream`).
 * Nothing here imports LangChain: the messages sent are plain role/content objects, which
 * LangChain's chat models coerce into their message classes, and the answer is read by its fields.
 */
import type { ModelClient } from './types';
import type { NeutralTool, NeutralToolChoice } from './chatModel';
import { messageText } from './chatModel';
import { dataUrl, parseJsonArguments } from './shared';
import { MAX_STREAM_INDEX, streamBudget } from './streamedResponses';
import { isJsonObject } from '../util/jsonObject';
import { McpAgentError } from '../errors';

type Json = Record<string, unknown>;

/** What is called on a bound chat model: LangChain's Runnable, by its two methods. */
export interface ChatRunnable {
	invoke(messages: unknown[], options?: Json): Promise<unknown>;
	stream?(messages: unknown[], options?: Json): Promise<AsyncIterable<unknown>> | AsyncIterable<unknown>;
}

/** A LangChain chat model that can call tools (BaseChatModel with `bindTools`). */
export interface ToolCallingChatModel extends ChatRunnable {
	bindTools(tools: unknown[], options?: Json): ChatRunnable;
}

/**
 * Refuses, at the start of a run, a chat model that cannot call tools: the Agent has nothing to run
 * without them. `nodeName` is the Chat Model sub-node's name, so the user knows which one to change.
 */
export function assertToolCallingModel(model: unknown, nodeName: string): asserts model is ToolCallingChatModel {
	const candidate = model as Partial<ToolCallingChatModel> | null | undefined;
	if (!candidate || typeof candidate !== 'object' || typeof candidate.bindTools !== 'function' || typeof candidate.invoke !== 'function') {
		throw new McpAgentError(`The Chat Model sub-node "${nodeName}" gives a model that cannot call tools`, {
			code: 'config',
			description: `The MCP Agent runs tools, so its model must support tool calling (LangChain's bindTools). Connect a Chat Model node whose model calls tools (OpenAI, Anthropic, Google Gemini, Mistral, Groq, Ollama with a tool-capable model…), or use one of the Agent's built-in providers.`,
		});
	}
}

/**
 * The model's name as a LangChain chat model holds it (`model`; older releases `modelName`), for the
 * run's settings and output. Undefined when it names none (the caller names the sub-node instead).
 */
export function chatModelName(model: object): string | undefined {
	const fields = model as { model?: unknown; modelName?: unknown };
	for (const value of [fields.model, fields.modelName]) if (typeof value === 'string' && value.trim()) return value.trim();
	return undefined;
}

/** LangChain's tool_choice values that its chat models share: "any" is OpenAI's "required", Anthropic's and Gemini's "any". */
function langChainToolChoice(choice: NeutralToolChoice | undefined): string | undefined {
	if (choice === undefined || choice === 'auto') return undefined;
	if (choice === 'required') return 'any';
	if (choice === 'none') return 'none';
	return choice.name;
}

/** A neutral user-message content block as LangChain takes it (images as data-URL image_url parts, which its chat models convert). */
function contentPart(part: unknown): unknown {
	if (isJsonObject(part) && part.type === 'image' && typeof part.mimeType === 'string' && typeof part.data === 'string') {
		return { type: 'image_url', image_url: { url: dataUrl({ mimeType: part.mimeType, data: part.data }) } };
	}
	return part;
}

/** The neutral transcript (chatModel.ts) as LangChain's role/content message objects. */
export function toLangChainMessages(messages: unknown[]): Json[] {
	const out: Json[] = new Array<Json>(messages.length);
	for (let i = 0; i < messages.length; i++) {
		const message = isJsonObject(messages[i]) ? (messages[i] as Json) : {};
		const content = Array.isArray(message.content) ? (message.content as unknown[]).map(contentPart) : typeof message.content === 'string' ? message.content : messageText(message.content);
		switch (message.role) {
			case 'assistant': {
				const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as unknown[]).filter(isJsonObject) : [];
				out[i] = calls.length > 0 ? { role: 'assistant', content, tool_calls: calls.map((call) => ({ id: call.id, name: call.name, args: call.args, type: 'tool_call' })) } : { role: 'assistant', content };
				break;
			}
			case 'tool':
				out[i] = { role: 'tool', content, tool_call_id: message.tool_call_id };
				break;
			default:
				// system, user; a prior conversation's other roles are passed on for LangChain to judge.
				out[i] = { role: message.role, content };
		}
	}
	return out;
}

/** Most tool calls one streamed answer may assemble (the loop runs at most MAX_TOOL_CALLS_PER_TURN of them). */
const MAX_STREAMED_CALLS = MAX_STREAM_INDEX;

function streamRefused(message: string): McpAgentError {
	return new McpAgentError(`Chat Model: ${message}`, {
		code: 'remote',
		description: "The Chat Model sub-node's model streamed an answer no model sends. Turning off the Agent's Enable Streaming option reads the answer whole instead.",
	});
}

interface CallChunk {
	id: string;
	name: string;
	args: string;
	/** A call that arrived whole (`tool_calls` on a chunk without `tool_call_chunks`). */
	whole?: unknown;
}

/** Usage counts of two chunks added up, as LangChain's own chunk concatenation does. */
function addedUsage(a: Json | undefined, b: Json): Json {
	if (!a) return b;
	const sum = (x: unknown, y: unknown) => (typeof x === 'number' ? x : 0) + (typeof y === 'number' ? y : 0);
	const da = isJsonObject(a.input_token_details) ? a.input_token_details : {};
	const db = isJsonObject(b.input_token_details) ? b.input_token_details : {};
	return {
		input_tokens: sum(a.input_tokens, b.input_tokens),
		output_tokens: sum(a.output_tokens, b.output_tokens),
		total_tokens: sum(a.total_tokens, b.total_tokens),
		input_token_details: { cache_read: sum(da.cache_read, db.cache_read), cache_creation: sum(da.cache_creation, db.cache_creation) },
	};
}

/**
 * AIMessageChunk-shaped chunks put together into one AIMessage-shaped answer, as chatModel.ts parses
 * it: text concatenated (and passed to `onText` as it comes), `tool_call_chunks` merged by index
 * (arguments as partial JSON text; text that is not JSON at the end becomes an invalid tool call,
 * which the loop refuses to the model), usage added up, the last metadata kept. Bounded like the
 * built-in adapters' streams (streamedResponses.ts): the text and arguments together, and the
 * indexes and number of calls.
 */
export async function chatModelAnswerFromChunks(chunks: AsyncIterable<unknown>, onText: (delta: string) => void): Promise<Json> {
	const take = streamBudget();
	let text = '';
	const calls: CallChunk[] = [];
	const byIndex = new Map<number, CallChunk>();
	let usage: Json | undefined;
	let metadata: Json = {};
	let kwargs: Json = {};
	const added = (call: CallChunk): CallChunk => {
		if (calls.length >= MAX_STREAMED_CALLS) throw streamRefused(`the streamed answer has more than ${MAX_STREAMED_CALLS} tool calls`);
		calls.push(call);
		return call;
	};
	for await (const chunk of chunks) {
		if (!isJsonObject(chunk)) continue;
		const delta = messageText(chunk.content);
		if (delta) {
			text += take(delta);
			onText(delta);
		}
		const pieces = Array.isArray(chunk.tool_call_chunks) ? (chunk.tool_call_chunks as unknown[]).filter(isJsonObject) : [];
		for (let i = 0; i < pieces.length; i++) {
			const piece = pieces[i];
			const index = typeof piece.index === 'number' ? piece.index : undefined;
			if (index !== undefined && (!Number.isInteger(index) || index < 0 || index >= MAX_STREAM_INDEX)) throw streamRefused(`the streamed answer names tool call ${index} (at most ${MAX_STREAM_INDEX} are read)`);
			const id = typeof piece.id === 'string' ? piece.id : '';
			let call = index !== undefined ? byIndex.get(index) : id ? calls.find((c) => c.id === id) : undefined;
			if (!call) {
				call = added({ id: '', name: '', args: '' });
				if (index !== undefined) byIndex.set(index, call);
			}
			if (id && !call.id) call.id = id;
			if (typeof piece.name === 'string') call.name += take(piece.name);
			if (typeof piece.args === 'string') call.args += take(piece.args);
		}
		if (pieces.length === 0 && Array.isArray(chunk.tool_calls)) {
			for (const whole of (chunk.tool_calls as unknown[]).filter(isJsonObject)) {
				take(JSON.stringify(whole.args ?? {}));
				added({ id: typeof whole.id === 'string' ? whole.id : '', name: String(whole.name ?? ''), args: '', whole: whole.args ?? {} });
			}
		}
		if (isJsonObject(chunk.usage_metadata)) usage = addedUsage(usage, chunk.usage_metadata);
		if (isJsonObject(chunk.response_metadata)) metadata = { ...metadata, ...chunk.response_metadata };
		if (isJsonObject(chunk.additional_kwargs) && typeof chunk.additional_kwargs.refusal === 'string') kwargs = { refusal: chunk.additional_kwargs.refusal };
	}
	const toolCalls: Json[] = [];
	const invalid: Json[] = [];
	for (const call of calls) {
		if (call.whole !== undefined) {
			toolCalls.push({ id: call.id, name: call.name, args: call.whole, type: 'tool_call' });
			continue;
		}
		const parsed = parseJsonArguments(call.args);
		if (parsed.ok && isJsonObject(parsed.value)) toolCalls.push({ id: call.id, name: call.name, args: parsed.value, type: 'tool_call' });
		else invalid.push({ id: call.id, name: call.name, args: call.args, error: parsed.ok ? 'the arguments are not a JSON object' : parsed.error, type: 'invalid_tool_call' });
	}
	return {
		role: 'assistant',
		content: text,
		tool_calls: toolCalls,
		invalid_tool_calls: invalid,
		additional_kwargs: kwargs,
		response_metadata: metadata,
		...(usage ? { usage_metadata: usage } : {}),
	};
}

/**
 * A ModelClient over a chat model object. The tools are bound once per tools array and tool choice
 * (the adapter sends the same array for a catalog on every turn); errors the model throws, mid-call
 * or mid-stream, reach the caller as they are.
 */
export function chatModelClient(model: ToolCallingChatModel): ModelClient {
	const bound = new WeakMap<object, Map<string, ChatRunnable>>();
	const runnable = (body: Json): ChatRunnable => {
		const tools = Array.isArray(body.tools) ? (body.tools as NeutralTool[]) : [];
		// Without tools there is nothing to bind (some chat models refuse an empty list).
		if (tools.length === 0) return model;
		const choice = langChainToolChoice(body.toolChoice as NeutralToolChoice | undefined);
		const settings = isJsonObject(body.settings) ? body.settings : {};
		const serial = settings.parallelToolCalls === false;
		const key = `${choice ?? ''}\u0000${serial ? 'serial' : ''}`;
		let variants = bound.get(tools);
		if (!variants) bound.set(tools, (variants = new Map()));
		let found = variants.get(key);
		if (!found) {
			const options: Json = {};
			if (choice !== undefined) options.tool_choice = choice;
			if (serial) options.parallel_tool_calls = false;
			const definitions = tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
			found = Object.keys(options).length > 0 ? model.bindTools(definitions, options) : model.bindTools(definitions);
			variants.set(key, found);
		}
		return found;
	};
	const messagesOf = (body: Json) => toLangChainMessages(Array.isArray(body.messages) ? (body.messages as unknown[]) : []);
	return {
		send: (body, signal) => {
			const target = runnable(body);
			return target.invoke(messagesOf(body), signal ? { signal } : {});
		},
		stream: async (body, onText, signal) => {
			const target = runnable(body);
			// A runnable without stream (a minimal model) still answers, in one piece.
			if (typeof target.stream !== 'function') {
				const answer = await target.invoke(messagesOf(body), signal ? { signal } : {});
				const text = isJsonObject(answer) ? messageText(answer.content) : '';
				if (text) onText(text);
				return answer;
			}
			return chatModelAnswerFromChunks(await target.stream(messagesOf(body), signal ? { signal } : {}), onText);
		},
		// The sub-node chooses the model; the Agent lists none.
		listModels: () => Promise.resolve([]),
	};
}

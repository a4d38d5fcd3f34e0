import type { CatalogTool, ModelTurn, StopKind, ToolOutcome } from './modelTypes';
import type { ProviderAdapter } from './types';
import { cachedToolList, checkHistory, forcedToolName, numberOr0, parseJsonArguments, toolMessagesWithImages, systemWithStructuredOutput } from './shared';
import { isJsonObject } from '../util/jsonObject';

/**
 * An n8n Chat Model sub-node (a LangChain chat model object n8n hands over), read by duck typing:
 * nothing here imports LangChain. The transcript is a neutral, plain-JSON message list, so a paused
 * run stores it and resumes on any worker with whichever chat model the sub-node then gives:
 *
 * - `{ role: 'system' | 'user', content }`: content a string, or (images of tool results) blocks
 *   `{ type: 'text', text }` / `{ type: 'image', mimeType, data }`;
 * - `{ role: 'assistant', content: string, tool_calls?: [{ id, name, args }] }` (args an object);
 * - `{ role: 'tool', tool_call_id, content: string }`.
 *
 * chatModelClient.ts turns these into the role/content messages LangChain accepts.
 */

export interface NeutralToolCall {
	id: string;
	name: string;
	args: Record<string, unknown>;
}

/** A tool as offered to the chat model's `bindTools`: name, description, JSON Schema parameters. */
export interface NeutralTool {
	name: string;
	description: string;
	parameters: Record<string, unknown>;
}

export type NeutralToolChoice = 'auto' | 'required' | 'none' | { name: string };

/**
 * Stop and finish reasons as LangChain's chat models report them in `response_metadata`, lowercased:
 * OpenAI's finish_reason, Anthropic's and Bedrock's stop_reason / stopReason, Gemini's finishReason,
 * Ollama's done_reason.
 */
const STOPS: Record<string, StopKind> = {
	stop: 'end_turn',
	end_turn: 'end_turn',
	tool_calls: 'tool_use',
	function_call: 'tool_use',
	tool_use: 'tool_use',
	length: 'max_tokens',
	max_tokens: 'max_tokens',
	stop_sequence: 'stop_sequence',
	pause_turn: 'pause_turn',
	refusal: 'refusal',
	content_filter: 'refusal',
	safety: 'refusal',
	recitation: 'refusal',
	prohibited_content: 'refusal',
	blocklist: 'refusal',
	model_context_window_exceeded: 'context_exceeded',
};

const STOP_KEYS = ['finish_reason', 'stop_reason', 'stopReason', 'finishReason', 'done_reason'] as const;

function stopOf(metadata: Record<string, unknown>): StopKind {
	for (const key of STOP_KEYS) {
		const value = metadata[key];
		if (typeof value === 'string' && value) return STOPS[value.toLowerCase()] ?? 'other';
	}
	return 'other';
}

/** The text of an AIMessage's content: a string, or the `text` parts of a content block array (thinking, tool_use and other blocks left out). */
export function messageText(content: unknown): string {
	if (typeof content === 'string') return content;
	if (!Array.isArray(content)) return '';
	let text = '';
	for (let i = 0; i < content.length; i++) {
		const part = content[i] as unknown;
		if (typeof part === 'string') text += part;
		else if (isJsonObject(part) && (part.type === 'text' || part.type === 'text_delta') && typeof part.text === 'string') text += part.text;
	}
	return text;
}

function chatModelTools(tools: CatalogTool[]): NeutralTool[] {
	return tools.map((tool) => ({ name: tool.providerName, description: tool.description ?? tool.title ?? '', parameters: tool.inputSchema }));
}

interface ParsedCall {
	id: string;
	name: string;
	/** As the model sent them: an object, or text that was not JSON (refused by the loop). */
	raw: unknown;
}

/**
 * The calls of an answer. LangChain's own `tool_calls` (arguments parsed) and `invalid_tool_calls`
 * (arguments it could not parse, kept as text) first; only when both are empty the OpenAI-shaped
 * `additional_kwargs.tool_calls` (JSON-string arguments), which an OpenAI model also fills beside
 * `tool_calls` (read both, every call would come twice).
 */
function callsOf(message: Record<string, unknown>): ParsedCall[] {
	const valid = Array.isArray(message.tool_calls) ? (message.tool_calls as unknown[]).filter(isJsonObject) : [];
	const invalid = Array.isArray(message.invalid_tool_calls) ? (message.invalid_tool_calls as unknown[]).filter(isJsonObject) : [];
	const calls: ParsedCall[] = [];
	if (valid.length > 0 || invalid.length > 0) {
		for (let i = 0; i < valid.length; i++) calls.push({ id: idOf(valid[i].id), name: String(valid[i].name ?? ''), raw: valid[i].args });
		// Text that LangChain could not parse; a missing one is "" (no arguments), as with the other adapters.
		for (let i = 0; i < invalid.length; i++) calls.push({ id: idOf(invalid[i].id), name: String(invalid[i].name ?? ''), raw: invalid[i].args ?? '' });
	} else {
		const kwargs = isJsonObject(message.additional_kwargs) ? message.additional_kwargs : {};
		const openAi = Array.isArray(kwargs.tool_calls) ? (kwargs.tool_calls as unknown[]).filter(isJsonObject) : [];
		for (let i = 0; i < openAi.length; i++) {
			const call = openAi[i];
			if (call.type !== undefined && call.type !== 'function') continue;
			const fn = isJsonObject(call.function) ? call.function : {};
			calls.push({ id: idOf(call.id), name: String(fn.name ?? ''), raw: fn.arguments ?? '' });
		}
	}
	// As withCallIds (shared.ts): a model that leaves ids out (some local ones do) gets `call_<n>` by
	// position; ids it gave are kept as they are, and the loop refuses calls of one turn that share one.
	for (let i = 0; i < calls.length; i++) if (calls[i].id === '') calls[i].id = `call_${i + 1}`;
	return calls;
}

function idOf(value: unknown): string {
	return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/**
 * Usage from `usage_metadata` (LangChain's input_tokens include cache reads and writes; here they
 * are split out as the other adapters do). A model that fills only `response_metadata` (older or
 * third-party chat model classes) is read from what its API sent there: LangChain's older
 * `tokenUsage`, the API's own `usage` (Anthropic's input/output tokens, OpenAI's prompt/completion
 * tokens, Bedrock's inputTokens/outputTokens), or Ollama's prompt_eval_count / eval_count.
 */
function usageOf(message: Record<string, unknown>, metadata: Record<string, unknown>): ModelTurn['usage'] {
	if (isJsonObject(message.usage_metadata)) {
		const usage = message.usage_metadata;
		const details = isJsonObject(usage.input_token_details) ? usage.input_token_details : {};
		const cacheRead = numberOr0(details.cache_read);
		const cacheWrite = numberOr0(details.cache_creation);
		return {
			inputTokens: Math.max(0, numberOr0(usage.input_tokens) - cacheRead - cacheWrite),
			outputTokens: numberOr0(usage.output_tokens),
			cacheReadTokens: cacheRead,
			cacheWriteTokens: cacheWrite,
		};
	}
	const counts = (input: unknown, output: unknown, cacheRead: unknown = 0, cacheWrite: unknown = 0): ModelTurn['usage'] => ({
		inputTokens: numberOr0(input),
		outputTokens: numberOr0(output),
		cacheReadTokens: numberOr0(cacheRead),
		cacheWriteTokens: numberOr0(cacheWrite),
	});
	if (isJsonObject(metadata.tokenUsage)) return counts(metadata.tokenUsage.promptTokens, metadata.tokenUsage.completionTokens);
	if (isJsonObject(metadata.usage)) {
		const usage = metadata.usage;
		// Anthropic's input_tokens leave the cache out already; OpenAI's prompt_tokens include its cached ones.
		if (usage.input_tokens !== undefined || usage.output_tokens !== undefined) return counts(usage.input_tokens, usage.output_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens);
		if (usage.prompt_tokens !== undefined || usage.completion_tokens !== undefined) {
			const cached = numberOr0(isJsonObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details.cached_tokens : 0);
			return counts(Math.max(0, numberOr0(usage.prompt_tokens) - cached), usage.completion_tokens, cached);
		}
		return counts(usage.inputTokens, usage.outputTokens);
	}
	return counts(metadata.prompt_eval_count, metadata.eval_count);
}

/** A Chat Model sub-node of n8n, driven through LangChain's chat model interface (chatModelClient.ts). */
export const chatModel: ProviderAdapter = {
	id: 'chatModel',

	initialTranscript(userMessage, history) {
		return [...checkHistory(history), { role: 'user', content: userMessage }];
	},

	buildRequest(settings, tools, transcript) {
		const system = systemWithStructuredOutput(settings);
		const body: Record<string, unknown> = {
			// concat: one block copy of the conversation, not an element-by-element spread.
			messages: system ? ([{ role: 'system', content: system }] as unknown[]).concat(transcript) : transcript,
			// The same array for the same catalog on every turn: the client binds the tools once per array.
			tools: cachedToolList(tools, 'chatModel', chatModelTools),
			settings: {
				maxOutputTokens: settings.maxOutputTokens,
				parallelToolCalls: settings.parallelToolCalls,
				...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
			},
		};
		if (tools.length > 0) {
			const choice = settings.toolChoice;
			body.toolChoice = (choice.type === 'tool' ? { name: forcedToolName(choice.name, tools) } : choice.type) satisfies NeutralToolChoice;
		}
		return body;
	},

	parseResponse(body): ModelTurn {
		const message = isJsonObject(body) ? body : {};
		const metadata = isJsonObject(message.response_metadata) ? message.response_metadata : {};
		const kwargs = isJsonObject(message.additional_kwargs) ? message.additional_kwargs : {};
		const text = messageText(message.content);
		const calls = callsOf(message);
		const refusal = typeof kwargs.refusal === 'string' && kwargs.refusal ? kwargs.refusal : undefined;
		const assistant: Record<string, unknown> = { role: 'assistant', content: text };
		if (calls.length > 0) {
			// Arguments that were not a JSON object go back as {} (the chat models take only an object
			// there); the loop tells the model why the call did not run.
			assistant.tool_calls = calls.map((call): NeutralToolCall => ({ id: call.id, name: call.name, args: isJsonObject(call.raw) ? call.raw : argsObject(call.raw) }));
		}
		let stop = refusal ? 'refusal' : stopOf(metadata);
		// Gemini and others say "stop" beside tool calls; the loop runs calls on end_turn and other too.
		if (stop === 'end_turn' && calls.length > 0) stop = 'tool_use';
		return {
			// An empty assistant message would be refused by some APIs on the next request.
			transcriptItems: text === '' && calls.length === 0 ? [] : [assistant],
			text,
			toolCalls: calls.map((call) => ({ id: call.id, name: call.name, rawArguments: call.raw })),
			stop,
			usage: usageOf(message, metadata),
			...(refusal ? { refusal } : {}),
		};
	},

	toolResultItems(outcomes: ToolOutcome[]) {
		return toolMessagesWithImages(outcomes, (image) => ({ type: 'image', mimeType: image.mimeType, data: image.data }));
	},

	userTextItems(text) {
		return [{ role: 'user', content: text }];
	},

	parseArguments: parseJsonArguments,
};

/** Arguments text that parses to an object is replayed as that object; anything else as {}. */
function argsObject(raw: unknown): Record<string, unknown> {
	const parsed = parseJsonArguments(raw);
	return parsed.ok && isJsonObject(parsed.value) ? parsed.value : {};
}

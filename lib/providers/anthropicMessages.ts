import type { CatalogTool, ModelTurn, ProviderSearch, StopKind, ToolOutcome } from './modelTypes';
import { toAnthropicTool } from '../tools/providerFormats';
import type { NativeToolSearch, ProviderAdapter } from './types';
import { asToolDefinition, cachedToolList, checkHistory, forcedToolName, numberOr0, parseJsonArguments, systemWithStructuredOutput, withCallIds } from './shared';
import { isJsonObject } from '../util/jsonObject';

const STOPS: Record<string, StopKind> = {
	end_turn: 'end_turn',
	tool_use: 'tool_use',
	max_tokens: 'max_tokens',
	stop_sequence: 'stop_sequence',
	pause_turn: 'pause_turn',
	refusal: 'refusal',
	model_context_window_exceeded: 'context_exceeded',
};

const CACHE = { type: 'ephemeral' } as const;

/**
 * One tool_result block; is_error only when set. Text alone travels as a plain string (the API's
 * short form of one text block): the whole conversation is re-sent every turn, so the smaller form
 * saves serialization on long runs. With images: a text block, then the images.
 */
function toolResultBlock(outcome: ToolOutcome): Record<string, unknown> {
	const text = outcome.text || '(empty result)';
	const content =
		outcome.images.length === 0
			? text
			: [{ type: 'text', text }, ...outcome.images.map((image) => ({ type: 'image', source: { type: 'base64', media_type: image.mimeType, data: image.data } }))];
	return outcome.isError ? { type: 'tool_result', tool_use_id: outcome.id, content, is_error: true } : { type: 'tool_result', tool_use_id: outcome.id, content };
}

function anthropicTools(tools: CatalogTool[]): Array<Record<string, unknown>> {
	return tools.map((tool) => ({ ...toAnthropicTool(asToolDefinition(tool), tool.providerName) }) as Record<string, unknown>);
}

/** Caching the tool list and system prompt: one breakpoint after the tools, one after the system. */
function cachedAnthropicTools(tools: CatalogTool[]): Array<Record<string, unknown>> {
	const list = anthropicTools(tools);
	if (list.length > 0) list[list.length - 1] = { ...list[list.length - 1], cache_control: CACHE };
	return list;
}

/** Anthropic's server-side tool search (BM25 over the deferred tools' names, descriptions and arguments). */
export const ANTHROPIC_SEARCH_TOOL = { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' } as const;
const SEARCH_TOOL_NAMES = new Set(['tool_search_tool_bm25', 'tool_search_tool_regex']);

/**
 * The tools under Anthropic's own tool search: the loaded ones, the search tool, then the deferred
 * ones (defer_loading: kept out of the prompt until a search returns them). With caching the
 * breakpoint goes on the search tool, the last definition the prompt holds.
 */
function deferredAnthropicTools(tools: CatalogTool[], search: NativeToolSearch, caching: boolean): Array<Record<string, unknown>> {
	const loaded = anthropicTools(tools.filter((tool) => !search.deferred.has(tool)));
	const deferred = anthropicTools(tools.filter((tool) => search.deferred.has(tool))).map((tool) => ({ ...tool, defer_loading: true }));
	return [...loaded, caching ? { ...ANTHROPIC_SEARCH_TOOL, cache_control: CACHE } : { ...ANTHROPIC_SEARCH_TOOL }, ...deferred];
}

/** The turn's server-side tool searches: each server_tool_use of a search tool with its tool_search_tool_result. */
function searchesOf(content: Array<Record<string, unknown>>): ProviderSearch[] {
	const searches: ProviderSearch[] = [];
	for (const block of content) {
		if (block.type !== 'server_tool_use' || !SEARCH_TOOL_NAMES.has(String(block.name))) continue;
		const result = content.find((other) => other.type === 'tool_search_tool_result' && other.tool_use_id === block.id);
		const answer = isJsonObject(result?.content) ? result.content : {};
		const references = Array.isArray(answer.tool_references) ? answer.tool_references.filter(isJsonObject) : [];
		const found = references.map((reference) => String(reference.tool_name));
		const error = !result ? 'no_result' : answer.type === 'tool_search_tool_result_error' ? String(answer.error_code ?? 'error') : undefined;
		searches.push({ id: String(block.id), arguments: block.input, found, ...(error ? { error } : {}) });
	}
	return searches;
}

/**
 * The conversation with a moving breakpoint on its last block, so each turn reads the one before
 * from the cache (Anthropic's pattern for multi-turn caching: the marker is not part of the cached
 * prefix). The stored transcript is not touched; a text message becomes its one text block, which
 * the API treats alike.
 */
function withConversationBreakpoint(transcript: unknown[]): unknown[] {
	const last = transcript[transcript.length - 1] as { role?: unknown; content?: unknown } | undefined;
	if (!last || typeof last !== 'object') return transcript;
	const blocks = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : Array.isArray(last.content) ? last.content : undefined;
	if (!blocks || blocks.length === 0 || !isJsonObject(blocks[blocks.length - 1])) return transcript;
	const marked = [...blocks.slice(0, -1), { ...(blocks[blocks.length - 1] as Record<string, unknown>), cache_control: CACHE }];
	return [...transcript.slice(0, -1), { ...last, content: marked }];
}

/** Anthropic Messages API: tool_use blocks in, tool_result blocks (with is_error) out. */
export const anthropicMessages: ProviderAdapter = {
	id: 'anthropic',

	initialTranscript(userMessage, history) {
		// Anthropic has no system role in messages; the system prompt travels separately.
		const prior = checkHistory(history).filter((entry) => entry.role !== 'system');
		return [...prior, { role: 'user', content: userMessage }];
	},

	nativeToolSearch: { toolName: ANTHROPIC_SEARCH_TOOL.name },

	buildRequest(settings, tools, transcript, search) {
		const system = systemWithStructuredOutput(settings);
		const caching = settings.promptCaching;
		const toolDefs = search
			? cachedToolList(tools, caching ? 'anthropic+search+cache' : 'anthropic+search', (list) => deferredAnthropicTools(list, search, caching))
			: caching ? cachedToolList(tools, 'anthropic+cache', cachedAnthropicTools) : cachedToolList(tools, 'anthropic', anthropicTools);
		const choice = settings.toolChoice;
		const body: Record<string, unknown> = {
			model: settings.model,
			max_tokens: settings.maxOutputTokens,
			messages: settings.promptCaching ? withConversationBreakpoint(transcript) : transcript,
		};
		if (system) body.system = [{ type: 'text', text: system, ...(settings.promptCaching ? { cache_control: CACHE } : {}) }];
		if (toolDefs.length > 0) {
			body.tools = toolDefs;
			const disable = settings.parallelToolCalls ? {} : { disable_parallel_tool_use: true };
			body.tool_choice =
				choice.type === 'required' ? { type: 'any', ...disable }
				: choice.type === 'tool' ? { type: 'tool', name: forcedToolName(choice.name, tools), ...disable }
				: choice.type === 'none' ? { type: 'none' }
				: { type: 'auto', ...disable };
		}
		if (settings.temperature !== undefined) body.temperature = settings.temperature;
		return body;
	},

	parseResponse(body): ModelTurn {
		const response = body as { content?: Array<Record<string, unknown>>; stop_reason?: string; usage?: Record<string, unknown> };
		const content = withCallIds(Array.isArray(response.content) ? (response.content as unknown[]).filter(isJsonObject) : [], 'id', (block) => block.type === 'tool_use');
		let text = '';
		const toolCalls: ModelTurn['toolCalls'] = [];
		for (let i = 0; i < content.length; i++) {
			const block = content[i];
			if (block.type === 'text') text += String(block.text ?? '');
			else if (block.type === 'tool_use') toolCalls.push({ id: String(block.id), name: String(block.name), rawArguments: block.input });
		}
		const usage = response.usage ?? {};
		// Arguments that were not JSON (a streamed answer keeps them as text, streamedResponses.ts) go
		// back in the transcript as {}: the API takes only an object there; the loop tells the model why.
		const replayed = content.map((block) => (block.type === 'tool_use' && typeof block.input === 'string' ? { ...block, input: {} } : block));
		// Server-side searches stay in the transcript as they came (server_tool_use, tool_search_tool_result): the API needs them to know what was loaded.
		const searches = searchesOf(content);
		return {
			// An empty assistant message would be rejected on the next request.
			transcriptItems: replayed.length > 0 ? [{ role: 'assistant', content: replayed }] : [],
			text,
			toolCalls,
			stop: STOPS[response.stop_reason ?? ''] ?? 'other',
			usage: {
				inputTokens: numberOr0(usage.input_tokens),
				outputTokens: numberOr0(usage.output_tokens),
				cacheReadTokens: numberOr0(usage.cache_read_input_tokens),
				cacheWriteTokens: numberOr0(usage.cache_creation_input_tokens),
			},
			...(searches.length > 0 ? { providerSearches: searches } : {}),
		};
	},

	toolResultItems(outcomes: ToolOutcome[]) {
		return [{ role: 'user', content: outcomes.map(toolResultBlock) }];
	},

	userTextItems(text) {
		return [{ role: 'user', content: text }];
	},

	parseArguments: parseJsonArguments,
};

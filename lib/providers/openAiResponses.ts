import type { CatalogTool, ModelTurn, ProviderSearch, StopKind, ToolOutcome } from './modelTypes';
import { toOpenAiResponsesTool } from '../tools/providerFormats';
import type { NativeToolSearch, ProviderAdapter } from './types';
import { asToolDefinition, cachedToolList, checkHistory, forcedToolName, dataUrl, numberOr0, parseJsonArguments, resultText, withCallIds } from './shared';
import { isJsonObject } from '../util/jsonObject';

function openAiResponsesTools(tools: CatalogTool[]) {
	return tools.map((tool) => toOpenAiResponsesTool(asToolDefinition(tool), tool.providerName));
}

/** The hosted tool search of the Responses API (run by OpenAI over the deferred functions). */
export const RESPONSES_SEARCH_TOOL = { type: 'tool_search' } as const;

/** The tools under Responses' own tool search: the loaded functions, the search tool, then the deferred functions (defer_loading). */
function deferredResponsesTools(tools: CatalogTool[], search: NativeToolSearch): unknown[] {
	const loaded = openAiResponsesTools(tools.filter((tool) => !search.deferred.has(tool)));
	const deferred = openAiResponsesTools(tools.filter((tool) => search.deferred.has(tool))).map((tool) => ({ ...tool, defer_loading: true }));
	return [...loaded, { ...RESPONSES_SEARCH_TOOL }, ...deferred];
}

/** The names of the tools a tool_search_output loaded (functions, and functions inside namespaces). */
function loadedNames(tools: unknown): string[] {
	if (!Array.isArray(tools)) return [];
	return tools.filter(isJsonObject).flatMap((tool) => (Array.isArray(tool.tools) ? loadedNames(tool.tools) : typeof tool.name === 'string' ? [tool.name] : []));
}

/** The turn's server-side tool searches: each tool_search_call with the tool_search_output that follows it. */
function searchesOf(output: Array<Record<string, unknown>>): ProviderSearch[] {
	const searches: ProviderSearch[] = [];
	output.forEach((item, at) => {
		if (item.type !== 'tool_search_call') return;
		// Server-run searches may carry no call_id: the output is the next tool_search_output item.
		const result = output.slice(at + 1).find((other) => other.type === 'tool_search_output' && (item.call_id ? other.call_id === item.call_id : true));
		const id = String(item.call_id ?? item.id ?? `search_${searches.length + 1}`);
		const error = !result ? 'no_result' : result.status === 'incomplete' ? 'incomplete' : undefined;
		searches.push({ id, arguments: item.arguments, found: loadedNames(result?.tools), ...(error ? { error } : {}) });
	});
	return searches;
}

/**
 * OpenAI Responses API: function_call output items in, function_call_output items by call_id out.
 * Requests use store: false, so output items are replayed without their server-side ids.
 */
export const openAiResponses: ProviderAdapter = {
	id: 'openaiResponses',

	initialTranscript(userMessage, history) {
		return [...checkHistory(history), { role: 'user', content: userMessage }];
	},

	nativeToolSearch: { toolName: 'tool_search' },

	buildRequest(settings, tools, transcript, search) {
		const body: Record<string, unknown> = {
			model: settings.model,
			input: transcript,
			max_output_tokens: settings.maxOutputTokens,
			store: false,
			// Without storage, reasoning survives between tool rounds only as encrypted content.
			include: ['reasoning.encrypted_content'],
		};
		if (settings.system) body.instructions = settings.system;
		if (tools.length > 0) {
			body.tools = search ? cachedToolList(tools, 'openaiResponses+search', (list) => deferredResponsesTools(list, search)) : cachedToolList(tools, 'openaiResponses', openAiResponsesTools);
			const choice = settings.toolChoice;
			body.tool_choice = choice.type === 'tool' ? { type: 'function', name: forcedToolName(choice.name, tools) } : choice.type;
			body.parallel_tool_calls = settings.parallelToolCalls;
		}
		if (settings.temperature !== undefined) body.temperature = settings.temperature;
		if (settings.structuredOutput) {
			body.text = { format: { type: 'json_schema', name: 'answer', schema: settings.structuredOutput, strict: false } };
		}
		return body;
	},

	parseResponse(body): ModelTurn {
		const response = body as {
			output?: Array<Record<string, unknown>>;
			status?: string;
			incomplete_details?: { reason?: string } | null;
			usage?: Record<string, unknown>;
		};
		const output = withCallIds(Array.isArray(response.output) ? (response.output as unknown[]).filter(isJsonObject) : [], 'call_id', (item) => item.type === 'function_call');
		let text = '';
		let refusal: string | undefined;
		for (const item of output) {
			if (item.type !== 'message' || !Array.isArray(item.content)) continue;
			for (const part of (item.content as unknown[]).filter(isJsonObject)) {
				if (part.type === 'output_text') text += String(part.text ?? '');
				if (part.type === 'refusal') refusal = String(part.refusal ?? '');
			}
		}
		const toolCalls = output
			.filter((item) => item.type === 'function_call')
			.map((item) => ({ id: String(item.call_id), name: String(item.name), rawArguments: item.arguments }));
		const reason = response.incomplete_details?.reason;
		const stop: StopKind = refusal
			? 'refusal'
			: response.status === 'incomplete'
				? reason === 'max_output_tokens' ? 'max_tokens' : reason === 'content_filter' ? 'refusal' : 'other'
				: toolCalls.length > 0 ? 'tool_use' : 'end_turn';
		const usage = response.usage ?? {};
		const cached = numberOr0((usage.input_tokens_details as Record<string, unknown> | undefined)?.cached_tokens);
		// Reasoning items without encrypted content cannot be replayed when nothing is stored server-side.
		const replayable = output
			.filter((item) => item.type !== 'reasoning' || typeof item.encrypted_content === 'string')
			.map(({ id: _id, ...rest }) => rest);
		// tool_search_call and tool_search_output items are replayed too: they tell the API which deferred functions were loaded.
		const searches = searchesOf(output);
		return {
			transcriptItems: replayable,
			text,
			toolCalls,
			stop,
			usage: {
				inputTokens: Math.max(0, numberOr0(usage.input_tokens) - cached),
				outputTokens: numberOr0(usage.output_tokens),
				cacheReadTokens: cached,
				cacheWriteTokens: 0,
			},
			...(refusal ? { refusal } : {}),
			...(searches.length > 0 ? { providerSearches: searches } : {}),
		};
	},

	toolResultItems(outcomes: ToolOutcome[]) {
		return outcomes.map((outcome) => ({
			type: 'function_call_output',
			call_id: outcome.id,
			output:
				outcome.images.length === 0
					? resultText(outcome)
					: [{ type: 'input_text', text: resultText(outcome) }, ...outcome.images.map((image) => ({ type: 'input_image', image_url: dataUrl(image) }))],
		}));
	},

	userTextItems(text) {
		return [{ role: 'user', content: text }];
	},

	parseArguments: parseJsonArguments,
};

import type { CatalogTool, ModelTurn, StopKind, ToolOutcome } from './modelTypes';
import { toOpenAiChatTool } from '../tools/providerFormats';
import type { ProviderAdapter } from './types';
import { asToolDefinition, cachedToolList, checkHistory, forcedToolName, dataUrl, numberOr0, parseJsonArguments, toolMessagesWithImages, withCallIds } from './shared';
import { isJsonObject } from '../util/jsonObject';

const STOPS: Record<string, StopKind> = {
	stop: 'end_turn',
	tool_calls: 'tool_use',
	function_call: 'tool_use',
	length: 'max_tokens',
	content_filter: 'refusal',
};

function openAiChatTools(tools: CatalogTool[]) {
	return tools.map((tool) => toOpenAiChatTool(asToolDefinition(tool), tool.providerName));
}

/** OpenAI Chat Completions (and compatible servers): tool_calls with JSON-string arguments, role "tool" results. */
export const openAiChat: ProviderAdapter = {
	id: 'openaiChat',

	initialTranscript(userMessage, history) {
		return [...checkHistory(history), { role: 'user', content: userMessage }];
	},

	buildRequest(settings, tools, transcript) {
		const body: Record<string, unknown> = {
			model: settings.model,
			// concat: one block copy of the conversation, not an element-by-element spread.
			messages: settings.system ? ([{ role: 'system', content: settings.system }] as unknown[]).concat(transcript) : transcript,
			max_completion_tokens: settings.maxOutputTokens,
		};
		if (tools.length > 0) {
			body.tools = cachedToolList(tools, 'openaiChat', openAiChatTools);
			const choice = settings.toolChoice;
			body.tool_choice = choice.type === 'tool' ? { type: 'function', function: { name: forcedToolName(choice.name, tools) } } : choice.type;
			body.parallel_tool_calls = settings.parallelToolCalls;
		}
		if (settings.temperature !== undefined) body.temperature = settings.temperature;
		if (settings.structuredOutput) {
			body.response_format = { type: 'json_schema', json_schema: { name: 'answer', schema: settings.structuredOutput, strict: false } };
		}
		return body;
	},

	parseResponse(body): ModelTurn {
		const response = body as { choices?: Array<{ message?: Record<string, unknown>; finish_reason?: string }>; usage?: Record<string, unknown> };
		const choice = response.choices?.[0] ?? {};
		const message = choice.message ?? {};
		const rawCalls = withCallIds(Array.isArray(message.tool_calls) ? (message.tool_calls as unknown[]).filter(isJsonObject) : [], 'id', () => true);
		const toolCalls = rawCalls
			.filter((call) => call.type === undefined || call.type === 'function')
			.map((call) => {
				const fn = (call.function ?? {}) as { name?: string; arguments?: unknown };
				return { id: String(call.id), name: String(fn.name), rawArguments: fn.arguments };
			});
		const refusal = typeof message.refusal === 'string' && message.refusal ? message.refusal : undefined;
		const usage = response.usage ?? {};
		const cached = numberOr0((usage.prompt_tokens_details as Record<string, unknown> | undefined)?.cached_tokens);
		const assistant: Record<string, unknown> = { role: 'assistant', content: typeof message.content === 'string' ? message.content : null };
		if (rawCalls.length > 0) assistant.tool_calls = rawCalls;
		if (refusal) assistant.refusal = refusal;
		return {
			transcriptItems: assistant.content === null && rawCalls.length === 0 && !refusal ? [] : [assistant],
			text: typeof message.content === 'string' ? message.content : '',
			toolCalls,
			stop: refusal ? 'refusal' : STOPS[choice.finish_reason ?? ''] ?? 'other',
			usage: {
				inputTokens: Math.max(0, numberOr0(usage.prompt_tokens) - cached),
				outputTokens: numberOr0(usage.completion_tokens),
				cacheReadTokens: cached,
				cacheWriteTokens: 0,
			},
			...(refusal ? { refusal } : {}),
		};
	},

	toolResultItems(outcomes: ToolOutcome[]) {
		return toolMessagesWithImages(outcomes, (image) => ({ type: 'image_url', image_url: { url: dataUrl(image) } }));
	},

	userTextItems(text) {
		return [{ role: 'user', content: text }];
	},

	parseArguments: parseJsonArguments,
};

import type { ModelTurn } from '../../lib/providers/modelTypes';

/** A model turn in the Anthropic transcript shape that asks for these tool calls (step-function tests). */
export function toolUseTurn(calls: Array<{ id: string; name: string; args: unknown }>, text = '', usage = { inputTokens: 1, outputTokens: 1 }): ModelTurn {
	return {
		transcriptItems: [{ role: 'assistant', content: calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args })) }],
		text,
		toolCalls: calls.map((c) => ({ id: c.id, name: c.name, rawArguments: c.args })),
		stop: 'tool_use',
		usage: { ...usage, cacheReadTokens: 0, cacheWriteTokens: 0 },
	};
}

import { buildCatalog } from '../../lib/agent/catalog';
import { createRun } from '../../lib/agent/step';
import type { AgentState, PlannedCall } from '../../lib/agent/types';
import type { ModelClient } from '../../lib/providers/types';

/**
 * A one-tool run for the standing-approval tests: the payments server's send_money, every call
 * reviewed by the default policy, a scripted Anthropic-shaped model and a tool runner that succeeds.
 */
export const PAYMENT_TOOLS = buildCatalog([
	{
		id: 's1',
		name: 'payments',
		trustAnnotations: false,
		tools: [{ name: 'send_money', inputSchema: { type: 'object', properties: { amount: { type: 'number' }, to: { type: 'string' } } } }],
	},
]).tools;

/** Each turn: the send_money calls the model asks for (with these arguments); after the last, it answers "done". */
export function paymentModel(...turns: Array<Array<Record<string, unknown>>>): ModelClient {
	let index = 0;
	return {
		listModels: async () => [],
		send: async () => {
			const calls = turns[index++];
			const usage = { input_tokens: 1, output_tokens: 1 };
			if (!calls) return { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn', usage };
			return { content: calls.map((input, i) => ({ type: 'tool_use', id: `t${index}_${i}`, name: 'send_money', input })), stop_reason: 'tool_use', usage };
		},
	};
}

export function paymentRun(): AgentState {
	return createRun({
		provider: 'anthropic',
		settings: {
			model: 'm',
			maxIterations: 5,
			maxOutputTokens: 100,
			tokenBudget: 0,
			toolChoice: { type: 'auto' },
			parallelToolCalls: true,
			promptCaching: false,
			maxToolResultChars: 1000,
			approval: { mode: 'all', listed: [], alwaysAsk: [], neverAsk: [] },
		},
		tools: PAYMENT_TOOLS,
		userMessage: 'pay',
	});
}

/** Every call ran and says so. */
export const ranAll = (calls: PlannedCall[]) => ({
	outcomes: calls.map((call) => ({ id: call.id, isError: false, text: `ran ${JSON.stringify(call.arguments)}`, images: [] })),
	durations: {},
});

import { forcedToolName } from '../../lib/providers/shared';
import { runAgent } from '../../lib/agent/runAgent';
import { createRun } from '../../lib/agent/step';
import type { CatalogTool } from '../../lib/providers/modelTypes';

const tool = (providerName: string, mcpName: string, serverName: string): CatalogTool => ({
	providerName, mcpName, serverId: serverName, serverName, inputSchema: { type: 'object' }, annotationsTrusted: false, fingerprint: 'f',
});

describe('forced tool choice', () => {
	const tools = [tool('alpha__echo', 'echo', 'alpha'), tool('beta__echo', 'echo', 'beta'), tool('files_write_1a2b3c4d', 'files.write', 'fs')];

	it('maps MCP names and server:tool to the provider name the model sees', () => {
		expect(forcedToolName('alpha__echo', tools)).toBe('alpha__echo');
		expect(forcedToolName('beta:echo', tools)).toBe('beta__echo');
		expect(forcedToolName('files.write', tools)).toBe('files_write_1a2b3c4d');
		// Ambiguous without a server: left as typed, so the provider reports it.
		expect(forcedToolName('echo', tools)).toBe('echo');
	});

	it('applies only until a tool has run, so the model can answer afterwards', async () => {
		const sent: Array<Record<string, unknown>> = [];
		const replies = [
			{ content: [{ type: 'tool_use', id: 't1', name: 'alpha__echo', input: {} }], stop_reason: 'tool_use', usage: {} },
			{ content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn', usage: {} },
		];
		const state = createRun({
			provider: 'anthropic',
			settings: { model: 'm', maxIterations: 5, maxOutputTokens: 10, tokenBudget: 0, toolChoice: { type: 'required' }, parallelToolCalls: true, promptCaching: false, maxToolResultChars: 100 },
			tools,
			userMessage: 'go',
		});
		const final = await runAgent(state, {
			model: { send: async (body) => (sent.push(body), replies[sent.length - 1]), listModels: async () => [] },
			runTools: async (calls) => ({ outcomes: calls.map((c) => ({ id: c.id, isError: false, text: 'ok', images: [] })), durations: {} }),
		});
		expect(sent.map((b) => (b.tool_choice as { type: string }).type)).toEqual(['any', 'auto']);
		expect(final.phase).toMatchObject({ name: 'finished', status: 'completed', text: 'done' });
	});
});

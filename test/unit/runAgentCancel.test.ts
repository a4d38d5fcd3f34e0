import { runAgent, RunCancelled, runStateAtFailure } from '../../lib/agent/runAgent';
import { createRun } from '../../lib/agent/step';
import type { CatalogTool } from '../../lib/providers/modelTypes';

/** lib/agent/runAgent.ts with n8n's execution cancel signal (the editor's Stop). */
const echo: CatalogTool = { providerName: 'echo', mcpName: 'echo', serverId: 's', serverName: 's', inputSchema: { type: 'object' }, annotationsTrusted: true, annotations: { readOnlyHint: true }, fingerprint: 'f' };
const run = () =>
	createRun({
		provider: 'anthropic',
		settings: { model: 'm', maxIterations: 5, maxOutputTokens: 10, tokenBudget: 0, toolChoice: { type: 'auto' }, parallelToolCalls: true, promptCaching: false, maxToolResultChars: 100 },
		tools: [echo],
		userMessage: 'go',
	});
const callEcho = { content: [{ type: 'tool_use', id: 't1', name: 'echo', input: {} }], stop_reason: 'tool_use', usage: {} };

describe('a run whose execution is cancelled', () => {
	it('hands the model call the signal, starts no step after it fires, and keeps what ran', async () => {
		const cancel = new AbortController();
		const signals: Array<AbortSignal | undefined> = [];
		const toolCalls: string[] = [];
		const error = await runAgent(run(), {
			model: { send: async (_body, signal) => (signals.push(signal), callEcho), listModels: async () => [] },
			runTools: async (calls) => {
				toolCalls.push(...calls.map((c) => c.id));
				// Stop pressed while the tool runs: it finishes, and no model call follows.
				cancel.abort();
				return { outcomes: calls.map((c) => ({ id: c.id, isError: false, text: 'ok', images: [] })), durations: {} };
			},
			signal: cancel.signal,
		}).catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(RunCancelled);
		expect(signals).toEqual([cancel.signal]);
		expect(toolCalls).toEqual(['t1']);
		expect(runStateAtFailure(error)?.toolLog.map((entry) => entry.id)).toEqual(['t1']);
	});

	it('a model call aborted by the signal ends the run as cancelled, not as a provider failure', async () => {
		const cancel = new AbortController();
		const error = await runAgent(run(), {
			model: {
				send: (_body, signal) =>
					new Promise((_, reject) => {
						signal?.addEventListener('abort', () => reject(new Error('Request was aborted.')));
						cancel.abort();
					}),
				listModels: async () => [],
			},
			runTools: async () => ({ outcomes: [], durations: {} }),
			signal: cancel.signal,
		}).catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(RunCancelled);
	});
});

/**
 * A reviewer's reason goes back to the model as the denied call's result and into the stored
 * state: it is capped at the run's Max Tool Result Characters like any tool result (review.ts had
 * its own uncapped copy of errorOutcome before issue 16).
 */
import { buildCatalog } from '../../lib/agent/catalog';
import { createRun, step } from '../../lib/agent/step';
import { hashArguments } from '../../lib/approvals/argumentHash';

const catalog = buildCatalog([
	{ id: 's', name: 's', trustAnnotations: true, tools: [{ name: 'wipe', inputSchema: { type: 'object' }, annotations: { destructiveHint: true } }] },
]).tools;

function pausedForReview(maxToolResultChars: number) {
	let state = createRun({
		provider: 'anthropic',
		settings: {
			model: 'm',
			maxIterations: 5,
			maxOutputTokens: 100,
			tokenBudget: 0,
			toolChoice: { type: 'auto' },
			parallelToolCalls: true,
			promptCaching: false,
			maxToolResultChars,
			approval: { mode: 'all', listed: [], alwaysAsk: [], neverAsk: [] },
		},
		tools: catalog,
		userMessage: 'wipe it',
	});
	state = step(state, {
		type: 'model_turn',
		turn: {
			transcriptItems: [{ role: 'assistant', content: [] }],
			text: '',
			toolCalls: [{ id: 'c1', name: 'wipe', rawArguments: {} }],
			stop: 'tool_use',
			usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
		},
	});
	return step(state, { type: 'approval_opened', approval: { id: 'a1', requestedAt: '2026-01-01T00:00:00.000Z', expiresAt: '2099-01-01T00:00:00.000Z' } });
}

test("a denied call's result carries the reviewer's reason, capped at the run's limit", () => {
	const reason = 'no. '.repeat(500);
	const decided = step(pausedForReview(300), {
		type: 'approval_decided',
		approvalId: 'a1',
		decidedAt: '2026-01-01T00:01:00.000Z',
		decisions: [{ callId: 'c1', argsHash: hashArguments({}), decision: 'deny', reason }],
	});
	const denied = JSON.stringify(decided.transcript);
	expect(denied).toContain('A person reviewing this call denied it, so it was not run. Reason: no. no.');
	expect(denied).toContain('[truncated: showing 300 of');
	expect(denied).not.toContain(reason);
});

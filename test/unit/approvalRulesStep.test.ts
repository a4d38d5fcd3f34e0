/**
 * Approval rules inside the run (issue 28): what the step function does with each verdict, and a
 * reviewer's edit judged again.
 */
import { buildCatalog } from '../../lib/agent/catalog';
import { createRun, nextEffect, step } from '../../lib/agent/step';
import { boundArgsHash } from '../../lib/agent/review';
import type { ApprovalPolicy, ApprovalRule } from '../../lib/agent/policy';
import type { AgentState, PlannedCall, RunToolsPhase } from '../../lib/agent/types';

const TOOLS = buildCatalog([
	{
		id: 's1',
		name: 'payments',
		trustAnnotations: false,
		tools: [{ name: 'send_money', inputSchema: { type: 'object', properties: { amount: { type: 'number' }, to: { type: 'string' } }, required: ['amount', 'to'] } }],
	},
]).tools;

const RULES: ApprovalRule[] = [
	{ label: 'small payments', tools: ['payments/send_money'], effect: 'run', when: { properties: { amount: { maximum: 20 } } } },
	{ label: 'large payments', tools: ['payments/send_money'], effect: 'ask', decisions: ['approve', 'deny'], when: { properties: { amount: { exclusiveMinimum: 100 } } } },
	{ label: 'blocked recipients', tools: ['payments/send_money'], effect: 'refuse', reason: 'That recipient is blocked.', when: { properties: { to: { const: 'mallory' } } } },
];
const POLICY: ApprovalPolicy = { mode: 'all', listed: [], alwaysAsk: [], neverAsk: [], rules: RULES };

function afterTurn(...calls: Array<Record<string, unknown>>): AgentState {
	const state = createRun({
		provider: 'anthropic',
		settings: { model: 'm', maxIterations: 5, maxOutputTokens: 100, tokenBudget: 0, toolChoice: { type: 'auto' }, parallelToolCalls: true, promptCaching: false, maxToolResultChars: 1000, approval: POLICY },
		tools: TOOLS,
		userMessage: 'pay',
	});
	const toolCalls = calls.map((args, index) => ({ id: `c${index + 1}`, name: 'send_money', rawArguments: args }));
	return step(state, { type: 'model_turn', turn: { transcriptItems: [], text: '', toolCalls, stop: 'tool_use', usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } } });
}

const phase = (state: AgentState) => state.phase as RunToolsPhase;
const call = (state: AgentState, id: string) => phase(state).calls.find((c) => c.id === id) as PlannedCall;

function opened(state: AgentState): AgentState {
	return step(state, { type: 'approval_opened', approval: { id: 'ap1', requestedAt: '2026-01-01T00:00:00Z', expiresAt: '2026-01-02T00:00:00Z' } });
}

describe('the verdict of each call', () => {
	const state = afterTurn({ amount: 10, to: 'bob' }, { amount: 500, to: 'bob' }, { amount: 50, to: 'bob' }, { amount: 10, to: 'mallory' });

	test('a run rule lets the call run without review and is recorded', () => {
		expect(call(state, 'c1')).toMatchObject({ allowedBy: { rule: 1, label: 'small payments' } });
		expect(call(state, 'c1').review).toBeUndefined();
	});

	test('an ask rule asks, names itself, and offers only its decisions', () => {
		expect(call(state, 'c2').review).toMatchObject({ status: 'pending', askedBy: { rule: 2, label: 'large payments' }, decisions: ['approve', 'deny'] });
	});

	test('no rule: the node policy asks (Require Approval For: all) with every decision', () => {
		expect(call(state, 'c3').review).toEqual({ status: 'pending', argsHash: expect.any(String), warnings: [], rounds: 0 });
	});

	test('a refuse rule: the call never runs and the model is told the reason', () => {
		expect(call(state, 'c4')).toMatchObject({ refusedBy: { rule: 3, label: 'blocked recipients' }, rejection: 'That recipient is blocked. (The tool was not called: the approval rule "blocked recipients" refuses this call.)' });
		expect(call(state, 'c4').review).toBeUndefined();
		const effect = nextEffect(state);
		expect(effect).toEqual({ type: 'run_tools', calls: [expect.objectContaining({ id: 'c1' })] });
	});
});

describe("a reviewer's decision is held to the rule", () => {
	test('a decision the rule does not offer is rejected whole', () => {
		const state = opened(afterTurn({ amount: 500, to: 'bob' }));
		const argsHash = boundArgsHash(call(state, 'c1'));
		expect(() => step(state, { type: 'approval_decided', approvalId: 'ap1', decisions: [{ callId: 'c1', argsHash, decision: 'edit', arguments: { amount: 5, to: 'bob' } }], decidedAt: '2026-01-01T01:00:00Z' })).toThrow(
			/"edit" is not a decision the reviewer may take for call c1 \(its approval rule offers approve, deny\)/,
		);
		expect(step(state, { type: 'approval_decided', approvalId: 'ap1', decisions: [{ callId: 'c1', argsHash, decision: 'approve' }], decidedAt: '2026-01-01T01:00:00Z' }).phase.name).toBe('run_tools');
	});

	test('an edit that a refuse rule refuses is not run; the model and the log say so', () => {
		const state = opened(afterTurn({ amount: 50, to: 'bob' }));
		const argsHash = boundArgsHash(call(state, 'c1'));
		const decided = step(state, { type: 'approval_decided', approvalId: 'ap1', decisions: [{ callId: 'c1', argsHash, decision: 'edit', arguments: { amount: 50, to: 'mallory' } }], reviewer: 'ann', decidedAt: '2026-01-01T01:00:00Z' });
		expect(decided.phase.name).toBe('call_model');
		expect(decided.toolLog[0]).toMatchObject({ id: 'c1', isError: true, review: { decision: 'denied', reviewer: 'ann', reason: 'edited call refused by the approval rule "blocked recipients"' } });
		expect(decided.toolLog[0].resultSummary).toMatch(/edited its arguments, but the edited call is refused: That recipient is blocked\./);
	});

	test('an edit within the rules runs as the person edited it', () => {
		const state = opened(afterTurn({ amount: 50, to: 'bob' }));
		const argsHash = boundArgsHash(call(state, 'c1'));
		const decided = step(state, { type: 'approval_decided', approvalId: 'ap1', decisions: [{ callId: 'c1', argsHash, decision: 'edit', arguments: { amount: 40, to: 'bob' } }], reviewer: 'ann', decidedAt: '2026-01-01T01:00:00Z' });
		expect(nextEffect(decided)).toEqual({ type: 'run_tools', calls: [expect.objectContaining({ id: 'c1', arguments: { amount: 40, to: 'bob' }, review: expect.objectContaining({ status: 'edited' }) })] });
	});
});

describe('who approved what: the tool log', () => {
	test('each call says what let it through, or which rule refused it', () => {
		let state = opened(afterTurn({ amount: 10, to: 'bob' }, { amount: 500, to: 'bob' }, { amount: 50, to: 'bob' }, { amount: 10, to: 'mallory' }));
		state = step(state, { type: 'tool_outcomes', outcomes: [{ id: 'c1', isError: false, text: 'paid', images: [] }] });
		const phaseNow = phase(state);
		const decisions = ['c2', 'c3'].map((id) => ({ callId: id, argsHash: boundArgsHash(phaseNow.calls.find((c) => c.id === id)!), decision: id === 'c2' ? ('approve' as const) : ('deny' as const) }));
		state = step(state, { type: 'approval_decided', approvalId: 'ap1', decisions, reviewer: 'ann', decidedAt: '2026-01-01T01:00:00Z' });
		state = step(state, { type: 'tool_outcomes', outcomes: [{ id: 'c2', isError: false, text: 'paid', images: [] }] });
		const byId = Object.fromEntries(state.toolLog.map((entry) => [entry.id, { allowedBy: entry.allowedBy, refusedBy: entry.refusedBy }]));
		expect(byId).toEqual({
			c1: { allowedBy: { by: 'rule', rule: 1, label: 'small payments' }, refusedBy: undefined },
			c2: { allowedBy: { by: 'person', reviewer: 'ann', decidedAt: '2026-01-01T01:00:00Z' }, refusedBy: undefined },
			c3: { allowedBy: undefined, refusedBy: undefined },
			c4: { allowedBy: undefined, refusedBy: { rule: 3, label: 'blocked recipients' } },
		});
	});
});

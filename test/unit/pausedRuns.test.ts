/**
 * The paused-run store in the Agent's node context (issue 10, point 10): each distinct tool catalog
 * once, not once per paused item; stores written by the previous release still resume.
 */
import { createRun, step } from '../../lib/agent/step';
import type { AgentState } from '../../lib/agent/types';
import type { CatalogTool } from '../../lib/providers/modelTypes';
import { hashArguments } from '../../lib/agent/argumentHash';
import { APPROVAL_DECISION_KIND } from '../../lib/approvals/approvalRequest';
import { openStore, peekPausedRun, reissuePausedRun, restorePausedRun, savePausedRun, takePausedRun } from '../../lib/approvals/pausedRuns';
import { actionForItem } from '../../lib/approvals/resumeInput';
import { NOTICE_DECISION_WITHOUT_PROOF } from '../../lib/approvals/decisionItemRoute';
import { decisionKeyFor } from '../../lib/approvals/decisionProof';
import { reviewLink, reviewTokenInUrl } from '../../lib/approvals/reviewToken';
import { signedDecision, TOKEN } from '../support/approvalFixtures';

const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
/** A large catalog: 300 tools with long descriptions, as a big server has. */
const catalog: CatalogTool[] = Array.from({ length: 300 }, (_, i) => ({
	providerName: `tool_${i}`,
	mcpName: `tool_${i}`,
	serverId: 's',
	serverName: 'big',
	description: `Tool number ${i}. ${'Long description. '.repeat(20)}`,
	inputSchema: schema,
	annotationsTrusted: false,
	fingerprint: `sha256:${i}`,
}));

function paused(approvalId: string, tools = catalog): AgentState {
	let state = createRun({
		provider: 'openaiChat',
		settings: { model: 'm', maxIterations: 10, maxOutputTokens: 100, tokenBudget: 0, toolChoice: { type: 'auto' }, parallelToolCalls: true, promptCaching: false, maxToolResultChars: 1000, approval: { mode: 'all', listed: [], alwaysAsk: [], neverAsk: [] } },
		tools,
		userMessage: `request ${approvalId}`,
	});
	state = step(state, {
		type: 'model_turn',
		turn: { transcriptItems: [{ role: 'assistant', content: null, tool_calls: [] }], text: '', toolCalls: [{ id: 'c1', name: 'tool_1', rawArguments: '{"path":"x"}' }], stop: 'tool_use', usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } },
	});
	return step(state, { type: 'approval_opened', approval: { id: approvalId, requestedAt: '2026-01-01T00:00:00.000Z', expiresAt: '2099-01-01T00:00:00.000Z' } });
}

const decision = (approvalId: string) => ({
	kind: APPROVAL_DECISION_KIND,
	approvalId,
	reviewer: 'Ana',
	decidedAt: '2026-01-01T01:00:00.000Z',
	decisions: [{ callId: 'c1', argsHash: hashArguments({ path: 'x' }), decision: 'approve' }],
});

describe('paused-run store', () => {
	it('keeps one copy of a catalog shared by many paused runs, and loading restores each full state', () => {
		const context: Record<string, unknown> = {};
		const store = openStore(context);
		const states = Array.from({ length: 20 }, (_, i) => paused(`ap${i}`));
		states.forEach((state, i) => savePausedRun(store, `ap${i}`, state, 't'));
		// What n8n persists: the context as JSON.
		const persisted = JSON.stringify(context);
		expect(Object.keys(store.catalogs ?? {})).toHaveLength(1);
		expect(persisted.length).toBeLessThan(2 * JSON.stringify(catalog).length);
		expect(Object.values(store.runs).every((entry) => !('tools' in entry.state))).toBe(true);

		const reloaded = openStore(JSON.parse(persisted) as Record<string, unknown>);
		const taken = takePausedRun(reloaded, 'ap7');
		expect(taken).toMatchObject({ kind: 'run' });
		expect(taken.kind === 'run' && taken.state).toEqual(states[7]);
		// The shared catalog stays while other runs use it, and goes with the last one.
		for (let i = 0; i < 20; i++) if (i !== 7) takePausedRun(reloaded, `ap${i}`);
		expect(reloaded.catalogs).toEqual({});
	});

	it('keeps distinct catalogs apart', () => {
		const store = openStore({});
		savePausedRun(store, 'a', paused('a'), 't');
		const other = catalog.slice(0, 10);
		savePausedRun(store, 'b', paused('b', other), 't');
		expect(Object.keys(store.catalogs ?? {})).toHaveLength(2);
		expect(peekPausedRun(store, 'b')?.state.tools).toEqual(other);
		expect(peekPausedRun(store, 'a')?.state.tools).toEqual(catalog);
	});

	it('resumes a paused run saved by the previous release (the catalog inside the state)', () => {
		// Saved by the previous release: its pending call's hash covers the arguments only.
	const legacyState = JSON.parse(JSON.stringify(paused('old'))) as AgentState & { userMessage?: string };
	const legacyPhase = legacyState.phase as Extract<AgentState['phase'], { name: 'run_tools' }>;
	legacyPhase.calls = legacyPhase.calls.map((call) => (call.review ? { ...call, review: { ...call.review, argsHash: hashArguments(call.arguments) } } : call));
		delete legacyState.userMessage;
		const context: Record<string, unknown> = { mcpAgent: { runs: { old: { state: legacyState, pausedAt: 't' } }, decided: [], lastOrder: ['old'] } };
		const store = openStore(context);
		expect(peekPausedRun(store, 'old')?.state.tools).toHaveLength(300);
		// It holds no decision key: a decision item cannot prove itself, so the request goes out again
		// (with a new link and key), and a decision on that one resumes the run.
		const fromApproval = { store, catalog, now: new Date('2026-01-01T01:00:01.000Z'), fromApprovalNode: true };
		expect(actionForItem(signedDecision(decision('old')), fromApproval)).toMatchObject({ kind: 'pending', approvalId: 'old', notice: NOTICE_DECISION_WITHOUT_PROOF });
		const link = reviewLink('http://n8n.test/webhook-waiting/1');
		reissuePausedRun(store, 'old', link.reviewTokenHash, undefined, link.decisionKey);
		const token = reviewTokenInUrl(link.reviewUrl) as string;
		const action = actionForItem(signedDecision(decision('old'), token), fromApproval);
		expect(action.kind).toBe('continue');
		expect(action.kind === 'continue' && action.state.phase.name === 'run_tools' && action.state.phase.calls[0].review?.status).toBe('approved');
		expect(actionForItem(decision('old'), { store, catalog, now: new Date() })).toEqual({ kind: 'replayed' });
	});

	it('a run whose catalog is missing (a damaged store) is not resumed', () => {
		const store = openStore({});
		savePausedRun(store, 'a', paused('a'), 't');
		store.catalogs = {};
		expect(takePausedRun(store, 'a')).toEqual({ kind: 'unknown' });
		expect(() => actionForItem(decision('a'), { store, catalog, now: new Date() })).toThrow(/No paused run is waiting for approval a/);
	});

	it('a rejected decision puts the run back, with its review-secret hash', () => {
		const store = openStore({});
		savePausedRun(store, 'a', paused('a'), 't', 'f'.repeat(64), undefined, decisionKeyFor(TOKEN));
		expect(() => actionForItem(signedDecision({ ...decision('a'), decisions: [] }), { store, catalog, now: new Date('2026-01-01T01:00:01.000Z'), fromApprovalNode: true })).toThrow(/Decision rejected/);
		expect(peekPausedRun(store, 'a')).toMatchObject({ pausedAt: 't', reviewTokenHash: 'f'.repeat(64), decisionKey: decisionKeyFor(TOKEN) });
		const taken = takePausedRun(store, 'a');
		if (taken.kind === 'run') restorePausedRun(store, 'a', taken);
		expect(store.decided).toEqual([]);
	});

	it('stores the hash of the review secret, never the secret', () => {
		const context: Record<string, unknown> = {};
		const store = openStore(context);
		const link = reviewLink('http://n8n/webhook-waiting/9');
		savePausedRun(store, 'a', paused('a'), 't', link.reviewTokenHash);
		const token = reviewTokenInUrl(link.reviewUrl) ?? '';
		expect(token).not.toBe('');
		expect(JSON.stringify(context)).not.toContain(token);
		expect(JSON.stringify(context)).toContain(link.reviewTokenHash);
	});
});

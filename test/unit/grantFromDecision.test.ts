/**
 * Where a standing approval comes from (issue 28.3): a person's "allow similar calls" on the review
 * page goes into MCP Approval's signed decision, and the Agent stores the grant when it applies
 * that decision, from its own state. So the grant's scope is the Agent's own (workflow, node) even
 * when the request item on the way says otherwise; its tool, definition fingerprint and arguments
 * are the run's; and a choice that does not hold for the run's call, or comes with anything but an
 * approval, is refused with the decision.
 */
import { PAYMENT_TOOLS, paymentModel, paymentRun, ranAll } from '../support/paymentsRun';
import { nextEffect, step } from '../../lib/agent/step';
import { runAgent } from '../../lib/agent/runAgent';
import { hashArguments } from '../../lib/agent/argumentHash';
import { awaitingPerson } from '../../lib/agent/review';
import type { Grant, GrantStore } from '../../lib/agent/grants';
import type { AgentState, PlannedCall, ReviewDecision } from '../../lib/agent/types';
import { buildApprovalRequest, type ApprovalDecisionItem } from '../../lib/approvals/approvalRequest';
import { handleReviewWebhook } from '../../lib/approvals/reviewWebhook';
import { grantFieldName } from '../../lib/approvals/grantChoice';
import { fieldName } from '../../lib/approvals/reviewPage';
import { decisionKeyFor, decisionProofMatches } from '../../lib/approvals/decisionProof';
import { hashReviewToken } from '../../lib/approvals/reviewToken';
import { browserPost, TOKEN } from '../support/approvalFixtures';

const TOOLS = PAYMENT_TOOLS;
const SCOPE = { workflowId: 'wf-1', nodeId: 'agent-node' };
const NOW = Date.parse('2030-01-01T01:00:00Z');
const ARGS = { amount: 15, to: 'bob' };

const model = paymentModel;

function store(): GrantStore & { rows: Grant[] } {
	const rows: Grant[] = [];
	return {
		rows,
		insert: async (grant) => void (rows.some((row) => row.id === grant.id) || rows.push(grant)),
		revoke: async () => true,
		listActive: async () => rows.map((row) => ({ ...row })),
		listAll: async () => rows,
		markUsed: async () => undefined,
	};
}

const ran = ranAll;

const newRun = paymentRun;

/** A run paused on one call, its approval open, and the request item as the Agent builds it (origin given). */
async function paused(grants: GrantStore, origin: Record<string, string>) {
	const waiting = await runAgent(newRun(), { model: model([ARGS]), runTools: async (calls) => ran(calls), grants: { store: grants, scope: SCOPE, now: () => NOW } });
	expect(nextEffect(waiting).type).toBe('request_approval');
	const approval = { id: 'ap1', requestedAt: new Date(NOW).toISOString(), expiresAt: new Date(NOW + 86_400_000).toISOString() };
	const state = step(waiting, { type: 'approval_opened', approval });
	if (state.phase.name !== 'run_tools') throw new Error('not waiting');
	const request = buildApprovalRequest(state, approval, awaitingPerson(state.phase), { reviewTokenHash: hashReviewToken(TOKEN), origin });
	return { state, request };
}

/** The review page's GET, then a person's form post (as a browser sends it). */
async function decideOnPage(grants: GrantStore, request: unknown, set: (f: (kind: 'grant' | 'grantScope' | 'grantSame' | 'grantMax', index?: number) => string) => Record<string, string>) {
	const callId = (request as { calls: Array<{ callId: string }> }).calls[0].callId;
	const f = (kind: 'grant' | 'grantScope' | 'grantSame' | 'grantMax', index?: number) => grantFieldName(kind, 'ap1', callId, index);
	const hook = (method: string, body: unknown) => handleReviewWebhook({ method, headers: {}, query: { reviewToken: TOKEN }, body, pending: [request], requireSignIn: false, allowedReviewers: [], workflowId: 'wf-1', now: new Date(NOW), grantStore: grants });
	const page = await hook('GET', undefined);
	const answer = await hook('POST', browserPost(page.html, { [fieldName('decision', 'ap1', callId)]: 'approve', reviewer: 'Ana', ...set(f) }));
	expect(answer.status).toBe(200);
	return { answer, item: answer.decisions![0] as ApprovalDecisionItem };
}

const decided = (state: AgentState, item: ApprovalDecisionItem) =>
	step(state, { type: 'approval_decided', approvalId: item.approvalId, decisions: item.decisions as ReviewDecision[], reviewer: item.reviewer, decidedAt: item.decidedAt, receivedAt: item.decidedAt });

test('the page signs the choice into the decision and stores nothing; the Agent stores the grant in its own scope as it continues', async () => {
	const grants = store();
	const { state, request } = await paused(grants, { workflow: 'Pay', node: 'MCP Agent', nodeId: 'agent-node' });
	const { answer, item } = await decideOnPage(grants, request, (f) => ({ [f('grant')]: '1d', [f('grantScope')]: 'fields', [f('grantSame', 1)]: '1', [f('grantMax', 0)]: '1' }));
	expect(grants.rows).toEqual([]);
	expect(item.decisions[0].allowSimilar).toEqual({ duration: '1d', constraint: { kind: 'fields', fields: [{ path: ['amount'], atMost: 15, atLeast: 0 }, { path: ['to'], equals: 'bob' }] } });
	// The proof covers the choice: nothing between MCP Approval and the Agent can change it.
	expect(decisionProofMatches(item as never, decisionKeyFor(TOKEN))).toBe(true);
	expect(decisionProofMatches({ ...item, decisions: [{ ...item.decisions[0], allowSimilar: { ...item.decisions[0].allowSimilar!, duration: '30d' } }] } as never, decisionKeyFor(TOKEN))).toBe(false);
	expect(answer.html).toContain('Similar calls allowed: send_money on payments with amount between 0 and 15 and to is &quot;bob&quot;, for 1 day');

	const runTools = jest.fn(async (calls: PlannedCall[]) => ran(calls));
	const done = await runAgent(decided(state, item), { model: model(), runTools, grants: { store: grants, scope: SCOPE, now: () => NOW + 5 } });
	expect(runTools).toHaveBeenCalledTimes(1);
	expect(grants.rows).toEqual([
		expect.objectContaining({ workflowId: 'wf-1', nodeId: 'agent-node', server: 'payments', tool: 'send_money', fingerprint: TOOLS[0].fingerprint, grantedBy: 'Ana', approvalId: 'ap1', grantedAt: NOW + 5, expiresAt: NOW + 5 + 86_400_000 }),
	]);
	expect(done.toolLog[0].review).toMatchObject({ decision: 'approved', reviewer: 'Ana', standingApproval: { grant: grants.rows[0].id, expiresAt: new Date(NOW + 5 + 86_400_000).toISOString() } });

	// The next similar call of a new run goes through on the grant; a larger amount is asked.
	const next = await runAgent(newRun(), { model: model([{ amount: 9, to: 'bob' }]), runTools, grants: { store: grants, scope: SCOPE, now: () => NOW + 10 } });
	expect(next.toolLog[0].allowedBy).toMatchObject({ by: 'grant', grant: grants.rows[0].id, grantedBy: 'Ana' });
	const larger = await runAgent(newRun(), { model: model([{ amount: 16, to: 'bob' }]), runTools, grants: { store: grants, scope: SCOPE, now: () => NOW + 10 } });
	expect(nextEffect(larger).type).toBe('request_approval');
});

test('a request item whose origin names another Agent node cannot point the grant there: the Agent uses its own scope', async () => {
	const grants = store();
	const { state, request } = await paused(grants, { workflow: 'Pay', node: 'MCP Agent', nodeId: 'another-agent' });
	const { item } = await decideOnPage(grants, request, (f) => ({ [f('grant')]: '1h' }));
	await runAgent(decided(state, item), { model: model(), runTools: async (calls) => ran(calls), grants: { store: grants, scope: SCOPE, now: () => NOW } });
	expect(grants.rows.map((row) => [row.workflowId, row.nodeId, row.constraint])).toEqual([['wf-1', 'agent-node', { kind: 'exact', argumentsHash: hashArguments(ARGS) }]]);
});

test('a resume applied twice stores one grant (deterministic id; the store keeps the first)', async () => {
	const grants = store();
	const { state, request } = await paused(grants, { nodeId: 'agent-node' });
	const { item } = await decideOnPage(grants, request, (f) => ({ [f('grant')]: '1h' }));
	const once = decided(state, item);
	await runAgent(once, { model: model(), runTools: async (calls) => ran(calls), grants: { store: grants, scope: SCOPE, now: () => NOW } });
	await runAgent(once, { model: model(), runTools: async (calls) => ran(calls), grants: { store: grants, scope: SCOPE, now: () => NOW + 1 } });
	expect(grants.rows).toHaveLength(1);
});

test('a grant that cannot be stored: the approval stands for this call, the tool log says why', async () => {
	const grants = { ...store(), insert: async () => Promise.reject(new Error('disk full')) };
	const { state, request } = await paused(grants, { nodeId: 'agent-node' });
	const { item } = await decideOnPage(grants, request, (f) => ({ [f('grant')]: '1h' }));
	const runTools = jest.fn(async (calls: PlannedCall[]) => ran(calls));
	const done = await runAgent(decided(state, item), { model: model(), runTools, grants: { store: grants, scope: SCOPE, now: () => NOW } });
	expect(runTools).toHaveBeenCalledTimes(1);
	expect(done.toolLog[0].review?.standingApproval).toEqual({ notSaved: 'the grant store failed (disk full)' });
	// Without a store at all (an unsaved workflow): the same, with the reason.
	const bare = await runAgent(decided(state, item), { model: model(), runTools });
	expect(bare.toolLog[0].review?.standingApproval).toEqual({ notSaved: expect.stringContaining('standing approvals are not available here') });
});

test('the Agent refuses a choice that could not stand, with the whole decision: with deny, on other arguments, in another form', async () => {
	const grants = store();
	const { state } = await paused(grants, { nodeId: 'agent-node' });
	if (state.phase.name !== 'run_tools') throw new Error('not waiting');
	const call = state.phase.calls[0];
	const base = { callId: call.id, argsHash: call.review!.argsHash };
	const exact = { kind: 'exact', argumentsHash: hashArguments(ARGS) } as const;
	const cases: Array<[Record<string, unknown>, RegExp]> = [
		[{ decision: 'deny', allowSimilar: { duration: '1h', constraint: exact } }, /only an approval can allow similar calls/],
		[{ decision: 'approve', allowSimilar: { duration: '1h', constraint: { kind: 'exact', argumentsHash: hashArguments({ amount: 1, to: 'eve' }) } } }, /does not hold for this call/],
		[{ decision: 'approve', allowSimilar: { duration: '1h', constraint: { kind: 'fields', fields: [{ path: ['amount'], atMost: 10 }] } } }, /does not hold for this call/],
		[{ decision: 'approve', allowSimilar: { duration: '1y', constraint: exact } }, /unknown duration "1y"/],
		[{ decision: 'approve', allowSimilar: { duration: '1h', constraint: exact, nodeId: 'elsewhere' } }, /not in the expected form/],
		[{ decision: 'approve', allowSimilar: { duration: '1h', constraint: { kind: 'fields', fields: [{ path: ['__proto__'], equals: 1 }] } } }, /cannot be used/],
	];
	for (const [decision, problem] of cases) {
		expect(() => step(state, { type: 'approval_decided', approvalId: 'ap1', decisions: [{ ...base, ...decision } as ReviewDecision], reviewer: 'Ana', decidedAt: new Date(NOW).toISOString() })).toThrow(problem);
	}
	expect(grants.rows).toEqual([]);
});

test('a call a rule makes a person decide every time (approve not offered) cannot carry a choice', async () => {
	const grants = store();
	const { state } = await paused(grants, { nodeId: 'agent-node' });
	if (state.phase.name !== 'run_tools') throw new Error('not waiting');
	const call = state.phase.calls[0];
	const unpinned = { ...state, phase: { ...state.phase, calls: [{ ...call, review: { ...call.review!, askedBy: 'unpinned definition' as const } }] } };
	expect(() =>
		step(unpinned, { type: 'approval_decided', approvalId: 'ap1', decisions: [{ callId: call.id, argsHash: call.review!.argsHash, decision: 'approve', allowSimilar: { duration: '1h', constraint: { kind: 'exact', argumentsHash: hashArguments(ARGS) } } }], reviewer: 'Ana', decidedAt: new Date(NOW).toISOString() }),
	).toThrow(/needs a person for every call/);
});

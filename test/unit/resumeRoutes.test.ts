/**
 * Every route an Agent input item may take (resumeInput.ts), as a table: each row is an item, the
 * paused runs and where the item came from, and what the Agent does with it (a new run, a replay,
 * the continued run, or the request handed out again with a notice), or why it refuses. The table
 * is keyed by route: a new route does not compile until it has rows here.
 */
import { boundArgsHash } from '../../lib/agent/review';
import { awaitingPerson, createRun, step } from '../../lib/agent/step';
import type { AgentState, RunToolsPhase } from '../../lib/agent/types';
import type { CatalogTool } from '../../lib/providers/modelTypes';
import { APPROVAL_DECISION_KIND, APPROVAL_REQUEST_KIND } from '../../lib/approvals/approvalRequest';
import { NOTICE_INPUT_ON_PAGE, NOTICE_NO_DECISION, NOTICE_NOT_FROM_SEND_AND_WAIT, NOTICE_SIGN_IN_REQUIRED, NOTICE_WEBHOOK_WITHOUT_SECRET } from '../../lib/approvals/channelAnswerRoute';
import { NOTICE_DECISION_NOT_FROM_APPROVAL, NOTICE_DECISION_WITHOUT_PROOF } from '../../lib/approvals/decisionItemRoute';
import { decisionKeyFor } from '../../lib/approvals/decisionProof';
import { openStore, savePausedRun, type PausedRunStore } from '../../lib/approvals/pausedRuns';
import type { InputProvenance, ResumeContext } from '../../lib/approvals/resumeContext';
import { actionForItem, routeOf, type ResumeRoute } from '../../lib/approvals/resumeInput';
import { NOTICE_STILL_OPEN } from '../../lib/approvals/returnedRequestRoute';
import { NOTICE_OTHER_EXECUTION, ResumeRefused } from '../../lib/approvals/resumeRun';
import { hashReviewToken } from '../../lib/approvals/reviewToken';
import { signedDecision } from '../support/approvalFixtures';

const SECRET = 'per-approval-secret-0123456789';
const NOW = new Date('2026-01-01T06:00:00.000Z');
const OPEN = '2026-01-02T00:00:00.000Z';
const EXPIRED = '2026-01-01T05:00:00.000Z';

const tools: CatalogTool[] = [
	{ providerName: 'delete_file', mcpName: 'delete_file', serverId: 'fs', serverName: 'fs', inputSchema: { type: 'object' }, annotationsTrusted: false, fingerprint: 'sha256:aaa' },
	{ providerName: 'book_trip', mcpName: 'book_trip', serverId: 'fs', serverName: 'fs', inputSchema: { type: 'object' }, annotationsTrusted: true, annotations: { readOnlyHint: true }, fingerprint: 'sha256:bbb' },
];

/** A run paused for one call: a review of delete_file, or (`input`) a server's input request during book_trip. */
function paused(approvalId: string, expiresAt: string, waitsFor: 'review' | 'input' = 'review'): AgentState {
	const name = waitsFor === 'review' ? 'delete_file' : 'book_trip';
	let state = createRun({
		provider: 'anthropic',
		settings: { model: 'm', maxIterations: 5, maxOutputTokens: 10, tokenBudget: 0, toolChoice: { type: 'auto' }, parallelToolCalls: true, promptCaching: false, maxToolResultChars: 1000, approval: { mode: 'notReadOnly', listed: [], alwaysAsk: [], neverAsk: [] } },
		tools,
		userMessage: 'go',
	});
	state = step(state, { type: 'model_turn', turn: { transcriptItems: [{ role: 'assistant', content: 'x' }], text: '', toolCalls: [{ id: 'c1', name, rawArguments: { path: '/x' } }], stop: 'tool_use', usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } } });
	if (waitsFor === 'input') {
		const request = { method: 'elicitation/create', params: { message: 'Seat?', requestedSchema: { type: 'object', properties: { seat: { type: 'string' } } } } };
		state = step(state, { type: 'tool_outcomes', outcomes: [], inputRequired: [{ id: 'c1', inputRequests: { seat: request } as never }] });
	}
	return step(state, { type: 'approval_opened', approval: { id: approvalId, requestedAt: '2026-01-01T00:00:00.000Z', expiresAt } });
}

/** The paused runs of a row: each open (or expired) approval, its secret, and the execution that handed it out. */
interface Paused {
	id: string;
	expiresAt?: string;
	waitsFor?: 'review' | 'input';
	executionId?: string;
}

function storeOf(runs: Paused[], decided: string[] = []): PausedRunStore {
	const store = openStore({});
	for (const run of runs) savePausedRun(store, run.id, paused(run.id, run.expiresAt ?? OPEN, run.waitsFor), '2026-01-01T00:00:00.000Z', hashReviewToken(SECRET), run.executionId, decisionKeyFor(SECRET));
	store.lastOrder = runs.map((run) => run.id);
	store.decided = decided;
	return store;
}

const AP1: Paused[] = [{ id: 'ap1' }];
const TWO: Paused[] = [{ id: 'ap1' }, { id: 'ap2' }];

/** MCP Approval's decision for ap1's call, signed under `secret` (its proof). */
function decisionItem(approve: boolean, secret = SECRET, callId?: string): Record<string, unknown> {
	const call = awaitingPerson(paused('ap1', OPEN).phase as RunToolsPhase)[0];
	const item = { kind: APPROVAL_DECISION_KIND, approvalId: 'ap1', reviewer: 'Ana', decidedAt: NOW.toISOString(), decisions: [{ callId: callId ?? call.id, argsHash: boundArgsHash(call), decision: approve ? 'approve' : 'deny' }] };
	return signedDecision(item, secret);
}

const request = { kind: APPROVAL_REQUEST_KIND, approvalId: 'ap1', expiresAt: OPEN, reviewUrl: 'http://n8n/webhook-waiting/1' };
const waitPost = (body: Record<string, unknown>, query: Record<string, unknown> = {}) => ({ headers: {}, params: {}, query, body });

/** Straight from the node each route expects, as n8n records the input's source. */
const FROM_APPROVAL: InputProvenance = { fromApprovalNode: true };
const FROM_SEND_AND_WAIT: InputProvenance = { fromSendAndWait: true };

interface Row {
	row: string;
	item: Record<string, unknown>;
	runs: Paused[];
	decided?: string[];
	context?: Partial<ResumeContext>;
	/**
	 * What the Agent does: the action's kind; when pending, its notice; when continued, what became
	 * of the call (approved, denied, expired); or the refusal's message.
	 */
	then: { kind: 'start' | 'replayed' } | { kind: 'pending'; notice: string | RegExp } | { kind: 'continue'; call: string } | { refused: RegExp };
}

const TABLE: Record<ResumeRoute['kind'], Row[]> = {
	'decision-item': [
		{ row: 'signed, straight from MCP Approval', item: decisionItem(true), runs: AP1, context: FROM_APPROVAL, then: { kind: 'continue', call: 'approved' } },
		{ row: 'signed, from another node', item: decisionItem(true), runs: AP1, then: { kind: 'pending', notice: NOTICE_DECISION_NOT_FROM_APPROVAL } },
		{ row: 'signed under another secret', item: decisionItem(true, 'attacker-chosen-secret-0123456'), runs: AP1, context: FROM_APPROVAL, then: { kind: 'pending', notice: NOTICE_DECISION_WITHOUT_PROOF } },
		{ row: 'from another node, after the expiry: denied as expired', item: decisionItem(true), runs: [{ id: 'ap1', expiresAt: EXPIRED }], then: { kind: 'continue', call: 'expired' } },
		{ row: 'in a Retry copy of the execution that asked', item: decisionItem(true), runs: [{ id: 'ap1', executionId: '10' }], context: { ...FROM_APPROVAL, executionId: '11' }, then: { kind: 'pending', notice: NOTICE_OTHER_EXECUTION } },
		{ row: 'continued already in another copy of the execution', item: decisionItem(true), runs: AP1, context: { ...FROM_APPROVAL, claimResume: () => false }, then: { kind: 'replayed' } },
		{ row: 'for an approval decided already', item: decisionItem(true), runs: [], decided: ['ap1'], context: FROM_APPROVAL, then: { kind: 'replayed' } },
		{ row: 'for an approval never paused here', item: decisionItem(true), runs: [], context: FROM_APPROVAL, then: { refused: /No paused run is waiting for approval ap1/ } },
		{ row: 'naming a call the run does not have', item: decisionItem(true, SECRET, 'c9'), runs: AP1, context: FROM_APPROVAL, then: { refused: /^Decision rejected/ } },
	],
	'returned-request': [
		{ row: 'before its expiry (another approval ended the wait)', item: request, runs: TWO, then: { kind: 'pending', notice: NOTICE_STILL_OPEN } },
		{ row: 'after its expiry: denied as expired', item: request, runs: [{ id: 'ap1', expiresAt: EXPIRED }], then: { kind: 'continue', call: 'expired' } },
		{ row: 'for an approval decided already', item: request, runs: [], decided: ['ap1'], then: { kind: 'replayed' } },
		{ row: 'for an approval never paused here', item: request, runs: [], then: { refused: /No paused run is waiting for approval ap1/ } },
	],
	'channel-decision': [
		{ row: 'send-and-wait approve, the one approval pending', item: { data: { approved: true } }, runs: AP1, context: FROM_SEND_AND_WAIT, then: { kind: 'continue', call: 'approved' } },
		{ row: 'send-and-wait deny while a server waits for input', item: { data: { approved: false } }, runs: [{ id: 'ap1', waitsFor: 'input' }], context: FROM_SEND_AND_WAIT, then: { kind: 'continue', call: 'denied' } },
		{ row: 'send-and-wait approve while a server waits for input', item: { data: { approved: true } }, runs: [{ id: 'ap1', waitsFor: 'input' }], context: FROM_SEND_AND_WAIT, then: { kind: 'pending', notice: NOTICE_INPUT_ON_PAGE } },
		{ row: 'a code that is not the pending call\'s', item: { data: { approved: true, code: 'deadbeef' } }, runs: AP1, context: FROM_SEND_AND_WAIT, then: { kind: 'pending', notice: /named code\(s\) deadbeef/ } },
		{ row: 'Wait node POST with the review secret', item: waitPost({ approved: true }, { reviewToken: SECRET }), runs: AP1, then: { kind: 'continue', call: 'approved' } },
		{ row: 'Wait node POST without the review secret', item: waitPost({ approved: true }), runs: AP1, then: { kind: 'pending', notice: NOTICE_WEBHOOK_WITHOUT_SECRET } },
		{ row: 'Wait node POST with the secret, MCP Approval requires n8n sign-in', item: waitPost({ approved: true, reviewToken: SECRET }), runs: AP1, context: { approvalSignIn: true }, then: { kind: 'pending', notice: NOTICE_SIGN_IN_REQUIRED } },
		{ row: 'data.approved from another node', item: { data: { approved: true } }, runs: AP1, then: { kind: 'pending', notice: NOTICE_NOT_FROM_SEND_AND_WAIT } },
		{ row: 'data.approved from another node, with the review secret', item: { data: { approved: true, reviewToken: SECRET } }, runs: AP1, then: { kind: 'continue', call: 'approved' } },
		{ row: 'in a Retry copy of the execution that asked', item: { data: { approved: true } }, runs: [{ id: 'ap1', executionId: '10' }], context: { ...FROM_SEND_AND_WAIT, executionId: '11' }, then: { kind: 'pending', notice: NOTICE_OTHER_EXECUTION } },
		{ row: 'two pending, nothing says which', item: { data: { approved: true } }, runs: TWO, context: FROM_SEND_AND_WAIT, then: { refused: /not clear which pending approval/ } },
		{ row: 'naming an approval never paused here', item: waitPost({ approved: true, approvalId: 'apX', reviewToken: SECRET }), runs: AP1, then: { refused: /No paused run is waiting for approval apX/ } },
	],
	'channel-no-decision': [
		{ row: 'a bare GET of the Wait node URL (a link preview)', item: waitPost({}, { approved: 'true' }), runs: AP1, then: { kind: 'pending', notice: NOTICE_NO_DECISION } },
		{ row: 'a send-and-wait answer without approved, after the expiry', item: { data: { text: 'hi' } }, runs: [{ id: 'ap1', expiresAt: EXPIRED }], context: FROM_SEND_AND_WAIT, then: { kind: 'continue', call: 'expired' } },
		{ row: 'two pending, nothing says which: a new run', item: { data: { text: 'hi' } }, runs: TWO, context: FROM_SEND_AND_WAIT, then: { kind: 'start' } },
		{ row: 'naming an approval never paused here: a new run', item: waitPost({ approvalId: 'apX' }), runs: AP1, then: { kind: 'start' } },
	],
	'new-run': [
		{ row: 'a chat message', item: { chatInput: 'hello' }, runs: AP1, context: FROM_SEND_AND_WAIT, then: { kind: 'start' } },
		{ row: 'data.approved in an execution that never paused', item: { data: { approved: true } }, runs: [], context: FROM_SEND_AND_WAIT, then: { kind: 'start' } },
		{ row: 'a Webhook trigger\'s body with approved, nothing paused', item: waitPost({ approved: true }), runs: [], then: { kind: 'start' } },
		{ row: 'data.approved from another node, no run waiting (only decided ones)', item: { data: { approved: true } }, runs: [], decided: ['ap0'], then: { kind: 'start' } },
		{ row: 'data without a decision from another node while a run waits', item: { data: { text: 'hi' } }, runs: AP1, then: { kind: 'start' } },
	],
};

/** What became of the run's call: its review (or, for a call waiting only for input, its input) status. */
function callOutcome(state: AgentState): string | undefined {
	if (state.phase.name === 'run_tools') return state.phase.calls[0].review?.status ?? state.phase.calls[0].input?.status;
	return state.toolLog[0]?.review?.decision ?? state.toolLog[0]?.input?.status;
}

const rows = Object.entries(TABLE).flatMap(([route, list]) => list.map((row) => [route, row.row, row] as const));

describe('resume routes', () => {
	it('every route has rows', () => {
		for (const list of Object.values(TABLE)) expect(list.length).toBeGreaterThan(0);
	});

	it.each(rows)('%s: %s', (route, _name, row) => {
		const context: ResumeContext = { store: storeOf(row.runs, row.decided), catalog: tools, now: NOW, ...row.context };
		expect(routeOf(row.item, context).kind).toBe(route);
		if ('refused' in row.then) {
			const refused = row.then.refused;
			expect(() => actionForItem(row.item, context)).toThrow(ResumeRefused);
			expect(() => actionForItem(row.item, { ...context, store: storeOf(row.runs, row.decided) })).toThrow(refused);
			return;
		}
		const action = actionForItem(row.item, context);
		expect(action.kind).toBe(row.then.kind);
		if (action.kind === 'pending' && row.then.kind === 'pending') expect(action.notice).toMatch(row.then.notice);
		if (action.kind === 'continue' && row.then.kind === 'continue') expect(callOutcome(action.state)).toBe(row.then.call);
	});
});

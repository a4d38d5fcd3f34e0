/**
 * Input a server asks a person for during a tool call (MCP 2026-07-28 input_required), in the pure
 * step function: ask -> pause -> answer -> retry -> result, more rounds, decline, cancel, deny,
 * expiry, review and input on one call, forged and replayed answers, and the store round trip.
 */
import { createRun, nextEffect, step } from '../../lib/agent/step';
import { MAX_INPUT_ROUNDS } from '../../lib/agent/callInput';
import type { AgentState, PlannedCall, ReviewDecision, ToolInputNeeded } from '../../lib/agent/types';
import type { CatalogTool, ModelTurn } from '../../lib/providers/modelTypes';
import { hashArguments } from '../../lib/agent/argumentHash';
import { boundArgsHash } from '../../lib/agent/review';
import { openStore, savePausedRun, takePausedRun } from '../../lib/approvals/pausedRuns';
import { toolUseTurn } from '../support/modelTurns';

const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false };
const tools: CatalogTool[] = [
	{ providerName: 'book', mcpName: 'book', serverId: 'srv', serverName: 'travel', description: 'Books a trip', inputSchema: schema, annotationsTrusted: true, annotations: { readOnlyHint: true }, fingerprint: 'sha256:aaa' },
	{ providerName: 'delete_file', mcpName: 'delete_file', serverId: 'srv', serverName: 'travel', description: 'Deletes', inputSchema: schema, annotationsTrusted: false, fingerprint: 'sha256:bbb' },
];

const FORM = {
	method: 'elicitation/create',
	params: {
		message: 'Which seat do you want?',
		requestedSchema: {
			type: 'object',
			properties: { seat: { type: 'string', enum: ['window', 'aisle'] }, count: { type: 'integer', minimum: 1, maximum: 4 } },
			required: ['seat'],
		},
	},
};
const URL_REQUEST = { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in to pay', url: 'https://pay.example.com/x', elicitationId: 'e1' } };

const turn = (calls: Array<{ id: string; name: string; args: unknown }>): ModelTurn => toolUseTurn(calls, 'Booking.');

function started(calls = [{ id: 'c1', name: 'book', args: { path: 'LIS' } }]): AgentState {
	const state = createRun({
		provider: 'anthropic',
		settings: {
			model: 'm', maxIterations: 10, maxOutputTokens: 100, tokenBudget: 0, toolChoice: { type: 'auto' }, parallelToolCalls: true,
			promptCaching: false, maxToolResultChars: 1000, approval: { mode: 'notReadOnly', listed: [], alwaysAsk: [], neverAsk: [] },
		},
		tools,
		userMessage: 'book me a trip',
	});
	return step(state, { type: 'model_turn', turn: turn(calls) });
}

const needed = (id: string, inputRequests: Record<string, unknown> = { seat: FORM }, requestState = 'state-1'): ToolInputNeeded =>
	({ id, inputRequests, requestState }) as ToolInputNeeded;

function phase(state: AgentState) {
	if (state.phase.name !== 'run_tools') throw new Error(`phase ${state.phase.name}`);
	return state.phase;
}
const callOf = (state: AgentState, id: string) => phase(state).calls.find((c) => c.id === id) as PlannedCall;
const open = (state: AgentState, id = 'ap1', expiresAt = '2030-01-01T00:00:00.000Z') => step(state, { type: 'approval_opened', approval: { id, requestedAt: '2029-12-31T00:00:00.000Z', expiresAt } });
const lastResults = (state: AgentState) => (state.transcript[state.transcript.length - 1] as { content: Array<Record<string, unknown>> }).content;

/** The answer a person gives to the pending input of call `id`. */
function answer(state: AgentState, id: string, inputResponses: ReviewDecision['inputResponses'], extra: Partial<ReviewDecision> = {}): ReviewDecision {
	const call = callOf(state, id);
	return { callId: id, argsHash: boundArgsHash(call), inputHash: call.input?.inputHash, inputResponses, ...extra };
}

function pausedForInput(): AgentState {
	let state = started();
	expect(nextEffect(state)).toMatchObject({ type: 'run_tools', calls: [{ id: 'c1' }] });
	state = step(state, { type: 'tool_outcomes', outcomes: [], durations: { c1: 5 }, inputRequired: [needed('c1')] });
	return open(state);
}

describe('input requests in the step function', () => {
	it('asks -> pauses -> an answer makes the call runnable again with the answers -> the result goes to the model', () => {
		const state = pausedForInput();
		const effect = nextEffect(state);
		expect(effect).toMatchObject({ type: 'request_approval', approval: { id: 'ap1' }, calls: [{ id: 'c1', input: { status: 'pending', round: 1, requestState: 'state-1' } }] });
		expect(callOf(state, 'c1').input?.inputRequests).toEqual({ seat: FORM });
		// Plain JSON all the way: the paused state survives serialization unchanged.
		expect(JSON.parse(JSON.stringify(state))).toEqual(state);

		const decided = step(state, { type: 'approval_decided', approvalId: 'ap1', decisions: [answer(state, 'c1', { seat: { action: 'accept', content: { seat: 'window', count: 2 } } })], reviewer: 'Ana', decidedAt: '2029-12-31T01:00:00.000Z' });
		const retry = nextEffect(decided);
		expect(retry).toMatchObject({ type: 'run_tools', calls: [{ id: 'c1', input: { status: 'answered', requestState: 'state-1', responses: { seat: { action: 'accept', content: { seat: 'window', count: 2 } } } } }] });

		const done = step(decided, { type: 'tool_outcomes', outcomes: [{ id: 'c1', isError: false, text: 'Booked seat 12A', images: [] }] });
		expect(nextEffect(done)).toEqual({ type: 'call_model' });
		const results = lastResults(done);
		expect(String(results[0].content)).toContain('Booked seat 12A');
		expect(String(results[0].content)).toContain('asked a person for input; they answered (accept)');
		expect(done.toolLog[0]).toMatchObject({ id: 'c1', input: { status: 'answered', rounds: 1, actions: { seat: 'accept' }, reviewer: 'Ana' } });
		// The values the person typed are for the server; the log does not repeat them.
		expect(JSON.stringify(done.toolLog)).not.toContain('window');
	});

	it('pauses again on a second round (with the new request state), and stops a server that keeps asking', () => {
		let state = pausedForInput();
		state = step(state, { type: 'approval_decided', approvalId: 'ap1', decisions: [answer(state, 'c1', { seat: { action: 'accept', content: { seat: 'aisle' } } })], decidedAt: '2029-12-31T01:00:00.000Z' });
		state = step(state, { type: 'tool_outcomes', outcomes: [], inputRequired: [needed('c1', { pay: URL_REQUEST }, 'state-2')] });
		expect(nextEffect(state)).toMatchObject({ type: 'request_approval', calls: [{ id: 'c1', input: { status: 'pending', round: 2, requestState: 'state-2', inputRequests: { pay: URL_REQUEST } } }] });
		// The new round's answers are not those of the first.
		expect(callOf(state, 'c1').input?.responses).toBeUndefined();

		for (let round = 2; round <= MAX_INPUT_ROUNDS; round++) {
			const id = `ap${round}`;
			state = open(state, id);
			state = step(state, { type: 'approval_decided', approvalId: id, decisions: [answer(state, 'c1', { pay: { action: 'accept' } })], decidedAt: '2029-12-31T01:00:00.000Z' });
			state = step(state, { type: 'tool_outcomes', outcomes: [], inputRequired: [needed('c1', { pay: URL_REQUEST }, `state-${round + 1}`)] });
		}
		expect(nextEffect(state)).toEqual({ type: 'call_model' });
		expect(String(lastResults(state)[0].content)).toMatch(/asked for input 11 times during this call; after 10 rounds the call was stopped/);
		expect(lastResults(state)[0]).toMatchObject({ is_error: true });
	});

	it.each(['decline', 'cancel'] as const)('passes a %s to the server as the person chose, and the server\'s result goes to the model', (action) => {
		const state = pausedForInput();
		const decided = step(state, { type: 'approval_decided', approvalId: 'ap1', decisions: [answer(state, 'c1', { seat: { action } })], decidedAt: '2029-12-31T01:00:00.000Z' });
		expect(nextEffect(decided)).toMatchObject({ type: 'run_tools', calls: [{ id: 'c1', input: { status: 'answered', responses: { seat: { action } } } }] });
		const done = step(decided, { type: 'tool_outcomes', outcomes: [{ id: 'c1', isError: false, text: 'No booking made.', images: [] }] });
		expect(String(lastResults(done)[0].content)).toContain(`they answered (${action})`);
	});

	it('a deny ends the call without answering the server; the model is told', () => {
		const state = pausedForInput();
		const denied = step(state, { type: 'approval_decided', approvalId: 'ap1', decisions: [{ callId: 'c1', argsHash: boundArgsHash(callOf(state, 'c1')), decision: 'deny', reason: 'not now' }], decidedAt: '2029-12-31T01:00:00.000Z' });
		expect(nextEffect(denied)).toEqual({ type: 'call_model' });
		expect(lastResults(denied)[0]).toMatchObject({ is_error: true });
		expect(String(lastResults(denied)[0].content)).toMatch(/asked for input during this call, and a person denied the call .* Reason: not now/);
		expect(denied.toolLog[0].input).toMatchObject({ status: 'denied' });
	});

	it('expiry ends pending input like a pending approval: the model is told, the call is not retried', () => {
		const state = pausedForInput();
		const expired = step(state, { type: 'approval_expired', approvalId: 'ap1', at: '2030-01-01T00:00:00.000Z' });
		expect(nextEffect(expired)).toEqual({ type: 'call_model' });
		expect(String(lastResults(expired)[0].content)).toContain('Input request expired: nobody answered');
		expect(expired.toolLog[0].input).toMatchObject({ status: 'expired', rounds: 1 });
		// A valid answer that arrives after the expiry is refused as expired too.
		const late = step(state, { type: 'approval_decided', approvalId: 'ap1', decisions: [answer(state, 'c1', { seat: { action: 'decline' } })], decidedAt: '2029-12-31T01:00:00.000Z', receivedAt: '2030-01-02T00:00:00.000Z' });
		expect(String(lastResults(late)[0].content)).toContain('Input request expired');
	});

	it('review first, then input on the same call; one Needs Approval item may carry a review and an input request', () => {
		let state = started([{ id: 'c1', name: 'book', args: { path: 'LIS' } }, { id: 'c2', name: 'delete_file', args: { path: '/x' } }]);
		// c1 needs no review and runs; c2 waits for review.
		expect(nextEffect(state)).toMatchObject({ type: 'run_tools', calls: [{ id: 'c1' }] });
		state = step(state, { type: 'tool_outcomes', outcomes: [], inputRequired: [needed('c1')] });
		state = open(state);
		const both = nextEffect(state);
		expect(both).toMatchObject({ type: 'request_approval', calls: [{ id: 'c1', input: { status: 'pending' } }, { id: 'c2', review: { status: 'pending' } }] });
		// Deciding only the review leaves the input unanswered: the whole decision is refused.
		const c2 = { callId: 'c2', argsHash: boundArgsHash(callOf(state, 'c2')), decision: 'approve' as const };
		expect(() => step(state, { type: 'approval_decided', approvalId: 'ap1', decisions: [c2], decidedAt: '2029-12-31T01:00:00.000Z' })).toThrow(/no decision for call c1/);
		state = step(state, { type: 'approval_decided', approvalId: 'ap1', decisions: [c2, answer(state, 'c1', { seat: { action: 'accept', content: { seat: 'aisle' } } })], decidedAt: '2029-12-31T01:00:00.000Z' });
		expect(nextEffect(state)).toMatchObject({ type: 'run_tools', calls: [{ id: 'c1' }, { id: 'c2' }] });
		// The approved c2 now asks for input itself: reviewed, then input.
		state = step(state, { type: 'tool_outcomes', outcomes: [{ id: 'c1', isError: false, text: 'booked', images: [] }], inputRequired: [needed('c2', { confirm: URL_REQUEST })] });
		state = open(state, 'ap2');
		expect(nextEffect(state)).toMatchObject({ type: 'request_approval', calls: [{ id: 'c2', review: { status: 'approved' }, input: { status: 'pending' } }] });
		// The argument hash the answer is bound to is the reviewed one.
		state = step(state, { type: 'approval_decided', approvalId: 'ap2', decisions: [answer(state, 'c2', { confirm: { action: 'accept' } })], decidedAt: '2029-12-31T02:00:00.000Z' });
		const done = step(state, { type: 'tool_outcomes', outcomes: [{ id: 'c2', isError: false, text: 'deleted', images: [] }] });
		expect(done.toolLog.map((entry) => [entry.id, entry.review?.decision, entry.input?.status])).toEqual([
			['c1', undefined, 'answered'],
			['c2', 'approved', 'answered'],
		]);
	});

	it('rejects forged answers (other requests, other arguments, unknown keys, values against the schema, values on a link) and ignores replays', () => {
		const state = pausedForInput();
		const ok = answer(state, 'c1', { seat: { action: 'accept', content: { seat: 'window' } } });
		const decide = (decisions: ReviewDecision[], approvalId = 'ap1') => step(state, { type: 'approval_decided', approvalId, decisions, decidedAt: '2029-12-31T01:00:00.000Z' });
		expect(() => decide([ok], 'ap-other')).toThrow(/not the open approval/);
		expect(() => decide([{ ...ok, inputHash: 'sha256:forged' }])).toThrow(/other input requests/);
		expect(() => decide([{ ...ok, inputHash: undefined }])).toThrow(/other input requests/);
		expect(() => decide([{ ...ok, argsHash: hashArguments({ path: 'elsewhere' }) }])).toThrow(/other arguments/);
		expect(() => decide([{ ...ok, inputResponses: undefined }])).toThrow(/answers to the input requests are missing/);
		expect(() => decide([{ ...ok, inputResponses: { seat: { action: 'accept', content: { seat: 'roof' } } } }])).toThrow(/do not match the requested schema: values.seat must be one of/);
		expect(() => decide([{ ...ok, inputResponses: { seat: { action: 'accept', content: { seat: 'window', count: 9 } } } }])).toThrow(/values.count must be <= 4/);
		expect(() => decide([{ ...ok, inputResponses: { seat: { action: 'accept' } } }])).toThrow(/accepted without values/);
		// Fields the request never asks for (a JSON POST can add any) are refused, not passed on.
		expect(() => decide([{ ...ok, inputResponses: { seat: { action: 'accept', content: { seat: 'window', role: 'admin' } } } }])).toThrow(/does not ask for: "role"/);
		expect(() => decide([{ ...ok, inputResponses: { seat: { action: 'accept', content: { seat: 'window', shipping: { price: 0 } } } } }])).toThrow(/does not ask for: "shipping"/);
		expect(() => decide([{ ...ok, inputResponses: { seat: { action: 'decline', content: { seat: 'window' } } } }])).toThrow(/carries values/);
		expect(() => decide([{ ...ok, inputResponses: { seat: { action: 'maybe' } } as never }])).toThrow(/has no answer/);
		expect(() => decide([{ ...ok, inputResponses: { seat: { action: 'decline' }, other: { action: 'decline' } } }])).toThrow(/no input request "other"/);
		expect(() => decide([{ ...ok, decision: 'edit', arguments: { path: 'x' } }])).toThrow(/not waiting for review/);
		const decided = decide([ok]);
		// The same answer again (or a different one for the same approval) changes nothing.
		expect(step(decided, { type: 'approval_decided', approvalId: 'ap1', decisions: [{ ...ok, inputResponses: { seat: { action: 'cancel' } } }], decidedAt: '2029-12-31T01:00:00.000Z' })).toEqual(decided);
	});

	it('answers for a call that waits for no input are rejected', () => {
		let state = started([{ id: 'c2', name: 'delete_file', args: { path: '/x' } }]);
		state = open(state);
		const decision: ReviewDecision = { callId: 'c2', argsHash: boundArgsHash(callOf(state, 'c2')), decision: 'approve', inputResponses: {}, inputHash: 'sha256:x' };
		expect(() => step(state, { type: 'approval_decided', approvalId: 'ap1', decisions: [decision], decidedAt: '2029-12-31T01:00:00.000Z' })).toThrow(/not waiting for input/);
	});

	it('ends a call whose server asks for something no person can answer, or asks for nothing', () => {
		const state = started();
		const sampling = step(state, { type: 'tool_outcomes', outcomes: [], inputRequired: [needed('c1', { s: { method: 'sampling/createMessage', params: {} } })] });
		expect(String(lastResults(sampling)[0].content)).toMatch(/cannot get from a person \(sampling\/createMessage\)/);
		const empty = step(state, { type: 'tool_outcomes', outcomes: [], inputRequired: [needed('c1', {})] });
		expect(String(lastResults(empty)[0].content)).toMatch(/asked for nothing/);
		const huge = step(state, { type: 'tool_outcomes', outcomes: [], inputRequired: [needed('c1', { seat: FORM }, 'x'.repeat(300 * 1024))] });
		expect(String(lastResults(huge)[0].content)).toMatch(/larger than 256 KB/);
	});

	it('a paused run with pending input survives the store and resumes on another worker', () => {
		const state = pausedForInput();
		const context: Record<string, unknown> = {};
		savePausedRun(openStore(context), 'ap1', state, '2029-12-31T00:00:00.000Z', 'sha256:token');
		// Another worker: the node context as n8n stores it (JSON).
		const elsewhere = JSON.parse(JSON.stringify(context)) as Record<string, unknown>;
		const taken = takePausedRun(openStore(elsewhere), 'ap1');
		if (taken.kind !== 'run') throw new Error(taken.kind);
		expect(taken.state).toEqual(state);
		const decided = step(taken.state, { type: 'approval_decided', approvalId: 'ap1', decisions: [answer(taken.state, 'c1', { seat: { action: 'decline' } })], decidedAt: '2029-12-31T01:00:00.000Z' });
		expect(nextEffect(decided)).toMatchObject({ type: 'run_tools', calls: [{ id: 'c1', input: { requestState: 'state-1', responses: { seat: { action: 'decline' } } } }] });
	});

	it('keeps a request key "__proto__" as an own key through answer and retry', () => {
		let state = started();
		const requests = JSON.parse('{"__proto__": {"method": "elicitation/create", "params": {"message": "m", "requestedSchema": {"type": "object", "properties": {}}}}}');
		state = open(step(state, { type: 'tool_outcomes', outcomes: [], inputRequired: [needed('c1', requests)] }));
		const responses = JSON.parse('{"__proto__": {"action": "accept", "content": {}}}');
		const decided = step(state, { type: 'approval_decided', approvalId: 'ap1', decisions: [answer(state, 'c1', responses)], decidedAt: '2029-12-31T01:00:00.000Z' });
		const input = callOf(decided, 'c1').input;
		expect(Object.keys(input?.responses ?? {})).toEqual(['__proto__']);
		expect(JSON.stringify(input?.responses)).toBe('{"__proto__":{"action":"accept","content":{}}}');
	});
});

import { boundArgsHash, DecisionRejected } from '../agent/review';
import { awaitingPerson } from '../agent/step';
import type { AgentState, ReviewDecision } from '../agent/types';
import { callCode } from './approvalRequest';
import type { ChannelDecision } from './channelDecision';
import { perCallProblem } from './channelForm';

/**
 * A channel decision binds to the pending calls of its approval as a whole: one yes or no for all
 * of them, or one per call from the custom form. What a person confirmed (codes, hashes, the form's
 * positions) must name exactly those calls.
 */

/**
 * Why a channel decision does not fit the pending calls, or undefined when it does. Codes and
 * hashes are optional; when given, they must name exactly the pending calls, so a person who
 * confirmed a code approves only what they were shown.
 */
export function bindingProblem(decision: ChannelDecision, state: AgentState): string | undefined {
	if (state.phase.name !== 'run_tools') return undefined;
	const pending = awaitingPerson(state.phase).map(boundArgsHash);
	if (decision.perCall) return perCallProblem(decision.perCall, pending.map(callCode));
	const check = (given: string[] | undefined, expected: string[], what: string, normalize: (v: string) => string) => {
		if (!given) return undefined;
		const want = new Set(expected.map(normalize));
		const got = new Set(given.map(normalize));
		const fits = got.size === want.size && [...got].every((value) => want.has(value));
		return fits ? undefined : `The approval channel's decision named ${what} ${given.join(', ')}, but the pending calls have ${expected.join(', ')}; it was not applied. The calls are still pending.`;
	};
	return (
		check(decision.codes, pending.map(callCode), 'code(s)', (v) => v.toLowerCase()) ??
		check(decision.argsHashes, pending, 'argument hash(es)', (v) => `sha256:${v.toLowerCase().replace(/^sha256:/, '')}`)
	);
}

/** The channel decision as one review decision per pending call; throws when it no longer fits them. */
export function channelReviewDecisions(decision: ChannelDecision, state: AgentState): ReviewDecision[] {
	if (state.phase.name !== 'run_tools') throw new DecisionRejected('the run is not waiting for a decision');
	const pending = awaitingPerson(state.phase);
	// Checked against the pending codes before (bindingProblem); checked again here, fail closed.
	if (decision.perCall && perCallProblem(decision.perCall, pending.map((call) => callCode(boundArgsHash(call))))) {
		throw new DecisionRejected('the form\'s answers do not match the pending calls');
	}
	return pending.map((call, index) => {
		const approved = decision.perCall ? decision.perCall[index].choice === 'approve' : decision.approved;
		return {
			callId: call.id,
			argsHash: boundArgsHash(call),
			decision: approved ? 'approve' : 'deny',
			...(!approved ? { reason: decision.reason ?? 'denied through the approval channel' } : {}),
			...(approved && !decision.perCall && decision.reason ? { reason: decision.reason } : {}),
		};
	});
}

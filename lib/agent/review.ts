import { validateArguments } from '../tools/argumentValidator';
import { hashArguments, hashReviewedCall, type ShownIdentity } from './argumentHash';
import { setEntry } from './ownEntry';
import { checkInputAnswers } from './callInput';
import { toolOfCall } from './catalog';
import { judgeCall, refusalText } from './approvalRules';
import { DEFAULT_OUTCOME_LIMITS, errorOutcome, type OutcomeLimits } from './toolOutcome';
import type { AgentState, CallInput, PlannedCall, ReviewDecision, RunToolsPhase } from './types';
import type { CatalogTool } from '../providers/modelTypes';
import { McpAgentError } from '../errors';
import { allowSimilarProblem } from './grants';

/**
 * Applying a person's decisions to a paused turn. Decisions are checked against the state, never
 * trusted: they must name the open approval, a pending call, and the hash of the arguments the
 * reviewer was shown. Anything else is rejected whole, so a forged or stale decision changes
 * nothing. A decision for an approval already decided is ignored (replay).
 */
export class DecisionRejected extends McpAgentError {
	constructor(message: string) {
		super(message, {
			code: 'review',
			description: 'Nothing was applied. A decision is taken only for the open approval of its own run, on the calls and arguments the reviewer was shown: decide again from the latest review link or approval message of this run.',
		});
		this.name = 'DecisionRejected';
	}
}

/** Milliseconds of an ISO time, or undefined when it is not one. */
function timeOf(value: string): number | undefined {
	const ms = Date.parse(value);
	return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Whether `at` is at or after `expiresAt`. Times are compared as instants when both parse, else as
 * strings (same-format stamps order correctly); a decision time that cannot be read counts as late.
 */
export function isAtOrAfter(at: string, expiresAt: string): boolean {
	const a = timeOf(at);
	const e = timeOf(expiresAt);
	if (a !== undefined && e !== undefined) return a >= e;
	if (e !== undefined) return true;
	return at >= expiresAt;
}

/** The later of when the decision says it was made and when the run received it. */
function latest(decidedAt: string, receivedAt: string | undefined): string {
	if (receivedAt === undefined) return decidedAt;
	return isAtOrAfter(receivedAt, decidedAt) ? receivedAt : decidedAt;
}

export function applyDecisions(
	state: AgentState,
	phase: RunToolsPhase,
	event: { approvalId: string; decisions: ReviewDecision[]; reviewer?: string; decidedAt: string; receivedAt?: string },
): RunToolsPhase {
	if (phase.decidedApprovals.includes(event.approvalId)) return phase;
	if (!phase.approval || phase.approval.id !== event.approvalId) {
		throw new DecisionRejected(`the decision is for approval ${event.approvalId}, which is not the open approval of this run`);
	}
	// Calls waiting for a person: for review, for input (the server asked during the call), or both.
	const pending = new Map(awaitingPerson(phase).map((c) => [c.id, c]));
	const byCall = new Map<string, ReviewDecision>();
	const answers = new Map<string, CallInput['responses']>();
	for (const decision of event.decisions) {
		const call = pending.get(decision.callId);
		if (!call) throw new DecisionRejected(`the decision names call ${decision.callId}, which is not waiting for review or input`);
		if (decision.argsHash !== boundArgsHash(call)) throw new DecisionRejected(`the decision for call ${decision.callId} was made on other arguments than the ones pending, or on the call shown otherwise (its tool, description, annotations or warnings)`);
		if (byCall.has(decision.callId)) throw new DecisionRejected(`call ${decision.callId} has two decisions`);
		const reviewPending = call.review?.status === 'pending';
		if (decision.decision !== undefined && !['approve', 'deny', 'edit'].includes(decision.decision)) throw new DecisionRejected(`unknown decision "${String(decision.decision)}" for call ${decision.callId}`);
		if (reviewPending && decision.decision === undefined) throw new DecisionRejected(`the decision for call ${decision.callId} says neither approve, deny nor edit`);
		if (!reviewPending && decision.decision === 'edit') throw new DecisionRejected(`call ${decision.callId} is not waiting for review, so its arguments cannot be edited`);
		const offered = call.review?.decisions;
		if (reviewPending && offered && decision.decision !== undefined && !offered.includes(decision.decision)) {
			throw new DecisionRejected(`"${decision.decision}" is not a decision the reviewer may take for call ${decision.callId} (its approval rule offers ${offered.join(', ')})`);
		}
		if (decision.allowSimilar !== undefined) {
			const problem = allowSimilarProblem(call, decision);
			if (problem) throw new DecisionRejected(`similar calls cannot be allowed with the decision for call ${decision.callId}: ${problem}`);
		}
		const input = call.input?.status === 'pending' ? call.input : undefined;
		if (!input && (decision.inputResponses !== undefined || decision.inputHash !== undefined)) throw new DecisionRejected(`call ${decision.callId} is not waiting for input`);
		// Answers are needed unless the call is denied, or its arguments are edited (the call then starts over).
		if (input && decision.decision !== 'deny' && decision.decision !== 'edit') {
			if (decision.inputHash !== input.inputHash) throw new DecisionRejected(`the answers for call ${decision.callId} were given to other input requests than the ones pending`);
			const checked = checkInputAnswers(input, decision.inputResponses);
			if (!checked.ok) throw new DecisionRejected(`call ${decision.callId}: ${checked.problem}`);
			answers.set(call.id, checked.responses);
		}
		byCall.set(decision.callId, decision);
	}
	const undecided = [...pending.keys()].filter((id) => !byCall.has(id));
	if (undecided.length > 0) throw new DecisionRejected(`no decision for call${undecided.length > 1 ? 's' : ''} ${undecided.join(', ')}`);
	// Fail closed: a well-formed decision made or received after the approval's expiry is refused; its calls are denied as expired.
	const at = latest(event.decidedAt, event.receivedAt);
	if (isAtOrAfter(at, phase.approval.expiresAt)) return expireApproval(phase, event.approvalId, at);

	const outcomes = { ...phase.outcomes };
	// A reviewer's reason reaches the model and the stored state: capped like any tool result.
	const limits: OutcomeLimits = { ...DEFAULT_OUTCOME_LIMITS, maxChars: state.settings.maxToolResultChars };
	const calls = phase.calls.map((call): PlannedCall => {
		const decision = byCall.get(call.id);
		if (!decision) return call;
		const reason = decision.reason ? ` Reason: ${decision.reason}` : '';
		if (!call.review || call.review.status !== 'pending') {
			// Waiting for input only: answered, or denied (the call ends without answering the server).
			const input = call.input as CallInput;
			if (decision.decision === 'deny') {
				setEntry(outcomes, call.id, errorOutcome(call.id, `The server asked for input during this call, and a person denied the call instead of answering, so it did not complete.${reason}`, limits));
				return { ...call, input: { ...input, status: 'denied', reviewer: event.reviewer, answeredAt: event.decidedAt } };
			}
			return { ...call, input: answered(input, answers.get(call.id), event) };
		}
		const decided = { ...call.review, reviewer: event.reviewer, decidedAt: event.decidedAt, rounds: call.review.rounds + 1, ...(decision.reason ? { reason: decision.reason } : {}) };
		if (decision.decision === 'approve') {
			const input = call.input?.status === 'pending' ? answered(call.input, answers.get(call.id), event) : call.input;
			const allowSimilar = decision.allowSimilar ? { allowSimilar: { duration: decision.allowSimilar.duration, constraint: decision.allowSimilar.constraint, approvalId: event.approvalId } } : {};
			return { ...call, review: { ...decided, status: 'approved', ...allowSimilar }, ...(input ? { input } : {}) };
		}
		if (decision.decision === 'deny') {
			setEntry(outcomes, call.id, errorOutcome(call.id, `A person reviewing this call denied it, so it was not run.${reason}`, limits));
			return { ...call, review: { ...decided, status: 'denied' }, ...(call.input?.status === 'pending' ? { input: { ...call.input, status: 'denied' as const } } : {}) };
		}
		const tool = toolOfCall(state.tools, call);
		const validation = validateArguments(tool?.inputSchema, decision.arguments);
		if (!validation.valid) {
			setEntry(outcomes, call.id, errorOutcome(call.id, `A person reviewing this call edited its arguments, but the edited arguments are invalid (${validation.summary}), so it was not run.`, limits));
			return { ...call, review: { ...decided, status: 'denied', reason: `edited arguments invalid: ${validation.summary}` } };
		}
		// The rules judge the edited call again: a person's edit cannot get past a refuse rule.
		const verdict = state.settings.approval && tool ? judgeCall(state.settings.approval, tool, decision.arguments) : undefined;
		if (verdict?.effect === 'refuse') {
			setEntry(outcomes, call.id, errorOutcome(call.id, `A person reviewing this call edited its arguments, but the edited call is refused: ${refusalText(verdict)}`, limits));
			return { ...call, refusedBy: verdict.by, review: { ...decided, status: 'denied', reason: `edited call refused by the approval rule "${verdict.by.label}"` } };
		}
		// Edited arguments start the call over: input the server asked for the old ones no longer applies.
		const { input: _dropped, ...rest } = call;
		return {
			...rest,
			arguments: decision.arguments,
			review: { ...decided, status: 'edited', originalArguments: call.arguments, argsHash: hashArguments(decision.arguments) },
		};
	});
	const { approval: _closed, ...rest } = phase;
	return { ...rest, calls, outcomes, decidedApprovals: [...phase.decidedApprovals, event.approvalId] };
}

/** Calls waiting for a person: for review, for input, or both. One "Needs Approval" item carries them all. */
export function awaitingPerson(phase: RunToolsPhase): PlannedCall[] {
	return phase.calls.filter((call) => (call.review?.status === 'pending' || call.input?.status === 'pending') && !Object.hasOwn(phase.outcomes, call.id));
}

/**
 * What the review page shows of a call besides its arguments, from its tool in the run's catalog
 * (toolOfCall, which every caller has at hand): the request item's view is built from it, and a
 * reviewed call's hash covers it (hashReviewedCall).
 */
export function shownIdentity(tool: CatalogTool | undefined, call: Pick<PlannedCall, 'tool' | 'providerName' | 'review'>, warnings: string[] = call.review?.warnings ?? []): ShownIdentity {
	return {
		server: call.tool?.serverName ?? '',
		tool: call.tool?.mcpName ?? call.providerName,
		...(tool?.title ? { title: tool.title } : {}),
		...(tool?.description ? { description: tool.description } : {}),
		...(tool?.annotations ? { annotations: tool.annotations } : {}),
		annotationsTrusted: tool?.annotationsTrusted ?? false,
		fingerprint: call.tool?.fingerprint ?? '',
		warnings,
		...(tool?.source ? { source: tool.source } : {}),
	};
}

/** The argument hash a decision on this call must name: the reviewed one, or (input only) the call's own. */
export function boundArgsHash(call: PlannedCall): string {
	return call.review?.argsHash ?? hashArguments(call.arguments);
}

function answered(input: CallInput, responses: CallInput['responses'], event: { reviewer?: string; decidedAt: string }): CallInput {
	return { ...input, status: 'answered', ...(responses ? { responses } : {}), ...(event.reviewer ? { reviewer: event.reviewer } : {}), answeredAt: event.decidedAt };
}

/** Fail closed: when the wait runs out, every pending call is denied and the model is told why. */
export function expireApproval(phase: RunToolsPhase, approvalId: string, at: string): RunToolsPhase {
	if (phase.decidedApprovals.includes(approvalId)) return phase;
	if (!phase.approval || phase.approval.id !== approvalId) throw new DecisionRejected(`approval ${approvalId} is not the open approval of this run`);
	const outcomes = { ...phase.outcomes };
	const calls = phase.calls.map((call): PlannedCall => {
		if (Object.hasOwn(outcomes, call.id)) return call;
		if (call.review?.status === 'pending') {
			setEntry(outcomes, call.id, errorOutcome(call.id, 'Approval expired: nobody approved this call within the time limit, so it was not run.', DEFAULT_OUTCOME_LIMITS));
			return { ...call, review: { ...call.review, status: 'expired', decidedAt: at, reason: 'approval expired' }, ...(call.input?.status === 'pending' ? { input: { ...call.input, status: 'expired' as const } } : {}) };
		}
		if (call.input?.status === 'pending' && call.task) {
			// A running task's own questions: answered "cancel" with its next check (nobody chose), and
			// the run goes on waiting for the task, which the server then finishes or ends; it is never left running unseen.
			const responses = Object.fromEntries(Object.keys(call.input.inputRequests).map((key) => [key, { action: 'cancel' as const }]));
			return { ...call, input: { ...call.input, status: 'expired', responses, answeredAt: at } };
		}
		if (call.input?.status === 'pending') {
			setEntry(outcomes, call.id, errorOutcome(call.id, 'Input request expired: nobody answered the server\'s request for input within the time limit, so the call did not complete.', DEFAULT_OUTCOME_LIMITS));
			return { ...call, input: { ...call.input, status: 'expired' } };
		}
		return call;
	});
	const { approval: _closed, ...rest } = phase;
	return { ...rest, calls, outcomes, decidedApprovals: [...phase.decidedApprovals, approvalId] };
}

/**
 * Pinning at execution time: a reviewed call runs only if its tool's definition is still the one
 * the reviewer saw. A changed definition sends the call back for review with a warning; a tool that
 * disappeared fails the call.
 */
export function refreshCatalog(phase: RunToolsPhase, tools: CatalogTool[]): RunToolsPhase {
	const outcomes = { ...phase.outcomes };
	const calls = phase.calls.map((call): PlannedCall => {
		// A call whose task still runs has run: what it was reviewed as no longer matters.
		if (!call.tool || call.rejection || call.task || Object.hasOwn(outcomes, call.id)) return call;
		const current = toolOfCall(tools, call);
		if (!current) {
			setEntry(outcomes, call.id, errorOutcome(call.id, `The tool "${call.tool.mcpName}" is no longer offered by server "${call.tool.serverName}", so it was not run.`, DEFAULT_OUTCOME_LIMITS));
			return call;
		}
		if (current.fingerprint === call.tool.fingerprint) return call;
		const warning = 'The tool\'s definition changed since this call was requested or reviewed; review it again.';
		const review = call.review ?? { status: 'pending' as const, argsHash: hashArguments(call.arguments), warnings: [], rounds: 0 };
		const warnings = [...review.warnings.filter((w) => w !== warning), warning, ...(current.warnings ?? [])];
		const updated = { ...call, tool: { ...call.tool, fingerprint: current.fingerprint } };
		// Reviewed again as it is now: the hash covers the new definition and warnings the page will show.
		return { ...updated, review: { ...review, status: 'pending', warnings, argsHash: hashReviewedCall(call.arguments, shownIdentity(current, updated, warnings)) } };
	});
	return { ...phase, calls, outcomes };
}

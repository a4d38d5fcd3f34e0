import { validateArguments } from '../tools/argumentValidator';
import { hashArguments } from '../approvals/argumentHash';
import type { RunToolsPhase } from './step';
import { setEntry } from './ownEntry';
import type { AgentState, CatalogTool, PlannedCall, ReviewDecision, ToolOutcome } from './types';

/**
 * Applying a person's decisions to a paused turn. Decisions are checked against the state, never
 * trusted: they must name the open approval, a pending call, and the hash of the arguments the
 * reviewer was shown. Anything else is rejected whole, so a forged or stale decision changes
 * nothing. A decision for an approval already decided is ignored (replay).
 */
export class DecisionRejected extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'DecisionRejected';
	}
}

function errorOutcome(id: string, text: string): ToolOutcome {
	return { id, isError: true, text, images: [] };
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
	const pending = new Map(phase.calls.filter((c) => c.review?.status === 'pending' && !Object.hasOwn(phase.outcomes, c.id)).map((c) => [c.id, c]));
	const byCall = new Map<string, ReviewDecision>();
	for (const decision of event.decisions) {
		const call = pending.get(decision.callId);
		if (!call) throw new DecisionRejected(`the decision names call ${decision.callId}, which is not waiting for review`);
		if (decision.argsHash !== call.review?.argsHash) throw new DecisionRejected(`the decision for call ${decision.callId} was made on other arguments than the ones pending`);
		if (byCall.has(decision.callId)) throw new DecisionRejected(`call ${decision.callId} has two decisions`);
		if (!['approve', 'deny', 'edit'].includes(decision.decision)) throw new DecisionRejected(`unknown decision "${String(decision.decision)}" for call ${decision.callId}`);
		byCall.set(decision.callId, decision);
	}
	const undecided = [...pending.keys()].filter((id) => !byCall.has(id));
	if (undecided.length > 0) throw new DecisionRejected(`no decision for call${undecided.length > 1 ? 's' : ''} ${undecided.join(', ')}`);
	// Fail closed: a well-formed decision made or received after the approval's expiry is refused; its calls are denied as expired.
	const at = latest(event.decidedAt, event.receivedAt);
	if (isAtOrAfter(at, phase.approval.expiresAt)) return expireApproval(phase, event.approvalId, at);

	const outcomes = { ...phase.outcomes };
	const calls = phase.calls.map((call): PlannedCall => {
		const decision = byCall.get(call.id);
		if (!decision || !call.review) return call;
		const decided = { ...call.review, reviewer: event.reviewer, decidedAt: event.decidedAt, rounds: call.review.rounds + 1, ...(decision.reason ? { reason: decision.reason } : {}) };
		if (decision.decision === 'approve') return { ...call, review: { ...decided, status: 'approved' } };
		if (decision.decision === 'deny') {
			setEntry(outcomes, call.id, errorOutcome(call.id, `A person reviewing this call denied it, so it was not run.${decision.reason ? ` Reason: ${decision.reason}` : ''}`));
			return { ...call, review: { ...decided, status: 'denied' } };
		}
		const tool = state.tools.find((t) => t.serverId === call.tool?.serverId && t.mcpName === call.tool?.mcpName);
		const validation = validateArguments(tool?.inputSchema, decision.arguments);
		if (!validation.valid) {
			setEntry(outcomes, call.id, errorOutcome(call.id, `A person reviewing this call edited its arguments, but the edited arguments are invalid (${validation.summary}), so it was not run.`));
			return { ...call, review: { ...decided, status: 'denied', reason: `edited arguments invalid: ${validation.summary}` } };
		}
		return {
			...call,
			arguments: decision.arguments,
			review: { ...decided, status: 'edited', originalArguments: call.arguments, argsHash: hashArguments(decision.arguments) },
		};
	});
	const { approval: _closed, ...rest } = phase;
	return { ...rest, calls, outcomes, decidedApprovals: [...phase.decidedApprovals, event.approvalId] };
}

/** Fail closed: when the wait runs out, every pending call is denied and the model is told why. */
export function expireApproval(phase: RunToolsPhase, approvalId: string, at: string): RunToolsPhase {
	if (phase.decidedApprovals.includes(approvalId)) return phase;
	if (!phase.approval || phase.approval.id !== approvalId) throw new DecisionRejected(`approval ${approvalId} is not the open approval of this run`);
	const outcomes = { ...phase.outcomes };
	const calls = phase.calls.map((call): PlannedCall => {
		if (call.review?.status !== 'pending' || Object.hasOwn(outcomes, call.id)) return call;
		setEntry(outcomes, call.id, errorOutcome(call.id, 'Approval expired: nobody approved this call within the time limit, so it was not run.'));
		return { ...call, review: { ...call.review, status: 'expired', decidedAt: at, reason: 'approval expired' } };
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
		if (!call.tool || call.rejection || Object.hasOwn(outcomes, call.id)) return call;
		const current = tools.find((t) => t.serverId === call.tool?.serverId && t.mcpName === call.tool?.mcpName);
		if (!current) {
			setEntry(outcomes, call.id, errorOutcome(call.id, `The tool "${call.tool.mcpName}" is no longer offered by server "${call.tool.serverName}", so it was not run.`));
			return call;
		}
		if (current.fingerprint === call.tool.fingerprint) return call;
		const warning = 'The tool\'s definition changed since this call was requested or reviewed; review it again.';
		const review = call.review ?? { status: 'pending' as const, argsHash: hashArguments(call.arguments), warnings: [], rounds: 0 };
		return {
			...call,
			tool: { ...call.tool, fingerprint: current.fingerprint },
			review: { ...review, status: 'pending', warnings: [...review.warnings.filter((w) => w !== warning), warning, ...(current.warnings ?? [])] },
		};
	});
	return { ...phase, calls, outcomes };
}

import { adapterFor } from '../providers/registry';
import { isContextOverflow } from '../providers/errors';
import type { ModelClient } from '../providers/types';
import { EMPTY_USAGE } from '../providers/shared';
import { nextEffect, step } from './step';
import { nativeSearchOf, offeredTools } from './toolLoading';
import type { AgentEvent, AgentState, PlannedCall, StandingApprovalOutcome } from './types';
import type { ToolRunResult } from './toolRunner';
import { readGrants, isGrantRef, makeGrant, standingApprovalsToStore, type Grant, type GrantStore, type GrantScope } from './grants';
import { McpAgentError } from '../errors';

export interface AgentDrivers {
	model: ModelClient;
	/** Runs a turn's calls; `iteration` is the turn's (ToolLogEntry.iteration), for drivers that keep what the state does not (FullResults). */
	runTools(calls: PlannedCall[], iteration: number): Promise<ToolRunResult>;
	/**
	 * Checks calls whose MCP task still runs (PlannedCall.task): each gets its result, or stays
	 * waiting with its new status. Given when the execution woke for them (the node's task wait):
	 * each waiting task is then checked once per runAgent, never twice in a row with nothing between.
	 * Unset: waiting tasks only pause the run.
	 */
	checkTasks?(calls: PlannedCall[], iteration: number): Promise<ToolRunResult>;
	/** Called after every step with the new state (persistence hooks, tests). */
	onStep?(state: AgentState): void;
	/**
	 * Set when the caller streams (n8n's Chat Trigger or Webhook in streaming mode): model calls then
	 * use the provider's streaming API and the text goes here as it arrives. Unset: plain requests.
	 */
	onText?(delta: string): void;
	/**
	 * n8n's execution cancel signal (the editor's Stop, a cancelled execution): the model call in
	 * flight is aborted and no further step starts; a tool call already running finishes.
	 */
	signal?: AbortSignal;
	/**
	 * Standing approvals: before the run stops for a person, the scope's grants are read fresh from
	 * the store and pending calls a grant covers run without review. A store that cannot be read
	 * covers nothing (the calls are asked); `onUnavailable` hears why.
	 */
	grants?: {
		store: GrantStore | undefined;
		scope: GrantScope;
		now?: () => number;
		onUnavailable?(reason: string): void;
		/**
		 * The tools' definition fingerprints as the servers list them now (never from a cache), by
		 * grantToolKey(server, tool). Asked only when a grant would let a call through: the run's own
		 * catalog may come from a kept connection's listing up to a minute old, and a grant binds the
		 * definition the person saw, not an older listing. A grant whose fingerprint differs from
		 * this covers nothing; when it cannot be answered, no grant applies (the calls are asked).
		 */
		currentFingerprints?(): Promise<ReadonlyMap<string, string>>;
	};
}

/** The key of a tool in AgentDrivers.grants.currentFingerprints. */
export function grantToolKey(server: string, tool: string): string {
	return JSON.stringify([server, tool]);
}

/** Why a run stopped when its execution was cancelled. */
export class RunCancelled extends McpAgentError {
	constructor() {
		super('The execution was cancelled while the agent was running; what ran before stays done', {
			code: 'cancelled',
			description: 'Nothing needs fixing: the execution was stopped (n8n\'s Stop, or a cancelled execution). Tool calls that had run before keep their effects.',
		});
		this.name = 'RunCancelled';
	}
}

/** The run's last state when an error ended it, by error: what ran before the failure is not lost. */
const statesAtFailure = new WeakMap<object, AgentState>();

/** A turn whose calls were all refused before running: nothing ran. */
const NO_TOOL_RUN: ToolRunResult = Object.freeze({ outcomes: [], durations: {} }) as ToolRunResult;

/** The state of the run an error (thrown by runAgent) ended, when it is known. */
export function runStateAtFailure(error: unknown): AgentState | undefined {
	return typeof error === 'object' && error !== null ? statesAtFailure.get(error) : undefined;
}

/**
 * Performs effects until the run finishes or needs a person (a review, or input a server asked for;
 * then the caller stores the state and pauses). Starting from a stored state continues exactly where it stopped: this
 * function holds nothing the state does not.
 */
export async function runAgent(initial: AgentState, drivers: AgentDrivers): Promise<AgentState> {
	const progress = { state: initial };
	try {
		return await runEffects(progress, drivers);
	} catch (error) {
		// Tool calls may have run (their effects stand): the caller reports them with the error.
		if (typeof error === 'object' && error !== null && !statesAtFailure.has(error)) statesAtFailure.set(error, progress.state);
		throw error;
	}
}

async function runEffects(progress: { state: AgentState }, drivers: AgentDrivers): Promise<AgentState> {
	let state = await storeStandingApprovals(progress.state, drivers);
	if (state !== progress.state) {
		progress.state = state;
		drivers.onStep?.(state);
	}
	const adapter = adapterFor(state.provider);
	// Calls whose task was handed off or checked in this runAgent: not checked again before the run pauses.
	const seenTasks = new Set<string>();
	for (;;) {
		const effect = nextEffect(state);
		if (effect.type === 'request_approval') {
			const due = drivers.checkTasks ? effect.tasks.filter((call) => !seenTasks.has(call.id)) : [];
			if (due.length > 0 && drivers.checkTasks) {
				if (drivers.signal?.aborted) throw new RunCancelled();
				for (const call of due) seenTasks.add(call.id);
				state = step(state, outcomesEvent(await drivers.checkTasks(due, state.iterations)));
				progress.state = state;
				drivers.onStep?.(state);
				continue;
			}
			const covered = await coveredByGrants(state, drivers);
			if (!covered) return state;
			state = covered;
			progress.state = state;
			drivers.onStep?.(state);
			continue;
		}
		if (effect.type === 'finish') return state;
		if (drivers.signal?.aborted) throw new RunCancelled();
		if (effect.type === 'call_model') {
			// A forced tool choice applies until a tool has run; forcing it on every call would never let the model answer.
			const forced = state.settings.toolChoice.type === 'required' || state.settings.toolChoice.type === 'tool';
			const settings = forced && state.toolLog.length > 0 ? { ...state.settings, toolChoice: { type: 'auto' as const } } : state.settings;
			const body = adapter.buildRequest(settings, offeredTools(state), state.transcript, nativeSearchOf(state));
			let response: unknown;
			try {
				const { onText, signal } = drivers;
				response = onText && drivers.model.stream ? await drivers.model.stream(body, onText, signal) : await drivers.model.send(body, signal);
			} catch (error) {
				if (drivers.signal?.aborted) throw new RunCancelled();
				if (!isContextOverflow(error)) throw error;
				state = step(state, { type: 'model_turn', turn: { transcriptItems: [], text: '', toolCalls: [], stop: 'context_exceeded', usage: { ...EMPTY_USAGE } } });
				progress.state = state;
				drivers.onStep?.(state);
				continue;
			}
			state = step(state, { type: 'model_turn', turn: adapter.parseResponse(response) });
		} else {
			const ran = effect.calls.length > 0 ? await drivers.runTools(effect.calls, state.iterations) : NO_TOOL_RUN;
			for (const id of Object.keys(ran.running ?? {})) seenTasks.add(id);
			state = step(state, outcomesEvent(ran));
		}
		progress.state = state;
		drivers.onStep?.(state);
	}
}

/** The event a tool run (or a check of running tasks) reports. */
function outcomesEvent(ran: ToolRunResult): AgentEvent {
	const { outcomes, durations, inputRequired, progress, tasks, running } = ran;
	return {
		type: 'tool_outcomes',
		outcomes,
		durations,
		...(inputRequired ? { inputRequired } : {}),
		...(progress ? { progress } : {}),
		...(tasks ? { tasks } : {}),
		...(running ? { running } : {}),
	};
}

/**
 * The state with the pending calls a grant covers approved by it, or undefined when none is (the
 * run then stops for a person). Only a turn with no open approval is looked at; the grants are
 * read fresh for every such stop, on whichever process runs it, so a revocation committed before
 * this read stops the call everywhere. A use is counted afterwards, best effort.
 */
async function coveredByGrants(state: AgentState, drivers: AgentDrivers): Promise<AgentState | undefined> {
	const grants = drivers.grants;
	if (!grants || state.phase.name !== 'run_tools' || state.phase.approval) return undefined;
	const phase = state.phase;
	if (!phase.calls.some((call) => call.review?.status === 'pending' && !Object.hasOwn(phase.outcomes, call.id))) return undefined;
	const at = (grants.now ?? Date.now)();
	const reading = await readGrants(grants.store, grants.scope, at);
	if (!reading.ok) {
		grants.onUnavailable?.(reading.error);
		return undefined;
	}
	const before = new Set(phase.calls.filter((call) => isGrantRef(call.allowedBy)).map((call) => call.id));
	const apply = (list: Grant[]) => {
		const next = step(state, { type: 'grants_read', grants: list, scope: grants.scope, at });
		if (next === state || next.phase.name !== 'run_tools') return undefined;
		const used = next.phase.calls.filter((call) => isGrantRef(call.allowedBy) && !before.has(call.id)).map((call) => (call.allowedBy as { grant: string }).grant);
		return used.length ? { next, used } : undefined;
	};
	let applied = apply(reading.grants);
	if (!applied) return undefined;
	if (grants.currentFingerprints) {
		// A grant is about to stand in for a person: check its definition against a listing made now.
		let current: ReadonlyMap<string, string>;
		try {
			current = await grants.currentFingerprints();
		} catch (error) {
			grants.onUnavailable?.(`the servers' current tool definitions could not be listed (${error instanceof Error ? error.message : String(error)})`);
			return undefined;
		}
		applied = apply(reading.grants.filter((grant) => current.get(grantToolKey(grant.server, grant.tool)) === grant.fingerprint));
		if (!applied) return undefined;
	}
	const { next, used } = applied;
	for (const id of used) {
		try {
			await grants.store?.markUsed(id, at);
		} catch {
			// Counting is for the grants page only: a lost count never changes what runs.
		}
	}
	return next;
}

/**
 * Stores the standing approvals people chose with the approvals just applied ("allow similar
 * calls" on the review page, inside MCP Approval's signed decision). The Agent makes the grant
 * itself, from its own state: the scope is this workflow's and this Agent node's (the driver's),
 * the tool, definition fingerprint and arguments are the run's, so nothing an item carries can
 * point a grant elsewhere. The store ignores a grant it has (ids are deterministic), so a resume
 * that runs twice stores one. A grant that cannot be stored leaves the approval for this call
 * only; the tool log says why.
 */
async function storeStandingApprovals(state: AgentState, drivers: AgentDrivers): Promise<AgentState> {
	if (state.phase.name !== 'run_tools') return state;
	const wanted = standingApprovalsToStore(state.phase.calls);
	if (wanted.length === 0) return state;
	const grants = drivers.grants;
	const results: Record<string, StandingApprovalOutcome> = {};
	for (const call of wanted) {
		const { allowSimilar, reviewer } = call.review;
		if (!grants?.store || !call.tool) {
			results[call.id] = { notSaved: 'standing approvals are not available here (an unsaved workflow, or an n8n whose database the package cannot use)' };
			continue;
		}
		const made = makeGrant({
			...grants.scope,
			approvalId: allowSimilar.approvalId,
			callId: call.id,
			server: call.tool.serverName,
			tool: call.tool.mcpName,
			fingerprint: call.tool.fingerprint,
			arguments: call.arguments,
			constraint: allowSimilar.constraint,
			duration: allowSimilar.duration,
			grantedBy: reviewer ?? '',
			now: (grants.now ?? Date.now)(),
		});
		if (made instanceof Error) {
			results[call.id] = { notSaved: made.message };
			continue;
		}
		try {
			await grants.store.insert(made);
			results[call.id] = { grant: made.id, expiresAt: new Date(made.expiresAt).toISOString() };
		} catch (error) {
			results[call.id] = { notSaved: `the grant store failed (${error instanceof Error ? error.message : String(error)})` };
		}
	}
	return step(state, { type: 'grants_stored', results });
}

import { validateArguments } from '../tools/argumentValidator';
import { parseJsonText } from '../tools/callResult';
import { adapterFor } from '../providers/registry';
import type { ProviderId } from '../providers/types';
import { requiresApproval } from '../approvals/policy';
import { hashArguments } from '../approvals/argumentHash';
import { applyDecisions, expireApproval, refreshCatalog } from './review';
import type {
	AgentEffect,
	AgentEvent,
	AgentState,
	CatalogTool,
	ModelTurn,
	PlannedCall,
	RunSettings,
	RunStatus,
	StopKind,
	ToolLogEntry,
	ToolOutcome,
	Usage,
} from './types';

/**
 * The agent loop as a pure function: (state, event) -> state, and the effect the state asks for
 * next. No I/O, no clocks, no randomness, no closures in the state: the driver performs effects
 * and feeds back events, so a fresh run, a run resumed after a review, after a restart or on
 * another worker all continue through this same code.
 */

export interface RunInit {
	provider: ProviderId;
	settings: RunSettings;
	tools: CatalogTool[];
	userMessage: string;
	history?: unknown[];
}

export type RunToolsPhase = Extract<AgentState['phase'], { name: 'run_tools' }>;

const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

export function createRun(init: RunInit): AgentState {
	return {
		version: 1,
		provider: init.provider,
		settings: init.settings,
		tools: init.tools,
		transcript: adapterFor(init.provider).initialTranscript(init.userMessage, init.history ?? []),
		iterations: 0,
		usage: { ...ZERO_USAGE },
		toolLog: [],
		phase: { name: 'call_model' },
		lastText: '',
	};
}

/** Calls that may run now: valid, not yet run, and either needing no review or approved. */
export function runnableCalls(phase: RunToolsPhase): PlannedCall[] {
	return phase.calls.filter(
		(call) => !call.rejection && !(call.id in phase.outcomes) && (!call.review || call.review.status === 'approved' || call.review.status === 'edited'),
	);
}

export function pendingReviews(phase: RunToolsPhase): PlannedCall[] {
	return phase.calls.filter((call) => call.review?.status === 'pending' && !(call.id in phase.outcomes));
}

export function nextEffect(state: AgentState): AgentEffect {
	switch (state.phase.name) {
		case 'call_model':
			return { type: 'call_model' };
		case 'run_tools': {
			const runnable = runnableCalls(state.phase);
			if (runnable.length > 0) return { type: 'run_tools', calls: runnable };
			return { type: 'request_approval', calls: pendingReviews(state.phase), ...(state.phase.approval ? { approval: state.phase.approval } : {}) };
		}
		case 'finished':
			return { type: 'finish', status: state.phase.status };
	}
}

export function step(state: AgentState, event: AgentEvent): AgentState {
	if (event.type === 'model_turn') {
		if (state.phase.name !== 'call_model') throw new Error(`model turn received while ${state.phase.name}`);
		return afterModelTurn(state, event.turn);
	}
	if (event.type === 'catalog_refreshed') {
		// Outside a tool turn there is nothing to re-check; later model calls see the current tools.
		if (state.phase.name !== 'run_tools') return { ...state, tools: event.tools };
		return settle({ ...state, tools: event.tools, phase: refreshCatalog(state.phase, event.tools) });
	}
	if (state.phase.name !== 'run_tools') throw new Error(`${event.type} received while ${state.phase.name}`);
	const phase = state.phase;
	switch (event.type) {
		case 'tool_outcomes':
			return settle({
				...state,
				phase: {
					...phase,
					outcomes: { ...phase.outcomes, ...Object.fromEntries(event.outcomes.map((o) => [o.id, noteEdits(phase, o)])) },
					durations: { ...phase.durations, ...(event.durations ?? {}) },
				},
			});
		case 'approval_opened':
			return { ...state, phase: { ...phase, approval: event.approval } };
		case 'approval_decided':
			return settle({ ...state, phase: applyDecisions(state, phase, event) });
		case 'approval_expired':
			return settle({ ...state, phase: expireApproval(phase, event.approvalId, event.at) });
	}
}

function addUsage(a: Usage, b: Usage): Usage {
	return {
		inputTokens: a.inputTokens + b.inputTokens,
		outputTokens: a.outputTokens + b.outputTokens,
		cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
		cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
	};
}

function finish(state: AgentState, status: RunStatus, stop?: StopKind, detail?: string, structured?: unknown): AgentState {
	return {
		...state,
		phase: { name: 'finished', status, ...(stop ? { stop } : {}), text: state.lastText, ...(detail ? { detail } : {}), ...(structured !== undefined ? { structured } : {}) },
	};
}

function afterModelTurn(previous: AgentState, turn: ModelTurn): AgentState {
	const state: AgentState = {
		...previous,
		transcript: [...previous.transcript, ...turn.transcriptItems],
		iterations: previous.iterations + 1,
		usage: addUsage(previous.usage, turn.usage),
		lastText: turn.text || previous.lastText,
	};
	const { tokenBudget } = state.settings;
	if (tokenBudget > 0 && state.usage.inputTokens + state.usage.outputTokens > tokenBudget) {
		return finish(state, 'token_budget_exceeded', turn.stop, `used ${state.usage.inputTokens + state.usage.outputTokens} of ${tokenBudget} tokens`);
	}
	if (turn.toolCalls.length > 0 && (turn.stop === 'tool_use' || turn.stop === 'end_turn' || turn.stop === 'other')) {
		const calls = turn.toolCalls.map((call) => planCall(state, call));
		return settle({ ...state, phase: { name: 'run_tools', calls, assistantText: turn.text, outcomes: {}, durations: {}, decidedApprovals: [] } });
	}
	switch (turn.stop) {
		case 'pause_turn':
			// The provider paused a long turn; sending the transcript back lets it continue.
			return continueOrStop(state);
		case 'max_tokens':
			return finish(state, 'max_tokens', turn.stop, 'the model reached the maximum output tokens');
		case 'refusal':
			return finish(state, 'refusal', turn.stop, turn.refusal);
		case 'context_exceeded':
			return finish(state, 'context_exceeded', turn.stop, 'the conversation no longer fits the model\'s context window');
		default:
			return completeWithAnswer(state, turn.stop);
	}
}

/** With a structured-output schema, an answer that does not match gets another turn while iterations remain. */
function completeWithAnswer(state: AgentState, stop: StopKind): AgentState {
	const schema = state.settings.structuredOutput;
	if (!schema) return finish(state, 'completed', stop);
	const parsed = parseJsonText(stripCodeFence(state.lastText));
	let problem: string | undefined;
	if (parsed === undefined) problem = 'the answer is not valid JSON';
	else {
		const outcome = validateArguments(schema, parsed);
		if (!outcome.valid) problem = outcome.summary.replace(/arguments/g, 'answer');
	}
	if (!problem) return finish(state, 'completed', stop, undefined, parsed);
	if (state.iterations >= state.settings.maxIterations) {
		return finish(state, 'completed', stop, `structured output invalid: ${problem}`);
	}
	const correction = `Your final answer must be only a JSON value matching the required schema, but ${problem}. Reply again with only the JSON.`;
	return { ...state, transcript: [...state.transcript, ...adapterFor(state.provider).userTextItems(correction)], phase: { name: 'call_model' } };
}

export function stripCodeFence(text: string): string {
	const match = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
	return match ? match[1] : text;
}

function continueOrStop(state: AgentState): AgentState {
	if (state.iterations >= state.settings.maxIterations) {
		return finish(state, 'max_iterations', undefined, `stopped after ${state.iterations} model calls (Max Iterations)`);
	}
	return { ...state, phase: { name: 'call_model' } };
}

function planCall(state: AgentState, call: ModelTurn['toolCalls'][number]): PlannedCall {
	const base = { id: call.id, providerName: call.name };
	const tool = state.tools.find((candidate) => candidate.providerName === call.name);
	if (!tool) {
		const names = state.tools.map((t) => t.providerName);
		return { ...base, arguments: call.rawArguments, rejection: `Unknown tool "${call.name}". Available tools: ${names.join(', ') || '(none)'}.` };
	}
	const where = { serverId: tool.serverId, serverName: tool.serverName, mcpName: tool.mcpName, fingerprint: tool.fingerprint };
	const parsed = adapterFor(state.provider).parseArguments(call.rawArguments);
	if (!parsed.ok) return { ...base, tool: where, arguments: call.rawArguments, rejection: `The arguments are not valid JSON: ${parsed.error}. Send a JSON object.` };
	const validation = validateArguments(tool.inputSchema, parsed.value);
	if (!validation.valid) {
		return { ...base, tool: where, arguments: parsed.value, rejection: `Invalid arguments for tool "${call.name}": ${validation.summary}. The tool was not called; fix the arguments and try again.` };
	}
	const policy = state.settings.approval;
	const needsReview = tool.forceReview === true || (policy !== undefined && requiresApproval(policy, tool));
	return {
		...base,
		tool: where,
		arguments: parsed.value,
		...(needsReview ? { review: { status: 'pending', argsHash: hashArguments(parsed.value), warnings: tool.warnings ?? [], rounds: 0 } } : {}),
	};
}

/** The model is told when a person changed the arguments it asked for. */
function noteEdits(phase: RunToolsPhase, outcome: ToolOutcome): ToolOutcome {
	const call = phase.calls.find((c) => c.id === outcome.id);
	if (call?.review?.status !== 'edited') return outcome;
	return { ...outcome, text: `Note: a person reviewing this call edited its arguments before it ran; it ran with ${JSON.stringify(call.arguments)}.\n${outcome.text}` };
}

/** Once every call has a result (run, rejected, denied or expired), the results go to the model. */
function settle(state: AgentState): AgentState {
	if (state.phase.name !== 'run_tools') return state;
	const phase = state.phase;
	const resolved = (call: PlannedCall) => Boolean(call.rejection) || call.id in phase.outcomes;
	if (!phase.calls.every(resolved)) return state;
	const ordered: ToolOutcome[] = phase.calls.map((call) =>
		call.rejection ? { id: call.id, isError: true, text: call.rejection, images: [] } : phase.outcomes[call.id],
	);
	const log: ToolLogEntry[] = phase.calls.map((call, index) => ({
		iteration: state.iterations,
		id: call.id,
		...(call.tool ? { server: call.tool.serverName } : {}),
		tool: call.tool?.mcpName ?? call.providerName,
		arguments: call.arguments,
		isError: ordered[index].isError,
		resultSummary: summarize(ordered[index]),
		durationMs: phase.durations[call.id] ?? 0,
		...(call.review
			? {
					review: {
						decision: call.review.status,
						...(call.review.reviewer ? { reviewer: call.review.reviewer } : {}),
						...(call.review.decidedAt ? { decidedAt: call.review.decidedAt } : {}),
						...(call.review.reason ? { reason: call.review.reason } : {}),
						...(call.review.originalArguments !== undefined ? { editedFrom: call.review.originalArguments } : {}),
						warnings: call.review.warnings,
					},
				}
			: {}),
	}));
	return continueOrStop({
		...state,
		transcript: [...state.transcript, ...adapterFor(state.provider).toolResultItems(ordered)],
		toolLog: [...state.toolLog, ...log],
	});
}

function summarize(outcome: ToolOutcome): string {
	const text = outcome.text.replace(/\s+/g, ' ').trim();
	const images = outcome.images.length ? ` [+${outcome.images.length} image${outcome.images.length > 1 ? 's' : ''}]` : '';
	return (text.length > 200 ? `${text.slice(0, 200)}…` : text) + images;
}

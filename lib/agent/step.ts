import { validateArguments } from '../tools/argumentValidator';
import { base64DecodedBytes, parseJsonText } from '../tools/callResult';
import { adapterFor } from '../providers/registry';
import { EMPTY_USAGE } from '../providers/shared';
import type { ProviderId } from '../providers/providerId';
import { REVIEWER_CHOICES } from './policy';
import { judgeCall, refusalText, type CallVerdict } from './approvalRules';
import { hashReviewedCall } from './argumentHash';
import { applyDecisions, awaitingPerson, expireApproval, refreshCatalog, shownIdentity } from './review';
import { answerActions, startInputRound } from './callInput';
import { logEntry, providerSearchEntry } from './toolLog';
import { setEntry } from './ownEntry';
import { applyGrants, recordStandingApprovals } from './grants';
import { AGENT_STATE_VERSION } from './stateSchema';
import { callUnderSearch, initialToolLoading, offeredTools, withProviderSearches, type ToolLoadingOptions } from './toolLoading';
import type { AgentEffect, AgentEvent, AgentState, PlannedCall, RunSettings, RunStatus, ToolInputNeeded, ToolLogEntry, RunToolsPhase } from './types';
import type { CatalogTool, ModelTurn, StopKind, ToolOutcome, Usage } from '../providers/modelTypes';
import type { RunningTask } from '../mcp/toolTask';
import { McpAgentError, REPORT_A_BUG } from '../errors';

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
	/** Tool Loading (absent: every tool on every turn). */
	toolLoading?: ToolLoadingOptions;
}

export function createRun(init: RunInit): AgentState {
	const toolLoading = initialToolLoading(init.tools, init.toolLoading, init.settings, init.provider);
	return {
		version: AGENT_STATE_VERSION,
		provider: init.provider,
		settings: init.settings,
		tools: init.tools,
		transcript: adapterFor(init.provider).initialTranscript(init.userMessage, init.history ?? []),
		iterations: 0,
		usage: { ...EMPTY_USAGE },
		toolLog: [],
		userMessage: init.userMessage,
		phase: { name: 'call_model' },
		lastText: '',
		...(toolLoading ? { toolLoading } : {}),
	};
}

/**
 * Tool calls one model turn may run. A model (or a prompt injection steering it) asking for
 * hundreds of calls at once would flood servers and reviewers; the calls beyond this go back to the
 * model as errors and nothing runs for them.
 */
export const MAX_TOOL_CALLS_PER_TURN = 64;

function tooManyCalls(index: number): string {
	return `Too many tool calls in one turn: at most ${MAX_TOOL_CALLS_PER_TURN} run per turn, and this was call ${index + 1}, so it was not run. Request it again in a later turn if it is still needed.`;
}

/**
 * Images a run passes to the model in all: each is sent again on every later turn and stored with a
 * paused run, and providers refuse requests with too many (Anthropic: 100). Each tool result is
 * capped on its own too (toolOutcome.ts); this bounds a turn of many calls, and the run.
 */
export const MAX_RUN_IMAGES = 20;
export const MAX_RUN_IMAGE_BYTES = 8_000_000;

/** The outcome with the images the run's budget still allows (counted into `sent`); the others become notes. */
function withinImageBudget(outcome: ToolOutcome, sent: { count: number; bytes: number }): ToolOutcome {
	if (outcome.images.length === 0) return outcome;
	const kept: ToolOutcome['images'] = [];
	const notes: string[] = [];
	for (const image of outcome.images) {
		const bytes = base64DecodedBytes(image.data);
		if (sent.count + 1 > MAX_RUN_IMAGES || sent.bytes + bytes > MAX_RUN_IMAGE_BYTES) {
			notes.push(`[image omitted: ${image.mimeType}, this run already passed ${sent.count} images (${sent.bytes} bytes) to the model, the most one run passes]`);
			continue;
		}
		sent.count += 1;
		sent.bytes += bytes;
		kept.push(image);
	}
	return notes.length ? { ...outcome, images: kept, text: [outcome.text, ...notes].filter(Boolean).join('\n') } : outcome;
}

/**
 * Results, reviews and decisions are bound to a call by its id: two calls of one turn with the same
 * id (or none) could not be told apart, so a decision for one would also run the other. A
 * conforming provider never sends that; a broken or hostile compatible server might.
 */
function ambiguousId(id: string): string {
	return `This tool call's id (${JSON.stringify(id)}) is ${id ? 'shared with another call of the same turn' : 'empty'}, so its result and any review could not be bound to it: it was not run. Request it again with a unique id if it is still needed.`;
}

/** Ids that more than one call of the turn has, and the empty id. */
function ambiguousIds(calls: ModelTurn['toolCalls']): Set<string> {
	const seen = new Set<string>();
	const ambiguous = new Set<string>();
	for (const { id } of calls) {
		if (!id || seen.has(id)) ambiguous.add(id);
		seen.add(id);
	}
	return ambiguous;
}

/**
 * Calls that may run now: valid, not yet run, needing no review or approved, and not waiting for a
 * person's input (a call whose input was answered runs again, with the answers).
 */
export function runnableCalls(phase: RunToolsPhase): PlannedCall[] {
	return phase.calls.filter(
		(call) =>
			!call.rejection &&
			!Object.hasOwn(phase.outcomes, call.id) &&
			(!call.review || call.review.status === 'approved' || call.review.status === 'edited') &&
			(!call.input || call.input.status === 'answered') &&
			!call.task,
	);
}

/**
 * Calls that ran and became MCP tasks still running: they are checked, never run again. A task
 * that asked a person for input waits for the person first (awaitingPerson), then is checked with
 * the answers.
 */
export function waitingTasks(phase: RunToolsPhase): PlannedCall[] {
	return phase.calls.filter((call) => call.task !== undefined && !call.rejection && call.input?.status !== 'pending' && !Object.hasOwn(phase.outcomes, call.id));
}

/** Calls waiting for a person's input (the server asked for it during the call). */
export function pendingInputs(phase: RunToolsPhase): PlannedCall[] {
	return phase.calls.filter((call) => call.input?.status === 'pending' && !Object.hasOwn(phase.outcomes, call.id));
}

// Calls waiting for a person (review, input, or both): defined beside applyDecisions, which checks against them.
export { awaitingPerson };

export function nextEffect(state: AgentState): AgentEffect {
	switch (state.phase.name) {
		case 'call_model':
			return { type: 'call_model' };
		case 'run_tools': {
			const runnable = runnableCalls(state.phase);
			if (runnable.length > 0) return { type: 'run_tools', calls: runnable };
			return { type: 'request_approval', calls: awaitingPerson(state.phase), tasks: waitingTasks(state.phase), ...(state.phase.approval ? { approval: state.phase.approval } : {}) };
		}
		case 'finished':
			return { type: 'finish', status: state.phase.status };
	}
}

export function step(state: AgentState, event: AgentEvent): AgentState {
	if (event.type === 'model_turn') {
		if (state.phase.name !== 'call_model') throw new McpAgentError(`Agent run: model turn received while ${state.phase.name}`, { code: 'state', description: REPORT_A_BUG });
		return afterModelTurn(state, event.turn);
	}
	if (event.type === 'catalog_refreshed') {
		// Outside a tool turn there is nothing to re-check; later model calls see the current tools.
		if (state.phase.name !== 'run_tools') return { ...state, tools: event.tools };
		return settle({ ...state, tools: event.tools }, refreshCatalog(state.phase, event.tools));
	}
	if (state.phase.name !== 'run_tools') throw new McpAgentError(`Agent run: ${event.type} received while ${state.phase.name}`, { code: 'state', description: REPORT_A_BUG });
	const phase = state.phase;
	switch (event.type) {
		case 'tool_outcomes': {
			const outcomes = { ...phase.outcomes };
			const images = { count: state.imagesSent?.count ?? 0, bytes: state.imagesSent?.bytes ?? 0 };
			// Indexed loops: no iterator objects in the per-turn path.
			for (let i = 0; i < event.outcomes.length; i++) setEntry(outcomes, event.outcomes[i].id, noteEdits(phase, withinImageBudget(event.outcomes[i], images)));
			if (images.count !== (state.imagesSent?.count ?? 0)) state = { ...state, imagesSent: images };
			const durations = { ...phase.durations };
			if (event.durations) {
				const ids = Object.keys(event.durations);
				for (let i = 0; i < ids.length; i++) setEntry(durations, ids[i], event.durations[ids[i]]);
			}
			const progress = event.progress ? mergedByCall(phase.progress, event.progress) : undefined;
			const tasks = event.tasks ? mergedByCall(phase.tasks, event.tasks) : undefined;
			const calls = event.running ? withRunningTasks(phase.calls, outcomes, event.running) : phase.calls;
			const gathered = { ...phase, calls, outcomes, durations, ...(progress ? { progress } : {}), ...(tasks ? { tasks } : {}) };
			const next = event.inputRequired?.length ? withInputRounds(gathered, event.inputRequired) : gathered;
			return settle(state, next);
		}
		case 'approval_opened':
			return { ...state, phase: { ...phase, approval: event.approval } };
		case 'approval_decided':
			return settle(state, applyDecisions(state, phase, event));
		case 'approval_expired':
			return settle(state, expireApproval(phase, event.approvalId, event.at));
		case 'grants_read': {
			const next = applyGrants(phase, event.grants, event.scope, event.at);
			return next === phase ? state : { ...state, phase: next };
		}
		case 'grants_stored': {
			const next = recordStandingApprovals(phase, event.results);
			return next === phase ? state : { ...state, phase: next };
		}
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

/**
 * What counts against Token Budget: every input token, cached or not, and every output token. The
 * providers report cached input apart (Anthropic's input_tokens leaves out cache reads and writes;
 * we split OpenAI's cached_tokens out of prompt_tokens), and with prompt caching most of a long
 * run's input is cached, so leaving it out would let a run go far past its budget.
 */
function budgetedTokens(usage: Usage): number {
	return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens;
}

function afterModelTurn(previous: AgentState, turn: ModelTurn): AgentState {
	const state: AgentState = {
		...previous,
		transcript: appended(previous.transcript, turn.transcriptItems),
		iterations: previous.iterations + 1,
		usage: addUsage(previous.usage, turn.usage),
		lastText: turn.text || previous.lastText,
	};
	const searches = turn.providerSearches;
	if (searches?.length) {
		// The provider's own searches ran on its side during the turn: logged at once, what they found recorded as loaded.
		const searchTool = state.toolLoading?.searchTool ?? 'tool_search';
		state.toolLog = appended(state.toolLog, searches.map((search) => providerSearchEntry(state.iterations, searchTool, search)));
		if (state.toolLoading?.strategy === 'provider') state.toolLoading = withProviderSearches(state, state.toolLoading, searches);
	}
	const { tokenBudget } = state.settings;
	const used = budgetedTokens(state.usage);
	if (tokenBudget > 0 && used > tokenBudget) {
		const cached = state.usage.cacheReadTokens + state.usage.cacheWriteTokens;
		return finish(state, 'token_budget_exceeded', turn.stop, `used ${used} of ${tokenBudget} tokens${cached > 0 ? ` (${cached} of them cached input)` : ''}`);
	}
	if (turn.toolCalls.length > 0 && (turn.stop === 'tool_use' || turn.stop === 'end_turn' || turn.stop === 'other')) {
		const ambiguous = ambiguousIds(turn.toolCalls);
		// Tool search answers its own calls here (no server), and loads what it finds for the next turns.
		let loading = state.toolLoading;
		const outcomes: Record<string, ToolOutcome> = {};
		const calls = turn.toolCalls.map((call, index): PlannedCall => {
			const rejection = ambiguous.has(call.id) ? ambiguousId(call.id) : index >= MAX_TOOL_CALLS_PER_TURN ? tooManyCalls(index) : undefined;
			if (rejection) return { id: call.id, providerName: call.name, arguments: call.rawArguments, rejection };
			const searched = loading ? callUnderSearch(state, loading, call, toolByProviderName(state.tools, call.name)) : undefined;
			if (!searched) return planCall(state, call);
			loading = searched.loading;
			if (searched.outcome) setEntry(outcomes, call.id, searched.outcome);
			return searched.call;
		});
		if (loading !== state.toolLoading) state.toolLoading = loading;
		const phase: RunToolsPhase = { name: 'run_tools', calls, assistantText: turn.text, outcomes, durations: {}, decidedApprovals: [] };
		// A call that was neither rejected nor answered is still to run: `state` is this step's own new object, so it takes the phase.
		if (calls.some((call) => !call.rejection && !Object.hasOwn(outcomes, call.id))) {
			state.phase = phase;
			return state;
		}
		return settle(state, phase);
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

/** ECMA-262 `\s` for one UTF-16 unit: trim() strips exactly WhiteSpace and LineTerminator. */
const isSpace = (unit: string) => unit.trim() === '';

/**
 * The body of a final answer fenced as ```json ... ``` (or ``` ... ```), else the text as it is.
 * What `/^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/` returns as its group, by hand: on V8
 * that pattern took minutes on a model's answer of a few thousand lines (every newline of the
 * header run times every one before the closing fence). Here each run is walked once.
 */
export function stripCodeFence(text: string): string {
	let at = 0;
	while (at < text.length && isSpace(text[at])) at += 1;
	if (!text.startsWith('```', at)) return text;
	at += 3;
	if (text.startsWith('json', at)) at += 4;
	let headerEnd = at;
	while (headerEnd < text.length && isSpace(text[headerEnd])) headerEnd += 1;
	let end = text.length;
	while (end > 0 && isSpace(text[end - 1])) end -= 1;
	const fence = end - 3;
	if (fence <= at || !text.startsWith('```', fence)) return text;
	let tailStart = fence;
	while (tailStart > 0 && isSpace(text[tailStart - 1])) tailStart -= 1;
	// The newline that ends the body: one in the whitespace right before the closing fence.
	const lastBreak = text.lastIndexOf('\n', fence - 1);
	if (lastBreak < tailStart) return text;
	// The newline that ends the header: the last one in its whitespace that leaves room for the body's end.
	let headerBreak = Math.min(headerEnd, lastBreak) - 1;
	while (headerBreak >= at && text[headerBreak] !== '\n') headerBreak -= 1;
	if (headerBreak < at) return text;
	const bodyStart = headerBreak + 1;
	const bodyEnd = text.indexOf('\n', Math.max(bodyStart, tailStart));
	return text.slice(bodyStart, bodyEnd);
}

function continueOrStop(state: AgentState): AgentState {
	if (state.iterations >= state.settings.maxIterations) {
		return finish(state, 'max_iterations', undefined, `stopped after ${state.iterations} model calls (Max Iterations)`);
	}
	return { ...state, phase: { name: 'call_model' } };
}

function planCall(state: AgentState, call: ModelTurn['toolCalls'][number]): PlannedCall {
	const base = { id: call.id, providerName: call.name };
	const tool = toolByProviderName(state.tools, call.name);
	if (!tool) {
		// The tools the model was sent (with tool search, not the whole catalog: it may be thousands).
		const names = offeredTools(state).map((t) => t.providerName);
		const search = state.toolLoading ? ` Search with "${state.toolLoading.searchTool}" for other tools.` : '';
		return { ...base, arguments: call.rawArguments, rejection: `Unknown tool "${call.name}". Available tools: ${names.join(', ') || '(none)'}.${search}` };
	}
	const where = { serverId: tool.serverId, serverName: tool.serverName, mcpName: tool.mcpName, fingerprint: tool.fingerprint };
	const parsed = adapterFor(state.provider).parseArguments(call.rawArguments);
	if (!parsed.ok) return { ...base, tool: where, arguments: call.rawArguments, rejection: `The arguments are not valid JSON: ${parsed.error}. Send a JSON object.` };
	const validation = validateArguments(tool.inputSchema, parsed.value);
	if (!validation.valid) {
		return { ...base, tool: where, arguments: parsed.value, rejection: `Invalid arguments for tool "${call.name}": ${validation.summary}. The tool was not called; fix the arguments and try again.` };
	}
	const policy = state.settings.approval;
	const verdict: CallVerdict = policy ? judgeCall(policy, tool, parsed.value) : { effect: 'run', by: 'policy' };
	if (verdict.effect === 'refuse') {
		return { ...base, tool: where, arguments: parsed.value, refusedBy: verdict.by, rejection: refusalText(verdict) };
	}
	// Absent allowedBy / askedBy mean the node's policy, as in runs stored before rules existed.
	if (verdict.effect === 'run' && tool.forceReview !== true) return { ...base, tool: where, arguments: parsed.value, ...(verdict.by !== 'policy' ? { allowedBy: verdict.by } : {}) };
	const askedBy = verdict.effect === 'ask' ? verdict.by : 'unpinned definition';
	const decisions = verdict.effect === 'ask' ? verdict.decisions : undefined;
	return {
		...base,
		tool: where,
		arguments: parsed.value,
		// The hash a decision must name covers the arguments and what the page shows of the call.
		review: {
			status: 'pending',
			argsHash: hashReviewedCall(parsed.value, shownIdentity(tool, { ...base, tool: where }, tool.warnings ?? [])),
			warnings: tool.warnings ?? [],
			rounds: 0,
			...(askedBy !== 'policy' ? { askedBy } : {}),
			...(decisions && decisions.length < REVIEWER_CHOICES.length ? { decisions } : {}),
		},
	};
}

/**
 * Calls the server did not finish because it needs a person's input: each starts a new input round
 * (the run then pauses for it like for an approval), or ends with an error result when it cannot
 * (too many rounds, a request no person can answer). Only calls of this turn still without a
 * result are considered: the runner reports the calls it ran.
 */
/**
 * The phase's per-call record with this batch's entries laid over it (copies: the state stays
 * immutable); undefined when the batch has none, so the phase keeps its own.
 */
function mergedByCall<T extends object>(kept: Record<string, T> | undefined, batch: Record<string, T>): Record<string, T> | undefined {
	const ids = Object.keys(batch);
	if (ids.length === 0) return undefined;
	const merged = { ...kept };
	for (let i = 0; i < ids.length; i++) setEntry(merged, ids[i], { ...batch[ids[i]] });
	return merged;
}

/** The calls with the tasks that still run recorded on them (a call that got an outcome meanwhile keeps what it had). */
function withRunningTasks(calls: PlannedCall[], outcomes: Record<string, ToolOutcome>, running: Record<string, RunningTask>): PlannedCall[] {
	return calls.map((call) => (Object.hasOwn(running, call.id) && !Object.hasOwn(outcomes, call.id) && !call.rejection ? { ...call, task: { ...running[call.id] } } : call));
}

function withInputRounds(phase: RunToolsPhase, needed: ToolInputNeeded[]): RunToolsPhase {
	const outcomes = phase.outcomes;
	const byId = new Map<string, ToolInputNeeded>();
	for (const entry of needed) if (!Object.hasOwn(outcomes, entry.id)) byId.set(entry.id, entry);
	const calls = phase.calls.map((call): PlannedCall => {
		const entry = byId.get(call.id);
		if (!entry || call.rejection) return call;
		const round = startInputRound(call.input, entry);
		if (round.ok) return { ...call, input: round.input };
		setEntry(outcomes, call.id, { id: call.id, isError: true, text: round.error, images: [] });
		return call;
	});
	return { ...phase, calls };
}

/**
 * The model is told when a person changed the arguments it asked for, and when the server asked a
 * person for input during the call (and what they chose; their values reach only the server).
 */
function noteEdits(phase: RunToolsPhase, outcome: ToolOutcome): ToolOutcome {
	let call: PlannedCall | undefined;
	for (let i = 0; i < phase.calls.length; i++) {
		if (phase.calls[i].id === outcome.id) {
			call = phase.calls[i];
			break;
		}
	}
	if (call?.review?.status !== 'edited' && !call?.input) return outcome;
	let text = outcome.text;
	const actions = call.input ? answerActions(call.input) : undefined;
	if (actions) {
		const chosen = [...new Set(Object.values(actions))].join(', ');
		text = `Note: during this call the server asked a person for input; they answered (${chosen}) and the call went on with their answer.\n${text}`;
	}
	if (call.review?.status === 'edited') text = `Note: a person reviewing this call edited its arguments before it ran; it ran with ${JSON.stringify(call.arguments)}.\n${text}`;
	return { ...outcome, text };
}

/**
 * The state in a tool turn with `phase`. Once every call has a result (run, rejected, denied or
 * expired), the results go to the model: one new state with the results in the transcript and the
 * tool log, and the phase after it.
 */
function settle(state: AgentState, phase: RunToolsPhase): AgentState {
	const { calls, outcomes } = phase;
	for (let i = 0; i < calls.length; i++) {
		if (!calls[i].rejection && !Object.hasOwn(outcomes, calls[i].id)) return { ...state, phase };
	}
	const ordered: ToolOutcome[] = new Array(calls.length);
	const log: ToolLogEntry[] = new Array(calls.length);
	for (let index = 0; index < calls.length; index++) {
		const call = calls[index];
		const outcome = call.rejection ? { id: call.id, isError: true, text: call.rejection, images: [] } : outcomes[call.id];
		ordered[index] = outcome;
		log[index] = logEntry(state.iterations, call, outcome, phase.durations[call.id], phase.progress?.[call.id], phase.tasks?.[call.id]);
	}
	const next: AgentState = {
		...state,
		transcript: appended(state.transcript, adapterFor(state.provider).toolResultItems(ordered)),
		toolLog: appended(state.toolLog, log),
		phase: { name: 'call_model' },
	};
	return next.iterations >= next.settings.maxIterations ? continueOrStop(next) : next;
}

/**
 * A new array: `items` after `list` (states are never changed in place), of the exact size. A plain
 * copy loop is the quickest for the short arrays of most runs (concat's generic checks cost more
 * than the copy, spread grows its result as it goes); concat copies long ones in one block.
 */
function appended<T>(list: T[], items: T[]): T[] {
	const length = list.length;
	if (length > 128) return list.concat(items);
	const result = new Array<T>(length + items.length);
	for (let i = 0; i < length; i++) result[i] = list[i];
	for (let i = 0; i < items.length; i++) result[length + i] = items[i];
	return result;
}

const toolIndex = new WeakMap<CatalogTool[], Map<string, CatalogTool>>();

/** The catalog tool a provider name refers to (the first match), through an index built once per catalog when it is large. */
function toolByProviderName(tools: CatalogTool[], name: string): CatalogTool | undefined {
	if (tools.length <= 16) return tools.find((tool) => tool.providerName === name);
	let index = toolIndex.get(tools);
	if (!index) {
		index = new Map();
		for (const tool of tools) if (!index.has(tool.providerName)) index.set(tool.providerName, tool);
		toolIndex.set(tools, index);
	}
	return index.get(name);
}

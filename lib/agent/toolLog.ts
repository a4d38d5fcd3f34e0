import { answerActions } from './callInput';
import { isGrantRef } from './grants';
import type { CallAllowance, PlannedCall, ToolLogEntry } from './types';
import type { ProviderSearch, ToolOutcome } from '../providers/modelTypes';
import type { ToolProgress } from '../mcp/progress';
import type { TaskSummary } from '../mcp/toolTask';

/**
 * The run's tool log: one audit entry per call once its turn is settled, with a short summary of
 * the result. It is node output (the run's toolLog, Continue On Fail's error item), so its shape
 * stays stable; the reducer (step.ts) only appends to it.
 */

/** The audit entry of one call; optional fields only when set, in a fixed key order (it is node output). */
export function logEntry(iteration: number, call: PlannedCall, outcome: ToolOutcome, durationMs: number | undefined, progress?: ToolProgress, task?: TaskSummary): ToolLogEntry {
	const entry: ToolLogEntry = call.tool
		? {
				iteration,
				id: call.id,
				server: call.tool.serverName,
				tool: call.tool.mcpName,
				arguments: call.arguments,
				isError: outcome.isError,
				resultSummary: summarize(outcome),
				durationMs: durationMs ?? 0,
			}
		: {
				iteration,
				id: call.id,
				tool: call.providerName,
				arguments: call.arguments,
				isError: outcome.isError,
				resultSummary: summarize(outcome),
				durationMs: durationMs ?? 0,
			};
	if (call.builtIn) entry.builtIn = call.builtIn;
	if (outcome.trimmed) entry.resultTrimmed = { shownChars: outcome.trimmed.shown, totalChars: outcome.trimmed.total };
	const allowance = allowanceOf(call);
	if (allowance) entry.allowedBy = allowance;
	if (call.refusedBy) entry.refusedBy = { ...call.refusedBy };
	const review = call.review;
	if (review) {
		entry.review = {
			decision: review.status,
			...(review.reviewer ? { reviewer: review.reviewer } : {}),
			...(review.decidedAt ? { decidedAt: review.decidedAt } : {}),
			...(review.reason ? { reason: review.reason } : {}),
			...(review.originalArguments !== undefined ? { editedFrom: review.originalArguments } : {}),
			warnings: review.warnings,
			...(review.standingApproval ? { standingApproval: { ...review.standingApproval } } : {}),
		};
	}
	const input = call.input;
	if (input) {
		const actions = answerActions(input);
		entry.input = {
			status: input.status,
			rounds: input.round,
			...(actions ? { actions } : {}),
			...(input.reviewer ? { reviewer: input.reviewer } : {}),
			...(input.answeredAt ? { answeredAt: input.answeredAt } : {}),
		};
	}
	if (progress) entry.progress = { ...progress };
	if (task) entry.task = { ...task };
	return entry;
}

/**
 * The audit entry of a search the provider ran on its side (its own tool search): what the model
 * searched for and the tools it found, logged like the Agent's own search_tools calls.
 */
export function providerSearchEntry(iteration: number, searchTool: string, search: ProviderSearch): ToolLogEntry {
	const found = search.found.length ? `Found ${search.found.length} tool${search.found.length === 1 ? '' : 's'}: ${search.found.join(', ')}` : 'No tool found';
	const text = search.error ? `The provider's tool search failed (${search.error})` : found;
	return { iteration, id: search.id, tool: searchTool, arguments: search.arguments, isError: search.error !== undefined, resultSummary: summarize({ text, isError: false, images: [], id: search.id }), durationMs: 0, builtIn: 'provider_tool_search' };
}

/**
 * What let a call through, for a call that reached its tool; undefined for one that did not (refused,
 * rejected, denied or expired). A person's approval or edit names the person; otherwise the
 * approval rule or standing approval the call carries, else the node's policy.
 */
export function allowanceOf(call: PlannedCall): CallAllowance | undefined {
	// The Agent's own tool search reaches no tool: nothing was let through.
	if (call.rejection !== undefined || call.builtIn) return undefined;
	const review = call.review;
	if (review) {
		if (review.status !== 'approved' && review.status !== 'edited') return undefined;
		return { by: 'person', ...(review.reviewer ? { reviewer: review.reviewer } : {}), ...(review.decidedAt ? { decidedAt: review.decidedAt } : {}) };
	}
	if (isGrantRef(call.allowedBy)) return { by: 'grant', ...call.allowedBy };
	const allowed = call.allowedBy as (Record<string, unknown> & { rule?: number; label?: string }) | undefined;
	if (allowed && typeof allowed.rule === 'number') return { by: 'rule', rule: allowed.rule, label: String(allowed.label) };
	return { by: 'policy' };
}

/** The allowance in words, for n8n's log. */
export function allowanceText(allowance: CallAllowance | undefined): string {
	switch (allowance?.by) {
		case 'person':
			return `approved by ${allowance.reviewer ?? 'a person'}${allowance.decidedAt ? ` at ${allowance.decidedAt}` : ''}`;
		case 'rule':
			return `allowed by approval rule ${allowance.rule} "${allowance.label}"`;
		case 'grant':
			return `allowed by standing approval ${allowance.grant}${allowance.grantedBy ? ` of ${allowance.grantedBy}` : ''}`;
		case 'policy':
			return 'allowed by Require Approval For';
		default:
			return 'not allowed';
	}
}

/** How much of a result's text is normalized for its summary before falling back to all of it. */
const SUMMARY_SCAN = 1024;

/** The result's text with whitespace runs collapsed, trimmed, cut to 200 characters; images counted. */
export function summarize(outcome: ToolOutcome): string {
	const images = outcome.images.length ? ` [+${outcome.images.length} image${outcome.images.length > 1 ? 's' : ''}]` : '';
	const raw = outcome.text;
	if (raw.length > SUMMARY_SCAN) {
		// A large result: normalize a prefix only. Collapsing a prefix gives a prefix of the collapsed
		// whole, and 202 collapsed characters hold a non-space at index 200 or 201, so the whole is
		// longer than 200 too. Otherwise (mostly whitespace) the whole text is normalized below.
		const head = raw.slice(0, SUMMARY_SCAN).replace(/\s+/g, ' ').trimStart();
		if (head.length >= 202) return `${head.slice(0, 200)}…${images}`;
	}
	const text = UNNORMALIZED.test(raw) ? raw.replace(/\s+/g, ' ').trim() : raw;
	return (text.length > 200 ? `${text.slice(0, 200)}…` : text) + images;
}

/** Whitespace other than single spaces between words: where collapsing and trimming change the text. */
const UNNORMALIZED = /[^\S ]| \s|^\s|\s$/;

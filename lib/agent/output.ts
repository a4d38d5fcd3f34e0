import { parseJsonParameter } from '../util/jsonParameter';
import { configError } from '../errors';
import { PRIOR_CONVERSATION_FORMAT } from '../providers/shared';
import type { AgentState } from './types';
import { toolLoadingSummary } from './toolLoading';

/** The Agent node's output for one finished run. */
export function agentRunOutput(state: AgentState, includeTranscript: boolean): Record<string, unknown> {
	const phase = state.phase.name === 'finished' ? state.phase : undefined;
	const text = phase?.text ?? state.lastText;
	return {
		// n8n's Chat Trigger ("Last Node" response mode) and chat widget read the answer from `output`.
		output: text,
		text,
		...(phase?.structured !== undefined ? { structured: phase.structured } : {}),
		status: phase?.status ?? 'stopped',
		stopReason: phase?.stop ?? null,
		...(phase?.detail ? { detail: phase.detail } : {}),
		iterations: state.iterations,
		usage: state.usage,
		toolCalls: state.toolLog,
		...(state.toolLoading ? { toolSearch: toolLoadingSummary(state) } : {}),
		model: state.settings.model,
		provider: state.provider,
		...(includeTranscript ? { transcript: state.transcript } : {}),
	};
}

/** Prior conversation from the node option: an array, or a JSON string of one. */
export function parseHistory(value: unknown): unknown[] {
	const parsed = parseJsonParameter(value, 'Prior Conversation', []);
	if (!Array.isArray(parsed)) throw configError('Prior Conversation must be a JSON array of { role, content } messages', PRIOR_CONVERSATION_FORMAT);
	return parsed;
}

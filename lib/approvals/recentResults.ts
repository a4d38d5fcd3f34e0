import type { AgentState } from '../agent/types';
import { scanText } from '../tools/poisoning';
import { isJsonObject } from '../util/jsonObject';

/** A tool result the model saw since the last user turn: where injected instructions usually come from. */
export interface ContextToolResult {
	callId: string;
	server: string;
	tool: string;
	isError: boolean;
	/** The result text as the model saw it (already capped by the run's limits). */
	text: string;
	/** Poisoning warnings from scanning the text, as for tool descriptions. */
	warnings: string[];
}

/**
 * What led to a call: the tool results the model read since the user's message. Instructions
 * injected into a web page, a file or an e-mail reach the model through exactly these, so the
 * reviewer sees them, scanned and flagged like tool descriptions.
 *
 * The run's tool log says which calls ran (and on which server); the text is read from the
 * provider-native transcript, as the model saw it. The three transcript shapes are told apart by
 * their own fields, so nothing here branches on the provider's name.
 */
export const MAX_RESULT_TEXT = 4000;
/** The most recent results shown; older ones are counted, not shown. */
export const MAX_RECENT_RESULTS = 20;

type Json = Record<string, unknown>;

/** The text parts of a result's content: a string, or an array of text / input_text blocks. */
function contentText(content: unknown): string {
	if (typeof content === 'string') return content;
	if (!Array.isArray(content)) return '';
	return content
		.filter((part): part is Json => isJsonObject(part) && typeof part.text === 'string' && (part.type === 'text' || part.type === 'input_text'))
		.map((part) => part.text as string)
		.join('\n');
}

/**
 * Tool result texts in the transcript, by call id, in transcript order (Anthropic tool_result blocks,
 * Chat tool messages, Responses function_call_output items). A list per id: some OpenAI-compatible
 * servers reuse ids across turns.
 */
export function toolResultTexts(transcript: unknown[]): Map<string, string[]> {
	const texts = new Map<string, string[]>();
	const add = (id: string, text: string) => {
		const list = texts.get(id);
		if (list) list.push(text);
		else texts.set(id, [text]);
	};
	for (const item of transcript) {
		if (!isJsonObject(item)) continue;
		if (item.type === 'function_call_output' && typeof item.call_id === 'string') add(item.call_id, contentText(item.output));
		else if (item.role === 'tool' && typeof item.tool_call_id === 'string') add(item.tool_call_id, contentText(item.content));
		else if (item.role === 'user' && Array.isArray(item.content)) {
			for (const block of item.content) {
				if (isJsonObject(block) && block.type === 'tool_result' && typeof block.tool_use_id === 'string') add(block.tool_use_id, contentText(block.content));
			}
		}
	}
	return texts;
}

function capped(text: string): string {
	if (text.length <= MAX_RESULT_TEXT) return text;
	return `${text.slice(0, MAX_RESULT_TEXT)}\n[… ${text.length - MAX_RESULT_TEXT} more characters not shown]`;
}

/** Poisoning warnings for a result's full text (the length check is for descriptions, not results). */
function warningsFor(text: string): string[] {
	return scanText(text)
		.map((warning) => `This result ${warning.message}.`);
}

export function recentToolResults(state: AgentState): { results: ContextToolResult[]; omitted: number } {
	// The tool log holds this run's calls only: everything since the user's message.
	const log = state.toolLog;
	const first = Math.max(0, log.length - MAX_RECENT_RESULTS);
	const texts = toolResultTexts(state.transcript);
	// The transcript may hold results of the prior conversation too: the run's own are its last ones per id.
	const seen = new Map<string, number>();
	for (const entry of log) seen.set(entry.id, (seen.get(entry.id) ?? 0) + 1);
	const textOf = (id: string, occurrence: number) => {
		const list = texts.get(id) ?? [];
		return list[list.length - (seen.get(id) ?? 0) + occurrence];
	};
	const counted = new Map<string, number>();
	const results: ContextToolResult[] = [];
	for (let index = 0; index < log.length; index++) {
		const entry = log[index];
		const occurrence = counted.get(entry.id) ?? 0;
		counted.set(entry.id, occurrence + 1);
		if (index < first) continue;
		const text = textOf(entry.id, occurrence) ?? entry.resultSummary;
		results.push({ callId: entry.id, server: entry.server ?? '', tool: entry.tool, isError: entry.isError, text: capped(text), warnings: warningsFor(text) });
	}
	return { results, omitted: first };
}

import type { CatalogTool, ModelSettings, ToolOutcome, Usage } from './modelTypes';
import type { ToolDefinition } from '../tools/toolDefinition';
import { configError } from '../errors';

export const EMPTY_USAGE: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

export function asToolDefinition(tool: CatalogTool): ToolDefinition {
	return { name: tool.mcpName, description: tool.description, inputSchema: tool.inputSchema };
}

const toolListCache = new WeakMap<CatalogTool[], Map<string, unknown[]>>();

/**
 * A run sends the same tool list on every model call; converting it (schemas made strict, cache
 * markers) once per catalog keeps the per-turn cost flat. Callers must not mutate the result.
 */
export function cachedToolList<T>(tools: CatalogTool[], variant: string, build: (tools: CatalogTool[]) => T[]): T[] {
	let variants = toolListCache.get(tools);
	if (!variants) toolListCache.set(tools, (variants = new Map()));
	let list = variants.get(variant) as T[] | undefined;
	if (!list) variants.set(variant, (list = build(tools)));
	return list;
}

/** Tool Choice "A Specific Tool": a catalog name as is, else an MCP name ("tool" or "server:tool") mapped to its catalog name. */
export function forcedToolName(name: string, tools: CatalogTool[]): string {
	if (tools.some((tool) => tool.providerName === name)) return name;
	const colon = name.indexOf(':');
	const matches = tools.filter((tool) =>
		colon > 0 ? tool.serverName === name.slice(0, colon) && tool.mcpName === name.slice(colon + 1) : tool.mcpName === name,
	);
	return matches.length === 1 ? matches[0].providerName : name;
}

const instructions = new WeakMap<object, string>();

/** Providers without a native structured-output switch get the schema as an instruction (serialized once per schema, not per turn). */
export function systemWithStructuredOutput(settings: ModelSettings): string | undefined {
	const schema = settings.structuredOutput;
	if (!schema) return settings.system;
	let instruction = instructions.get(schema);
	if (instruction === undefined) {
		instruction = `When you give your final answer, reply with only a JSON value (no prose, no code fence) that matches this JSON Schema:\n${JSON.stringify(schema)}`;
		instructions.set(schema, instruction);
	}
	return settings.system ? `${settings.system}\n\n${instruction}` : instruction;
}

export function parseJsonArguments(raw: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
	if (raw && typeof raw === 'object') return { ok: true, value: raw };
	if (typeof raw !== 'string') return { ok: false, error: `expected a JSON object, got ${raw === null ? 'null' : typeof raw}` };
	if (raw.trim() === '') return { ok: true, value: {} };
	try {
		return { ok: true, value: JSON.parse(raw) };
	} catch (error) {
		return { ok: false, error: (error as Error).message };
	}
}

/** A token count as reported: a finite number, never below 0 (a compatible server may send anything). */
export function numberOr0(value: unknown): number {
	return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * The items with an id on every tool call: a compatible server that leaves ids out (some local
 * ones do) gets `call_<n>` by the call's position in the turn, in the replayed transcript too, so
 * its results can be matched and sent back. Ids the provider gave are kept as they are; the loop
 * refuses calls of one turn that share one.
 */
export function withCallIds(items: Array<Record<string, unknown>>, key: 'id' | 'call_id', isCall: (item: Record<string, unknown>) => boolean): Array<Record<string, unknown>> {
	let position = 0;
	return items.map((item) => {
		if (!isCall(item)) return item;
		position++;
		return typeof item[key] === 'string' && item[key] !== '' ? item : { ...item, [key]: `call_${position}` };
	});
}

export function dataUrl(image: { mimeType: string; data: string }): string {
	return `data:${image.mimeType};base64,${image.data}`;
}

/** Error results are marked in the text for providers that have no is_error flag. */
/**
 * Tool results as chat-style tool messages (role "tool", text only: not every chat API or model
 * takes images there), and the results' images after them in one user message, which does,
 * each image as `imagePart` makes it.
 */
export function toolMessagesWithImages(outcomes: ToolOutcome[], imagePart: (image: ToolOutcome['images'][number]) => unknown): unknown[] {
	const items: unknown[] = outcomes.map((outcome) => ({ role: 'tool', tool_call_id: outcome.id, content: resultText(outcome) }));
	const images = outcomes.flatMap((outcome) => outcome.images.map((image) => ({ id: outcome.id, image })));
	if (images.length === 0) return items;
	items.push({
		role: 'user',
		content: [{ type: 'text', text: `Images returned by tool calls ${[...new Set(images.map((i) => i.id))].join(', ')}:` }, ...images.map(({ image }) => imagePart(image))],
	});
	return items;
}

export function resultText(outcome: { isError: boolean; text: string }): string {
	const text = outcome.text || '(empty result)';
	return outcome.isError ? `Error: ${text}` : text;
}

/** What to do about a Prior Conversation option that cannot be read. */
export const PRIOR_CONVERSATION_FORMAT =
	'In Options > Prior Conversation, give an array such as [{ "role": "user", "content": "Hi" }, { "role": "assistant", "content": "Hello" }], or the transcript output of an earlier run (an expression such as {{ $json.transcript }}).';

/** History entries must be objects with a role; anything else is a user error to report. */
export function checkHistory(history: unknown[]): Array<Record<string, unknown>> {
	return history.map((entry, index) => {
		if (!entry || typeof entry !== 'object' || typeof (entry as { role?: unknown }).role !== 'string') {
			throw configError(`Prior conversation: entry ${index} must be an object with a "role" (user, assistant) and "content"`, PRIOR_CONVERSATION_FORMAT);
		}
		return entry as Record<string, unknown>;
	});
}

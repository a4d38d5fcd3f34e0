import type { ToolLogEntry } from './types';

/**
 * n8n's chat memory sub-nodes (Simple Memory, Redis, Postgres, MongoDB … Chat Memory) hand the
 * Agent a LangChain BaseChatMemory, usually wrapped by n8n so that loads and saves show on the
 * memory node in the execution view. It is read by duck typing (no import of n8n's LangChain).
 * The memory node itself picks the conversation: it keys it by the session id (the Chat Trigger's
 * `sessionId`, or the key set on the node).
 */
export interface ChatMemory {
	loadMemoryVariables(values: Record<string, unknown>): Promise<Record<string, unknown>>;
	saveContext(input: Record<string, unknown>, output: Record<string, unknown>): Promise<void>;
	chatHistory?: { getMessages?(): Promise<unknown[]> };
}

/** A prior turn in the provider-neutral shape every adapter's initialTranscript accepts. */
export interface PriorTurn {
	role: 'user' | 'assistant';
	content: string;
}

export function isChatMemory(value: unknown): value is ChatMemory {
	const memory = value as Partial<ChatMemory> | null;
	return Boolean(memory && typeof memory === 'object' && typeof memory.loadMemoryVariables === 'function' && typeof memory.saveContext === 'function');
}

/** A LangChain message's type: `_getType()` (LangChain 0.x), `getType()` (1.x), or the serialized `type`/`id`. */
function messageType(message: unknown): string | undefined {
	const m = message as { _getType?: () => unknown; getType?: () => unknown; type?: unknown; role?: unknown; id?: unknown } | null;
	if (!m || typeof m !== 'object') return undefined;
	for (const read of [() => m.getType?.(), () => m._getType?.()]) {
		try {
			const type = read();
			if (typeof type === 'string') return type;
		} catch {
			// Not this accessor.
		}
	}
	// Serialized LangChain messages (toJSON): { lc: 1, type: "constructor", id: [..., "HumanMessage"], kwargs }.
	if (Array.isArray(m.id) && (m.type === undefined || m.type === 'constructor')) return String(m.id[m.id.length - 1]);
	if (typeof m.type === 'string') return m.type;
	if (typeof m.role === 'string') return m.role;
	return undefined;
}

function textOf(content: unknown): string {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) {
		return content
			.map((part) => (typeof part === 'string' ? part : part && typeof part === 'object' && (part as { type?: unknown }).type === 'text' ? String((part as { text?: unknown }).text ?? '') : ''))
			.filter(Boolean)
			.join('\n');
	}
	return '';
}

function contentOf(message: unknown): unknown {
	const m = message as { content?: unknown; kwargs?: { content?: unknown } };
	return m.content ?? m.kwargs?.content;
}

const ROLES: Record<string, PriorTurn['role'] | undefined> = {
	human: 'user',
	user: 'user',
	HumanMessage: 'user',
	ai: 'assistant',
	assistant: 'assistant',
	AIMessage: 'assistant',
	AIMessageChunk: 'assistant',
};

/**
 * The stored messages as user and assistant text turns. Tool messages and tool-call-only AI
 * messages (saved by n8n's AI Agent) are left out: their calls cannot be replayed to another
 * provider, and the final answers carry what came of them. System messages are left out too (the
 * Agent has its own system prompt). Consecutive turns of one role are joined, since some providers
 * require user and assistant to alternate.
 */
export function priorTurns(messages: unknown[]): PriorTurn[] {
	const turns: PriorTurn[] = [];
	for (const message of messages) {
		const type = messageType(message);
		// Own entries only: a type such as "constructor" or "toString" must not find Object.prototype's.
		const role = type !== undefined && Object.hasOwn(ROLES, type) ? ROLES[type] : undefined;
		if (!role) continue;
		const text = textOf(contentOf(message)).trim();
		if (!text) continue;
		const last = turns[turns.length - 1];
		if (last && last.role === role) last.content = `${last.content}\n\n${text}`;
		else turns.push({ role, content: text });
	}
	return turns;
}

/** The conversation so far, from the memory node (loads show on it in the execution view). */
export async function loadPriorTurns(memory: ChatMemory): Promise<PriorTurn[]> {
	const variables = await memory.loadMemoryVariables({});
	const history = variables?.chat_history ?? variables?.history;
	if (Array.isArray(history)) return priorTurns(history);
	// A memory configured to return a string buffer: fall back to its message store.
	const messages = await memory.chatHistory?.getMessages?.();
	return Array.isArray(messages) ? priorTurns(messages) : [];
}

/** Characters of a call's input saved to memory, like the 200 of its result summary. */
const MAX_SAVED_INPUT_CHARS = 200;

function savedInput(args: unknown): string {
	const json = JSON.stringify(args) ?? 'null';
	return json.length > MAX_SAVED_INPUT_CHARS ? `${json.slice(0, MAX_SAVED_INPUT_CHARS)}…` : json;
}

/**
 * Saves one exchange: the user's message and the final answer. Tool traffic stays out unless asked
 * for; then it is written into the saved answer as text, the form n8n's own agent uses for
 * memories that store plain messages (provider-native tool calls cannot be replayed elsewhere).
 */
export async function saveExchange(memory: ChatMemory, userMessage: string, answer: string, toolCalls?: ToolLogEntry[]): Promise<void> {
	let output = answer;
	if (toolCalls && toolCalls.length > 0) {
		// Inputs are cut like result summaries: a call that wrote a whole file must not fill every later prompt with it.
		const used = toolCalls.map((call) => `Tool: ${call.tool}, Input: ${savedInput(call.arguments)}, Result: ${call.resultSummary}`).join('; ');
		output = `[Used tools: ${used}] ${answer}`;
	}
	await memory.saveContext({ input: userMessage }, { output });
}

/**
 * Chat memory as n8n's memory sub-nodes hand it over: a BaseChatMemory (loadMemoryVariables /
 * saveContext / chatHistory) holding LangChain messages, read by duck typing.
 */
import { isChatMemory, loadPriorTurns, priorTurns, saveExchange, type ChatMemory } from '../../lib/agent/memory';

/** A LangChain 1.x message: type through getType(), content a string or content blocks. */
const message = (type: string, content: unknown, extra: Record<string, unknown> = {}) => ({ getType: () => type, content, ...extra });

/** What Simple Memory (BufferWindowMemory, returnMessages: true) does, without LangChain. */
function fakeBufferMemory(): ChatMemory & { messages: unknown[]; saves: Array<[unknown, unknown]> } {
	const messages: unknown[] = [];
	const saves: Array<[unknown, unknown]> = [];
	return {
		messages,
		saves,
		async loadMemoryVariables() {
			return { chat_history: [...messages] };
		},
		async saveContext(input, output) {
			saves.push([input, output]);
			messages.push(message('human', input.input), message('ai', output.output));
		},
		chatHistory: { getMessages: async () => [...messages] },
	};
}

describe('prior turns from chat memory', () => {
	it('keeps user and assistant text, drops tool traffic and system messages, joins consecutive turns of one role', () => {
		const turns = priorTurns([
			message('system', 'be nice'),
			message('human', 'What is in /tmp?'),
			message('ai', '', { tool_calls: [{ id: 't1', name: 'list', args: {} }] }),
			message('tool', 'a.txt', { tool_call_id: 't1' }),
			message('ai', [{ type: 'text', text: 'One file: a.txt' }]),
			message('human', 'Delete it'),
			message('human', 'please'),
		]);
		expect(turns).toEqual([
			{ role: 'user', content: 'What is in /tmp?' },
			{ role: 'assistant', content: 'One file: a.txt' },
			{ role: 'user', content: 'Delete it\n\nplease' },
		]);
	});

	it('reads LangChain 0.x messages (_getType) and serialized ones', () => {
		expect(priorTurns([{ _getType: () => 'human', content: 'hi' }, { id: ['langchain_core', 'messages', 'AIMessage'], kwargs: { content: 'hello' } }])).toEqual([
			{ role: 'user', content: 'hi' },
			{ role: 'assistant', content: 'hello' },
		]);
	});

	it("reads LangChain's toJSON form (type 'constructor'), and skips unknown types that name Object.prototype members", () => {
		const serialized = (kind: string, content: string) => ({ lc: 1, type: 'constructor', id: ['langchain_core', 'messages', kind], kwargs: { content } });
		expect(priorTurns([serialized('HumanMessage', 'My name is Ana'), serialized('AIMessage', 'Hi Ana')])).toEqual([
			{ role: 'user', content: 'My name is Ana' },
			{ role: 'assistant', content: 'Hi Ana' },
		]);
		expect(priorTurns([{ type: 'toString', content: 'x' }, { role: 'hasOwnProperty', content: 'y' }, message('human', 'hello')])).toEqual([{ role: 'user', content: 'hello' }]);
	});

	it('loads through loadMemoryVariables (which n8n logs on the memory node), falling back to the message store', async () => {
		const memory = fakeBufferMemory();
		await saveExchange(memory, 'first question', 'first answer');
		expect(await loadPriorTurns(memory)).toEqual([
			{ role: 'user', content: 'first question' },
			{ role: 'assistant', content: 'first answer' },
		]);
		const stringBuffer: ChatMemory = { ...memory, loadMemoryVariables: async () => ({ history: 'Human: first question\nAI: first answer' }) };
		expect(await loadPriorTurns(stringBuffer)).toHaveLength(2);
	});

	it('saves the user message and the final answer only, or with the tool calls as text when asked', async () => {
		const memory = fakeBufferMemory();
		const log = [{ iteration: 1, id: 'c1', server: 'Files', tool: 'list', arguments: { path: '/tmp' }, isError: false, resultSummary: 'a.txt', durationMs: 3 }];
		await saveExchange(memory, 'q', 'a');
		await saveExchange(memory, 'q2', 'a2', log);
		expect(memory.saves).toEqual([
			[{ input: 'q' }, { output: 'a' }],
			[{ input: 'q2' }, { output: '[Used tools: Tool: list, Input: {"path":"/tmp"}, Result: a.txt] a2' }],
		]);
		// A large input is cut like the result summary (200 characters).
		await saveExchange(memory, 'q3', 'a3', [{ ...log[0], arguments: { path: '/tmp/big', content: 'x'.repeat(10_000) } }]);
		expect(memory.saves[2][1]).toEqual({ output: `[Used tools: Tool: list, Input: ${JSON.stringify({ path: '/tmp/big', content: 'x'.repeat(10_000) }).slice(0, 200)}…, Result: a.txt] a3` });
		expect(isChatMemory(memory)).toBe(true);
		expect(isChatMemory({ loadMemoryVariables: () => ({}) })).toBe(false);
	});
});

/**
 * The chatModel adapter (an n8n Chat Model sub-node's LangChain model, read by duck typing) and its
 * client, against LangChain-shaped fakes: plain objects with bindTools / invoke / stream that answer
 * as AIMessage and AIMessageChunk objects do. Nothing here loads LangChain.
 */
import { buildCatalog } from '../../lib/agent/catalog';
import { createRun, MAX_TOOL_CALLS_PER_TURN, nextEffect, step } from '../../lib/agent/step';
import type { AgentState, PlannedCall, RunSettings } from '../../lib/agent/types';
import { chatModel } from '../../lib/providers/chatModel';
import { assertToolCallingModel, chatModelAnswerFromChunks, chatModelClient, toLangChainMessages, type ToolCallingChatModel } from '../../lib/providers/chatModelClient';
import type { CatalogTool, ToolOutcome } from '../../lib/providers/modelTypes';
import { adapterFor } from '../../lib/providers/registry';
import { buildModelClient } from '../../lib/providers/clients';
import { McpAgentError } from '../../lib/errors';

const SETTINGS: RunSettings = {
	model: '',
	maxIterations: 5,
	maxOutputTokens: 100,
	tokenBudget: 0,
	toolChoice: { type: 'auto' },
	parallelToolCalls: true,
	promptCaching: false,
	maxToolResultChars: 1000,
};

const TOOLS: CatalogTool[] = buildCatalog([
	{
		id: 's1',
		name: 'main',
		trustAnnotations: true,
		tools: [
			{
				name: 'echo',
				description: 'Echoes',
				inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'], additionalProperties: false },
				annotations: { readOnlyHint: true },
			},
		],
	},
]).tools;

type Answer = Record<string, unknown>;

interface Fake extends ToolCallingChatModel {
	bound: Array<{ tools: unknown[]; options?: Record<string, unknown> }>;
	calls: Array<{ messages: unknown[]; options?: Record<string, unknown> }>;
}

/** A chat model answering from a script; `stream` yields the scripted chunk lists. */
function fakeModel(answers: Answer[], chunks: unknown[][] = []): Fake {
	const fake: Fake = {
		bound: [],
		calls: [],
		invoke: () => Promise.reject(new Error('unbound invoke')),
		bindTools(tools, options) {
			fake.bound.push({ tools, ...(options ? { options } : {}) });
			return {
				invoke: async (messages, opts) => {
					fake.calls.push({ messages: JSON.parse(JSON.stringify(messages)) as unknown[], ...(opts ? { options: opts } : {}) });
					const next = answers.shift();
					if (!next) throw new Error('script exhausted');
					return next;
				},
				stream: async (messages, opts) => {
					fake.calls.push({ messages, ...(opts ? { options: opts } : {}) });
					const list = chunks.shift() ?? [];
					return (async function* () {
						for (const chunk of list) {
							if (chunk instanceof Error) throw chunk;
							yield chunk;
						}
					})();
				},
			};
		},
	};
	return fake;
}

const ok = (id: string, text: string): ToolOutcome => ({ id, isError: false, text, images: [] });

function phaseOf<N extends AgentState['phase']['name']>(state: AgentState, name: N): Extract<AgentState['phase'], { name: N }> {
	expect(state.phase.name).toBe(name);
	return state.phase as Extract<AgentState['phase'], { name: N }>;
}

async function modelStep(state: AgentState, client: ReturnType<typeof chatModelClient>): Promise<AgentState> {
	expect(nextEffect(state)).toEqual({ type: 'call_model' });
	const adapter = adapterFor(state.provider);
	const answer = await client.send(adapter.buildRequest(state.settings, state.tools, state.transcript));
	return step(state, { type: 'model_turn', turn: adapter.parseResponse(answer) });
}

describe('chatModel adapter: registry and request', () => {
	it('is registered under "chatModel"; the API client factory refuses it', () => {
		expect(adapterFor('chatModel')).toBe(chatModel);
		expect(() => buildModelClient({ provider: 'chatModel', apiKey: '', maxRetries: 0, timeoutMs: 1000 })).toThrow(/no API client of its own/);
	});

	it('builds messages, neutral tools, tool choice and settings', () => {
		const body = chatModel.buildRequest(
			{ ...SETTINGS, system: 'Be brief.', temperature: 0.2, toolChoice: { type: 'tool', name: 'echo' }, parallelToolCalls: false },
			TOOLS,
			[{ role: 'user', content: 'hi' }],
		);
		expect(body).toEqual({
			messages: [
				{ role: 'system', content: 'Be brief.' },
				{ role: 'user', content: 'hi' },
			],
			tools: [{ name: TOOLS[0].providerName, description: 'Echoes', parameters: TOOLS[0].inputSchema }],
			toolChoice: { name: TOOLS[0].providerName },
			settings: { maxOutputTokens: 100, parallelToolCalls: false, temperature: 0.2 },
		});
		// The same tools array every turn: the client binds once per catalog.
		expect(chatModel.buildRequest(SETTINGS, TOOLS, []).tools).toBe(body.tools);
		expect(chatModel.buildRequest({ ...SETTINGS, toolChoice: { type: 'required' } }, TOOLS, []).toolChoice).toBe('required');
		expect(chatModel.buildRequest(SETTINGS, [], []).toolChoice).toBeUndefined();
	});

	it('asks for structured output in the system message', () => {
		const body = chatModel.buildRequest({ ...SETTINGS, structuredOutput: { type: 'object' } }, [], [{ role: 'user', content: 'hi' }]);
		expect((body.messages as Array<{ role: string; content: string }>)[0]).toMatchObject({ role: 'system', content: expect.stringContaining('JSON Schema') });
	});
});

describe('chatModel adapter: a run through createRun / step', () => {
	it('runs a tool call round trip; the transcript survives JSON', async () => {
		const model = fakeModel([
			{ content: 'Let me check.', tool_calls: [{ id: 'c1', name: TOOLS[0].providerName, args: { message: 'x' }, type: 'tool_call' }], response_metadata: { finish_reason: 'tool_calls' } },
			{ content: [{ type: 'text', text: 'Echo said ' }, { type: 'text', text: 'x.' }], response_metadata: { stop_reason: 'end_turn' }, usage_metadata: { input_tokens: 30, output_tokens: 4 } },
		]);
		assertToolCallingModel(model, 'OpenAI Chat Model');
		const client = chatModelClient(model);
		let state = createRun({ provider: 'chatModel', settings: SETTINGS, tools: TOOLS, userMessage: 'echo x' });
		state = await modelStep(state, client);
		const phase = phaseOf(state, 'run_tools');
		expect(phase.calls.map((call: PlannedCall) => [call.id, call.rejection])).toEqual([['c1', undefined]]);
		expect(nextEffect(state)).toMatchObject({ type: 'run_tools' });
		state = step(state, { type: 'tool_outcomes', outcomes: [ok('c1', 'Echo: x')] });

		// A paused run is stored as JSON and resumed on another worker: same conversation.
		const stored = JSON.parse(JSON.stringify(state)) as AgentState;
		expect(stored.transcript).toEqual(state.transcript);
		expect(stored.transcript).toEqual([
			{ role: 'user', content: 'echo x' },
			{ role: 'assistant', content: 'Let me check.', tool_calls: [{ id: 'c1', name: TOOLS[0].providerName, args: { message: 'x' } }] },
			{ role: 'tool', tool_call_id: 'c1', content: 'Echo: x' },
		]);

		state = await modelStep(stored, client);
		expect(phaseOf(state, 'finished')).toMatchObject({ status: 'completed', text: 'Echo said x.' });
		expect(state.usage).toEqual({ inputTokens: 30, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0 });
		// The stored state's catalog is a new array (as on another worker): bound again for it, once.
		expect(model.bound).toHaveLength(2);
		expect(model.bound[1].tools).toEqual(model.bound[0].tools);
		expect(model.bound[0].tools).toEqual([{ type: 'function', function: { name: TOOLS[0].providerName, description: 'Echoes', parameters: TOOLS[0].inputSchema } }]);
		expect(model.calls[1].messages).toEqual([
			{ role: 'user', content: 'echo x' },
			{ role: 'assistant', content: 'Let me check.', tool_calls: [{ id: 'c1', name: TOOLS[0].providerName, args: { message: 'x' }, type: 'tool_call' }] },
			{ role: 'tool', content: 'Echo: x', tool_call_id: 'c1' },
		]);
	});

	it('reads OpenAI-shaped additional_kwargs.tool_calls; non-JSON arguments become a rejection the model sees', async () => {
		const name = TOOLS[0].providerName;
		const model = fakeModel([
			{
				content: '',
				additional_kwargs: {
					tool_calls: [
						{ id: 'a', type: 'function', function: { name, arguments: '{"message":"hi"}' } },
						{ id: 'b', type: 'function', function: { name, arguments: '{"message": hi' } },
					],
				},
				response_metadata: { finish_reason: 'tool_calls' },
			},
		]);
		const client = chatModelClient(model);
		const state = await modelStep(createRun({ provider: 'chatModel', settings: SETTINGS, tools: TOOLS, userMessage: 'go' }), client);
		const [a, b] = phaseOf(state, 'run_tools').calls;
		expect(a).toMatchObject({ id: 'a', arguments: { message: 'hi' } });
		expect(a.rejection).toBeUndefined();
		expect(b.rejection).toMatch(/^The arguments are not valid JSON: .*Send a JSON object\.$/);
		// Replayed as an object the chat models accept.
		expect(state.transcript[1]).toEqual({ role: 'assistant', content: '', tool_calls: [{ id: 'a', name, args: { message: 'hi' } }, { id: 'b', name, args: {} }] });
		const after = step(state, { type: 'tool_outcomes', outcomes: [ok('a', 'Echo: hi')] });
		expect(after.transcript.slice(2)).toEqual([
			{ role: 'tool', tool_call_id: 'a', content: 'Echo: hi' },
			{ role: 'tool', tool_call_id: 'b', content: expect.stringMatching(/^Error: The arguments are not valid JSON/) },
		]);
	});

	it('LangChain invalid_tool_calls are refused to the model; tool_calls are not read twice with additional_kwargs', () => {
		const name = TOOLS[0].providerName;
		const turn = chatModel.parseResponse({
			content: '',
			tool_calls: [{ id: 'a', name, args: { message: 'm' } }],
			invalid_tool_calls: [{ id: 'b', name, args: '{oops', error: 'bad' }],
			additional_kwargs: { tool_calls: [{ id: 'a', type: 'function', function: { name, arguments: '{"message":"m"}' } }] },
		});
		expect(turn.toolCalls).toEqual([
			{ id: 'a', name, rawArguments: { message: 'm' } },
			{ id: 'b', name, rawArguments: '{oops' },
		]);
		expect(chatModel.parseArguments('{oops')).toMatchObject({ ok: false });
	});

	it('passes thousands of calls through for the step function to cap; missing ids get call_<n>, duplicates stay', () => {
		const name = TOOLS[0].providerName;
		const many = Array.from({ length: 2000 }, (_, i) => ({ id: `c${i}`, name, args: { message: String(i) } }));
		const turn = chatModel.parseResponse({ content: '', tool_calls: many });
		expect(turn.toolCalls).toHaveLength(2000);
		const state = step(createRun({ provider: 'chatModel', settings: SETTINGS, tools: TOOLS, userMessage: 'go' }), { type: 'model_turn', turn });
		const calls = phaseOf(state, 'run_tools').calls;
		expect(calls.filter((call) => !call.rejection)).toHaveLength(MAX_TOOL_CALLS_PER_TURN);

		const ids = chatModel.parseResponse({ tool_calls: [{ name, args: {} }, { id: 'x', name, args: {} }, { id: 'x', name, args: {} }] }).toolCalls.map((call) => call.id);
		expect(ids).toEqual(['call_1', 'x', 'x']);
	});

	it('an answer with no content and no calls adds nothing to the transcript and completes', () => {
		const turn = chatModel.parseResponse({ content: [], response_metadata: {} });
		expect(turn).toEqual({ transcriptItems: [], text: '', toolCalls: [], stop: 'other', usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 } });
		expect(chatModel.parseResponse(undefined)).toMatchObject({ transcriptItems: [], toolCalls: [] });
		const state = step(createRun({ provider: 'chatModel', settings: SETTINGS, tools: TOOLS, userMessage: 'go' }), { type: 'model_turn', turn });
		expect(phaseOf(state, 'finished').status).toBe('completed');
	});
});

describe('chatModel adapter: usage and stop reasons', () => {
	it('splits cache reads and writes out of usage_metadata input tokens', () => {
		const turn = chatModel.parseResponse({
			content: 'x',
			usage_metadata: { input_tokens: 1000, output_tokens: 20, total_tokens: 1020, input_token_details: { cache_read: 700, cache_creation: 200 } },
		});
		expect(turn.usage).toEqual({ inputTokens: 100, outputTokens: 20, cacheReadTokens: 700, cacheWriteTokens: 200 });
		expect(chatModel.parseResponse({ content: 'x', response_metadata: { tokenUsage: { promptTokens: 5, completionTokens: 2 } } }).usage).toEqual({
			inputTokens: 5,
			outputTokens: 2,
			cacheReadTokens: 0,
			cacheWriteTokens: 0,
		});
		expect(chatModel.parseResponse({ content: 'x', usage_metadata: { input_tokens: -3, output_tokens: 'many' } }).usage).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
	});

	it.each([
		['Anthropic usage', { usage: { input_tokens: 12, output_tokens: 3, cache_read_input_tokens: 40, cache_creation_input_tokens: 8 } }, [12, 3, 40, 8]],
		['OpenAI usage', { usage: { prompt_tokens: 50, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 30 } } }, [20, 4, 30, 0]],
		['Bedrock usage', { usage: { inputTokens: 9, outputTokens: 2 } }, [9, 2, 0, 0]],
		['Ollama counts', { prompt_eval_count: 33, eval_count: 5, done_reason: 'stop' }, [33, 5, 0, 0]],
		['nothing', { finish_reason: 'stop' }, [0, 0, 0, 0]],
	])('without usage_metadata, reads %s from response_metadata', (_name, metadata, [inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens]) => {
		expect(chatModel.parseResponse({ content: 'x', response_metadata: metadata }).usage).toEqual({ inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens });
		// usage_metadata, when there, wins.
		expect(chatModel.parseResponse({ content: 'x', response_metadata: metadata, usage_metadata: { input_tokens: 1, output_tokens: 1 } }).usage.inputTokens).toBe(1);
	});

	it('a streamed answer reports the usage its chunks add up to, and response_metadata usage when they carry none', async () => {
		const summed = await chatModelAnswerFromChunks(
			(async function* () {
				yield { content: 'a', usage_metadata: { input_tokens: 20, output_tokens: 1, total_tokens: 21, input_token_details: { cache_read: 5 } } };
				yield { content: 'b', usage_metadata: { input_tokens: 0, output_tokens: 6, total_tokens: 6 }, response_metadata: { stop_reason: 'end_turn' } };
			})(),
			() => undefined,
		);
		expect(chatModel.parseResponse(summed).usage).toEqual({ inputTokens: 15, outputTokens: 7, cacheReadTokens: 5, cacheWriteTokens: 0 });
		const fromMetadata = await chatModelAnswerFromChunks(
			(async function* () {
				yield { content: 'a' };
				yield { content: '', response_metadata: { done_reason: 'stop', prompt_eval_count: 11, eval_count: 2 } };
			})(),
			() => undefined,
		);
		expect(chatModel.parseResponse(fromMetadata).usage).toEqual({ inputTokens: 11, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 });
	});

	it.each([
		[{ finish_reason: 'stop' }, 'end_turn'],
		[{ finish_reason: 'length' }, 'max_tokens'],
		[{ finish_reason: 'content_filter' }, 'refusal'],
		[{ stop_reason: 'max_tokens' }, 'max_tokens'],
		[{ stop_reason: 'pause_turn' }, 'pause_turn'],
		[{ stop_reason: 'model_context_window_exceeded' }, 'context_exceeded'],
		[{ stopReason: 'end_turn' }, 'end_turn'],
		[{ finishReason: 'MAX_TOKENS' }, 'max_tokens'],
		[{ finishReason: 'SAFETY' }, 'refusal'],
		[{ done_reason: 'stop' }, 'end_turn'],
		[{ finish_reason: 'something_new' }, 'other'],
		[{}, 'other'],
	])('%j → %s', (metadata, stop) => {
		expect(chatModel.parseResponse({ content: 'x', response_metadata: metadata }).stop).toBe(stop);
	});

	it('a refusal in additional_kwargs stops the run as a refusal; "stop" beside tool calls is a tool turn', () => {
		expect(chatModel.parseResponse({ content: '', additional_kwargs: { refusal: 'No.' } })).toMatchObject({ stop: 'refusal', refusal: 'No.' });
		expect(chatModel.parseResponse({ tool_calls: [{ id: 'a', name: 'n', args: {} }], response_metadata: { finishReason: 'STOP' } }).stop).toBe('tool_use');
	});
});

describe('chatModel client', () => {
	it('refuses a model without bindTools, naming the sub-node', () => {
		for (const model of [{ invoke: () => Promise.resolve({}) }, null, 'gpt', {}]) {
			let thrown: unknown;
			try {
				assertToolCallingModel(model, 'My Ollama Model');
			} catch (error) {
				thrown = error;
			}
			expect(McpAgentError.isInstance(thrown)).toBe(true);
			expect(thrown).toMatchObject({ code: 'config', message: 'The Chat Model sub-node "My Ollama Model" gives a model that cannot call tools' });
		}
	});

	it('maps tool choice and parallel calls onto bindTools options, once per tools array and choice, and passes the signal', async () => {
		const model = fakeModel([{ content: 'a' }, { content: 'b' }, { content: 'c' }]);
		const client = chatModelClient(model);
		const body = chatModel.buildRequest({ ...SETTINGS, toolChoice: { type: 'required' }, parallelToolCalls: false }, TOOLS, [{ role: 'user', content: 'q' }]);
		const signal = new AbortController().signal;
		await client.send(body, signal);
		await client.send(body, signal);
		await client.send(chatModel.buildRequest({ ...SETTINGS, toolChoice: { type: 'tool', name: 'echo' } }, TOOLS, [{ role: 'user', content: 'q' }]));
		expect(model.bound.map((b) => b.options)).toEqual([{ tool_choice: 'any', parallel_tool_calls: false }, { tool_choice: TOOLS[0].providerName }]);
		expect(model.calls[0].options).toEqual({ signal });
	});

	it('without tools, invokes the model itself', async () => {
		const model = fakeModel([]);
		const invoked: unknown[] = [];
		model.invoke = (messages) => {
			invoked.push(messages);
			return Promise.resolve({ content: 'plain' });
		};
		const answer = await chatModelClient(model).send(chatModel.buildRequest(SETTINGS, [], [{ role: 'user', content: 'q' }]));
		expect(answer).toEqual({ content: 'plain' });
		expect(model.bound).toHaveLength(0);
		expect(invoked).toEqual([[{ role: 'user', content: 'q' }]]);
	});

	it('an error the model throws propagates as it is', async () => {
		const failure = new Error('429 rate limited');
		const model = fakeModel([]);
		model.bindTools = () => ({ invoke: () => Promise.reject(failure) });
		await expect(chatModelClient(model).send(chatModel.buildRequest(SETTINGS, TOOLS, []))).rejects.toBe(failure);
	});

	it('turns tool-result images into LangChain image_url parts', () => {
		const items = chatModel.toolResultItems([{ id: 'a', isError: true, text: 'bad', images: [{ mimeType: 'image/png', data: 'AAAA' }] }]);
		expect(toLangChainMessages(items)).toEqual([
			{ role: 'tool', content: 'Error: bad', tool_call_id: 'a' },
			{ role: 'user', content: [{ type: 'text', text: 'Images returned by tool calls a:' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
		]);
	});
});

describe('chatModel client: streaming', () => {
	it('assembles text and tool_call_chunks, emitting text deltas', async () => {
		const name = TOOLS[0].providerName;
		const model = fakeModel(
			[],
			[
				[
					{ content: 'Checking', usage_metadata: { input_tokens: 10, output_tokens: 0, input_token_details: { cache_read: 4 } } },
					{ content: [{ type: 'text', text: ' now.', index: 0 }] },
					{ content: '', tool_call_chunks: [{ id: 'c1', name, args: '{"mess', index: 0 }] },
					{ content: '', tool_call_chunks: [{ args: 'age":"x"}', index: 0 }] },
					{ content: '', tool_call_chunks: [{ id: 'c2', name, args: '{"message": x', index: 1 }] },
					{ content: '', usage_metadata: { input_tokens: 0, output_tokens: 7 }, response_metadata: { finish_reason: 'tool_calls' } },
				],
			],
		);
		const deltas: string[] = [];
		const answer = await chatModelClient(model).stream!(chatModel.buildRequest(SETTINGS, TOOLS, [{ role: 'user', content: 'q' }]), (d) => deltas.push(d));
		expect(deltas).toEqual(['Checking', ' now.']);
		const turn = chatModel.parseResponse(answer);
		expect(turn).toMatchObject({
			text: 'Checking now.',
			toolCalls: [
				{ id: 'c1', name, rawArguments: { message: 'x' } },
				{ id: 'c2', name, rawArguments: '{"message": x' },
			],
			stop: 'tool_use',
			usage: { inputTokens: 6, outputTokens: 7, cacheReadTokens: 4, cacheWriteTokens: 0 },
		});
		expect(chatModel.parseArguments(turn.toolCalls[1].rawArguments)).toMatchObject({ ok: false });
	});

	it('takes whole tool_calls on chunks that carry no tool_call_chunks', async () => {
		const answer = await chatModelAnswerFromChunks(
			(async function* () {
				yield { content: '', tool_calls: [{ id: 'w', name: 'n', args: { a: 1 } }] };
			})(),
			() => undefined,
		);
		expect(chatModel.parseResponse(answer).toolCalls).toEqual([{ id: 'w', name: 'n', rawArguments: { a: 1 } }]);
	});

	it('a model throwing mid-stream propagates; the text before it was emitted', async () => {
		const failure = new Error('connection reset');
		const model = fakeModel([], [[{ content: 'par' }, failure]]);
		const deltas: string[] = [];
		await expect(chatModelClient(model).stream!(chatModel.buildRequest(SETTINGS, TOOLS, []), (d) => deltas.push(d))).rejects.toBe(failure);
		expect(deltas).toEqual(['par']);
	});

	it('refuses a tool call index out of bounds', async () => {
		const chunks = (async function* () {
			yield { content: '', tool_call_chunks: [{ id: 'a', name: 'n', args: '{}', index: 4294967294 }] };
		})();
		await expect(chatModelAnswerFromChunks(chunks, () => undefined)).rejects.toMatchObject({ code: 'remote', message: expect.stringMatching(/names tool call 4294967294/) });
	});
});

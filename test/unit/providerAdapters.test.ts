/**
 * The three provider adapters as pure functions: request bodies, response parsing and tool-result
 * items, exact shapes. Conversations the adapters build are also run through the fakes' wire checks
 * (the rules the real APIs enforce with a 400), in both directions: well-formed ones pass, broken
 * ones are caught.
 */
import type { RunSettings } from '../../lib/agent/types';
import type { CatalogTool, ToolOutcome } from '../../lib/providers/modelTypes';
import { anthropicMessages } from '../../lib/providers/anthropicMessages';
import { openAiChat } from '../../lib/providers/openAiChat';
import { openAiResponses } from '../../lib/providers/openAiResponses';
import { adapterFor } from '../../lib/providers/registry';
import { isContextOverflow, explainProviderError, ProviderError } from '../../lib/providers/errors';
import {
	anthropicMessage,
	anthropicText,
	anthropicToolUse,
	chatCompletion,
	responsesFunctionCall,
	responsesMessage,
	responsesRefusal,
	responsesResponse,
	wireProblems,
} from '../support/fakeProviders';

const SETTINGS: RunSettings = {
	model: 'm-1',
	maxIterations: 10,
	maxOutputTokens: 321,
	tokenBudget: 0,
	toolChoice: { type: 'auto' },
	parallelToolCalls: true,
	promptCaching: false,
	maxToolResultChars: 1000,
};

function tool(providerName: string, mcpName: string, inputSchema: Record<string, unknown>, description?: string): CatalogTool {
	return { providerName, mcpName, serverId: 's', serverName: 'srv', inputSchema, annotationsTrusted: false, fingerprint: `fp-${mcpName}`, ...(description ? { description } : {}) };
}

const CLOSED = { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] };
const OPEN = { type: 'object', properties: { path: { type: 'string' }, head: { type: 'number' } }, required: ['path'] };
const TOOLS = [tool('echo', 'echo', CLOSED, 'Echoes'), tool('srv__read', 'read', OPEN)];
const USER = [{ role: 'user', content: 'hi' }];

const body = (reply: { body: unknown }) => reply.body;

describe('adapter registry', () => {
	it('finds each adapter by id and rejects unknown ids', () => {
		expect(adapterFor('anthropic')).toBe(anthropicMessages);
		expect(adapterFor('openaiChat')).toBe(openAiChat);
		expect(adapterFor('openaiResponses')).toBe(openAiResponses);
		expect(() => adapterFor('gemini' as never)).toThrow('Unknown provider "gemini"');
	});
});

describe('argument parsing (shared)', () => {
	it.each([
		[{ a: 1 }, { ok: true, value: { a: 1 } }],
		['{"a":1}', { ok: true, value: { a: 1 } }],
		['  ', { ok: true, value: {} }],
		['{"a":', { ok: false, error: expect.any(String) }],
		[null, { ok: false, error: 'expected a JSON object, got null' }],
		[7, { ok: false, error: 'expected a JSON object, got number' }],
		[undefined, { ok: false, error: 'expected a JSON object, got undefined' }],
	])('parses %p', (raw, expected) => {
		for (const adapter of [anthropicMessages, openAiChat, openAiResponses]) expect(adapter.parseArguments(raw)).toEqual(expected);
	});
});

describe('Anthropic Messages adapter', () => {
	const a = anthropicMessages;

	it('builds the request: tools, tool_choice, system, temperature', () => {
		expect(a.buildRequest({ ...SETTINGS, system: 'Sys', temperature: 0.2 }, TOOLS, USER)).toEqual({
			model: 'm-1',
			max_tokens: 321,
			messages: USER,
			system: [{ type: 'text', text: 'Sys' }],
			tools: [
				{ name: 'echo', description: 'Echoes', input_schema: CLOSED },
				{ name: 'srv__read', input_schema: OPEN },
			],
			tool_choice: { type: 'auto' },
			temperature: 0.2,
		});
	});

	it('marks the last tool and the system prompt with cache_control when caching', () => {
		const request = a.buildRequest({ ...SETTINGS, system: 'Sys', promptCaching: true }, TOOLS, USER) as { tools: Array<Record<string, unknown>>; system: unknown };
		expect(request.tools[0]).not.toHaveProperty('cache_control');
		expect(request.tools[1].cache_control).toEqual({ type: 'ephemeral' });
		expect(request.system).toEqual([{ type: 'text', text: 'Sys', cache_control: { type: 'ephemeral' } }]);
		// No tools, no system: only the conversation's last block is marked (a text message as its one text block).
		const marked = [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }];
		expect(a.buildRequest({ ...SETTINGS, promptCaching: true }, [], USER)).toEqual({ model: 'm-1', max_tokens: 321, messages: marked });
		// The transcript itself is not touched (it is stored and replayed as it is).
		expect(USER).toEqual([{ role: 'user', content: 'hi' }]);
	});

	it('moves the conversation breakpoint to the last block of the last message on each turn', () => {
		const transcript = [
			{ role: 'user', content: 'hi' },
			{ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'echo', input: {} }] },
			{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a' }, { type: 'tool_result', tool_use_id: 't2', content: 'b' }] },
		];
		const request = a.buildRequest({ ...SETTINGS, promptCaching: true }, TOOLS, transcript) as { messages: Array<{ content: unknown }> };
		expect(JSON.stringify(request.messages).match(/cache_control/g)).toHaveLength(1);
		expect((request.messages[2].content as Array<Record<string, unknown>>)[1].cache_control).toEqual({ type: 'ephemeral' });
		expect(request.messages[0].content).toBe('hi');
		expect(a.buildRequest({ ...SETTINGS, promptCaching: false }, TOOLS, transcript).messages).toBe(transcript);
	});

	it.each([
		[{ type: 'auto' }, true, { type: 'auto' }],
		[{ type: 'auto' }, false, { type: 'auto', disable_parallel_tool_use: true }],
		[{ type: 'required' }, true, { type: 'any' }],
		[{ type: 'tool', name: 'echo' }, false, { type: 'tool', name: 'echo', disable_parallel_tool_use: true }],
		[{ type: 'none' }, false, { type: 'none' }],
	] as const)('maps tool choice %j (parallel %s)', (toolChoice, parallelToolCalls, expected) => {
		expect(a.buildRequest({ ...SETTINGS, toolChoice, parallelToolCalls }, TOOLS, USER).tool_choice).toEqual(expected);
	});

	it('asks for structured output through the system prompt', () => {
		const schema = { type: 'object', properties: { x: { type: 'number' } } };
		const system = (a.buildRequest({ ...SETTINGS, system: 'Base.', structuredOutput: schema }, [], USER).system as Array<{ text: string }>)[0].text;
		expect(system.startsWith('Base.\n\nWhen you give your final answer, reply with only a JSON value')).toBe(true);
		expect(system).toContain(JSON.stringify(schema));
	});

	it('parses text, tool_use blocks, stop reasons and usage', () => {
		const content = [anthropicText('Let me '), anthropicText('check.'), anthropicToolUse('tu_1', 'echo', { message: 'x' })];
		const turn = a.parseResponse(body(anthropicMessage(content, 'tool_use', { input: 11, output: 7, cacheRead: 3, cacheWrite: 2 })));
		expect(turn).toEqual({
			transcriptItems: [{ role: 'assistant', content }],
			text: 'Let me check.',
			toolCalls: [{ id: 'tu_1', name: 'echo', rawArguments: { message: 'x' } }],
			stop: 'tool_use',
			usage: { inputTokens: 11, outputTokens: 7, cacheReadTokens: 3, cacheWriteTokens: 2 },
		});
		const stops = ['end_turn', 'max_tokens', 'stop_sequence', 'pause_turn', 'refusal', 'model_context_window_exceeded', 'something_new'].map(
			(reason) => a.parseResponse(body(anthropicMessage([anthropicText('t')], reason))).stop,
		);
		expect(stops).toEqual(['end_turn', 'max_tokens', 'stop_sequence', 'pause_turn', 'refusal', 'context_exceeded', 'other']);
	});

	it('survives an empty body', () => {
		expect(a.parseResponse({})).toEqual({
			// An empty assistant message would be rejected by the API on the next request.
			transcriptItems: [],
			text: '',
			toolCalls: [],
			stop: 'other',
			usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
		});
	});

	it('writes tool results as tool_result blocks in one user message (text alone as a string), is_error only on errors, images as base64', () => {
		const outcomes: ToolOutcome[] = [
			{ id: 'a', isError: false, text: 'fine', images: [] },
			{ id: 'b', isError: true, text: 'broken', images: [] },
			{ id: 'c', isError: false, text: '', images: [{ mimeType: 'image/png', data: 'iVBOR' }] },
		];
		expect(a.toolResultItems(outcomes)).toEqual([
			{
				role: 'user',
				content: [
					{ type: 'tool_result', tool_use_id: 'a', content: 'fine' },
					{ type: 'tool_result', tool_use_id: 'b', content: 'broken', is_error: true },
					{
						type: 'tool_result',
						tool_use_id: 'c',
						content: [
							{ type: 'text', text: '(empty result)' },
							{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
						],
					},
				],
			},
		]);
		expect(a.userTextItems('again')).toEqual([{ role: 'user', content: 'again' }]);
	});
});

describe('OpenAI Chat Completions adapter', () => {
	const c = openAiChat;

	it('builds the request: system message first, function tools (strict when the schema allows), choice, parallel flag', () => {
		expect(c.buildRequest({ ...SETTINGS, system: 'Sys', temperature: 1 }, TOOLS, USER)).toEqual({
			model: 'm-1',
			messages: [{ role: 'system', content: 'Sys' }, ...USER],
			max_completion_tokens: 321,
			tools: [
				{ type: 'function', function: { name: 'echo', description: 'Echoes', parameters: { ...CLOSED, additionalProperties: false }, strict: true } },
				{ type: 'function', function: { name: 'srv__read', parameters: OPEN, strict: false } },
			],
			tool_choice: 'auto',
			parallel_tool_calls: true,
			temperature: 1,
		});
		expect(c.buildRequest(SETTINGS, [], USER)).toEqual({ model: 'm-1', messages: USER, max_completion_tokens: 321 });
	});

	it.each([
		[{ type: 'auto' }, 'auto'],
		[{ type: 'required' }, 'required'],
		[{ type: 'none' }, 'none'],
		[{ type: 'tool', name: 'echo' }, { type: 'function', function: { name: 'echo' } }],
	] as const)('maps tool choice %j', (toolChoice, expected) => {
		const request = c.buildRequest({ ...SETTINGS, toolChoice, parallelToolCalls: false }, TOOLS, USER);
		expect(request.tool_choice).toEqual(expected);
		expect(request.parallel_tool_calls).toBe(false);
	});

	it('asks for structured output with response_format json_schema', () => {
		const schema = { type: 'object' };
		expect(c.buildRequest({ ...SETTINGS, structuredOutput: schema }, [], USER).response_format).toEqual({ type: 'json_schema', json_schema: { name: 'answer', schema, strict: false } });
	});

	it('parses tool calls with string arguments, keeps them verbatim in the transcript, and splits cached tokens', () => {
		const reply = body(
			chatCompletion(
				{ content: 'Calling.', toolCalls: [{ id: 'call_1', name: 'echo', arguments: '{"message":"x"}' }, { id: 'call_2', name: 'srv__read', arguments: '{bad' }] },
				'tool_calls',
				{ input: 80, cacheRead: 20, output: 6 },
			),
		);
		expect(c.parseResponse(reply)).toEqual({
			transcriptItems: [
				{
					role: 'assistant',
					content: 'Calling.',
					tool_calls: [
						{ id: 'call_1', type: 'function', function: { name: 'echo', arguments: '{"message":"x"}' } },
						{ id: 'call_2', type: 'function', function: { name: 'srv__read', arguments: '{bad' } },
					],
				},
			],
			text: 'Calling.',
			toolCalls: [
				{ id: 'call_1', name: 'echo', rawArguments: '{"message":"x"}' },
				{ id: 'call_2', name: 'srv__read', rawArguments: '{bad' },
			],
			stop: 'tool_use',
			usage: { inputTokens: 80, outputTokens: 6, cacheReadTokens: 20, cacheWriteTokens: 0 },
		});
	});

	it('maps finish reasons and refusals', () => {
		const stopOf = (reason: string) => c.parseResponse(body(chatCompletion({ content: 'x' }, reason))).stop;
		expect(['stop', 'tool_calls', 'function_call', 'length', 'content_filter', 'weird'].map(stopOf)).toEqual(['end_turn', 'tool_use', 'tool_use', 'max_tokens', 'refusal', 'other']);
		const refused = c.parseResponse(body(chatCompletion({ content: null, refusal: 'I cannot.' }, 'stop')));
		expect(refused).toMatchObject({ stop: 'refusal', refusal: 'I cannot.', text: '', transcriptItems: [{ role: 'assistant', content: null, refusal: 'I cannot.' }] });
	});

	it('ignores non-function tool calls', () => {
		const reply = body(chatCompletion({ content: null, toolCalls: [{ id: 'f', name: 'echo', arguments: '{}' }] }, 'tool_calls')) as { choices: Array<{ message: { tool_calls: unknown[] } }> };
		reply.choices[0].message.tool_calls.push({ id: 'custom_1', type: 'custom', custom: { name: 'grammar', input: 'x' } });
		expect(c.parseResponse(reply).toolCalls).toEqual([{ id: 'f', name: 'echo', rawArguments: '{}' }]);
	});

	it('writes tool messages with an Error: marker, and images in a following user message', () => {
		const outcomes: ToolOutcome[] = [
			{ id: 'a', isError: false, text: 'fine', images: [{ mimeType: 'image/png', data: 'AAA' }] },
			{ id: 'b', isError: true, text: 'broken', images: [] },
			{ id: 'c', isError: false, text: '', images: [] },
		];
		expect(c.toolResultItems(outcomes)).toEqual([
			{ role: 'tool', tool_call_id: 'a', content: 'fine' },
			{ role: 'tool', tool_call_id: 'b', content: 'Error: broken' },
			{ role: 'tool', tool_call_id: 'c', content: '(empty result)' },
			{ role: 'user', content: [{ type: 'text', text: 'Images returned by tool calls a:' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAA' } }] },
		]);
		expect(c.toolResultItems([{ id: 'x', isError: false, text: 't', images: [] }])).toHaveLength(1);
	});
});

describe('OpenAI Responses adapter', () => {
	const r = openAiResponses;

	it('builds the request: input, instructions, store false, flat function tools', () => {
		expect(r.buildRequest({ ...SETTINGS, system: 'Sys', toolChoice: { type: 'tool', name: 'echo' }, parallelToolCalls: false }, TOOLS, USER)).toEqual({
			model: 'm-1',
			input: USER,
			max_output_tokens: 321,
			store: false,
			include: ['reasoning.encrypted_content'],
			instructions: 'Sys',
			tools: [
				{ type: 'function', name: 'echo', description: 'Echoes', parameters: { ...CLOSED, additionalProperties: false }, strict: true },
				{ type: 'function', name: 'srv__read', parameters: OPEN, strict: false },
			],
			tool_choice: { type: 'function', name: 'echo' },
			parallel_tool_calls: false,
		});
		const schema = { type: 'object' };
		expect(r.buildRequest({ ...SETTINGS, structuredOutput: schema }, [], USER)).toEqual({
			model: 'm-1',
			input: USER,
			max_output_tokens: 321,
			store: false,
			include: ['reasoning.encrypted_content'],
			text: { format: { type: 'json_schema', name: 'answer', schema, strict: false } },
		});
	});

	it('parses messages and function calls, dropping server ids and unreplayable reasoning', () => {
		const message = responsesMessage('Looking.');
		const call = responsesFunctionCall('call_9', 'echo', '{"message":"y"}');
		const reasoningPlain = { type: 'reasoning', id: 'rs_1', summary: [] };
		const reasoningEncrypted = { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'gAAA' };
		const reply = body(responsesResponse([reasoningPlain, reasoningEncrypted, message, call], { input: 50, cacheRead: 10, output: 4 }));
		const turn = r.parseResponse(reply);
		const { id: _m, ...messageWithoutId } = message;
		const { id: _c, ...callWithoutId } = call;
		expect(turn).toEqual({
			transcriptItems: [{ type: 'reasoning', summary: [], encrypted_content: 'gAAA' }, messageWithoutId, callWithoutId],
			text: 'Looking.',
			toolCalls: [{ id: 'call_9', name: 'echo', rawArguments: '{"message":"y"}' }],
			stop: 'tool_use',
			usage: { inputTokens: 50, outputTokens: 4, cacheReadTokens: 10, cacheWriteTokens: 0 },
		});
	});

	it('maps status and incomplete reasons, and refusals', () => {
		const stopOf = (extra: Parameters<typeof responsesResponse>[2]) => r.parseResponse(body(responsesResponse([responsesMessage('x')], {}, extra))).stop;
		expect(stopOf({})).toBe('end_turn');
		expect(stopOf({ status: 'incomplete', incompleteReason: 'max_output_tokens' })).toBe('max_tokens');
		expect(stopOf({ status: 'incomplete', incompleteReason: 'content_filter' })).toBe('refusal');
		expect(stopOf({ status: 'incomplete', incompleteReason: 'other' })).toBe('other');
		const refused = r.parseResponse(body(responsesResponse([responsesRefusal('Not that.')])));
		expect(refused).toMatchObject({ stop: 'refusal', refusal: 'Not that.', text: '' });
	});

	it('writes function_call_output items by call_id; text only as a string, with images as a list', () => {
		expect(
			r.toolResultItems([
				{ id: 'a', isError: false, text: 'fine', images: [] },
				{ id: 'b', isError: true, text: 'broken', images: [{ mimeType: 'image/jpeg', data: 'BBB' }] },
			]),
		).toEqual([
			{ type: 'function_call_output', call_id: 'a', output: 'fine' },
			{
				type: 'function_call_output',
				call_id: 'b',
				output: [
					{ type: 'input_text', text: 'Error: broken' },
					{ type: 'input_image', image_url: 'data:image/jpeg;base64,BBB' },
				],
			},
		]);
	});
});

describe('adapter conversations against the APIs\' wire rules', () => {
	const outcomes: ToolOutcome[] = [
		{ id: 'id_1', isError: false, text: 'one', images: [{ mimeType: 'image/png', data: 'AAA' }] },
		{ id: 'id_2', isError: true, text: 'two', images: [] },
	];
	const cases = [
		{
			kind: 'anthropic' as const,
			adapter: anthropicMessages,
			reply: anthropicMessage([anthropicText('Two.'), anthropicToolUse('id_1', 'echo', { message: 'a' }), anthropicToolUse('id_2', 'srv__read', { path: 'p' })], 'tool_use'),
		},
		{
			kind: 'openaiChat' as const,
			adapter: openAiChat,
			reply: chatCompletion({ content: null, toolCalls: [{ id: 'id_1', name: 'echo', arguments: '{"message":"a"}' }, { id: 'id_2', name: 'srv__read', arguments: '{"path":"p"}' }] }, 'tool_calls'),
		},
		{
			kind: 'openaiResponses' as const,
			adapter: openAiResponses,
			reply: responsesResponse([responsesFunctionCall('id_1', 'echo', '{"message":"a"}'), responsesFunctionCall('id_2', 'srv__read', '{"path":"p"}')]),
		},
	];

	it.each(cases)('$kind: a full tool round is accepted; a missing or stray result is caught', ({ kind, adapter, reply }) => {
		const settings = { ...SETTINGS, system: 'S', promptCaching: true, toolChoice: { type: 'tool' as const, name: 'echo' } };
		const start = adapter.initialTranscript('hi', [{ role: 'user', content: 'earlier' }, { role: 'assistant', content: 'ok' }]);
		const turn = adapter.parseResponse(reply.body);
		const complete = [...start, ...turn.transcriptItems, ...adapter.toolResultItems(outcomes), ...adapter.userTextItems('Now answer.')];
		expect(wireProblems(kind, adapter.buildRequest(settings, TOOLS, complete))).toEqual([]);
		// The first request too.
		expect(wireProblems(kind, adapter.buildRequest(settings, TOOLS, start))).toEqual([]);

		// Tool calls without their results.
		const missing = wireProblems(kind, adapter.buildRequest(settings, TOOLS, [...start, ...turn.transcriptItems, ...adapter.userTextItems('?')]));
		expect(missing.join('\n')).toMatch(/id_1/);
		// A result for a call that was never made.
		const stray = wireProblems(kind, adapter.buildRequest(settings, TOOLS, [...start, ...adapter.toolResultItems([{ id: 'ghost', isError: false, text: 'x', images: [] }])]));
		expect(stray.join('\n')).toMatch(/ghost/);
		// A forced tool that is not offered.
		expect(wireProblems(kind, adapter.buildRequest({ ...settings, toolChoice: { type: 'tool', name: 'not_offered' } }, TOOLS, start)).join('\n')).toMatch(/tool_choice/);
	});
});

describe('malformed model output from a compatible server', () => {
	it('null blocks are skipped, a missing call id is made from the call\'s position (in the replayed transcript too), negative token counts count as 0', () => {
		const anthropic = anthropicMessages.parseResponse({ content: [null, { type: 'text', text: 'hi' }, { type: 'tool_use', name: 'echo', input: {} }], stop_reason: 'tool_use', usage: { input_tokens: -1e9, output_tokens: 5 } });
		expect(anthropic.text).toBe('hi');
		expect(anthropic.toolCalls).toEqual([{ id: 'call_1', name: 'echo', rawArguments: {} }]);
		expect(JSON.stringify(anthropic.transcriptItems)).toContain('"id":"call_1"');
		expect(anthropic.usage.inputTokens).toBe(0);
		expect(JSON.stringify(anthropic.transcriptItems)).not.toContain('null');

		const chat = openAiChat.parseResponse({ choices: [{ message: { content: null, tool_calls: [null, { type: 'function', function: { name: 'echo', arguments: '{}' } }] }, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 50 } } });
		expect(chat.toolCalls).toEqual([{ id: 'call_1', name: 'echo', rawArguments: '{}' }]);
		expect(JSON.stringify(chat.transcriptItems)).toContain('"id":"call_1"');
		expect(chat.usage.inputTokens).toBe(0);

		const responses = openAiResponses.parseResponse({ output: [null, { type: 'message', content: [null, { type: 'output_text', text: 'ok' }] }, { type: 'function_call', name: 'echo', arguments: '{}' }], usage: { input_tokens: -3, output_tokens: 2 } });
		expect(responses.text).toBe('ok');
		expect(responses.toolCalls).toEqual([{ id: 'call_1', name: 'echo', rawArguments: '{}' }]);
		expect(JSON.stringify(responses.transcriptItems)).toContain('"call_id":"call_1"');
		expect(responses.usage.inputTokens).toBe(0);
	});
});

describe('provider errors', () => {
	it('detects context overflow from a status 400 with the code or the message', () => {
		expect(isContextOverflow({ status: 400, code: 'context_length_exceeded' })).toBe(true);
		expect(isContextOverflow({ status: 400, error: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 250000 tokens > 200000 maximum' } } })).toBe(true);
		expect(isContextOverflow({ status: 400, error: { message: 'Invalid tool name' } })).toBe(false);
		expect(isContextOverflow({ status: 429, code: 'context_length_exceeded' })).toBe(false);
	});

	it('explains errors by status for a person', () => {
		expect(explainProviderError({ status: 401, message: 'x' }, 'OpenAI').message).toBe('OpenAI rejected the API key (401 Unauthorized). Check the API key in the credential.');
		expect(explainProviderError({ status: 404, message: 'model not found' }, 'Anthropic').message).toBe('Anthropic answered 404: model not found. Check the model name and the base URL.');
		expect(explainProviderError({ status: 503, error: { message: 'overloaded' } }, 'OpenAI')).toMatchObject({ status: 503, message: 'OpenAI had a server error (503) and retries ran out: overloaded' });
		const same = new ProviderError('kept', 400);
		expect(explainProviderError(same, 'OpenAI')).toBe(same);
	});
});

/**
 * The agent loop end to end for each provider API: the real SDK clients (createModelClient) talk to
 * wire-compatible fakes (test/support/fakeProviders.ts), the adapters build and parse the bodies,
 * and tools run on the real server-everything over stdio through runToolCalls. A spy on the MCP
 * client's tools/call requests counts what actually reached the server.
 */
import { McpConnection } from '../../lib/mcp/connection';
import { spyOnToolCalls } from '../support/toolCallSpy';
import { listAllTools } from '../../lib/mcp/listing';
import { buildCatalog } from '../../lib/agent/catalog';
import { createRun } from '../../lib/agent/step';
import { runAgent } from '../../lib/agent/runAgent';
import { runToolCalls } from '../../lib/agent/toolRunner';
import { DEFAULT_OUTCOME_LIMITS } from '../../lib/agent/toolOutcome';
import type { AgentState, PlannedCall, RunSettings } from '../../lib/agent/types';
import type { CatalogTool } from '../../lib/providers/modelTypes';
import { createModelClient } from '../../lib/providers/clients';
import { ProviderError } from '../../lib/providers/errors';
import type { ApiProviderId } from '../../lib/providers/types';
import {
	anthropicMessage,
	anthropicText,
	contextTooLong,
	conversationIn,
	rateLimited,
	replies,
	startFakeProvider,
	toolNamesIn,
	toolResultsIn,
	unauthorized,
	type FakeProvider,
	type FakeScript,
} from '../support/fakeProviders';
import { everythingStdio } from '../support/servers';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

const KINDS: ApiProviderId[] = ['anthropic', 'openaiChat', 'openaiResponses'];
const OFFERED = ['echo', 'get-sum', 'trigger-long-running-operation'];

const BASE_SETTINGS: RunSettings = {
	model: 'model-under-test',
	maxIterations: 10,
	maxOutputTokens: 1024,
	tokenBudget: 0,
	toolChoice: { type: 'auto' },
	parallelToolCalls: true,
	promptCaching: false,
	maxToolResultChars: 20_000,
};

let connection: McpConnection;
let catalog: CatalogTool[];
let toolCalls: ReturnType<typeof spyOnToolCalls>;
const fakes: FakeProvider[] = [];

beforeAll(async () => {
	connection = await McpConnection.open(everythingStdio());
	const tools = (await listAllTools(connection)).filter((tool) => OFFERED.includes(tool.name));
	catalog = buildCatalog([{ id: 'everything', name: 'everything', tools }]).tools;
});

afterAll(async () => {
	await connection?.close();
});

beforeEach(() => {
	toolCalls = spyOnToolCalls(connection.client);
});

afterEach(async () => {
	toolCalls.mockRestore();
	await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

interface RunOptions {
	settings?: Partial<RunSettings>;
	tools?: CatalogTool[];
	maxRetries?: number;
	toolTimeoutMs?: number;
	userMessage?: string;
}

async function startFake(kind: ApiProviderId, script: FakeScript): Promise<FakeProvider> {
	const fake = await startFakeProvider(kind, script);
	fakes.push(fake);
	return fake;
}

async function runWith(kind: ApiProviderId, script: FakeScript, options: RunOptions = {}) {
	const fake = await startFake(kind, script);
	const model = createModelClient({ provider: kind, apiKey: 'test-key', baseUrl: fake.baseUrl, maxRetries: options.maxRetries ?? 0, timeoutMs: 10_000 });
	const initial = createRun({
		provider: kind,
		settings: { ...BASE_SETTINGS, ...options.settings },
		tools: options.tools ?? catalog,
		userMessage: options.userMessage ?? 'Please help me.',
	});
	const steps: AgentState[] = [];
	const toolBatches: PlannedCall[][] = [];
	const final = await runAgent(initial, {
		model,
		runTools: (calls) => {
			toolBatches.push(calls);
			return runToolCalls(calls, {
				connections: new Map([['everything', connection]]),
				concurrency: 4,
				timeoutMs: options.toolTimeoutMs ?? 10_000,
				limits: DEFAULT_OUTCOME_LIMITS,
			});
		},
		onStep: (state) => steps.push(state),
	});
	return { fake, final, steps, toolBatches };
}

function finished(state: AgentState) {
	if (state.phase.name !== 'finished') throw new Error(`run not finished: ${state.phase.name}`);
	return state.phase;
}

describe.each(KINDS)('%s against its fake, with server-everything', (kind) => {
	const r = replies(kind);

	it('runs two tool rounds, then answers; results go back correlated by id', async () => {
		const { fake, final, steps, toolBatches } = await runWith(
			kind,
			[
				r.toolCalls([{ id: 'call_1', name: 'echo', args: { message: 'one' } }], { input: 100, output: 20 }, 'Let me echo.'),
				r.toolCalls([{ id: 'call_2', name: 'get-sum', args: { a: 2, b: 3 } }], { input: 150, output: 30 }),
				r.text('All done: 5', { input: 200, output: 40 }),
			],
			{ settings: { system: 'Be brief.' } },
		);
		expect(fake.rejected).toEqual([]);
		expect(fake.requests).toHaveLength(3);
		expect(finished(final)).toEqual({ name: 'finished', status: 'completed', stop: 'end_turn', text: 'All done: 5' });
		expect(final.iterations).toBe(3);
		expect(final.usage).toEqual({ inputTokens: 450, outputTokens: 90, cacheReadTokens: 0, cacheWriteTokens: 0 });
		expect(steps.map((s) => s.phase.name)).toEqual(['run_tools', 'call_model', 'run_tools', 'call_model', 'finished']);
		expect(toolBatches.map((batch) => batch.map((c) => c.id))).toEqual([['call_1'], ['call_2']]);
		expect(toolCalls.calls()).toHaveLength(2);

		// What the SDK sent.
		const [first, second, third] = fake.requests;
		expect(first.model).toBe('model-under-test');
		expect(toolNamesIn(kind, first)).toEqual(OFFERED);
		expect(conversationIn(kind, first)).toEqual(kind === 'openaiChat' ? [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Please help me.' }] : [{ role: 'user', content: 'Please help me.' }]);
		expect(toolResultsIn(kind, first)).toEqual([]);
		expect(toolResultsIn(kind, second)).toEqual([{ id: 'call_1', isError: false, text: 'Echo: one' }]);
		expect(toolResultsIn(kind, third)).toEqual([
			{ id: 'call_1', isError: false, text: 'Echo: one' },
			{ id: 'call_2', isError: false, text: 'The sum of 2 and 3 is 5.' },
		]);
		if (kind === 'anthropic') {
			expect(first).toMatchObject({ max_tokens: 1024, system: [{ type: 'text', text: 'Be brief.' }], tool_choice: { type: 'auto' } });
			expect(second.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Let me echo.' }, { type: 'tool_use', id: 'call_1', name: 'echo', input: { message: 'one' } }] });
			expect(second.messages[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'Echo: one' }] });
		} else if (kind === 'openaiChat') {
			expect(first).toMatchObject({ max_completion_tokens: 1024, tool_choice: 'auto', parallel_tool_calls: true });
			expect(second.messages[2]).toEqual({
				role: 'assistant',
				content: 'Let me echo.',
				tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'echo', arguments: '{"message":"one"}' } }],
			});
			expect(second.messages[3]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'Echo: one' });
		} else {
			expect(first).toMatchObject({ max_output_tokens: 1024, instructions: 'Be brief.', store: false, tool_choice: 'auto', parallel_tool_calls: true });
			const replayed = second.input.slice(1);
			expect(replayed.map((item: { type: string }) => item.type)).toEqual(['message', 'function_call', 'function_call_output']);
			expect(replayed[1]).toEqual({ type: 'function_call', call_id: 'call_1', name: 'echo', arguments: '{"message":"one"}', status: 'completed' });
			for (const item of replayed) expect(item).not.toHaveProperty('id');
			expect(replayed[2]).toEqual({ type: 'function_call_output', call_id: 'call_1', output: 'Echo: one' });
		}

		expect(final.toolLog).toEqual([
			{ iteration: 1, id: 'call_1', server: 'everything', tool: 'echo', arguments: { message: 'one' }, isError: false, resultSummary: 'Echo: one', durationMs: expect.any(Number), allowedBy: { by: 'policy' } },
			{ iteration: 2, id: 'call_2', server: 'everything', tool: 'get-sum', arguments: { a: 2, b: 3 }, isError: false, resultSummary: 'The sum of 2 and 3 is 5.', durationMs: expect.any(Number), allowedBy: { by: 'policy' } },
		]);
	});

	it('runs parallel calls of one turn and returns every result, in request order, by id', async () => {
		const { fake, final } = await runWith(kind, [
			r.toolCalls([
				// The slow one finishes last but must still come back first.
				{ id: 'p_slow', name: 'trigger-long-running-operation', args: { duration: 0.3, steps: 1 } },
				{ id: 'p_echo', name: 'echo', args: { message: 'fast' } },
				{ id: 'p_sum', name: 'get-sum', args: { a: 20, b: 22 } },
			]),
			r.text('ok'),
		]);
		expect(fake.rejected).toEqual([]);
		expect(toolCalls.calls()).toHaveLength(3);
		expect(toolResultsIn(kind, fake.requests[1])).toEqual([
			{ id: 'p_slow', isError: false, text: 'Long running operation completed. Duration: 0.3 seconds, Steps: 1.' },
			{ id: 'p_echo', isError: false, text: 'Echo: fast' },
			{ id: 'p_sum', isError: false, text: 'The sum of 20 and 22 is 42.' },
		]);
		if (kind === 'anthropic') {
			// All results of a turn travel in one user message.
			const last = fake.requests[1].messages[fake.requests[1].messages.length - 1];
			expect(last.role).toBe('user');
			expect(last.content.map((b: { tool_use_id: string }) => b.tool_use_id)).toEqual(['p_slow', 'p_echo', 'p_sum']);
		}
		const log = final.toolLog;
		expect(log.map((e) => e.id)).toEqual(['p_slow', 'p_echo', 'p_sum']);
		expect(log[0].durationMs).toBeGreaterThanOrEqual(250);
		expect(log[1].durationMs).toBeLessThan(log[0].durationMs);
		expect(finished(final).status).toBe('completed');
	});

	it('answers an unknown tool with an error result listing the tools, without calling any server', async () => {
		const { fake, final, toolBatches } = await runWith(kind, [r.toolCalls([{ id: 'u_1', name: 'no_such_tool', args: {} }]), r.text('sorry')]);
		expect(fake.rejected).toEqual([]);
		expect(toolBatches).toEqual([]);
		expect(toolCalls.calls()).toHaveLength(0);
		expect(toolResultsIn(kind, fake.requests[1])).toEqual([
			{ id: 'u_1', isError: true, text: 'Unknown tool "no_such_tool". Available tools: echo, get-sum, trigger-long-running-operation.' },
		]);
		expect(final.toolLog).toEqual([expect.objectContaining({ id: 'u_1', tool: 'no_such_tool', isError: true, durationMs: 0 })]);
		expect(final.toolLog[0]).not.toHaveProperty('server');
		expect(finished(final)).toMatchObject({ status: 'completed', text: 'sorry' });
	});

	it('refuses arguments that violate the schema: the error goes back, the tool is not called', async () => {
		const { fake, final } = await runWith(kind, [
			r.toolCalls([
				{ id: 's_type', name: 'echo', args: { message: 42 } },
				{ id: 's_missing', name: 'get-sum', args: { a: 1 } },
				{ id: 's_ok', name: 'echo', args: { message: 'valid' } },
			]),
			r.text('fixed'),
		]);
		expect(fake.rejected).toEqual([]);
		expect(toolCalls.calls()).toHaveLength(1);
		expect(toolCalls.calls()[0]).toEqual({ name: 'echo', arguments: { message: 'valid' } });
		expect(toolResultsIn(kind, fake.requests[1])).toEqual([
			{ id: 's_type', isError: true, text: 'Invalid arguments for tool "echo": arguments.message must be string (rule: type). The tool was not called; fix the arguments and try again.' },
			{ id: 's_missing', isError: true, text: 'Invalid arguments for tool "get-sum": arguments.b is required (rule: required). The tool was not called; fix the arguments and try again.' },
			{ id: 's_ok', isError: false, text: 'Echo: valid' },
		]);
		expect(final.toolLog.map((e) => [e.id, e.isError])).toEqual([['s_type', true], ['s_missing', true], ['s_ok', false]]);
	});

	it('passes an MCP isError result back as an error result and keeps going', async () => {
		// A catalog whose advertised schema is looser than what the server checks: the call reaches
		// the server, which answers with isError.
		const loose = catalog.map((tool) => (tool.mcpName === 'get-sum' ? { ...tool, inputSchema: { type: 'object' } } : tool));
		const { fake, final } = await runWith(kind, [r.toolCalls([{ id: 'e_1', name: 'get-sum', args: { a: 'two', b: 3 } }]), r.text('the tool failed')], { tools: loose });
		expect(fake.rejected).toEqual([]);
		expect(toolCalls.calls()).toHaveLength(1);
		const [result] = toolResultsIn(kind, fake.requests[1]);
		expect(result).toEqual({ id: 'e_1', isError: true, text: expect.stringMatching(/Input validation error/) });
		if (kind === 'anthropic') {
			expect(fake.requests[1].messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'e_1', is_error: true });
		} else {
			const raw = JSON.stringify(fake.requests[1]);
			expect(raw).toMatch(/"Error: MCP error -32602: Input validation error/);
		}
		expect(final.toolLog[0]).toMatchObject({ id: 'e_1', server: 'everything', tool: 'get-sum', isError: true });
		expect(finished(final)).toMatchObject({ status: 'completed', text: 'the tool failed' });
	});

	it('turns a tool timeout into an error result and continues the run', async () => {
		const { fake, final } = await runWith(
			kind,
			[r.toolCalls([{ id: 't_1', name: 'trigger-long-running-operation', args: { duration: 5, steps: 1 } }]), r.text('it timed out')],
			{ toolTimeoutMs: 300 },
		);
		expect(fake.rejected).toEqual([]);
		expect(toolResultsIn(kind, fake.requests[1])).toEqual([
			{ id: 't_1', isError: true, text: expect.stringMatching(/^The tool call failed: .*did not answer in time while calling tool "trigger-long-running-operation"/) },
		]);
		expect(final.toolLog[0].durationMs).toBeGreaterThanOrEqual(250);
		expect(final.toolLog[0].durationMs).toBeLessThan(4000);
		expect(finished(final)).toMatchObject({ status: 'completed', text: 'it timed out' });
	});

	it('stops with max_tokens when the model runs out of output tokens', async () => {
		const { fake, final } = await runWith(kind, [r.maxTokens('partial answ')]);
		expect(fake.requests).toHaveLength(1);
		expect(finished(final)).toEqual({
			name: 'finished',
			status: 'max_tokens',
			stop: 'max_tokens',
			text: 'partial answ',
			detail: 'the model reached the maximum output tokens',
		});
	});

	it('stops with refusal when the model refuses', async () => {
		const { fake, final } = await runWith(kind, [r.refusal("I can't help with that.")]);
		expect(fake.requests).toHaveLength(1);
		const phase = finished(final);
		expect(phase).toMatchObject({ status: 'refusal', stop: 'refusal' });
		if (kind === 'anthropic') expect(phase.text).toBe("I can't help with that.");
		else expect(phase.detail).toBe("I can't help with that.");
	});

	it('retries a 429 and succeeds with the same request', async () => {
		const { fake, final } = await runWith(kind, [rateLimited(kind), r.text('after the retry')], { maxRetries: 2 });
		expect(fake.requests).toHaveLength(2);
		expect(fake.requests[1]).toEqual(fake.requests[0]);
		expect(fake.log[1].headers['x-stainless-retry-count']).toBe('1');
		expect(finished(final)).toMatchObject({ status: 'completed', text: 'after the retry' });
	});

	it('fails clearly on 401, naming the API key, without retrying', async () => {
		await expect(runWith(kind, [unauthorized(kind), r.text('never')], { maxRetries: 3 })).rejects.toThrow(ProviderError);
		const fake = fakes[fakes.length - 1];
		expect(fake.requests).toHaveLength(1);
		// The key travels as x-api-key (older Anthropic SDKs) or as a bearer token (OpenAI, newer Anthropic SDKs).
		const headers = fake.log[0].headers;
		expect(headers['x-api-key'] ?? String(headers.authorization).replace(/^Bearer /, '')).toBe('test-key');
		await expect(runWith(kind, [unauthorized(kind)], { maxRetries: 3 })).rejects.toThrow(
			`${kind === 'anthropic' ? 'Anthropic' : 'OpenAI'} rejected the API key (401 Unauthorized). Check the API key in the credential.`,
		);
	});

	it('ends with context_exceeded when the provider says the prompt is too long (no retry)', async () => {
		const { fake, final } = await runWith(kind, [r.toolCalls([{ id: 'c_1', name: 'echo', args: { message: 'x' } }], {}, 'Working on it.'), contextTooLong(kind)], { maxRetries: 2 });
		expect(fake.requests).toHaveLength(2);
		expect(final.iterations).toBe(2);
		expect(finished(final)).toEqual({
			name: 'finished',
			status: 'context_exceeded',
			stop: 'context_exceeded',
			text: 'Working on it.',
			detail: "the conversation no longer fits the model's context window",
		});
	});

	it('asks again when the structured answer is invalid, and parses the valid one', async () => {
		const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'], additionalProperties: false };
		const { fake, final } = await runWith(kind, [r.text('The answer is four.'), r.text('{"answer":"four"}'), r.text('```json\n{"answer": 4}\n```')], {
			settings: { structuredOutput: schema },
		});
		expect(fake.rejected).toEqual([]);
		expect(fake.requests).toHaveLength(3);
		const lastUser = (body: unknown) => {
			const conversation = conversationIn(kind, body);
			return conversation[conversation.length - 1];
		};
		expect(lastUser(fake.requests[1])).toEqual({
			role: 'user',
			content: 'Your final answer must be only a JSON value matching the required schema, but the answer is not valid JSON. Reply again with only the JSON.',
		});
		expect(lastUser(fake.requests[2])).toEqual({ role: 'user', content: expect.stringContaining('answer.answer must be number (rule: type)') });
		const phase = finished(final);
		expect(phase).toMatchObject({ status: 'completed', structured: { answer: 4 } });
		expect(phase.detail).toBeUndefined();
		const first = fake.requests[0];
		if (kind === 'anthropic') expect(first.system[0].text).toContain(JSON.stringify(schema));
		else if (kind === 'openaiChat') expect(first.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'answer', schema, strict: false } });
		else expect(first.text).toEqual({ format: { type: 'json_schema', name: 'answer', schema, strict: false } });
	});

	it('stops at Max Iterations', async () => {
		const { fake, final } = await runWith(kind, (_body, index) => r.toolCalls([{ id: `it_${index}`, name: 'echo', args: { message: `round ${index}` } }]), {
			settings: { maxIterations: 2 },
		});
		expect(fake.requests).toHaveLength(2);
		expect(toolCalls.calls()).toHaveLength(2);
		expect(final.toolLog.map((e) => e.resultSummary)).toEqual(['Echo: round 0', 'Echo: round 1']);
		expect(finished(final)).toMatchObject({ status: 'max_iterations', detail: 'stopped after 2 model calls (Max Iterations)' });
	});

	it('stops when the token budget is exceeded, before running that turn\'s tools', async () => {
		const { fake, final } = await runWith(
			kind,
			[
				r.toolCalls([{ id: 'b_1', name: 'echo', args: { message: 'first' } }], { input: 40, output: 10 }),
				r.toolCalls([{ id: 'b_2', name: 'echo', args: { message: 'second' } }], { input: 50, output: 10 }),
				r.text('never reached'),
			],
			{ settings: { tokenBudget: 100 } },
		);
		expect(fake.requests).toHaveLength(2);
		expect(toolCalls.calls()).toHaveLength(1);
		expect(final.toolLog.map((e) => e.id)).toEqual(['b_1']);
		expect(finished(final)).toMatchObject({ status: 'token_budget_exceeded', stop: 'tool_use', detail: 'used 110 of 100 tokens' });
	});

	const CHOICES: Array<[RunSettings['toolChoice'], boolean, unknown]> =
		kind === 'anthropic'
			? [
					[{ type: 'auto' }, true, { type: 'auto' }],
					[{ type: 'auto' }, false, { type: 'auto', disable_parallel_tool_use: true }],
					[{ type: 'required' }, false, { type: 'any', disable_parallel_tool_use: true }],
					[{ type: 'none' }, false, { type: 'none' }],
					[{ type: 'tool', name: 'echo' }, true, { type: 'tool', name: 'echo' }],
				]
			: [
					[{ type: 'auto' }, true, 'auto'],
					[{ type: 'required' }, false, 'required'],
					[{ type: 'none' }, true, 'none'],
					[{ type: 'tool', name: 'echo' }, false, kind === 'openaiChat' ? { type: 'function', function: { name: 'echo' } } : { type: 'function', name: 'echo' }],
				];

	it.each(CHOICES)('maps tool choice %j (parallel %s) onto the wire', async (toolChoice, parallelToolCalls, wire) => {
		const { fake } = await runWith(kind, [r.text('ok')], { settings: { toolChoice, parallelToolCalls } });
		expect(fake.rejected).toEqual([]);
		expect(fake.requests[0].tool_choice).toEqual(wire);
		if (kind !== 'anthropic') expect(fake.requests[0].parallel_tool_calls).toBe(parallelToolCalls);
	});

	it('sends no tools and no tool_choice when the catalog is empty', async () => {
		const { fake } = await runWith(kind, [r.text('plain')], { tools: [] });
		expect(fake.rejected).toEqual([]);
		expect(fake.requests[0]).not.toHaveProperty('tools');
		expect(fake.requests[0]).not.toHaveProperty('tool_choice');
		expect(fake.requests[0]).not.toHaveProperty('parallel_tool_calls');
	});

	it('lists models through the SDK', async () => {
		const fake = await startFake(kind, []);
		const client = createModelClient({ provider: kind, apiKey: 'test-key', baseUrl: `${fake.baseUrl}/`, maxRetries: 0, timeoutMs: 5000 });
		const models = await client.listModels();
		if (kind === 'anthropic') {
			expect(models).toEqual([
				{ id: 'claude-test-1', name: 'Model 1 (claude-test-1)' },
				{ id: 'claude-test-2', name: 'Model 2 (claude-test-2)' },
			]);
			expect(fake.log[0].path).toBe('/v1/models?limit=100');
		} else {
			expect(models).toEqual([{ id: 'gpt-test-a' }, { id: 'gpt-test-b' }]);
			expect(fake.log[0].path).toBe('/v1/models');
		}
	});
});

describe('OpenAI only: arguments that are not valid JSON', () => {
	it.each(['openaiChat', 'openaiResponses'] as const)('%s: never calls the server and sends the parse error back', async (kind) => {
		const r = replies(kind);
		const { fake, final, toolBatches } = await runWith(kind, [
			r.toolCalls([{ id: 'j_bad', name: 'echo', args: '{"message": "hi"' }]),
			r.toolCalls([
				{ id: 'j_bad2', name: 'echo', args: '{message: hi}' },
				{ id: 'j_good', name: 'echo', args: '{"message":"ok"}' },
			]),
			r.text('done'),
		]);
		expect(fake.rejected).toEqual([]);
		// The first turn had only the broken call: no tool batch at all.
		expect(toolBatches.map((batch) => batch.map((c) => c.id))).toEqual([['j_good']]);
		expect(toolCalls.calls()).toHaveLength(1);
		expect(toolCalls.calls()[0]).toEqual({ name: 'echo', arguments: { message: 'ok' } });
		const results = toolResultsIn(kind, fake.requests[2]);
		expect(results.map((x) => [x.id, x.isError])).toEqual([['j_bad', true], ['j_bad2', true], ['j_good', false]]);
		expect(results[0].text).toMatch(/^The arguments are not valid JSON: .+\. Send a JSON object\.$/);
		expect(results[2].text).toBe('Echo: ok');
		// The broken call is replayed exactly as the model sent it.
		expect(JSON.stringify(fake.requests[1])).toContain(JSON.stringify('{"message": "hi"'));
		expect(final.toolLog[0]).toMatchObject({ id: 'j_bad', arguments: '{"message": "hi"', isError: true });
		expect(finished(final)).toMatchObject({ status: 'completed', text: 'done' });
	});
});

describe('Anthropic only', () => {
	it('continues a pause_turn by sending the paused assistant content back', async () => {
		const paused = [
			{ type: 'text', text: 'Searching.' },
			{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'mcp' } },
		];
		const { fake, final } = await runWith('anthropic', [
			anthropicMessage(paused, 'pause_turn', { input: 10, output: 5 }),
			anthropicMessage([anthropicText('Found it.')], 'end_turn', { input: 20, output: 6 }),
		]);
		expect(fake.rejected).toEqual([]);
		expect(fake.requests).toHaveLength(2);
		expect(fake.requests[1].messages).toEqual([
			{ role: 'user', content: 'Please help me.' },
			{ role: 'assistant', content: paused },
		]);
		expect(final.iterations).toBe(2);
		expect(final.usage).toMatchObject({ inputTokens: 30, outputTokens: 11 });
		expect(finished(final)).toMatchObject({ status: 'completed', text: 'Found it.' });
	});

	it('ends with context_exceeded on stop_reason model_context_window_exceeded', async () => {
		const { final } = await runWith('anthropic', [anthropicMessage([anthropicText('cut')], 'model_context_window_exceeded')]);
		expect(finished(final)).toMatchObject({ status: 'context_exceeded', stop: 'context_exceeded', text: 'cut' });
	});

	it('marks the last tool and the system prompt for caching, and reports cache usage', async () => {
		const { fake, final } = await runWith('anthropic', [anthropicMessage([anthropicText('cached')], 'end_turn', { input: 10, output: 5, cacheRead: 100, cacheWrite: 50 })], {
			settings: { promptCaching: true, system: 'You are careful.' },
		});
		expect(fake.rejected).toEqual([]);
		const body = fake.requests[0];
		expect(body.tools.map((t: { cache_control?: unknown }) => t.cache_control)).toEqual([undefined, undefined, { type: 'ephemeral' }]);
		expect(body.system).toEqual([{ type: 'text', text: 'You are careful.', cache_control: { type: 'ephemeral' } }]);
		expect(final.usage).toEqual({ inputTokens: 10, outputTokens: 5, cacheReadTokens: 100, cacheWriteTokens: 50 });
	});

	it('sends no cache_control when prompt caching is off', async () => {
		const { fake } = await runWith('anthropic', [anthropicMessage([anthropicText('plain')], 'end_turn')], { settings: { promptCaching: false, system: 'You are careful.' } });
		expect(fake.requests[0].system).toEqual([{ type: 'text', text: 'You are careful.' }]);
		expect(JSON.stringify(fake.requests[0])).not.toContain('cache_control');
	});
});

describe('OpenAI cached tokens', () => {
	it.each(['openaiChat', 'openaiResponses'] as const)('%s: cached prompt tokens are reported apart from the uncached ones', async (kind) => {
		const { final } = await runWith(kind, [replies(kind).text('hi', { input: 70, cacheRead: 30, output: 9 })]);
		expect(final.usage).toEqual({ inputTokens: 70, outputTokens: 9, cacheReadTokens: 30, cacheWriteTokens: 0 });
	});
});

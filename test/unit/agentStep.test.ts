/**
 * The pure step function: createRun / nextEffect / step, driven by hand-made model turns and tool
 * outcomes. No network, no servers.
 */
import { buildCatalog } from '../../lib/agent/catalog';
import { createRun, MAX_RUN_IMAGES, MAX_TOOL_CALLS_PER_TURN, nextEffect, step, stripCodeFence } from '../../lib/agent/step';
import type { AgentEvent, AgentState, RunSettings } from '../../lib/agent/types';
import type { CatalogTool, ModelTurn, ToolOutcome, Usage } from '../../lib/providers/modelTypes';
import { hashArguments } from '../../lib/agent/argumentHash';
import { boundArgsHash } from '../../lib/agent/review';
import type { ProviderId } from '../../lib/providers/types';
import { toProviderToolName } from '../../lib/tools/providerNames';

const SETTINGS: RunSettings = {
	model: 'm',
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
			{ name: 'add', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
			{ name: 'files.write', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
		],
	},
]).tools;

const WRITE = toProviderToolName('files.write');

const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0): Usage => ({ inputTokens: input, outputTokens: output, cacheReadTokens: cacheRead, cacheWriteTokens: cacheWrite });

function turn(partial: Partial<ModelTurn>): ModelTurn {
	return {
		transcriptItems: [{ role: 'assistant', content: partial.text ?? '' }],
		text: '',
		toolCalls: [],
		stop: 'end_turn',
		usage: usage(10, 5),
		...partial,
	};
}

const modelTurn = (partial: Partial<ModelTurn>): AgentEvent => ({ type: 'model_turn', turn: turn(partial) });
const ok = (id: string, text: string): ToolOutcome => ({ id, isError: false, text, images: [] });

function run(settings: Partial<RunSettings> = {}, provider: ProviderId = 'anthropic'): AgentState {
	return createRun({ provider, settings: { ...SETTINGS, ...settings }, tools: TOOLS, userMessage: 'hi' });
}

function phaseOf<N extends AgentState['phase']['name']>(state: AgentState, name: N): Extract<AgentState['phase'], { name: N }> {
	expect(state.phase.name).toBe(name);
	return state.phase as Extract<AgentState['phase'], { name: N }>;
}

/** Deep-freezes a value so any mutation by step() throws. */
function frozen<T>(value: T): T {
	if (value && typeof value === 'object') {
		Object.values(value as Record<string, unknown>).forEach(frozen);
		Object.freeze(value);
	}
	return value;
}

describe('createRun', () => {
	it('starts with the user message, zero usage, and asks for a model call', () => {
		const state = run();
		expect(state).toEqual({
			version: 1,
			provider: 'anthropic',
			settings: SETTINGS,
			tools: TOOLS,
			transcript: [{ role: 'user', content: 'hi' }],
			iterations: 0,
			usage: usage(0, 0),
			toolLog: [],
			userMessage: 'hi',
			phase: { name: 'call_model' },
			lastText: '',
		});
		expect(nextEffect(state)).toEqual({ type: 'call_model' });
	});

	it('puts prior conversation first; Anthropic drops system entries, OpenAI keeps them', () => {
		const history = [
			{ role: 'system', content: 'old system' },
			{ role: 'user', content: 'before' },
			{ role: 'assistant', content: 'answer' },
		];
		const anthropic = createRun({ provider: 'anthropic', settings: SETTINGS, tools: [], userMessage: 'now', history });
		expect(anthropic.transcript).toEqual([history[1], history[2], { role: 'user', content: 'now' }]);
		for (const provider of ['openaiChat', 'openaiResponses'] as const) {
			expect(createRun({ provider, settings: SETTINGS, tools: [], userMessage: 'now', history }).transcript).toEqual([...history, { role: 'user', content: 'now' }]);
		}
	});

	it('rejects prior conversation entries without a role', () => {
		expect(() => createRun({ provider: 'openaiChat', settings: SETTINGS, tools: [], userMessage: 'x', history: [{ content: 'no role' }] })).toThrow(
			'Prior conversation: entry 0 must be an object with a "role"',
		);
		expect(() => createRun({ provider: 'anthropic', settings: SETTINGS, tools: [], userMessage: 'x', history: ['text'] })).toThrow(/entry 0/);
	});
});

describe('model turns', () => {
	it('finishes with the answer on end_turn, adding usage and the assistant item', () => {
		const state = step(run(), modelTurn({ text: 'Hello!', usage: usage(12, 3, 4, 5) }));
		expect(state.iterations).toBe(1);
		expect(state.usage).toEqual(usage(12, 3, 4, 5));
		expect(state.transcript).toEqual([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'Hello!' }]);
		expect(state.phase).toEqual({ name: 'finished', status: 'completed', stop: 'end_turn', text: 'Hello!' });
		expect(nextEffect(state)).toEqual({ type: 'finish', status: 'completed' });
	});

	it.each([
		['stop_sequence', 'completed', undefined],
		['other', 'completed', undefined],
		['max_tokens', 'max_tokens', 'the model reached the maximum output tokens'],
		['context_exceeded', 'context_exceeded', "the conversation no longer fits the model's context window"],
	] as const)('maps stop %s to status %s', (stop, status, detail) => {
		const phase = phaseOf(step(run(), modelTurn({ text: 'partial', stop })), 'finished');
		expect(phase).toEqual({ name: 'finished', status, stop, text: 'partial', ...(detail ? { detail } : {}) });
	});

	it('reports a refusal with its text as detail', () => {
		const phase = phaseOf(step(run(), modelTurn({ text: '', stop: 'refusal', refusal: 'No.' })), 'finished');
		expect(phase).toEqual({ name: 'finished', status: 'refusal', stop: 'refusal', text: '', detail: 'No.' });
	});

	it('continues a pause_turn with another model call, until Max Iterations', () => {
		let state = step(run({ maxIterations: 2 }), modelTurn({ text: '', stop: 'pause_turn' }));
		expect(phaseOf(state, 'call_model')).toEqual({ name: 'call_model' });
		expect(state.transcript).toHaveLength(2);
		state = step(state, modelTurn({ text: 'still going', stop: 'pause_turn' }));
		expect(phaseOf(state, 'finished')).toEqual({ name: 'finished', status: 'max_iterations', text: 'still going', detail: 'stopped after 2 model calls (Max Iterations)' });
	});

	it('keeps the previous text when a turn has none', () => {
		let state = step(run(), modelTurn({ text: 'Working.', toolCalls: [{ id: 'a', name: 'echo', rawArguments: { message: 'x' } }], stop: 'tool_use' }));
		state = step(state, { type: 'tool_outcomes', outcomes: [ok('a', 'Echo: x')] });
		state = step(state, modelTurn({ text: '', stop: 'end_turn' }));
		expect(phaseOf(state, 'finished').text).toBe('Working.');
	});

	it("puts each call's last progress into its tool log entry, across tool_outcomes events, and only for calls that sent any", () => {
		let state = step(run(), modelTurn({ toolCalls: [{ id: 'a', name: 'echo', rawArguments: { message: 'x' } }, { id: 'b', name: 'echo', rawArguments: { message: 'y' } }], stop: 'tool_use' }));
		const sent = { a: { progress: 3, total: 4, message: 'almost' } };
		state = step(state, { type: 'tool_outcomes', outcomes: [ok('a', 'Echo: x')], progress: sent });
		sent.a.message = 'changed by the caller afterwards';
		expect(JSON.parse(JSON.stringify(state))).toEqual(state);
		state = step(state, { type: 'tool_outcomes', outcomes: [ok('b', 'Echo: y')] });
		expect(state.toolLog.map((e) => [e.id, e.progress])).toEqual([
			['a', { progress: 3, total: 4, message: 'almost' }],
			['b', undefined],
		]);
		expect(Object.keys(state.toolLog[1])).not.toContain('progress');
	});

	it("puts each task call's task (id, last status) into its tool log entry, across tool_outcomes events and beside progress", () => {
		let state = step(run(), modelTurn({ toolCalls: [{ id: 'a', name: 'echo', rawArguments: { message: 'x' } }, { id: 'b', name: 'echo', rawArguments: { message: 'y' } }], stop: 'tool_use' }));
		const first = { a: { taskId: 'task-1', status: 'completed' as const, statusMessage: 'done' } };
		state = step(state, { type: 'tool_outcomes', outcomes: [ok('a', 'Echo: x')], tasks: first, progress: { a: { progress: 1 } } });
		first.a.statusMessage = 'changed by the caller afterwards';
		expect(phaseOf(state, 'run_tools').tasks).toEqual({ a: { taskId: 'task-1', status: 'completed', statusMessage: 'done' } });
		state = step(state, { type: 'tool_outcomes', outcomes: [ok('b', 'Echo: y')], tasks: { b: { taskId: 'task-2', status: 'failed' } } });
		expect(state.toolLog.map((e) => [e.id, e.task, e.progress])).toEqual([
			['a', { taskId: 'task-1', status: 'completed', statusMessage: 'done' }, { progress: 1 }],
			['b', { taskId: 'task-2', status: 'failed' }, undefined],
		]);
	});

	it('treats call ids that are Object.prototype names as ordinary ids (they come from the model)', () => {
		const ids = ['constructor', '__proto__', 'toString'];
		let state = step(run(), modelTurn({ toolCalls: ids.map((id) => ({ id, name: 'echo', rawArguments: { message: id } })), stop: 'tool_use' }));
		expect(phaseOf(state, 'run_tools').calls.map((c) => c.id)).toEqual(ids);
		state = step(state, { type: 'tool_outcomes', outcomes: [ok('constructor', 'Echo: constructor')] });
		expect(state.phase.name).toBe('run_tools');
		state = step(state, { type: 'tool_outcomes', outcomes: [ok('__proto__', 'Echo: __proto__'), ok('toString', 'Echo: toString')] });
		expect(phaseOf(state, 'call_model')).toEqual({ name: 'call_model' });
		expect(state.toolLog.map((e) => [e.id, e.resultSummary])).toEqual(ids.map((id) => [id, `Echo: ${id}`]));
	});

	it('does not run tool calls of a turn cut off by max_tokens', () => {
		const state = step(run(), modelTurn({ text: 'cut', toolCalls: [{ id: 'a', name: 'echo', rawArguments: { message: 'x' } }], stop: 'max_tokens' }));
		expect(phaseOf(state, 'finished').status).toBe('max_tokens');
	});

	it('throws on events that do not fit the phase', () => {
		const waiting = step(run(), modelTurn({ toolCalls: [{ id: 'a', name: 'echo', rawArguments: { message: 'x' } }], stop: 'tool_use' }));
		expect(() => step(waiting, modelTurn({ text: 'again' }))).toThrow('model turn received while run_tools');
		expect(() => step(run(), { type: 'tool_outcomes', outcomes: [] })).toThrow('tool_outcomes received while call_model');
		const done = step(run(), modelTurn({ text: 'x' }));
		expect(() => step(done, modelTurn({ text: 'y' }))).toThrow('model turn received while finished');
	});

	it('never mutates the state it is given', () => {
		const start = frozen(run());
		const afterTurn = frozen(step(start, modelTurn({ text: 't', toolCalls: [{ id: 'a', name: 'echo', rawArguments: { message: 'x' } }], stop: 'tool_use' })));
		const afterTools = step(afterTurn, { type: 'tool_outcomes', outcomes: [ok('a', 'Echo: x')], durations: { a: 3 } });
		expect(start.phase).toEqual({ name: 'call_model' });
		expect(afterTurn.phase.name).toBe('run_tools');
		expect(afterTools.phase.name).toBe('call_model');
	});
});

describe('planning tool calls', () => {
	const planned = (calls: ModelTurn['toolCalls'], provider: ProviderId = 'anthropic', settings: Partial<RunSettings> = {}) =>
		phaseOf(step(run(settings, provider), modelTurn({ text: 'Let me see.', toolCalls: calls, stop: 'tool_use' })), 'run_tools');

	it('resolves provider names to the server and MCP name, with parsed arguments', () => {
		const phase = planned([
			{ id: 'c1', name: 'echo', rawArguments: { message: 'hi' } },
			{ id: 'c2', name: WRITE, rawArguments: { path: '/tmp/x' } },
		]);
		const echo = TOOLS.find((t) => t.providerName === 'echo')!;
		expect(phase.assistantText).toBe('Let me see.');
		expect(phase.calls).toEqual([
			{ id: 'c1', providerName: 'echo', tool: { serverId: 's1', serverName: 'main', mcpName: 'echo', fingerprint: echo.fingerprint }, arguments: { message: 'hi' } },
			{ id: 'c2', providerName: WRITE, tool: expect.objectContaining({ mcpName: 'files.write' }), arguments: { path: '/tmp/x' } },
		]);
		expect(phase.outcomes).toEqual({});
	});

	it('rejects unknown tools, broken JSON and schema violations; only valid calls are run', () => {
		const phase = planned(
			[
				{ id: 'u', name: 'nope', rawArguments: '{}' },
				{ id: 'j', name: 'echo', rawArguments: '{"message": ' },
				{ id: 's', name: 'add', rawArguments: '{"a": 1, "b": "2"}' },
				{ id: 'v', name: 'add', rawArguments: '{"a": 1, "b": 2}' },
				{ id: 'e', name: 'echo', rawArguments: '' },
			],
			'openaiChat',
		);
		const [u, j, s, v, e] = phase.calls;
		expect(u).toEqual({ id: 'u', providerName: 'nope', arguments: '{}', rejection: `Unknown tool "nope". Available tools: add, echo, ${WRITE}.` });
		expect(j.rejection).toMatch(/^The arguments are not valid JSON: .+\. Send a JSON object\.$/);
		expect(j.arguments).toBe('{"message": ');
		expect(j.tool?.mcpName).toBe('echo');
		expect(s.rejection).toBe('Invalid arguments for tool "add": arguments.b must be number (rule: type). The tool was not called; fix the arguments and try again.');
		expect(s.arguments).toEqual({ a: 1, b: '2' });
		expect(v.rejection).toBeUndefined();
		expect(v.arguments).toEqual({ a: 1, b: 2 });
		// Empty arguments parse as {}, which then misses the required message.
		expect(e.arguments).toEqual({});
		expect(e.rejection).toMatch(/arguments\.message is required/);
		expect(nextEffect(step(run({}, 'openaiChat'), modelTurn({ toolCalls: [{ id: 'v', name: 'add', rawArguments: '{"a":1,"b":2}' }, { id: 'u', name: 'nope', rawArguments: '{}' }], stop: 'tool_use' })))).toEqual({
			type: 'run_tools',
			calls: [expect.objectContaining({ id: 'v' })],
		});
	});

	it('sends a turn whose calls are all rejected straight back to the model, logged', () => {
		const state = step(
			run(),
			modelTurn({
				toolCalls: [
					{ id: 'n', name: 'echo', rawArguments: null },
					{ id: 'l', name: 'echo', rawArguments: ['message', 'x'] },
				],
				stop: 'tool_use',
			}),
		);
		expect(state.phase).toEqual({ name: 'call_model' });
		expect(state.transcript[state.transcript.length - 1]).toEqual({
			role: 'user',
			content: [
				{ type: 'tool_result', tool_use_id: 'n', content: 'The arguments are not valid JSON: expected a JSON object, got null. Send a JSON object.', is_error: true },
				{ type: 'tool_result', tool_use_id: 'l', content: expect.stringContaining('arguments must be a JSON object'), is_error: true },
			],
		});
		expect(state.toolLog.map((e) => [e.id, e.server, e.isError, e.durationMs])).toEqual([
			['n', 'main', true, 0],
			['l', 'main', true, 0],
		]);
	});
});

describe('tool outcomes', () => {
	const withCalls = (settings: Partial<RunSettings> = {}) =>
		step(
			run(settings),
			modelTurn({
				text: 'Two calls.',
				toolCalls: [
					{ id: 'a', name: 'echo', rawArguments: { message: 'one' } },
					{ id: 'bad', name: 'missing', rawArguments: {} },
					{ id: 'b', name: 'add', rawArguments: { a: 1, b: 2 } },
				],
				stop: 'tool_use',
			}),
		);

	it('sends every result back in call order (rejections included) and logs each call', () => {
		const state = step(withCalls(), { type: 'tool_outcomes', outcomes: [ok('b', '3'), { id: 'a', isError: true, text: 'boom', images: [] }], durations: { a: 7, b: 9 } });
		expect(phaseOf(state, 'call_model')).toEqual({ name: 'call_model' });
		expect(state.transcript[state.transcript.length - 1]).toEqual({
			role: 'user',
			content: [
				{ type: 'tool_result', tool_use_id: 'a', content: 'boom', is_error: true },
				{ type: 'tool_result', tool_use_id: 'bad', content: expect.stringMatching(/^Unknown tool "missing"/), is_error: true },
				{ type: 'tool_result', tool_use_id: 'b', content: '3' },
			],
		});
		expect(state.toolLog).toEqual([
			// Issue 28: each call that reached its tool says what let it through (here the node's policy).
			{ iteration: 1, id: 'a', server: 'main', tool: 'echo', arguments: { message: 'one' }, isError: true, resultSummary: 'boom', durationMs: 7, allowedBy: { by: 'policy' } },
			{ iteration: 1, id: 'bad', tool: 'missing', arguments: {}, isError: true, resultSummary: expect.stringMatching(/^Unknown tool/), durationMs: 0 },
			{ iteration: 1, id: 'b', server: 'main', tool: 'add', arguments: { a: 1, b: 2 }, isError: false, resultSummary: '3', durationMs: 9, allowedBy: { by: 'policy' } },
		]);
	});

	it('waits for every runnable call: partial outcomes keep the turn open', () => {
		let state = step(withCalls(), { type: 'tool_outcomes', outcomes: [ok('a', 'Echo: one')], durations: { a: 1 } });
		const phase = phaseOf(state, 'run_tools');
		expect(Object.keys(phase.outcomes)).toEqual(['a']);
		expect(nextEffect(state)).toEqual({ type: 'run_tools', calls: [expect.objectContaining({ id: 'b' })] });
		state = step(state, { type: 'tool_outcomes', outcomes: [ok('b', '3')], durations: { b: 2 } });
		expect(state.phase.name).toBe('call_model');
		expect(state.toolLog.map((e) => [e.id, e.durationMs])).toEqual([['a', 1], ['bad', 0], ['b', 2]]);
	});

	it('summarizes long and multi-line results and counts images', () => {
		const long = `${'word '.repeat(100)}\n\nend`;
		const state = step(withCalls(), {
			type: 'tool_outcomes',
			outcomes: [
				{ id: 'a', isError: false, text: long, images: [{ mimeType: 'image/png', data: 'AAAA' }, { mimeType: 'image/png', data: 'BBBB' }] },
				ok('b', 'line1\n  line2'),
			],
		});
		expect(state.toolLog[0].resultSummary).toBe(`${long.replace(/\s+/g, ' ').trim().slice(0, 200)}… [+2 images]`);
		expect(state.toolLog[2].resultSummary).toBe('line1 line2');
	});

	it('stops at Max Iterations after the results are in, keeping them in the transcript', () => {
		const state = step(withCalls({ maxIterations: 1 }), { type: 'tool_outcomes', outcomes: [ok('a', 'x'), ok('b', 'y')] });
		expect(phaseOf(state, 'finished')).toEqual({ name: 'finished', status: 'max_iterations', text: 'Two calls.', detail: 'stopped after 1 model calls (Max Iterations)' });
		expect(state.toolLog).toHaveLength(3);
		expect(JSON.stringify(state.transcript)).toContain('"tool_use_id":"b"');
	});
});

describe('token budget', () => {
	it('stops once input + output tokens go over the budget, before any tool runs', () => {
		let state = step(run({ tokenBudget: 100 }), modelTurn({ toolCalls: [{ id: 'a', name: 'echo', rawArguments: { message: 'x' } }], stop: 'tool_use', usage: usage(50, 10) }));
		expect(state.phase.name).toBe('run_tools');
		state = step(state, { type: 'tool_outcomes', outcomes: [ok('a', 'x')] });
		state = step(state, modelTurn({ text: 'more', toolCalls: [{ id: 'b', name: 'echo', rawArguments: { message: 'y' } }], stop: 'tool_use', usage: usage(35, 6) }));
		expect(phaseOf(state, 'finished')).toEqual({ name: 'finished', status: 'token_budget_exceeded', stop: 'tool_use', text: 'more', detail: 'used 101 of 100 tokens' });
	});

	it('counts cached input (cache reads and writes) against the budget, as the providers bill it', () => {
		// With prompt caching most of a long run's input is cached: 10 new + 100 cached input tokens.
		const state = step(run({ tokenBudget: 100 }), modelTurn({ text: 'ok', usage: usage(10, 5, 80, 20) }));
		expect(phaseOf(state, 'finished')).toEqual({ name: 'finished', status: 'token_budget_exceeded', stop: 'end_turn', text: 'ok', detail: 'used 115 of 100 tokens (100 of them cached input)' });
		expect(step(run({ tokenBudget: 115 }), modelTurn({ text: 'ok', usage: usage(10, 5, 80, 20) })).phase).toMatchObject({ status: 'completed' });
	});

	it('allows exactly the budget, and 0 means unlimited', () => {
		expect(step(run({ tokenBudget: 15 }), modelTurn({ text: 'ok', usage: usage(10, 5) })).phase).toMatchObject({ status: 'completed' });
		expect(step(run({ tokenBudget: 0 }), modelTurn({ text: 'ok', usage: usage(1e9, 1e9) })).phase).toMatchObject({ status: 'completed' });
	});
});

describe('structured output', () => {
	const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };

	it.each(['anthropic', 'openaiChat', 'openaiResponses'] as const)('%s: asks again for invalid answers, then parses the valid one', (provider) => {
		let state = step(run({ structuredOutput: schema }, provider), modelTurn({ text: 'It is 3.' }));
		expect(phaseOf(state, 'call_model')).toEqual({ name: 'call_model' });
		expect(state.transcript[state.transcript.length - 1]).toEqual({
			role: 'user',
			content: 'Your final answer must be only a JSON value matching the required schema, but the answer is not valid JSON. Reply again with only the JSON.',
		});
		state = step(state, modelTurn({ text: '{"n": 3.5}' }));
		expect(state.transcript[state.transcript.length - 1]).toEqual({
			role: 'user',
			content: 'Your final answer must be only a JSON value matching the required schema, but answer.n must be integer (rule: type). Reply again with only the JSON.',
		});
		state = step(state, modelTurn({ text: '```json\n{"n": 3}\n```' }));
		expect(phaseOf(state, 'finished')).toEqual({ name: 'finished', status: 'completed', stop: 'end_turn', text: '```json\n{"n": 3}\n```', structured: { n: 3 } });
		expect(state.iterations).toBe(3);
	});

	it('completes with a detail when the last allowed answer is still invalid', () => {
		const state = step(run({ structuredOutput: schema, maxIterations: 1 }), modelTurn({ text: 'nope' }));
		expect(phaseOf(state, 'finished')).toEqual({ name: 'finished', status: 'completed', stop: 'end_turn', text: 'nope', detail: 'structured output invalid: the answer is not valid JSON' });
	});

	it('strips a code fence only when it wraps the whole answer', () => {
		expect(stripCodeFence('```json\n{"a":1}\n```')).toBe('{"a":1}');
		expect(stripCodeFence('  ```\n[1, 2]\n```  ')).toBe('[1, 2]');
		expect(stripCodeFence('Here: ```json\n{"a":1}\n```')).toBe('Here: ```json\n{"a":1}\n```');
		expect(stripCodeFence('{"a":1}')).toBe('{"a":1}');
	});
});

describe('human review', () => {
	const policy = { mode: 'listed' as const, listed: ['files.write'], alwaysAsk: [], neverAsk: [] };
	const reviewing = () =>
		step(
			run({ approval: policy }),
			modelTurn({
				toolCalls: [
					{ id: 'r', name: 'echo', rawArguments: { message: 'free' } },
					{ id: 'w', name: WRITE, rawArguments: { path: '/etc/passwd' } },
				],
				stop: 'tool_use',
			}),
		);

	it('runs calls that need no review first, then asks for approval of the rest', () => {
		let state = reviewing();
		const phase = phaseOf(state, 'run_tools');
		expect(phase.calls[0].review).toBeUndefined();
		// The hash covers the arguments and what the review page shows of the call (not the arguments alone).
		expect(phase.calls[1].review).toEqual({ status: 'pending', argsHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), warnings: [], rounds: 0 });
		expect(phase.calls[1].review?.argsHash).not.toBe(hashArguments({ path: '/etc/passwd' }));
		expect(nextEffect(state)).toEqual({ type: 'run_tools', calls: [expect.objectContaining({ id: 'r' })] });
		state = step(state, { type: 'tool_outcomes', outcomes: [ok('r', 'Echo: free')] });
		expect(nextEffect(state)).toEqual({ type: 'request_approval', calls: [expect.objectContaining({ id: 'w' })], tasks: [] });
	});

	it('runs an approved call and sends a denied one back as an error', () => {
		const opened = step(step(reviewing(), { type: 'tool_outcomes', outcomes: [ok('r', 'Echo: free')] }), {
			type: 'approval_opened',
			approval: { id: 'ap1', requestedAt: '2026-01-01T00:00:00Z', expiresAt: '2026-01-02T00:00:00Z' },
		});
		const argsHash = boundArgsHash(phaseOf(opened, 'run_tools').calls.find((call) => call.id === 'w')!);

		const approved = step(opened, { type: 'approval_decided', approvalId: 'ap1', decisions: [{ callId: 'w', argsHash, decision: 'approve' }], reviewer: 'ann', decidedAt: '2026-01-01T01:00:00Z' });
		expect(nextEffect(approved)).toEqual({ type: 'run_tools', calls: [expect.objectContaining({ id: 'w', review: expect.objectContaining({ status: 'approved', reviewer: 'ann' }) })] });

		const denied = step(opened, { type: 'approval_decided', approvalId: 'ap1', decisions: [{ callId: 'w', argsHash, decision: 'deny', reason: 'no' }], decidedAt: '2026-01-01T01:00:00Z' });
		expect(denied.phase.name).toBe('call_model');
		expect(denied.toolLog[1]).toMatchObject({ id: 'w', isError: true, resultSummary: 'A person reviewing this call denied it, so it was not run. Reason: no', review: { decision: 'denied', reason: 'no' } });

		expect(() => step(opened, { type: 'approval_decided', approvalId: 'ap1', decisions: [{ callId: 'w', argsHash: 'sha256:other', decision: 'approve' }], decidedAt: 'x' })).toThrow(/other arguments/);
	});
});

describe('tool calls whose id is not unique in their turn', () => {
	const policy = { mode: 'listed' as const, listed: ['files.write'], alwaysAsk: [], neverAsk: [] };

	it('are none of them run or reviewed (a decision for one would run the other); unique ids beside them are unaffected', () => {
		const state = step(
			run({ approval: policy }),
			modelTurn({
				toolCalls: [
					{ id: 'dup', name: WRITE, rawArguments: { path: '/etc/passwd' } },
					{ id: 'dup', name: WRITE, rawArguments: { path: '/tmp/harmless' } },
					{ id: '', name: 'echo', rawArguments: { message: 'no id' } },
					{ id: 'r', name: 'echo', rawArguments: { message: 'fine' } },
				],
				stop: 'tool_use',
			}),
		);
		const phase = phaseOf(state, 'run_tools');
		expect(phase.calls.map((call) => [call.id, call.rejection ? 'rejected' : call.review?.status ?? 'runs'])).toEqual([
			['dup', 'rejected'],
			['dup', 'rejected'],
			['', 'rejected'],
			['r', 'runs'],
		]);
		expect(phase.calls[0].rejection).toContain('shared with another call of the same turn');
		expect(phase.calls[2].rejection).toContain('is empty');
		expect(nextEffect(state)).toEqual({ type: 'run_tools', calls: [expect.objectContaining({ id: 'r' })] });
		const after = step(state, { type: 'tool_outcomes', outcomes: [ok('r', 'Echo: fine')] });
		expect(after.phase.name).toBe('call_model');
		expect(after.toolLog.filter((entry) => entry.id === 'dup').every((entry) => entry.isError)).toBe(true);
	});
});

describe('images a run passes to the model', () => {
	it('are capped for the whole run, a turn of many calls included; the others become notes the model reads', () => {
		const calls = Array.from({ length: 30 }, (_, i) => ({ id: `c${i}`, name: 'echo', rawArguments: { message: String(i) } }));
		let state = step(run(), modelTurn({ toolCalls: calls, stop: 'tool_use' }));
		const image = { mimeType: 'image/png', data: 'A'.repeat(4000) };
		state = step(state, { type: 'tool_outcomes', outcomes: calls.map((call) => ({ id: call.id, isError: false, text: `shot ${call.id}`, images: [image] })) });
		expect(state.imagesSent).toEqual({ count: MAX_RUN_IMAGES, bytes: MAX_RUN_IMAGES * 3000 });
		const transcript = JSON.stringify(state.transcript);
		expect(transcript.split('"type":"image"').length - 1).toBe(MAX_RUN_IMAGES);
		expect(transcript).toContain(`[image omitted: image/png, this run already passed ${MAX_RUN_IMAGES} images`);
	});
});

describe('approval expiry in the state logic (issue 10, point 7)', () => {
	const policy = { mode: 'listed' as const, listed: ['files.write'], alwaysAsk: [], neverAsk: [] };
	const opened = () =>
		step(step(run({ approval: policy }), modelTurn({ toolCalls: [{ id: 'w', name: WRITE, rawArguments: { path: '/etc/passwd' } }], stop: 'tool_use' })), {
			type: 'approval_opened',
			approval: { id: 'ap1', requestedAt: '2026-01-01T00:00:00Z', expiresAt: '2026-01-02T00:00:00Z' },
		});
	const approve = { callId: 'w', argsHash: boundArgsHash(phaseOf(opened(), 'run_tools').calls.find((call) => call.id === 'w')!), decision: 'approve' as const };

	it.each([
		['made after expiresAt', { decidedAt: '2026-01-02T00:00:01Z' }],
		['made exactly at expiresAt', { decidedAt: '2026-01-02T00:00:00.000Z' }],
		['made in time but received after expiresAt', { decidedAt: '2026-01-01T12:00:00Z', receivedAt: '2026-01-03T00:00:00Z' }],
		['with an unreadable time', { decidedAt: 'soon' }],
	])('an approval %s is refused: the call is denied as expired and never runs', (_label, times) => {
		const state = step(opened(), { type: 'approval_decided', approvalId: 'ap1', decisions: [approve], reviewer: 'ann', ...times });
		expect(nextEffect(state)).toEqual({ type: 'call_model' });
		expect(state.toolLog[0]).toMatchObject({ id: 'w', isError: true, review: { decision: 'expired' } });
		expect(state.toolLog[0].resultSummary).toContain('Approval expired');
	});

	it("a denied call's result carries the reviewer's reason capped at the run's Max Tool Result Characters (issue 16: review.ts had an uncapped twin)", () => {
		const reason = 'no. '.repeat(500);
		const capped = step(step(run({ approval: policy, maxToolResultChars: 300 }), modelTurn({ toolCalls: [{ id: 'w', name: WRITE, rawArguments: { path: '/etc/passwd' } }], stop: 'tool_use' })), {
			type: 'approval_opened',
			approval: { id: 'ap1', requestedAt: '2026-01-01T00:00:00Z', expiresAt: '2026-01-02T00:00:00Z' },
		});
		const denied = step(capped, { type: 'approval_decided', approvalId: 'ap1', decisions: [{ ...approve, decision: 'deny', reason }], decidedAt: '2026-01-01T12:00:00Z' });
		const transcript = JSON.stringify(denied.transcript);
		expect(transcript).toContain('A person reviewing this call denied it, so it was not run. Reason: no. no.');
		expect(transcript).toContain('[trimmed by the agent: you see the first 300 of');
		expect(transcript).not.toContain(reason);
	});

	it('an approval in time, received in time, runs', () => {
		const state = step(opened(), { type: 'approval_decided', approvalId: 'ap1', decisions: [approve], decidedAt: '2026-01-01T12:00:00Z', receivedAt: '2026-01-01T12:00:01Z' });
		expect(nextEffect(state)).toMatchObject({ type: 'run_tools', calls: [{ id: 'w' }] });
	});
});

describe('tool calls per turn (issue 10, point 10)', () => {
	it(`runs at most ${MAX_TOOL_CALLS_PER_TURN} calls of one turn; the rest go back to the model as errors, nothing runs for them`, () => {
		const count = MAX_TOOL_CALLS_PER_TURN + 6;
		const toolCalls = Array.from({ length: count }, (_, i) => ({ id: `c${i}`, name: 'echo', rawArguments: { message: `m${i}` } }));
		let state = step(run(), modelTurn({ toolCalls, stop: 'tool_use' }));
		const effect = nextEffect(state);
		expect(effect.type).toBe('run_tools');
		const runIds = effect.type === 'run_tools' ? effect.calls.map((c) => c.id) : [];
		expect(runIds).toEqual(toolCalls.slice(0, MAX_TOOL_CALLS_PER_TURN).map((c) => c.id));
		state = step(state, { type: 'tool_outcomes', outcomes: runIds.map((id) => ok(id, 'done')) });
		expect(state.phase.name).toBe('call_model');
		// Every call the model made gets a result (the APIs require one per call id), in order.
		expect(state.toolLog.map((e) => e.id)).toEqual(toolCalls.map((c) => c.id));
		const extra = state.toolLog[MAX_TOOL_CALLS_PER_TURN];
		expect(extra.isError).toBe(true);
		expect(extra.resultSummary).toContain(`Too many tool calls in one turn: at most ${MAX_TOOL_CALLS_PER_TURN}`);
	});
});

describe('serializability', () => {
	it('every state of a run survives a JSON round trip unchanged', () => {
		const events: AgentEvent[] = [
			modelTurn({ text: 'a', toolCalls: [{ id: 'a', name: 'echo', rawArguments: { message: 'x' } }, { id: 'z', name: 'zzz', rawArguments: {} }], stop: 'tool_use' }),
			{ type: 'tool_outcomes', outcomes: [ok('a', 'Echo: x')], durations: { a: 4 } },
			modelTurn({ text: '', stop: 'pause_turn' }),
			modelTurn({ text: 'done' }),
		];
		let state = run();
		for (const event of events) {
			state = step(JSON.parse(JSON.stringify(state)) as AgentState, event);
			expect(JSON.parse(JSON.stringify(state))).toEqual(state);
		}
		expect(phaseOf(state, 'finished').text).toBe('done');
		expect(state.iterations).toBe(3);
	});
});

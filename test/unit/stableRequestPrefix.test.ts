// Issue 31.2, cache-friendly requests: the requests the Agent builds turn after turn (lib/agent
// step + each built-in adapter's buildRequest, as runAgent builds them) keep a stable prefix for the
// providers' prompt caches. Each request's tool and system part is the previous one's, byte for
// byte (with search, loaded tools only appended after the always-loaded tools and the search tool),
// and the previous request's messages are a byte prefix of the next one's; Anthropic's cache_control
// breakpoints sit on the last tool, the system prompt and the conversation's last block only. A run paused for review, stored as
// JSON, loaded by a fresh module registry (another worker) and given a freshly built catalog sends
// the same bytes as the run that never stopped. Under the provider's own tool search (Anthropic,
// Responses) the tools are the same bytes on every turn, and the provider's search blocks stay in
// the conversation, replayed as they came.

import type { ServerTools } from '../../lib/agent/catalog';
import { systemWithInstructions } from '../../lib/agent/servers';
import type { AgentState, RunSettings } from '../../lib/agent/types';
import type { ToolLoadingOptions } from '../../lib/agent/toolLoading';
import type { ProviderId } from '../../lib/providers/types';

type Body = Record<string, any>;
type Api = 'anthropic' | 'openaiChat' | 'openaiResponses';
const APIS: Api[] = ['anthropic', 'openaiChat', 'openaiResponses'];

/** The agent modules one process (one worker) has loaded: each registry has its own per-catalog caches. */
interface Modules {
	step: typeof import('../../lib/agent/step');
	toolLoading: typeof import('../../lib/agent/toolLoading');
	registry: typeof import('../../lib/providers/registry');
	stateSchema: typeof import('../../lib/agent/stateSchema');
	catalog: typeof import('../../lib/agent/catalog');
}

function loadModules(fresh: boolean): Modules {
	const load = (): Modules => ({
		step: require('../../lib/agent/step'),
		toolLoading: require('../../lib/agent/toolLoading'),
		registry: require('../../lib/providers/registry'),
		stateSchema: require('../../lib/agent/stateSchema'),
		catalog: require('../../lib/agent/catalog'),
	});
	if (!fresh) return load();
	let modules: Modules | undefined;
	jest.isolateModules(() => {
		modules = load();
	});
	return modules!;
}

const filler = (i: number) => ({
	name: `invoice_search_${String(i).padStart(3, '0')}`,
	description: `Searches invoice records (variant ${i}) and returns ids and status.`,
	inputSchema: { type: 'object', properties: { invoiceId: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 100 } } },
});
/** Two servers as listed: a big one (the tools to search) and a small one, both with instructions. */
function listedServers(): ServerTools[] {
	const fillers = Array.from({ length: 40 }, (_, i) => filler(i));
	return [
		{
			id: 'shop',
			name: 'shop',
			instructions: 'Amounts are in EUR.',
			tools: [
				...fillers.slice(0, 20),
				{ name: 'lookup_parcel_tracking', description: 'Finds where a parcel is, by tracking number.', inputSchema: { type: 'object', properties: { trackingNumber: { type: 'string' } }, required: ['trackingNumber'] }, annotations: { readOnlyHint: true } },
				{ name: 'issue_customer_refund', description: "Issues a refund: sends money back to the customer's card for an order.", inputSchema: { type: 'object', properties: { orderId: { type: 'string' }, amount: { type: 'number' } }, required: ['orderId', 'amount'] } },
				...fillers.slice(20),
			],
		},
		{ id: 'ops', name: 'ops', instructions: 'Times are UTC.', tools: [{ name: 'get_current_time', description: 'Returns the current time in UTC.', inputSchema: { type: 'object', properties: {} } }] },
	];
}

/** The model's calls in order; the scripted model searches for a tool that is not offered. */
const NEEDS = [
	{ tool: 'lookup_parcel_tracking', arguments: { trackingNumber: 'PT-1' }, query: 'where is my parcel' },
	{ tool: 'get_current_time', arguments: {}, query: 'current time' },
	{ tool: 'issue_customer_refund', arguments: { orderId: '7', amount: 5 }, query: 'refund order' },
	{ tool: 'lookup_parcel_tracking', arguments: { trackingNumber: 'PT-2' }, query: 'where is my parcel' },
];

function offeredNames(api: Api, body: Body): string[] {
	return (body.tools ?? []).map((tool: Body) => (api === 'openaiChat' ? tool.function.name : tool.name));
}

/** The provider's response body for the next turn of the script (stateless: counts the calls the model made in the request). */
function respond(api: Api, body: Body): Body {
	const transcript: Body[] = api === 'openaiResponses' ? body.input : body.messages;
	// Ids from the conversation's length: the same for the same request, whichever process sends it.
	const turn = transcript.length;
	const made =
		api === 'anthropic'
			? transcript.filter((m) => m.role === 'assistant' && Array.isArray(m.content)).flatMap((m) => m.content.filter((c: Body) => c.type === 'tool_use'))
			: api === 'openaiChat'
				? transcript.flatMap((m) => (m.tool_calls ?? []).map((c: Body) => ({ name: c.function.name })))
				: transcript.filter((item) => item.type === 'function_call');
	const done = made.filter((call: Body) => !String(call.name).startsWith('search_tools')).length;
	const need = NEEDS[done];
	// The provider's own search: a deferred tool not found yet in this conversation is searched for on the provider's side, then called in the same answer.
	const deferred = (body.tools ?? []).some((tool: Body) => tool.defer_loading === true && tool.name === need?.tool);
	const foundBefore =
		api === 'anthropic'
			? JSON.stringify(transcript).includes(`"tool_name":"${need?.tool}"`)
			: transcript.some((item) => item.type === 'tool_search_output' && item.tools.some((tool: Body) => tool.name === need?.tool));
	const native = need && deferred && !foundBefore;
	const call = need && (offeredNames(api, body).includes(need.tool) ? { name: need.tool, arguments: need.arguments } : { name: 'search_tools', arguments: { query: need.query } });
	const id = `call_${turn}`;
	const usage = { input_tokens: 10, output_tokens: 5 };
	if (api === 'anthropic') {
		const searched = native ? [{ type: 'server_tool_use', id: `srvtoolu_${turn}`, name: 'tool_search_tool_bm25', input: { query: need.query }, caller: { type: 'direct' } }, { type: 'tool_search_tool_result', tool_use_id: `srvtoolu_${turn}`, content: { type: 'tool_search_tool_search_result', tool_references: [{ type: 'tool_reference', tool_name: need.tool }] } }] : [];
		return { type: 'message', role: 'assistant', content: call ? [{ type: 'text', text: 'On it.' }, ...searched, { type: 'tool_use', id, name: call.name, input: call.arguments }] : [{ type: 'text', text: 'All done.' }], stop_reason: call ? 'tool_use' : 'end_turn', usage };
	}
	if (api === 'openaiChat') {
		const message = call ? { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } }] } : { role: 'assistant', content: 'All done.' };
		return { choices: [{ index: 0, message, finish_reason: call ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 5 } };
	}
	const definition = native ? (body.tools as Body[]).find((tool) => tool.name === need.tool)! : undefined;
	const searched = definition
		? [{ type: 'tool_search_call', id: `tsc_${turn}`, call_id: null, execution: 'server', status: 'completed', arguments: { query: need.query } }, { type: 'tool_search_output', id: `tso_${turn}`, call_id: null, execution: 'server', status: 'completed', tools: [{ ...definition, defer_loading: undefined }].map(({ defer_loading: _d, ...rest }) => rest) }]
		: [];
	const output = call
		? [...searched, { type: 'function_call', id: `fc_${turn}`, call_id: id, name: call.name, arguments: JSON.stringify(call.arguments), status: 'completed' }]
		: [{ type: 'message', id: `msg_${turn}`, role: 'assistant', content: [{ type: 'output_text', text: 'All done.' }] }];
	return { status: 'completed', output, usage };
}

const POLICY = { mode: 'none' as const, listed: [], alwaysAsk: ['shop/issue_customer_refund'], neverAsk: [] };

function settings(promptCaching = true): RunSettings {
	return {
		model: 'm',
		system: systemWithInstructions('You are the support assistant of a shop.', [{ server: 'shop', text: 'Amounts are in EUR.' }, { server: 'ops', text: 'Times are UTC.' }]),
		maxIterations: 20,
		maxOutputTokens: 1000,
		tokenBudget: 0,
		toolChoice: { type: 'auto' },
		parallelToolCalls: true,
		promptCaching,
		maxToolResultChars: 1000,
		approval: POLICY,
	};
}

const HISTORY = [
	{ role: 'user', content: 'Hi, I have a question about my orders.' },
	{ role: 'assistant', content: 'Hello! Tell me the order numbers.' },
];

const SEARCH: ToolLoadingOptions = { mode: 'search', threshold: 10, alwaysLoaded: ['ops/*'], searchWith: 'package' };
/** The provider's own tool search where the API has one (Chat Completions: the package's, as SEARCH). */
const NATIVE: ToolLoadingOptions = { ...SEARCH, searchWith: 'provider' };
const isNative = (api: Api, loading: ToolLoadingOptions | undefined) => loading?.searchWith === 'provider' && api !== 'openaiChat';

/**
 * Runs the script until it finishes or pauses for review, building each request as runAgent does
 * (adapter.buildRequest(settings, offeredTools(state), transcript)) and keeping its JSON text.
 */
function drive(m: Modules, start: AgentState, requests: string[]): AgentState {
	let state = start;
	const adapter = m.registry.adapterFor(state.provider);
	for (;;) {
		const effect = m.step.nextEffect(state);
		if (effect.type === 'finish' || effect.type === 'request_approval') return state;
		if (effect.type === 'call_model') {
			const text = JSON.stringify(adapter.buildRequest(state.settings, m.toolLoading.offeredTools(state), state.transcript, m.toolLoading.nativeSearchOf(state)));
			requests.push(text);
			state = m.step.step(state, { type: 'model_turn', turn: adapter.parseResponse(respond(state.provider as Api, JSON.parse(text))) });
		} else {
			state = m.step.step(state, { type: 'tool_outcomes', outcomes: effect.calls.map((call) => ({ id: call.id, isError: false, text: `ok ${call.providerName}`, images: [] })), durations: {} });
		}
	}
}

/** The run up to its pause for the refund's review, with the approval opened (what the node stores). */
function pausedRun(m: Modules, api: Api, loading: ToolLoadingOptions | undefined, requests: string[], caching = true): AgentState {
	const tools = m.catalog.buildCatalog(listedServers()).tools;
	const state = m.step.createRun({ provider: api as ProviderId, settings: settings(caching), tools, userMessage: 'Where is parcel PT-1, what time is it, and refund order 7 (5 EUR).', history: HISTORY, ...(loading ? { toolLoading: loading } : {}) });
	const paused = drive(m, state, requests);
	expect(m.step.nextEffect(paused).type).toBe('request_approval');
	return m.step.step(paused, { type: 'approval_opened', approval: { id: 'ap1', requestedAt: '2026-12-02T00:00:00Z', expiresAt: '2026-12-03T00:00:00Z' } });
}

function approve(m: Modules, state: AgentState): AgentState {
	const phase = state.phase as Extract<AgentState['phase'], { name: 'run_tools' }>;
	const call = phase.calls.find((c) => c.review?.status === 'pending')!;
	return m.step.step(state, { type: 'approval_decided', approvalId: 'ap1', decisions: [{ callId: call.id, argsHash: call.review!.argsHash, decision: 'approve' }], reviewer: 'Ana', decidedAt: '2026-12-02T01:00:00Z' });
}

const stripMarker = (value: Body) => {
	const { cache_control: _marker, ...rest } = value;
	return rest;
};

/**
 * An Anthropic message as its cache reads it: a text message is its one text block, and the moving
 * breakpoint on the conversation's last block marks the prompt without being part of it.
 */
const asCached = (message: Body): Body => ({
	...message,
	content: (typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content).map((block: Body) => stripMarker(block)),
});

/** A request's parts as the providers' caches read them: tools, system prompt, messages. */
function parts(api: Api, text: string): { tools: Body[]; system: string; messages: Body[] } {
	const body = JSON.parse(text) as Body;
	if (api === 'anthropic') return { tools: body.tools ?? [], system: JSON.stringify(body.system), messages: body.messages.map(asCached) };
	if (api === 'openaiChat') return { tools: body.tools ?? [], system: JSON.stringify(body.messages[0]), messages: body.messages.slice(1) };
	return { tools: body.tools ?? [], system: JSON.stringify(body.instructions), messages: body.input };
}

/** The messages' JSON without its closing bracket: the previous request's must start the next one's. */
const openMessages = (messages: Body[]) => JSON.stringify(messages).slice(0, -1);

function expectStablePrefix(api: Api, requests: string[], search: boolean) {
	expect(requests.length).toBeGreaterThan(3);
	for (let i = 1; i < requests.length; i++) {
		const before = parts(api, requests[i - 1]);
		const after = parts(api, requests[i]);
		expect(after.system).toBe(before.system);
		if (!search) {
			expect(JSON.stringify(after.tools)).toBe(JSON.stringify(before.tools));
		} else {
			// Loaded tools are appended: every tool of the previous request keeps its place and bytes
			// (Anthropic's cache marker moves to the new last tool; it marks the prompt, it is not part of it).
			expect(after.tools.length).toBeGreaterThanOrEqual(before.tools.length);
			expect(after.tools.slice(0, before.tools.length).map((t) => JSON.stringify(stripMarker(t)))).toEqual(before.tools.map((t) => JSON.stringify(stripMarker(t))));
		}
		expect(openMessages(after.messages).startsWith(openMessages(before.messages))).toBe(true);
		expect(after.messages.length).toBeGreaterThan(before.messages.length);
	}
	if (api !== 'openaiChat') {
		// Chat carries the system prompt as its first message; the others apart from the messages.
		expect(requests[0]).toContain('Instructions from MCP server \\"shop\\":\\nAmounts are in EUR.');
	}
}

/** Where two request lists first differ (request index and the bytes around it), or undefined: a readable failure. */
function firstDifference(got: string[], want: string[]): string | undefined {
	for (let i = 0; i < Math.max(got.length, want.length); i++) {
		const a = got[i] ?? '';
		const b = want[i] ?? '';
		if (a === b) continue;
		let at = 0;
		while (at < a.length && a[at] === b[at]) at++;
		return `request ${i + 1} of ${want.length}, byte ${at}: resumed ${JSON.stringify(a.slice(Math.max(0, at - 80), at + 80))} vs uninterrupted ${JSON.stringify(b.slice(Math.max(0, at - 80), at + 80))}`;
	}
	return undefined;
}

describe.each(APIS)('stable request prefix, %s', (api) => {
	test.each([
		['All Tools', undefined],
		['Search', SEARCH],
		['Provider Search', NATIVE],
	] as const)('%s: tools and system byte-identical turn after turn, messages only appended, through a pause and a resume elsewhere', (_name, loading) => {
		const here = loadModules(false);
		const uninterrupted: string[] = [];
		const paused = pausedRun(here, api, loading, uninterrupted);
		drive(here, approve(here, paused), uninterrupted);
		const native = isNative(api, loading);
		expectStablePrefix(api, uninterrupted, Boolean(loading) && !native);
		if (native) {
			const last = JSON.parse(uninterrupted[uninterrupted.length - 1]) as Body;
			const tools = parts(api, uninterrupted[uninterrupted.length - 1]).tools;
			const searchTool = api === 'anthropic' ? 'tool_search_tool_bm25' : undefined;
			// The always-loaded tool, the provider's search tool, then every other tool deferred (the refund too: it waits for review, it is not refused).
			expect(tools.slice(0, 2).map((t) => t.name ?? t.type)).toEqual(['get_current_time', searchTool ?? 'tool_search']);
			expect(tools).toHaveLength(44);
			expect(tools.slice(2).every((t) => t.defer_loading === true)).toBe(true);
			expect(tools.slice(0, 2).some((t) => t.defer_loading)).toBe(false);
			// The provider's search blocks are in the conversation, replayed on every later turn.
			const replayed = JSON.stringify(api === 'anthropic' ? last.messages : last.input);
			expect(replayed).toContain(api === 'anthropic' ? '"type":"tool_search_tool_result"' : '"type":"tool_search_output"');
			expect(replayed.split(api === 'anthropic' ? '"type":"server_tool_use"' : '"type":"tool_search_call"').length - 1).toBe(2);
		} else if (loading) {
			const names = parts(api, uninterrupted[uninterrupted.length - 1]).tools.map((t) => t.name ?? t.function.name);
			// Always-loaded tools first, then the search tool, then the loaded tools in load order.
			expect(names).toEqual(['get_current_time', 'search_tools', 'lookup_parcel_tracking', 'issue_customer_refund']);
		} else {
			expect(parts(api, uninterrupted[0]).tools).toHaveLength(43);
		}

		// The same run stored at its pause (JSON), loaded by another worker's modules with a catalog listed again.
		const before: string[] = [];
		const stored = JSON.stringify(pausedRun(loadModules(false), api, loading, before));
		expect(before).toEqual(uninterrupted.slice(0, before.length));
		const there = loadModules(true);
		expect(there.registry).not.toBe(here.registry);
		const loaded = there.stateSchema.migrateAgentState(JSON.parse(stored), 'test');
		// The servers may list their tools in another order now: the catalog sorts by name (catalog.ts), so the request does not change.
		const relisted = listedServers().map((server) => ({ ...server, tools: [...server.tools].reverse() })).reverse();
		const refreshed = there.step.step(loaded, { type: 'catalog_refreshed', tools: there.catalog.buildCatalog(relisted).tools });
		const after: string[] = [];
		drive(there, approve(there, refreshed), after);
		expect(after.length).toBeGreaterThan(0);
		expect(firstDifference([...before, ...after], uninterrupted)).toBeUndefined();
	});
});

describe.each(APIS)('the next run of a conversation (memory), %s', (api) => {
	test.each([
		['All Tools', undefined],
		['Search', SEARCH],
		['Provider Search', NATIVE],
	] as const)('%s: its first request repeats the first run\'s tools and system prompt byte for byte', (_name, loading) => {
		const m = loadModules(false);
		const first: string[] = [];
		const finished = drive(m, approve(m, pausedRun(m, api, loading, first)), first);
		expect(m.step.nextEffect(finished).type).toBe('finish');
		// Chat memory gives the next run the user's message and the final answer (lib/agent/memory.ts priorTurns).
		const remembered = [...HISTORY, { role: 'user', content: finished.userMessage }, { role: 'assistant', content: finished.lastText }];
		const next = m.step.createRun({ provider: api as ProviderId, settings: settings(), tools: m.catalog.buildCatalog(listedServers()).tools, userMessage: 'And parcel PT-3?', history: remembered, ...(loading ? { toolLoading: loading } : {}) });
		const second: string[] = [];
		drive(m, next, second);
		const a = parts(api, first[0]);
		const b = parts(api, second[0]);
		expect(b.system).toBe(a.system);
		// A new run starts with no tool loaded again: its tool list is the first run's first one.
		expect(JSON.stringify(b.tools)).toBe(JSON.stringify(a.tools));
		// The prior conversation leads its messages as it led the first run's.
		expect(openMessages(b.messages).startsWith(openMessages(a.messages.slice(0, HISTORY.length)))).toBe(true);
	});
});

describe('Anthropic cache breakpoints', () => {
	const markers = (text: string) => {
		const body = JSON.parse(text) as Body;
		return {
			tools: body.tools.map((tool: Body, i: number) => (tool.cache_control ? i : -1)).filter((i: number) => i >= 0),
			toolCount: body.tools.length,
			system: body.system.map((block: Body) => Boolean(block.cache_control)),
			messages: (body.messages as Body[]).flatMap((message, m) => (Array.isArray(message.content) ? message.content.map((block: Body, b: number) => (block.cache_control ? `${m}.${b}` : '')) : [])).filter(Boolean),
			lastBlock: `${body.messages.length - 1}.${(body.messages.at(-1).content as Body[]).length - 1}`,
		};
	};

	test.each([
		['All Tools', undefined],
		['Search', SEARCH],
	] as const)('%s, Prompt Caching on: one breakpoint on the last tool, one on the system prompt and one on the conversation\'s last block', (_name, loading) => {
		const m = loadModules(false);
		const requests: string[] = [];
		drive(m, approve(m, pausedRun(m, 'anthropic', loading, requests)), requests);
		for (const text of requests) {
			const found = markers(text);
			expect(found.tools).toEqual([found.toolCount - 1]);
			expect(found.system).toEqual([true]);
			expect(found.messages).toEqual([found.lastBlock]);
		}
	});

	test('Provider Search, Prompt Caching on: the tools\' breakpoint on the search tool (the last definition in the prompt), one on the system prompt and one on the conversation\'s last block', () => {
		const m = loadModules(false);
		const requests: string[] = [];
		drive(m, approve(m, pausedRun(m, 'anthropic', NATIVE, requests)), requests);
		for (const text of requests) {
			const found = markers(text);
			expect(found.tools).toEqual([1]);
			expect((JSON.parse(text) as Body).tools[1]).toEqual({ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25', cache_control: { type: 'ephemeral' } });
			expect(found.system).toEqual([true]);
			expect(found.messages).toEqual([found.lastBlock]);
		}
	});

	test('Prompt Caching off: no breakpoint anywhere', () => {
		const m = loadModules(false);
		const requests: string[] = [];
		drive(m, approve(m, pausedRun(m, 'anthropic', SEARCH, requests, false)), requests);
		for (const text of requests) expect(text).not.toContain('cache_control');
	});
});

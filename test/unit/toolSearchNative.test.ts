/**
 * The provider's own tool search (issue 31.1): on Anthropic Messages and OpenAI Responses, Tool
 * Loading "Search When More Than N Tools" sends every offered tool (the always-loaded ones as
 * usual, the others with defer_loading) and the provider's search tool; the provider searches on
 * its side. A tool an approval rule refuses outright is never sent; withheld tools are not in the
 * catalog; a call of a deferred tool is planned, validated and reviewed like any other; the
 * provider's search blocks stay in the transcript, are logged, and survive a stored-state round trip.
 * Chat Completions and Chat Model sub-nodes keep the package's own search tool, as does Tool Search With
 * "Package's Search Tool".
 */
import { buildCatalog, type ServerTools } from '../../lib/agent/catalog';
import { agentRunOutput } from '../../lib/agent/output';
import { migrateAgentState } from '../../lib/agent/stateSchema';
import { createRun, nextEffect, step } from '../../lib/agent/step';
import { nativeSearchOf, offeredTools, SEARCH_TOOL_NAME, type ToolLoadingOptions } from '../../lib/agent/toolLoading';
import type { AgentState, RunSettings } from '../../lib/agent/types';
import { adapterFor } from '../../lib/providers/registry';
import type { ProviderId } from '../../lib/providers/types';
import type { CatalogTool } from '../../lib/providers/modelTypes';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';
import { fingerprintTool } from '../../lib/tools/fingerprint';

type Body = Record<string, any>;
const object = (properties: Record<string, unknown> = {}) => ({ type: 'object', properties });
const readOnly = { readOnlyHint: true };

function tools(): ToolDefinition[] {
	const filler = Array.from({ length: 40 }, (_, i) => ({ name: `get_metric_${i}`, description: `Reads metric number ${i} of the dashboard.`, inputSchema: object({ window: { type: 'string' } }), annotations: readOnly }));
	return [
		...filler,
		{ name: 'list_issues', description: 'Lists the open issues of a repository.', inputSchema: object({ owner: { type: 'string' }, repo: { type: 'string' } }), annotations: readOnly },
		{ name: 'create_issue', description: 'Opens a new issue in a repository.', inputSchema: { ...object({ title: { type: 'string' } }), required: ['title'] } },
		{ name: 'wire_money', description: 'Wires money from the company account.', inputSchema: object({ amount: { type: 'number' } }) },
		{ name: 'secret_invoices', description: 'Reads invoices.', inputSchema: object(), annotations: readOnly },
	];
}

const SERVERS: ServerTools[] = [{ id: 'GitHub', name: 'GitHub', trustAnnotations: true, tools: tools() }];
/** secret_invoices is withheld (not pinned). */
const CATALOG = buildCatalog(SERVERS, { pinned: { entries: tools().filter((t) => t.name !== 'secret_invoices').map((t) => ({ name: t.name, fingerprint: fingerprintTool(t) })) } });

const SETTINGS: RunSettings = {
	model: 'm',
	maxIterations: 8,
	maxOutputTokens: 100,
	tokenBudget: 0,
	toolChoice: { type: 'auto' },
	parallelToolCalls: true,
	promptCaching: false,
	maxToolResultChars: 5000,
	approval: { mode: 'notReadOnly', listed: [], alwaysAsk: [], neverAsk: [], rules: [{ label: 'no wires', tools: ['GitHub/wire_money'], effect: 'refuse', reason: 'wires are not allowed' }] },
};
const SEARCH: ToolLoadingOptions = { mode: 'search', threshold: 30, alwaysLoaded: ['get_metric_1'], searchWith: 'provider' };

const newRun = (provider: ProviderId, options: ToolLoadingOptions = SEARCH, catalog: CatalogTool[] = CATALOG.tools): AgentState =>
	createRun({ provider, settings: SETTINGS, tools: catalog, userMessage: 'help', toolLoading: options });
const request = (state: AgentState): Body => adapterFor(state.provider).buildRequest(state.settings, offeredTools(state), state.transcript, nativeSearchOf(state));
const toolName = (tool: Body) => tool.name ?? tool.function?.name ?? tool.type;

/** Anthropic's answer: a server-side search that found `found`, then a call of it. */
function anthropicAnswer(found: string, args: unknown): Body {
	return {
		content: [
			{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'tool_search_tool_bm25', input: { query: 'open an issue' }, caller: { type: 'direct' } },
			{ type: 'tool_search_tool_result', tool_use_id: 'srvtoolu_1', content: { type: 'tool_search_tool_search_result', tool_references: [{ type: 'tool_reference', tool_name: found }] } },
			{ type: 'tool_use', id: 'toolu_1', name: found, input: args },
		],
		stop_reason: 'tool_use',
		usage: { input_tokens: 5, output_tokens: 5 },
	};
}

/** The Responses answer: a hosted tool_search_call and its output, then a function_call of the tool found. */
function responsesAnswer(found: Body, args: unknown): Body {
	const { defer_loading: _deferred, ...definition } = found;
	return {
		status: 'completed',
		output: [
			{ type: 'tool_search_call', id: 'tsc_1', call_id: null, execution: 'server', status: 'completed', arguments: { query: 'open an issue' } },
			{ type: 'tool_search_output', id: 'tso_1', call_id: null, execution: 'server', status: 'completed', tools: [definition] },
			{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: found.name, arguments: JSON.stringify(args), status: 'completed' },
		],
		usage: { input_tokens: 5, output_tokens: 5 },
	};
}

describe('the request under the provider\'s own tool search', () => {
	it('Anthropic: the always-loaded tool, the BM25 search tool, then every other offered tool deferred; the refused tool never sent', () => {
		const state = newRun('anthropic');
		expect(state.toolLoading).toMatchObject({ strategy: 'provider', searchTool: 'tool_search_tool_bm25', loaded: [] });
		const sent = request(state).tools as Body[];
		expect(sent.slice(0, 2).map(toolName)).toEqual(['get_metric_1', 'tool_search_tool_bm25']);
		expect(sent[1]).toEqual({ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' });
		expect(sent[0]).not.toHaveProperty('defer_loading');
		expect(sent.slice(2).every((tool) => tool.defer_loading === true)).toBe(true);
		const names = sent.map(toolName);
		expect(names).toContain('create_issue');
		expect(names).not.toContain('wire_money');
		expect(names).not.toContain('secret_invoices');
		expect(names).not.toContain(SEARCH_TOOL_NAME);
		// 42 catalog tools (44 less the withheld one and the refused one), plus the search tool.
		expect(sent).toHaveLength(41 + 1 + 1);
	});

	it('OpenAI Responses: the hosted tool_search and deferred functions', () => {
		const sent = request(newRun('openaiResponses')).tools as Body[];
		expect(sent.slice(0, 2)).toEqual([expect.objectContaining({ type: 'function', name: 'get_metric_1' }), { type: 'tool_search' }]);
		expect(sent[0]).not.toHaveProperty('defer_loading');
		expect(sent.slice(2).every((tool) => tool.type === 'function' && tool.defer_loading === true)).toBe(true);
		expect(sent.map(toolName)).not.toContain('wire_money');
	});

	it('keeps the Tool Choice tool loaded (not deferred) and forces it', () => {
		const forced = createRun({ provider: 'anthropic', settings: { ...SETTINGS, toolChoice: { type: 'tool', name: 'list_issues' } }, tools: CATALOG.tools, userMessage: 'x', toolLoading: { ...SEARCH, alwaysLoaded: [] } });
		const body = request(forced);
		expect((body.tools as Body[]).slice(0, 2).map(toolName)).toEqual(['list_issues', 'tool_search_tool_bm25']);
		expect(body.tool_choice).toMatchObject({ type: 'tool', name: 'list_issues' });
	});

	it('Chat Completions and Chat Model sub-nodes keep the package\'s search tool; so does Tool Search With "Package\'s Search Tool"', () => {
		expect(newRun('openaiChat').toolLoading).toMatchObject({ strategy: 'search', searchTool: SEARCH_TOOL_NAME });
		expect(newRun('chatModel').toolLoading).toMatchObject({ strategy: 'search', searchTool: SEARCH_TOOL_NAME });
		const own = newRun('anthropic', { ...SEARCH, searchWith: 'package' });
		expect(own.toolLoading).toMatchObject({ strategy: 'search' });
		expect(nativeSearchOf(own)).toBeUndefined();
		expect((request(own).tools as Body[]).map(toolName)).toEqual(['get_metric_1', SEARCH_TOOL_NAME]);
		// A catalog tool named like the provider's search tool: the package's search, which can be renamed.
		const clash = buildCatalog([{ id: 's', name: 's', tools: [...tools(), { name: 'tool_search_tool_bm25', inputSchema: object() }] }]).tools;
		expect(newRun('anthropic', SEARCH, clash).toolLoading).toMatchObject({ strategy: 'search' });
	});

	it('the request\'s tools are the same bytes on every turn, whatever the searches found', () => {
		const start = newRun('anthropic');
		const before = JSON.stringify(request(start).tools);
		const turn = adapterFor('anthropic').parseResponse(anthropicAnswer('list_issues', { owner: 'o' }));
		const after = step(start, { type: 'model_turn', turn });
		expect(after.toolLoading!.loaded).toEqual([{ serverId: 'GitHub', mcpName: 'list_issues' }]);
		expect(JSON.stringify(request(after).tools)).toBe(before);
	});
});

describe('a turn with the provider\'s search', () => {
	it('Anthropic: the server blocks stay in the transcript and go back as they came; the search is logged; the found tool\'s call is reviewed', () => {
		const turn = adapterFor('anthropic').parseResponse(anthropicAnswer('create_issue', { title: 'Bug' }));
		expect(turn.providerSearches).toEqual([{ id: 'srvtoolu_1', arguments: { query: 'open an issue' }, found: ['create_issue'] }]);
		const called = step(newRun('anthropic'), { type: 'model_turn', turn });
		const assistant = called.transcript.at(-1) as Body;
		expect(assistant.content.map((block: Body) => block.type)).toEqual(['server_tool_use', 'tool_search_tool_result', 'tool_use']);
		expect(assistant.content[0].caller).toEqual({ type: 'direct' });
		expect(called.toolLog).toEqual([{ iteration: 1, id: 'srvtoolu_1', tool: 'tool_search_tool_bm25', arguments: { query: 'open an issue' }, isError: false, resultSummary: 'Found 1 tool: create_issue', durationMs: 0, builtIn: 'provider_tool_search' }]);
		// create_issue is not read-only: the call waits for a person like any other.
		const effect = nextEffect(called);
		expect(effect.type === 'request_approval' && effect.calls.map((c) => [c.providerName, c.review?.status, c.tool?.fingerprint])).toEqual([['create_issue', 'pending', CATALOG.tools.find((t) => t.mcpName === 'create_issue')!.fingerprint]]);
		// Its next request replays the server blocks.
		expect(JSON.stringify(request(called).messages)).toContain('"type":"tool_search_tool_result"');
	});

	it('OpenAI Responses: tool_search_call and tool_search_output are replayed (without ids); the search is logged', () => {
		const start = newRun('openaiResponses');
		const definition = (request(start).tools as Body[]).find((tool) => tool.name === 'list_issues')!;
		const turn = adapterFor('openaiResponses').parseResponse(responsesAnswer(definition, { owner: 'o' }));
		expect(turn.providerSearches).toEqual([{ id: 'tsc_1', arguments: { query: 'open an issue' }, found: ['list_issues'] }]);
		const called = step(start, { type: 'model_turn', turn });
		expect(called.transcript.slice(-3).map((item) => (item as Body).type)).toEqual(['tool_search_call', 'tool_search_output', 'function_call']);
		expect(called.transcript.slice(-3).some((item) => 'id' in (item as Body))).toBe(false);
		expect(called.toolLog[0]).toMatchObject({ tool: 'tool_search', builtIn: 'provider_tool_search', resultSummary: 'Found 1 tool: list_issues' });
		// list_issues is read-only: it runs, through the loop's own checks (validated arguments, pinned fingerprint).
		const effect = nextEffect(called);
		expect(effect.type === 'run_tools' && effect.calls.map((c) => [c.providerName, c.arguments, c.rejection])).toEqual([['list_issues', { owner: 'o' }, undefined]]);
	});

	it('a call of a refused tool by name is still refused by its rule; invalid arguments of a deferred tool are rejected', () => {
		const refused = step(newRun('anthropic'), { type: 'model_turn', turn: adapterFor('anthropic').parseResponse(anthropicAnswer('wire_money', { amount: 5 })) });
		expect(JSON.stringify(refused.transcript)).toContain('wires are not allowed');
		const invalid = step(newRun('anthropic'), { type: 'model_turn', turn: adapterFor('anthropic').parseResponse(anthropicAnswer('create_issue', { title: 5 })) });
		expect(JSON.stringify(invalid.transcript)).toContain('Invalid arguments for tool \\"create_issue\\"');
	});

	it('a failed provider search is logged as an error', () => {
		const answer = anthropicAnswer('list_issues', {});
		answer.content[1].content = { type: 'tool_search_tool_result_error', error_code: 'unavailable' };
		const turn = adapterFor('anthropic').parseResponse(answer);
		expect(turn.providerSearches).toEqual([{ id: 'srvtoolu_1', arguments: { query: 'open an issue' }, found: [], error: 'unavailable' }]);
		const after = step(newRun('anthropic'), { type: 'model_turn', turn });
		expect(after.toolLog[0]).toMatchObject({ isError: true, resultSummary: "The provider's tool search failed (unavailable)" });
		expect(after.toolLoading!.loaded).toEqual([]);
	});

	test.each<ProviderId>(['anthropic', 'openaiResponses'])('%s: a run paused for review resumes from stored JSON with the same request and output', (provider) => {
		const start = newRun(provider);
		const answer = provider === 'anthropic' ? anthropicAnswer('create_issue', { title: 'Bug' }) : responsesAnswer((request(start).tools as Body[]).find((tool) => tool.name === 'create_issue')!, { title: 'Bug' });
		const paused = step(start, { type: 'model_turn', turn: adapterFor(provider).parseResponse(answer) });
		expect(nextEffect(paused).type).toBe('request_approval');
		const restored = migrateAgentState(JSON.parse(JSON.stringify(paused)), 'test');
		expect(restored.toolLoading).toEqual(paused.toolLoading);
		expect(JSON.stringify(request(restored))).toBe(JSON.stringify(request(paused)));
		// A stored run that claims the provider's own search on a provider without one is refused (fail closed).
		expect(() => migrateAgentState({ ...JSON.parse(JSON.stringify(paused)), provider: 'openaiChat' }, 'test')).toThrow(/provider's own tool search .* on a provider that has no such search/);
		const output = agentRunOutput(restored, false).toolSearch;
		expect(output).toEqual({ searchTool: provider === 'anthropic' ? 'tool_search_tool_bm25' : 'tool_search', searchWith: 'provider', alwaysLoaded: ['get_metric_1'], loaded: ['create_issue'] });
	});
});

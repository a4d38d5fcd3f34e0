/**
 * Tool Loading: which of the catalog's tools the model is sent on a turn. With "All Tools" every
 * catalog tool goes with every request. With search (a catalog larger than the builder's
 * threshold) the model starts with the tools the builder marks as always loaded, and finds the
 * others with a search, in one of two ways (the run's strategy, chosen at its start):
 *
 * - "provider": the API's own tool search (Anthropic Messages, OpenAI Responses). Every offered
 *   tool is sent on every turn, the ones not always loaded marked deferred, plus the provider's
 *   search tool; the provider runs the searches on its side and its search blocks stay in the
 *   transcript. The request's tools never change during the run, so prompt caches keep hitting.
 * - "search": the package's own search tool, for APIs without one (Chat Completions, Chat Model
 *   sub-nodes) or when the builder asks for it. Each search loads the definitions it finds for the
 *   following turns; the request's tool list keeps one order across turns (always loaded, the
 *   search tool, then loaded tools in the order they were loaded).
 *
 * The loaded set is part of the run's state, so it survives a pause and a resume on any worker.
 * A found tool is the catalog tool itself: validated, pinned and scanned when the catalog was
 * built (withheld tools are not in it), judged by the approval rules and reviewed when called, like
 * any other. A tool an approval rule refuses outright is never found, loaded, offered or sent.
 */
import { refusesEveryCall } from './approvalRules';
import { matchesToolPattern, type ApprovalPolicy } from './policy';
import { forcedToolName } from '../providers/shared';
import { ToolSearchIndex } from '../tools/toolSearchIndex';
import { toolNameProblem } from '../tools/toolNameRule';
import { adapterFor } from '../providers/registry';
import { validateArguments } from '../tools/argumentValidator';
import type { CatalogTool, ModelSettings, ModelTurn, ProviderSearch, ToolOutcome } from '../providers/modelTypes';
import type { NativeToolSearch, ProviderId } from '../providers/types';
import type { AgentState, PlannedCall, ToolKey, ToolLoadingState } from './types';

export type { ToolKey, ToolLoadingState };

/** The node's Tool Loading options. */
export interface ToolLoadingOptions {
	mode: 'all' | 'search';
	/** Search only when the catalog has more tools than this. */
	threshold: number;
	/** `server/tool` patterns as in Require Approval For. */
	alwaysLoaded: string[];
	/** Tool Search With: the provider's own tool search where the API has one (default), or always the package's search tool. */
	searchWith?: 'provider' | 'package';
}

export const SEARCH_TOOL_NAME = 'search_tools';
export const DEFAULT_SEARCH_RESULTS = 5;
export const MAX_SEARCH_RESULTS = 10;
/**
 * Tools search may load in one run. Loaded tools stay (dropping one would change the request's
 * prefix and the model's view mid-run); past this, a search still answers but loads nothing more.
 */
export const MAX_LOADED_TOOLS = 64;
/** Characters of a found tool's description shown in the search result (its full definition is loaded). */
const RESULT_DESCRIPTION_CHARS = 200;

export const SEARCH_TOOL_SCHEMA: Record<string, unknown> = {
	type: 'object',
	properties: {
		query: { type: 'string', minLength: 1, maxLength: 500, description: 'Words for what the tool should do or act on, e.g. "list open issues" or "send email"; a tool name also works.' },
		limit: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_RESULTS, description: `How many tools to return (default ${DEFAULT_SEARCH_RESULTS}).` },
	},
	required: ['query'],
	additionalProperties: false,
};

const SEARCH_TOOL_DESCRIPTION =
	'Searches the tools available to you that are not loaded yet, by name, title, description and argument names. The tools found are loaded: you can call them from your next turn. Search again with other words when the tool you need is not among them.';

export const keyOf = (tool: Pick<CatalogTool, 'serverId' | 'mcpName'>): ToolKey => ({ serverId: tool.serverId, mcpName: tool.mcpName });
const sameKey = (a: ToolKey, b: ToolKey) => a.serverId === b.serverId && a.mcpName === b.mcpName;
const keyString = (key: ToolKey) => JSON.stringify([key.serverId, key.mcpName]);

/** The search tool as the providers are sent it: a catalog-shaped entry with no server behind it. */
export function searchToolEntry(name: string): CatalogTool {
	return { providerName: name, mcpName: name, serverId: '', serverName: '', description: SEARCH_TOOL_DESCRIPTION, inputSchema: SEARCH_TOOL_SCHEMA, annotationsTrusted: false, fingerprint: '' };
}

/**
 * The run's tool loading at its start: undefined (every tool, every turn) unless search is on and
 * the catalog is larger than the threshold.
 */
export function initialToolLoading(tools: CatalogTool[], options: ToolLoadingOptions | undefined, settings: ModelSettings & { approval?: ApprovalPolicy }, provider?: ProviderId): ToolLoadingState | undefined {
	if (!options || options.mode !== 'search' || tools.length <= options.threshold) return undefined;
	const taken = new Set(tools.map((tool) => tool.providerName));
	// A tool the model is forced to call must be in the request from the first turn.
	const forced = settings.toolChoice.type === 'tool' ? forcedToolName(settings.toolChoice.name, tools) : undefined;
	const always = tools.filter((tool) => tool.providerName === forced || options.alwaysLoaded.some((pattern) => matchesToolPattern(pattern, tool))).map(keyOf);
	const native = provider !== undefined && options.searchWith !== 'package' ? adapterFor(provider).nativeToolSearch : undefined;
	// A catalog tool with the provider search tool's name would clash with it: the package's search tool can be renamed, the provider's cannot.
	if (native && !taken.has(native.toolName)) return { strategy: 'provider', searchTool: native.toolName, always, loaded: [] };
	let searchTool = SEARCH_TOOL_NAME;
	for (let n = 2; taken.has(searchTool); n++) searchTool = `${SEARCH_TOOL_NAME}_${n}`;
	return { strategy: 'search', searchTool, always, loaded: [] };
}

const offeredCache = new WeakMap<CatalogTool[], WeakMap<ToolLoadingState, CatalogTool[]>>();

/** Whether a tool may be found, loaded and offered: an approval rule that refuses all its calls keeps it out. */
function searchable(tool: CatalogTool, policy: ApprovalPolicy | undefined): boolean {
	return !refusesEveryCall(policy, tool);
}

/**
 * The tools a request carries: the whole catalog, or (with search) the always-loaded tools in
 * catalog order, the search tool, and the loaded tools in load order. One array per catalog and
 * loading state, so the providers' per-list caches (cachedToolList) hold across turns.
 */
export function offeredTools(state: { tools: CatalogTool[]; toolLoading?: ToolLoadingState; settings: { approval?: ApprovalPolicy } }): CatalogTool[] {
	const loading = state.toolLoading;
	if (!loading) return state.tools;
	if (loading.strategy === 'provider') return providerOffered(state.tools, loading, state.settings.approval);
	let byState = offeredCache.get(state.tools);
	if (!byState) offeredCache.set(state.tools, (byState = new WeakMap()));
	let offered = byState.get(loading);
	if (offered) return offered;
	const byKey = new Map(state.tools.map((tool) => [keyString(keyOf(tool)), tool]));
	const always = state.tools.filter((tool) => loading.always.some((key) => sameKey(key, tool)));
	const loaded: CatalogTool[] = [];
	for (const key of loading.loaded) {
		const tool = byKey.get(keyString(key));
		// A tool gone from the catalog (withheld after a relisting, removed) is simply no longer sent.
		if (tool && !loading.always.some((entry) => sameKey(entry, tool)) && tool.providerName !== loading.searchTool && searchable(tool, state.settings.approval)) loaded.push(tool);
	}
	offered = [...always, searchToolEntry(loading.searchTool), ...loaded];
	byState.set(loading, offered);
	return offered;
}

const providerOfferedCache = new WeakMap<CatalogTool[], WeakMap<ToolKey[], { policy: ApprovalPolicy | undefined; offered: CatalogTool[] }>>();
const nativeSearchCache = new WeakMap<CatalogTool[], NativeToolSearch>();

/**
 * Under the provider's own search: the always-loaded tools in catalog order, then every other
 * tool in catalog order (sent deferred), never a tool an approval rule refuses outright. It does
 * not depend on what was found, so the request's tools are the same on every turn; one array per
 * catalog, always-loaded list (kept by reference through the run's state changes) and policy.
 */
function providerOffered(tools: CatalogTool[], loading: ToolLoadingState, policy: ApprovalPolicy | undefined): CatalogTool[] {
	let byAlways = providerOfferedCache.get(tools);
	if (!byAlways) providerOfferedCache.set(tools, (byAlways = new WeakMap()));
	const cached = byAlways.get(loading.always);
	if (cached && cached.policy === policy) return cached.offered;
	const kept = tools.filter((tool) => searchable(tool, policy));
	const isAlways = (tool: CatalogTool) => loading.always.some((key) => sameKey(key, tool));
	const always = kept.filter(isAlways);
	const offered = [...always, ...kept.filter((tool) => !isAlways(tool))];
	nativeSearchCache.set(offered, { deferred: new Set(offered.slice(always.length)) });
	byAlways.set(loading.always, { policy, offered });
	return offered;
}

/** What the adapter needs to send the provider's own tool search (undefined under any other loading): the offered tools that go deferred. */
export function nativeSearchOf(state: { tools: CatalogTool[]; toolLoading?: ToolLoadingState; settings: { approval?: ApprovalPolicy } }): NativeToolSearch | undefined {
	if (state.toolLoading?.strategy !== 'provider') return undefined;
	return nativeSearchCache.get(offeredTools(state));
}

/**
 * The loading state after the provider's searches of a turn: the tools they found, by provider
 * name, recorded as loaded (for the output and the stored run; the request does not change).
 */
export function withProviderSearches(state: Pick<AgentState, 'tools'>, loading: ToolLoadingState, searches: ProviderSearch[]): ToolLoadingState {
	const byName = new Map(state.tools.map((tool) => [tool.providerName, tool]));
	const keys = searches.flatMap((search) => search.found.flatMap((name) => (byName.has(name) ? [keyOf(byName.get(name) as CatalogTool)] : [])));
	return withLoaded(loading, keys).loading;
}

/** The loading state with `keys` loaded after the ones already loaded (those and always-loaded ones skipped), within MAX_LOADED_TOOLS. */
export function withLoaded(loading: ToolLoadingState, keys: ToolKey[]): { loading: ToolLoadingState; added: ToolKey[]; over: ToolKey[] } {
	const added: ToolKey[] = [];
	const over: ToolKey[] = [];
	for (const key of keys) {
		if (loading.always.some((entry) => sameKey(entry, key)) || loading.loaded.some((entry) => sameKey(entry, key)) || added.some((entry) => sameKey(entry, key))) continue;
		if (loading.loaded.length + added.length >= MAX_LOADED_TOOLS) over.push(key);
		else added.push(key);
	}
	return { loading: added.length ? { ...loading, loaded: [...loading.loaded, ...added] } : loading, added, over };
}

const indexes = new WeakMap<CatalogTool[], ToolSearchIndex>();

/** The search index of a catalog, built once per catalog (a relisting makes a new catalog array). */
function indexOf(tools: CatalogTool[]): ToolSearchIndex {
	let index = indexes.get(tools);
	if (!index) {
		index = new ToolSearchIndex(tools.map((tool) => ({ name: tool.providerName === tool.mcpName ? tool.mcpName : `${tool.providerName} ${tool.mcpName}`, ...(tool.title !== undefined ? { title: tool.title } : {}), ...(tool.description !== undefined ? { description: tool.description } : {}), inputSchema: tool.inputSchema })));
		indexes.set(tools, index);
	}
	return index;
}

/**
 * One search: the catalog's best matches for the query that `accept` takes, never a tool an
 * approval rule refuses outright (withheld tools are not in the catalog at all). Pure; loading is
 * the caller's.
 */
export function searchCatalog(
	state: { tools: CatalogTool[]; toolLoading?: ToolLoadingState; settings: { approval?: ApprovalPolicy } },
	query: string,
	limit: number,
	accept: (tool: CatalogTool) => boolean = () => true,
): CatalogTool[] {
	const tools = state.tools;
	const searchTool = state.toolLoading?.searchTool;
	const hits = indexOf(tools).search(query, limit, (index) => tools[index].providerName !== searchTool && searchable(tools[index], state.settings.approval) && accept(tools[index]));
	return hits.map((hit) => tools[hit.index]);
}

/**
 * The search result the model reads: each tool found (tools it has already are not found again, so
 * a second search reaches further), whether it is loaded now, and the matching tools it has.
 */
export function searchResultText(query: string, found: CatalogTool[], over: ToolKey[], alreadyLoaded: CatalogTool[]): string {
	const have = alreadyLoaded.length ? `\nAlready loaded and matching: ${alreadyLoaded.map((tool) => tool.providerName).join(', ')}.` : '';
	if (found.length === 0) return `No other tool matches ${JSON.stringify(query)}. Search again with other words: what the tool acts on (issue, invoice, file) or what it does (list, create, send).${have}`;
	const lines = found.map((tool) => {
		const state = over.some((key) => sameKey(key, tool)) ? ' (not loaded: the run has loaded the most tools it may)' : '';
		const about = (tool.title ? `${tool.title}: ` : '') + (tool.description ?? '').replace(/\s+/g, ' ').trim();
		const short = about.length > RESULT_DESCRIPTION_CHARS ? `${about.slice(0, RESULT_DESCRIPTION_CHARS)}…` : about;
		return `- ${tool.providerName}${state}${short ? `: ${short}` : ''}`;
	});
	return `Found ${found.length} tool${found.length === 1 ? '' : 's'} for ${JSON.stringify(query)}; their definitions are loaded, call them from your next turn:\n${lines.join('\n')}${have}`;
}

/** The name of a provider's own search tool, or undefined (an API without one, or a provider this release does not know). */
function nativeSearchName(provider: string): string | undefined {
	try {
		return adapterFor(provider as ProviderId).nativeToolSearch?.toolName;
	} catch {
		return undefined;
	}
}

/** What is wrong with a stored run's tool loading, or undefined (stateSchema.ts). */
export function toolLoadingProblem(value: unknown, provider?: string): string | undefined {
	if (value === undefined) return undefined;
	if (!value || typeof value !== 'object' || Array.isArray(value)) return 'tool loading that is not an object';
	const loading = value as Record<string, unknown>;
	if (loading.strategy !== 'search' && loading.strategy !== 'provider') return `an unknown tool loading strategy ${JSON.stringify(loading.strategy)}`;
	if (typeof loading.searchTool !== 'string' || toolNameProblem(loading.searchTool)) return 'a search tool without a valid name';
	if (loading.strategy === 'provider' && provider !== undefined && nativeSearchName(provider) !== loading.searchTool) {
		return `the provider's own tool search "${loading.searchTool}" on a provider that has no such search (${JSON.stringify(provider)})`;
	}
	const isKey = (key: unknown) => !!key && typeof key === 'object' && typeof (key as ToolKey).serverId === 'string' && typeof (key as ToolKey).mcpName === 'string';
	for (const field of ['always', 'loaded'] as const) {
		const list = loading[field];
		if (!Array.isArray(list) || !list.every(isKey)) return `tool loading whose ${field} tools are not a list of { serverId, mcpName }`;
	}
	if ((loading.loaded as unknown[]).length > MAX_LOADED_TOOLS) return `more than ${MAX_LOADED_TOOLS} loaded tools`;
	return undefined;
}

const isLoaded = (loading: ToolLoadingState, key: ToolKey) => loading.loaded.some((entry) => sameKey(entry, key)) || loading.always.some((entry) => sameKey(entry, key));

/** A call of the model's turn as tool search answers it: the search itself, or a call of a tool not loaded yet. */
export interface SearchTurnCall {
	call: PlannedCall;
	/** The search's result (a call that is not rejected is answered here, never run by a server). */
	outcome?: ToolOutcome;
	loading: ToolLoadingState;
}

/**
 * One call of a turn under tool search, with `loading` as the turn has left it so far; undefined
 * when the call is planned as any other (a tool already offered, an unknown name, a refused tool).
 * `tool` is the catalog tool the call's name resolves to, if any.
 */
export function callUnderSearch(
	state: Pick<AgentState, 'provider' | 'tools' | 'toolLoading' | 'settings'>,
	loading: ToolLoadingState,
	call: ModelTurn['toolCalls'][number],
	tool: CatalogTool | undefined,
): SearchTurnCall | undefined {
	// The provider's own search runs on its side: every call of the turn is a catalog tool's (or unknown), planned as any other.
	if (loading.strategy === 'provider') return undefined;
	const base = { id: call.id, providerName: call.name };
	if (call.name === loading.searchTool) {
		const searchCall = { ...base, builtIn: 'tool_search' as const };
		const parsed = adapterFor(state.provider).parseArguments(call.rawArguments);
		if (!parsed.ok) return { call: { ...searchCall, arguments: call.rawArguments, rejection: `The arguments are not valid JSON: ${parsed.error}. Send a JSON object.` }, loading };
		const validation = validateArguments(SEARCH_TOOL_SCHEMA, parsed.value);
		if (!validation.valid) return { call: { ...searchCall, arguments: parsed.value, rejection: `Invalid arguments for tool "${call.name}": ${validation.summary}. Send { "query": "words for the tool you need" }.` }, loading };
		const { query, limit } = parsed.value as { query: string; limit?: number };
		const size = limit ?? DEFAULT_SEARCH_RESULTS;
		const found = searchCatalog(state, query, size, (tool) => !isLoaded(loading, keyOf(tool)));
		const have = searchCatalog(state, query, size, (tool) => isLoaded(loading, keyOf(tool)));
		const next = withLoaded(loading, found.map(keyOf));
		return { call: { ...searchCall, arguments: parsed.value }, outcome: { id: call.id, isError: false, text: searchResultText(query, found, next.over, have), images: [] }, loading: next.loading };
	}
	if (!tool || !searchable(tool, state.settings.approval) || offeredTools(state).includes(tool)) return undefined;
	// The model named a catalog tool it was not sent (a guess, an earlier conversation, a search of this same turn):
	// it has not seen the definition, so the call does not run; the tool is loaded for the next turn.
	const key = keyOf(tool);
	const next = withLoaded(loading, [key]);
	const rejection = isLoaded(next.loading, key)
		? `The tool "${call.name}" was not loaded when you called it, so it was not called. Its definition is loaded now: call it again in your next turn, with arguments that match it.`
		: `The tool "${call.name}" is not loaded and cannot be: this run has loaded the most tools it may (${MAX_LOADED_TOOLS}). Use the tools you have.`;
	return { call: { ...base, tool: { serverId: tool.serverId, serverName: tool.serverName, mcpName: tool.mcpName, fingerprint: tool.fingerprint }, arguments: call.rawArguments, rejection }, loading: next.loading };
}

/** For the node's output: the search tool's name and the tools sent at the end of the run, by provider name. */
export function toolLoadingSummary(state: Pick<AgentState, 'tools' | 'toolLoading' | 'settings'>): { searchTool: string; searchWith: 'provider' | 'package'; alwaysLoaded: string[]; loaded: string[] } | undefined {
	const loading = state.toolLoading;
	if (!loading) return undefined;
	if (loading.strategy === 'provider') {
		const offered = offeredTools(state);
		const found = (key: ToolKey) => offered.find((tool) => sameKey(key, tool));
		const names = (keys: ToolKey[]) => keys.flatMap((key) => found(key)?.providerName ?? []);
		return { searchTool: loading.searchTool, searchWith: 'provider', alwaysLoaded: names(loading.always), loaded: names(loading.loaded) };
	}
	const offered = offeredTools(state);
	const at = offered.findIndex((tool) => tool.providerName === loading.searchTool && tool.serverId === '');
	return { searchTool: loading.searchTool, searchWith: 'package', alwaysLoaded: offered.slice(0, at).map((tool) => tool.providerName), loaded: offered.slice(at + 1).map((tool) => tool.providerName) };
}

'use strict';
// The report's section of part 'toolTokens' (scripts/tool-tokens.js, derived by
// derive.deriveToolTokens): every figure and every number in its text from this run's results.

const { API_NAMES, LOADING_NAMES } = require('./targets');

const int = (value) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en') : '–');
const pct = (value) => (Number.isFinite(value) ? `${(value * 100).toFixed(1)}%` : '–');
const loadingName = (loading) => LOADING_NAMES[loading] ?? loading;

function table(header, rows) {
	return [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

/** Per needed tool of a run: the turns from the first one that needed it to its call, and the searches among them. */
function foundText(run) {
	return Object.entries(run.found ?? {})
		.map(([tool, f]) => {
			if (f.turn === null) return `\`${tool}\`: never called`;
			const turns = f.turn - f.firstNeededTurn + 1;
			return `\`${tool}\` ${turns} turn${turns === 1 ? '' : 's'} (${f.searches} search${f.searches === 1 ? '' : 'es'}, called on turn ${f.turn})`;
		})
		.join(', ');
}

function toolTokensSection(part) {
	const biggest = part.servers.reduce((a, b) => (b.tools > a.tools ? b : a), part.servers[0]);
	const out = [`### Tool tokens: a conversation on a ${int(biggest?.tools)}-tool server, All Tools vs Search`, ''];
	const hasNative = part.runs.some((run) => run.loading === 'native');
	const rows = part.runs.map((run) => {
		const c = part.comparisons.find((entry) => entry.provider === run.provider);
		return [
			API_NAMES[run.provider] ?? run.provider,
			loadingName(run.loading),
			String(run.turns),
			int(run.promptTokens),
			int(run.promptTokensPerTurn),
			int(run.cacheReadTokens),
			int(run.cacheWriteTokens),
			run.loading === 'search' ? `**${pct(c?.ratio)}**` : run.loading === 'native' ? `**${pct(c?.nativeRatio)}**` : '',
			`${pct(run.cachedShare)} (lowest ${pct(run.lowestCachedShare?.share)}, turn ${run.lowestCachedShare?.turn ?? '–'})`,
		];
	});
	out.push(table(['Provider API', 'Tool Loading', 'Turns', 'Input tokens', 'Per turn (median)', 'Cache reads', 'Cache writes', 'Search ÷ All', 'Tool + system part read from cache, turns 2+'], rows), '');
	const perTurn = part.runs.map((run) => `${API_NAMES[run.provider] ?? run.provider}, ${loadingName(run.loading)}: ${run.samples.promptTokens.map(int).join(', ')} (cache reads ${run.samples.cacheReadTokens.map(int).join(', ')})`);
	const searchRuns = part.runs.filter((run) => run.loading !== 'all');
	const servers = part.servers.map((s) => `${s.name} (${int(s.tools)} tools${s.instructionsChars ? `, ${int(s.instructionsChars)} characters of instructions` : ''})`).join(', ');
	const c = part.cache;
	out.push(
		`One scripted conversation through the Agent's loop (\`createRun\` + \`runAgent\` + \`runToolCalls\`) with three stdio MCP servers, ${servers}: ${int(part.catalogTools)} tools in the catalog, the servers' instructions in the system prompt. ` +
			`The task needs ${part.neededCalls.length} calls of ${new Set(part.neededCalls).size} tools of the big server (${[...new Set(part.neededCalls)].map((t) => `\`${t}\``).join(', ')}), then an answer. ` +
			'Each provider API through its real SDK client (`createModelClient`) against a wire-compatible fake on 127.0.0.1 (`bench/lib/tokenFake.js`) whose scripted model, reading the conversation it is sent, calls the next tool the task needs when it is offered and otherwise searches with words from the task (`search_tools`, or the provider\'s own search). ' +
			'**All Tools** sends every tool on every turn; **Search** (Tool Loading "Search", Tool Search With "Package\'s Search Tool") sends the two small servers\' tools (Always Loaded Tools), `search_tools` and the tools searches loaded. ' +
			(hasNative
				? "**Search, provider's own** (Tool Search With \"Provider's Own Tool Search\", Anthropic and Responses) sends the small servers' tools, the provider's search tool and every other tool deferred (`defer_loading`): the fake bills no deferred tool, and a tool a search found at the place the search result loads it (Anthropic: each `tool_reference` counts as the tool's definition; Responses: the definitions in `tool_search_output`), as the providers bill them; its search (on the fake's side) ranks the deferred tools by words shared with the query and returns at most 3. "
				: '') +
			`Input tokens are the fake's count of what the provider bills (every tool, the system prompt, every message, serialized as sent) with ${part.tokenizer} (OpenAI's tokenizer; Anthropic publishes none, so its rows approximate Anthropic's counts). ` +
			`Cache reads are recorded as each provider caches: OpenAI the longest common prefix with an earlier request in ${int(c.openAiStep)}-token steps from ${int(c.openAiMin)} tokens; Anthropic the longest prefix written at a \`cache_control\` breakpoint (at least ${int(c.anthropicMin)} tokens) that ends at or up to ${c.anthropicLookbackBlocks} blocks before one of the request's breakpoints (the Agent marks the last tool, the system prompt and the conversation's last block). ` +
			'The prompt is read in the providers\' cache order: tools, system prompt, messages. The per-turn cache reads here are the Agent\'s own `usage` (its state after each model turn), checked against what the fake billed. ' +
			'"Tool + system part read from cache": per turn after the first, the cache read up to the size of that turn\'s tools and system prompt, over turns 2 and later, and its lowest turn.',
		'',
		`Turns from needing each tool to calling it, with search: ${searchRuns.map((run) => `${API_NAMES[run.provider] ?? run.provider}${run.loading === 'native' ? " (provider's own)" : ''}: ${foundText(run)}`).join('. ')}.`,
		'',
		`Input tokens per turn: ${perTurn.join('; ')}.`,
		'',
	);
	return out.join('\n');
}

module.exports = { toolTokensSection, foundText };

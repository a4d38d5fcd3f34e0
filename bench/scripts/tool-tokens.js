'use strict';
// Tokens a conversation costs with every tool sent against tool search (issue 31): one scripted
// conversation through our agent loop (dist/lib: createRun + runAgent + runToolCalls over
// McpConnections) with three real stdio MCP servers: the 1,000-tool many-tools server
// (test/fixtures/many-tools-server.js, 1,003 tools), server-everything and the approval workload's
// five-tool server. The task needs 3 tools of the big server, each twice (6 calls); on each of the
// three built-in provider APIs, through the real SDK clients (createModelClient) talking to a
// wire-compatible fake on 127.0.0.1 that tokenizes every request and records cache reads as the
// provider would (bench/lib/tokenFake.js): Tool Loading "All Tools", "Search" with the package's
// search_tools (the two small servers' tools always loaded, the big server's found through search),
// and on Anthropic and Responses also "native": Search with the provider's own tool search (the big
// server's tools sent deferred, not billed until a search loads them; the fake emulates the search).
//
// The scripted model reads the conversation it is sent (stateless, as the APIs are): it calls the
// next tool the task needs when that tool is offered, else searches with the next query written
// from the task's words for it; after the 6 calls it answers. So with search each tool costs the
// searches it needs (measured), and the conversation is 3 turns longer.
//
// Input (argv[2], JSON): {} (nothing to tune: the conversation is fixed)
// Output (last stdout line, JSON): { tokenizer, cache: {...}, tools: {...}, runs: [{ provider, loading,
//   turns, samples: { promptTokens: [...], cacheReadTokens, cacheWriteTokens, toolsTokens, systemTokens,
//   messagesTokens, offeredTools }, agentUsage (the output item's usage), agentUsagePerTurn: {...},
//   found: { tool: { searches, turn, firstNeededTurn } } }] }

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { EVERYTHING_ENTRY, REPO, RUN_MARKER_NAME, emitResult } = require('../lib/common');
const fakes = require('../lib/tokenFake');

const DIST = path.join(REPO, 'dist', 'lib');
const { McpConnection } = require(path.join(DIST, 'mcp', 'connection.js'));
const { listAllTools } = require(path.join(DIST, 'mcp', 'listing.js'));
const { buildCatalog } = require(path.join(DIST, 'agent', 'catalog.js'));
const { createRun } = require(path.join(DIST, 'agent', 'step.js'));
const { runAgent } = require(path.join(DIST, 'agent', 'runAgent.js'));
const { runToolCalls } = require(path.join(DIST, 'agent', 'toolRunner.js'));
const { DEFAULT_OUTCOME_LIMITS } = require(path.join(DIST, 'agent', 'toolOutcome.js'));
const { buildRunSettings, buildToolLoading } = require(path.join(DIST, 'agent', 'settings.js'));
const { systemWithInstructions } = require(path.join(DIST, 'agent', 'servers.js'));
const { createModelClient } = require(path.join(DIST, 'providers', 'clients.js'));
const { agentRunOutput } = require(path.join(DIST, 'agent', 'output.js'));

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

const SYSTEM = 'You are the support assistant of an online shop. Use the tools to answer; never guess a parcel status, a time or a refund result. Keep answers short and say what each tool returned.';
const TASK =
	'Customer Ana asks: where is my parcel PT-4471? What time is it now (UTC)? Please refund order 1182 (19.90 EUR). ' +
	'Then the same for her second order: track parcel PT-9902, tell the time again, and refund order 1190 (5.00 EUR).';
/** The calls the task needs, in order, and the words from the task the model searches with (one query per search). */
const NEEDS = [
	{ tool: 'lookup_parcel_tracking', arguments: { trackingNumber: 'PT-4471' } },
	{ tool: 'get_current_time', arguments: {} },
	{ tool: 'issue_customer_refund', arguments: { orderId: '1182', amount: 19.9 } },
	{ tool: 'lookup_parcel_tracking', arguments: { trackingNumber: 'PT-9902' } },
	{ tool: 'get_current_time', arguments: {} },
	{ tool: 'issue_customer_refund', arguments: { orderId: '1190', amount: 5 } },
];
const QUERIES = {
	lookup_parcel_tracking: ['where is my parcel', 'track parcel', 'parcel tracking number'],
	get_current_time: ['what time is it now UTC', 'current time', 'time'],
	issue_customer_refund: ['refund order', 'refund customer', 'send money back'],
};
const SEARCH_TOOL = 'search_tools';
const PROVIDERS = ['anthropic', 'openaiChat', 'openaiResponses'];
/** 'native': Search with the provider's own tool search, on the APIs that have one. */
const LOADINGS = { anthropic: ['all', 'search', 'native'], openaiChat: ['all', 'search'], openaiResponses: ['all', 'search', 'native'] };

/** The scripted model: the next needed call when its tool is offered, else the next search for it (the package's search_tools, or the provider's own). */
function decide({ calls, offered, nativeSearch }) {
	let need = 0;
	const searches = new Map();
	for (const call of calls) {
		if (call.name === SEARCH_TOOL || call.search) {
			const tool = NEEDS[need].tool;
			searches.set(tool, (searches.get(tool) ?? 0) + 1);
		} else if (need < NEEDS.length && call.name === NEEDS[need].tool) need++;
		else throw new Error(`the conversation has a call of ${call.name} the script did not make`);
	}
	if (need === NEEDS.length) return { text: 'Parcel PT-4471 and PT-9902 are with Fast Carrier in Lisbon; both refunds are done.' };
	const { tool, arguments: args } = NEEDS[need];
	if (offered.includes(tool)) return { call: { name: tool, arguments: args } };
	const tried = searches.get(tool) ?? 0;
	if (tried >= QUERIES[tool].length) throw new Error(`${tool} was not found after ${tried} searches (${QUERIES[tool].join(' | ')})`);
	if (nativeSearch) return { search: { query: QUERIES[tool][tried] } };
	if (!offered.includes(SEARCH_TOOL)) throw new Error(`${tool} is not offered and there is no ${SEARCH_TOOL}`);
	return { call: { name: SEARCH_TOOL, arguments: { query: QUERIES[tool][tried] } } };
}

function stdioConfig(args, env) {
	return {
		kind: 'stdio',
		command: process.execPath,
		args,
		env: { ...env, ...(process.env[RUN_MARKER_NAME] ? { [RUN_MARKER_NAME]: process.env[RUN_MARKER_NAME] } : {}) },
		trustAnnotations: false,
		connectTimeoutMs: 30_000,
		requestTimeoutMs: 60_000,
	};
}

async function connectServers(dir) {
	const servers = [
		{ id: 'shop', name: 'shop', config: stdioConfig([path.join(REPO, 'test', 'fixtures', 'many-tools-server.js'), '1000'], { MANY_TOOLS_CALLS_FILE: path.join(dir, 'many-calls.txt') }) },
		{ id: 'everything', name: 'everything', config: stdioConfig([EVERYTHING_ENTRY, 'stdio'], {}) },
		{ id: 'ops', name: 'ops', config: stdioConfig([path.join(REPO, 'bench', 'fixtures', 'approval-tools-server.js')], { APPROVAL_CALLS_FILE: path.join(dir, 'ops-calls.txt') }) },
	];
	const connections = new Map();
	const listed = [];
	try {
		for (const server of servers) {
			const connection = await McpConnection.open(server.config);
			connections.set(server.id, connection);
			listed.push({ id: server.id, name: server.name, tools: await listAllTools(connection), trustAnnotations: false, instructions: connection.instructions });
		}
	} catch (error) {
		for (const connection of connections.values()) await connection.close().catch(() => {});
		throw error;
	}
	return { connections, listed };
}

/** One conversation: the Agent's usage per turn (from its state after each model turn) and what the fake billed. */
async function converse({ provider, loading, catalog, instructions, connections, servers }) {
	const fake = await fakes.startTokenFake(provider, decide);
	try {
		const settings = buildRunSettings('bench-tool-tokens', systemWithInstructions(SYSTEM, instructions), { maxIterations: 20 });
		// The small servers' tools are always loaded (the builder's Always Loaded Tools); the big server's are searched.
		const toolLoading = buildToolLoading({
			toolLoading: loading === 'all' ? 'all' : 'search',
			toolSearchWith: loading === 'native' ? 'provider' : 'package',
			alwaysLoadedTools: servers.filter((s) => s.id !== 'shop').map((s) => `${s.name}/*`).join(','),
		});
		const state = createRun({ provider, settings, tools: catalog, userMessage: TASK, toolLoading });
		const model = createModelClient({ provider, apiKey: 'bench-not-a-key', baseUrl: fake.baseUrl, maxRetries: 0, timeoutMs: 120_000 });
		const toolRunnerOptions = { connections, concurrency: 4, timeoutMs: 60_000, limits: { ...DEFAULT_OUTCOME_LIMITS, maxChars: settings.maxToolResultChars } };
		const perTurn = { inputTokens: [], cacheReadTokens: [], cacheWriteTokens: [] };
		let last = state;
		const final = await runAgent(state, {
			model,
			runTools: (calls) => runToolCalls(calls, toolRunnerOptions),
			onStep: (next) => {
				if (next.iterations !== last.iterations) {
					for (const key of Object.keys(perTurn)) perTurn[key].push(next.usage[key] - last.usage[key]);
				}
				last = next;
			},
		});
		if (final.phase.name !== 'finished' || final.phase.status !== 'completed') throw new Error(`${provider} ${loading}: the run ended ${JSON.stringify(final.phase).slice(0, 300)}`);
		const ran = final.toolLog.filter((entry) => !entry.builtIn);
		if (ran.length !== NEEDS.length || ran.some((entry) => entry.isError)) throw new Error(`${provider} ${loading}: ${ran.length} tool calls ran (${ran.filter((e) => e.isError).length} failed), expected ${NEEDS.length}`);
		// A fake per conversation: its requests are this conversation's turns, its cache starts empty.
		const requests = fake.requests;
		// The Agent's output must report what the provider billed, turn by turn.
		requests.forEach((r, i) => {
			const agentTotal = perTurn.inputTokens[i] + perTurn.cacheReadTokens[i] + perTurn.cacheWriteTokens[i];
			if (agentTotal !== r.total || perTurn.cacheReadTokens[i] !== r.read || perTurn.cacheWriteTokens[i] !== r.write) {
				throw new Error(`${provider} ${loading} turn ${i + 1}: the Agent's usage (input ${perTurn.inputTokens[i]}, cache read ${perTurn.cacheReadTokens[i]}, write ${perTurn.cacheWriteTokens[i]}) is not what the fake billed (${JSON.stringify(r)})`);
			}
		});
		// And its output item's `usage` (what the node returns) is the sum of those turns.
		const output = agentRunOutput(final, false);
		for (const key of Object.keys(perTurn)) {
			const sum = perTurn[key].reduce((a, b) => a + b, 0);
			if (output.usage[key] !== sum) throw new Error(`${provider} ${loading}: the output's usage.${key} is ${output.usage[key]}, the turns add up to ${sum}`);
		}
		const found = {};
		const foundEntry = (tool, i) => (found[tool] ??= { searches: 0, turn: null, firstNeededTurn: i + 1 });
		requests.forEach((r, i) => {
			// The provider's own searches of the answer, before its call.
			for (const search of r.decision.searches ?? []) foundEntry(Object.keys(QUERIES).find((name) => QUERIES[name].includes(search.query)), i).searches++;
			const call = r.decision.call;
			if (!call) return;
			if (call.name === SEARCH_TOOL) {
				const tool = Object.keys(QUERIES).find((name) => QUERIES[name].includes(call.arguments.query));
				found[tool] ??= { searches: 0, turn: null, firstNeededTurn: i + 1 };
				found[tool].searches++;
			} else if (!found[call.name]?.turn) {
				found[call.name] ??= { searches: 0, turn: null, firstNeededTurn: i + 1 };
				found[call.name].turn = i + 1;
			}
		});
		const samples = {
			promptTokens: requests.map((r) => r.total),
			cacheReadTokens: requests.map((r) => r.read),
			cacheWriteTokens: requests.map((r) => r.write),
			toolsTokens: requests.map((r) => r.tools),
			systemTokens: requests.map((r) => r.system),
			messagesTokens: requests.map((r) => r.messages),
			offeredTools: requests.map((r) => r.offered),
		};
		return { provider, loading, turns: requests.length, samples, agentUsage: output.usage, agentUsagePerTurn: perTurn, found };
	} finally {
		await fake.close();
	}
}

(async () => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-agent-bench-tokens-'));
	const { connections, listed } = await connectServers(dir);
	try {
		const { tools: catalog, instructions, withheld } = buildCatalog(listed);
		if (withheld.length) process.stderr.write(`[toolTokens] withheld: ${withheld.map((w) => `${w.server}/${w.tool}`).join(', ')}\n`);
		const runs = [];
		for (const provider of PROVIDERS) {
			for (const loading of LOADINGS[provider]) {
				const run = await converse({ provider, loading, catalog, instructions, connections, servers: listed });
				runs.push(run);
				const sum = run.samples.promptTokens.reduce((a, b) => a + b, 0);
				process.stderr.write(`[toolTokens] ${provider} ${loading}: ${run.turns} turns, ${sum} input tokens, cache reads ${run.samples.cacheReadTokens.join(' ')}\n`);
			}
		}
		emitResult({
			tokenizer: fakes.TOKENIZER,
			cache: { openAiMin: fakes.OPENAI_CACHE_MIN, openAiStep: fakes.OPENAI_CACHE_STEP, anthropicMin: fakes.ANTHROPIC_CACHE_MIN, anthropicLookbackBlocks: fakes.ANTHROPIC_LOOKBACK_BLOCKS },
			servers: listed.map((s) => ({ name: s.name, tools: s.tools.length, instructionsChars: s.instructions?.length ?? 0 })),
			catalogTools: catalog.length,
			neededCalls: NEEDS.map((n) => n.tool),
			runs,
		});
	} finally {
		for (const connection of connections.values()) await connection.close().catch(() => {});
		fs.rmSync(dir, { recursive: true, force: true });
	}
})().catch((error) => {
	console.error(error);
	process.exit(1);
});

'use strict';
// A server with 1,000 tools (bench/fixtures/many-tools-server.js over stdio): how long our code
// takes, and how much memory it holds, to list them (McpConnection + listAllTools), fingerprint them
// (fingerprintTool), convert them to each provider's format (toAnthropicTool, toOpenAiChatTool,
// toOpenAiResponsesTool), build the Agent's catalog (buildCatalog: fingerprints, poisoning scan,
// provider names) and compile argument validators (compileArgumentValidator).
//
// "cold" = the first pass in this fresh process (includes JIT warm-up of the code, as on the first
// execution after n8n starts); "warm" = median of later passes (a long-running n8n). Validators are
// cached by schema, so only their first compile is a real compile; "cached" is the lookup after.
//
// Input (argv[2], JSON): { tools, quick }
// Output (last stdout line, JSON): { tools, connectMs, phases: { name: { coldMs, warmMs, heapDeltaMb } }, ... }

const path = require('node:path');
const { BENCH, REPO, RUN_MARKER_NAME, emitResult, median } = require('../lib/common');

const DIST = path.join(REPO, 'dist', 'lib');
const { McpConnection } = require(path.join(DIST, 'mcp', 'connection.js'));
const { listAllTools } = require(path.join(DIST, 'mcp', 'listing.js'));
const { fingerprintTool } = require(path.join(DIST, 'tools', 'fingerprint.js'));
const { toAnthropicTool, toOpenAiChatTool, toOpenAiResponsesTool } = require(path.join(DIST, 'tools', 'providerFormats.js'));
const { compileArgumentValidator } = require(path.join(DIST, 'tools', 'argumentValidator.js'));
const { buildCatalog } = require(path.join(DIST, 'agent', 'catalog.js'));
const { ListToolsResultSchema } = require('@modelcontextprotocol/sdk/types.js');
const { createHash } = require('node:crypto');

const input = JSON.parse(process.argv[2] || '{}');
const COUNT = input.tools ?? 1000;
const WARM_PASSES = input.quick ? 3 : 9;
process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

function heapUsed() {
	global.gc?.();
	global.gc?.();
	return process.memoryUsage().heapUsed;
}

/** Runs `fn` once cold and WARM_PASSES times warm; memory is what the first pass's result retains. */
async function phase(fn) {
	const before = heapUsed();
	const t0 = performance.now();
	const kept = await fn();
	const coldMs = performance.now() - t0;
	const retainedMb = (heapUsed() - before) / 2 ** 20;
	const warm = [];
	for (let i = 0; i < WARM_PASSES; i++) {
		global.gc?.();
		const t = performance.now();
		await fn();
		warm.push(performance.now() - t);
	}
	return { result: kept, stats: { coldMs, warmMs: median(warm), warmSamples: warm, retainedMb } };
}

(async () => {
	const config = {
		kind: 'stdio',
		command: process.execPath,
		args: [path.join(BENCH, 'fixtures', 'many-tools-server.js'), String(COUNT)],
		env: process.env[RUN_MARKER_NAME] ? { [RUN_MARKER_NAME]: process.env[RUN_MARKER_NAME] } : {},
		trustAnnotations: false,
		connectTimeoutMs: 30_000,
		requestTimeoutMs: 60_000,
	};
	const rssStart = process.memoryUsage().rss;
	const t0 = performance.now();
	const connection = await McpConnection.open(config);
	const connectMs = performance.now() - t0;
	const phases = {};
	try {
		const list = await phase(() => listAllTools(connection));
		phases.list = list.stats;
		const tools = list.result;
		if (tools.length !== COUNT) throw new Error(`listed ${tools.length} tools, expected ${COUNT}`);
		const listedJsonChars = JSON.stringify(tools).length;

		phases.fingerprint = (await phase(() => tools.map(fingerprintTool))).stats;
		phases.toAnthropic = (await phase(() => tools.map((t) => toAnthropicTool(t)))).stats;
		phases.toOpenAiChat = (await phase(() => tools.map((t) => toOpenAiChatTool(t)))).stats;
		phases.toOpenAiResponses = (await phase(() => tools.map((t) => toOpenAiResponsesTool(t)))).stats;
		phases.catalog = (await phase(() => buildCatalog([{ id: 'bench', name: 'bench', tools, trustAnnotations: false }]).tools)).stats;

		// Validators: the first pass compiles every schema; later passes hit the cache.
		const before = heapUsed();
		const c0 = performance.now();
		const validators = tools.map((t) => compileArgumentValidator(t.inputSchema));
		const compileColdMs = performance.now() - c0;
		const compileRetainedMb = (heapUsed() - before) / 2 ** 20;
		const cached = [];
		for (let i = 0; i < WARM_PASSES; i++) {
			const t = performance.now();
			tools.map((tool) => compileArgumentValidator(tool.inputSchema));
			cached.push(performance.now() - t);
		}
		phases.compileValidators = { coldMs: compileColdMs, warmMs: null, cachedMs: median(cached), cachedSamples: cached, retainedMb: compileRetainedMb };
		if (validators.length !== COUNT) throw new Error('validators missing');

		// What-ifs for proposed changes (not this package's code; for the report's proposals):
		// tools/list without the SDK's eager compile of every outputSchema validator in
		// Client.listTools(), and fingerprints canonicalized with a sorting JSON.stringify replacer.
		const whatIf = {};
		whatIf.listWithoutOutputValidatorPrecompile = (
			await phase(() =>
				connection.request('listing tools', async (client) => {
					const result = await client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema, connection.requestOptions());
					return [...result.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
				}),
			)
		).stats;
		const sortKeys = (_key, value) => {
			if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
			const sorted = {};
			for (const key of Object.keys(value).sort()) sorted[key] = value[key];
			return sorted;
		};
		const fingerprintReplacer = (tool) =>
			`sha256:${createHash('sha256')
				.update(JSON.stringify({ name: tool.name, title: tool.title ?? null, description: tool.description ?? null, inputSchema: tool.inputSchema ?? null, outputSchema: tool.outputSchema ?? null, annotations: tool.annotations ?? null }, sortKeys))
				.digest('hex')}`;
		whatIf.fingerprintSortingReplacer = (await phase(() => tools.map(fingerprintReplacer))).stats;
		whatIf.fingerprintSortingReplacer.identical = tools.every((tool) => fingerprintReplacer(tool) === fingerprintTool(tool));

		const sum = (key, names) => names.reduce((total, name) => total + phases[name][key], 0);
		const handling = ['list', 'fingerprint', 'toAnthropic', 'toOpenAiChat', 'toOpenAiResponses'];
		emitResult({
			node: process.version,
			tools: COUNT,
			listedJsonChars,
			connectMs,
			phases,
			// What one node execution does with a fresh 1,000-tool list (validators compile lazily,
			// one per tool actually called, so they are reported apart).
			handling: { names: handling, coldMs: sum('coldMs', handling), warmMs: sum('warmMs', handling) },
			handlingWithCompile: { coldMs: sum('coldMs', handling) + compileColdMs },
			whatIf,
			rssGrowthMb: (process.memoryUsage().rss - rssStart) / 2 ** 20,
		});
	} finally {
		await connection.close();
	}
})().catch((error) => {
	console.error(error);
	process.exit(1);
});

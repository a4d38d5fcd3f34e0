'use strict';
// Agent host overhead: our agent loop (dist/lib: createRun + runAgent + runToolCalls over an
// McpConnection, the provider adapters, argument validation) against the hand-written loop of
// the seed example (messages.create -> tool_use -> client.callTool -> tool_result -> repeat), on
// the same zero-latency fake model and the same in-process MCP server, N tool turns then an answer.
//
// Model path, identical for both sides:
//   'sdk'    the real SDK clients (ours: createModelClient; raw: new Anthropic / new OpenAI) with an
//            in-process, zero-latency `fetch` (fakeModel.fakeFetch, the SDKs' `fetch` option): the
//            SDKs build, serialize and parse every request and response, but no socket is opened.
//            The primary measurement ("zero-latency fake provider ... raw SDKs").
//   'http'   the real SDK clients against a loopback fake server (in a child process, so only the
//            host's side of each request counts as CPU time here)
//   'direct' both call the fake function in-process (ours: a ModelClient whose send() calls it),
//            no SDK at all, which leaves nothing but the host's own work to compare
//
// Input (argv[2], JSON): { quick, modes? (default ['sdk', 'direct', 'http']), gc? (forced GC before each batch),
//   rawClient? ('v1', the default: the seed's SDK 1.x Client; 'v2': the raw loop on the MCP client
//   package our library ships, @modelcontextprotocol/client, the same client as ours) }
// Our connection speaks through @modelcontextprotocol/client; the raw loop by default through the
// 1.x SDK Client, which costs less per call in-process, so part of the default ratio is the client.
// Output (last stdout line, JSON): { configs: [{ provider, mode, turns, batch, warmupRuns,
//   samples: { ours: { cpu: [...], wall: [...] }, raw: {...} } (ms per run, one entry per batch),
//   and from them (bench/lib/derive.js): ours: {cpu, wall}, raw: {...}, ratioCpu, ratioCpuPaired, ratioWall }], setup }
//
// The host side (both loops, the MCP server; in 'sdk' and 'direct' mode the fake too) runs in this one
// process, so its CPU time is the host's own work and moves much less with other load on the machine
// than wall-clock (recorded too). In 'sdk' mode the fake answers at next to no CPU cost
// (fakeModel.cheapAnswer: the turn counted in the request text, cached answer bytes); in 'http' mode
// it runs in a child process. Either way the provider's own work is not charged to the host, as a
// real provider does it on its servers. In 'direct' mode the fake only builds an object (no JSON),
// and that stays in, both sides.

const { spawn } = require('node:child_process');
const path = require('node:path');
const Anthropic = require('@anthropic-ai/sdk').default;
const OpenAI = require('openai').default;
const { REPO, emitResult } = require('../lib/common');
const { deriveAgentConfig } = require('../lib/derive');
const fake = require('../lib/fakeModel');
const { connectOurConnection, connectRawClient, connectRawV2Client } = require('../lib/inProcess');

const DIST = path.join(REPO, 'dist', 'lib');
const { createRun } = require(path.join(DIST, 'agent', 'step.js'));
const { runAgent } = require(path.join(DIST, 'agent', 'runAgent.js'));
const { runToolCalls } = require(path.join(DIST, 'agent', 'toolRunner.js'));
const { DEFAULT_OUTCOME_LIMITS } = require(path.join(DIST, 'agent', 'toolOutcome.js'));
const { buildCatalog } = require(path.join(DIST, 'agent', 'catalog.js'));
const { buildRunSettings } = require(path.join(DIST, 'agent', 'settings.js'));
const { listAllTools } = require(path.join(DIST, 'mcp', 'listing.js'));
const { createModelClient } = require(path.join(DIST, 'providers', 'clients.js'));

const input = JSON.parse(process.argv[2] || '{}');
const PROMPT = 'Run the benchmark.';
const MODES = input.modes || ['sdk', 'direct', 'http'];

/** SDK client options for a model path: where the requests go. */
function sdkTarget(provider, mode, server) {
	if (mode === 'direct') return {};
	if (mode === 'sdk') return { baseURL: provider === 'anthropic' ? fake.FETCH_BASE_URLS.anthropic : fake.FETCH_BASE_URLS.openai, fetch: fake.fakeFetch };
	return { baseURL: provider === 'anthropic' ? server.anthropicBaseUrl : server.openAiBaseUrl };
}

// ---- ours ----------------------------------------------------------------------------------

async function setupOurs(provider, mode, server) {
	const { connection, close } = await connectOurConnection();
	const t0 = performance.now();
	const tools = await listAllTools(connection);
	const { tools: catalog } = buildCatalog([{ id: 'bench', name: 'bench', tools, trustAnnotations: false }]);
	const setupMs = performance.now() - t0;
	const target = sdkTarget(provider, mode, server);
	const model =
		mode === 'direct'
			? { send: async (body) => fake[provider](body), listModels: async () => [] }
			: createModelClient({ provider, apiKey: 'bench-not-a-key', baseUrl: target.baseURL, fetch: target.fetch, maxRetries: 2, timeoutMs: 600_000 });
	const connections = new Map([['bench', connection]]);
	/** One agent run of `turns` tool turns, as the Agent node runs one item. */
	const run = async (turns) => {
		const settings = buildRunSettings(`bench:echo*${turns}`, undefined, { maxIterations: turns + 1 });
		const state = createRun({ provider, settings, tools: catalog, userMessage: PROMPT });
		// As the node does: the tool runner's options once per item, not per turn.
		const toolRunnerOptions = { connections, concurrency: 4, timeoutMs: 60_000, limits: { ...DEFAULT_OUTCOME_LIMITS, maxChars: settings.maxToolResultChars } };
		const final = await runAgent(state, { model, runTools: (calls) => runToolCalls(calls, toolRunnerOptions) });
		if (final.phase.name !== 'finished' || final.phase.status !== 'completed' || final.toolLog.length !== turns || final.toolLog.some((e) => e.isError)) {
			throw new Error(`ours (${provider}, ${mode}, ${turns}): unexpected end ${JSON.stringify(final.phase).slice(0, 300)}, ${final.toolLog.length} tool calls`);
		}
	};
	return { run, setupMs, close };
}

// ---- the raw loop (seed 002) -----------------------------------------------------------------

async function setupRaw(provider, mode, server) {
	const { client, close } = input.rawClient === 'v2' ? await connectRawV2Client() : await connectRawClient();
	const t0 = performance.now();
	const listed = await client.listTools();
	const tools =
		provider === 'anthropic'
			? listed.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }))
			: listed.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } }));
	const setupMs = performance.now() - t0;
	let create;
	const options = { apiKey: 'bench-not-a-key', maxRetries: 2, timeout: 600_000, ...sdkTarget(provider, mode, server) };
	if (provider === 'anthropic') {
		const anthropic = mode === 'direct' ? null : new Anthropic(options);
		create = mode === 'direct' ? async (params) => fake.anthropic(params) : (params) => anthropic.messages.create(params);
	} else {
		const openai = mode === 'direct' ? null : new OpenAI(options);
		create = mode === 'direct' ? async (params) => fake.openaiChat(params) : (params) => openai.chat.completions.create(params);
	}
	const runAnthropic = async (turns) => {
		const model = `bench:echo*${turns}`;
		const messages = [{ role: 'user', content: PROMPT }];
		let calls = 0;
		let response = await create({ model, max_tokens: 4096, tools, messages });
		while (response.stop_reason === 'tool_use') {
			const toolUseBlocks = response.content.filter((b) => b.type === 'tool_use');
			messages.push({ role: 'assistant', content: response.content });
			const toolResults = await Promise.all(
				toolUseBlocks.map(async (block) => {
					const result = await client.callTool({ name: block.name, arguments: block.input });
					calls++;
					return { type: 'tool_result', tool_use_id: block.id, content: result.content[0].type === 'text' ? result.content[0].text : '' };
				}),
			);
			messages.push({ role: 'user', content: toolResults });
			response = await create({ model, max_tokens: 4096, tools, messages });
		}
		if (calls !== turns) throw new Error(`raw anthropic: ${calls} calls, expected ${turns}`);
	};
	const runOpenAi = async (turns) => {
		const model = `bench:echo*${turns}`;
		const messages = [{ role: 'user', content: PROMPT }];
		let calls = 0;
		let response = await create({ model, max_completion_tokens: 4096, tools, messages });
		while (response.choices[0].finish_reason === 'tool_calls') {
			const message = response.choices[0].message;
			messages.push(message);
			const toolResults = await Promise.all(
				message.tool_calls.map(async (call) => {
					const result = await client.callTool({ name: call.function.name, arguments: JSON.parse(call.function.arguments) });
					calls++;
					return { role: 'tool', tool_call_id: call.id, content: result.content[0].type === 'text' ? result.content[0].text : '' };
				}),
			);
			messages.push(...toolResults);
			response = await create({ model, max_completion_tokens: 4096, tools, messages });
		}
		if (calls !== turns) throw new Error(`raw openai: ${calls} calls, expected ${turns}`);
	};
	return { run: provider === 'anthropic' ? runAnthropic : runOpenAi, setupMs, close };
}

/** The fake model server in a child process (see fake-model-server.js). */
async function startFakeServerProcess() {
	const child = spawn(process.execPath, [path.join(__dirname, 'fake-model-server.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
	const port = await new Promise((resolve, reject) => {
		let out = '';
		child.stdout.on('data', (chunk) => {
			out += chunk;
			const line = out.split('\n')[0];
			if (out.includes('\n')) resolve(JSON.parse(line).port);
		});
		child.once('exit', (code) => reject(new Error(`fake model server exited (${code})`)));
	});
	const exited = new Promise((resolve) => child.once('exit', resolve));
	return {
		anthropicBaseUrl: `http://127.0.0.1:${port}`,
		openAiBaseUrl: `http://127.0.0.1:${port}/v1`,
		close: async () => {
			child.stdin.end();
			await exited;
		},
	};
}

// ---- measurement -------------------------------------------------------------------------------

/**
 * Runs are timed in small batches, a batch of ours and a batch of the raw loop in turn (ours first
 * in even pairs, raw first in odd ones), so the machine's other load hits both sides alike; the
 * figure per run is a batch's total divided by its size, medians are over batches, and the paired
 * ratio is the median of (ours ÷ raw) over adjacent batches.
 *
 * The heap is in its steady state (after the warm-up), as in a worker that has been running for a
 * while: no forced GC before a batch. With a forced full GC before each batch (`{"gc": true}`, the
 * earlier method) the runs after it were far slower than steady ones (on the 'sdk' path the first
 * ~10×, still ~2× ten runs later), so a batch's time was mostly that recovery, in proportion to what
 * it allocated: the GC gives memory back, and on this VM touching fresh memory costs ~3 ms of CPU
 * per MB.
 */
function plan(mode, turns) {
	// Warm-ups of about half a second a side: until both loops' code (ours is more of it) is
	// optimized; shorter ones left the first configuration's first batches of ours unoptimized.
	const base =
		mode === 'direct'
			? turns <= 10
				? { warmup: 1500, batch: 10, batches: 120 }
				: { warmup: 150, batch: 2, batches: 80 }
			: mode === 'sdk'
				? turns <= 10
					? { warmup: 500, batch: 4, batches: 300 }
					: { warmup: 50, batch: 1, batches: 200 }
				: turns <= 10
					? { warmup: 20, batch: 4, batches: 60 }
					: { warmup: 4, batch: 1, batches: 80 };
	return input.quick ? { ...base, warmup: Math.ceil(base.warmup / 4), batches: Math.ceil(base.batches / 4) } : base;
}

/** Wall-clock and CPU time (this process: user + system, all threads) per run of a batch, in ms. */
async function timedBatch(fn, size) {
	if (input.gc) global.gc?.();
	const c0 = process.cpuUsage();
	const t0 = performance.now();
	for (let i = 0; i < size; i++) await fn();
	const wall = performance.now() - t0;
	const cpu = process.cpuUsage(c0);
	return { wall: wall / size, cpu: (cpu.user + cpu.system) / 1000 / size };
}

(async () => {
	const server = MODES.includes('http') ? await startFakeServerProcess() : null;
	const configs = [];
	const setup = [];
	try {
		for (const provider of ['anthropic', 'openaiChat']) {
			for (const mode of MODES) {
				const oursSide = await setupOurs(provider, mode, server);
				const rawSide = await setupRaw(provider, mode, server);
				setup.push({ provider, mode, oursSetupMs: oursSide.setupMs, rawSetupMs: rawSide.setupMs });
				try {
					if (mode === 'sdk') {
						// Both sides must be answered with the same bytes.
						const oursAnswers = await fake.recordResponses(() => oursSide.run(10));
						const rawAnswers = await fake.recordResponses(() => rawSide.run(10));
						if (oursAnswers.length !== 11 || oursAnswers.join('\n') !== rawAnswers.join('\n')) {
							throw new Error(`${provider} sdk: the fake answered the two loops differently (${oursAnswers.length} and ${rawAnswers.length} responses)`);
						}
					}
					for (const turns of [10, 100]) {
						const { warmup, batch, batches } = plan(mode, turns);
						for (let i = 0; i < warmup; i++) {
							await oursSide.run(turns);
							await rawSide.run(turns);
						}
						const ours = [];
						const raw = [];
						for (let i = 0; i < batches; i++) {
							if (i % 2 === 0) {
								ours.push(await timedBatch(() => oursSide.run(turns), batch));
								raw.push(await timedBatch(() => rawSide.run(turns), batch));
							} else {
								raw.push(await timedBatch(() => rawSide.run(turns), batch));
								ours.push(await timedBatch(() => oursSide.run(turns), batch));
							}
						}
						// Every batch kept; the medians and ratios come from them (bench/lib/derive.js).
						const ns = (v) => Math.round(v * 1e6) / 1e6;
						const keep = (runs) => ({ cpu: runs.map((r) => ns(r.cpu)), wall: runs.map((r) => ns(r.wall)) });
						const row = deriveAgentConfig({ provider, mode, turns, runs: batch * batches, batch, warmupRuns: warmup, samples: { ours: keep(ours), raw: keep(raw) } });
						configs.push(row);
						const o = row.ours;
						const r = row.raw;
						const paired = { median: row.ratioCpuPaired };
						process.stderr.write(
							`[agent] ${provider} ${mode} ${turns} turns: cpu ours ${o.cpu.median.toFixed(3)} ms, raw ${r.cpu.median.toFixed(3)} ms (x${(o.cpu.median / r.cpu.median).toFixed(3)}, paired x${paired.median.toFixed(3)}); wall x${(o.wall.median / r.wall.median).toFixed(3)}\n`,
						);
					}
				} finally {
					await oursSide.close();
					await rawSide.close();
				}
			}
		}
	} finally {
		await server?.close();
	}
	emitResult({ node: process.version, configs, setup });
})().catch((error) => {
	console.error(error);
	process.exit(1);
});

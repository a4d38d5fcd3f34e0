'use strict';
// MCP Call Tool outside n8n, doing the protocol work of one node execution: start/connect,
// tools/list once, N × tools/call echo (in order, optionally several in flight), then close.
//
//   client 'raw': the limit. The raw @modelcontextprotocol/sdk client (the version this package
//                 ships) as a plain script would use it; HTTP sessions are DELETEd before close,
//                 as our node does.
//   client 'lib': this package's own path without n8n (dist/lib: McpConnection, listAllTools,
//                 callToolValidated, extractToolResult, mapWithConcurrency), to tell the cost of
//                 our library from the cost of n8n's per-item machinery.
//
//   kept (client 'raw' only): the raw client on a kept connection, what our node on a kept
//                 connection (Keep Server Running) is compared with: connected (the stdio server
//                 spawned) and tools/list once before the measured runs, each run only its N calls.
//
// Input (argv[2], JSON): { configs: [{ client, transport: 'stdio'|'http', url?, items, concurrency, kept? }], reps, warmup, warmupItems, httpServerPid }
// Output (last stdout line, JSON): { results: [{ ...config, runs: [{ connectMs, listMs, callsMs, closeMs, totalMs, cpuMs }] }] }
//   (a kept config's runs have callsMs and cpuMs only: nothing else happens in them)
// cpuMs: CPU time of this process plus the server's (the reaped stdio child, the kept stdio
// server process, or the HTTP server process).
// Each config is warmed up (JIT, the server's first calls) before its measured runs.

const path = require('node:path');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport, getDefaultEnvironment } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { EVERYTHING_ENTRY, REPO, RUN_MARKER_NAME, emitResult } = require('../lib/common');
const { cpuTimes } = require('../lib/rss');

const DIST = path.join(REPO, 'dist', 'lib');
const { McpConnection } = require(path.join(DIST, 'mcp', 'connection.js'));
const { listAllTools } = require(path.join(DIST, 'mcp', 'listing.js'));
const { callToolValidated } = require(path.join(DIST, 'mcp', 'toolCall.js'));
const { extractToolResult } = require(path.join(DIST, 'tools', 'callResult.js'));
const { mapWithConcurrency } = require(path.join(DIST, 'util', 'mapWithConcurrency.js'));

const input = JSON.parse(process.argv[2]);
process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

function markerEnv() {
	return process.env[RUN_MARKER_NAME] ? { [RUN_MARKER_NAME]: process.env[RUN_MARKER_NAME] } : {};
}

function check(i, text) {
	if (text !== `Echo: m${i}`) throw new Error(`item ${i}: unexpected result ${JSON.stringify(text)}`);
}

function rawTransport(config) {
	return config.transport === 'stdio'
		? new StdioClientTransport({ command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'], env: { ...getDefaultEnvironment(), ...markerEnv() }, stderr: 'ignore' })
		: new StreamableHTTPClientTransport(new URL(config.url));
}

/** N echo calls on a connected raw client, `concurrency` in flight, each result checked. */
async function rawCalls(client, config) {
	const results = new Array(config.items);
	let next = 0;
	const lane = async () => {
		while (next < config.items) {
			const i = next++;
			results[i] = await client.callTool({ name: 'echo', arguments: { message: `m${i}` } });
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(config.concurrency, config.items)) }, lane));
	return results;
}

async function rawOnce(config) {
	const t0 = performance.now();
	const transport = rawTransport(config);
	const client = new Client({ name: 'bench-raw-client', version: '1.0.0' }, { capabilities: {} });
	await client.connect(transport);
	const t1 = performance.now();
	const { tools } = await client.listTools();
	if (!tools.some((t) => t.name === 'echo')) throw new Error('server has no echo tool');
	const t2 = performance.now();
	const results = await rawCalls(client, config);
	const t3 = performance.now();
	if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession();
	await client.close();
	const t4 = performance.now();
	results.forEach((result, i) => check(i, result?.content?.[0]?.text));
	return { connectMs: t1 - t0, listMs: t2 - t1, callsMs: t3 - t2, closeMs: t4 - t3, totalMs: t4 - t0 };
}

/** The raw client on a kept connection: connect and list once, then each run is only its calls. */
async function rawKept(config, { warmup, warmupItems, reps, httpServerPid }) {
	const transport = rawTransport(config);
	const client = new Client({ name: 'bench-raw-client', version: '1.0.0' }, { capabilities: {} });
	await client.connect(transport);
	try {
		const { tools } = await client.listTools();
		if (!tools.some((t) => t.name === 'echo')) throw new Error('server has no echo tool');
		for (let i = 0; i < warmup; i++) await rawCalls(client, { ...config, items: warmupItems ?? config.items });
		const serverPid = config.transport === 'http' ? httpServerPid : transport.pid;
		const runs = [];
		for (let i = 0; i < reps; i++) {
			global.gc?.();
			const cpu0 = cpuTimes(process.pid).selfMs;
			const server0 = serverPid ? cpuTimes(serverPid).selfMs : 0;
			const t0 = performance.now();
			const results = await rawCalls(client, config);
			const callsMs = performance.now() - t0;
			const cpuMs = cpuTimes(process.pid).selfMs - cpu0 + ((serverPid ? cpuTimes(serverPid).selfMs : 0) - server0);
			results.forEach((result, j) => check(j, result?.content?.[0]?.text));
			runs.push({ callsMs, cpuMs });
		}
		return runs;
	} finally {
		if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession();
		await client.close();
	}
}

/** What nodes/McpCallTool/execute.ts does per execution, minus n8n (parameters, items, binary). */
async function libOnce(config) {
	const serverConfig =
		config.transport === 'stdio'
			? { kind: 'stdio', command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'], env: markerEnv(), trustAnnotations: false, connectTimeoutMs: 30000, requestTimeoutMs: 60000 }
			: { kind: 'http', url: config.url, transport: 'streamableHttp', headers: {}, trustAnnotations: false, connectTimeoutMs: 30000, requestTimeoutMs: 60000 };
	const t0 = performance.now();
	const connection = await McpConnection.open(serverConfig);
	const t1 = performance.now();
	const tools = new Map((await listAllTools(connection)).map((tool) => [tool.name, tool]));
	const t2 = performance.now();
	const items = Array.from({ length: config.items }, (_, i) => ({ json: { message: `m${i}` } }));
	const outputs = await mapWithConcurrency(items, config.concurrency, async (item, i) => {
		const tool = tools.get('echo');
		const args = JSON.parse(JSON.stringify({ message: item.json.message }));
		const result = await callToolValidated(connection, tool, args, { resetTimeoutOnProgress: true });
		return { json: extractToolResult(tool.name, result, 'data').json, pairedItem: { item: i } };
	});
	const t3 = performance.now();
	await connection.close();
	const t4 = performance.now();
	outputs.forEach((output, i) => check(i, output.json.text));
	return { connectMs: t1 - t0, listMs: t2 - t1, callsMs: t3 - t2, closeMs: t4 - t3, totalMs: t4 - t0 };
}

(async () => {
	const results = [];
	for (const config of input.configs) {
		if (config.kept) {
			if (config.client !== 'raw') throw new Error('kept: raw client only');
			results.push({ ...config, runs: await rawKept(config, input) });
			continue;
		}
		const once = config.client === 'lib' ? libOnce : rawOnce;
		for (let i = 0; i < input.warmup; i++) await once({ ...config, items: input.warmupItems ?? config.items });
		const runs = [];
		for (let i = 0; i < input.reps; i++) {
			global.gc?.();
			const cpu0 = cpuTimes(process.pid);
			const server0 = config.transport === 'http' && input.httpServerPid ? cpuTimes(input.httpServerPid).selfMs : 0;
			const run = await once(config);
			const cpu1 = cpuTimes(process.pid);
			const server1 = config.transport === 'http' && input.httpServerPid ? cpuTimes(input.httpServerPid).selfMs : 0;
			run.cpuMs = cpu1.selfMs - cpu0.selfMs + (cpu1.childrenMs - cpu0.childrenMs) + (server1 - server0);
			runs.push(run);
		}
		results.push({ ...config, runs });
	}
	emitResult({ node: process.version, results });
})().catch((error) => {
	console.error(error);
	process.exit(1);
});

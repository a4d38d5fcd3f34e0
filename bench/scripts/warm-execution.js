'use strict';
// Fixed cost of one one-item execution (issue 13), without n8n: what nodes/McpCallTool does per
// execution, from the credential's data to the released connection:
//   credential data -> server config (+ pooling settings, the keyed data hash) -> connection from
//   the pool -> tools/list (cached when warm) -> one validated tools/call echo -> release.
//
//   cold: Keep Server Running off (today's path): spawn/connect, list, call, close every time.
//   warm: Keep Server Running on: the pool's kept connection, its cached listing.
//   raw:  the raw MCP SDK client on a warm connection, one callTool (the floor).
// For stdio (server-everything) and Streamable HTTP (server-everything streamableHttp).
//
// Input (argv[2], JSON): { reps, coldReps, url? }
//   coldReps 0: no cold executions (nor the warm-up's cold one); url: an HTTP server-everything to
//   use (the one-execution part passes the server its n8n talks to) instead of starting one.
// Output (last stdout line, JSON): { results: { [variant]: { ms: [...], median } } } (every sample kept;
// the report's medians are recomputed from them by bench/lib/derive.js)

const path = require('node:path');
const os = require('node:os');
const fs = require('node:fs');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport, getDefaultEnvironment } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { EVERYTHING_ENTRY, REPO, RUN_MARKER_NAME, emitResult, median } = require('../lib/common');
const { startEverythingHttp } = require('../../test/e2e/lib/everything');
const { freePort } = require('../../test/e2e/lib/net');

const DIST = path.join(REPO, 'dist', 'lib');
const { serverConfigFromCredential } = require(path.join(DIST, 'mcp', 'credentialData.js'));
const { poolingFor } = require(path.join(DIST, 'mcp', 'pool', 'poolSettings.js'));
const { ConnectionPool } = require(path.join(DIST, 'mcp', 'pool', 'connectionPool.js'));
const { listToolsCached } = require(path.join(DIST, 'mcp', 'listing.js'));
const { callToolValidated } = require(path.join(DIST, 'mcp', 'toolCall.js'));
const { extractToolResult } = require(path.join(DIST, 'tools', 'callResult.js'));

const input = JSON.parse(process.argv[2] || '{}');
const REPS = input.reps ?? 200;
const COLD_REPS = input.coldReps ?? 10;
process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

function markerEnv() {
	return process.env[RUN_MARKER_NAME] ? `${RUN_MARKER_NAME}=${process.env[RUN_MARKER_NAME]}` : '';
}

function credentials(url) {
	return {
		stdio: { type: 'mcpServerStdioApi', data: { command: process.execPath, args: JSON.stringify([EVERYTHING_ENTRY, 'stdio']), environment: markerEnv() } },
		http: { type: 'mcpServerHttpApi', data: { url, transport: 'streamableHttp', authentication: 'none' } },
	};
}

async function execution(pool, credential, keep, i) {
	const data = { ...credential.data, keepServerRunning: keep };
	const config = serverConfigFromCredential(credential.type, data);
	const pooling = poolingFor({ type: credential.type, id: 'bench' }, data);
	const lease = await pool.acquire(pooling ? { ...config, pooling } : config);
	try {
		const tools = await listToolsCached(lease.connection);
		const echo = tools.find((tool) => tool.name === 'echo');
		const result = await callToolValidated(lease.connection, echo, { message: `m${i}` }, { resetTimeoutOnProgress: true });
		const text = extractToolResult('echo', result, 'data').json.text;
		if (text !== `Echo: m${i}`) throw new Error(`unexpected result ${JSON.stringify(text)}`);
	} finally {
		await lease.release();
	}
}

async function measure(reps, once) {
	const ms = [];
	for (let i = 0; i < reps; i++) {
		const t0 = performance.now();
		await once(i);
		// Kept to 0.1 µs: every sample goes into the results.
		ms.push(Math.round((performance.now() - t0) * 1e4) / 1e4);
	}
	return { ms, median: median(ms) };
}

async function rawWarm(kind, url) {
	const transport =
		kind === 'stdio'
			? new StdioClientTransport({ command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'], env: getDefaultEnvironment(), stderr: 'ignore' })
			: new StreamableHTTPClientTransport(new URL(url));
	const client = new Client({ name: 'bench-raw', version: '1.0.0' }, { capabilities: {} });
	await client.connect(transport);
	await client.listTools();
	for (let i = 0; i < 20; i++) await client.callTool({ name: 'echo', arguments: { message: `w${i}` } });
	const result = await measure(REPS, async (i) => {
		const answer = await client.callTool({ name: 'echo', arguments: { message: `m${i}` } });
		if (answer.content[0].text !== `Echo: m${i}`) throw new Error('unexpected raw result');
	});
	if (transport.terminateSession) await transport.terminateSession().catch(() => undefined);
	await client.close();
	return result;
}

(async () => {
	const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-warm-bench-'));
	const http = input.url ? { url: input.url, stop: async () => undefined } : await startEverythingHttp({ port: await freePort(), logFile: path.join(logDir, 'everything-http.log') });
	const results = {};
	try {
		for (const kind of ['stdio', 'http']) {
			const credential = credentials(http.url)[kind];
			const pool = new ConnectionPool({ maxSize: 20 });
			// Warm-up: JIT, the server's first calls.
			if (COLD_REPS > 0) await execution(pool, credential, false, 0);
			for (let i = 0; i < 20; i++) await execution(pool, credential, true, i);
			if (COLD_REPS > 0) results[`cold-${kind}`] = await measure(COLD_REPS, (i) => execution(pool, credential, false, i));
			results[`warm-${kind}`] = await measure(REPS, (i) => execution(pool, credential, true, i));
			await pool.closeAll();
			results[`raw-warm-${kind}`] = await rawWarm(kind, http.url);
		}
	} finally {
		await http.stop();
		fs.rmSync(logDir, { recursive: true, force: true });
	}
	emitResult({ node: process.version, reps: REPS, coldReps: COLD_REPS, results });
})().catch((error) => {
	console.error(error);
	process.exit(1);
});

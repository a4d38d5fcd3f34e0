'use strict';
// Is lib/mcp/leanHttpTransport.ts still worth its code? The same sequential `echo` calls through
// this package's whole call path (McpConnection + callToolValidated, from dist/: run `npm run build`
// first) over Streamable HTTP on loopback, once with the lean node:http path and once with the v2
// client's own StreamableHTTPClientTransport under it, in one process and one run.
//
// Both sides are the package's own code: its transport choice sends a connection down the SDK path
// whenever proxy variables are set (Node's fetch may honour them, node:http would not), so the SDK
// side opens its connection with HTTP_PROXY set and NO_PROXY=* (no request goes through a proxy;
// Node's fetch reads neither without NODE_USE_ENV_PROXY, which this script clears). Whatever else
// the connection stacks (limits, reconnection bounds, result defaulting) is the same on both sides.
//
// Servers, each in a child process on 127.0.0.1:
//   everything  server-everything streamableHttp (what the other HTTP benchmarks use)
//   minimal     bench/fixtures/minimal-http-server.js: answers every POST at once with canned JSON,
//               so the client's share of a call is all that is left to compare
// Timing: batches of `batch` calls, lean and SDK alternating (lean, sdk, sdk, lean, ...) after a
// warm-up of each; per call wall time and CPU time of this process (the client side). "Paired
// ratio" is the median of sdk ÷ lean over adjacent batch pairs (the machine's state drifts between
// stretches of batches, adjacent ones share it).
//
//   node bench/scripts/lean-transport.js '{"batches":40,"batch":50}'
// Output (last stdout line, JSON): { sdkVersion, servers: { [name]: { protocol, lean, sdk, ratio } } }

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { REPO, emitResult } = require('../lib/common');
const { deriveLeanServer } = require('../lib/derive');
const { startEverythingHttp } = require('../../test/e2e/lib/everything');
const { startHttpServerProcess } = require('../../test/e2e/lib/httpServerProcess');
const { freePort } = require('../../test/e2e/lib/net');

const DIST = path.join(REPO, 'dist', 'lib');
const { McpConnection } = require(path.join(DIST, 'mcp', 'connection.js'));
const { listAllTools } = require(path.join(DIST, 'mcp', 'listing.js'));
const { callToolValidated } = require(path.join(DIST, 'mcp', 'toolCall.js'));

const input = JSON.parse(process.argv[2] || '{}');
const BATCHES = input.batches ?? 40;
const BATCH = input.batch ?? 50;
const WARMUP_CALLS = input.warmup ?? 300;
const SDK_VERSION = JSON.parse(fs.readFileSync(path.join(REPO, 'node_modules', '@modelcontextprotocol', 'client', 'package.json'), 'utf8')).version;

delete process.env.NODE_USE_ENV_PROXY;
for (const name of Object.keys(process.env)) if (/^(?:https?|all|no)_proxy$/i.test(name)) delete process.env[name];

/** A kept connection on the lean path ('lean') or the SDK transport ('sdk'). */
async function open(url, side) {
	if (side === 'sdk') Object.assign(process.env, { HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '*' });
	try {
		const config = { kind: 'http', url, transport: 'streamableHttp', headers: {}, trustAnnotations: false, connectTimeoutMs: 30_000, requestTimeoutMs: 30_000 };
		const connection = await McpConnection.open(config);
		const echo = (await listAllTools(connection)).find((tool) => tool.name === 'echo');
		if (!echo) throw new Error('the server lists no echo tool');
		return { connection, echo };
	} finally {
		delete process.env.HTTP_PROXY;
		delete process.env.NO_PROXY;
	}
}

async function calls(side, count, offset) {
	for (let i = offset; i < offset + count; i++) {
		const result = await callToolValidated(side.connection, side.echo, { message: `m${i}` });
		const text = result.content?.[0]?.text;
		if (text !== `Echo: m${i}`) throw new Error(`unexpected result ${JSON.stringify(result)}`);
	}
}

/** One batch: per call wall and CPU (this process: the client) in ms. */
async function batch(side, offset) {
	const cpu = process.cpuUsage();
	const started = performance.now();
	await calls(side, BATCH, offset);
	const wall = (performance.now() - started) / BATCH;
	const used = process.cpuUsage(cpu);
	return { wall, cpu: (used.user + used.system) / 1000 / BATCH };
}

/** The lean transport is under the connection when its transport stack holds one. */
function usesLean(connection) {
	return describeStack(connection).includes('LeanHttpTransport');
}

function describeStack(connection) {
	const names = [];
	// The session is private; only its class names are read, to prove which path each side took.
	let transport = connection.session?.transport;
	for (let depth = 0; transport && depth < 5; depth++, transport = transport.inner) names.push(transport.constructor.name);
	return names.join(' > ');
}

async function compare(url) {
	const lean = await open(url, 'lean');
	const sdk = await open(url, 'sdk');
	try {
		const stacks = { lean: describeStack(lean.connection), sdk: describeStack(sdk.connection) };
		if (!usesLean(lean.connection) || usesLean(sdk.connection)) throw new Error(`the sides did not take the paths meant: ${JSON.stringify(stacks)}`);
		await calls(lean, WARMUP_CALLS, 0);
		await calls(sdk, WARMUP_CALLS, 0);
		const runs = { lean: [], sdk: [] };
		let offset = WARMUP_CALLS;
		for (let round = 0; round < BATCHES; round++) {
			// lean, sdk, sdk, lean, ...: neither side always goes first.
			const order = round % 2 === 0 ? ['lean', 'sdk'] : ['sdk', 'lean'];
			for (const name of order) {
				runs[name].push(await batch(name === 'lean' ? lean : sdk, offset));
				offset += BATCH;
			}
		}
		// Every batch kept; the medians and ratios come from them (bench/lib/derive.js).
		return deriveLeanServer({ protocol: lean.connection.protocolVersion, stacks, batches: runs });
	} finally {
		await lean.connection.close();
		await sdk.connection.close();
	}
}

(async () => {
	const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-lean-bench-'));
	const servers = {
		everything: await startEverythingHttp({ port: await freePort(), logFile: path.join(logDir, 'everything.log') }),
		minimal: await startHttpServerProcess({
			name: 'minimal MCP server',
			entry: path.join(REPO, 'bench', 'fixtures', 'minimal-http-server.js'),
			port: await freePort(),
			logFile: path.join(logDir, 'minimal.log'),
		}),
	};
	const results = {};
	try {
		for (const [name, server] of Object.entries(servers)) results[name] = await compare(server.url);
	} finally {
		for (const server of Object.values(servers)) await server.stop();
		fs.rmSync(logDir, { recursive: true, force: true });
	}
	emitResult({ node: process.version, sdkVersion: SDK_VERSION, batches: BATCHES, batch: BATCH, servers: results });
})().catch((error) => {
	console.error(error);
	process.exit(1);
});

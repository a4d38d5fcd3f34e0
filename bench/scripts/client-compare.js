'use strict';
// 1,000 sequential `echo` calls against server-everything over stdio and Streamable HTTP, with:
//   raw-v1  the raw @modelcontextprotocol/sdk 1.x client (what this package used before MCP 2026-07-28)
//   raw-v2  the raw @modelcontextprotocol/client 2.x client with version negotiation 'auto'
//   lib     this package's path: McpConnection + listAllTools + callToolValidated (from dist/, so
//           run `npm run build` first)
// Connect and tools/list are not timed; only the calls. Clients take turns, `reps` rounds each,
// after one warm-up round; the median is reported.
//
//   node bench/scripts/client-compare.js [calls=1000] [reps=3]
// Output: a table on stdout, and the numbers as JSON on the last line.

const path = require('node:path');
const { spawn } = require('node:child_process');
const { EVERYTHING_ENTRY, REPO } = require('../lib/common');

const V1 = {
	Client: require('@modelcontextprotocol/sdk/client/index.js').Client,
	Stdio: require('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport,
	Http: require('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport,
};
const V2 = {
	Client: require('@modelcontextprotocol/client').Client,
	Stdio: require('@modelcontextprotocol/client/stdio').StdioClientTransport,
	Http: require('@modelcontextprotocol/client').StreamableHTTPClientTransport,
};
const DIST = path.join(REPO, 'dist', 'lib');
const { McpConnection } = require(path.join(DIST, 'mcp', 'connection.js'));
const { listAllTools } = require(path.join(DIST, 'mcp', 'listing.js'));
const { callToolValidated } = require(path.join(DIST, 'mcp', 'toolCall.js'));

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';
const CALLS = Number(process.argv[2] || 1000);
const REPS = Number(process.argv[3] || 3);

async function rawSession(sdk, transportKind, url, options) {
	const transport =
		transportKind === 'stdio'
			? new sdk.Stdio({ command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'], stderr: 'ignore' })
			: new sdk.Http(new URL(url));
	const client = new sdk.Client({ name: 'bench', version: '1.0.0' }, { capabilities: {}, ...options });
	await client.connect(transport);
	await client.listTools();
	return {
		call: (i) => client.callTool({ name: 'echo', arguments: { message: `m${i}` } }),
		close: async () => {
			if (transport.sessionId && transport.terminateSession) await transport.terminateSession().catch(() => undefined);
			await client.close();
		},
	};
}

async function libSession(transportKind, url) {
	const config =
		transportKind === 'stdio'
			? { kind: 'stdio', command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'], env: {}, trustAnnotations: false, connectTimeoutMs: 30000, requestTimeoutMs: 30000 }
			: { kind: 'http', url, transport: 'streamableHttp', headers: {}, trustAnnotations: false, connectTimeoutMs: 30000, requestTimeoutMs: 30000 };
	const connection = await McpConnection.open(config);
	const echo = (await listAllTools(connection)).find((tool) => tool.name === 'echo');
	return { call: (i) => callToolValidated(connection, echo, { message: `m${i}` }), close: () => connection.close() };
}

const CLIENTS = {
	'raw-v1': (kind, url) => rawSession(V1, kind, url, {}),
	'raw-v2': (kind, url) => rawSession(V2, kind, url, { versionNegotiation: { mode: 'auto' } }),
	lib: (kind, url) => libSession(kind, url),
};

async function timeCalls(open, kind, url) {
	const session = await open(kind, url);
	try {
		const started = performance.now();
		for (let i = 0; i < CALLS; i++) {
			const result = await session.call(i);
			if (result.content[0].text !== `Echo: m${i}`) throw new Error(`unexpected result ${JSON.stringify(result)}`);
		}
		return performance.now() - started;
	} finally {
		await session.close();
	}
}

async function startHttp() {
	const port = 20000 + Math.floor(Math.random() * 20000);
	const child = spawn(process.execPath, [EVERYTHING_ENTRY, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
	await new Promise((resolve, reject) => {
		let output = '';
		const onData = (chunk) => {
			output += chunk;
			if (/listening on port/i.test(output)) resolve();
		};
		child.stdout.on('data', onData);
		child.stderr.on('data', onData);
		child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${output}`)));
	});
	return { url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill('SIGKILL') };
}

function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

async function main() {
	const numbers = {};
	for (const kind of ['stdio', 'http']) {
		const server = kind === 'http' ? await startHttp() : undefined;
		try {
			const runs = Object.fromEntries(Object.keys(CLIENTS).map((name) => [name, []]));
			for (let round = 0; round <= REPS; round++) {
				for (const [name, open] of Object.entries(CLIENTS)) {
					const ms = await timeCalls(open, kind, server?.url);
					if (round > 0) runs[name].push(ms); // round 0 warms up
				}
			}
			numbers[kind] = Object.fromEntries(Object.entries(runs).map(([name, values]) => [name, Math.round(median(values))]));
		} finally {
			server?.stop();
		}
	}
	console.log(`${CALLS} sequential echo calls, median of ${REPS} (ms):`);
	for (const [kind, row] of Object.entries(numbers)) {
		console.log(`  ${kind.padEnd(5)} raw-v1 ${row['raw-v1']}  raw-v2 ${row['raw-v2']}  lib ${row.lib}  (lib/raw-v2 ${(row.lib / row['raw-v2']).toFixed(2)}x, raw-v2/raw-v1 ${(row['raw-v2'] / row['raw-v1']).toFixed(2)}x)`);
	}
	console.log(JSON.stringify({ calls: CALLS, reps: REPS, medianMs: numbers }));
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});

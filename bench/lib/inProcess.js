'use strict';
// An MCP server in this process (the SDK's low-level Server over InMemoryTransport), for the agent
// benchmarks: zero network, so whatever the host adds per turn is what shows.

const path = require('node:path');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
const { InMemoryTransport } = require('@modelcontextprotocol/sdk/inMemory.js');
const { CallToolRequestSchema, ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js');
const { REPO } = require('./common');

const { McpConnection } = require(path.join(REPO, 'dist', 'lib', 'mcp', 'connection.js'));
const { CLIENT_INFO } = require(path.join(REPO, 'dist', 'lib', 'mcp', 'session.js'));
const { LegacyInputRequests } = require(path.join(REPO, 'dist', 'lib', 'mcp', 'legacyInputRequests.js'));

/** A small, realistic tool set; the fake model only ever calls `echo` (or the big/sensitive ones). */
const TOOLS = [
	{
		name: 'echo',
		title: 'Echo',
		description: 'Echoes back the input string.',
		inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'Message to echo' } }, required: ['message'], additionalProperties: false },
		annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
	},
	{
		name: 'get_weather',
		description: 'Returns the weather forecast for a Brazilian city for the next 1-7 days, with temperature and conditions.',
		inputSchema: {
			type: 'object',
			properties: { city: { type: 'string', minLength: 2 }, days: { type: 'integer', minimum: 1, maximum: 7, default: 1 } },
			required: ['city'],
		},
		annotations: { readOnlyHint: true },
	},
	{
		name: 'search_orders',
		description: 'Searches orders by customer e-mail and status, newest first.',
		inputSchema: {
			type: 'object',
			properties: {
				email: { type: 'string', format: 'email' },
				status: { type: 'string', enum: ['open', 'paid', 'shipped', 'cancelled'] },
				limit: { type: 'integer', minimum: 1, maximum: 100 },
			},
			required: ['email'],
		},
		annotations: { readOnlyHint: true },
	},
	{
		name: 'fetch_page',
		description: 'Fetches a web page and returns its text.',
		inputSchema: { type: 'object', properties: { url: { type: 'string', format: 'uri' } }, required: ['url'] },
		annotations: { readOnlyHint: true, openWorldHint: true },
	},
	{
		name: 'delete_record',
		description: 'Deletes a record by id. Cannot be undone.',
		inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
		annotations: { destructiveHint: true },
	},
];

/**
 * @param bigResultChars  size of fetch_page's text result
 */
function createServer({ bigResultChars = 1_000_000 } = {}) {
	const server = new Server({ name: 'bench-in-process', version: '1.0.0' }, { capabilities: { tools: {} } });
	// Distinct per page, so no storage format can share one copy between results.
	const page = (url) => `${url} `.repeat(Math.ceil(bigResultChars / (url.length + 1))).slice(0, bigResultChars);
	server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
	server.setRequestHandler(CallToolRequestSchema, async (request) => {
		const args = request.params.arguments ?? {};
		switch (request.params.name) {
			case 'echo':
				return { content: [{ type: 'text', text: `Echo: ${args.message}` }] };
			case 'fetch_page':
				return { content: [{ type: 'text', text: page(String(args.url)) }] };
			case 'delete_record':
				return { content: [{ type: 'text', text: `deleted ${args.id}` }] };
			default:
				return { content: [{ type: 'text', text: JSON.stringify({ tool: request.params.name, args }) }] };
		}
	});
	return server;
}

/** A fresh in-process server and an SDK client (named `clientInfo`) connected to it. */
async function connectInProcess(clientInfo, options) {
	const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
	const server = createServer(options);
	await server.connect(serverTransport);
	const client = new Client(clientInfo, { capabilities: {} });
	await client.connect(clientTransport);
	return { client, clientTransport, server };
}

/** A raw SDK client connected to a fresh in-process server. */
async function connectRawClient(options) {
	const { client, server } = await connectInProcess({ name: 'bench-raw-agent', version: '1.0.0' }, options);
	return { client, close: async () => { await client.close(); await server.close(); } };
}

/**
 * A raw client of the MCP client package our library ships (@modelcontextprotocol/client, the 2.x
 * client) connected to a fresh in-process server: the raw loop on the same client as ours, so the
 * comparison shows our own per-turn work without the difference between the two SDK clients.
 */
async function connectRawV2Client(options) {
	const { Client: LibClient, InMemoryTransport: LibInMemoryTransport } = require('@modelcontextprotocol/client');
	const [clientTransport, serverTransport] = LibInMemoryTransport.createLinkedPair();
	const server = createServer(options);
	await server.connect(serverTransport);
	const client = new LibClient({ name: 'bench-raw-agent', version: '1.0.0' }, { capabilities: {} });
	await client.connect(clientTransport);
	return { client, close: async () => { await client.close(); await server.close(); } };
}

/**
 * Our McpConnection around an in-process server. McpConnection.open() only knows stdio and HTTP,
 * so the connection is built on an already connected client; every request still goes through
 * McpConnection.request() exactly as in the node.
 */
async function connectOurConnection(options) {
	// Our library speaks through the MCP client package it ships (@modelcontextprotocol/client),
	// not the raw loop's SDK 1.x client: the same in-process server, over that package's in-memory pair.
	const { Client: LibClient, InMemoryTransport: LibInMemoryTransport } = require('@modelcontextprotocol/client');
	const [clientTransport, serverTransport] = LibInMemoryTransport.createLinkedPair();
	const server = createServer(options);
	await server.connect(serverTransport);
	const client = new LibClient(CLIENT_INFO, { capabilities: { elicitation: { form: {}, url: {} }, roots: {} } });
	const legacyInput = new LegacyInputRequests();
	legacyInput.install(client);
	await client.connect(clientTransport);
	const config = { kind: 'http', url: 'http://in-process.invalid/mcp', transport: 'streamableHttp', headers: {}, trustAnnotations: false, connectTimeoutMs: 30000, requestTimeoutMs: 60000 };
	// The session as McpConnection's own opening builds it: the tracker of declined input requests
	// and the events the connection subscribes to (list changes, a transport that closes by itself).
	const events = {};
	client.onclose = () => events.lost?.();
	const connection = new McpConnection(config, { client, transport: clientTransport, legacyInput, events });
	return { connection, close: async () => { await connection.close(); await server.close(); } };
}

module.exports = { TOOLS, createServer, connectRawClient, connectRawV2Client, connectOurConnection };

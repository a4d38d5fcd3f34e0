'use strict';
// The benchmark workflow: one workflow, one independent chain per variant, each started by its
// own production webhook (responseMode lastNode, so the response carries the last node's items).
// A webhook-triggered execution runs only its own chain.

const crypto = require('node:crypto');
const { ARGUMENT_STYLES } = require('./argumentStyles');

const WORKFLOW_ID = 'mcpAgentBenchCall01';

/** Credential ids for the peers (ours come from test/e2e/lib/fixtures.js). */
const PEER_CREDENTIALS = { nodesMcpStdio: 'benchNodesMcpStdio1', openAi: 'benchN8nOpenAiFake1', bearer: 'benchN8nBearerTok01' };
/** The token both nodes send in the Bearer variants (server-everything ignores it). */
const BENCH_TOKEN = 'bench-not-a-token';

/** Our credentials beside the e2e fixtures': Keep Server Running off (the cold variants), a Bearer token, the fake model. */
const ONE_EXECUTION_CREDENTIALS = {
	stdioCold: { id: 'benchStdioColdPath1', name: 'Bench everything (stdio, Keep Server Running off)' },
	httpCold: { id: 'benchHttpColdPath01', name: 'Bench everything (HTTP, Keep Server Running off)' },
	httpBearer: { id: 'benchHttpBearerTok1', name: 'Bench everything (HTTP, Bearer token)' },
	agentOpenAi: { id: 'benchAgentOpenAiFk1', name: 'Bench fake model (MCP Agent: OpenAI API)' },
};

function uuid(seed) {
	const h = crypto.createHash('sha256').update(seed).digest('hex');
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function itemsCode(count) {
	return `return Array.from({ length: ${count} }, (_, i) => ({ json: { message: 'm' + i } }));`;
}

/**
 * @param variants  [{ key, items, kind: 'empty'|'ours'|'builtin'|'nodesMcp'|'agentOurs'|'agentOursChatModel'|'agentN8n', transport, concurrency, credential?, model? }]
 * @param ctx       { everythingUrl, ourCredentials: { stdio: {id,name}, http: {id,name}, [credential]: {id,name} } }
 *                  credential: key in ourCredentials for an 'ours' variant (default: its transport)
 * @returns { workflow, chains: { [key]: { path, node } } }  node = name of the measured node
 */
function buildWorkflow(variants, ctx) {
	const nodes = [];
	const connections = {};
	const chains = {};
	const connect = (from, to, outputIndex = 0) => {
		connections[from] ??= { main: [] };
		while (connections[from].main.length <= outputIndex) connections[from].main.push([]);
		connections[from].main[outputIndex].push({ node: to, type: 'main', index: 0 });
	};
	/** A sub-node's connection (language model, tool) into its root node. */
	connect.ai = (from, to, type) => {
		connections[from] ??= {};
		(connections[from][type] ??= [[]])[0].push({ node: to, type, index: 0 });
	};
	variants.forEach((variant, row) => {
		const y = row * 220;
		const path = `mcp-bench-${variant.key}`;
		const webhook = `Webhook ${variant.key}`;
		let source = `Items ${variant.key}`;
		const measured = `Measured ${variant.key}`;
		const agent = { agentOurs: ourAgent, agentOursChatModel: ourAgent, agentN8n: n8nAgent }[variant.kind];
		if (agent) {
			// No Code node: the webhook's body is the item, as in a user's webhook-triggered agent.
			nodes.push(webhookNode(webhook, variant.key, path, y));
			agent(nodes, connect, measured, variant, ctx, y);
			connect(webhook, measured);
			chains[variant.key] = { path, node: measured };
			return;
		}
		nodes.push(webhookNode(webhook, variant.key, path, y));
		// One-item executions take the webhook's body as their item, as a user's webhook-triggered
		// workflow does; a Code node in front would run in n8n's task runner, whose messages after
		// the task are handled while the next node runs and were counted in that node's time.
		const field = variant.fromBody ? 'body.message' : 'message';
		if (variant.fromBody) {
			source = webhook;
		} else {
			nodes.push({ id: uuid(source), name: source, type: 'n8n-nodes-base.code', typeVersion: 2, position: [250, y], parameters: { jsCode: itemsCode(variant.items) } });
			connect(webhook, source);
		}
		if (variant.kind === 'empty') {
			nodes.push({ id: uuid(measured), name: measured, type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [500, y], parameters: {} });
			connect(source, measured);
		} else if (variant.kind === 'ours') {
			const credential = ctx.ourCredentials[variant.credential ?? variant.transport];
			nodes.push({
				id: uuid(measured),
				name: measured,
				type: 'n8n-nodes-mcp-agent.mcpCallTool',
				typeVersion: 1,
				position: [500, y],
				parameters: {
					connection: variant.transport,
					tool: { __rl: true, mode: 'name', value: 'echo' },
					...ARGUMENT_STYLES[variant.args].parameters(field),
					options: { concurrency: variant.concurrency },
				},
				credentials: { [variant.transport === 'stdio' ? 'mcpServerStdioApi' : 'mcpServerHttpApi']: credential },
			});
			connect(source, measured);
		} else if (variant.kind === 'builtin') {
			// n8n 2.41.1's own MCP Client node (@n8n/n8n-nodes-langchain/dist/nodes/mcp/McpClient):
			// one connection per execution, items called one after another.
			nodes.push({
				id: uuid(measured),
				name: measured,
				type: '@n8n/n8n-nodes-langchain.mcpClient',
				typeVersion: 1.1,
				position: [500, y],
				parameters: {
					serverTransport: 'httpStreamable',
					endpointUrl: ctx.everythingUrl,
					authentication: variant.bearer ? 'bearerAuth' : 'none',
					tool: { __rl: true, mode: 'id', value: 'echo' },
					inputMode: 'json',
					jsonInput: `={{ JSON.stringify({ message: $json.${field} }) }}`,
					options: {},
				},
				...(variant.bearer ? { credentials: { httpBearerAuth: { id: PEER_CREDENTIALS.bearer, name: 'Bench everything (n8n Bearer Auth)' } } } : {}),
			});
			connect(source, measured);
		} else if (variant.kind === 'nodesMcp') {
			// n8n-nodes-mcp reads only item 0 per execution of the node, so a Loop Over Items with
			// batch size 1 feeds it one item per run; its output goes back into the loop.
			const loop = `Loop ${variant.key}`;
			const done = `Done ${variant.key}`;
			nodes.push({ id: uuid(loop), name: loop, type: 'n8n-nodes-base.splitInBatches', typeVersion: 3, position: [500, y], parameters: { batchSize: 1, options: {} } });
			nodes.push({
				id: uuid(measured),
				name: measured,
				type: 'n8n-nodes-mcp.mcpClient',
				typeVersion: 1,
				position: [750, y + 100],
				parameters: {
					connectionType: 'cmd',
					operation: 'executeTool',
					toolName: 'echo',
					toolParameters: '={{ JSON.stringify({ message: $json.message }) }}',
				},
				credentials: { mcpClientApi: { id: PEER_CREDENTIALS.nodesMcpStdio, name: 'Bench everything (n8n-nodes-mcp stdio)' } },
			});
			nodes.push({ id: uuid(done), name: done, type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [750, y - 60], parameters: {} });
			connect(source, loop);
			connect(loop, done, 0);
			connect(loop, measured, 1);
			connect(measured, loop);
		} else {
			throw new Error(`unknown variant kind ${variant.kind}`);
		}
		chains[variant.key] = { path, node: measured };
	});
	return {
		workflow: { id: WORKFLOW_ID, name: 'Benchmark: MCP Call Tool and peers', active: false, nodes, connections, settings: { executionOrder: 'v1' }, pinData: {} },
		chains,
	};
}

function webhookNode(name, key, path, y) {
	return {
		id: uuid(name),
		name,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2.1,
		position: [0, y],
		webhookId: uuid(`hook ${key}`),
		parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', responseData: 'allEntries', options: {} },
	};
}

/**
 * Our MCP Agent (no review) with one MCP Server sub-node over Streamable HTTP whose credential
 * keeps its connection (the default). Its model: the built-in OpenAI Chat Completions provider on
 * the fake (agentOurs), or Provider "Chat Model (Connected Sub-Node)" with the same OpenAI Chat
 * Model node n8n's AI Agent gets (agentOursChatModel).
 */
function ourAgent(nodes, connect, measured, variant, ctx, y) {
	const server = `Server ${variant.key}`;
	const viaSubNode = variant.kind === 'agentOursChatModel';
	const common = { userMessage: '={{ $json.body.message }}', requireApprovalFor: 'none', options: {} };
	nodes.push({
		id: uuid(measured),
		name: measured,
		type: 'n8n-nodes-mcp-agent.mcpAgent',
		typeVersion: 1,
		position: [300, y],
		parameters: viaSubNode ? { provider: 'chatModel', ...common } : { provider: 'openaiChat', model: { __rl: true, mode: 'id', value: variant.model }, ...common },
		...(viaSubNode ? {} : { credentials: { mcpAgentOpenAiApi: ctx.ourCredentials.agentOpenAi } }),
	});
	if (viaSubNode) {
		const model = `Model ${variant.key}`;
		nodes.push(openAiChatModelNode(model, variant, y));
		connect.ai(model, measured, 'ai_languageModel');
	}
	nodes.push({
		id: uuid(server),
		name: server,
		type: 'n8n-nodes-mcp-agent.mcpServer',
		typeVersion: 1,
		position: [viaSubNode ? 400 : 300, y + 150],
		parameters: { connection: 'http' },
		credentials: { mcpServerHttpApi: ctx.ourCredentials.http },
	});
	connect.ai(server, measured, 'ai_tool');
}

/**
 * n8n 2.41.1's AI Agent (v3.1) with its OpenAI Chat Model (Chat Completions, the Responses API
 * off: the fake speaks Chat Completions) and its MCP Client Tool on the same server, every tool.
 */
function n8nAgent(nodes, connect, measured, variant, ctx, y) {
	const model = `Model ${variant.key}`;
	const tool = `MCP Client Tool ${variant.key}`;
	nodes.push({
		id: uuid(measured),
		name: measured,
		type: '@n8n/n8n-nodes-langchain.agent',
		typeVersion: 3.1,
		position: [300, y],
		parameters: { promptType: 'define', text: '={{ $json.body.message }}', options: {} },
	});
	nodes.push(openAiChatModelNode(model, variant, y));
	nodes.push({
		id: uuid(tool),
		name: tool,
		type: '@n8n/n8n-nodes-langchain.mcpClientTool',
		typeVersion: 1.2,
		position: [400, y + 150],
		parameters: { serverTransport: 'httpStreamable', endpointUrl: ctx.everythingUrl, authentication: 'none', include: 'all', options: {} },
	});
	connect.ai(model, measured, 'ai_languageModel');
	connect.ai(tool, measured, 'ai_tool');
}

/** n8n 2.41.1's OpenAI Chat Model (1.3, the Responses API off: the fake speaks Chat Completions), its credential's base URL on the fake. */
function openAiChatModelNode(name, variant, y) {
	return {
		id: uuid(name),
		name,
		type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
		typeVersion: 1.3,
		position: [250, y + 150],
		parameters: { model: { __rl: true, mode: 'id', value: variant.model }, responsesApiEnabled: false, options: {} },
		credentials: { openAiApi: { id: PEER_CREDENTIALS.openAi, name: 'Bench fake model (n8n OpenAI)' } },
	};
}

/** The credential n8n-nodes-mcp 0.1.37 uses for stdio servers (args are split on spaces). */
function peerCredentials({ everythingEntry }) {
	return [
		{
			id: PEER_CREDENTIALS.nodesMcpStdio,
			name: 'Bench everything (n8n-nodes-mcp stdio)',
			type: 'mcpClientApi',
			data: { command: 'node', args: `${everythingEntry} stdio`, environments: '' },
		},
	];
}

/**
 * The credentials of the one-execution part: ours with Keep Server Running off (the cold path, as
 * every execution ran before issue 13), ours and n8n's with a Bearer token (supplementary: both
 * nodes read a credential), ours and n8n's OpenAI credential pointed at the fake model.
 */
/** Copies of our everything credentials with Keep Server Running off (the cold path). */
function coldCredentials({ everythingUrl, runMarker, ours }) {
	const copy = (base, ref, data) => ({ ...base, id: ref.id, name: ref.name, data: { ...base.data, ...data } });
	const stdio = ours.find((c) => c.type === 'mcpServerStdioApi' && c.data.args.includes('stdio'));
	const http = ours.find((c) => c.type === 'mcpServerHttpApi' && c.data.url === everythingUrl);
	if (!stdio || !http || !stdio.data.environment.includes(runMarker)) throw new Error('bench: the e2e fixtures no longer hold the everything credentials');
	return [copy(stdio, ONE_EXECUTION_CREDENTIALS.stdioCold, { keepServerRunning: false }), copy(http, ONE_EXECUTION_CREDENTIALS.httpCold, { keepServerRunning: false })];
}

function oneExecutionCredentials({ everythingUrl, runMarker, fakeModelBaseUrl, ours }) {
	const copy = (base, ref, data) => ({ ...base, id: ref.id, name: ref.name, data: { ...base.data, ...data } });
	const stdio = ours.find((c) => c.type === 'mcpServerStdioApi' && c.data.args.includes('stdio'));
	const http = ours.find((c) => c.type === 'mcpServerHttpApi' && c.data.url === everythingUrl);
	if (!stdio || !http || !stdio.data.environment.includes(runMarker)) throw new Error('bench: the e2e fixtures no longer hold the everything credentials');
	return [
		...coldCredentials({ everythingUrl, runMarker, ours }),
		copy(http, ONE_EXECUTION_CREDENTIALS.httpBearer, { authentication: 'bearer', token: BENCH_TOKEN }),
		{ id: PEER_CREDENTIALS.bearer, name: 'Bench everything (n8n Bearer Auth)', type: 'httpBearerAuth', data: { token: BENCH_TOKEN } },
		{ ...ONE_EXECUTION_CREDENTIALS.agentOpenAi, type: 'mcpAgentOpenAiApi', data: { apiKey: 'bench-not-a-key', baseUrl: fakeModelBaseUrl, organization: '', project: '' } },
		{ id: PEER_CREDENTIALS.openAi, name: 'Bench fake model (n8n OpenAI)', type: 'openAiApi', data: { apiKey: 'bench-not-a-key', url: fakeModelBaseUrl, header: false } },
	];
}

module.exports = { WORKFLOW_ID, ONE_EXECUTION_CREDENTIALS, buildWorkflow, peerCredentials, coldCredentials, oneExecutionCredentials };

'use strict';
// The benchmark workflow: one workflow, one independent chain per variant, each started by its
// own production webhook (responseMode lastNode, so the response carries the last node's items).
// A webhook-triggered execution runs only its own chain.

const crypto = require('node:crypto');
const { ARGUMENT_STYLES } = require('./argumentStyles');

const WORKFLOW_ID = 'mcpAgentBenchCall01';

/** Credential ids for the peers (ours come from test/e2e/lib/fixtures.js). */
const PEER_CREDENTIALS = { nodesMcpStdio: 'benchNodesMcpStdio1' };

function uuid(seed) {
	const h = crypto.createHash('sha256').update(seed).digest('hex');
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function itemsCode(count) {
	return `return Array.from({ length: ${count} }, (_, i) => ({ json: { message: 'm' + i } }));`;
}

/**
 * @param variants  [{ key, items, kind: 'empty'|'ours'|'builtin'|'nodesMcp', transport, concurrency }]
 * @param ctx       { everythingUrl, ourCredentials: { stdio: {id,name}, http: {id,name} } }
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
	variants.forEach((variant, row) => {
		const y = row * 220;
		const path = `mcp-bench-${variant.key}`;
		const webhook = `Webhook ${variant.key}`;
		const source = `Items ${variant.key}`;
		nodes.push({
			id: uuid(webhook),
			name: webhook,
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2.1,
			position: [0, y],
			webhookId: uuid(`hook ${variant.key}`),
			parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', responseData: 'allEntries', options: {} },
		});
		nodes.push({ id: uuid(source), name: source, type: 'n8n-nodes-base.code', typeVersion: 2, position: [250, y], parameters: { jsCode: itemsCode(variant.items) } });
		connect(webhook, source);
		const measured = `Measured ${variant.key}`;
		if (variant.kind === 'empty') {
			nodes.push({ id: uuid(measured), name: measured, type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [500, y], parameters: {} });
			connect(source, measured);
		} else if (variant.kind === 'ours') {
			const credential = ctx.ourCredentials[variant.transport];
			nodes.push({
				id: uuid(measured),
				name: measured,
				type: 'n8n-nodes-mcp-agent.mcpCallTool',
				typeVersion: 1,
				position: [500, y],
				parameters: {
					connection: variant.transport,
					tool: { __rl: true, mode: 'name', value: 'echo' },
					...ARGUMENT_STYLES[variant.args].parameters(),
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
					authentication: 'none',
					tool: { __rl: true, mode: 'id', value: 'echo' },
					inputMode: 'json',
					jsonInput: '={{ JSON.stringify({ message: $json.message }) }}',
					options: {},
				},
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

module.exports = { WORKFLOW_ID, buildWorkflow, peerCredentials };

'use strict';
// The pool suite's workflows: one per credential, a production webhook answering with the last
// node's items, and MCP Call Tool calling the tool named in the body:
//   POST /webhook/pool-<name> {tool, args} -> MCP Call Tool (stdio, the credential under test)
// No Continue On Fail: a failed call fails the execution, and the webhook answers 500.

const crypto = require('node:crypto');

function callToolWorkflow({ name, credential }) {
	const nodes = [
		{
			id: crypto.randomUUID(),
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2.1,
			position: [0, 0],
			webhookId: crypto.randomUUID(),
			parameters: { httpMethod: 'POST', path: `pool-${name}`, responseMode: 'lastNode', responseData: 'allEntries', options: {} },
		},
		{
			id: crypto.randomUUID(),
			name: 'MCP Call Tool',
			type: 'n8n-nodes-mcp-agent.mcpCallTool',
			typeVersion: 1,
			position: [300, 0],
			parameters: {
				connection: 'stdio',
				tool: { __rl: true, mode: 'name', value: '={{ $json.body.tool }}' },
				argumentsMode: 'json',
				argumentsJson: '={{ JSON.stringify($json.body.args ?? {}) }}',
				options: {},
			},
			credentials: { mcpServerStdioApi: { id: credential.id, name: credential.name } },
		},
	];
	const connections = { Webhook: { main: [[{ node: 'MCP Call Tool', type: 'main', index: 0 }]] } };
	return { name: `E2E pool: ${name}`, nodes, connections, settings: { executionOrder: 'v1' } };
}

module.exports = { callToolWorkflow };

'use strict';
// The OAuth suite's workflow: two production webhooks over one MCP server credential.
//   POST /webhook/<prefix>-list                      -> MCP List Tools (one item per tool)
//   POST /webhook/<prefix>-call {tool, arguments}    -> MCP Call Tool (the tool named in the body)
// Both answer with the last node's items; a failed node fails the execution (no Continue On Fail),
// so its error is what n8n stores and logs.

const crypto = require('node:crypto');

/**
 * @param connection      'oauth' (HTTP with OAuth, Connect my account) or 'http'
 * @param credentialType  'mcpServerOAuth2Api' or 'mcpServerHttpApi'
 * @param credential      { id, name } as n8n saved it
 */
function toolsWorkflow({ id, name, prefix, connection, credentialType, credential }) {
	const credentials = { [credentialType]: { id: credential.id, name: credential.name } };
	const webhook = (nodeName, path, y) => ({
		id: crypto.randomUUID(),
		name: nodeName,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2.1,
		position: [0, y],
		webhookId: crypto.randomUUID(),
		parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', responseData: 'allEntries', options: {} },
	});
	const nodes = [
		webhook('Webhook List', `${prefix}-list`, 0),
		{
			id: crypto.randomUUID(),
			name: 'MCP List Tools',
			type: 'n8n-nodes-mcp-agent.mcpListTools',
			typeVersion: 1,
			position: [300, 0],
			parameters: { connection, operation: 'listTools', outputMode: 'perTool', include: '', exclude: '', options: {} },
			credentials,
		},
		webhook('Webhook Call', `${prefix}-call`, 300),
		{
			id: crypto.randomUUID(),
			name: 'MCP Call Tool',
			type: 'n8n-nodes-mcp-agent.mcpCallTool',
			typeVersion: 1,
			position: [300, 300],
			parameters: {
				connection,
				tool: { __rl: true, mode: 'name', value: '={{ $json.body.tool }}' },
				argumentsMode: 'json',
				argumentsJson: '={{ JSON.stringify($json.body.args ?? {}) }}',
				options: {},
			},
			credentials,
		},
	];
	const connections = {
		'Webhook List': { main: [[{ node: 'MCP List Tools', type: 'main', index: 0 }]] },
		'Webhook Call': { main: [[{ node: 'MCP Call Tool', type: 'main', index: 0 }]] },
	};
	return { id, name, nodes, connections, settings: { executionOrder: 'v1' } };
}

module.exports = { toolsWorkflow };

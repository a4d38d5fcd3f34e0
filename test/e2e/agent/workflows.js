'use strict';
// Workflow builders for the Agent and approval end-to-end cases. Ids and webhook paths derive from
// the case name; credentials are referenced by the fixed ids in CREDENTIALS.

const CREDENTIALS = {
	anthropic: { id: 'e2eFakeAnthropic001', name: 'Fake Anthropic' },
	openai: { id: 'e2eFakeOpenAi000001', name: 'Fake OpenAI' },
	counter: { id: 'e2eCounterStdio0001', name: 'Counter (stdio)' },
	counterDrift: { id: 'e2eCounterDrift0001', name: 'Counter with changing description' },
	everythingStdio: { id: 'e2eAgentEverything1', name: 'Everything (stdio) for agent' },
	everythingHttp: { id: 'e2eAgentEverything2', name: 'Everything (HTTP) for agent' },
	files: { id: 'e2eAgentFiles000001', name: 'Filesystem (stdio)' },
};

function id(name) {
	return `e2eAg${name.replace(/[^a-zA-Z0-9]/g, '')}`.padEnd(16, '0').slice(0, 16);
}

function providerCredential(provider) {
	return provider === 'anthropic' ? { mcpAgentAnthropicApi: CREDENTIALS.anthropic } : { mcpAgentOpenAiApi: CREDENTIALS.openai };
}

function serverNode(name, credential, connection, y) {
	const key = connection === 'http' ? 'mcpServerHttpApi' : 'mcpServerStdioApi';
	return { id: `${name}-server`, name, type: 'n8n-nodes-mcp-agent.mcpServer', typeVersion: 1, position: [300, y], parameters: { connection }, credentials: { [key]: credential } };
}

function post(name, url, y) {
	return {
		id: `${name}-post`,
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [700, y],
		parameters: { method: 'POST', url, sendBody: true, specifyBody: 'json', jsonBody: '={{ JSON.stringify($json) }}', options: {} },
	};
}

/**
 * Webhook -> (Split plans) -> MCP Agent; Done -> POST /done/<case>; Needs Approval -> POST
 * /pending/<case> (placed above, so n8n runs it first) and -> the approval node -> back to the Agent.
 * approval: 'mcp' (MCP Approval node) or 'wait' (n8n's Wait node "on webhook call", the
 * send-and-wait style channel).
 */
function approvalWorkflow({ name, inboxUrl, provider = 'anthropic', requireApprovalFor = 'notReadOnly', approvalOptions = {}, server = CREDENTIALS.counter, approval = 'mcp', splitPlans = false, options = {}, approvalParameters = {} }) {
	const nodes = [
		{ id: `${name}-hook`, name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2.1, position: [0, 0], webhookId: `${id(name)}-hook`, parameters: { httpMethod: 'POST', path: `agent-${name}`, responseMode: 'onReceived', options: {} } },
		{
			id: `${name}-agent`,
			name: 'MCP Agent',
			type: 'n8n-nodes-mcp-agent.mcpAgent',
			typeVersion: 1,
			position: [300, 0],
			parameters: { provider, model: { __rl: true, mode: 'id', value: 'fake-model' }, userMessage: splitPlans ? '={{ $json.plan }}' : '={{ $json.body.plan }}', requireApprovalFor, approvalOptions, options },
			credentials: providerCredential(provider),
		},
		serverNode('Counter', server, 'stdio', 250),
		post('Report', `${inboxUrl}/done/${name}`, -150),
		post('Notify', `${inboxUrl}/pending/${name}`, 150),
	];
	const connections = {
		'MCP Agent': { main: [[{ node: 'Report', type: 'main', index: 0 }], [{ node: 'Notify', type: 'main', index: 0 }, { node: 'Approval', type: 'main', index: 0 }]] },
		Counter: { ai_tool: [[{ node: 'MCP Agent', type: 'ai_tool', index: 0 }]] },
		Approval: { main: [[{ node: 'MCP Agent', type: 'main', index: 0 }]] },
	};
	nodes.push(
		approval === 'wait'
			? { id: `${name}-wait`, name: 'Approval', type: 'n8n-nodes-base.wait', typeVersion: 1.1, position: [700, 400], webhookId: `${id(name)}-wait`, parameters: { resume: 'webhook', httpMethod: 'POST', options: {} } }
			: { id: `${name}-approval`, name: 'Approval', type: 'n8n-nodes-mcp-agent.mcpApproval', typeVersion: 1, position: [700, 400], webhookId: `${id(name)}-approval`, parameters: approvalParameters },
	);
	if (splitPlans) {
		nodes.push({ id: `${name}-split`, name: 'Plans', type: 'n8n-nodes-base.code', typeVersion: 2, position: [150, 0], parameters: { jsCode: 'return $json.body.plans.map((plan) => ({ json: { plan } }));' } });
		connections.Webhook = { main: [[{ node: 'Plans', type: 'main', index: 0 }]] };
		connections.Plans = { main: [[{ node: 'MCP Agent', type: 'main', index: 0 }]] };
	} else {
		connections.Webhook = { main: [[{ node: 'MCP Agent', type: 'main', index: 0 }]] };
	}
	return { id: id(name), name: `E2E agent: ${name}`, active: false, settings: { executionOrder: 'v1' }, nodes, connections };
}

/** Webhook (answers with the last node's items) -> MCP Agent over three servers, no approval. */
function threeServerWorkflow({ name, provider }) {
	const nodes = [
		{ id: `${name}-hook`, name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2.1, position: [0, 0], webhookId: `${id(name)}-hook`, parameters: { httpMethod: 'POST', path: `agent-${name}`, responseMode: 'lastNode', responseData: 'allEntries', options: {} } },
		{
			id: `${name}-agent`,
			name: 'MCP Agent',
			type: 'n8n-nodes-mcp-agent.mcpAgent',
			typeVersion: 1,
			position: [300, 0],
			parameters: { provider, model: { __rl: true, mode: 'id', value: 'fake-model' }, userMessage: '={{ $json.body.plan }}', systemPrompt: 'You are a test agent.', requireApprovalFor: 'none', options: { maxIterations: 5 } },
			credentials: providerCredential(provider),
		},
		serverNode('Everything', CREDENTIALS.everythingStdio, 'stdio', 200),
		serverNode('EverythingHttp', CREDENTIALS.everythingHttp, 'http', 300),
		serverNode('Files', CREDENTIALS.files, 'stdio', 400),
	];
	const connections = {
		Webhook: { main: [[{ node: 'MCP Agent', type: 'main', index: 0 }]] },
		Everything: { ai_tool: [[{ node: 'MCP Agent', type: 'ai_tool', index: 0 }]] },
		EverythingHttp: { ai_tool: [[{ node: 'MCP Agent', type: 'ai_tool', index: 0 }]] },
		Files: { ai_tool: [[{ node: 'MCP Agent', type: 'ai_tool', index: 0 }]] },
	};
	return { id: id(name), name: `E2E agent: ${name}`, active: false, settings: { executionOrder: 'v1' }, nodes, connections };
}

/** Manual Trigger -> Set (the plan) -> MCP Agent: the scheduled-style run, executed with `n8n execute`. */
function manualWorkflow({ name, provider, plan }) {
	const base = threeServerWorkflow({ name, provider });
	base.nodes[0] = { id: `${name}-manual`, name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} };
	base.nodes.push({ id: `${name}-plan`, name: 'Plan', type: 'n8n-nodes-base.code', typeVersion: 2, position: [150, 0], parameters: { jsCode: `return [{ json: { body: { plan: ${JSON.stringify(JSON.stringify(plan))} } } }];` } });
	delete base.connections.Webhook;
	base.connections.Start = { main: [[{ node: 'Plan', type: 'main', index: 0 }]] };
	base.connections.Plan = { main: [[{ node: 'MCP Agent', type: 'main', index: 0 }]] };
	return base;
}

module.exports = { CREDENTIALS, approvalWorkflow, threeServerWorkflow, manualWorkflow, workflowId: id };

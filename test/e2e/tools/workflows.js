'use strict';
// The n8n-tools suite's workflows (issue 15), saved through the editor's REST API:
// - mixed:  Webhook -> MCP Agent with an MCP Server (server-everything, only echo, never asked),
//           another whose record call always fails on the server (never asked), a Code Tool and a Call n8n Workflow Tool (an inline sub-workflow); Done -> POST
//           /done/mixed, Needs Approval -> POST /pending/mixed and -> MCP Approval -> the Agent.
// - memory: the same shape over the counter server, with Simple Memory keyed by body.sessionId.
// - stream: Webhook in responseMode "streaming" -> MCP Agent (echo only, no review).

const crypto = require('node:crypto');

const node = (name, type, typeVersion, position, parameters, extra = {}) => ({ id: crypto.randomUUID(), name, type, typeVersion, position, parameters, ...extra });

function webhook(path, responseMode) {
	return node('Webhook', 'n8n-nodes-base.webhook', 2.1, [0, 0], { httpMethod: 'POST', path, responseMode, options: {} }, { webhookId: crypto.randomUUID() });
}

function agent(credentials, { requireApprovalFor = 'notReadOnly', neverAsk } = {}) {
	return node(
		'MCP Agent',
		'n8n-nodes-mcp-agent.mcpAgent',
		1,
		[300, 0],
		{
			provider: 'anthropic',
			model: { __rl: true, mode: 'id', value: 'fake-model' },
			userMessage: '={{ $json.body.plan }}',
			requireApprovalFor,
			approvalOptions: neverAsk ? { neverAsk } : {},
			options: { maxIterations: 5 },
		},
		{ credentials: { mcpAgentAnthropicApi: credentials.anthropic } },
	);
}

const mcpServer = (name, credential, parameters = {}) => node(name, 'n8n-nodes-mcp-agent.mcpServer', 1, [200, 250], { connection: 'stdio', ...parameters }, { credentials: { mcpServerStdioApi: credential } });

const post = (name, url, y) =>
	node(name, 'n8n-nodes-base.httpRequest', 4.2, [700, y], { method: 'POST', url, sendBody: true, specifyBody: 'json', jsonBody: '={{ JSON.stringify($json) }}', options: {} });

/** Agent outputs to the inbox, and Needs Approval through MCP Approval back to the Agent. */
function withReview(name, inboxUrl, nodes, connections) {
	nodes.push(post('Report', `${inboxUrl}/done/${name}`, -150), post('Notify', `${inboxUrl}/pending/${name}`, 150));
	nodes.push(node('Approval', 'n8n-nodes-mcp-agent.mcpApproval', 1, [700, 400], {}, { webhookId: crypto.randomUUID() }));
	connections['MCP Agent'] = { main: [[{ node: 'Report', type: 'main', index: 0 }], [{ node: 'Notify', type: 'main', index: 0 }, { node: 'Approval', type: 'main', index: 0 }]] };
	connections.Approval = { main: [[{ node: 'MCP Agent', type: 'main', index: 0 }]] };
}

const tool = () => ({ ai_tool: [[{ node: 'MCP Agent', type: 'ai_tool', index: 0 }]] });

/** The sub-workflow the Call n8n Workflow Tool runs: it answers "looked up <query>". */
const LOOKUP_WORKFLOW = {
	nodes: [
		{ id: 'sub-trigger', name: 'Start', type: 'n8n-nodes-base.executeWorkflowTrigger', typeVersion: 1.1, position: [0, 0], parameters: { inputSource: 'passthrough' } },
		{
			id: 'sub-set',
			name: 'Answer',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [200, 0],
			parameters: { assignments: { assignments: [{ id: 'a1', name: 'answer', value: '=looked up {{ $json.query }}', type: 'string' }] }, options: {} },
		},
	],
	connections: { Start: { main: [[{ node: 'Answer', type: 'main', index: 0 }]] } },
};

function mixedWorkflow({ inboxUrl, credentials }) {
	const nodes = [
		webhook('tools-mixed', 'onReceived'),
		agent(credentials, { neverAsk: 'Everything/echo, Broken/record' }),
		mcpServer('Everything', credentials.everything, { include: 'echo' }),
		// The counter server writing into a directory: every record call fails on the server.
		mcpServer('Broken', credentials.brokenCounter, { include: 'record' }),
		node('Code Tool', '@n8n/n8n-nodes-langchain.toolCode', 1.3, [350, 250], {
			description: 'Multiplies two numbers a and b',
			language: 'javaScript',
			jsCode: 'return String(Number(query.a) * Number(query.b));',
			specifyInputSchema: true,
			schemaType: 'fromJson',
			jsonSchemaExample: '{"a": 6, "b": 7}',
		}),
		node('Lookup', '@n8n/n8n-nodes-langchain.toolWorkflow', 2.2, [500, 250], {
			description: 'Looks a word up',
			source: 'parameter',
			workflowJson: JSON.stringify(LOOKUP_WORKFLOW),
		}),
	];
	const connections = { Webhook: { main: [[{ node: 'MCP Agent', type: 'main', index: 0 }]] }, Everything: tool(), Broken: tool(), 'Code Tool': tool(), Lookup: tool() };
	withReview('mixed', inboxUrl, nodes, connections);
	return { name: 'E2E tools: mixed', nodes, connections, settings: { executionOrder: 'v1' } };
}

function memoryWorkflow({ inboxUrl, credentials }) {
	const nodes = [
		webhook('tools-memory', 'onReceived'),
		agent(credentials),
		mcpServer('Counter', credentials.counter),
		node('Simple Memory', '@n8n/n8n-nodes-langchain.memoryBufferWindow', 1.3, [450, 250], {
			sessionIdType: 'customKey',
			sessionKey: "={{ $('Webhook').first().json.body.sessionId }}",
			contextWindowLength: 10,
		}),
	];
	const connections = {
		Webhook: { main: [[{ node: 'MCP Agent', type: 'main', index: 0 }]] },
		Counter: tool(),
		'Simple Memory': { ai_memory: [[{ node: 'MCP Agent', type: 'ai_memory', index: 0 }]] },
	};
	withReview('memory', inboxUrl, nodes, connections);
	return { name: 'E2E tools: memory', nodes, connections, settings: { executionOrder: 'v1' } };
}

function streamWorkflow({ credentials }) {
	const nodes = [webhook('tools-stream', 'streaming'), agent(credentials, { requireApprovalFor: 'none' }), mcpServer('Everything', credentials.everything, { include: 'echo' })];
	const connections = { Webhook: { main: [[{ node: 'MCP Agent', type: 'main', index: 0 }]] }, Everything: tool() };
	return { name: 'E2E tools: stream', nodes, connections, settings: { executionOrder: 'v1' } };
}

/** Webhook `path` -> MCP Agent over one MCP Server sub-node, with review (also used by ../pool). */
function reviewedAgentWorkflow({ name, path, inboxUrl, credentials, serverName, serverCredential }) {
	const nodes = [webhook(path, 'onReceived'), agent(credentials), mcpServer(serverName, serverCredential)];
	const connections = { Webhook: { main: [[{ node: 'MCP Agent', type: 'main', index: 0 }]] }, [serverName]: tool() };
	withReview(name, inboxUrl, nodes, connections);
	return { name: `E2E: ${name}`, nodes, connections, settings: { executionOrder: 'v1' } };
}

module.exports = { mixedWorkflow, memoryWorkflow, streamWorkflow, reviewedAgentWorkflow };

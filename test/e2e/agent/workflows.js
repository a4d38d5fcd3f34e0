'use strict';
// Workflow builders for the Agent and approval end-to-end cases. Ids and webhook paths derive from
// the case name; credentials are referenced by the fixed ids in CREDENTIALS.

const CREDENTIALS = {
	anthropic: { id: 'e2eFakeAnthropic001', name: 'Fake Anthropic' },
	openai: { id: 'e2eFakeOpenAi000001', name: 'Fake OpenAI' },
	// Issue 30: n8n's own OpenAI credential type (openAiApi), for its OpenAI Chat Model node.
	n8nOpenAi: { id: 'e2eN8nOpenAiApi0001', name: "n8n's OpenAI (fake)" },
	n8nAnthropic: { id: 'e2eN8nAnthropicApi1', name: "n8n's Anthropic (fake)" },
	n8nOllama: { id: 'e2eN8nOllamaApi0001', name: "n8n's Ollama (fake)" },
	n8nGemini: { id: 'e2eN8nGooglePalm001', name: "n8n's Google Gemini (fake)" },
	counter: { id: 'e2eCounterStdio0001', name: 'Counter (stdio)' },
	counterDrift: { id: 'e2eCounterDrift0001', name: 'Counter with changing description' },
	counterGrant: { id: 'e2eCounterGrant0001', name: 'Counter for standing approvals' },
	everythingStdio: { id: 'e2eAgentEverything1', name: 'Everything (stdio) for agent' },
	everythingHttp: { id: 'e2eAgentEverything2', name: 'Everything (HTTP) for agent' },
	files: { id: 'e2eAgentFiles000001', name: 'Filesystem (stdio)' },
	hostile: { id: 'e2eHostileStdio0001', name: 'Hostile server (stdio)' },
	hostileListing: { id: 'e2eHostileListing01', name: 'Hostile 2,000-tool listing (stdio)' },
	leakHttp: { id: 'e2eLeakHttpToken001', name: 'Bearer token with a line break' },
	leakStdio: { id: 'e2eLeakStdioSecret1', name: 'Server printing its secret' },
	// Issue 11: a 2026-07-28 server (stdio and Streamable HTTP) and a 2025-11-25 one.
	modernStdio: { id: 'e2eModernStdio00001', name: 'MCP 2026-07-28 fixture (stdio)' },
	modernHttp: { id: 'e2eModernHttp000001', name: 'MCP 2026-07-28 fixture (HTTP)' },
	legacyStdio: { id: 'e2eLegacyStdio00001', name: 'MCP 2025-11-25 fixture (stdio)' },
	// Issue 29: long MCP tasks (the 2026-07-28 tasks extension), served over HTTP by their own process.
	modernTasksHttp: { id: 'e2eModernTasksHttp1', name: 'MCP tasks fixture (HTTP)' },
};

function id(name) {
	return `e2eAg${name.replace(/[^a-zA-Z0-9]/g, '')}`.padEnd(16, '0').slice(0, 16);
}

function providerCredential(provider) {
	return provider === 'anthropic' ? { mcpAgentAnthropicApi: CREDENTIALS.anthropic } : { mcpAgentOpenAiApi: CREDENTIALS.openai };
}

/** The case's trigger: POST /webhook/agent-<case>, answering at once (or with the last node's items). */
function caseWebhook(name, response = { responseMode: 'onReceived' }) {
	return { id: `${name}-hook`, name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2.1, position: [0, 0], webhookId: `${id(name)}-hook`, parameters: { httpMethod: 'POST', path: `agent-${name}`, ...response, options: {} } };
}

/** The case's MCP Approval node, named Approval. */
function mcpApprovalNode(name, parameters = {}) {
	return { id: `${name}-approval`, name: 'Approval', type: 'n8n-nodes-mcp-agent.mcpApproval', typeVersion: 1, position: [700, 400], webhookId: `${id(name)}-approval`, parameters };
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
 * send-and-wait style channel, resumed by an HTTP request with method waitMethod), or 'waitset'
 * (the Wait node, then a Set node that makes the POSTed body the item: anyone who can reach the
 * Wait node's URL writes the item the Agent gets).
 * The one MCP Server sub-node is named serverName and uses `server` over `connection` (stdio or http).
 * chatModel (a credential of n8n's openAiApi type): Provider "Chat Model (Connected Sub-Node)" with
 * n8n's OpenAI Chat Model node on the Agent's Chat Model input, instead of a built-in provider.
 */
function approvalWorkflow({ name, inboxUrl, chatModel, provider = chatModel ? 'chatModel' : 'anthropic', requireApprovalFor = 'notReadOnly', approvalOptions = {}, server = CREDENTIALS.counter, serverName = 'Counter', connection = 'stdio', approval = 'mcp', waitMethod = 'POST', splitPlans = false, options = {}, approvalParameters = {}, approvalRules }) {
	const nodes = [
		caseWebhook(name),
		{
			id: `${name}-agent`,
			name: 'MCP Agent',
			type: 'n8n-nodes-mcp-agent.mcpAgent',
			typeVersion: 1,
			position: [300, 0],
			parameters: { provider, model: { __rl: true, mode: 'id', value: 'fake-model' }, userMessage: splitPlans ? '={{ $json.plan }}' : '={{ $json.body.plan }}', requireApprovalFor, approvalOptions, options, ...(approvalRules ? { approvalRules } : {}) },
			...(chatModel ? {} : { credentials: providerCredential(provider) }),
		},
		serverNode(serverName, server, connection, 250),
		post('Report', `${inboxUrl}/done/${name}`, -150),
		post('Notify', `${inboxUrl}/pending/${name}`, 150),
	];
	const connections = {
		'MCP Agent': { main: [[{ node: 'Report', type: 'main', index: 0 }], [{ node: 'Notify', type: 'main', index: 0 }, { node: 'Approval', type: 'main', index: 0 }]] },
		[serverName]: { ai_tool: [[{ node: 'MCP Agent', type: 'ai_tool', index: 0 }]] },
		Approval: { main: [[{ node: 'MCP Agent', type: 'main', index: 0 }]] },
	};
	if (chatModel) {
		nodes.push(openAiChatModelNode(name, chatModel, [200, 400]));
		connections['OpenAI Chat Model'] = { ai_languageModel: [[{ node: 'MCP Agent', type: 'ai_languageModel', index: 0 }]] };
	}
	if (approval === 'waitset') {
		nodes.push({ id: `${name}-set`, name: 'Body to item', type: 'n8n-nodes-base.set', typeVersion: 3.4, position: [900, 400], parameters: { mode: 'raw', jsonOutput: '={{ JSON.stringify($json.body) }}', options: {} } });
		connections.Approval = { main: [[{ node: 'Body to item', type: 'main', index: 0 }]] };
		connections['Body to item'] = { main: [[{ node: 'MCP Agent', type: 'main', index: 0 }]] };
	}
	nodes.push(
		approval === 'wait' || approval === 'waitset'
			? { id: `${name}-wait`, name: 'Approval', type: 'n8n-nodes-base.wait', typeVersion: 1.1, position: [700, 400], webhookId: `${id(name)}-wait`, parameters: { resume: 'webhook', httpMethod: waitMethod, options: {} } }
			: mcpApprovalNode(name, approvalParameters),
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

/**
 * Webhook -> MCP Call Tool with Pause Long Tasks (issue 29): Result -> POST /done/<case>; Task
 * Running -> POST /pending/<case> (placed above, so n8n runs it first) and -> MCP Approval -> back
 * to MCP Call Tool. The tool is timed_task; its arguments come from the webhook's body.
 */
function callToolTaskWorkflow({ name, inboxUrl, server, options = {} }) {
	const nodes = [
		caseWebhook(name),
		{
			id: `${name}-call`,
			name: 'MCP Call Tool',
			type: 'n8n-nodes-mcp-agent.mcpCallTool',
			typeVersion: 1,
			position: [300, 0],
			parameters: { connection: 'http', tool: { __rl: true, mode: 'name', value: 'timed_task' }, argumentsMode: 'json', argumentsJson: '={{ JSON.stringify($json.body.args) }}', options: { pauseLongTasks: true, taskPauseAfter: 1, maxTaskWait: 600, ...options } },
			credentials: { mcpServerHttpApi: server },
		},
		post('Report', `${inboxUrl}/done/${name}`, -150),
		post('Notify', `${inboxUrl}/pending/${name}`, 150),
		mcpApprovalNode(name),
	];
	const connections = {
		Webhook: { main: [[{ node: 'MCP Call Tool', type: 'main', index: 0 }]] },
		'MCP Call Tool': { main: [[{ node: 'Report', type: 'main', index: 0 }], [{ node: 'Notify', type: 'main', index: 0 }, { node: 'Approval', type: 'main', index: 0 }]] },
		Approval: { main: [[{ node: 'MCP Call Tool', type: 'main', index: 0 }]] },
	};
	return { id: id(name), name: `E2E agent: ${name}`, active: false, settings: { executionOrder: 'v1' }, nodes, connections };
}

/** Webhook (answers with the last node's items) -> MCP Agent over three servers, no approval. */
function threeServerWorkflow({ name, provider }) {
	const nodes = [
		caseWebhook(name, { responseMode: 'lastNode', responseData: 'allEntries' }),
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

/** n8n's OpenAI Chat Model node (1.2: Chat Completions on n8n 1.x and 2.x alike), its model the scripted LLM's. */
function openAiChatModelNode(name, credential, position) {
	return {
		id: `${name}-model`,
		name: 'OpenAI Chat Model',
		type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
		typeVersion: 1.2,
		position,
		parameters: { model: { __rl: true, mode: 'id', value: 'fake-model' }, options: { maxRetries: 0 } },
		credentials: { openAiApi: credential },
	};
}

/** n8n's Anthropic Chat Model node (1.3, on n8n 1.x and 2.x alike): Anthropic Messages to the scripted LLM. */
function anthropicChatModelNode(name, credential, position) {
	return {
		id: `${name}-model`,
		name: 'Anthropic Chat Model',
		type: '@n8n/n8n-nodes-langchain.lmChatAnthropic',
		typeVersion: 1.3,
		position,
		parameters: { model: { __rl: true, mode: 'id', value: 'fake-model' }, options: {} },
		credentials: { anthropicApi: credential },
	};
}

/** n8n's Ollama Chat Model node: Ollama's own /api/chat (streamed NDJSON) to the scripted LLM. */
function ollamaChatModelNode(name, credential, position) {
	return { id: `${name}-model`, name: 'Ollama Chat Model', type: '@n8n/n8n-nodes-langchain.lmChatOllama', typeVersion: 1, position, parameters: { model: 'fake-model', options: {} }, credentials: { ollamaApi: credential } };
}

/** n8n's Google Gemini Chat Model node (1: the model by name), its credential's host the scripted LLM. */
function geminiChatModelNode(name, credential, position) {
	return { id: `${name}-model`, name: 'Google Gemini Chat Model', type: '@n8n/n8n-nodes-langchain.lmChatGoogleGemini', typeVersion: 1, position, parameters: { modelName: 'models/fake-model', options: {} }, credentials: { googlePalmApi: credential } };
}

const CHAT_MODEL_NODES = { openai: openAiChatModelNode, anthropic: anthropicChatModelNode, ollama: ollamaChatModelNode, gemini: geminiChatModelNode };

/**
 * Webhook (answers with the last node's items) -> MCP Agent with the built-in Anthropic provider
 * reading n8n's own anthropicApi credential (Credential Type "Predefined"); one Everything server.
 */
function n8nCredentialWorkflow({ name, credential }) {
	const base = chatModelWorkflow({ name, credential });
	base.nodes = base.nodes.filter((node) => node.name !== 'OpenAI Chat Model');
	delete base.connections['OpenAI Chat Model'];
	const agent = base.nodes.find((node) => node.name === 'MCP Agent');
	Object.assign(agent.parameters, { provider: 'anthropic', providerCredential: 'n8n', model: { __rl: true, mode: 'id', value: 'fake-model' } });
	agent.credentials = { anthropicApi: credential };
	return base;
}

/**
 * Webhook (answers with the last node's items) -> MCP Agent with Provider "Chat Model (Connected
 * Sub-Node)" and n8n's own OpenAI Chat Model node (Chat Completions, n8n's openAiApi credential
 * pointed at the scripted LLM) on its Chat Model input; one Everything server, no approval (issue 30).
 */
function chatModelWorkflow({ name, credential, model = 'openai' }) {
	const modelNode = CHAT_MODEL_NODES[model](name, credential, [200, 250]);
	const nodes = [
		caseWebhook(name, { responseMode: 'lastNode', responseData: 'allEntries' }),
		{
			id: `${name}-agent`,
			name: 'MCP Agent',
			type: 'n8n-nodes-mcp-agent.mcpAgent',
			typeVersion: 1,
			position: [300, 0],
			parameters: { provider: 'chatModel', userMessage: '={{ $json.body.plan }}', systemPrompt: 'You are a test agent.', requireApprovalFor: 'none', options: { maxIterations: 5 } },
		},
		modelNode,
		serverNode('Everything', CREDENTIALS.everythingStdio, 'stdio', 400),
	];
	const connections = {
		Webhook: { main: [[{ node: 'MCP Agent', type: 'main', index: 0 }]] },
		[modelNode.name]: { ai_languageModel: [[{ node: 'MCP Agent', type: 'ai_languageModel', index: 0 }]] },
		Everything: { ai_tool: [[{ node: 'MCP Agent', type: 'ai_tool', index: 0 }]] },
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

function webhook(name, path, y, responseMode = 'onReceived') {
	const extra = responseMode === 'lastNode' ? { responseData: 'allEntries' } : {};
	return { id: `${path}-hook`, name, type: 'n8n-nodes-base.webhook', typeVersion: 2.1, position: [0, y], webhookId: `${id(path)}-hook`, parameters: { httpMethod: 'POST', path, responseMode, ...extra, options: {} } };
}

/**
 * The freeze (issue 10): Webhook -> MCP Agent (no review) over the hostile server, Done -> POST
 * /done/<name>; and Webhook -> MCP Call Tool calling the same hostile tool with `text` (continue on
 * fail, so its validation error is an item) -> POST /done/<name>-call. Both check `text` against
 * the server's pattern before anything reaches the server.
 */
function freezeWorkflow({ name, inboxUrl, text }) {
	const nodes = [
		webhook('Webhook', `agent-${name}`, 0),
		{
			id: `${name}-agent`,
			name: 'MCP Agent',
			type: 'n8n-nodes-mcp-agent.mcpAgent',
			typeVersion: 1,
			position: [300, 0],
			parameters: { provider: 'anthropic', model: { __rl: true, mode: 'id', value: 'fake-model' }, userMessage: '={{ $json.body.plan }}', requireApprovalFor: 'none', options: { maxIterations: 3 } },
			credentials: providerCredential('anthropic'),
		},
		serverNode('Hostile', CREDENTIALS.hostile, 'stdio', 200),
		post('Report', `${inboxUrl}/done/${name}`, 0),
		{
			id: `${name}-call`,
			name: 'MCP Call Tool',
			type: 'n8n-nodes-mcp-agent.mcpCallTool',
			typeVersion: 1,
			position: [300, 400],
			parameters: { connection: 'stdio', tool: { __rl: true, mode: 'name', value: 'match_letters' }, argumentsMode: 'json', argumentsJson: JSON.stringify({ text }), options: {} },
			credentials: { mcpServerStdioApi: CREDENTIALS.hostile },
			onError: 'continueRegularOutput',
		},
		post('Report Call', `${inboxUrl}/done/${name}-call`, 400),
	];
	const connections = {
		Webhook: { main: [[{ node: 'MCP Agent', type: 'main', index: 0 }, { node: 'MCP Call Tool', type: 'main', index: 0 }]] },
		Hostile: { ai_tool: [[{ node: 'MCP Agent', type: 'ai_tool', index: 0 }]] },
		'MCP Agent': { main: [[{ node: 'Report', type: 'main', index: 0 }]] },
		'MCP Call Tool': { main: [[{ node: 'Report Call', type: 'main', index: 0 }]] },
	};
	return { id: id(name), name: `E2E agent: ${name}`, active: false, settings: { executionOrder: 'v1' }, nodes, connections };
}

/**
 * The scan freeze (issue 25): Webhook -> MCP List Tools over a server listing 2,000 tools of
 * near-miss text (every tool scanned for poisoning) -> POST /done/<name> with the count only.
 */
function listingFreezeWorkflow({ name, inboxUrl }) {
	const nodes = [
		webhook('Webhook', `agent-${name}`, 0),
		{
			id: `${name}-list`,
			name: 'MCP List Tools',
			type: 'n8n-nodes-mcp-agent.mcpListTools',
			typeVersion: 1,
			position: [300, 0],
			parameters: { connection: 'stdio', operation: 'listTools', outputMode: 'single', include: '', exclude: '', options: {} },
			credentials: { mcpServerStdioApi: CREDENTIALS.hostileListing },
		},
		{
			...post('Report', `${inboxUrl}/done/${name}`, 0),
			parameters: { method: 'POST', url: `${inboxUrl}/done/${name}`, sendBody: true, specifyBody: 'json', jsonBody: '={{ JSON.stringify({ count: $json.count, flagged: $json.tools.filter((t) => t.warnings).length }) }}', options: {} },
		},
	];
	const connections = {
		Webhook: { main: [[{ node: 'MCP List Tools', type: 'main', index: 0 }]] },
		'MCP List Tools': { main: [[{ node: 'Report', type: 'main', index: 0 }]] },
	};
	return { id: id(name), name: `E2E agent: ${name}`, active: false, settings: { executionOrder: 'v1' }, nodes, connections };
}

/**
 * The leak (issue 10): two webhooks (`agent-<name>-http`, `agent-<name>-stdio`, answering when the
 * run ends), each -> MCP List Tools with a credential holding a secret that must never show.
 * Neither continues on fail: the node error is what n8n stores and logs.
 */
function leakWorkflow({ name }) {
	const listTools = (nodeName, connection, credential, y) => ({
		id: `${name}-${connection}-list`,
		name: nodeName,
		type: 'n8n-nodes-mcp-agent.mcpListTools',
		typeVersion: 1,
		position: [300, y],
		parameters: { connection, operation: 'listTools', outputMode: 'perTool', include: '', exclude: '', options: {} },
		credentials: { [connection === 'http' ? 'mcpServerHttpApi' : 'mcpServerStdioApi']: credential },
	});
	const nodes = [
		webhook('Webhook HTTP', `agent-${name}-http`, 0, 'lastNode'),
		listTools('List Tools (HTTP)', 'http', CREDENTIALS.leakHttp, 0),
		webhook('Webhook stdio', `agent-${name}-stdio`, 300, 'lastNode'),
		listTools('List Tools (stdio)', 'stdio', CREDENTIALS.leakStdio, 300),
	];
	const connections = {
		'Webhook HTTP': { main: [[{ node: 'List Tools (HTTP)', type: 'main', index: 0 }]] },
		'Webhook stdio': { main: [[{ node: 'List Tools (stdio)', type: 'main', index: 0 }]] },
	};
	return { id: id(name), name: `E2E agent: ${name}`, active: false, settings: { executionOrder: 'v1' }, nodes, connections };
}

module.exports = { CREDENTIALS, approvalWorkflow, callToolTaskWorkflow, threeServerWorkflow, chatModelWorkflow, n8nCredentialWorkflow, manualWorkflow, freezeWorkflow, listingFreezeWorkflow, leakWorkflow, workflowId: id };

/**
 * The MCP Agent's Chat Model input (issue 30): the node's glue driven with a fake n8n context, a
 * LangChain-shaped chat model (plain objects with bindTools / invoke / stream that answer as
 * AIMessage and AIMessageChunk objects do) and an n8n tool on the Tools input. Nothing here loads
 * LangChain, and nothing is mocked below the node: the real adapter, client, step loop and review.
 */
import { z } from 'zod';
import { NodeHelpers, NodeOperationError, Workflow, type INodeTypeDescription, type INodeTypes } from 'n8n-workflow';
import { executeAgent } from '../../nodes/McpAgent/execute';
import { McpAgent } from '../../nodes/McpAgent/McpAgent.node';
import { agentProperties } from '../../nodes/McpAgent/description';
import { APPROVAL_DECISION_KIND } from '../../lib/approvals/approvalRequest';
import { reviewTokenInUrl } from '../../lib/approvals/reviewToken';
import { signedDecision } from '../support/approvalFixtures';

type Json = Record<string, any>;

/** What a bound chat model was asked, and with which options it was bound. */
interface FakeChatModel {
	model?: string;
	bound: Array<{ tools: Json[]; options?: Json }>;
	calls: Array<{ messages: Json[]; streamed: boolean }>;
	invoke(messages: unknown[], options?: Json): Promise<unknown>;
	bindTools?(tools: unknown[], options?: Json): unknown;
}

/** A tool-calling chat model answering from a script (an Error in it is thrown); `chunks` answers streamed calls. */
function chatModel(answers: Array<Json | Error>, options: { name?: string; chunks?: unknown[][] } = {}): FakeChatModel {
	const fake: FakeChatModel = {
		...(options.name ? { model: options.name } : {}),
		bound: [],
		calls: [],
		invoke: () => Promise.reject(new Error('the Agent must call the bound model')),
		bindTools(tools, bindOptions) {
			fake.bound.push({ tools: tools as Json[], ...(bindOptions ? { options: bindOptions } : {}) });
			return {
				invoke: async (messages: unknown[]) => {
					fake.calls.push({ messages: JSON.parse(JSON.stringify(messages)), streamed: false });
					const next = answers.shift();
					if (!next) throw new Error('script exhausted');
					if (next instanceof Error) throw next;
					return next;
				},
				stream: async (messages: unknown[]) => {
					fake.calls.push({ messages: JSON.parse(JSON.stringify(messages)), streamed: true });
					const list = options.chunks?.shift() ?? [];
					return (async function* () {
						for (const chunk of list) {
							if (chunk instanceof Error) throw chunk;
							yield chunk;
						}
					})();
				},
			};
		},
	};
	return fake;
}

/** n8n's Code Tool as supplyData returns it (a LangChain tool); n8n tools wait for review by default. */
function weatherTool() {
	const calls: unknown[] = [];
	const schema = z.object({ city: z.string() });
	return {
		calls,
		name: 'get_weather',
		description: 'Weather of a city',
		schema,
		metadata: { sourceNodeName: 'Weather' },
		async invoke(input: unknown) {
			calls.push(schema.parse(input));
			return 'sunny, 21 °C';
		},
	};
}

const toolCall = (id: string, args: Json): Json => ({
	content: '',
	tool_calls: [{ id, name: 'get_weather', args, type: 'tool_call' }],
	response_metadata: { finish_reason: 'tool_calls' },
	usage_metadata: { input_tokens: 40, output_tokens: 7, total_tokens: 47 },
});
const finalAnswer = (text: string): Json => ({
	content: text,
	response_metadata: { finish_reason: 'stop' },
	usage_metadata: { input_tokens: 60, output_tokens: 9, total_tokens: 69, input_token_details: { cache_read: 20 } },
});

interface Setup {
	items: Json[];
	/** What getInputConnectionData returns for the Chat Model input. */
	model: unknown;
	tools?: unknown[];
	params?: Json;
	nodeContext?: Json;
	continueOnFail?: boolean;
	streaming?: boolean;
	/** The node on the Chat Model input as getParentNodes names it (none: the context cannot say). */
	modelNode?: string;
}

const DEFAULT_USER_MESSAGE = agentProperties.find((property) => property.name === 'userMessage')!.default;

function fakeContext(setup: Setup) {
	const params: Json = { provider: 'chatModel', systemPrompt: 'Be brief.', requireApprovalFor: 'notReadOnly', options: {}, approvalOptions: {}, ...setup.params };
	const nodeParameters = { ...params, userMessage: params.userMessage ?? DEFAULT_USER_MESSAGE };
	const items = setup.items.map((json, i) => ({ json, pairedItem: { item: i } }));
	const fromApproval = setup.items.some((json) => json.kind === APPROVAL_DECISION_KIND);
	const inputReads: string[] = [];
	const chunks: Array<{ type: string; content?: string }> = [];
	const context = {
		inputReads,
		chunks,
		nodeContext: setup.nodeContext ?? {},
		getInputData: () => items,
		getNodeParameter: (name: string, index: number, fallback?: unknown) => {
			if (name === 'userMessage' && params.userMessage === undefined) return items[index].json.chatInput;
			return name in params && params[name] !== undefined ? params[name] : fallback;
		},
		getInputConnectionData: async (type: string) => {
			inputReads.push(type);
			if (type === 'ai_languageModel') return setup.model;
			if (type === 'ai_tool') return setup.tools ?? [weatherTool()];
			return undefined;
		},
		getParentNodes: (node: string, options: { connectionType?: string; depth?: number }) => {
			if (node !== 'MCP Agent' || options.depth !== 1) return [];
			if (options.connectionType === 'ai_languageModel' && setup.modelNode) return [{ name: setup.modelNode, type: 'x', typeVersion: 1, disabled: false }];
			if (options.connectionType === 'main' && fromApproval) return [{ name: 'MCP Approval', type: 'mcpApproval', typeVersion: 1, disabled: false }];
			return [];
		},
		...(fromApproval ? { getInputSourceData: () => ({ previousNode: 'MCP Approval' }) } : {}),
		getChildNodes: () => [{ name: 'MCP Approval', type: 'mcpApproval', typeVersion: 1, disabled: false, parameters: {} }],
		getWorkflowSettings: () => ({ executionOrder: 'v1' }),
		getNode: () => ({ name: 'MCP Agent', type: 'mcpAgent', typeVersion: 1, parameters: nodeParameters, id: '1', position: [0, 0] }),
		getWorkflow: () => ({ id: 'w1', name: 'Chat agent' }),
		getMode: () => 'webhook',
		getContext() {
			return context.nodeContext;
		},
		getCredentials: async () => {
			throw new Error('a Chat Model run reads no credential of the Agent');
		},
		evaluateExpression: () => 'http://localhost:5678/webhook-waiting/7?signature=s',
		continueOnFail: () => setup.continueOnFail === true,
		isStreaming: () => setup.streaming === true,
		sendChunk: (type: string, _item: number, content?: string) => chunks.push({ type, ...(content !== undefined ? { content } : {}) }),
		logger: { info: () => undefined, warn: () => undefined, debug: () => undefined, error: () => undefined },
	};
	return context;
}

const run = (context: ReturnType<typeof fakeContext>) => executeAgent.call(context as never);

describe('the Chat Model input appears only for Provider "Chat Model (Connected Sub-Node)"', () => {
	// n8n's own evaluation of the node's inputs expression (n8n-workflow's NodeHelpers.getNodeInputs), as the editor and the engine do it.
	const description = new McpAgent().description as INodeTypeDescription;
	const inputsFor = (parameters: Json) => {
		const node = { id: 'a', name: 'MCP Agent', type: 'n8n-nodes-mcp-agent.mcpAgent', typeVersion: 1, position: [0, 0] as [number, number], parameters };
		const nodeTypes = { getByName: () => ({ description }), getByNameAndVersion: () => ({ description }), getKnownTypes: () => ({}) } as unknown as INodeTypes;
		const workflow = new Workflow({ id: 'w', name: 'w', nodes: [node], connections: {}, active: false, nodeTypes });
		return NodeHelpers.getNodeInputs(workflow, node, description);
	};

	it('adds a required Chat Model input of one connection before Tools and Memory', () => {
		expect(inputsFor({ provider: 'chatModel' })).toEqual([
			'main',
			{ type: 'ai_languageModel', displayName: 'Chat Model', required: true, maxConnections: 1 },
			{ type: 'ai_tool', displayName: 'Tools', required: true },
			{ type: 'ai_memory', displayName: 'Memory', required: false, maxConnections: 1 },
		]);
	});

	it('has none for a built-in provider, and none when Provider is unset (its default)', () => {
		for (const parameters of [{ provider: 'anthropic' }, { provider: 'openaiResponses' }, {}]) {
			expect(inputsFor(parameters).map((input) => (typeof input === 'string' ? input : input.type))).toEqual(['main', 'ai_tool', 'ai_memory']);
		}
	});

	it('hides the Model parameter and shows a notice for the Chat Model provider', () => {
		const model = agentProperties.find((property) => property.name === 'model')!;
		expect(model.displayOptions).toEqual({ hide: { provider: ['chatModel'] } });
		expect(agentProperties.find((property) => property.name === 'provider')!.options).toContainEqual(expect.objectContaining({ value: 'chatModel', name: 'Chat Model (Connected Sub-Node)' }));
		expect(agentProperties.find((property) => property.name === 'chatModelNotice')!.displayOptions).toEqual({ show: { provider: ['chatModel'] } });
	});
});

describe('a run through a connected Chat Model sub-node', () => {
	it('offers the tools through bindTools, pauses for review, and resumes with the sub-node model given after a restart', async () => {
		const before = chatModel([toolCall('call_1', { city: 'Lisbon' })], { name: 'gpt-4.1-mini' });
		const tool = weatherTool();
		const first = fakeContext({ items: [{ chatInput: 'Weather in Lisbon?' }], model: before, tools: [tool], modelNode: 'OpenAI Chat Model' });
		const [done, needsApproval] = await run(first);
		expect(done).toEqual([]);
		expect(first.inputReads).toContain('ai_languageModel');
		expect(before.bound).toHaveLength(1);
		expect(before.bound[0].tools).toEqual([
			{ type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: expect.objectContaining({ type: 'object', required: ['city'] }) } },
		]);
		expect(before.calls[0].messages).toEqual([
			{ role: 'system', content: 'Be brief.' },
			{ role: 'user', content: 'Weather in Lisbon?' },
		]);
		// Nothing runs unreviewed: the n8n tool's call waits for a person.
		expect(tool.calls).toEqual([]);
		expect(needsApproval).toHaveLength(1);
		const request = needsApproval[0].json as Json;
		expect(request.calls).toEqual([expect.objectContaining({ tool: 'get_weather', arguments: { city: 'Lisbon' } })]);

		// A restart: the paused run comes back as JSON, and the sub-node supplies a new model object.
		const stored = JSON.parse(JSON.stringify(first.nodeContext));
		const after = chatModel([finalAnswer('Sunny in Lisbon, 21 °C.')], { name: 'gpt-4.1-mini' });
		const decision = signedDecision(
			{ kind: APPROVAL_DECISION_KIND, approvalId: request.approvalId, decidedAt: new Date().toISOString(), reviewer: 'Ana', decisions: [{ callId: 'call_1', argsHash: request.calls[0].argsHash, decision: 'approve' }] },
			reviewTokenInUrl(request.reviewUrl) as string,
		);
		const second = fakeContext({ items: [decision], model: after, tools: [tool], nodeContext: stored, modelNode: 'OpenAI Chat Model' });
		const [finished, again] = await run(second);
		expect(again).toEqual([]);
		expect(tool.calls).toEqual([{ city: 'Lisbon' }]);
		expect(after.calls).toHaveLength(1);
		expect(after.calls[0].messages.slice(1)).toEqual([
			{ role: 'user', content: 'Weather in Lisbon?' },
			{ role: 'assistant', content: '', tool_calls: [{ id: 'call_1', name: 'get_weather', args: { city: 'Lisbon' }, type: 'tool_call' }] },
			{ role: 'tool', content: 'sunny, 21 °C', tool_call_id: 'call_1' },
		]);
		const json = finished[0].json as Json;
		expect(json).toMatchObject({ output: 'Sunny in Lisbon, 21 °C.', status: 'completed', provider: 'chatModel', model: 'gpt-4.1-mini' });
		// Token usage of both model calls, as the built-in adapters report it (cache reads split out).
		expect(json.usage).toEqual({ inputTokens: 80, outputTokens: 16, cacheReadTokens: 20, cacheWriteTokens: 0 });
		expect(json.toolCalls).toEqual([expect.objectContaining({ tool: 'get_weather', review: expect.objectContaining({ decision: 'approved', reviewer: 'Ana' }) })]);
	});

	it('takes the model from an array response and names the run after the sub-node when the model names none', async () => {
		const model = chatModel([finalAnswer('Hello.')]);
		const [done] = await run(fakeContext({ items: [{ chatInput: 'hi' }], model: [model], modelNode: 'Ollama Chat Model' }));
		expect(done[0].json).toMatchObject({ output: 'Hello.', model: 'Ollama Chat Model', provider: 'chatModel' });
	});

	it('streams through the model’s stream when n8n streams the response', async () => {
		const model = chatModel([], {
			name: 'claude-test',
			chunks: [[{ content: 'Hel' }, { content: 'lo.', response_metadata: { stop_reason: 'end_turn' }, usage_metadata: { input_tokens: 5, output_tokens: 2, total_tokens: 7 } }]],
		});
		const context = fakeContext({ items: [{ chatInput: 'hi' }], model, streaming: true });
		const [done] = await run(context);
		expect(model.calls.map((call) => call.streamed)).toEqual([true]);
		expect(context.chunks).toEqual([{ type: 'begin' }, { type: 'item', content: 'Hel' }, { type: 'item', content: 'lo.' }, { type: 'end' }]);
		expect(done[0].json).toMatchObject({ output: 'Hello.', usage: { inputTokens: 5, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 } });
	});

	it('an answer naming an unknown tool with non-JSON arguments goes back to the model as an error, and nothing runs', async () => {
		const tool = weatherTool();
		const model = chatModel([
			{ content: '', additional_kwargs: { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'delete_everything', arguments: '{not json' } }] }, response_metadata: { finish_reason: 'tool_calls' } },
			finalAnswer('Sorry.'),
		]);
		const [done, needsApproval] = await run(fakeContext({ items: [{ chatInput: 'go' }], model, tools: [tool] }));
		expect(needsApproval).toEqual([]);
		expect(tool.calls).toEqual([]);
		const toolMessage = model.calls[1].messages.find((message) => message.role === 'tool');
		expect(toolMessage).toMatchObject({ tool_call_id: 'c1', content: expect.stringMatching(/^Error: .*delete_everything/) });
		expect(done[0].json).toMatchObject({ output: 'Sorry.', status: 'completed' });
	});

	it('a model that throws fails the item with its message (Continue On Fail: an error item)', async () => {
		const model = chatModel([new Error('429 Rate limit reached for gpt-4.1-mini')]);
		const [done] = await run(fakeContext({ items: [{ chatInput: 'hi' }], model, continueOnFail: true }));
		expect(done[0].json.error).toMatch(/429 Rate limit reached/);
	});
});

describe('beside the built-in providers', () => {
	it('a built-in provider never asks n8n for the Chat Model input (n8n throws for an input the node does not have)', async () => {
		const context = fakeContext({ items: [{ chatInput: 'hi' }], model: chatModel([finalAnswer('never')]), params: { provider: 'anthropic', model: 'claude-test' }, continueOnFail: true });
		const [done] = await run(context);
		expect(context.inputReads).not.toContain('ai_languageModel');
		// The fake context refuses credential reads: the built-in provider did read its credential.
		expect(done[0].json.error).toMatch(/reads no credential/);
	});

	it('the model list is empty for a Chat Model sub-node (it picks its own model) and reads no credential', async () => {
		const context = {
			getNodeParameter: (name: string, fallback: unknown) => (name === 'provider' ? 'chatModel' : fallback),
			getCredentials: async () => {
				throw new Error('no credential');
			},
		};
		await expect(new McpAgent().methods.listSearch.searchModels.call(context as never)).resolves.toEqual({ results: [] });
	});

	it('a run paused with the Chat Model provider and resumed after a switch to a built-in one is refused, saying why', async () => {
		const first = fakeContext({ items: [{ chatInput: 'Weather in Lisbon?' }], model: chatModel([toolCall('call_1', { city: 'Lisbon' })]) });
		const [, needsApproval] = await run(first);
		const request = needsApproval[0].json as Json;
		const decision = signedDecision(
			{ kind: APPROVAL_DECISION_KIND, approvalId: request.approvalId, decidedAt: new Date().toISOString(), reviewer: 'Ana', decisions: [{ callId: 'call_1', argsHash: request.calls[0].argsHash, decision: 'approve' }] },
			reviewTokenInUrl(request.reviewUrl) as string,
		);
		const context = fakeContext({ items: [decision], model: undefined, nodeContext: first.nodeContext, params: { provider: 'openaiChat', model: 'gpt-test' }, continueOnFail: true });
		context.getCredentials = async () => ({ apiKey: 'sk-test' }) as never;
		const [done] = await run(context);
		expect(done[0].json.error).toMatch(/paused while the Agent's Provider was Chat Model \(Connected Sub-Node\); it is now OpenAI/);
	});
});

describe('a missing or unusable Chat Model sub-node is refused before anything runs', () => {
	it('nothing connected: a NodeOperationError saying which input to connect', async () => {
		const tool = weatherTool();
		const context = fakeContext({ items: [{ chatInput: 'hi' }], model: undefined, tools: [tool] });
		const failure = await run(context).then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(failure).toBeInstanceOf(NodeOperationError);
		expect((failure as NodeOperationError).message).toBe('No Chat Model sub-node is connected to the "Chat Model" input');
		expect((failure as NodeOperationError).description).toMatch(/connect one of n8n's Chat Model nodes/);
	});

	it('a model without bindTools: the error names the sub-node; with Continue On Fail every item gets it', async () => {
		const noTools = { model: 'llama2', invoke: async () => ({ content: 'hi' }) };
		const context = fakeContext({ items: [{ chatInput: 'a' }, { chatInput: 'b' }], model: noTools, modelNode: 'Ollama Model', continueOnFail: true });
		const [done, needsApproval] = await run(context);
		expect(needsApproval).toEqual([]);
		expect(done.map((item) => item.json.error)).toEqual([
			'The Chat Model sub-node "Ollama Model" gives a model that cannot call tools',
			'The Chat Model sub-node "Ollama Model" gives a model that cannot call tools',
		]);
		expect(done[0].json.details).toMatch(/must support tool calling/);
	});

	it('something that is no chat model at all is refused the same way, without throwing anything else', async () => {
		const failure = await run(fakeContext({ items: [{ chatInput: 'a' }], model: 'not a model', modelNode: 'Broken' })).then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(failure).toBeInstanceOf(NodeOperationError);
		expect((failure as Error).message).toMatch(/"Broken" gives a model that cannot call tools/);
	});
});

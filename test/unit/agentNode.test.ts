/**
 * The MCP Agent node's glue with mocked n8n functions: MCP Server sub-nodes and n8n tool nodes on
 * one Tools input, a Memory sub-node, Chat Trigger items, streaming, tool calls shown on their
 * sub-node and in n8n's log, every resume route, and provider errors as NodeApiError.
 */
import { z } from 'zod';
import { NodeApiError } from 'n8n-workflow';
import { executeAgent, collectToolSources } from '../../nodes/McpAgent/execute';
import { subNodeCallLog } from '../../nodes/McpAgent/subNodeCallLog';
import { SERVER_HANDLE_KIND, type ServerHandle } from '../../lib/agent/serverHandle';
import { buildCatalog } from '../../lib/agent/catalog';
import { APPROVAL_DECISION_KIND } from '../../lib/approvals/approvalRequest';
import { reviewTokenInUrl } from '../../lib/approvals/reviewToken';
import { signedDecision } from '../support/approvalFixtures';
import { ProviderError } from '../../lib/providers/errors';
import type { ModelClient } from '../../lib/providers/types';
import type { ChatMemory } from '../../lib/agent/memory';
import { agentProperties } from '../../nodes/McpAgent/description';

// The model: a script of Anthropic Messages responses, recorded requests.
let model: ModelClient & { requests: Array<Record<string, unknown>> };
jest.mock('../../lib/providers/clients', () => ({ createModelClient: () => model }));

// The MCP side: one fake server "Files" with a read-only, trusted tool; the real catalog code.
const mcpCalls: Array<{ name: string; args: unknown }> = [];
const mcpOptions: Array<Record<string, unknown>> = [];
let serversClosed = 0;
/** Checks of the fake server's long task ('/long'): it still runs on the first, completes on the second. */
let taskChecks = 0;
jest.mock('../../lib/agent/servers', () => {
	const actual = jest.requireActual('../../lib/agent/servers');
	return {
		...actual,
		connectServers: async (handles: Array<{ name: string }>, options: unknown) => {
			const connection = {
				callToolInteractive: async (name: string, args: unknown, options: Record<string, unknown> = {}) => {
					mcpCalls.push({ name, args });
					mcpOptions.push(options);
					if ((args as { path?: string }).path === '/slow-secret') {
						const onProgress = options.onProgress as (p: unknown) => void;
						for (let i = 1; i <= 50; i++) onProgress({ progress: i, total: 50, message: `scanning ${i}` });
					}
					if ((args as { path?: string }).path === '/big') return { kind: 'result', result: { content: [{ type: 'text', text: `big:${'x'.repeat(600)}:end` }] } };
					if ((args as { path?: string }).path === '/denied') return { kind: 'result', result: { isError: true, content: [{ type: 'text', text: 'permission denied' }] } };
					const tasks = options.tasks as { handOffAfterMs?: number; onStatus?: (state: unknown) => void } | undefined;
					if ((args as { path?: string }).path === '/long' && tasks?.handOffAfterMs !== undefined) {
						tasks.onStatus?.({ taskId: 'task-9', status: 'working', ttl: null, createdAt: '', lastUpdatedAt: '' });
						return { kind: 'task_running', task: { taskId: 'task-9', protocol: '2026-07-28', status: 'working', pollIntervalMs: 2000, deadline: Date.now() + 600_000, limit: 'Max Task Wait (600 s)' } };
					}
					return { kind: 'result', result: { content: [{ type: 'text', text: `listing of ${JSON.stringify(args)}` }] } };
				},
				resumeTask: async (_name: string, task: Record<string, unknown>, options: { tasks?: { onStatus?: (state: unknown) => void } } = {}) => {
					taskChecks++;
					const status = taskChecks < 2 ? 'working' : 'completed';
					options.tasks?.onStatus?.({ taskId: task.taskId, status, statusMessage: `check ${taskChecks}`, ttl: null, createdAt: '', lastUpdatedAt: '' });
					if (status === 'working') return { kind: 'task_running', task: { ...task, statusMessage: `check ${taskChecks}` } };
					return { kind: 'result', result: { content: [{ type: 'text', text: 'the long listing' }] } };
				},
				close: async () => undefined,
			};
			const servers = handles.map((h) => ({ id: h.name, name: h.name, tools: [{ name: 'list_files', inputSchema: { type: 'object', properties: { path: { type: 'string' } } }, annotations: { readOnlyHint: true } }], trustAnnotations: true }));
			const { tools, withheld } = buildCatalog(servers, options as never);
			return { connections: new Map(handles.map((h) => [h.name, connection])), catalog: tools, outputSchemas: new Map(), withheld, instructions: [], relist: async () => undefined, close: async () => void serversClosed++, durable: new Set(handles.map((h) => h.name)) };
		},
	};
});

type Reply = Record<string, unknown>;
function scriptModel(replies: Array<Reply | ((body: Reply) => Reply) | Error>, streamed?: string[][]): void {
	const requests: Array<Record<string, unknown>> = [];
	let index = 0;
	const next = (body: Record<string, unknown>) => {
		requests.push(JSON.parse(JSON.stringify(body)));
		const reply = replies[index++];
		if (reply instanceof Error) throw reply;
		if (!reply) throw new Error(`no scripted reply for request ${index}`);
		return typeof reply === 'function' ? reply(body) : reply;
	};
	model = {
		requests,
		send: async (body) => next(body),
		stream: async (body, onText) => {
			const at = index;
			for (const delta of streamed?.[at] ?? []) onText(delta);
			return next(body);
		},
		listModels: async () => [],
	};
}

const usage = { input_tokens: 10, output_tokens: 5 };
const toolUse = (calls: Array<{ id: string; name: string; input: unknown }>): Reply => ({ content: calls.map((c) => ({ type: 'tool_use', ...c })), stop_reason: 'tool_use', usage });
const answer = (text: string): Reply => ({ content: [{ type: 'text', text }], stop_reason: 'end_turn', usage });

/** n8n's Code Tool as supplyData returns it: it logs itself on its node when invoked. */
function codeTool(subNode: FakeSubNode) {
	const calls: unknown[] = [];
	const schema = z.object({ expression: z.string() });
	return {
		calls,
		name: 'calculate',
		description: 'Evaluates an arithmetic expression',
		schema,
		metadata: { sourceNodeName: 'Code Tool' },
		async invoke(input: unknown) {
			const query = schema.parse(input);
			const { index } = subNode.addInputData('ai_tool', [[{ json: { query } }]]);
			calls.push(query);
			const response = '42';
			subNode.addOutputData('ai_tool', index, [[{ json: { response } }]]);
			return response;
		},
	};
}

/** A sub-node's supplyData context, recording what reaches the execution view. */
interface FakeSubNode {
	runs: Array<{ input?: unknown; output?: unknown; error?: string }>;
	addInputData(type: string, data: unknown): { index: number };
	addOutputData(type: string, index: number, data: unknown): void;
	getNode(): { name: string };
}
function fakeSubNode(name: string): FakeSubNode {
	const runs: FakeSubNode['runs'] = [];
	return {
		runs,
		addInputData: (_type, data) => {
			runs.push({ input: data });
			return { index: runs.length - 1 };
		},
		addOutputData: (_type, index, data) => {
			if (data instanceof Error) runs[index].error = data.message;
			else runs[index].output = data;
		},
		getNode: () => ({ name, type: 'x', typeVersion: 1, parameters: {}, id: name, position: [0, 0] }) as never,
	};
}

function fakeMemory(): ChatMemory & { saves: unknown[]; loads: number } {
	const messages: unknown[] = [];
	const memory = {
		saves: [] as unknown[],
		loads: 0,
		async loadMemoryVariables() {
			memory.loads++;
			return { chat_history: [...messages] };
		},
		async saveContext(input: Record<string, unknown>, output: Record<string, unknown>) {
			memory.saves.push({ input, output });
			messages.push({ getType: () => 'human', content: input.input }, { getType: () => 'ai', content: output.output });
		},
	};
	return memory;
}

interface Setup {
	items: Array<Record<string, unknown>>;
	tools: unknown[];
	memory?: ChatMemory;
	params?: Record<string, unknown>;
	nodeContext?: Record<string, unknown>;
	streaming?: boolean;
	continueOnFail?: boolean;
	/** n8n's execution cancel signal (the context has no getExecutionCancelSignal without it, as on older n8n). */
	cancelSignal?: AbortSignal;
	/** The nodes on the tools input, as getParentNodes lists them (the context has no getParentNodes without it). */
	toolNodes?: Array<{ name: string; disabled?: boolean }>;
	/**
	 * The node this run's input came from, its parents on the main input (getInputSourceData,
	 * getParentNodes) and its operation (default: n8n's send-and-wait, as Slack's "Send and Wait").
	 */
	answeredFrom?: { node: string; parents: string[]; operation?: string; followsAgent?: boolean };
	/** The workflow's execution order setting (default n8n's 'v1'; null: a workflow without the setting). */
	executionOrder?: 'v0' | 'v1' | null;
	/** Each item's pairedItem index (default: its own position). */
	pairedItems?: number[];
	/** n8n's id of the execution (the context has no getExecutionId without it, as in older tests). */
	executionId?: string;
	/** The MCP Approval node after this Agent, with its "Require n8n Login" value (getChildNodes); null: no getChildNodes. */
	approvalNode?: { requireLogin?: unknown } | null;
}

const DEFAULT_USER_MESSAGE = agentProperties.find((property) => property.name === 'userMessage')!.default;

/** A decision item as MCP Approval signs it for the review link of this "Needs Approval" item. */
function signedFor<T extends object>(request: { reviewUrl?: unknown }, item: T): T {
	return signedDecision(item, reviewTokenInUrl(request.reviewUrl) as string);
}

function fakeContext(setup: Setup) {
	const chunks: Array<{ type: string; content?: string }> = [];
	const logs: string[] = [];
	const parameterReads: Array<[string, number]> = [];
	const params: Record<string, unknown> = { provider: 'anthropic', model: 'claude-test', systemPrompt: 'Be brief.', userMessage: undefined, requireApprovalFor: 'notReadOnly', options: {}, approvalOptions: {}, ...setup.params };
	// The node's parameters as n8n holds them: unset ones have their default.
	const nodeParameters = { ...params, userMessage: params.userMessage ?? DEFAULT_USER_MESSAGE };
	const nodeContext = setup.nodeContext ?? {};
	const items = setup.items.map((json, i) => ({ json, pairedItem: { item: setup.pairedItems?.[i] ?? i } }));
	// Decision items come straight from an MCP Approval node, unless the test says where answers come from.
	const fromApproval = !setup.answeredFrom && setup.items.some((json) => json.kind === APPROVAL_DECISION_KIND);
	const context = {
		chunks,
		logs,
		nodeContext,
		parameterReads,
		getInputData: () => items,
		getNodeParameter: (name: string, index: number, fallback?: unknown) => {
			parameterReads.push([name, index]);
			if (name === 'userMessage' && params.userMessage === undefined) {
				// n8n's evaluation of the default expression.
				const json = items[index].json as Record<string, any>;
				return json.chatInput ?? json.message ?? json.body?.message;
			}
			return name in params && params[name] !== undefined ? params[name] : fallback;
		},
		getInputConnectionData: async (type: string) => (type === 'ai_tool' ? setup.tools : setup.memory),
		...(setup.toolNodes || setup.answeredFrom || fromApproval
			? {
					getParentNodes: (node: string, options: { connectionType?: string; depth?: number; includeNodeParameters?: boolean }) => {
						if (node === 'MCP Agent' && fromApproval && options.connectionType === 'main' && options.depth === 1) {
							return [{ name: 'MCP Approval', type: 'mcpApproval', typeVersion: 1, disabled: false }];
						}
						if (node === 'MCP Agent' && options.connectionType === 'ai_tool' && options.depth === 1 && setup.toolNodes) {
							return setup.toolNodes.map((n) => ({ name: n.name, type: 'x', typeVersion: 1, disabled: n.disabled ?? false }));
						}
						if (node === setup.answeredFrom?.node && options.connectionType === 'main' && options.depth === 1) {
							return setup.answeredFrom.parents.map((name) => ({ name, type: 'x', typeVersion: 1, disabled: false }));
						}
						if (node === setup.answeredFrom?.node && options.connectionType === 'main' && options.depth === -1) {
							// Every ancestor: the answering node follows this Agent (its "Needs Approval" output), unless the test says not.
							const ancestors = setup.answeredFrom.followsAgent === false ? setup.answeredFrom.parents : [...new Set([...setup.answeredFrom.parents, 'MCP Agent'])];
							return ancestors.map((name) => ({ name, type: 'x', typeVersion: 1, disabled: false }));
						}
						if (node === 'MCP Agent' && setup.answeredFrom && options.connectionType === 'main' && options.depth === 1) {
							const parameters = { operation: setup.answeredFrom.operation ?? 'sendAndWait' };
							return [{ name: setup.answeredFrom.node, type: 'x', typeVersion: 1, disabled: false, ...(options.includeNodeParameters ? { parameters } : {}) }];
						}
						return [];
					},
				}
			: {}),
		...(setup.answeredFrom ? { getInputSourceData: () => ({ previousNode: setup.answeredFrom!.node }) } : {}),
		...(fromApproval ? { getInputSourceData: () => ({ previousNode: 'MCP Approval' }) } : {}),
		...(setup.approvalNode === null
			? {}
			: {
					getChildNodes: () =>
						setup.approvalNode
							? [{ name: 'MCP Approval', type: 'mcpApproval', typeVersion: 1, disabled: false, parameters: setup.approvalNode.requireLogin === undefined ? {} : { requireLogin: setup.approvalNode.requireLogin } }]
							: [],
				}),
		...(setup.cancelSignal ? { getExecutionCancelSignal: () => setup.cancelSignal } : {}),
		...(setup.executionId ? { getExecutionId: () => setup.executionId } : {}),
		// n8n's default for new workflows.
		getWorkflowSettings: () => (setup.executionOrder === null ? {} : { executionOrder: setup.executionOrder ?? 'v1' }),
		getNode: () => ({ name: 'MCP Agent', type: 'mcpAgent', typeVersion: 1, parameters: nodeParameters, id: '1', position: [0, 0] }),
		getWorkflow: () => ({ id: 'w1', name: 'Chat agent' }),
		getMode: () => 'webhook',
		getContext: () => nodeContext,
		getCredentials: async () => ({ apiKey: 'sk-test' }),
		evaluateExpression: () => 'http://localhost:5678/webhook-waiting/7?signature=s',
		continueOnFail: () => setup.continueOnFail === true,
		isStreaming: () => setup.streaming === true,
		sendChunk: (type: string, _item: number, content?: string) => chunks.push({ type, ...(content !== undefined ? { content } : {}) }),
		logger: { info: (message: string) => logs.push(message), warn: (message: string) => logs.push(`warn ${message}`), debug: () => undefined, error: () => undefined },
	};
	return context;
}

const run = (context: ReturnType<typeof fakeContext>) => executeAgent.call(context as never);

function filesServer(log?: FakeSubNode): ServerHandle {
	return { kind: SERVER_HANDLE_KIND, name: 'Files', config: {} as never, include: [], exclude: [], ...(log ? { callLog: subNodeCallLog(log as never) } : {}) };
}

beforeEach(() => {
	mcpCalls.length = 0;
	serversClosed = 0;
});


/** A message's text as sent: a plain string, or the one text block Prompt Caching's moving breakpoint makes of it. */
function textOf(content: unknown): unknown {
	if (!Array.isArray(content) || content.length !== 1 || content[0]?.type !== 'text') return content;
	return content[0].text;
}

describe('MCP Server sub-nodes and n8n tools on one Tools input', () => {
	it('offers both; the MCP read-only call runs, the Code Tool call waits for review, then runs after approval', async () => {
		const codeNode = fakeSubNode('Code Tool');
		const filesNode = fakeSubNode('Files');
		const code = codeTool(codeNode);
		scriptModel([
			toolUse([
				{ id: 'c1', name: 'list_files', input: { path: '/tmp' } },
				{ id: 'c2', name: 'calculate', input: { expression: '6*7' } },
			]),
			answer('The answer is 42.'),
		]);
		const first = fakeContext({ items: [{ chatInput: 'compute', sessionId: 's1' }], tools: [filesServer(filesNode), code] });
		const [done, needsApproval] = await run(first);
		expect(model.requests[0].tools).toEqual([expect.objectContaining({ name: 'calculate', input_schema: expect.objectContaining({ required: ['expression'] }) }), expect.objectContaining({ name: 'list_files' })]);
		expect(done).toEqual([]);
		expect(mcpCalls).toEqual([{ name: 'list_files', args: { path: '/tmp' } }]);
		expect(code.calls).toEqual([]);
		expect(needsApproval).toHaveLength(1);
		const request = needsApproval[0].json as Record<string, any>;
		expect(request.calls).toEqual([expect.objectContaining({ tool: 'calculate', server: 'Code Tool', source: 'n8n' })]);
		expect(request.output).toMatch(/Waiting for a person to review a tool call/);
		expect(request.output).not.toContain('webhook-waiting');

		// Visible calls: the MCP call on its MCP Server sub-node; one log line per call, no arguments.
		expect(filesNode.runs).toEqual([{ input: [[{ json: { tool: 'list_files', arguments: { path: '/tmp' } } }]], output: [[{ json: { tool: 'list_files', response: 'listing of {"path":"/tmp"}', durationMs: expect.any(Number) } }]] }]);
		// Outside n8n there is no grant store: the Agent says so once and asks (fail closed).
		expect(first.logs.filter((line) => !/standing approvals could not be read/.test(line))).toEqual([expect.stringMatching(/^MCP Agent "MCP Agent": tool list_files on Files \(allowed by Require Approval For\): ok in \d+ ms$/)]);

		const decision = signedFor(request, { kind: APPROVAL_DECISION_KIND, approvalId: request.approvalId, decidedAt: new Date().toISOString(), reviewer: 'Ana', decisions: [{ callId: 'c2', argsHash: request.calls[0].argsHash, decision: 'approve' }] });
		const second = fakeContext({ items: [decision], tools: [filesServer(filesNode), code], nodeContext: first.nodeContext });
		const [finished, again] = await run(second);
		expect(again).toEqual([]);
		expect(code.calls).toEqual([{ expression: '6*7' }]);
		expect(codeNode.runs).toEqual([{ input: [[{ json: { query: { expression: '6*7' } } }]], output: [[{ json: { response: '42' } }]] }]);
		expect(finished[0].json).toMatchObject({ output: 'The answer is 42.', text: 'The answer is 42.', status: 'completed' });
		expect((finished[0].json.toolCalls as Array<Record<string, unknown>>).map((c) => [c.server, c.tool, (c.review as { decision?: string } | undefined)?.decision])).toEqual([
			['Files', 'list_files', undefined],
			['Code Tool', 'calculate', 'approved'],
		]);
		expect(second.logs).toEqual([expect.stringMatching(/tool calculate on Code Tool \(approved by Ana at [^)]+\): ok in \d+ ms/)]);
	});

	it('Full Tool Results in Output: the item carries the untrimmed result, the model and the stored run the trimmed one', async () => {
		scriptModel([toolUse([{ id: 'b1', name: 'list_files', input: { path: '/big' } }]), answer('big it is')]);
		const options = { maxToolResultChars: 100, fullToolResults: true };
		const [done] = await run(fakeContext({ items: [{ chatInput: 'read the big one' }], tools: [filesServer()], params: { options } }));
		const [entry] = done[0].json.toolCalls as Array<Record<string, unknown>>;
		expect(entry.result).toBe(`big:${'x'.repeat(600)}:end`);
		expect(entry.resultTrimmed).toEqual({ shownChars: 100, totalChars: 608 });
		const sent = JSON.stringify(model.requests[1].messages);
		expect(sent).toContain('you see the first 100 of 608 characters');
		expect(sent).not.toContain(':end');
		expect(JSON.stringify(done[0].json.transcript)).not.toContain(':end');

		// Off (the default): no result on the entry, the same trimmed copy for the model.
		scriptModel([toolUse([{ id: 'b1', name: 'list_files', input: { path: '/big' } }]), answer('big it is')]);
		const [plain] = await run(fakeContext({ items: [{ chatInput: 'read the big one' }], tools: [filesServer()], params: { options: { maxToolResultChars: 100 } } }));
		expect((plain[0].json.toolCalls as Array<Record<string, unknown>>)[0]).not.toHaveProperty('result');
	});

	it('Full Tool Results in Output across a pause: a call that ran before it says its full text was not kept', async () => {
		const code = codeTool(fakeSubNode('Code Tool'));
		scriptModel([toolUse([{ id: 'c1', name: 'list_files', input: { path: '/big' } }, { id: 'c2', name: 'calculate', input: { expression: '6*7' } }]), answer('42')]);
		const params = { options: { maxToolResultChars: 100, fullToolResults: true } };
		const first = fakeContext({ items: [{ chatInput: 'compute' }], tools: [filesServer(), code], params });
		const [, needsApproval] = await run(first);
		const request = needsApproval[0].json as Record<string, any>;
		expect(JSON.stringify(first.nodeContext)).not.toContain(':end');
		const decision = signedFor(request, { kind: APPROVAL_DECISION_KIND, approvalId: request.approvalId, decidedAt: new Date().toISOString(), reviewer: 'Ana', decisions: [{ callId: 'c2', argsHash: request.calls[0].argsHash, decision: 'approve' }] });
		const [finished] = await run(fakeContext({ items: [decision], tools: [filesServer(), code], nodeContext: first.nodeContext, params }));
		const entries = finished[0].json.toolCalls as Array<Record<string, unknown>>;
		expect(entries.map((e) => [e.tool, e.result, typeof e.resultNotKept])).toEqual([
			['list_files', undefined, 'string'],
			['calculate', '42', 'undefined'],
		]);
	});

	it('Tool Loading "Search When More Than N Tools": the model searches, the found tool is sent from the next turn and runs', async () => {
		scriptModel([toolUse([{ id: 's1', name: 'search_tools', input: { query: 'list files' } }]), toolUse([{ id: 'c1', name: 'list_files', input: { path: '/tmp' } }]), answer('listed')]);
		const [done] = await run(fakeContext({ items: [{ chatInput: 'list /tmp' }], tools: [filesServer()], params: { options: { toolLoading: 'search', toolSearchThreshold: 0, toolSearchWith: 'package' } } }));
		const sent = model.requests.map((body) => (body.tools as Array<{ name: string }>).map((tool) => tool.name));
		expect(sent).toEqual([['search_tools'], ['search_tools', 'list_files'], ['search_tools', 'list_files']]);
		expect(mcpCalls).toEqual([{ name: 'list_files', args: { path: '/tmp' } }]);
		expect(done[0].json).toMatchObject({ status: 'completed', toolSearch: { searchTool: 'search_tools', alwaysLoaded: [], loaded: ['list_files'] } });
		expect((done[0].json.toolCalls as Array<Record<string, unknown>>).map((c) => [c.tool, c.builtIn])).toEqual([
			['search_tools', 'tool_search'],
			['list_files', undefined],
		]);

		// The default (All Tools) sends every tool from the first turn, and no search tool.
		scriptModel([answer('hi')]);
		const [plain] = await run(fakeContext({ items: [{ chatInput: 'hi' }], tools: [filesServer()] }));
		expect((model.requests[0].tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual(['list_files']);
		expect(plain[0].json).not.toHaveProperty('toolSearch');
	});

	it('Tool Loading "Search When More Than N Tools" on Anthropic by default: the provider\'s own search, every other tool deferred, its search logged', async () => {
		const search = { type: 'server_tool_use', id: 'srv1', name: 'tool_search_tool_bm25', input: { query: 'list files' } };
		const result = { type: 'tool_search_tool_result', tool_use_id: 'srv1', content: { type: 'tool_search_tool_search_result', tool_references: [{ type: 'tool_reference', tool_name: 'list_files' }] } };
		scriptModel([{ content: [search, result, { type: 'tool_use', id: 'c1', name: 'list_files', input: { path: '/tmp' } }], stop_reason: 'tool_use', usage } as Reply, answer('listed')]);
		const [done] = await run(fakeContext({ items: [{ chatInput: 'list /tmp' }], tools: [filesServer()], params: { options: { toolLoading: 'search', toolSearchThreshold: 0 } } }));
		const sent = model.requests.map((body) => JSON.stringify(body.tools));
		expect(JSON.parse(sent[0])).toEqual([{ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25', cache_control: { type: 'ephemeral' } }, expect.objectContaining({ name: 'list_files', defer_loading: true })]);
		expect(sent[1]).toBe(sent[0]);
		expect(JSON.stringify(model.requests[1].messages)).toContain('"tool_search_tool_result"');
		expect(mcpCalls).toEqual([{ name: 'list_files', args: { path: '/tmp' } }]);
		expect(done[0].json).toMatchObject({ status: 'completed', toolSearch: { searchTool: 'tool_search_tool_bm25', searchWith: 'provider', alwaysLoaded: [], loaded: ['list_files'] } });
		expect((done[0].json.toolCalls as Array<Record<string, unknown>>).map((c) => [c.tool, c.builtIn])).toEqual([
			['tool_search_tool_bm25', 'provider_tool_search'],
			['list_files', undefined],
		]);
	});

	it('Tool search across a pause: a search-loaded n8n tool waits for review, and the resumed run sends the same tools', async () => {
		const code = codeTool(fakeSubNode('Code Tool'));
		scriptModel([
			toolUse([{ id: 's1', name: 'search_tools', input: { query: 'arithmetic expression', limit: 1 } }]),
			toolUse([{ id: 'c1', name: 'calculate', input: { expression: '6*7' } }]),
			answer('42'),
		]);
		const params = { options: { toolLoading: 'search', toolSearchThreshold: 1, toolSearchWith: 'package' } };
		const first = fakeContext({ items: [{ chatInput: 'compute' }], tools: [filesServer(), code], params });
		const [, needsApproval] = await run(first);
		expect(code.calls).toEqual([]);
		const request = needsApproval[0].json as Record<string, any>;
		expect(request.calls).toEqual([expect.objectContaining({ tool: 'calculate', source: 'n8n' })]);
		const decision = signedFor(request, { kind: APPROVAL_DECISION_KIND, approvalId: request.approvalId, decidedAt: new Date().toISOString(), reviewer: 'Ana', decisions: [{ callId: 'c1', argsHash: request.calls[0].argsHash, decision: 'approve' }] });
		const [finished] = await run(fakeContext({ items: [decision], tools: [filesServer(), code], nodeContext: first.nodeContext, params }));
		expect(code.calls).toEqual([{ expression: '6*7' }]);
		const sent = model.requests.map((body) => JSON.stringify(body.tools));
		expect(JSON.parse(sent[0]).map((tool: { name: string }) => tool.name)).toEqual(['search_tools']);
		expect(JSON.parse(sent[1]).map((tool: { name: string }) => tool.name)).toEqual(['search_tools', 'calculate']);
		// The request after the resume (another execution, the state read back from the store) carries the same bytes.
		expect(sent[2]).toBe(sent[1]);
		expect(finished[0].json).toMatchObject({ status: 'completed', toolSearch: { loaded: ['calculate'] } });
	});

	it("stops a run when n8n cancels the execution (the editor's Stop)", async () => {
		scriptModel([answer('never sent')]);
		const cancel = new AbortController();
		cancel.abort();
		const [done] = await run(fakeContext({ items: [{ chatInput: 'hello' }], tools: [codeTool(fakeSubNode('Code Tool'))], cancelSignal: cancel.signal, continueOnFail: true }));
		expect(done[0].json.error).toMatch(/execution was cancelled/);
	});

	it('works with n8n tools alone, and refuses what is neither', async () => {
		scriptModel([answer('hi')]);
		const [done] = await run(fakeContext({ items: [{ chatInput: 'hello' }], tools: [codeTool(fakeSubNode('Code Tool'))] }));
		expect(done[0].json.output).toBe('hi');
		await expect(collectToolSources(fakeContext({ items: [], tools: [{ something: 'else' }] }) as never)).rejects.toThrow(/neither an MCP Server sub-node nor an n8n tool/);
		await expect(collectToolSources(fakeContext({ items: [], tools: [] }) as never)).rejects.toThrow(/No tools connected/);
		const gate = { ...codeTool(fakeSubNode('x')), metadata: { sourceNodeName: 'Human Review', gatedToolNodeName: 'Code Tool' } };
		await expect(run(fakeContext({ items: [{ chatInput: 'x' }], tools: [gate] }))).rejects.toThrow(/human review tool nodes/);
	});

	it('names n8n tools without metadata.sourceNodeName (n8n 1.x) after the enabled node at the same position on the tools input', async () => {
		const bare = (name: string) => {
			const tool = codeTool(fakeSubNode(name));
			return { ...tool, name, metadata: undefined };
		};
		const kit = [bare('search'), bare('fetch')];
		const context = fakeContext({
			items: [],
			// n8n 1.x: one response per enabled node, in getParentNodes order; no metadata on the tools.
			tools: [filesServer(), bare('Code_Tool'), { tools: kit, getTools: () => kit }, [bare('a'), bare('b')]],
			toolNodes: [{ name: 'Files' }, { name: 'Code Tool' }, { name: 'Old Tool', disabled: true }, { name: 'Docs' }, { name: 'Pair' }],
		});
		const { handles, n8nTools } = await collectToolSources(context as never);
		expect(handles).toHaveLength(1);
		expect(n8nTools.map((s) => [s.node, s.tools.map((t) => t.name)])).toEqual([
			['Code Tool', ['Code_Tool']],
			['Docs', ['search', 'fetch']],
			['Pair', ['a', 'b']],
		]);
		// n8n 2.x's metadata wins; when the counts disagree, no position is trusted (the tool's name stays).
		const named = await collectToolSources(fakeContext({ items: [], tools: [codeTool(fakeSubNode('x'))], toolNodes: [{ name: 'Other' }] }) as never);
		expect(named.n8nTools.map((s) => s.node)).toEqual(['Code Tool']);
		const mismatch = await collectToolSources(fakeContext({ items: [], tools: [bare('Code_Tool')], toolNodes: [{ name: 'A' }, { name: 'B' }] }) as never);
		expect(mismatch.n8nTools.map((s) => s.node)).toEqual(['Code_Tool']);
	});

	it("refuses an n8n tool known by the name of an MCP Server sub-node, which would take that server's calls and their review", async () => {
		// n8n 1.x without a usable position: the tool is known by its own name, here the sub-node's.
		const impostor = { ...codeTool(fakeSubNode('x')), name: 'Files', metadata: undefined };
		await expect(collectToolSources(fakeContext({ items: [], tools: [filesServer(), impostor] }) as never)).rejects.toThrow(/known as "Files", the name of an MCP Server sub-node/);
		const named = { ...codeTool(fakeSubNode('x')), metadata: { sourceNodeName: 'Files' } };
		await expect(run(fakeContext({ items: [{ chatInput: 'x' }], tools: [filesServer(), named] }))).rejects.toThrow(/the name of an MCP Server sub-node/);
	});

	it("logs a call's progress throttled (first and last of a burst), never its arguments, and puts the last one into toolCalls", async () => {
		scriptModel([toolUse([{ id: 'c1', name: 'list_files', input: { path: '/slow-secret' } }]), answer('done')]);
		const context = fakeContext({ items: [{ chatInput: 'x' }], tools: [filesServer()] });
		mcpOptions.length = 0;
		const [done] = await run(context);
		expect(mcpOptions[0]).toMatchObject({ timeoutMs: 60_000, resetTimeoutOnProgress: true, onProgress: expect.any(Function) });
		const progressLines = context.logs.filter((line) => line.includes(' progress '));
		expect(progressLines).toEqual(['MCP Agent "MCP Agent": tool list_files on Files progress 1/50 (scanning 1)', 'MCP Agent "MCP Agent": tool list_files on Files progress 50/50 (scanning 50)']);
		expect(context.logs.join()).not.toContain('/slow-secret');
		expect((done[0].json.toolCalls as Array<Record<string, unknown>>)[0].progress).toEqual({ progress: 50, total: 50, message: 'scanning 50' });
	});

	it('shows an MCP error result as an error run on the sub-node; a call rejected before the server shows nothing', async () => {
		const filesNode = fakeSubNode('Files');
		scriptModel([toolUse([{ id: 'c1', name: 'list_files', input: { path: 3 } }, { id: 'c2', name: 'list_files', input: { path: '/denied' } }]), answer('done')]);
		const context = fakeContext({ items: [{ chatInput: 'x' }], tools: [filesServer(filesNode)] });
		await run(context);
		expect(mcpCalls).toEqual([{ name: 'list_files', args: { path: '/denied' } }]);
		expect(filesNode.runs).toEqual([{ input: [[{ json: { tool: 'list_files', arguments: { path: '/denied' } } }]], error: 'permission denied' }]);
		expect(context.logs).toEqual([expect.stringMatching(/tool list_files on Files \(allowed by Require Approval For\): error in \d+ ms/)]);
		expect(context.logs.join()).not.toContain('/denied');
	});
});

describe('resume routes', () => {
	async function paused(params: Record<string, unknown> = {}) {
		const code = codeTool(fakeSubNode('Code Tool'));
		const first = fakeContext({ items: [{ chatInput: 'add' }], tools: [code], params });
		const [, needsApproval] = await run(first);
		return { code, first, request: needsApproval[0].json as Record<string, any> };
	}

	it("n8n's Retry of the execution does not reuse its decision: the copy hands the request out again, and a new yes in the copy runs the call once", async () => {
		scriptModel([toolUse([{ id: 'c1', name: 'calculate', input: { expression: '1+1' } }]), answer('2'), answer('2')]);
		const code = codeTool(fakeSubNode('Code Tool'));
		const first = fakeContext({ items: [{ chatInput: 'add' }], tools: [code], executionId: '10' });
		const [, [request]] = await run(first);
		const decide = (json: Record<string, any>) =>
			signedFor(json, {
				kind: 'mcp-agent.approval-decision',
				approvalId: json.approvalId,
				reviewer: 'Ana',
				decidedAt: new Date().toISOString(),
				decisions: [{ callId: 'c1', argsHash: json.calls[0].argsHash, decision: 'approve' }],
			});
		// Execution 11 is a Retry of 10: n8n copied its data, the paused run and the decision included.
		const copy = structuredClone(first.nodeContext);
		const [finished, [again]] = await run(fakeContext({ items: [decide(request.json)], tools: [code], nodeContext: copy, executionId: '11' }));
		expect(code.calls).toEqual([]);
		expect(finished).toEqual([]);
		expect(again.json).toMatchObject({ approvalId: request.json.approvalId, notice: expect.stringContaining("n8n's Retry") });
		expect(again.json.reviewUrl).not.toBe(request.json.reviewUrl);
		// The yes given in the copy (for the request it handed out) runs the call there.
		const [[done]] = await run(fakeContext({ items: [decide(again.json)], tools: [code], nodeContext: copy, executionId: '11' }));
		expect(code.calls).toEqual([{ expression: '1+1' }]);
		expect(done.json.output).toBe('2');
		// The execution that asked first applies the yes given to it (n8n resumes it under its own id): two yeses, two runs.
		const [[own]] = await run(fakeContext({ items: [decide(request.json)], tools: [code], nodeContext: first.nodeContext, executionId: '10' }));
		expect(own.json.output).toBe('2');
		expect(code.calls).toHaveLength(2);
	});

	it('an item with data.approved from a node that is no send-and-wait node decides nothing while a run waits; with the review secret it does', async () => {
		scriptModel([toolUse([{ id: 'c1', name: 'calculate', input: { expression: '1+1' } }]), answer('2')]);
		const { code, first, request } = await paused();
		// An API's answer in a loop: { data: { approved: true } } through an HTTP Request node.
		const fromApi = { node: 'HTTP Request', parents: ['Loop Over Items'], operation: 'get' };
		const [finished, [again]] = await run(fakeContext({ items: [{ data: { id: 7, approved: true } }], tools: [code], nodeContext: first.nodeContext, answeredFrom: fromApi }));
		expect(code.calls).toEqual([]);
		expect(finished).toEqual([]);
		expect(again.json).toMatchObject({ approvalId: request.approvalId, notice: expect.stringContaining('not a send-and-wait node') });
		// A person's answer passed on by other nodes (an IF after the send-and-wait node) names the approval's secret.
		const reviewToken = new URL(String(again.json.reviewUrl)).searchParams.get('reviewToken');
		const [[done]] = await run(fakeContext({ items: [{ data: { approved: true, reviewToken } }], tools: [code], nodeContext: first.nodeContext, answeredFrom: { node: 'IF', parents: ['Slack'], operation: 'none' } }));
		expect(code.calls).toEqual([{ expression: '1+1' }]);
		expect(done.json.output).toBe('2');
	});

	it('a decision item from a Set node (Webhook → Set → Agent) decides nothing, proof or not: the call does not run and the request goes out again', async () => {
		scriptModel([toolUse([{ id: 'c1', name: 'calculate', input: { expression: '1+1' } }]), answer('2')]);
		const { code, first, request } = await paused();
		const decision = { kind: APPROVAL_DECISION_KIND, approvalId: request.approvalId, reviewer: 'Mallory', decidedAt: new Date().toISOString(), decisions: [{ callId: 'c1', argsHash: request.calls[0].argsHash, decision: 'approve' }] };
		const fromSet = { node: 'Set', parents: ['Webhook'], operation: 'none' };
		for (const item of [decision, signedFor(request, decision)]) {
			const [finished, [again]] = await run(fakeContext({ items: [item], tools: [code], nodeContext: first.nodeContext, answeredFrom: fromSet }));
			expect(code.calls).toEqual([]);
			expect(finished).toEqual([]);
			expect(again.json).toMatchObject({ approvalId: request.approvalId, notice: expect.stringContaining('from a node other than MCP Approval') });
		}
		// Straight from MCP Approval without its proof: the same.
		const [, [again]] = await run(fakeContext({ items: [decision], tools: [code], nodeContext: first.nodeContext }));
		expect(again.json).toMatchObject({ approvalId: request.approvalId, notice: expect.stringContaining('without a valid proof') });
		expect(code.calls).toEqual([]);
		// The decision key is in the node context only: no item the Agent put out holds it.
		const key = Object.values((first.nodeContext.mcpAgent as { runs: Record<string, { decisionKey?: string }> }).runs)[0].decisionKey;
		expect(key).toMatch(/^[0-9a-f]{64}$/);
		expect(JSON.stringify([request, again.json])).not.toContain(key);
		// MCP Approval's own decision on the request handed out again runs the call once.
		const [[done]] = await run(fakeContext({ items: [signedFor(again.json, { ...decision, approvalId: again.json.approvalId })], tools: [code], nodeContext: first.nodeContext }));
		expect(done.json.output).toBe('2');
		expect(code.calls).toEqual([{ expression: '1+1' }]);
	});

	it('with "Require n8n Login" on the MCP Approval after the Agent, a Wait node POST with the review secret decides nothing', async () => {
		scriptModel([toolUse([{ id: 'c1', name: 'calculate', input: { expression: '1+1' } }]), answer('2')]);
		const { code, first, request } = await paused();
		const reviewToken = reviewTokenInUrl(request.reviewUrl);
		const post = { headers: {}, params: {}, query: { reviewToken }, body: { approved: true } };
		const fromWait = { node: 'Wait', parents: ['MCP Agent'], operation: 'none' };
		// Required, required by an expression, or unknown (an n8n without the lookup): fail closed.
		for (const approvalNode of [{ requireLogin: true }, { requireLogin: '={{ true }}' }, null]) {
			const [finished, [again]] = await run(fakeContext({ items: [post], tools: [code], nodeContext: first.nodeContext, answeredFrom: fromWait, approvalNode }));
			expect(finished).toEqual([]);
			expect(again.json).toMatchObject({ approvalId: request.approvalId, notice: expect.stringContaining('must sign in to n8n') });
			post.query.reviewToken = reviewTokenInUrl(again.json.reviewUrl);
		}
		expect(code.calls).toEqual([]);
		// Without the sign-in requirement the same POST decides (the review secret is then the proof).
		const [[done]] = await run(fakeContext({ items: [post], tools: [code], nodeContext: first.nodeContext, answeredFrom: fromWait, approvalNode: { requireLogin: false } }));
		expect(done.json.output).toBe('2');
	});

	it('a send-and-wait node that does not follow this Agent (it asks something else) gives no answer to the waiting run', async () => {
		scriptModel([toolUse([{ id: 'c1', name: 'calculate', input: { expression: '1+1' } }]), answer('2')]);
		const { code, first, request } = await paused();
		const [finished, [again]] = await run(fakeContext({ items: [{ data: { approved: true } }], tools: [code], nodeContext: first.nodeContext, answeredFrom: { node: 'Ask the manager', parents: ['Schedule'], followsAgent: false } }));
		expect(code.calls).toEqual([]);
		expect(finished).toEqual([]);
		expect(again.json).toMatchObject({ approvalId: request.approvalId, notice: expect.stringContaining('not a send-and-wait node') });
	});

	it('a run paused before its execution was recorded is still continued once: a Retry copy of it is a replay', async () => {
		scriptModel([toolUse([{ id: 'c1', name: 'calculate', input: { expression: '1+1' } }]), answer('2')]);
		// Paused by the previous release: no execution id in the store.
		const { code, first, request } = await paused();
		const decision = signedFor(request, { kind: 'mcp-agent.approval-decision', approvalId: request.approvalId, reviewer: 'Ana', decidedAt: new Date().toISOString(), decisions: [{ callId: 'c1', argsHash: request.calls[0].argsHash, decision: 'approve' }] });
		const copy = structuredClone(first.nodeContext);
		const [[done]] = await run(fakeContext({ items: [decision], tools: [code], nodeContext: first.nodeContext, executionId: '10' }));
		expect(done.json.output).toBe('2');
		const [again, waiting] = await run(fakeContext({ items: [decision], tools: [code], nodeContext: copy, executionId: '11' }));
		expect([again, waiting]).toEqual([[], []]);
		expect(code.calls).toEqual([{ expression: '1+1' }]);
	});

	it("in n8n's legacy execution order a position does not name an approval while a run paused by an earlier pass waits too; in v1 it does", async () => {
		for (const executionOrder of ['v1', null] as const) {
			const code = codeTool(fakeSubNode('Code Tool'));
			// Two items pause A and B; Slack asks about the first only (A), whose run pauses again as C; B stays waiting.
			scriptModel([
				toolUse([{ id: 'a1', name: 'calculate', input: { expression: '1+1' } }]),
				toolUse([{ id: 'b1', name: 'calculate', input: { expression: '2+2' } }]),
				toolUse([{ id: 'a2', name: 'calculate', input: { expression: '3+3' } }]),
				answer('6'),
			]);
			const first = fakeContext({ items: [{ chatInput: 'one' }, { chatInput: 'two' }], tools: [code], executionOrder });
			await run(first);
			const fromSlack = { node: 'Slack', parents: ['MCP Agent'] };
			const [, [c]] = await run(fakeContext({ items: [{ data: { approved: true } }], pairedItems: [0], tools: [code], nodeContext: first.nodeContext, answeredFrom: fromSlack, executionOrder }));
			expect((c.json as Record<string, any>).calls[0].arguments).toEqual({ expression: '3+3' });
			const answerC = fakeContext({ items: [{ data: { approved: true } }], pairedItems: [0], tools: [code], nodeContext: first.nodeContext, answeredFrom: fromSlack, executionOrder, continueOnFail: true });
			const [[out]] = await run(answerC);
			if (executionOrder === 'v1') expect(out.json.output).toBe('6');
			else expect(out.json.error).toMatch(/not clear which pending approval/);
		}
	});

	it('a send-and-wait approval (paired with its request) approves the call', async () => {
		scriptModel([toolUse([{ id: 'c1', name: 'calculate', input: { expression: '1+1' } }]), answer('2')]);
		const { code, first } = await paused();
		const [done] = await run(fakeContext({ items: [{ data: { approved: true } }], tools: [code], nodeContext: first.nodeContext, answeredFrom: { node: 'Slack', parents: ['MCP Agent'] } }));
		expect(code.calls).toEqual([{ expression: '1+1' }]);
		expect(done[0].json.output).toBe('2');
	});

	it('with two approvals pending, a channel answer counts by its position only when the channel node sits straight on "Needs Approval"', async () => {
		const pausedTwo = async () => {
			scriptModel([toolUse([{ id: 'c1', name: 'calculate', input: { expression: '1+1' } }]), toolUse([{ id: 'c2', name: 'calculate', input: { expression: '2+2' } }]), answer('4')]);
			const code = codeTool(fakeSubNode('Code Tool'));
			const first = fakeContext({ items: [{ chatInput: 'one' }, { chatInput: 'two' }], tools: [code] });
			const [, needsApproval] = await run(first);
			expect(needsApproval).toHaveLength(2);
			return { code, first };
		};
		// Slack straight on "Needs Approval": its answer paired to position 1 approves the second call.
		const straight = await pausedTwo();
		await run(fakeContext({ items: [{ data: { approved: true } }], pairedItems: [1], tools: [straight.code], nodeContext: straight.first.nodeContext, answeredFrom: { node: 'Slack', parents: ['MCP Agent'] } }));
		expect(straight.code.calls).toEqual([{ expression: '2+2' }]);
		// A Filter in between (it kept only the second request, so Slack's answer is paired to position 0): refused, nothing runs.
		const filtered = await pausedTwo();
		const context = fakeContext({ items: [{ data: { approved: true } }], pairedItems: [0], tools: [filtered.code], nodeContext: filtered.first.nodeContext, answeredFrom: { node: 'Slack', parents: ['Filter'] }, continueOnFail: true });
		const [out] = await run(context);
		expect(filtered.code.calls).toEqual([]);
		expect(JSON.stringify(out)).toMatch(/not clear which pending approval it answers/);
	});

	it('a request that comes back after its expiry denies the call as expired and the model is told', async () => {
		scriptModel([toolUse([{ id: 'c1', name: 'calculate', input: { expression: '1+1' } }]), answer('nobody approved')]);
		const { code, first, request } = await paused({ approvalOptions: { timeoutHours: 0.000001 } });
		await new Promise((resolve) => setTimeout(resolve, 20));
		const [done] = await run(fakeContext({ items: [request], tools: [code], nodeContext: first.nodeContext }));
		expect(code.calls).toEqual([]);
		expect(JSON.stringify(model.requests[1].messages)).toContain('Approval expired');
		expect(done[0].json.output).toBe('nobody approved');
	});

	it('a request wired straight back before its expiry is refused', async () => {
		scriptModel([toolUse([{ id: 'c1', name: 'calculate', input: { expression: '1+1' } }])]);
		const { code, first, request } = await paused();
		await expect(run(fakeContext({ items: [request], tools: [code], nodeContext: first.nodeContext }))).rejects.toThrow(/came back before it expired/);
	});

	it('a channel resume without a decision hands the same approval out again with a notice', async () => {
		scriptModel([toolUse([{ id: 'c1', name: 'calculate', input: { expression: '1+1' } }])]);
		const { code, first, request } = await paused();
		const [done, again] = await run(fakeContext({ items: [{ query: { approved: 'true' } }], tools: [code], nodeContext: first.nodeContext }));
		expect(done).toEqual([]);
		expect(again[0].json).toMatchObject({ approvalId: request.approvalId, notice: expect.stringContaining('without a decision') });
		expect(code.calls).toEqual([]);
	});
});

describe('a tool call that becomes a long MCP task (the durable task wait)', () => {
	beforeEach(() => {
		taskChecks = 0;
	});

	/** Paused for the task: the Needs Approval item of the first run. */
	async function pausedForTask() {
		scriptModel([toolUse([{ id: 'c1', name: 'list_files', input: { path: '/long' } }]), (body) => answer(`got: ${JSON.stringify(body.messages).includes('the long listing')}`)]);
		const first = fakeContext({ items: [{ chatInput: 'list the big folder' }], tools: [filesServer()], approvalNode: {}, params: { options: { taskPauseAfter: 1 } } });
		const [done, needsApproval] = await run(first);
		expect(done).toEqual([]);
		return { first, request: needsApproval[0].json as Record<string, any> };
	}

	/** The request as MCP Approval passes it back when its wait timer ends (at wakeAt). */
	const atWake = (request: Record<string, any>) => ({ ...request, wakeAt: new Date().toISOString() });

	it('pauses with the task, pauses again under the same approval and link while it runs, then gives the model the result once', async () => {
		const { first, request } = await pausedForTask();
		expect(request.calls).toEqual([]);
		expect(request.tasks).toEqual([expect.objectContaining({ callId: 'c1', server: 'Files', tool: 'list_files', taskId: 'task-9', status: 'working' })]);
		expect(request.taskWakeHash).toMatch(/^[0-9a-f]{64}$/);
		expect(Date.parse(request.wakeAt)).toBeGreaterThan(Date.now());
		expect(request.output).toBe('Waiting for a tool that runs as a long task before I can continue.');
		// Nobody is asked anything: a workflow can notify people only when needsPerson is true.
		expect(request.needsPerson).toBe(false);
		expect(request.summaryText).toBe('No decision needed: the MCP Agent waits for a tool call that runs as a long task (list_files on Files).');
		expect(JSON.stringify(first.nodeContext)).not.toContain('secret');

		// The wait timer: the task still runs; the same approval and review link go out again, with the new status.
		const [done, again] = await run(fakeContext({ items: [atWake(request)], tools: [filesServer()], approvalNode: {}, nodeContext: first.nodeContext }));
		expect(done).toEqual([]);
		const second = again[0].json as Record<string, any>;
		expect([second.approvalId, second.reviewUrl, second.expiresAt]).toEqual([request.approvalId, request.reviewUrl, request.expiresAt]);
		expect(second.tasks[0]).toMatchObject({ taskId: 'task-9', status: 'working', statusMessage: 'check 1' });
		expect(second.taskWakeHash).not.toBe(request.taskWakeHash);
		expect(model.requests).toHaveLength(1);

		// The next wake: completed; the result reaches the model once, the call never went to the server again.
		const [finished, none] = await run(fakeContext({ items: [atWake(second)], tools: [filesServer()], approvalNode: {}, nodeContext: first.nodeContext }));
		expect(none).toEqual([]);
		expect(finished[0].json.output).toBe('got: true');
		expect(model.requests).toHaveLength(2);
		expect(mcpCalls.filter((c) => c.name === 'list_files')).toHaveLength(1);
		expect((finished[0].json.toolCalls as Array<Record<string, any>>)[0]).toMatchObject({ tool: 'list_files', isError: false, task: { taskId: 'task-9', status: 'completed' } });

		// A replay of a woken request changes nothing: its run went on already.
		const [replayed, nothing] = await run(fakeContext({ items: [atWake(second)], tools: [filesServer()], approvalNode: {}, nodeContext: first.nodeContext }));
		expect([replayed, nothing]).toEqual([[], []]);
	});

	it('a request wired straight back before its wake is refused (it would check the task in a loop)', async () => {
		const { first, request } = await pausedForTask();
		await expect(run(fakeContext({ items: [request], tools: [filesServer()], approvalNode: {}, nodeContext: first.nodeContext }))).rejects.toThrow(/came back before it expired/);
		expect(taskChecks).toBe(0);
	});

	it('without an MCP Approval node after the Agent, nothing hands the task off: the Agent waits in place', async () => {
		scriptModel([toolUse([{ id: 'c1', name: 'list_files', input: { path: '/long' } }]), answer('done')]);
		await run(fakeContext({ items: [{ chatInput: 'list' }], tools: [filesServer()], approvalNode: null }));
		expect(mcpOptions.at(-1)?.tasks).not.toHaveProperty('handOffAfterMs');
	});
});

describe('resume routes that fail closed', () => {
	const decision = (approvalId: string) => ({ kind: APPROVAL_DECISION_KIND, approvalId, reviewer: 'Ana', decidedAt: new Date().toISOString(), decisions: [] });

	it('a decision for an approval this node never paused is refused with its item index and what to do', async () => {
		scriptModel([]);
		const code = codeTool(fakeSubNode('Code Tool'));
		const failure = await run(fakeContext({ items: [decision('nope')], tools: [code] })).catch((error: unknown) => error);
		expect(failure).toMatchObject({ message: expect.stringMatching(/No paused run is waiting for approval nope/), context: { itemIndex: 0 } });
		const [out] = await run(fakeContext({ items: [decision('nope')], tools: [code], continueOnFail: true }));
		expect(out).toEqual([{ json: { error: expect.stringMatching(/No paused run is waiting for approval nope/), details: expect.any(String) }, pairedItem: { item: 0 } }]);
	});

	it('paused runs stored by a newer release fail every item with update advice, before anything runs', async () => {
		scriptModel([]);
		const code = codeTool(fakeSubNode('Code Tool'));
		const nodeContext = { mcpAgent: { format: 99, runs: {}, catalogs: {}, decided: [], lastOrder: [] } };
		await expect(run(fakeContext({ items: [decision('a')], tools: [code], nodeContext }))).rejects.toMatchObject({ message: expect.stringMatching(/store format 99; this version reads up to 2/), description: expect.stringMatching(/^Update n8n-nodes-mcp-agent/) });
		const [out, waiting] = await run(fakeContext({ items: [decision('a'), { chatInput: 'hi' }], tools: [code], nodeContext, continueOnFail: true }));
		expect(out.map((item) => [item.pairedItem, typeof item.json.error, typeof item.json.details])).toEqual([
			[{ item: 0 }, 'string', 'string'],
			[{ item: 1 }, 'string', 'string'],
		]);
		expect(waiting).toEqual([]);
		expect(model.requests).toEqual([]);
	});
});

describe('Memory sub-node', () => {
	it('loads the conversation before the run and saves the exchange after it, per chat message', async () => {
		const memory = fakeMemory();
		scriptModel([answer('Hello Ana.'), answer('Your name is Ana.')]);
		await run(fakeContext({ items: [{ chatInput: 'I am Ana', sessionId: 's1' }], tools: [codeTool(fakeSubNode('Code Tool'))], memory }));
		await run(fakeContext({ items: [{ chatInput: 'Who am I?', sessionId: 's1' }], tools: [codeTool(fakeSubNode('Code Tool'))], memory }));
		expect((model.requests[1].messages as Array<{ role: string; content: unknown }>).map((message) => ({ ...message, content: textOf(message.content) }))).toEqual([
			{ role: 'user', content: 'I am Ana' },
			{ role: 'assistant', content: 'Hello Ana.' },
			{ role: 'user', content: 'Who am I?' },
		]);
		expect(memory.saves).toEqual([
			{ input: { input: 'I am Ana' }, output: { output: 'Hello Ana.' } },
			{ input: { input: 'Who am I?' }, output: { output: 'Your name is Ana.' } },
		]);
	});

	it('a run paused for review saves nothing; after approval it saves the exchange once; a replayed decision saves nothing more', async () => {
		const memory = fakeMemory();
		const code = codeTool(fakeSubNode('Code Tool'));
		scriptModel([toolUse([{ id: 'c1', name: 'calculate', input: { expression: '1+1' } }]), answer('2')]);
		const first = fakeContext({ items: [{ chatInput: 'add', sessionId: 's1' }], tools: [code], memory });
		const [, needsApproval] = await run(first);
		expect(memory.saves).toEqual([]);
		expect(memory.loads).toBe(1);
		const request = needsApproval[0].json as Record<string, any>;
		const decision = signedFor(request, { kind: APPROVAL_DECISION_KIND, approvalId: request.approvalId, decidedAt: new Date().toISOString(), decisions: [{ callId: 'c1', argsHash: request.calls[0].argsHash, decision: 'approve' }] });
		await run(fakeContext({ items: [decision], tools: [code], memory, nodeContext: first.nodeContext }));
		expect(memory.saves).toEqual([{ input: { input: 'add' }, output: { output: '2' } }]);
		// Resuming does not load the memory again (the conversation is in the paused state).
		expect(memory.loads).toBe(1);
		const [replayed] = await run(fakeContext({ items: [decision], tools: [code], memory, nodeContext: first.nodeContext }));
		expect(replayed).toEqual([]);
		expect(memory.saves).toHaveLength(1);
	});

	it('keeps the answer when the memory fails to save, and says so', async () => {
		const memory = { ...fakeMemory(), saveContext: async () => Promise.reject(new Error('redis is down')) };
		scriptModel([answer('ok')]);
		const context = fakeContext({ items: [{ chatInput: 'x', sessionId: 's' }], tools: [codeTool(fakeSubNode('Code Tool'))], memory });
		const [done] = await run(context);
		expect(done[0].json).toMatchObject({ output: 'ok', memoryError: expect.stringContaining('redis is down') });
		expect(context.logs.some((line) => line.startsWith('warn') && line.includes('redis is down'))).toBe(true);
	});
});

describe('streaming', () => {
	it('streams the model\'s text as it arrives (begin, items, end) when n8n streams the response', async () => {
		scriptModel([answer('Hello there')], [['Hel', 'lo ', 'there']]);
		const context = fakeContext({ items: [{ chatInput: 'hi', sessionId: 's' }], tools: [codeTool(fakeSubNode('Code Tool'))], streaming: true });
		const [done] = await run(context);
		expect(context.chunks).toEqual([{ type: 'begin' }, { type: 'item', content: 'Hel' }, { type: 'item', content: 'lo ' }, { type: 'item', content: 'there' }, { type: 'end' }]);
		expect(done[0].json.output).toBe('Hello there');
	});

	it('tells the chat that a call waits for review, without the review link', async () => {
		scriptModel([toolUse([{ id: 'c1', name: 'calculate', input: { expression: '1' } }])], [['Let me compute.']]);
		const context = fakeContext({ items: [{ chatInput: 'hi' }], tools: [codeTool(fakeSubNode('Code Tool'))], streaming: true });
		await run(context);
		expect(context.chunks.map((c) => c.type)).toEqual(['begin', 'item', 'item', 'end']);
		expect(context.chunks[2].content).toMatch(/Waiting for a person to review a tool call/);
		expect(JSON.stringify(context.chunks)).not.toContain('webhook-waiting');
	});

	it('does not stream when n8n does not, or when the option is off (plain requests)', async () => {
		scriptModel([answer('a'), answer('b')], [['a'], ['b']]);
		const plain = fakeContext({ items: [{ chatInput: 'hi' }], tools: [codeTool(fakeSubNode('Code Tool'))] });
		const send = jest.spyOn(model, 'send');
		await run(plain);
		const off = fakeContext({ items: [{ chatInput: 'hi' }], tools: [codeTool(fakeSubNode('Code Tool'))], streaming: true, params: { options: { enableStreaming: false } } });
		await run(off);
		expect(send).toHaveBeenCalledTimes(2);
		expect([...plain.chunks, ...off.chunks]).toEqual([]);
	});
});

describe('a paused run and a changed Provider', () => {
	it('refuses the decision with what to do, runs nothing, and keeps the run paused for the provider it started with', async () => {
		const code = codeTool(fakeSubNode('Code Tool'));
		scriptModel([toolUse([{ id: 'c2', name: 'calculate', input: { expression: '6*7' } }]), answer('42.')]);
		const first = fakeContext({ items: [{ chatInput: 'compute', sessionId: 's1' }], tools: [code] });
		const [, needsApproval] = await run(first);
		const request = needsApproval[0].json as Record<string, any>;
		const decision = signedFor(request, { kind: APPROVAL_DECISION_KIND, approvalId: request.approvalId, decidedAt: new Date().toISOString(), reviewer: 'Ana', decisions: [{ callId: 'c2', argsHash: request.calls[0].argsHash, decision: 'approve' }] });
		const switched = fakeContext({ items: [decision], tools: [code], nodeContext: first.nodeContext, params: { provider: 'openaiChat', model: 'gpt-test' }, continueOnFail: true });
		const [failed] = await run(switched);
		expect(failed[0].json.error).toMatch(/paused while the Agent's Provider was Anthropic \(Messages API\); it is now OpenAI \(Chat Completions\), so the decision was not applied and nothing ran/);
		expect(code.calls).toEqual([]);
		// Set back, the same decision continues the run.
		const back = fakeContext({ items: [decision], tools: [code], nodeContext: first.nodeContext });
		const [finished] = await run(back);
		expect(code.calls).toEqual([{ expression: '6*7' }]);
		expect(finished[0].json).toMatchObject({ output: '42.', status: 'completed' });
	});
});

describe('provider errors', () => {
	it('become NodeApiError with the HTTP status; a 429 names the retry-after wait', async () => {
		scriptModel([new ProviderError('Anthropic is rate limiting requests (429) and retries ran out (it asked to retry after 7 s): slow down', 429, 7)]);
		const error = await run(fakeContext({ items: [{ chatInput: 'x' }], tools: [codeTool(fakeSubNode('Code Tool'))] })).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error).toMatchObject({ httpCode: '429', message: expect.stringContaining('rate limiting'), description: expect.stringContaining('7 s') });
		scriptModel([new ProviderError('Anthropic had a server error (503) and retries ran out: overloaded', 503)]);
		const [done] = await run(fakeContext({ items: [{ chatInput: 'x' }], tools: [codeTool(fakeSubNode('Code Tool'))], continueOnFail: true }));
		expect(done[0].json.error).toMatch(/server error \(503\)/);
	});
});

describe('user mistakes in the options (issue 27, point 4)', () => {
	it('a malformed Pinned Fingerprints fails every item with the field, the entry and what to do, before the model is asked', async () => {
		scriptModel([]);
		const setup = { items: [{ chatInput: 'x' }, { chatInput: 'y' }], tools: [filesServer()], params: { approvalOptions: { pinnedFingerprints: '[{ "name": "list_files" }]' } } };
		const error = await run(fakeContext(setup)).catch((e: unknown) => e);
		expect(error).toMatchObject({ message: 'Pinned Fingerprints: entry 0 needs a string "name" and "fingerprint"', description: expect.stringMatching(/Approval Options > Pinned Fingerprints.*MCP List Tools/) });
		const [out] = await run(fakeContext({ ...setup, continueOnFail: true }));
		expect(out.map((item) => [item.pairedItem, item.json.error, typeof item.json.details])).toEqual([
			[{ item: 0 }, 'Pinned Fingerprints: entry 0 needs a string "name" and "fingerprint"', 'string'],
			[{ item: 1 }, 'Pinned Fingerprints: entry 0 needs a string "name" and "fingerprint"', 'string'],
		]);
		expect(model.requests).toEqual([]);
	});
});

describe('a run that fails after tool calls ran', () => {
	it('says which calls ran (their effects stand), and with Continue On Fail the error item carries their log', async () => {
		const failing = () => scriptModel([toolUse([{ id: 't1', name: 'list_files', input: { path: '/data' } }]), new ProviderError('Anthropic had a server error (503) and retries ran out: overloaded', 503)]);
		failing();
		const error = await run(fakeContext({ items: [{ chatInput: 'x' }], tools: [filesServer()] })).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as NodeApiError).description).toContain('Before this failure the run had made 1 tool call, whose effects stand: list_files.');
		failing();
		const [done] = await run(fakeContext({ items: [{ chatInput: 'x' }], tools: [filesServer()], continueOnFail: true }));
		expect(done[0].json.error).toMatch(/server error \(503\)/);
		expect(done[0].json.toolLog).toEqual([expect.objectContaining({ tool: 'list_files', isError: false })]);
	});
});

describe('per-execution parameters', () => {
	const messagesSent = () => model.requests.map((request) => textOf((request.messages as Array<{ content: unknown }>)[0].content));
	const readsOf = (context: ReturnType<typeof fakeContext>, name: string) => context.parameterReads.filter(([read]) => read === name).map(([, index]) => index);

	it('reads the default User Message (a ?? chain of item paths) from each item; n8n evaluates it only for an item where no path is present', async () => {
		scriptModel([answer('a'), answer('b')]);
		const context = fakeContext({ items: [{ chatInput: 'from chat' }, { body: { message: 'from webhook' } }, { other: 1 }], tools: [codeTool(fakeSubNode('Code Tool'))], continueOnFail: true });
		const [done] = await run(context);
		expect(messagesSent()).toEqual(['from chat', 'from webhook']);
		expect(readsOf(context, 'userMessage')).toEqual([2]);
		expect(done[2].json.error).toBe('User Message is empty');
		// The System Prompt has no expression: read once for the execution.
		expect(readsOf(context, 'systemPrompt')).toEqual([0]);
	});

	it('reads a mapped webhook field from the item, and leaves other expressions to n8n', async () => {
		scriptModel([answer('a')]);
		const mapped = fakeContext({ items: [{ body: { message: 'hello' } }], tools: [codeTool(fakeSubNode('Code Tool'))], params: { userMessage: '={{ $json.body.message }}' } });
		await run(mapped);
		expect(messagesSent()).toEqual(['hello']);
		expect(readsOf(mapped, 'userMessage')).toEqual([]);
		scriptModel([answer('a')]);
		const other = fakeContext({ items: [{ body: { message: 'hello' } }], tools: [codeTool(fakeSubNode('Code Tool'))], params: { userMessage: '={{ $json.body.message.trim() }}' } });
		await run(other);
		expect(readsOf(other, 'userMessage')).toEqual([0]);
	});
});

describe('provider credential and tools, read together', () => {
	function deferred<T>() {
		let resolve!: (value: T) => void;
		let reject!: (error: unknown) => void;
		const promise = new Promise<T>((res, rej) => {
			resolve = res;
			reject = rej;
		});
		return { promise, resolve, reject };
	}
	const ticks = async () => {
		for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
	};
	async function withUnhandledRejections(body: () => Promise<void>): Promise<unknown[]> {
		const unhandled: unknown[] = [];
		const listener = (reason: unknown) => unhandled.push(reason);
		process.on('unhandledRejection', listener);
		try {
			await body();
			await ticks();
		} finally {
			process.off('unhandledRejection', listener);
		}
		return unhandled;
	}

	it('reads the provider credential while the tools input is still being supplied', async () => {
		scriptModel([answer('ok')]);
		const supply = deferred<unknown[]>();
		const credentialReads: string[] = [];
		const context = Object.assign(fakeContext({ items: [{ chatInput: 'x' }], tools: [] }), {
			getInputConnectionData: async (type: string) => (type === 'ai_tool' ? supply.promise : undefined),
			getCredentials: async (name: string) => {
				credentialReads.push(name);
				return { apiKey: 'sk-test' };
			},
		});
		const running = run(context);
		await ticks();
		expect(credentialReads).toEqual(['mcpAgentAnthropicApi']);
		supply.resolve([filesServer(), codeTool(fakeSubNode('Code Tool'))]);
		const [done] = await running;
		expect(done[0].json.output).toBe('ok');
		expect(credentialReads).toHaveLength(1);
	});

	it('fails every item with the tools error when both fail, and leaves no unhandled rejection', async () => {
		scriptModel([]);
		const failing = (continueOnFail: boolean) =>
			Object.assign(fakeContext({ items: [{ chatInput: 'a' }, { chatInput: 'b' }], tools: [], continueOnFail }), {
				getInputConnectionData: async () => {
					await ticks();
					throw new Error('MCP server credential is missing');
				},
				getCredentials: async () => Promise.reject(new Error('Anthropic credential is missing')),
			});
		let items: Array<{ json: Record<string, unknown> }> = [];
		let thrown: unknown;
		const unhandled = await withUnhandledRejections(async () => {
			[items] = await run(failing(true));
			thrown = await run(failing(false)).catch((error: unknown) => error);
		});
		expect(items.map((item) => item.json.error)).toEqual(['MCP server credential is missing', 'MCP server credential is missing']);
		expect(thrown).toMatchObject({ message: 'MCP server credential is missing' });
		expect(unhandled).toEqual([]);
		expect(model.requests).toEqual([]);
	});

	it('reports a provider credential error as before, after closing the connected servers', async () => {
		scriptModel([]);
		const context = Object.assign(fakeContext({ items: [{ chatInput: 'a' }], tools: [filesServer()] }), {
			getCredentials: async () => Promise.reject(new Error('Anthropic credential is missing')),
		});
		const unhandled = await withUnhandledRejections(async () => {
			await expect(run(context)).rejects.toThrow('Anthropic credential is missing');
		});
		expect(serversClosed).toBe(1);
		expect(unhandled).toEqual([]);
	});
});

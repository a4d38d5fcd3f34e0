/**
 * MCP Tasks on 2026-07-28 connections (the io.modelcontextprotocol/tasks extension): the
 * negotiation, the handle the transports keep for the client, the task answers, and the whole
 * call (tools/call, tasks/get, tasks/update, tasks/cancel) against a scripted server on a fake
 * clock. The real server is in test/integration/modernToolTasks.test.ts.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { McpAgentError } from '../../lib/errors';
import { decideTaskCall, serverOffersTasksExtension, TaskFailed } from '../../lib/mcp/toolTask';
import { parseModernTaskState, TASK_HANDLE_FIELD, taskHandleOf, withTaskHandle, withTasksExtension } from '../../lib/mcp/modernTask';
import { modernResult } from '../../lib/mcp/resultTypeDefault';
import { callInteractively, type CallChannel, type CompletedCall } from '../../lib/mcp/interactiveCall';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';
import { FakeClock, flush, settle } from '../support/fakeClock';


const tool = (taskSupport?: string): ToolDefinition => ({ name: 'research', inputSchema: { type: 'object' }, ...(taskSupport ? { execution: { taskSupport } } : {}) });

function task(status: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
	return { taskId: 't-1', status, ttlMs: 600_000, pollIntervalMs: 2000, createdAt: '2026-12-02T00:00:00Z', lastUpdatedAt: '2026-12-02T00:00:00Z', ...extra };
}

const DONE = { content: [{ type: 'text', text: 'done' }], isError: false };

/** A 2026-07-28 call channel over a fake client (no redaction), offering the tasks extension unless told otherwise. */
function channel(client: unknown, capabilities: unknown = { extensions: { 'io.modelcontextprotocol/tasks': {} } }): CallChannel {
	return {
		knownTools: new Map([['research', tool()]]),
		config: { requestTimeoutMs: 1000 } as never,
		isModern: true,
		serverCapabilities: capabilities,
		redact: { active: false, text: (value) => value, value: (value) => value },
		request: (_phase, run) => run(client as never),
		requestUnredacted: (_phase, run) => run(client as never),
		trackLegacyInput: (run) => run().then((value) => ({ value })),
	};
}

/**
 * A 2026-07-28 server from a script: tools/call answers with `created` (as the transports hand it
 * to the client: modernResult), tasks/get from `polls` (the last repeats). Records requests.
 */
function scripted(created: Record<string, unknown>, polls: unknown[]) {
	const requests: Array<{ method: string; params: Record<string, unknown> }> = [];
	let index = 0;
	const client = {
		callTool: async (params: Record<string, unknown>) => {
			requests.push({ method: 'tools/call', params });
			const message = modernResult({ jsonrpc: '2.0', id: 1, result: created } as JSONRPCMessage) as { result: Record<string, unknown> };
			const { resultType: _complete, ...result } = message.result;
			return result;
		},
		request: async (request: { method: string; params: Record<string, unknown> }, _schema: unknown, options: { signal?: AbortSignal }) => {
			requests.push(request);
			if (request.method === 'tasks/get') {
				if (options.signal?.aborted) throw new Error('aborted');
				const answer = polls[Math.min(index, polls.length - 1)];
				index += 1;
				return { resultType: 'complete', ...(answer as object) };
			}
			return { resultType: 'complete' };
		},
	};
	return { client, requests, methods: () => requests.map((r) => r.method) };
}

function call(server: ReturnType<typeof scripted>, clock: FakeClock, extra: { signal?: AbortSignal; maxWaitMs?: number } = {}) {
	return callInteractively(
		channel(server.client),
		'research',
		{ q: 'x' },
		{
			tasks: { mode: 'whenRequired', maxWaitMs: extra.maxWaitMs ?? 300_000, timers: clock },
			timeoutMs: 60_000,
			...(extra.signal ? { signal: extra.signal } : {}),
		},
	) as Promise<CompletedCall>;
}

describe('negotiating the tasks extension (2026-07-28)', () => {
	const offering = { isModern: true, capabilities: { tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } } };
	const silent = { isModern: true, capabilities: { tools: {} } };

	it('a server offers it in server/discover capabilities.extensions', () => {
		expect(serverOffersTasksExtension(offering.capabilities)).toBe(true);
		expect(serverOffersTasksExtension(silent.capabilities)).toBe(false);
		expect(serverOffersTasksExtension({ extensions: { 'io.modelcontextprotocol/tasks': true } })).toBe(false);
	});

	it.each([
		['required', 'whenRequired', true],
		[undefined, 'whenRequired', true],
		[undefined, 'whenSupported', true],
		['forbidden', 'whenSupported', true],
		[undefined, 'never', false],
	] as const)('offered: the server decides (taskSupport %s, which 2026 tools do not carry), Run As Task %s declares it: %s', (support, mode, expected) => {
		expect(decideTaskCall(tool(support), mode, offering)).toBe(expected);
	});

	it('not offered: every call goes plainly (nothing refused before sending)', () => {
		expect(decideTaskCall(tool(), 'whenSupported', silent)).toBe(false);
		expect(decideTaskCall(tool('required'), 'whenRequired', silent)).toBe(false);
	});

	it("the call declares the extension in its own capabilities, keeping the client's", () => {
		expect(withTasksExtension({ elicitation: { form: {} } })).toEqual({ elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } });
	});
});

describe('the task handle (resultType "task")', () => {
	it('is kept under its key as a complete result the client accepts; other answers are untouched', () => {
		const message = { jsonrpc: '2.0', id: 3, result: { resultType: 'task', ...task('working') } } as JSONRPCMessage;
		const kept = withTaskHandle(message) as { result: Record<string, unknown> };
		expect(kept.result).toMatchObject({ resultType: 'complete', content: [] });
		expect(taskHandleOf(kept.result)).toEqual(task('working'));
		const plain = { jsonrpc: '2.0', id: 4, result: { resultType: 'complete', content: [] } } as JSONRPCMessage;
		expect(withTaskHandle(plain)).toBe(plain);
		expect(taskHandleOf({ content: [] })).toBeUndefined();
		expect(TASK_HANDLE_FIELD).toMatch(/^n8n-nodes-mcp-agent\//);
	});
});

describe('task answers are checked (2026-07-28 shape)', () => {
	it('maps ttlMs and pollIntervalMs, and takes the inlined result', () => {
		expect(parseModernTaskState('research', task('working'), 'tools/call')).toMatchObject({ taskId: 't-1', status: 'working', ttl: 600_000, pollInterval: 2000 });
		expect(parseModernTaskState('research', task('completed', { result: DONE }), 'tasks/get', 't-1').result).toEqual(DONE);
	});

	it('names an unknown status, another task, a completed task without result, input_required without requests, a bad ttlMs', () => {
		expect(() => parseModernTaskState('research', task('paused'), 'tasks/get', 't-1')).toThrow(/status this client does not know \("paused" in the tasks\/get answer/);
		expect(() => parseModernTaskState('research', task('working', { taskId: 't-2' }), 'tasks/get', 't-1')).toThrow(/answered for another task \("t-2"\)/);
		expect(() => parseModernTaskState('research', task('completed'), 'tasks/get', 't-1')).toThrow(/completed without its result/);
		expect(() => parseModernTaskState('research', task('input_required'), 'tasks/get', 't-1')).toThrow(/without its requests/);
		expect(() => parseModernTaskState('research', task('working', { ttlMs: 'soon' }), 'tools/call')).toThrow(/no valid ttlMs/);
		try {
			parseModernTaskState('research', task('paused'), 'tasks/get', 't-1');
		} catch (error) {
			expect(error).toBeInstanceOf(McpAgentError);
			expect((error as McpAgentError).code).toBe('remote');
		}
	});
});

describe('a tool call that becomes a 2026-07-28 task', () => {
	it('polls tasks/get at the server interval and returns the inlined result (no tasks/result)', async () => {
		const clock = new FakeClock();
		const server = scripted({ resultType: 'task', ...task('working') }, [task('working'), task('completed', { result: DONE })]);
		const outcome = await settle(clock, call(server, clock));
		expect(outcome).toEqual({ kind: 'result', result: DONE });
		expect(server.methods()).toEqual(['tools/call', 'tasks/get', 'tasks/get']);
		expect(clock.waits).toEqual([2000, 2000]);
		const meta = server.requests[0].params._meta as Record<string, unknown>;
		expect(meta['io.modelcontextprotocol/clientCapabilities']).toEqual({ elicitation: { form: {}, url: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } });
		expect(server.requests[1].params).toEqual({ taskId: 't-1' });
		expect(clock.pending.size).toBe(0);
	});

	it('a server that answers at once is taken at its word', async () => {
		const clock = new FakeClock();
		const server = scripted({ resultType: 'complete', ...DONE }, []);
		expect((await settle(clock, call(server, clock))).result).toMatchObject(DONE);
		expect(server.methods()).toEqual(['tools/call']);
	});

	it('failed: TaskFailed with the JSON-RPC error when there is no status message; nothing cancelled', async () => {
		const clock = new FakeClock();
		const server = scripted({ resultType: 'task', ...task('working') }, [task('failed', { error: { code: -32603, message: 'API rate limit exceeded' } })]);
		const failure = await settle(clock, call(server, clock)).catch((error: unknown) => error);
		expect(TaskFailed.isInstance(failure)).toBe(true);
		expect(String((failure as Error).message)).toMatch(/ended failed \(task "t-1", status "failed"\): API rate limit exceeded/);
		expect(server.methods()).not.toContain('tasks/cancel');
	});

	it('input_required: elicitation is declined once with tasks/update (deduplicated across polls), then the wait goes on', async () => {
		const clock = new FakeClock();
		const asking = task('input_required', {
			inputRequests: { name: { method: 'elicitation/create', params: { mode: 'form', message: 'Your name?', requestedSchema: { type: 'object', properties: {} } } } },
		});
		const server = scripted({ resultType: 'task', ...task('working') }, [asking, asking, task('completed', { result: DONE })]);
		const outcome = await settle(clock, call(server, clock));
		expect(outcome.result).toEqual(DONE);
		expect(server.methods()).toEqual(['tools/call', 'tasks/get', 'tasks/update', 'tasks/get', 'tasks/get']);
		expect(server.requests[2].params).toEqual({ taskId: 't-1', inputResponses: { name: { action: 'decline' } } });
		expect(outcome.notes).toEqual([expect.stringMatching(/asked for input \("Your name\?"\) while the tool's task ran; it was declined/)]);
	});

	it('input_required for sampling ends the wait saying so, and cancels the task', async () => {
		const clock = new FakeClock();
		const server = scripted({ resultType: 'task', ...task('working') }, [task('input_required', { inputRequests: { s: { method: 'sampling/createMessage', params: {} } } })]);
		await expect(settle(clock, call(server, clock))).rejects.toThrow(/was ended and cancelled on the server: The server asked the client to sample from a model/);
		expect(server.methods()).toEqual(['tools/call', 'tasks/get', 'tasks/cancel']);
	});

	it('an unknown status fails clearly and cancels the task', async () => {
		const clock = new FakeClock();
		const server = scripted({ resultType: 'task', ...task('working') }, [task('paused')]);
		await expect(settle(clock, call(server, clock))).rejects.toThrow(/status this client does not know \("paused"/);
		expect(server.requests.at(-1)).toEqual({ method: 'tasks/cancel', params: { taskId: 't-1' } });
	});

	it("an abort (n8n's Stop) between polls sends tasks/cancel and rejects as cancelled; no timer left", async () => {
		const clock = new FakeClock();
		const stop = new AbortController();
		const server = scripted({ resultType: 'task', ...task('working') }, [task('working')]);
		const running = call(server, clock, { signal: stop.signal });
		await flush();
		await flush();
		stop.abort();
		const failure = await settle(clock, running).catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(McpAgentError);
		expect((failure as McpAgentError).code).toBe('cancelled');
		expect(server.methods()).toEqual(['tools/call', 'tasks/cancel']);
		expect(clock.pending.size).toBe(0);
	});

	it('Max Task Wait bounds the wait and the task is cancelled', async () => {
		const clock = new FakeClock();
		const server = scripted({ resultType: 'task', ...task('working') }, [task('working')]);
		await expect(settle(clock, call(server, clock, { maxWaitMs: 5_000 }))).rejects.toThrow(/did not finish within Max Task Wait \(5 s\)/);
		expect(server.methods().at(-1)).toBe('tasks/cancel');
	});
});

describe('the 2026-07-28 call path (interactiveCall)', () => {
	const DONE_ANSWER = { content: [{ type: 'text', text: 'plain' }] };
	const offering = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

	it('with the offer and Run As Task, the call declares the extension in its _meta, else not', async () => {
		const declared: unknown[] = [];
		const client = {
			callTool: async (params: { _meta?: Record<string, unknown> }) => (declared.push(params._meta?.['io.modelcontextprotocol/clientCapabilities'] ?? null), DONE_ANSWER),
		};
		await callInteractively(channel(client, offering), 'research', {}, { tasks: { mode: 'whenRequired', maxWaitMs: 1000 } });
		await callInteractively(channel(client, offering), 'research', {}, { tasks: { mode: 'never', maxWaitMs: 1000 } });
		await callInteractively(channel(client, {}), 'research', {}, { tasks: { mode: 'whenSupported', maxWaitMs: 1000 } });
		await callInteractively(channel(client, offering), 'research', {}, {});
		expect(declared).toEqual([{ elicitation: { form: {}, url: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } }, null, null, null]);
	});

	it('an input_required answer before any task goes the usual multi-round-trip way, and the retry declares the extension again', async () => {
		const seen: Array<Record<string, unknown>> = [];
		const client = {
			callTool: async (params: Record<string, unknown>) => {
				seen.push(params);
				return seen.length === 1 ? { resultType: 'input_required', inputRequests: { roots: { method: 'roots/list' } } } : DONE_ANSWER;
			},
		};
		const withRoots = { ...channel(client, offering), config: { requestTimeoutMs: 1000, roots: [{ uri: 'file:///data' }] } as never };
		const outcome = await callInteractively(withRoots, 'research', {}, { tasks: { mode: 'whenRequired', maxWaitMs: 1000 } });
		expect(outcome).toEqual({ kind: 'result', result: DONE_ANSWER });
		expect(seen[1]).toMatchObject({
			inputResponses: { roots: { roots: [{ uri: 'file:///data' }] } },
			_meta: { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
		});
	});

	it('a task handle on a call that did not declare the extension is refused, naming it', async () => {
		const handle = (modernResult({ jsonrpc: '2.0', id: 1, result: { resultType: 'task', ...task('working') } } as JSONRPCMessage) as { result: unknown }).result;
		const client = { callTool: async () => handle };
		await expect(callInteractively(channel(client, {}), 'research', {}, {})).rejects.toThrow(
			/answered with a task \(resultType "task"\) although this call did not offer the tasks extension/,
		);
	});
});

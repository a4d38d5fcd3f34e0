/**
 * The Agent's durable task wait (issue 29, point 3): a call that became an MCP task and still runs
 * after the wait in place pauses the run with the task in its state (plain JSON, no connection);
 * a later runAgent, from the state as stored (a JSON round trip: another process, another worker),
 * checks the task once per wake and pauses again while it runs; once it completed, the result goes
 * to the model exactly once. Past the task's deadline it is cancelled on the server. On both task
 * protocols: 2025-11-25 (test/fixtures/task-server.js) and the 2026-07-28 extension
 * (test/fixtures/modern-task-server.js), with the real OpenAI SDK client against a loopback fake.
 */
import { McpConnection } from '../../lib/mcp/connection';
import { listAllTools } from '../../lib/mcp/listing';
import { buildCatalog } from '../../lib/agent/catalog';
import { createRun, nextEffect, step } from '../../lib/agent/step';
import { boundArgsHash } from '../../lib/agent/review';
import { runAgent } from '../../lib/agent/runAgent';
import { runToolCalls, type ToolRunnerOptions } from '../../lib/agent/toolRunner';
import { DEFAULT_OUTCOME_LIMITS } from '../../lib/agent/toolOutcome';
import { migrateAgentState } from '../../lib/agent/stateSchema';
import type { AgentState } from '../../lib/agent/types';
import type { CatalogTool } from '../../lib/providers/modelTypes';
import { createModelClient } from '../../lib/providers/clients';
import { replies, startFakeProvider, toolResultsIn, type FakeProvider } from '../support/fakeProviders';
import { TASK_TEST_SETTINGS } from '../support/runSettings';
import { fixtureStdio } from '../support/servers';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

const SETTINGS = TASK_TEST_SETTINGS;
const KIND = 'openaiChat' as const;
const r = replies(KIND);

const PROTOCOLS = [
	{ protocol: '2025-11-25', fixture: 'task-server.js', quick: 'quick-task', endless: 'endless-task' },
	{ protocol: '2026-07-28', fixture: 'modern-task-server.js', quick: 'quick_task', endless: 'endless_task' },
] as const;

describe.each(PROTOCOLS)('a task still running pauses the run, and a later check resumes it (%s)', ({ protocol, fixture, quick, endless }) => {
	let connection: McpConnection;
	let catalog: CatalogTool[];
	let fake: FakeProvider | undefined;

	beforeAll(async () => {
		connection = await McpConnection.open(fixtureStdio(fixture));
		catalog = buildCatalog([{ id: 'srv', name: 'tasks', tools: await listAllTools(connection) }]).tools;
	});

	afterAll(async () => {
		await connection?.close();
	});

	afterEach(async () => {
		await fake?.close();
		fake = undefined;
	});

	function runner(maxWaitMs = 60_000): ToolRunnerOptions {
		return { connections: new Map([['srv', connection]]), concurrency: 2, timeoutMs: 15_000, limits: DEFAULT_OUTCOME_LIMITS, tasks: { mode: 'whenRequired', maxWaitMs, handOffAfterMs: 0 } };
	}

	function drivers(maxWaitMs?: number) {
		const options = runner(maxWaitMs);
		return {
			model: createModelClient({ provider: KIND, apiKey: 'test-key', baseUrl: (fake as FakeProvider).baseUrl, maxRetries: 0, timeoutMs: 10_000 }),
			runTools: (calls: Parameters<typeof runToolCalls>[0]) => runToolCalls(calls, options),
			checkTasks: (calls: Parameters<typeof runToolCalls>[0]) => runToolCalls(calls, { ...options, tasks: { ...options.tasks!, handOffAfterMs: 0 } }),
		};
	}

	/** The state as n8n stores it with the execution, read back as a resumed run reads it. */
	const stored = (state: AgentState) => migrateAgentState(JSON.parse(JSON.stringify(state)), 'test');

	function waitingTask(state: AgentState) {
		const effect = nextEffect(state);
		if (effect.type !== 'request_approval') throw new Error(`the run did not pause: ${effect.type}`);
		expect(effect.calls).toEqual([]);
		expect(effect.tasks).toHaveLength(1);
		return effect.tasks[0].task!;
	}

	it('pauses with the task, checks it on each wake, and gives the model its result once', async () => {
		fake = await startFakeProvider(KIND, [r.toolCalls([{ id: 'c1', name: quick, args: { steps: 3, label: 'durable' } }]), (body) => r.text(`Tool said: ${toolResultsIn(KIND, body).at(-1)?.text}`)]);
		const paused = await runAgent(createRun({ provider: KIND, settings: SETTINGS, tools: catalog, userMessage: 'Go.' }), drivers());
		const first = waitingTask(paused);
		expect(first).toMatchObject({ protocol, status: 'working', taskId: expect.any(String) });
		expect(first.deadline).toBeGreaterThan(Date.now());
		expect(paused.toolLog).toEqual([]);

		// Each wake checks the task once and pauses again while it runs.
		let state = stored(paused);
		const statuses: string[] = [];
		for (let wake = 0; wake < 10 && nextEffect(state).type === 'request_approval'; wake++) {
			state = stored(await runAgent(state, drivers()));
			if (nextEffect(state).type === 'request_approval') {
				const task = waitingTask(state);
				expect(task.taskId).toBe(first.taskId);
				statuses.push(task.status);
			}
		}
		expect(statuses.length).toBeGreaterThanOrEqual(1);
		expect(statuses.every((status) => status === 'working')).toBe(true);
		expect(state.phase).toMatchObject({ name: 'finished', status: 'completed', text: 'Tool said: done: durable' });
		// The model was called twice: the turn with the call, and once with the result.
		expect(fake.requests).toHaveLength(2);
		expect(toolResultsIn(KIND, fake.requests[1])).toEqual([expect.objectContaining({ isError: false, text: 'done: durable' })]);
		expect(state.toolLog).toHaveLength(1);
		expect(state.toolLog[0]).toMatchObject({ tool: quick, isError: false, task: { taskId: first.taskId, status: 'completed' } });
	}, 60_000);

	it("past the task's deadline the check cancels it on the server and the model gets an error naming the limit", async () => {
		fake = await startFakeProvider(KIND, [r.toolCalls([{ id: 'c1', name: endless, args: {} }]), (body) => r.text(`Tool said: ${toolResultsIn(KIND, body).at(-1)?.text}`)]);
		const paused = await runAgent(createRun({ provider: KIND, settings: SETTINGS, tools: catalog, userMessage: 'Go.' }), drivers(1_000));
		const task = waitingTask(paused);
		// The wait woke after the deadline (a restart that took longer than Max Task Wait).
		const late = stored(paused);
		if (late.phase.name !== 'run_tools') throw new Error('not paused');
		late.phase.calls[0].task = { ...task, deadline: Date.now() - 1 };
		const final = await runAgent(late, drivers(1_000));
		expect(final.phase).toMatchObject({ name: 'finished', status: 'completed' });
		const seen = toolResultsIn(KIND, fake.requests[1]);
		expect(seen[0].isError).toBe(true);
		expect(seen[0].text).toMatch(/did not finish within Max Task Wait \(1 s\); it was cancelled on the server/);
		expect(await cancelledOnServer(task.taskId)).toBe(true);
	}, 60_000);

	/** Asked of the fixture itself: the 2025 one lists the ids it got tasks/cancel for, the 2026 one tells a task's status. */
	async function cancelledOnServer(taskId: string): Promise<boolean> {
		const asked = protocol === '2025-11-25' ? await connection.callToolInteractive('cancelled-tasks', {}) : await connection.callToolInteractive('task_status', { taskId });
		if (asked.kind !== 'result') throw new Error('the fixture did not answer');
		const text = (asked.result.content as Array<{ text: string }>)[0].text;
		return protocol === '2025-11-25' ? (JSON.parse(text) as string[]).includes(taskId) : text === 'cancelled';
	}
});

describe('a 2026-07-28 task that asks a person for input while the run waits for it', () => {
	let connection: McpConnection;
	let catalog: CatalogTool[];
	let fake: FakeProvider | undefined;

	beforeAll(async () => {
		connection = await McpConnection.open(fixtureStdio('modern-task-server.js'));
		catalog = buildCatalog([{ id: 'srv', name: 'tasks', tools: await listAllTools(connection) }]).tools;
	});

	afterAll(async () => {
		await fake?.close();
		await connection?.close();
	});

	const runner = (): ToolRunnerOptions => ({
		connections: new Map([['srv', connection]]),
		concurrency: 2,
		timeoutMs: 15_000,
		limits: DEFAULT_OUTCOME_LIMITS,
		tasks: { mode: 'whenRequired', maxWaitMs: 60_000, handOffAfterMs: 0, askPerson: true },
	});

	it("pauses for the person's answer, sends it with tasks/update on the next check, and the result reaches the model", async () => {
		fake = await startFakeProvider(KIND, [r.toolCalls([{ id: 'c1', name: 'asking_task', args: {} }]), (body) => r.text(`Tool said: ${toolResultsIn(KIND, body).at(-1)?.text}`)]);
		const drivers = {
			model: createModelClient({ provider: KIND, apiKey: 'test-key', baseUrl: fake.baseUrl, maxRetries: 0, timeoutMs: 10_000 }),
			runTools: (calls: Parameters<typeof runToolCalls>[0]) => runToolCalls(calls, runner()),
			checkTasks: (calls: Parameters<typeof runToolCalls>[0]) => runToolCalls(calls, runner()),
		};
		let state = await runAgent(createRun({ provider: KIND, settings: SETTINGS, tools: catalog, userMessage: 'Go.' }), drivers);
		// Handed off while working; the first wake's check finds it asking.
		expect(nextEffect(state)).toMatchObject({ type: 'request_approval', calls: [], tasks: [{ id: 'c1' }] });
		state = await runAgent(state, drivers);
		let effect = nextEffect(state);
		// The question waits for a person; the task is not checked meanwhile.
		expect(effect).toMatchObject({ type: 'request_approval', calls: [{ id: 'c1', input: { status: 'pending', round: 1 } }], tasks: [] });
		if (effect.type !== 'request_approval' || state.phase.name !== 'run_tools') throw new Error('not paused');
		const call = effect.calls[0];
		expect(call.input?.inputRequests).toEqual({ name: expect.objectContaining({ method: 'elicitation/create', params: expect.objectContaining({ message: 'Your name?' }) }) });
		expect(call.task).toMatchObject({ protocol: '2026-07-28', status: 'input_required' });
		expect(call.task).not.toHaveProperty('inputRequests');

		state = step(state, { type: 'approval_opened', approval: { id: 'ap1', requestedAt: new Date().toISOString(), expiresAt: new Date(Date.now() + 3_600_000).toISOString() } });
		const decision = { callId: 'c1', argsHash: boundArgsHash(call), inputHash: call.input?.inputHash, inputResponses: { name: { action: 'accept' as const, content: { name: 'Ana' } } } };
		state = step(state, { type: 'approval_decided', approvalId: 'ap1', decisions: [decision], reviewer: 'Ana', decidedAt: new Date().toISOString() });
		effect = nextEffect(state);
		expect(effect).toMatchObject({ type: 'request_approval', calls: [], tasks: [{ id: 'c1' }] });

		// The answer goes once, with the check after it (counted: tasks/update requests).
		const updates: unknown[] = [];
		const sent = connection.request.bind(connection);
		const counting = jest.spyOn(connection, 'request').mockImplementation((phase, run) => {
			if (/answering the input requests/.test(phase)) updates.push(phase);
			return sent(phase, run);
		});
		const final = await runAgent(migrateAgentState(JSON.parse(JSON.stringify(state)), 'test'), drivers);
		counting.mockRestore();
		expect(updates).toHaveLength(1);
		expect(final.phase).toMatchObject({ name: 'finished', status: 'completed' });
		// The server's result is "answer: <the person's action>": it got the answer through tasks/update.
		expect(final.phase.name === 'finished' && final.phase.text).toMatch(/answer: accept$/);
		expect(final.toolLog[0]).toMatchObject({ tool: 'asking_task', isError: false, input: { status: 'answered', actions: { name: 'accept' }, reviewer: 'Ana' }, task: { status: 'completed' } });
		expect(String(toolResultsIn(KIND, fake.requests[1])[0].text)).toContain('asked a person for input; they answered (accept)');
	}, 60_000);
});

/**
 * MCP Tasks in the MCP Agent (issue 29, point 3, waited for in place): a model's call of a
 * task-only tool goes as a task, is polled to its end and its result reaches the model; the tool
 * log names the task and its last status. Against the real server-everything
 * (`simulate-research-query`, taskSupport "required") and the task fixture
 * (test/fixtures/task-server.js: failing, endless tasks, and the list of ids it was told to cancel),
 * with the real provider SDK client talking to a fake on loopback.
 */
import { McpConnection } from '../../lib/mcp/connection';
import { listAllTools } from '../../lib/mcp/listing';
import { buildCatalog } from '../../lib/agent/catalog';
import { createRun } from '../../lib/agent/step';
import { runAgent } from '../../lib/agent/runAgent';
import { runToolCalls, type ToolRunnerOptions } from '../../lib/agent/toolRunner';
import { DEFAULT_OUTCOME_LIMITS } from '../../lib/agent/toolOutcome';
import type { AgentState, PlannedCall } from '../../lib/agent/types';
import { createModelClient } from '../../lib/providers/clients';
import type { TaskMode } from '../../lib/mcp/toolTask';
import { replies, startFakeProvider, toolResultsIn, type FakeProvider } from '../support/fakeProviders';
import { TASK_TEST_SETTINGS } from '../support/runSettings';
import { everythingStdio, fixtureStdio } from '../support/servers';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

const SETTINGS = TASK_TEST_SETTINGS;
const KIND = 'openaiChat' as const;
const r = replies(KIND);

let everything: McpConnection;
let fixture: McpConnection;
let fake: FakeProvider | undefined;

beforeAll(async () => {
	[everything, fixture] = await Promise.all([McpConnection.open(everythingStdio()), McpConnection.open(fixtureStdio('task-server.js'))]);
});

afterAll(async () => {
	await Promise.all([everything?.close(), fixture?.close()]);
});

afterEach(async () => {
	await fake?.close();
	fake = undefined;
});

function runner(connections: Map<string, McpConnection>, tasks: { mode: TaskMode; maxWaitMs: number } | undefined, extra: Partial<ToolRunnerOptions> = {}): ToolRunnerOptions {
	return { connections, concurrency: 2, timeoutMs: 15_000, limits: DEFAULT_OUTCOME_LIMITS, ...(tasks ? { tasks } : {}), ...extra };
}

async function agentRun(connection: McpConnection, serverName: string, toolName: string, args: Record<string, unknown>, tasks?: { mode: TaskMode; maxWaitMs: number }) {
	const catalog = buildCatalog([{ id: 'srv', name: serverName, tools: await listAllTools(connection) }]).tools;
	fake = await startFakeProvider(KIND, [r.toolCalls([{ id: 'c1', name: toolName, args }]), (body) => r.text(`Tool said: ${toolResultsIn(KIND, body).at(-1)?.text}`)]);
	const connections = new Map([['srv', connection]]);
	const final = await runAgent(createRun({ provider: KIND, settings: SETTINGS, tools: catalog, userMessage: 'Go.' }), {
		model: createModelClient({ provider: KIND, apiKey: 'test-key', baseUrl: fake.baseUrl, maxRetries: 0, timeoutMs: 10_000 }),
		runTools: (calls) => runToolCalls(calls, runner(connections, tasks)),
	});
	const seen = toolResultsIn(KIND, fake.requests[1]);
	return { final, seen };
}

function finishedText(state: AgentState): string {
	if (state.phase.name !== 'finished') throw new Error(`run not finished: ${state.phase.name}`);
	return state.phase.text;
}

function fixtureCall(id: string, tool: string, args: Record<string, unknown> = {}): PlannedCall {
	return { id, providerName: tool, tool: { serverId: 'srv', serverName: 'tasks', mcpName: tool, fingerprint: 'f' }, arguments: args };
}

async function cancelledIds(): Promise<string[]> {
	const answer = await fixture.callToolInteractive('cancelled-tasks', {});
	if (answer.kind !== 'result') throw new Error('cancelled-tasks asked for input');
	return JSON.parse((answer.result.content as Array<{ text: string }>)[0].text) as string[];
}

describe('the Agent calls task-only tools as tasks', () => {
	it("server-everything's simulate-research-query: the task's result reaches the model, the tool log names the task", async () => {
		const { final, seen } = await agentRun(everything, 'everything', 'simulate-research-query', { topic: 'tide pools' }, { mode: 'whenRequired', maxWaitMs: 60_000 });
		expect(seen).toHaveLength(1);
		expect(seen[0].isError).toBe(false);
		expect(seen[0].text).toMatch(/tide pools/i);
		expect(finishedText(final)).toMatch(/^Tool said: .*tide pools/is);
		expect(final.toolLog).toHaveLength(1);
		expect(final.toolLog[0]).toMatchObject({ tool: 'simulate-research-query', isError: false, task: { taskId: expect.any(String), status: 'completed' } });
	}, 60_000);

	it('without task calls (an Agent of an earlier release) the same call fails as reported in the issue', async () => {
		const { seen } = await agentRun(everything, 'everything', 'simulate-research-query', { topic: 'x' });
		expect(seen[0]).toMatchObject({ isError: true });
		expect(seen[0].text).toMatch(/task augmentation/);
	}, 30_000);

	it('Run As Task "Never": the model learns the tool runs only as a task, nothing is sent', async () => {
		const { final, seen } = await agentRun(everything, 'everything', 'simulate-research-query', { topic: 'x' }, { mode: 'never', maxWaitMs: 60_000 });
		expect(seen[0].isError).toBe(true);
		expect(seen[0].text).toMatch(/runs only as an MCP task .*Run As Task is Never/);
		expect(final.toolLog[0].task).toBeUndefined();
	}, 30_000);

	it('a task the server fails: an error result naming the failure, the log keeps the status and message', async () => {
		const { final, seen } = await agentRun(fixture, 'tasks', 'failing-task', {}, { mode: 'whenRequired', maxWaitMs: 10_000 });
		expect(seen[0].isError).toBe(true);
		expect(seen[0].text).toMatch(/ended failed .*the job exploded/);
		expect(final.toolLog[0].task).toMatchObject({ status: 'failed', statusMessage: 'the job exploded' });
	}, 30_000);

	it('Max Task Wait passed: the task is cancelled on the server and the model gets an error naming the limit', async () => {
		const run = await runToolCalls([fixtureCall('c1', 'endless-task')], runner(new Map([['srv', fixture]]), { mode: 'whenRequired', maxWaitMs: 400 }));
		expect(run.outcomes[0]).toMatchObject({ id: 'c1', isError: true });
		expect(run.outcomes[0].text).toMatch(/did not finish within Max Task Wait \(0\.4 s\); it was cancelled on the server/);
		const taskId = run.tasks?.c1?.taskId;
		expect(taskId).toEqual(expect.any(String));
		expect(await cancelledIds()).toContain(taskId);
	}, 30_000);

	it("n8n's Stop during a task: the call ends at once as stopped and the task is cancelled on the server", async () => {
		const stop = new AbortController();
		let quickEnded!: () => void;
		const quickDone = new Promise<void>((resolve) => (quickEnded = resolve));
		const pending = runToolCalls(
			[fixtureCall('c1', 'endless-task'), fixtureCall('c2', 'quick-task', { steps: 1, label: 'quick' })],
			runner(
				new Map([['srv', fixture]]),
				{ mode: 'whenRequired', maxWaitMs: 60_000 },
				{
					signal: stop.signal,
					// The quick task ends after its first poll: by then the endless one runs on the server too.
					observer: (call) => (call.id === 'c2' ? () => quickEnded() : undefined),
				},
			),
		);
		await quickDone;
		stop.abort();
		const run = await pending;
		const endless = run.outcomes.find((outcome) => outcome.id === 'c1');
		expect(endless).toMatchObject({ isError: true });
		expect(endless?.text).toMatch(/was stopped while its task ran; the task was cancelled on the server/);
		expect(run.tasks?.c2).toMatchObject({ status: 'completed' });
		expect(await cancelledIds()).toContain(run.tasks?.c1?.taskId);
	}, 30_000);
});

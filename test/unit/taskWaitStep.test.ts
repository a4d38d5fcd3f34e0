/**
 * The durable task wait in the pure step function (issue 29, point 3): a call whose MCP task still
 * runs is neither run again nor settled; the run pauses for it together with calls waiting for a
 * review and for a person's input, in any order of events, and the results reach the model in the
 * order of the calls once all are in. Also: the catalog re-check leaves a running task alone, an
 * expiry denies the reviews but keeps waiting for the task, and a damaged stored task is refused.
 */
import { createRun, nextEffect, step } from '../../lib/agent/step';
import { migrateAgentState } from '../../lib/agent/stateSchema';
import type { AgentState, PlannedCall, ReviewDecision } from '../../lib/agent/types';
import type { CatalogTool, ModelTurn } from '../../lib/providers/modelTypes';
import type { RunningTask } from '../../lib/mcp/toolTask';
import { boundArgsHash } from '../../lib/agent/review';
import { nextTaskWake, taskWaitExpiry, MAX_TASK_WAKE_MS, MIN_TASK_WAKE_MS } from '../../lib/approvals/taskWait';
import { runToolCalls } from '../../lib/agent/toolRunner';
import { DEFAULT_OUTCOME_LIMITS } from '../../lib/agent/toolOutcome';
import type { McpConnection } from '../../lib/mcp/connection';
import { toolUseTurn } from '../support/modelTurns';

const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false };
const tools: CatalogTool[] = [
	{ providerName: 'research', mcpName: 'research', serverId: 'srv', serverName: 'lab', description: 'Long research', inputSchema: schema, annotationsTrusted: true, annotations: { readOnlyHint: true }, fingerprint: 'sha256:aaa' },
	{ providerName: 'delete_file', mcpName: 'delete_file', serverId: 'srv', serverName: 'lab', description: 'Deletes', inputSchema: schema, annotationsTrusted: false, fingerprint: 'sha256:bbb' },
	{ providerName: 'book', mcpName: 'book', serverId: 'srv', serverName: 'lab', description: 'Books', inputSchema: schema, annotationsTrusted: true, annotations: { readOnlyHint: true }, fingerprint: 'sha256:ccc' },
];
const FORM = { method: 'elicitation/create', params: { message: 'Which seat?', requestedSchema: { type: 'object', properties: { seat: { type: 'string' } }, required: ['seat'] } } };

const turn = (calls: Array<{ id: string; name: string; args: unknown }>): ModelTurn => toolUseTurn(calls, 'Working.');

function started(): AgentState {
	const state = createRun({
		provider: 'anthropic',
		settings: {
			model: 'm', maxIterations: 10, maxOutputTokens: 100, tokenBudget: 0, toolChoice: { type: 'auto' }, parallelToolCalls: true,
			promptCaching: false, maxToolResultChars: 1000, approval: { mode: 'notReadOnly', listed: [], alwaysAsk: [], neverAsk: [] },
		},
		tools,
		userMessage: 'research, clean up, book',
	});
	return step(state, {
		type: 'model_turn',
		turn: turn([
			{ id: 'c1', name: 'research', args: { path: 'tides' } },
			{ id: 'c2', name: 'delete_file', args: { path: '/tmp/old' } },
			{ id: 'c3', name: 'book', args: { path: 'LIS' } },
		]),
	});
}

const task = (status: RunningTask['status'] = 'working', extra: Partial<RunningTask> = {}): RunningTask => ({
	taskId: 'task-7',
	protocol: '2025-11-25',
	status,
	pollIntervalMs: 2_000,
	deadline: Date.parse('2030-01-01T00:00:00.000Z'),
	limit: 'Max Task Wait (3600 s)',
	...extra,
});

function phase(state: AgentState) {
	if (state.phase.name !== 'run_tools') throw new Error(`phase ${state.phase.name}`);
	return state.phase;
}
const callOf = (state: AgentState, id: string) => phase(state).calls.find((c) => c.id === id) as PlannedCall;
const ids = (calls: PlannedCall[]) => calls.map((call) => call.id);
const open = (state: AgentState, id = 'ap1') => step(state, { type: 'approval_opened', approval: { id, requestedAt: '2029-12-31T00:00:00.000Z', expiresAt: '2029-12-31T12:00:00.000Z' } });

/** After the first tool round: c1's task still runs, c2 waits for review, c3's server asked for input. */
function waitingForAll(): AgentState {
	let state = started();
	expect(nextEffect(state)).toMatchObject({ type: 'run_tools', calls: [{ id: 'c1' }, { id: 'c3' }] });
	state = step(state, {
		type: 'tool_outcomes',
		outcomes: [],
		durations: { c1: 60_000, c3: 5 },
		running: { c1: task() },
		tasks: { c1: { taskId: 'task-7', status: 'working' } },
		inputRequired: [{ id: 'c3', inputRequests: { seat: FORM } as never, requestState: 's1' }],
	});
	return open(state);
}

describe('a run that waits for a task, a review and an input at once', () => {
	it('pauses for all three, checks the task without running it again, and settles once all are in, in call order', () => {
		let state = waitingForAll();
		const effect = nextEffect(state);
		expect(effect).toMatchObject({ type: 'request_approval', approval: { id: 'ap1' } });
		if (effect.type !== 'request_approval') throw new Error('not paused');
		expect(ids(effect.calls)).toEqual(['c2', 'c3']);
		expect(ids(effect.tasks)).toEqual(['c1']);
		// Plain JSON: the paused state survives the store unchanged, and reads back as valid.
		expect(migrateAgentState(JSON.parse(JSON.stringify(state)), 'test')).toEqual(state);

		// A wake: the task still runs, with a new status; nothing settles, nothing becomes runnable.
		state = step(state, { type: 'tool_outcomes', outcomes: [], running: { c1: task('working', { statusMessage: 'Step 2' }) }, tasks: { c1: { taskId: 'task-7', status: 'working', statusMessage: 'Step 2' } } });
		expect(callOf(state, 'c1').task).toMatchObject({ status: 'working', statusMessage: 'Step 2' });
		expect(nextEffect(state)).toMatchObject({ type: 'request_approval', calls: [{ id: 'c2' }, { id: 'c3' }], tasks: [{ id: 'c1' }] });

		// The person approves c2 and answers c3: those two run; the task is not among them.
		const decisions: ReviewDecision[] = [
			{ callId: 'c2', argsHash: boundArgsHash(callOf(state, 'c2')), decision: 'approve' },
			{ callId: 'c3', argsHash: boundArgsHash(callOf(state, 'c3')), inputHash: callOf(state, 'c3').input?.inputHash, inputResponses: { seat: { action: 'accept', content: { seat: 'window' } } } },
		];
		state = step(state, { type: 'approval_decided', approvalId: 'ap1', decisions, reviewer: 'Ana', decidedAt: '2029-12-31T01:00:00.000Z' });
		expect(nextEffect(state)).toMatchObject({ type: 'run_tools', calls: [{ id: 'c2' }, { id: 'c3' }] });
		state = step(state, {
			type: 'tool_outcomes',
			outcomes: [
				{ id: 'c2', isError: false, text: 'deleted', images: [] },
				{ id: 'c3', isError: false, text: 'booked 12A', images: [] },
			],
		});
		// Only the task is left: the run pauses for it alone (no person is asked anything).
		const left = nextEffect(state);
		expect(left).toMatchObject({ type: 'request_approval', calls: [], tasks: [{ id: 'c1' }] });

		// The task completed: its result comes in and the turn settles, results in the order of the calls.
		state = step(state, { type: 'tool_outcomes', outcomes: [{ id: 'c1', isError: false, text: 'tides are lunar', images: [] }], tasks: { c1: { taskId: 'task-7', status: 'completed' } } });
		expect(nextEffect(state)).toEqual({ type: 'call_model' });
		const results = (state.transcript[state.transcript.length - 1] as { content: Array<{ tool_use_id: string; content: unknown }> }).content;
		expect(results.map((result) => result.tool_use_id)).toEqual(['c1', 'c2', 'c3']);
		expect(String(results[0].content)).toContain('tides are lunar');
		expect(state.toolLog.map((entry) => entry.id)).toEqual(['c1', 'c2', 'c3']);
		expect(state.toolLog[0]).toMatchObject({ isError: false, task: { taskId: 'task-7', status: 'completed' } });
		expect(state.toolLog[1]).toMatchObject({ review: { decision: 'approved', reviewer: 'Ana' } });
	});

	it('the task can finish first, while the person has not decided yet: the run keeps waiting for the person', () => {
		let state = waitingForAll();
		state = step(state, { type: 'tool_outcomes', outcomes: [{ id: 'c1', isError: false, text: 'done early', images: [] }] });
		const effect = nextEffect(state);
		expect(effect).toMatchObject({ type: 'request_approval', approval: { id: 'ap1' }, calls: [{ id: 'c2' }, { id: 'c3' }], tasks: [] });
	});

	it('an expiry denies the pending review and input, and the run still waits for the task', () => {
		let state = waitingForAll();
		state = step(state, { type: 'approval_expired', approvalId: 'ap1', at: '2029-12-31T12:00:00.000Z' });
		expect(nextEffect(state)).toMatchObject({ type: 'request_approval', calls: [], tasks: [{ id: 'c1' }] });
		expect(phase(state).approval).toBeUndefined();
	});

	it("an expiry while a running task's own question waits for a person: the question is answered cancel with the next check, and the run still waits for the task (never left running unseen)", async () => {
		let state = started();
		state = step(state, {
			type: 'tool_outcomes',
			outcomes: [{ id: 'c3', isError: false, text: 'booked', images: [] }],
			running: { c1: task('input_required') },
			inputRequired: [{ id: 'c1', inputRequests: { seat: FORM } as never }],
		});
		state = open(state);
		expect(nextEffect(state)).toMatchObject({ type: 'request_approval', calls: [{ id: 'c1' }, { id: 'c2' }], tasks: [] });
		state = step(state, { type: 'approval_expired', approvalId: 'ap1', at: '2029-12-31T12:00:00.000Z' });
		expect(Object.hasOwn(phase(state).outcomes, 'c1')).toBe(false);
		expect(callOf(state, 'c1').input).toMatchObject({ status: 'expired', responses: { seat: { action: 'cancel' } } });
		expect(nextEffect(state)).toMatchObject({ type: 'request_approval', calls: [], tasks: [{ id: 'c1' }] });
		// The check that follows sends the cancel once (the task waited for input); the server then finishes or ends the task.
		const call = callOf(state, 'c1');
		const seen: Array<Record<string, unknown>> = [];
		const connection = {
			resumeTask: async (_name: string, _task: RunningTask, options: Record<string, unknown>) => {
				seen.push(options);
				return { kind: 'task_running', task: { ...task(), status: 'working' } };
			},
		} as unknown as McpConnection;
		await runToolCalls([call], { connections: new Map([['srv', connection]]), concurrency: 1, timeoutMs: 1_000, limits: DEFAULT_OUTCOME_LIMITS, tasks: { mode: 'whenRequired', maxWaitMs: 60_000, handOffAfterMs: 0 } });
		expect(seen[0]).toMatchObject({ continuation: { inputResponses: { seat: { action: 'cancel' } } } });
	});

	it("a check that takes the watch's outcome also takes the last progress the watch saw, for the run's tool log", async () => {
		const call = { ...callOf(waitingForAll(), 'c1') };
		const connection = { resumeTask: async () => Promise.reject(new Error('not asked: the watch had the outcome')) } as unknown as McpConnection;
		const result = await runToolCalls([call], {
			connections: new Map([['srv', connection]]),
			concurrency: 1,
			timeoutMs: 1_000,
			limits: DEFAULT_OUTCOME_LIMITS,
			tasks: {
				mode: 'whenRequired',
				maxWaitMs: 60_000,
				handOffAfterMs: 0,
				watched: (_server, _taskId, _onStatus, onProgress) => {
					onProgress?.({ progress: 9, total: 10, message: 'Step 9' });
					return Promise.resolve({ kind: 'result', result: { content: [{ type: 'text', text: 'found' }] } } as never);
				},
			},
		});
		expect(result.outcomes).toMatchObject([{ id: 'c1', isError: false, text: 'found' }]);
		expect(result.progress).toEqual({ c1: { progress: 9, total: 10, message: 'Step 9' } });
	});

	it("the catalog re-check on resume leaves a running task alone, even when its tool's definition changed", () => {
		const state = waitingForAll();
		const changed = tools.map((tool) => (tool.mcpName === 'research' ? { ...tool, fingerprint: 'sha256:changed' } : tool));
		const refreshed = step(state, { type: 'catalog_refreshed', tools: changed });
		expect(callOf(refreshed, 'c1')).toEqual(callOf(state, 'c1'));
		expect(callOf(refreshed, 'c1').review).toBeUndefined();
	});

	it('a stored run whose running task lost its id or deadline is refused as damaged', () => {
		const state = JSON.parse(JSON.stringify(waitingForAll())) as AgentState;
		(callOf(state, 'c1').task as unknown as Record<string, unknown>).deadline = 'soon';
		expect(() => migrateAgentState(state, 'The paused run of approval ap1')).toThrow(/damaged \(a running task without its id, protocol, deadline or poll interval\)/);
	});
});

describe('when the execution wakes for a task (lib/approvals/taskWait.ts)', () => {
	const at = (pollIntervalMs: number, deadline = 10 * 3_600_000) => ({ id: 'c', providerName: 'x', arguments: {}, task: task('working', { pollIntervalMs, deadline }) }) as PlannedCall;

	it("at the server's poll interval, within n8n's wait tracker's bounds, never past a deadline", () => {
		expect(nextTaskWake([at(20_000)], 0)).toBe(20_000);
		expect(nextTaskWake([at(250)], 0)).toBe(MIN_TASK_WAKE_MS);
		expect(nextTaskWake([at(30 * 60_000)], 0)).toBe(MAX_TASK_WAKE_MS);
		expect(nextTaskWake([at(30_000), at(10_000)], 0)).toBe(10_000);
		expect(nextTaskWake([at(30_000, 7_000)], 0)).toBe(7_000);
		expect(nextTaskWake([{ id: 'c', providerName: 'x', arguments: {} }], 0)).toBeUndefined();
	});

	it('a wait for tasks alone expires a minute after the last deadline', () => {
		expect(taskWaitExpiry([at(1_000, 5_000), at(1_000, 9_000)])).toBe(69_000);
	});
});

describe("a task's answers go to the server once", () => {
	/** The options each check of call c1 is made with, on a connection that only records them. */
	async function checkWith(task: RunningTask): Promise<Record<string, unknown>> {
		const seen: Array<Record<string, unknown>> = [];
		const connection = {
			resumeTask: async (_name: string, _task: RunningTask, options: Record<string, unknown>) => {
				seen.push(options);
				return { kind: 'task_running', task: { ...task, status: 'working' } };
			},
		} as unknown as McpConnection;
		const call: PlannedCall = {
			id: 'c1',
			providerName: 'research',
			tool: { serverId: 'srv', serverName: 'lab', mcpName: 'research', fingerprint: 'f' },
			arguments: {},
			task,
			input: { status: 'answered', round: 1, inputRequests: { seat: FORM as never }, inputHash: 'h', responses: { seat: { action: 'accept', content: { seat: 'window' } } } },
		};
		await runToolCalls([call], { connections: new Map([['srv', connection]]), concurrency: 1, timeoutMs: 1_000, limits: DEFAULT_OUTCOME_LIMITS, tasks: { mode: 'whenRequired', maxWaitMs: 60_000, handOffAfterMs: 0 } });
		return seen[0];
	}

	it('with the check that follows the answer (the task waited for input), and not with later checks (it works on)', async () => {
		expect(await checkWith(task('input_required'))).toMatchObject({ continuation: { inputResponses: { seat: { action: 'accept', content: { seat: 'window' } } } } });
		expect(await checkWith(task('working'))).not.toHaveProperty('continuation');
	});
});

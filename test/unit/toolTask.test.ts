/**
 * MCP Tasks (issue 29, increment 1): when a call goes as a task, and the wait for it, on a fake
 * clock and a scripted server (no sleeps, no network). The real servers are in
 * test/integration/toolTasks.test.ts.
 */
import { McpAgentError } from '../../lib/errors';
import {
	summarizeTask,
	awaitTask,
	decideTaskCall,
	DEFAULT_POLL_INTERVAL_MS,
	MAX_POLL_INTERVAL_MS,
	MAX_TASK_STATUS_BYTES,
	MIN_POLL_INTERVAL_MS,
	parseTaskState,
	pollDelay,
	serverOffersToolTasks,
	TaskFailed,
	taskRequestMetadata,
	type TaskChannel,
	type TaskState,
} from '../../lib/mcp/toolTask';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';
import { FakeClock, flush, settle } from '../support/fakeClock';


function task(status: string, extra: Partial<TaskState> & Record<string, unknown> = {}): Record<string, unknown> {
	return { taskId: 't-1', status, ttl: 600_000, createdAt: '2026-12-02T00:00:00Z', lastUpdatedAt: '2026-12-02T00:00:00Z', pollInterval: 1000, ...extra };
}

/** A server that answers tasks/get from a script (the last answer repeats), and records every request. */
function scripted(answers: unknown[], result: Record<string, unknown> = { content: [{ type: 'text', text: 'done' }] }) {
	const calls: string[] = [];
	let index = 0;
	const channel: TaskChannel & { calls: string[]; resultTimeouts: Array<number | undefined> } = {
		calls,
		resultTimeouts: [],
		get: async () => {
			calls.push('get');
			const answer = answers[Math.min(index, answers.length - 1)];
			index += 1;
			return answer;
		},
		result: async (_id, timeoutMs) => {
			calls.push('result');
			channel.resultTimeouts.push(timeoutMs);
			return result;
		},
		cancel: async () => {
			calls.push('cancel');
			return {};
		},
	};
	return channel;
}

const created = task('working') as unknown as TaskState;

describe('when a call goes as a task', () => {
	const tool = (taskSupport?: string): ToolDefinition => ({ name: 'research', inputSchema: { type: 'object' }, ...(taskSupport ? { execution: { taskSupport } } : {}) });
	const legacyWithTasks = { isModern: false, capabilities: { tasks: { requests: { tools: { call: {} } } } } };

	it.each([
		['forbidden', 'whenRequired', false],
		[undefined, 'whenSupported', false],
		['optional', 'whenRequired', false],
		['optional', 'whenSupported', true],
		['optional', 'never', false],
		['required', 'whenRequired', true],
		['required', 'whenSupported', true],
	] as const)('taskSupport %s with Run As Task %s: %s', (support, mode, expected) => {
		expect(decideTaskCall(tool(support), mode, legacyWithTasks)).toBe(expected);
	});

	it('refuses a required tool with Run As Task Never, naming the option (nothing sent)', () => {
		expect(() => decideTaskCall(tool('required'), 'never', legacyWithTasks)).toThrow(/runs only as an MCP task .*Run As Task is Never/);
	});

	it('never sends a task to a server that does not offer them; a required tool is refused saying so', () => {
		const without = { isModern: false, capabilities: { tools: {} } };
		expect(serverOffersToolTasks(without.capabilities)).toBe(false);
		expect(decideTaskCall(tool('optional'), 'whenSupported', without)).toBe(false);
		expect(() => decideTaskCall(tool('required'), 'whenRequired', without)).toThrow(/does not offer tasks for tool calls/);
	});

	it('on a 2026-07-28 connection without the tasks extension every call goes plainly (test/unit/modernTask.test.ts has the rest)', () => {
		const modern = { isModern: true, capabilities: {} };
		expect(decideTaskCall(tool('optional'), 'whenSupported', modern)).toBe(false);
		expect(decideTaskCall(tool('required'), 'whenRequired', modern)).toBe(false);
	});

	it('asks the server to keep the task a minute past the longest wait', () => {
		expect(taskRequestMetadata(300_000)).toEqual({ ttl: 360_000 });
	});
});

describe('poll interval', () => {
	it("follows the server's pollInterval within the documented bounds", () => {
		expect(pollDelay({ pollInterval: 2_000 })).toBe(2_000);
		expect(pollDelay({ pollInterval: 0 })).toBe(MIN_POLL_INTERVAL_MS);
		expect(pollDelay({ pollInterval: -5 })).toBe(MIN_POLL_INTERVAL_MS);
		expect(pollDelay({ pollInterval: 86_400_000 })).toBe(MAX_POLL_INTERVAL_MS);
		expect(pollDelay({})).toBe(DEFAULT_POLL_INTERVAL_MS);
		expect(pollDelay({ pollInterval: Number.NaN })).toBe(DEFAULT_POLL_INTERVAL_MS);
	});
});

describe('task answers are checked', () => {
	it('takes a valid CreateTaskResult and tasks/get answer', () => {
		expect(parseTaskState('t', { task: task('working') }, 'tools/call').taskId).toBe('t-1');
		expect(parseTaskState('t', task('completed'), 'tasks/get', 't-1').status).toBe('completed');
	});

	it('names an unknown status, a missing task, another task id, a malformed field, an oversized answer', () => {
		expect(() => parseTaskState('t', task('paused'), 'tasks/get', 't-1')).toThrow(/status this client does not know \("paused" in the tasks\/get answer/);
		expect(() => parseTaskState('t', { content: [] }, 'tools/call')).toThrow(/without a task \(CreateTaskResult\.task\)/);
		expect(() => parseTaskState('t', task('working', { taskId: 'other' }), 'tasks/get', 't-1')).toThrow(/answered for another task \("other"\)/);
		expect(() => parseTaskState('t', task('working', { createdAt: 5 as unknown as string }), 'tasks/get', 't-1')).toThrow(/not a valid task \(createdAt: /);
		expect(() => parseTaskState('t', task('working', { statusMessage: 'x'.repeat(MAX_TASK_STATUS_BYTES) }), 'tasks/get', 't-1')).toThrow(/larger than 64 KB/);
	});

	it('every such error is of the family, code remote', () => {
		try {
			parseTaskState('t', task('paused'), 'tasks/get', 't-1');
		} catch (error) {
			expect(McpAgentError.isInstance(error) && error.code).toBe('remote');
		}
	});
});

describe('waiting for a task', () => {
	it("polls at the server's interval until completed, then fetches the result once", async () => {
		const clock = new FakeClock();
		const channel = scripted([task('working', { pollInterval: 2_000 }), task('working', { pollInterval: 3_000 }), task('completed')]);
		const statuses: string[] = [];
		const result = await settle(clock, awaitTask(created, channel, { tool: 'research', maxWaitMs: 60_000, timers: clock, onStatus: (state) => statuses.push(state.status) }));
		expect(result).toEqual({ content: [{ type: 'text', text: 'done' }] });
		expect(channel.calls).toEqual(['get', 'get', 'get', 'result']);
		// The created task's interval first, then each answer's own.
		expect(clock.waits).toEqual([1_000, 2_000, 3_000]);
		expect(statuses).toEqual(['working', 'working', 'working', 'completed']);
		expect(clock.pending.size).toBe(0);
	});

	it('fetches the result at once when the task is created completed', async () => {
		const clock = new FakeClock();
		const channel = scripted([]);
		await settle(clock, awaitTask(task('completed') as unknown as TaskState, channel, { tool: 'research', maxWaitMs: 60_000, timers: clock }));
		expect(channel.calls).toEqual(['result']);
		expect(clock.waits).toEqual([]);
	});

	it.each([
		['failed', /ended failed \(task "t-1", status "failed"\): the job exploded/],
		['cancelled', /ended cancelled by the server \(task "t-1", status "cancelled"\): the job exploded/],
	])('a task the server ends %s rejects with TaskFailed naming status and message; nothing cancelled', async (status, message) => {
		const clock = new FakeClock();
		const channel = scripted([task(status, { statusMessage: 'the job exploded' })]);
		const error = await settle(clock, awaitTask(created, channel, { tool: 'research', maxWaitMs: 60_000, timers: clock })).catch((caught: unknown) => caught);
		expect(TaskFailed.isInstance(error)).toBe(true);
		expect((error as TaskFailed).message).toMatch(message);
		expect((error as TaskFailed).code).toBe('remote');
		expect((error as TaskFailed).status).toBe(status);
		expect(channel.calls).toEqual(['get']);
	});

	it('an unknown status fails clearly and cancels the task on the server', async () => {
		const clock = new FakeClock();
		const channel = scripted([task('working'), task('paused')]);
		await expect(settle(clock, awaitTask(created, channel, { tool: 'research', maxWaitMs: 60_000, timers: clock }))).rejects.toThrow(/status this client does not know \("paused"/);
		expect(channel.calls).toEqual(['get', 'get', 'cancel']);
		expect(clock.pending.size).toBe(0);
	});

	it('an absurdly large tasks/get answer fails clearly and cancels the task', async () => {
		const clock = new FakeClock();
		const channel = scripted([task('working', { statusMessage: 'x'.repeat(1024 * 1024) })]);
		await expect(settle(clock, awaitTask(created, channel, { tool: 'research', maxWaitMs: 60_000, timers: clock }))).rejects.toThrow(/larger than 64 KB/);
		expect(channel.calls).toEqual(['get', 'cancel']);
	});

	it('a task that never finishes fails at Max Task Wait, naming it, and is cancelled; no timer left', async () => {
		const clock = new FakeClock();
		const channel = scripted([task('working')]);
		const error = await settle(clock, awaitTask(created, channel, { tool: 'research', maxWaitMs: 10_000, timers: clock })).catch((caught: unknown) => caught);
		expect((error as Error).message).toMatch(/did not finish within Max Task Wait \(10 s\); it was cancelled on the server/);
		expect(channel.calls.filter((call) => call === 'get').length).toBe(9);
		expect(channel.calls.at(-1)).toBe('cancel');
		expect(clock.time).toBe(10_000);
		expect(clock.pending.size).toBe(0);
	});

	it("the task's own ttl bounds the wait when shorter, and is named", async () => {
		const clock = new FakeClock();
		const channel = scripted([task('working', { ttl: 3_000 })]);
		const short = task('working', { ttl: 3_000 }) as unknown as TaskState;
		await expect(settle(clock, awaitTask(short, channel, { tool: 'research', maxWaitMs: 60_000, timers: clock }))).rejects.toThrow(
			/within the task's ttl \(3 s, set by the server\)/,
		);
		expect(channel.calls.at(-1)).toBe('cancel');
	});

	it('a server that keeps asking for a poll every hour is still asked every 30 s, and the limit holds', async () => {
		const clock = new FakeClock();
		const channel = scripted([task('working', { pollInterval: 3_600_000 })]);
		await expect(
			settle(clock, awaitTask(task('working', { pollInterval: 3_600_000 }) as unknown as TaskState, channel, { tool: 'r', maxWaitMs: 95_000, timers: clock })),
		).rejects.toThrow(/Max Task Wait \(95 s\)/);
		expect(clock.waits).toEqual([30_000, 30_000, 30_000, 5_000]);
	});

	it('input_required: tasks/result is called at once (the server asks there), bounded by what is left of the wait', async () => {
		const clock = new FakeClock();
		const channel = scripted([task('input_required')]);
		const result = await settle(clock, awaitTask(created, channel, { tool: 'research', maxWaitMs: 60_000, timers: clock }));
		expect(result).toEqual({ content: [{ type: 'text', text: 'done' }] });
		expect(channel.calls).toEqual(['get', 'result']);
		expect(channel.resultTimeouts).toEqual([59_000]);
		expect(clock.pending.size).toBe(0);
	});

	it('input_required past the limit: the blocked tasks/result is aborted and the task cancelled', async () => {
		const clock = new FakeClock();
		const channel = scripted([task('input_required')]);
		let resultSignal: AbortSignal | undefined;
		channel.result = (_id, _timeout, signal) => {
			channel.calls.push('result');
			resultSignal = signal;
			return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
		};
		await expect(settle(clock, awaitTask(created, channel, { tool: 'research', maxWaitMs: 5_000, timers: clock }))).rejects.toThrow(/did not finish within Max Task Wait \(5 s\)/);
		expect(resultSignal?.aborted).toBe(true);
		expect(channel.calls).toEqual(['get', 'result', 'cancel']);
		expect(clock.pending.size).toBe(0);
	});

	it("an abort (n8n's Stop) while waiting between polls sends tasks/cancel, clears the timer, rejects as cancelled", async () => {
		const clock = new FakeClock();
		const channel = scripted([task('working')]);
		const stop = new AbortController();
		const waiting = awaitTask(created, channel, { tool: 'research', maxWaitMs: 60_000, timers: clock, signal: stop.signal });
		await flush();
		expect(clock.pending.size).toBe(1);
		stop.abort();
		const error = await waiting.catch((caught: unknown) => caught);
		expect(McpAgentError.isInstance(error) && error.code).toBe('cancelled');
		expect((error as Error).message).toMatch(/was stopped while its task ran; the task was cancelled on the server \(task "t-1"\)/);
		expect(channel.calls).toEqual(['cancel']);
		expect(clock.pending.size).toBe(0);
	});

	it('an abort during a tasks/get aborts that request and cancels the task', async () => {
		const clock = new FakeClock();
		const channel = scripted([]);
		let getSignal: AbortSignal | undefined;
		channel.get = (_id, signal) => {
			channel.calls.push('get');
			getSignal = signal;
			return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('request aborted'))));
		};
		const stop = new AbortController();
		const waiting = awaitTask(created, channel, { tool: 'research', maxWaitMs: 60_000, timers: clock, signal: stop.signal });
		await flush();
		clock.fireNext();
		await flush();
		expect(channel.calls).toEqual(['get']);
		stop.abort();
		await expect(waiting).rejects.toMatchObject({ code: 'cancelled' });
		expect(getSignal?.aborted).toBe(true);
		expect(channel.calls).toEqual(['get', 'cancel']);
	});

	it('an already aborted signal sends nothing but tasks/cancel', async () => {
		const clock = new FakeClock();
		const channel = scripted([task('working')]);
		await expect(awaitTask(created, channel, { tool: 'research', maxWaitMs: 60_000, timers: clock, signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'cancelled' });
		expect(channel.calls).toEqual(['cancel']);
		expect(clock.pending.size).toBe(0);
	});

	it('a failed tasks/get (the server went away) cancels the task and passes the failure on; a failing cancel does not hide it', async () => {
		const clock = new FakeClock();
		const channel = scripted([]);
		channel.get = async () => {
			channel.calls.push('get');
			throw new McpAgentError('the connection closed', { code: 'remote' });
		};
		channel.cancel = async () => {
			channel.calls.push('cancel');
			throw new Error('closed too');
		};
		await expect(settle(clock, awaitTask(created, channel, { tool: 'research', maxWaitMs: 60_000, timers: clock }))).rejects.toThrow('the connection closed');
		expect(channel.calls).toEqual(['get', 'cancel']);
	});

	it('a completed task whose result cannot be fetched is not cancelled', async () => {
		const clock = new FakeClock();
		const channel = scripted([task('completed')]);
		channel.result = async () => {
			channel.calls.push('result');
			throw new McpAgentError('timed out', { code: 'remote' });
		};
		await expect(settle(clock, awaitTask(created, channel, { tool: 'research', maxWaitMs: 60_000, timers: clock }))).rejects.toThrow('timed out');
		expect(channel.calls).toEqual(['get', 'result']);
	});
});

describe('status notifications (notifications/tasks/status)', () => {
	function watched(answers: unknown[]) {
		const channel = scripted(answers);
		const wakes = new Set<() => void>();
		channel.watch = (_id, wake) => {
			wakes.add(wake);
			return () => wakes.delete(wake);
		};
		return { channel, notify: () => [...wakes].forEach((wake) => wake()), wakes };
	}

	it('a notice polls at once instead of at the end of the interval, and the watch ends with the wait', async () => {
		const clock = new FakeClock();
		const { channel, notify, wakes } = watched([task('completed')]);
		const waiting = awaitTask(task('working', { pollInterval: 10_000 }) as unknown as TaskState, channel, { tool: 'r', maxWaitMs: 60_000, timers: clock });
		await flush();
		clock.time = 2_000;
		notify();
		await settle(clock, waiting);
		expect(clock.time).toBe(2_000);
		expect(channel.calls).toEqual(['get', 'result']);
		expect(wakes.size).toBe(0);
		expect(clock.pending.size).toBe(0);
	});

	it('a flood of notices gets one poll per minimum interval', async () => {
		const clock = new FakeClock();
		const { channel, notify } = watched([task('working'), task('working'), task('completed')]);
		const waiting = awaitTask(task('working', { pollInterval: 10_000 }) as unknown as TaskState, channel, { tool: 'r', maxWaitMs: 60_000, timers: clock });
		for (let round = 0; round < 3; round++) {
			await flush();
			for (let notice = 0; notice < 100; notice++) notify();
			clock.fireNext();
		}
		await settle(clock, waiting);
		expect(channel.calls).toEqual(['get', 'get', 'get', 'result']);
		expect(clock.time).toBe(3 * MIN_POLL_INTERVAL_MS);
	});
});

describe('summarizeTask (what the Agent logs of a task call)', () => {
	const base = { taskId: 't-1', ttl: null, createdAt: '2026-12-02T00:00:00Z', lastUpdatedAt: '2026-12-02T00:00:01Z' };

	it('keeps the id and status, and the message cleaned and capped like progress messages', () => {
		const summary = summarizeTask({ ...base, status: 'working', statusMessage: `Step\u0007 2\u200b of 3 ${'x'.repeat(500)}` });
		expect(summary.taskId).toBe('t-1');
		expect(summary.status).toBe('working');
		expect(summary.statusMessage?.startsWith('Step 2 of 3 xxx')).toBe(true);
		expect(summary.statusMessage?.length).toBe(201);
	});

	it('leaves out a message that is empty once cleaned', () => {
		expect(summarizeTask({ ...base, status: 'completed', statusMessage: '\u200b \u0000' })).toEqual({ taskId: 't-1', status: 'completed' });
	});
});

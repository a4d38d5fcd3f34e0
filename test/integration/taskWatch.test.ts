/**
 * The quick way out of a durable task wait (lib/agent/taskWatch.ts): the process that paused a
 * run follows its task on the kept connection, and once it ended wakes the execution (a POST of
 * the pause's secret to the resume URL, retried while the execution is not waiting yet) and keeps
 * the result for the woken run's check, which takes it once: the server hands the result out once.
 * Against the 2026-07-28 tasks fixture over stdio through a real ConnectionPool; the "resume URL"
 * is a loopback server that first answers as n8n does for an execution still running.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConnectionPool } from '../../lib/mcp/pool/connectionPool';
import { poolingFor } from '../../lib/mcp/pool/poolSettings';
import { forgetWatchedTasks, takeWatchedOutcome, watchTasks } from '../../lib/agent/taskWatch';
import type { McpServerConfig } from '../../lib/mcp/serverConfig';
import type { RunningTask } from '../../lib/mcp/toolTask';
import { fixtureStdio } from '../support/servers';
import { listAllTools } from '../../lib/mcp/listing';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

const config: McpServerConfig = { ...fixtureStdio('modern-task-server.js'), pooling: poolingFor({ type: 'mcpServerStdioApi', id: 'watch' }, { command: 'node' })! };

let pool: ConnectionPool;
let resume: http.Server;
let resumeUrl: string;
const posts: Array<{ body: unknown; answered: number }> = [];
let answers: number[] = [];

beforeAll(async () => {
	pool = new ConnectionPool({ maxSize: 2 });
	resume = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const answered = answers.shift() ?? 200;
			posts.push({ body: JSON.parse(Buffer.concat(chunks).toString() || 'null'), answered });
			res.writeHead(answered).end();
		});
	});
	await new Promise<void>((resolve) => resume.listen(0, '127.0.0.1', resolve));
	resumeUrl = `http://127.0.0.1:${(resume.address() as AddressInfo).port}/webhook-waiting/1`;
});

afterAll(async () => {
	forgetWatchedTasks();
	await pool.closeAll();
	await new Promise<void>((resolve) => resume.close(() => resolve()));
});

/** A task started on the kept connection and handed off at once, still running. */
async function runningTask(tool: string, args: Record<string, unknown>): Promise<RunningTask> {
	const lease = await pool.acquire(config);
	try {
		// The call decides on a task by the listed tool (the Agent's connections have listed theirs).
		await listAllTools(lease.connection);
		const outcome = await lease.connection.callToolInteractive(tool, args, { tasks: { mode: 'whenRequired', maxWaitMs: 60_000, handOffAfterMs: 0 } });
		if (outcome.kind !== 'task_running') throw new Error(`not handed off: ${outcome.kind}`);
		return outcome.task;
	} finally {
		await lease.release();
	}
}

async function plainText(tool: string, args: Record<string, unknown>): Promise<string> {
	const lease = await pool.acquire(config);
	try {
		const outcome = await lease.connection.callToolInteractive(tool, args);
		if (outcome.kind !== 'result') throw new Error(outcome.kind);
		return (outcome.result.content as Array<{ text: string }>)[0].text;
	} finally {
		await lease.release();
	}
}

function woken(count: number): Promise<void> {
	return new Promise((resolve) => {
		const check = setInterval(() => {
			if (posts.filter((post) => post.answered === 200).length >= count) {
				clearInterval(check);
				resolve();
			}
		}, 20);
	});
}

describe('the task watch of a paused run', () => {
	it('wakes the execution with the secret once the task ended (retrying while it is not waiting yet), and the check takes the result once', async () => {
		const task = await runningTask('timed_task', { seconds: 1, label: 'watched' });
		answers = [409, 404];
		watchTasks({
			executionId: 'e1',
			tasks: [{ server: 'Reports', config, tool: 'timed_task', task }],
			pool,
			timeoutMs: 10_000,
			wake: async () => {
				const response = await fetch(resumeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ taskWake: 'secret-of-this-pause' }) });
				return response.ok || response.status === 403;
			},
		});
		await woken(1);
		expect(posts.map((post) => post.answered)).toEqual([409, 404, 200]);
		expect(posts.every((post) => JSON.stringify(post.body) === '{"taskWake":"secret-of-this-pause"}')).toBe(true);

		// Another execution (or another server of the same name elsewhere) gets nothing of it.
		expect(takeWatchedOutcome('e2', 'Reports', task.taskId)).toBeUndefined();
		const seen: string[] = [];
		const outcome = await takeWatchedOutcome('e1', 'Reports', task.taskId, (state) => seen.push(state.status));
		// The check reports the task's last status as the watch saw it, as if it had polled itself.
		expect(seen).toEqual(['completed']);
		expect(outcome).toMatchObject({ kind: 'result', result: { content: [{ type: 'text', text: 'report: watched' }] } });
		expect(takeWatchedOutcome('e1', 'Reports', task.taskId)).toBeUndefined();
		// The server handed the result out once: to the watch, which handed it to the check.
		expect(await plainText('task_deliveries', { taskId: task.taskId })).toBe('1');
	}, 30_000);

	it('a task that fails: the failure is kept for the check, which reports it as the call would have', async () => {
		posts.length = 0;
		const task = await runningTask('failing_task', {});
		watchTasks({ executionId: 'e3', tasks: [{ server: 'Reports', config, tool: 'failing_task', task }], pool, timeoutMs: 10_000, wake: async () => (await fetch(resumeUrl, { method: 'POST', body: '{}' })).ok });
		await woken(1);
		await expect(takeWatchedOutcome('e3', 'Reports', task.taskId)).rejects.toThrow(/ended failed .*the job exploded/);
	}, 30_000);

	it('a task that asks a person: the watch never answers (or declines) it, and wakes the run to ask the person', async () => {
		posts.length = 0;
		const task = await runningTask('asking_task', {});
		watchTasks({ executionId: 'e5', tasks: [{ server: 'Reports', config, tool: 'asking_task', task }], pool, timeoutMs: 10_000, wake: async () => (await fetch(resumeUrl, { method: 'POST', body: '{}' })).ok });
		await woken(1);
		expect(takeWatchedOutcome('e5', 'Reports', task.taskId)).toBeUndefined();
		expect(await plainText('task_status', { taskId: task.taskId })).toBe('input_required');
	}, 30_000);

	it('a run that paused again (a timer wake while the task ran) is woken with the new pause\'s secret, by the one follow-up', async () => {
		posts.length = 0;
		const task = await runningTask('timed_task', { seconds: 1, label: 'again' });
		const secrets: string[] = [];
		const wakeWith = (secret: string) => async () => {
			secrets.push(secret);
			const response = await fetch(resumeUrl, { method: 'POST', body: JSON.stringify({ taskWake: secret }) });
			return response.ok || response.status === 403;
		};
		const watched = [{ server: 'Reports', config, tool: 'timed_task', task }];
		watchTasks({ executionId: 'e6', tasks: watched, pool, timeoutMs: 10_000, wake: wakeWith('first-pause') });
		watchTasks({ executionId: 'e6', tasks: watched, pool, timeoutMs: 10_000, wake: wakeWith('second-pause') });
		await woken(1);
		expect(secrets).toEqual(['second-pause']);
		await expect(takeWatchedOutcome('e6', 'Reports', task.taskId)).resolves.toMatchObject({ kind: 'result' });
		// One follow-up: the server handed the result out once.
		expect(await plainText('task_deliveries', { taskId: task.taskId })).toBe('1');
	}, 30_000);

	it('the execution was stopped in n8n while it waited: the follow-up cancels the task on the server, wakes nobody and keeps nothing', async () => {
		posts.length = 0;
		const task = await runningTask('endless_task', {});
		let probes = 0;
		watchTasks({
			executionId: 'e7',
			tasks: [{ server: 'Reports', config, tool: 'endless_task', task }],
			pool,
			timeoutMs: 10_000,
			wake: async () => (await fetch(resumeUrl, { method: 'POST', body: '{}' })).ok,
			// Still waiting at the first probe, stopped at the second.
			gone: async () => ++probes >= 2,
			probeEveryMs: 100,
		});
		for (let i = 0; i < 100 && (await plainText('task_status', { taskId: task.taskId })) !== 'cancelled'; i++) await new Promise((resolve) => setTimeout(resolve, 100));
		expect(await plainText('task_status', { taskId: task.taskId })).toBe('cancelled');
		expect(probes).toBeGreaterThanOrEqual(2);
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(posts).toEqual([]);
		expect(takeWatchedOutcome('e7', 'Reports', task.taskId)).toBeUndefined();
	}, 30_000);

	it('OAuth servers are not followed (their tokens belong to a running execution): no wake, the timer and the check do it', async () => {
		posts.length = 0;
		const task: RunningTask = { taskId: 'task-x', protocol: '2026-07-28', status: 'working', pollIntervalMs: 100, deadline: Date.now() + 60_000, limit: 'Max Task Wait (60 s)' };
		const oauthConfig = { kind: 'http', url: 'http://127.0.0.1:1/mcp', transport: 'streamableHttp', headers: {}, auth: {} } as unknown as McpServerConfig;
		watchTasks({ executionId: 'e4', tasks: [{ server: 'OAuth', config: oauthConfig, tool: 't', task }], pool, timeoutMs: 1_000, wake: async () => true });
		await new Promise((resolve) => setImmediate(resolve));
		expect(takeWatchedOutcome('e4', 'OAuth', 'task-x')).toBeUndefined();
		expect(posts).toEqual([]);
	});
});

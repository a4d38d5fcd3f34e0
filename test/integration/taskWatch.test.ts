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
import { fixtureStdio, httpConfig, startSelfAnnouncingHttpFixture, type RunningServer } from '../support/servers';
import { McpConnection } from '../../lib/mcp/connection';
import { hostTokenAuth } from '../../lib/mcp/oauth/hostTokenAuth';
import type { AuthProvider } from '@modelcontextprotocol/client';
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

	it('an interactive OAuth session of our own (tests, conformance) is not followed: no wake, the timer and the check do it', async () => {
		posts.length = 0;
		const task: RunningTask = { taskId: 'task-x', protocol: '2026-07-28', status: 'working', pollIntervalMs: 100, deadline: Date.now() + 60_000, limit: 'Max Task Wait (60 s)' };
		const oauthConfig = { kind: 'http', url: 'http://127.0.0.1:1/mcp', transport: 'streamableHttp', headers: {}, auth: { kind: 'session' } } as unknown as McpServerConfig;
		watchTasks({ executionId: 'e4', tasks: [{ server: 'OAuth', config: oauthConfig, tool: 't', task }], pool, timeoutMs: 1_000, wake: async () => true });
		await new Promise((resolve) => setImmediate(resolve));
		expect(takeWatchedOutcome('e4', 'OAuth', 'task-x')).toBeUndefined();
		expect(posts).toEqual([]);
	});

});

/**
 * A server signed in with n8n's OAuth credential (tokens held by the host): the follow-up sends the
 * stored access token as it is, never asks the paused execution's context for a refresh, and gives
 * up at the first refusal (the timer wake's check, in a running execution, refreshes and checks).
 * The 2026-07-28 fixture over Streamable HTTP, requiring a bearer token.
 */
describe('following a task of a server signed in with OAuth (host-held tokens)', () => {
	let server: RunningServer;
	let refused: string[] = [];
	let pool: ConnectionPool;
	let resume: http.Server;
	let resumeUrl: string;
	let wakes = 0;

	beforeAll(async () => {
		server = await startSelfAnnouncingHttpFixture('modern-task-server.js', ['http'], { BEARER_TOKEN: 'at-1' });
		server.process.stderr?.on('data', (chunk: Buffer) => {
			for (const match of chunk.toString().matchAll(/^refused (.+)$/gm)) refused.push(match[1]);
		});
		pool = new ConnectionPool({ maxSize: 2 });
		resume = http.createServer((req, res) => {
			req.resume();
			req.on('end', () => {
				wakes++;
				res.writeHead(200).end();
			});
		});
		await new Promise<void>((resolve) => resume.listen(0, '127.0.0.1', resolve));
		resumeUrl = `http://127.0.0.1:${(resume.address() as AddressInfo).port}/webhook-waiting/2`;
	});

	afterAll(async () => {
		forgetWatchedTasks();
		await pool.closeAll();
		await new Promise<void>((resolve) => resume.close(() => resolve()));
		await server.stop();
	});

	/** The paused execution's auth: it used its token once (the call), its refreshes are counted. */
	async function pausedExecutionAuth() {
		let refreshes = 0;
		const auth = hostTokenAuth({
			initial: { access_token: 'at-1', refresh_token: 'rt-1' },
			refresh: async () => {
				refreshes++;
				return { access_token: 'at-2', refresh_token: 'rt-2' };
			},
		});
		await (auth.provider as AuthProvider).token();
		return { auth, refreshes: () => refreshes };
	}

	async function startedTask(tool: string, args: Record<string, unknown>): Promise<RunningTask> {
		const connection = await McpConnection.open(httpConfig(server.url, { headers: { authorization: 'Bearer at-1' } }));
		try {
			await listAllTools(connection);
			const outcome = await connection.callToolInteractive(tool, args, { tasks: { mode: 'whenRequired', maxWaitMs: 60_000, handOffAfterMs: 0 } });
			if (outcome.kind !== 'task_running') throw new Error(`not handed off: ${outcome.kind}`);
			return outcome.task;
		} finally {
			await connection.close();
		}
	}

	async function statusOnServer(taskId: string): Promise<string> {
		const connection = await McpConnection.open(httpConfig(server.url, { headers: { authorization: 'Bearer at-1' } }));
		try {
			const outcome = await connection.callToolInteractive('task_status', { taskId });
			if (outcome.kind !== 'result') throw new Error(outcome.kind);
			return (outcome.result.content as Array<{ text: string }>)[0].text;
		} finally {
			await connection.close();
		}
	}

	const until = async (done: () => boolean | Promise<boolean>) => {
		for (let i = 0; i < 200 && !(await done()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
	};

	it('follows it with the stored token, wakes the execution once it ended and keeps the result; nothing refreshed, no kept connection used', async () => {
		wakes = 0;
		const { auth, refreshes } = await pausedExecutionAuth();
		const task = await startedTask('quick_task', { steps: 2, label: 'signed in' });
		const config = { ...httpConfig(server.url), auth, pooling: poolingFor({ type: 'mcpServerOAuth2Api', id: 'signed-in' }, { serverUrl: server.url })! };
		watchTasks({ executionId: 'o1', tasks: [{ server: 'Signed in', config, tool: 'quick_task', task }], pool, timeoutMs: 10_000, wake: async () => (await fetch(resumeUrl, { method: 'POST', body: '{}' })).ok });
		await until(() => wakes > 0);
		expect(wakes).toBe(1);
		const outcome = await takeWatchedOutcome('o1', 'Signed in', task.taskId);
		expect(outcome?.kind === 'result' && (outcome.result.content as Array<{ text: string }>)[0].text).toBe('done: signed in');
		expect(refreshes()).toBe(0);
		expect(pool.size).toBe(0);
	}, 30_000);

	it('gives up when the server refuses the stored token: no wake, no outcome kept, no refresh; the task goes on for the timer wake', async () => {
		wakes = 0;
		refused = [];
		const { auth, refreshes } = await pausedExecutionAuth();
		const task = await startedTask('endless_task', {});
		// The token expired (or was revoked) while the execution waits.
		await fetch(server.url.replace('/mcp', '/admin/bearer'), { method: 'POST', body: 'at-9' });
		try {
			watchTasks({ executionId: 'o2', tasks: [{ server: 'Signed in', config: { ...httpConfig(server.url), auth }, tool: 'endless_task', task }], pool, timeoutMs: 10_000, wake: async () => (wakes++, true) });
			await until(() => refused.length > 0);
			await new Promise((resolve) => setTimeout(resolve, 300));
			expect(refused.length).toBeGreaterThan(0);
			expect(wakes).toBe(0);
			expect(takeWatchedOutcome('o2', 'Signed in', task.taskId)).toBeUndefined();
			expect(refreshes()).toBe(0);
		} finally {
			await fetch(server.url.replace('/mcp', '/admin/bearer'), { method: 'POST', body: 'at-1' });
		}
		expect(await statusOnServer(task.taskId)).toBe('working');
	}, 30_000);

	it('the execution was stopped in n8n while it waited: the task of the OAuth server is cancelled too', async () => {
		wakes = 0;
		const { auth } = await pausedExecutionAuth();
		const task = await startedTask('endless_task', {});
		let probes = 0;
		watchTasks({
			executionId: 'o3',
			tasks: [{ server: 'Signed in', config: { ...httpConfig(server.url), auth }, tool: 'endless_task', task }],
			pool,
			timeoutMs: 10_000,
			wake: async () => (wakes++, true),
			gone: async () => ++probes >= 2,
			probeEveryMs: 100,
		});
		await until(async () => (await statusOnServer(task.taskId)) === 'cancelled');
		expect(await statusOnServer(task.taskId)).toBe('cancelled');
		expect(wakes).toBe(0);
	}, 30_000);
});

describe('the progress of a 2025-11-25 task after its call handed it off (SEP-1686: the token stays the task\'s)', () => {
	const legacy: McpServerConfig = { ...fixtureStdio('task-server.js'), pooling: poolingFor({ type: 'mcpServerStdioApi', id: 'legacy-progress' }, { command: 'node' })! };

	/** quick-task started with a progress token and handed off at once, on the kept connection. */
	async function handedOff(label: string): Promise<{ task: RunningTask; before: string[] }> {
		const lease = await pool.acquire(legacy);
		const before: string[] = [];
		try {
			await listAllTools(lease.connection);
			const outcome = await lease.connection.callToolInteractive('quick-task', { steps: 3, label }, {
				onProgress: (progress) => before.push(progress.message ?? String(progress.progress)),
				tasks: { mode: 'whenRequired', maxWaitMs: 60_000, handOffAfterMs: 0 },
			});
			if (outcome.kind !== 'task_running') throw new Error(`not handed off: ${outcome.kind}`);
			return { task: outcome.task, before };
		} finally {
			await lease.release();
		}
	}

	it('a later check on the kept connection gets the progress the server goes on sending with the call\'s token', async () => {
		const { task, before } = await handedOff('checked');
		expect(task.progressToken).toMatch(/^task-progress-/);
		expect(before).toEqual([]);
		const lease = await pool.acquire(legacy);
		const seen: string[] = [];
		try {
			const outcome = await lease.connection.resumeTask('quick-task', task, { onProgress: (progress) => seen.push(`${progress.progress}/${progress.total} ${progress.message}`), tasks: { mode: 'whenRequired', maxWaitMs: 60_000, handOffAfterMs: 30_000 } });
			expect(outcome).toMatchObject({ kind: 'result', result: { content: [{ type: 'text', text: 'done: checked' }] } });
		} finally {
			await lease.release();
		}
		expect(seen).toEqual(['1/3 Step 1', '2/3 Step 2']);
	}, 30_000);

	it('a check that hands the task off again keeps the token for the next one', async () => {
		const { task } = await handedOff('twice');
		const lease = await pool.acquire(legacy);
		try {
			const outcome = await lease.connection.resumeTask('quick-task', task, { onProgress: () => undefined, tasks: { mode: 'whenRequired', maxWaitMs: 60_000, handOffAfterMs: 0 } });
			expect(outcome.kind).toBe('task_running');
			if (outcome.kind === 'task_running') expect(outcome.task.progressToken).toMatch(/^task-progress-/);
			if (outcome.kind === 'task_running') expect(outcome.task.progressToken).toBe(task.progressToken);
		} finally {
			await lease.release();
		}
	}, 30_000);

	it('the watch of a paused run keeps the last progress it saw for the woken run\'s check', async () => {
		const { task } = await handedOff('watched');
		let wakes = 0;
		watchTasks({ executionId: 'p1', tasks: [{ server: 'Legacy', config: legacy, tool: 'quick-task', task }], pool, timeoutMs: 10_000, wake: async () => (wakes++, true) });
		const deadline = Date.now() + 20_000;
		while (wakes === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
		const progress: string[] = [];
		const outcome = await takeWatchedOutcome('p1', 'Legacy', task.taskId, undefined, (last) => progress.push(`${last.progress}/${last.total} ${last.message}`));
		expect(outcome).toMatchObject({ kind: 'result', result: { content: [{ type: 'text', text: 'done: watched' }] } });
		expect(progress).toEqual(['2/3 Step 2']);
	}, 30_000);
});

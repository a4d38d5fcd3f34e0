/**
 * MCP Tasks (issue 29, increment 1) against real servers: server-everything's
 * `simulate-research-query` (taskSupport "required", about 4 s: four stages of a second, its
 * shortest run) over stdio and Streamable HTTP (the lean HTTP path), and a fixture server whose
 * tasks fail, are cancelled by the server, never end or answer nonsense (test/fixtures/task-server.js).
 */
import * as path from 'node:path';
import { McpConnection } from '../../lib/mcp/connection';
import { connectEverything, toolNamed } from '../support/everythingConnection';
import { listAllTools } from '../../lib/mcp/listing';
import { LeanHttpTransport } from '../../lib/mcp/leanHttpTransport';
import { callToolAnsweringInput, type ToolCallOptions } from '../../lib/mcp/toolCall';
import { TaskFailed, type TaskState } from '../../lib/mcp/toolTask';
import { McpAgentError } from '../../lib/errors';
import { extractToolResult } from '../../lib/tools/callResult';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';
import { REPO_ROOT, stdioConfig, type RunningServer } from '../support/servers';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

const ANY = { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) } } as const;

/** The task's status as the server has it now (a tasks/get of our own). */
async function statusOnServer(connection: McpConnection, taskId: string): Promise<string> {
	const answer = (await connection.client.request({ method: 'tasks/get', params: { taskId } }, ANY)) as { status: string };
	return answer.status;
}

describe.each(['stdio', 'streamableHttp'] as const)('server-everything simulate-research-query over %s', (transport) => {
	let http: RunningServer | undefined;
	let connection: McpConnection;
	let research: ToolDefinition;

	beforeAll(async () => {
		({ connection, http } = await connectEverything(transport));
		research = await toolNamed(connection, 'simulate-research-query');
	});

	afterAll(async () => {
		await connection?.close();
		await http?.stop();
	});

	it('lists the tool as task-only, and the server offers tasks for tool calls', () => {
		expect(research.execution).toEqual({ taskSupport: 'required' });
		expect(connection.protocolVersion).toBe('2025-11-25');
		expect(connection.serverCapabilities).toMatchObject({ tasks: { requests: { tools: { call: {} } } } });
		if (transport === 'streamableHttp') {
			// The lean HTTP path carries the task requests: nothing is routed around it.
			const outer = (connection as unknown as { session: { transport: { inner: unknown } } }).session.transport;
			expect(outer.inner).toBeInstanceOf(LeanHttpTransport);
		}
	});

	it('without task support the server refuses the call (the issue as reported)', async () => {
		const { result } = await callToolAnsweringInput(connection, research, { topic: 'x' });
		expect(extractToolResult(research.name, result).json).toMatchObject({ isError: true, text: expect.stringMatching(/requires task augmentation/) });
	});

	it('runs as a task and gives the result as a quick call would', async () => {
		const statuses: string[] = [];
		// Counts the server's status notices for the task, beside the wait's own watch.
		let notices = 0;
		let unwatch: (() => void) | undefined;
		const answered = await callToolAnsweringInput(
			connection,
			research,
			{ topic: 'tidal energy' },
			{
				runAsTask: 'whenRequired',
				onTaskStatus: (state) => {
					statuses.push(state.status);
					unwatch ??= connection.watchTask(state.taskId, () => notices++);
				},
			},
		);
		unwatch?.();
		const output = extractToolResult(research.name, answered.result);
		expect(output.json.isError).toBe(false);
		expect(output.json.text).toContain('# Research Report: tidal energy');
		expect(statuses[0]).toBe('working');
		expect(statuses.at(-1)).toBe('completed');
		expect(answered.notes).toBeUndefined();
		// server-everything announces each stage: the wait polls on them, not a second later.
		expect(notices).toBeGreaterThan(0);
		expect(connection.taskNotices.size).toBe(0);
	});

	it('a task that asks for input (input_required): the request is declined through tasks/result, the task goes on and completes, with a note', async () => {
		const statuses: string[] = [];
		const answered = await callToolAnsweringInput(
			connection,
			research,
			{ topic: 'python', ambiguous: true },
			{ runAsTask: 'whenRequired', onTaskStatus: (state) => statuses.push(state.status) },
		);
		expect(statuses).toContain('input_required');
		const output = extractToolResult(research.name, answered.result);
		expect(output.json.text).toContain('User declined - using default interpretation');
		expect(answered.notes?.join('\n')).toMatch(/declined/);
	});

	it("an abort (n8n's Stop) sends tasks/cancel: the task is cancelled on the server", async () => {
		const stop = new AbortController();
		let created: TaskState | undefined;
		const calling = callToolAnsweringInput(
			connection,
			research,
			{ topic: 'stopped' },
			{
				runAsTask: 'whenRequired',
				signal: stop.signal,
				onTaskStatus: (state) => {
					created ??= state;
					stop.abort();
				},
			},
		);
		const error = await calling.catch((caught: unknown) => caught);
		expect(McpAgentError.isInstance(error) && error.code).toBe('cancelled');
		expect(created).toBeDefined();
		expect(await statusOnServer(connection, created!.taskId)).toBe('cancelled');
	});
});

describe('tasks that end badly (fixture server over stdio)', () => {
	let connection: McpConnection;
	const tools = new Map<string, ToolDefinition>();

	beforeAll(async () => {
		connection = await McpConnection.open(stdioConfig(process.execPath, [path.join(REPO_ROOT, 'test/fixtures/task-server.js')]));
		for (const tool of await listAllTools(connection)) tools.set(tool.name, tool);
	});

	afterAll(async () => {
		await connection?.close();
	});

	const call = (name: string, args: Record<string, unknown> = {}, options: ToolCallOptions = {}) =>
		callToolAnsweringInput(connection, tools.get(name)!, args, { runAsTask: 'whenRequired', ...options });

	async function cancelledOnServer(): Promise<string[]> {
		const answered = await callToolAnsweringInput(connection, tools.get('cancelled-tasks')!, {});
		return JSON.parse(String(extractToolResult('cancelled-tasks', answered.result).json.text)) as string[];
	}

	it('completes after a few polls with the result', async () => {
		const answered = await call('quick-task', { steps: 3, label: 'fixture' });
		expect(extractToolResult('quick-task', answered.result).json.text).toBe('done: fixture');
	});

	it("the task's progress notifications (the call's token, after the task was created: SEP-1686) reach onProgress", async () => {
		const progress: Array<{ progress: number; total?: number; message?: string }> = [];
		const answered = await call('quick-task', { steps: 3, label: 'progress' }, { onProgress: (reported) => progress.push(reported) });
		expect(extractToolResult('quick-task', answered.result).json.text).toBe('done: progress');
		expect(progress.map((p) => [p.progress, p.total, p.message])).toEqual([
			[1, 3, 'Step 1'],
			[2, 3, 'Step 2'],
		]);
		// The route ends with the wait: nothing is left routed on the connection.
		expect((connection.taskNotices as unknown as { progressRoutes: Map<string, unknown> }).progressRoutes.size).toBe(0);
	});

	it('a task the server fails gives TaskFailed naming the status and the message', async () => {
		const error = await call('failing-task').catch((caught: unknown) => caught);
		expect(TaskFailed.isInstance(error)).toBe(true);
		expect((error as Error).message).toMatch(/The task of tool "failing-task" ended failed \(task "task-\d+", status "failed"\): the job exploded/);
		expect((error as TaskFailed).code).toBe('remote');
	});

	it('a task the server cancels gives TaskFailed saying so', async () => {
		await expect(call('server-cancelled-task')).rejects.toThrow(/ended cancelled by the server \(task "task-\d+", status "cancelled"\): an operator stopped it/);
	});

	it('a task that never ends fails at Max Task Wait and is cancelled on the server', async () => {
		const before = await cancelledOnServer();
		let taskId = '';
		await expect(call('endless-task', {}, { maxTaskWaitMs: 800, onTaskStatus: (state) => (taskId = state.taskId) })).rejects.toThrow(
			/did not finish within Max Task Wait \(0\.8 s\); it was cancelled on the server/,
		);
		expect(await cancelledOnServer()).toEqual([...before, taskId]);
	});

	it('an unknown status fails clearly and the task is cancelled', async () => {
		await expect(call('odd-status-task')).rejects.toThrow(/has a status this client does not know \("paused"/);
		expect((await cancelledOnServer()).length).toBeGreaterThan(0);
	});

	it("an abort sends tasks/cancel for the call's task", async () => {
		const stop = new AbortController();
		let taskId = '';
		const calling = call('endless-task', {}, { signal: stop.signal, onTaskStatus: (state) => (taskId = state.taskId) });
		setTimeout(() => stop.abort(), 400);
		await expect(calling).rejects.toMatchObject({ code: 'cancelled' });
		expect(await cancelledOnServer()).toContain(taskId);
	});

	it('Run As Task: an optional tool runs inline When Required and as a task When Supported', async () => {
		expect(extractToolResult('optional-task', (await call('optional-task')).result).json.text).toBe('ran inline');
		expect(extractToolResult('optional-task', (await call('optional-task', {}, { runAsTask: 'whenSupported' })).result).json.text).toBe('ran as a task');
	});

	it('Run As Task Never refuses a required tool before anything is sent', async () => {
		const before = await cancelledOnServer();
		await expect(call('quick-task', {}, { runAsTask: 'never' })).rejects.toMatchObject({ code: 'config' });
		expect(await cancelledOnServer()).toEqual(before);
	});
});

/**
 * MCP Tasks on a 2026-07-28 connection: the io.modelcontextprotocol/tasks extension against
 * test/fixtures/modern-task-server.js (the v2 server package with hand-written tasks/* handlers,
 * since the SDK does not implement the extension), over stdio and Streamable HTTP through the
 * connection core, and over stdio through MCP Call Tool's own execute.
 */
import { McpConnection } from '../../lib/mcp/connection';
import { listAllTools } from '../../lib/mcp/listing';
import { callToolAnsweringInput, type ToolCallOptions } from '../../lib/mcp/toolCall';
import { TaskFailed } from '../../lib/mcp/toolTask';
import { McpAgentError } from '../../lib/errors';
import { extractToolResult } from '../../lib/tools/callResult';
import type { ToolDefinition } from '../../lib/tools/toolDefinition';
import { executeCallTool } from '../../nodes/McpCallTool/execute';
import { callToolContext } from '../support/callToolContext';
import { fixtureStdio, httpConfig, startSelfAnnouncingHttpFixture, type RunningServer } from '../support/servers';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

describe.each(['stdio', 'http'] as const)('tools that run as tasks on a 2026-07-28 server (tasks extension, %s)', (transport) => {
	let connection: McpConnection;
	let server: RunningServer | undefined;
	const tools = new Map<string, ToolDefinition>();

	beforeAll(async () => {
		if (transport === 'http') server = await startSelfAnnouncingHttpFixture('modern-task-server.js', ['http']);
		connection = await McpConnection.open(server ? httpConfig(server.url) : fixtureStdio('modern-task-server.js'));
		for (const tool of await listAllTools(connection)) tools.set(tool.name, tool);
	});

	afterAll(async () => {
		await connection?.close();
		await server?.stop();
	});

	const call = (name: string, args: Record<string, unknown> = {}, options: ToolCallOptions = {}) =>
		callToolAnsweringInput(connection, tools.get(name)!, args, { runAsTask: 'whenRequired', ...options });

	async function statusOnServer(taskId: string): Promise<string> {
		const answered = await callToolAnsweringInput(connection, tools.get('task_status')!, { taskId });
		return String(extractToolResult('task_status', answered.result).json.text);
	}

	it('is a 2026-07-28 connection and the server offers the extension', () => {
		expect(connection.isModern).toBe(true);
		expect(connection.serverCapabilities).toMatchObject({ extensions: { 'io.modelcontextprotocol/tasks': {} } });
		// 2026-07-28 tools carry no execution.taskSupport: the server decides per call.
		expect(tools.get('quick_task')?.execution).toBeUndefined();
	});

	it('a required-task tool completes after a few polls with its result', async () => {
		const statuses: string[] = [];
		const answered = await call('quick_task', { steps: 2, label: 'modern' }, { onTaskStatus: (state) => statuses.push(state.status) });
		expect(extractToolResult('quick_task', answered.result).json.text).toBe('done: modern');
		expect(statuses).toEqual(['working', 'working', 'working', 'completed']);
	});

	it('a failed task gives TaskFailed with the JSON-RPC error of the task', async () => {
		const error = await call('failing_task').catch((caught: unknown) => caught);
		expect(TaskFailed.isInstance(error)).toBe(true);
		expect((error as Error).message).toMatch(/The task of tool "failing_task" ended failed \(task "task-\d+", status "failed"\): the job exploded/);
	});

	it("an abort (n8n's Stop) sends tasks/cancel: the task is cancelled on the server", async () => {
		const stop = new AbortController();
		let taskId = '';
		const calling = call('endless_task', {}, { signal: stop.signal, onTaskStatus: (state) => (taskId = state.taskId) });
		setTimeout(() => stop.abort(), 400);
		const error = await calling.catch((caught: unknown) => caught);
		expect(McpAgentError.isInstance(error) && error.code).toBe('cancelled');
		expect(taskId).not.toBe('');
		expect(await statusOnServer(taskId)).toBe('cancelled');
	});

	it('an unknown status fails clearly and the task is cancelled on the server', async () => {
		let taskId = '';
		await expect(call('odd_task', {}, { onTaskStatus: (state) => (taskId ||= state.taskId) })).rejects.toThrow(/has a status this client does not know \("paused"/);
		expect(await statusOnServer(taskId)).toBe('cancelled');
	});

	it('input_required: the question is declined with tasks/update and the task completes, with a note', async () => {
		const statuses: string[] = [];
		const answered = await call('asking_task', {}, { maxTaskWaitMs: 3000, onTaskStatus: (state) => statuses.push(state.status) });
		expect(statuses).toContain('input_required');
		expect(extractToolResult('asking_task', answered.result).json.text).toBe('answer: decline');
		expect(answered.notes?.join('\n')).toMatch(/asked for input \("Your name\?"\) while the tool's task ran; it was declined/);
	});

	it('Run As Task Never: the call does not declare the extension, and the server refuses it (-32021)', async () => {
		await expect(call('quick_task', {}, { runAsTask: 'never' })).rejects.toThrow(/Missing required client capability/);
	});

	it('Max Task Wait bounds the wait', async () => {
		await expect(call('endless_task', {}, { maxTaskWaitMs: 600 })).rejects.toThrow(/did not finish within Max Task Wait \(0\.6 s\); it was cancelled on the server/);
	});
});

/** MCP Call Tool's execute on the same fixture (as test/integration/mcpCallToolTasks.test.ts). */
const context = callToolContext('modern-task-server.js', 'Modern tasks');

describe('MCP Call Tool on a 2026-07-28 server with the tasks extension', () => {
	it('a task-only tool runs as a task by default and its result is the item', async () => {
		const [[item]] = await executeCallTool.call(context('quick_task', { steps: 1, label: 'node' }, {}));
		expect(item.json).toMatchObject({ tool: 'quick_task', isError: false, text: 'done: node' });
	});

	it("the task's status changes are on n8n's log, each once (2026-07-28 tasks have no progress notifications)", async () => {
		const logs: string[] = [];
		const logger = { info: (message: string) => logs.push(message), warn: () => undefined, debug: () => undefined, error: () => undefined };
		await executeCallTool.call(context('quick_task', { steps: 2, label: 'logged' }, {}, { more: { logger } }));
		expect(logs).toEqual([
			'MCP Call Tool "MCP Call Tool": tool quick_task task working',
			'MCP Call Tool "MCP Call Tool": tool quick_task task working (Step 1 of 2)',
			'MCP Call Tool "MCP Call Tool": tool quick_task task working (Step 2 of 2)',
			'MCP Call Tool "MCP Call Tool": tool quick_task task completed',
		]);
	});

	it('"Return as Data": a failed task is an isError item with the task', async () => {
		const [[item]] = await executeCallTool.call(context('failing_task', {}, { isErrorHandling: 'data' }));
		expect(item.json).toMatchObject({ tool: 'failing_task', isError: true, text: expect.stringMatching(/the job exploded/), task: { status: 'failed' } });
	});

	it("n8n's Stop stops the wait", async () => {
		const stop = new AbortController();
		const timer = setTimeout(() => stop.abort(), 1_500);
		const [[item]] = await executeCallTool.call(context('endless_task', {}, {}, { signal: stop.signal, continueOnFail: true }));
		clearTimeout(timer);
		// Where the Stop lands depends on the machine's load (before the answer, before the task, during it):
		// each says the call was stopped. Stop during a running task, ready-driven: test/integration/agentTasks.test.ts.
		expect(String(item.json.error)).toMatch(
			/The call of tool "endless_task" was stopped (while its task ran; the task was cancelled on the server|before the server created its task|before the server answered)/,
		);
	});
});

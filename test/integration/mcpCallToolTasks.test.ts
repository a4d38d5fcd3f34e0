import { executeCallTool } from '../../nodes/McpCallTool/execute';
import { callToolContext } from '../support/callToolContext';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

/**
 * MCP Call Tool and MCP Tasks (issue 29, increment 1), through the node's own execute against
 * test/fixtures/task-server.js: a task-only tool gives its result as an item, a failed task fails
 * the item or becomes an isError item with "Return as Data", and n8n's Stop cancels the task.
 */
const context = callToolContext('task-server.js', 'Tasks');

describe('MCP Call Tool and tools that run as tasks', () => {
	it('a task-only tool runs as a task by default and its result is the item', async () => {
		const [[item]] = await executeCallTool.call(context('quick-task', { steps: 2, label: 'node' }, {}));
		expect(item.json).toMatchObject({ tool: 'quick-task', isError: false, text: 'done: node' });
		expect(item.pairedItem).toEqual({ item: 0 });
	});

	it('a failed task fails the item, naming status and message', async () => {
		await expect(executeCallTool.call(context('failing-task', {}, {}))).rejects.toThrow(/ended failed \(task "task-1", status "failed"\): the job exploded/);
	});

	it('"Return as Data": a failed task is an isError item with the task', async () => {
		const [[item]] = await executeCallTool.call(context('failing-task', {}, { isErrorHandling: 'data' }));
		expect(item.json).toMatchObject({
			tool: 'failing-task',
			isError: true,
			text: expect.stringMatching(/the job exploded/),
			task: { taskId: 'task-1', status: 'failed', statusMessage: 'the job exploded' },
		});
	});

	it('Run As Task Never: the item fails saying so, with Continue On Fail as data', async () => {
		const [[item]] = await executeCallTool.call(context('quick-task', {}, { runAsTask: 'never' }, { continueOnFail: true }));
		expect(String(item.json.error)).toMatch(/runs only as an MCP task .*Run As Task is Never/);
	});

	it('Max Task Wait (seconds) bounds the wait', async () => {
		await expect(executeCallTool.call(context('endless-task', {}, { maxTaskWait: 1 }))).rejects.toThrow(/did not finish within Max Task Wait \(1 s\)/);
	});

	it("n8n's Stop (the execution's cancel signal) stops the wait", async () => {
		const stop = new AbortController();
		// Late enough for the task to exist (the process starts in about a second), or else before.
		const timer = setTimeout(() => stop.abort(), 1_500);
		const running = executeCallTool.call(context('endless-task', {}, {}, { signal: stop.signal, continueOnFail: true }));
		const [[item]] = await running;
		clearTimeout(timer);
		expect(String(item.json.error)).toMatch(
			/The call of tool "endless-task" was stopped (while its task ran; the task was cancelled on the server|before the server created its task)/,
		);
	});
});

'use strict';
// End-to-end: the MCP Agent's durable task wait (issue 29) in a real n8n. A tool call that becomes
// an MCP task (the 2026-07-28 tasks extension, test/fixtures/modern-task-server.js over HTTP, in
// its own process so it outlives n8n) and still runs after "Task Wait Before Pausing" (1 s here)
// pauses the run: MCP Approval puts the execution to wait in n8n's database, n8n's wait tracker
// wakes it at the task's poll interval (within its one-minute look), the Agent checks the task and
// pauses again while it runs; once it completed, the result reaches the model. Checked: the
// execution waited (status "waiting"), the answer carries the task's result, and the server handed
// the result out exactly once (its log), also when n8n was stopped and started while it waited. A
// task that asks a question while it runs: the person answers on the review page, the next check
// sends the answer with tasks/update, and the task completes with it. MCP Call Tool with Pause Long
// Tasks does the same through its Task Running output. n8n's Stop on a waiting execution (which
// runs no node code) reaches the server: the process that paused probes the execution and cancels
// the task (the server's log says "cancelled <id>").

const assert = require('node:assert/strict');
const fs = require('node:fs');
const { latestFinishedExecution } = require('../lib/executions');
const { latestExecution } = require('../lib/executionStatuses');
const { waitFor } = require('../lib/net');

/** How often the task server's log says it handed out the result of task `taskId`. */
function deliveries(logFile, taskId) {
	return fs
		.readFileSync(logFile, 'utf8')
		.split('\n')
		.filter((line) => line.startsWith(`delivered ${taskId} `)).length;
}

module.exports = function taskWaitCases(e2e, ctx, { plan, call, finalResults, latestStatus, reviewPage, browserForm, submitForm, assertRecorded, inputFieldName, ownerSession }) {
	const start = (name, rounds) => ctx.n8n.trigger(`agent-${name}`, { plan: rounds });

	/** The first "Needs Approval" item of the run: it waits for the task alone. */
	async function pausedForTask(name) {
		const pending = await ctx.inbox.next('pending', name);
		assert.deepEqual(pending.calls, [], JSON.stringify(pending).slice(0, 400));
		assert.equal(pending.tasks.length, 1, JSON.stringify(pending).slice(0, 400));
		assert.equal(pending.tasks[0].tool, 'timed_task');
		assert.equal(pending.tasks[0].status, 'working');
		assert.match(pending.tasks[0].taskId, /^task-\d+$/);
		assert.ok(Date.parse(pending.wakeAt) > Date.now() - 60_000, pending.wakeAt);
		assert.match(pending.output, /Waiting for a tool that runs as a long task/);
		assert.match(JSON.stringify(pending.tasks), new RegExp(`"server":"Reports"`));
		return pending;
	}

	function assertAnswered(done, taskId, label) {
		assert.equal(done.status, 'completed', JSON.stringify(done).slice(0, 600));
		const results = finalResults(done);
		assert.equal(results.length, 1, JSON.stringify(results));
		assert.equal(results[0].isError, false);
		assert.equal(results[0].text, `report: ${label}`);
		assert.equal(done.toolCalls.length, 1);
		assert.deepEqual([done.toolCalls[0].tool, done.toolCalls[0].isError, done.toolCalls[0].task.taskId, done.toolCalls[0].task.status], ['timed_task', false, taskId, 'completed']);
		assert.equal(deliveries(ctx.modernTasks.logFile, taskId), 1, `the task server handed out the result of ${taskId} more than once`);
	}

	/** The execution waited in MCP Approval and the Agent ran again after it (read from n8n's stored run data). */
	async function assertWaitedAndResumed(workflowId) {
		const execution = await latestFinishedExecution(ctx.n8n, workflowId);
		assert.equal(execution.status, 'success', JSON.stringify(execution));
		assert.ok(execution.runs.Approval >= 1, `MCP Approval never ran: ${JSON.stringify(execution.runs)}`);
		assert.ok(execution.runs['MCP Agent'] >= 2, `the Agent did not run again after the wait: ${JSON.stringify(execution.runs)}`);
	}

	/** Ready check: the execution is stored as waiting (n8n saves it a moment after MCP Approval ran). */
	const waiting = (workflowId) => waitFor(`execution of ${workflowId} waiting`, async () => (await latestStatus(workflowId)) === 'waiting', { timeoutMs: 30_000, intervalMs: 250 });

	e2e('a long MCP task pauses the run in n8n; the woken execution fetches the result once and the model answers with it', async () => {
		await start('taskwait', plan([call('timed_task', { seconds: 3, label: 'durable-1' })]));
		const pending = await pausedForTask('taskwait');
		const done = await ctx.inbox.next('done', 'taskwait', { timeoutMs: 180_000 });
		assertAnswered(done, pending.tasks[0].taskId, 'durable-1');
		await assertWaitedAndResumed(ctx.ids.taskwait);
	}, 240_000);

	e2e("a long task asks a question: the person answers on the review page, the task gets it (tasks/update) and completes", async () => {
		await start('taskask', plan([call('asking_task', {})]));
		// The question may come at the first poll (one pause, for the person) or after a check (a pause for the task first).
		let pending = await ctx.inbox.next('pending', 'taskask');
		if (pending.calls.length === 0) pending = await ctx.inbox.next('pending', 'taskask', { timeoutMs: 120_000 });
		assert.equal(pending.calls.length, 1, JSON.stringify(pending).slice(0, 600));
		const [asking] = pending.calls;
		assert.equal(asking.tool, 'asking_task');
		assert.equal(asking.needsReview, false);
		assert.deepEqual(asking.input.requests.map((request) => [request.key, request.method, request.params.message]), [['name', 'elicitation/create', 'Your name?']]);
		assert.deepEqual(pending.tasks ?? [], [], 'the task is not checked while the person is asked');
		const page = await reviewPage(pending.reviewUrl);
		assert.match(page, /Your name\?/);
		const field = (part, property) => inputFieldName(part, pending.approvalId, asking.callId, 'name', property);
		assertRecorded(await submitForm(pending.reviewUrl, { ...browserForm(page), reviewer: 'E2E Reviewer', [field('action')]: 'accept', [field('value', 'name')]: 'Ana' }));
		const done = await ctx.inbox.next('done', 'taskask', { timeoutMs: 180_000 });
		assert.equal(done.status, 'completed', JSON.stringify(done).slice(0, 600));
		const [result] = finalResults(done);
		assert.equal(result.isError, false);
		assert.match(result.text, /answer: accept$/);
		assert.deepEqual([done.toolCalls[0].input.status, done.toolCalls[0].input.actions, done.toolCalls[0].task.status], ['answered', { name: 'accept' }, 'completed']);
	}, 300_000);

	/** MCP Call Tool's first Task Running item: a wait MCP Approval holds, with the task and no question. */
	async function callToolPaused(name) {
		const pending = await ctx.inbox.next('pending', name);
		assert.equal(pending.source, 'mcpCallTool', JSON.stringify(pending).slice(0, 400));
		assert.deepEqual([pending.calls, pending.needsPerson, pending.tasks.length, pending.tasks[0].tool, pending.tasks[0].status], [[], false, 1, 'timed_task', 'working']);
		assert.match(pending.summaryText, /^No decision needed: MCP Call Tool waits/);
		return pending;
	}

	/** MCP Call Tool's Result item, and the server handed the result out once; the execution waited and the node ran again. */
	async function assertCallToolAnswered(name, taskId, label) {
		const done = await ctx.inbox.next('done', name, { timeoutMs: 180_000 });
		assert.deepEqual([done.tool, done.isError, done.text], ['timed_task', false, `report: ${label}`], JSON.stringify(done).slice(0, 400));
		assert.equal(deliveries(ctx.modernTasks.logFile, taskId), 1, `the task server handed out the result of ${taskId} more than once`);
		const execution = await latestFinishedExecution(ctx.n8n, ctx.ids[name]);
		assert.equal(execution.status, 'success', JSON.stringify(execution));
		assert.ok(execution.runs.Approval >= 1 && execution.runs['MCP Call Tool'] >= 2, `the execution did not wait and check again: ${JSON.stringify(execution.runs)}`);
	}

	e2e('MCP Call Tool, Pause Long Tasks: a long task goes out on Task Running, MCP Approval holds the execution, and the result comes out of Result once', async () => {
		await ctx.n8n.trigger('agent-calltask', { args: { seconds: 3, label: 'call-1' } });
		const pending = await callToolPaused('calltask');
		await assertCallToolAnswered('calltask', pending.tasks[0].taskId, 'call-1');
	}, 240_000);

	e2e('MCP Call Tool, Pause Long Tasks: n8n stopped and started while the execution waits; the task completes exactly once after the restart', async () => {
		await ctx.n8n.trigger('agent-calltaskrestart', { args: { seconds: 20, label: 'call-restart' } });
		const pending = await callToolPaused('calltaskrestart');
		await waiting(ctx.ids.calltaskrestart);
		await ctx.n8n.stop();
		await ctx.n8n.start();
		await assertCallToolAnswered('calltaskrestart', pending.tasks[0].taskId, 'call-restart');
	}, 300_000);

	/** Stops a waiting execution as the editor's Stop button does (n8n runs no node code then). */
	async function stopInEditor(workflowId) {
		const { id } = await latestExecution(ctx.n8n, workflowId);
		const { cookie, headers } = await ownerSession();
		const response = await fetch(`${ctx.n8n.baseUrl}/rest/executions/${id}/stop`, { method: 'POST', headers: { ...headers, cookie } });
		assert.equal(response.status, 200, await response.text());
	}

	e2e("n8n's Stop on an execution waiting for an MCP task cancels the task on the server (MCP Agent, then MCP Call Tool)", async () => {
		await start('taskstop', plan([call('timed_task', { seconds: 600, label: 'stopped-agent' })]));
		const agent = await pausedForTask('taskstop');
		await ctx.n8n.trigger('agent-calltaskstop', { args: { seconds: 600, label: 'stopped-call' } });
		const callTool = await callToolPaused('calltaskstop');
		for (const [name, pending] of [['taskstop', agent], ['calltaskstop', callTool]]) {
			const { taskId } = pending.tasks[0];
			await waiting(ctx.ids[name]);
			await stopInEditor(ctx.ids[name]);
			// The process that paused probes the execution (every 15 s) and cancels the task once it is stopped.
			await waitFor(`${name}: task ${taskId} cancelled on the server`, async () => fs.readFileSync(ctx.modernTasks.logFile, 'utf8').includes(`cancelled ${taskId}\n`), { timeoutMs: 60_000, intervalMs: 500 });
			assert.equal(await latestStatus(ctx.ids[name]), 'canceled');
		}
	}, 240_000);

	e2e('n8n stopped and started while the run waits for its task: the task completes exactly once after the restart', async () => {
		// Long enough that n8n is stopped while the task still runs, and the first check after the restart finds it running.
		await start('taskrestart', plan([call('timed_task', { seconds: 20, label: 'restart-2' })]));
		const pending = await pausedForTask('taskrestart');
		await waiting(ctx.ids.taskrestart);
		await ctx.n8n.stop();
		await ctx.n8n.start();
		const done = await ctx.inbox.next('done', 'taskrestart', { timeoutMs: 180_000 });
		assertAnswered(done, pending.tasks[0].taskId, 'restart-2');
		await assertWaitedAndResumed(ctx.ids.taskrestart);
	}, 300_000);
};

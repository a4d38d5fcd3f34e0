import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INodeExecutionData } from 'n8n-workflow';
import { executeCallTool } from '../../nodes/McpCallTool/execute';
import { sharedPool } from '../../lib/mcp/pool/sharedPool';
import { forgetWatchedTasks } from '../../lib/agent/taskWatch';
import { hashReviewToken } from '../../lib/approvals/reviewToken';
import { callToolContext } from '../support/callToolContext';

process.env.N8N_MCP_AGENT_ALLOW_STDIO = 'true';

/**
 * MCP Call Tool's durable task wait (issue 29, point 2), through the node's own execute against
 * the task fixtures on both protocols, on a kept connection (Keep Server Running: the task outlives
 * the execution). With Pause Long Tasks, a call whose task still runs goes out on Task Running as a
 * wait MCP Approval holds; the item coming back is checked and its result comes out of Result as a
 * quick call's would. The node context is passed on as n8n stores it (a JSON round trip), and the
 * follow-up in this process wakes the resume URL with the pause's secret once the task ends.
 */

const PROTOCOLS = [
	{ protocol: '2025-11-25', fixture: 'task-server.js', quick: 'quick-task', endless: 'endless-task' },
	{ protocol: '2026-07-28', fixture: 'modern-task-server.js', quick: 'quick_task', endless: 'endless_task' },
] as const;

/** A stand-in for n8n's resume URL: records the task wakes it gets. */
async function startResumeUrl(): Promise<{ url: string; wakes: unknown[]; close: () => Promise<void> }> {
	const wakes: unknown[] = [];
	const server = http.createServer((request, response) => {
		let body = '';
		request.on('data', (chunk) => (body += chunk));
		request.on('end', () => {
			wakes.push(JSON.parse(body || '{}'));
			response.end('{}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook-waiting/1?signature=x`;
	return { url, wakes, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe.each(PROTOCOLS)('MCP Call Tool pauses for a long task and gives its result later (%s)', ({ fixture, quick, endless }) => {
	const context = callToolContext(fixture, `Tasks ${fixture}`);
	let resume: Awaited<ReturnType<typeof startResumeUrl>>;

	beforeAll(async () => {
		resume = await startResumeUrl();
	});

	afterAll(async () => {
		forgetWatchedTasks();
		await sharedPool().closeAll();
		await resume.close();
	});

	/** One execution of the node in an execution of id `executionId` whose node context is `stored` (as n8n keeps it). */
	function run(
		tool: string,
		args: Record<string, unknown>,
		options: Record<string, unknown>,
		setup: { stored: Record<string, unknown>; items?: INodeExecutionData[]; fromApproval?: boolean; approvalFollows?: boolean; executionId?: string },
	) {
		const nodeContext = JSON.parse(JSON.stringify(setup.stored)) as Record<string, unknown>;
		const approval = { name: 'MCP Approval', type: 'mcpApproval' };
		const execution = executeCallTool.call(
			context(
				tool,
				args,
				{ pauseLongTasks: true, taskPauseAfter: 0, ...options },
				{
					keepServerRunning: true,
					...(setup.items ? { items: setup.items } : {}),
					more: {
						getContext: () => nodeContext,
						getExecutionId: () => setup.executionId ?? `exec-${fixture}`,
						evaluateExpression: () => resume.url,
						getWorkflow: () => ({ id: 'w1', name: 'Long reports' }),
						getMode: () => 'webhook',
						getChildNodes: () => (setup.approvalFollows === false ? [] : [approval]),
						getParentNodes: () => (setup.fromApproval ? [approval] : [{ name: 'Webhook', type: 'n8n-nodes-base.webhook' }]),
						getInputSourceData: () => ({ previousNode: setup.fromApproval ? 'MCP Approval' : 'Webhook' }),
					},
				},
			),
		);
		return execution.then((outputs) => ({ outputs, stored: nodeContext }));
	}

	/** Sends the Task Running items back (as MCP Approval does) until they come out of Result. */
	async function untilDone(tool: string, paused: INodeExecutionData[], stored: Record<string, unknown>, options: Record<string, unknown> = {}) {
		let items = paused;
		for (let round = 0; round < 40; round++) {
			const next = await run(tool, {}, options, { stored, items: items.map((item) => ({ json: item.json })), fromApproval: true });
			stored = next.stored;
			if (next.outputs[0].length > 0) return { ...next, rounds: round + 1 };
			items = next.outputs[1];
			await new Promise((resolve) => setTimeout(resolve, 200));
		}
		throw new Error('the task never ended');
	}

	it('a call still running goes out on Task Running as a wait MCP Approval holds; the returned item gets the result once', async () => {
		const first = await run(quick, { steps: 3, label: 'paused' }, {}, { stored: {} });
		expect(first.outputs).toHaveLength(2);
		expect(first.outputs[0]).toEqual([]);
		const [waiting] = first.outputs[1];
		expect(waiting.pairedItem).toEqual({ item: 0 });
		expect(waiting.json).toMatchObject({
			kind: 'mcp-agent.approval-request',
			source: 'mcpCallTool',
			calls: [],
			needsPerson: false,
			itemIndex: 0,
			origin: { workflow: 'Long reports', node: 'MCP Call Tool' },
			tasks: [{ tool: quick, status: 'working', server: `Tasks ${fixture}` }],
		});
		expect(String(waiting.json.summaryText)).toMatch(/^No decision needed: MCP Call Tool waits for a tool call/);
		const waitId = String(waiting.json.approvalId);
		expect(Date.parse(String(waiting.json.wakeAt))).toBeGreaterThan(Date.now());
		expect(Date.parse(String(waiting.json.expiresAt))).toBeGreaterThan(Date.parse(String(waiting.json.wakeAt)));
		// What a check needs is in the node context, not in the item (which names only the wait).
		const stored = first.stored.mcpCallToolTaskWaits as Record<string, { tool: string; task: { taskId: string } }>;
		expect(Object.keys(stored)).toEqual([waitId]);
		expect(stored[waitId].task.taskId).toBe((waiting.json.tasks as Array<{ taskId: string }>)[0].taskId);

		const done = await untilDone(quick, [waiting], first.stored);
		expect(done.outputs[0]).toHaveLength(1);
		expect(done.outputs[0][0].json).toMatchObject({ tool: quick, isError: false, text: 'done: paused' });
		expect(done.outputs[0][0].pairedItem).toEqual({ item: 0 });
		expect(done.outputs[1]).toEqual([]);
		expect(done.stored.mcpCallToolTaskWaits).toEqual({});
	});

	it('the follow-up in this process wakes the resume URL with the pause secret once the task ends', async () => {
		const first = await run(quick, { steps: 2, label: 'woken' }, {}, { stored: {}, executionId: `wake-${fixture}` });
		const [waiting] = first.outputs[1];
		// Earlier tests' follow-ups wake the same URL too: this pause's wake carries its own secret.
		const ours = () => resume.wakes.some((wake) => hashReviewToken(String((wake as { taskWake?: unknown }).taskWake)) === waiting.json.taskWakeHash);
		for (let i = 0; i < 100 && !ours(); i++) await new Promise((resolve) => setTimeout(resolve, 100));
		expect(ours()).toBe(true);
		// The woken check takes the followed outcome: the result at once, in one round.
		const done = await run(quick, {}, {}, { stored: first.stored, items: [{ json: waiting.json }], fromApproval: true, executionId: `wake-${fixture}` });
		expect(done.outputs[0][0].json).toMatchObject({ text: 'done: woken', isError: false });
	});

	it('an item of another node or execution is refused, nothing checked', async () => {
		const first = await run(quick, { steps: 50, label: 'x' }, {}, { stored: {} });
		const [waiting] = first.outputs[1];
		await expect(run(quick, {}, {}, { stored: {}, items: [{ json: waiting.json }], fromApproval: true })).rejects.toThrow(/did not start in this execution/);
	});

	it('an item wired straight back before its check is due is refused (no polling loop)', async () => {
		const first = await run(endless, {}, { maxTaskWait: 30 }, { stored: {} });
		const [waiting] = first.outputs[1];
		await expect(run(endless, {}, {}, { stored: first.stored, items: [{ json: waiting.json }], fromApproval: false })).rejects.toThrow(/came back before its next check was due/);
	});

	it('past Max Task Wait the check cancels the task and fails the item naming the limit', async () => {
		const first = await run(endless, {}, { maxTaskWait: 1 }, { stored: {} });
		const [waiting] = first.outputs[1];
		await new Promise((resolve) => setTimeout(resolve, 1_200));
		const checked = run(endless, {}, { maxTaskWait: 1 }, { stored: first.stored, items: [{ json: waiting.json }], fromApproval: true });
		await expect(checked).rejects.toThrow(/Max Task Wait \(1 s\)/);
	});

	it('without an MCP Approval node after it, the node waits in place and the result comes out at once', async () => {
		const { outputs } = await run(quick, { steps: 2, label: 'in place' }, {}, { stored: {}, approvalFollows: false });
		expect(outputs[0][0].json).toMatchObject({ text: 'done: in place' });
		expect(outputs[1]).toEqual([]);
	});
});

/**
 * MCP Approval's task wake (lib/approvals/reviewWebhook.ts, lib/approvals/taskWait.ts): a POST of
 * a pause's wake secret resumes the execution with every pending request unchanged, as the wait
 * timer would, and decides nothing. Any other secret is refused and nothing resumes; a GET never wakes.
 */
import { handleReviewWebhook } from '../../lib/approvals/reviewWebhook';
import { newReviewToken } from '../../lib/approvals/reviewToken';
import type { ApprovalRequest } from '../../lib/approvals/approvalRequest';
import { approvalRequest, pendingCall } from '../support/approvalFixtures';

const NOW = new Date('2030-01-01T01:00:00.000Z');
const wake = newReviewToken();

function waitingForTask(): ApprovalRequest {
	return {
		...approvalRequest({ calls: [] }),
		tasks: [{ callId: 'c1', server: 'Reports', tool: 'timed_task', taskId: 'task-1', status: 'working', waitsUntil: '2030-01-01T02:00:00.000Z' }],
		wakeAt: '2030-01-01T01:00:05.000Z',
		taskWakeHash: wake.hash,
	};
}

const call = (method: string, body: unknown, pending: unknown[], query: unknown = {}) =>
	handleReviewWebhook({ method, headers: { 'content-type': 'application/json' }, query, body, pending, requireSignIn: false, allowedReviewers: [], workflowId: 'wf', now: NOW });

describe("MCP Approval's task wake", () => {
	it('the secret of a pause resumes with every pending request unchanged, and no decision', async () => {
		const other = approvalRequest({ approvalId: 'ap2', calls: [pendingCall('c9', { path: '/x' })] });
		const pending = [waitingForTask(), other];
		const answer = await call('POST', { taskWake: wake.token }, pending);
		expect(answer.status).toBe(200);
		expect(answer.wake).toEqual(pending);
		expect(answer.decisions).toBeUndefined();
		expect(answer.json).toEqual({ woken: true });
	});

	it.each([
		['another secret', newReviewToken().token],
		['the hash itself', wake.hash],
		['no string', 42],
		['an empty one', ''],
	])('%s is refused and nothing resumes', async (_what, secret) => {
		const answer = await call('POST', { taskWake: secret }, [waitingForTask()]);
		expect(answer.status).toBe(403);
		expect(answer.wake).toBeUndefined();
		expect(answer.decisions).toBeUndefined();
	});

	it('a request without a wake hash (a review alone) is never woken', async () => {
		const answer = await call('POST', { taskWake: wake.token }, [approvalRequest({ calls: [pendingCall('c1', { path: '/a' })] })]);
		expect(answer.status).toBe(403);
		expect(answer.wake).toBeUndefined();
	});

	it('a GET never wakes, whatever it carries', async () => {
		const answer = await call('GET', undefined, [waitingForTask()], { taskWake: wake.token });
		expect(answer.wake).toBeUndefined();
		expect(answer.decisions).toBeUndefined();
	});
});

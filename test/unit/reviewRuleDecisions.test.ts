/**
 * An approval rule that limits a reviewer's decisions (issue 28.2): the review page, the form
 * submission and the channel form offer only those; and the page says why each call waits.
 */
import { buildApprovalRequest, offeredDecisions } from '../../lib/approvals/approvalRequest';
import { renderReviewPage, fieldName } from '../../lib/approvals/reviewPage';
import { parseReviewSubmission } from '../../lib/approvals/reviewSubmission';
import { channelForm, CHANNEL_APPROVE, CHANNEL_DENY } from '../../lib/approvals/channelForm';
import { buildCatalog } from '../../lib/agent/catalog';
import { createRun, step } from '../../lib/agent/step';
import type { ApprovalPolicy } from '../../lib/agent/policy';
import type { RunToolsPhase } from '../../lib/agent/types';
import { approvalRequest, pendingCall } from '../support/approvalFixtures';

const limited = pendingCall('c1', { path: '/data/a' }, { decisions: ['approve', 'deny'], askedBy: 'the approval rule "deletes" (rule 1) asks a person' });

describe('the review page offers only the decisions the rule allows', () => {
	const html = renderReviewPage([approvalRequest({ calls: [limited, pendingCall('c2', { path: '/data/b' })] })]);
	const decision = (callId: string, value: string) => new RegExp(`name="${fieldName('decision', 'ap1', callId)}" value="${value}"`).test(html);

	test('no Edit radio and no edit box for the limited call; all three for the other', () => {
		expect([decision('c1', 'approve'), decision('c1', 'deny'), decision('c1', 'edit')]).toEqual([true, true, false]);
		expect([decision('c2', 'approve'), decision('c2', 'deny'), decision('c2', 'edit')]).toEqual([true, true, true]);
		expect(html.includes(`name="${fieldName('args', 'ap1', 'c1')}"`)).toBe(false);
		expect(html).toContain('The approval rule for this call lets you approve or deny only.');
	});

	test('says why the call waits', () => {
		expect(html).toContain('Waits because the approval rule &quot;deletes&quot; (rule 1) asks a person.');
	});

	test('a posted edit the rule does not offer is refused with a clear error, and nothing is decided', () => {
		const body = { reviewer: 'ann', [fieldName('decision', 'ap1', 'c1')]: 'edit', [fieldName('hash', 'ap1', 'c1')]: limited.argsHash, [fieldName('args', 'ap1', 'c1')]: '{"path": "/data/z"}' };
		const result = parseReviewSubmission(body, [approvalRequest({ calls: [limited] })], { now: '2030-01-01T01:00:00.000Z' });
		expect(result.ok ? [] : result.errors).toEqual(['Editing is not offered for delete_file (call c1): its approval rule lets a reviewer approve or deny only.']);
	});

	test('"Approve all" does not approve a call whose rule allows only edit or deny', () => {
		const editOnly = pendingCall('c1', { path: '/data/a' }, { decisions: ['edit', 'deny'] });
		const body = { reviewer: 'ann', bulk: 'approve', [fieldName('hash', 'ap1', 'c1')]: editOnly.argsHash };
		const result = parseReviewSubmission(body, [approvalRequest({ calls: [editOnly] })], { now: '2030-01-01T01:00:00.000Z' });
		expect(result.ok ? [] : result.errors).toEqual(['Approving is not offered for delete_file (call c1): its approval rule lets a reviewer deny or edit only.']);
	});

	test('deny is offered whatever an item claims; an item cannot add what the rule left out of the state', () => {
		expect(offeredDecisions({ decisions: [] })).toEqual(['deny']);
		expect(offeredDecisions({ decisions: ['edit'] })).toEqual(['deny', 'edit']);
		expect(offeredDecisions({})).toEqual(['approve', 'deny', 'edit']);
	});
});

describe('channels', () => {
	test('the channel form offers Approve only where the rule allows it', () => {
		const form = channelForm([
			{ tool: 'delete_file', server: 'fs', code: '0123abcd', decisions: ['edit', 'deny'] },
			{ tool: 'write_file', server: 'fs', code: '4567abcd' },
		]);
		expect(form[0].fieldOptions?.values).toEqual([{ option: CHANNEL_DENY }]);
		expect(form[1].fieldOptions?.values).toEqual([{ option: CHANNEL_APPROVE }, { option: CHANNEL_DENY }]);
	});
});

describe('the Needs Approval item carries the rule from the run state', () => {
	test('decisions and why it waits come from the state, per call', () => {
		const tools = buildCatalog([{ id: 's1', name: 'fs', trustAnnotations: false, tools: [{ name: 'delete_file', inputSchema: { type: 'object' } }, { name: 'write_file', inputSchema: { type: 'object' } }] }]).tools;
		const approval: ApprovalPolicy = { mode: 'all', listed: [], alwaysAsk: [], neverAsk: [], rules: [{ label: 'deletes', tools: ['fs/delete_file'], effect: 'ask', decisions: ['approve'] }] };
		const run = createRun({ provider: 'anthropic', settings: { model: 'm', maxIterations: 3, maxOutputTokens: 10, tokenBudget: 0, toolChoice: { type: 'auto' }, parallelToolCalls: true, promptCaching: false, maxToolResultChars: 100, approval }, tools, userMessage: 'x' });
		const toolCalls = [
			{ id: 'd', name: 'delete_file', rawArguments: {} },
			{ id: 'w', name: 'write_file', rawArguments: {} },
		];
		const state = step(run, { type: 'model_turn', turn: { transcriptItems: [], text: '', toolCalls, stop: 'tool_use', usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 } } });
		const calls = (state.phase as RunToolsPhase).calls;
		const request = buildApprovalRequest(state, { id: 'ap1', requestedAt: 'a', expiresAt: 'b' }, calls);
		expect(request.calls.map((c) => [c.callId, c.decisions, c.askedBy])).toEqual([
			['d', ['approve', 'deny'], 'the approval rule "deletes" (rule 1) asks a person'],
			['w', undefined, "the Agent's Require Approval For setting asks a person"],
		]);
		expect(request.channelForm?.[0].fieldOptions?.values).toEqual([{ option: CHANNEL_APPROVE }, { option: CHANNEL_DENY }]);
	});
});

'use strict';
// Approval rules end to end (issue 28): in one turn a call a run rule allows runs at once, a call a
// refuse rule matches never reaches the server and its reason reaches the model, and a call an ask
// rule catches waits with only the decisions the rule offers; the output says what let each through.

const assert = require('node:assert/strict');

/** The rules of the "rules" workflow: Require Approval For is All Tools, so anything else asks. */
const RULES = {
	rule: [
		{ label: 'test labels', tools: 'Counter/record', effect: 'run', condition: '{"properties": {"label": {"pattern": "^ok-"}}, "required": ["label"]}' },
		{ label: 'big labels', tools: 'Counter/record', effect: 'ask', condition: '{"properties": {"label": {"pattern": "^big-"}}, "required": ["label"]}', decisions: ['approve', 'deny'] },
	],
};
const RULES_JSON = JSON.stringify([{ label: 'forbidden labels', tools: 'record', effect: 'refuse', reason: 'Labels marked forbidden are never recorded.', when: { properties: { label: { pattern: 'forbidden' } } } }]);

module.exports = function ruleCases(e2e, ctx, { plan, call, finalResults, reviewPage, decide, assertRecorded, counterLabels, latestError }) {
	e2e('approval rules: a run rule runs, a refuse rule tells the model why, an ask rule offers only its decisions; the output says who allowed what', async () => {
		await ctx.n8n.trigger('agent-rules', { plan: plan([call('record', { label: 'ok-rules' }), call('record', { label: 'forbidden-rules' }), call('record', { label: 'big-rules' })]) });
		const pending = await ctx.inbox.next('pending', 'rules');
		assert.deepEqual(
			pending.calls.map((c) => [c.arguments.label, c.decisions, c.askedBy]),
			[['big-rules', ['approve', 'deny'], 'the approval rule "big labels" (rule 2) asks a person']],
		);
		// The run rule's call ran before the pause; the refused one never reached the server.
		assert.deepEqual(counterLabels().filter((l) => l.endsWith('-rules')), ['ok-rules']);
		const page = await reviewPage(pending.reviewUrl);
		assert.match(page, /Waits because the approval rule &quot;big labels&quot; \(rule 2\) asks a person\./);
		assert.match(page, /lets you approve or deny only/);
		assert.doesNotMatch(page, /value="edit"/);
		const refusedEdit = await decide(pending, { record: { edit: { label: 'big-edited' } } });
		assert.match(refusedEdit.text, /Editing is not offered for record/);
		assertRecorded(await decide(pending, { record: 'approve' }));
		const done = await ctx.inbox.next('done', 'rules');
		assert.deepEqual(counterLabels().filter((l) => l.endsWith('-rules')), ['ok-rules', 'big-rules']);
		const byLabel = Object.fromEntries(done.toolCalls.map((entry) => [entry.arguments.label, entry]));
		assert.deepEqual(byLabel['ok-rules'].allowedBy, { by: 'rule', rule: 1, label: 'test labels' });
		assert.equal(byLabel['big-rules'].allowedBy.by, 'person');
		assert.equal(byLabel['big-rules'].allowedBy.reviewer, 'E2E Reviewer');
		assert.deepEqual(byLabel['forbidden-rules'].refusedBy, { rule: 3, label: 'forbidden labels' });
		assert.equal(byLabel['forbidden-rules'].allowedBy, undefined);
		const refused = finalResults(done).find((r) => /forbidden/.test(r.text));
		assert.equal(refused.isError, true);
		assert.match(refused.text, /Labels marked forbidden are never recorded\. \(The tool was not called: the approval rule "forbidden labels" refuses this call\.\)/);
	});

	e2e('an approval rule that cannot be used fails the node before any model call, naming the rule', async () => {
		const before = ctx.llm.requests.length;
		await ctx.n8n.trigger('agent-badrule', { plan: plan([call('record', { label: 'never-badrule' })]) });
		const error = await latestError(ctx.ids.badrule);
		assert.match(error.message, /broken rule \(approval rule 1\): the condition uses the pattern/, JSON.stringify(error));
		assert.match(error.description, /Approval Rules/);
		assert.equal(ctx.llm.requests.length, before);
		assert.ok(!counterLabels().includes('never-badrule'));
	});
};

module.exports.workflows = (approvalWorkflow, inboxUrl) => [
	approvalWorkflow({ name: 'rules', inboxUrl, requireApprovalFor: 'all', approvalRules: RULES, approvalOptions: { rulesJson: RULES_JSON } }),
	approvalWorkflow({ name: 'badrule', inboxUrl, requireApprovalFor: 'all', approvalRules: { rule: [{ label: 'broken rule', tools: 'record', effect: 'run', condition: '{"properties": {"label": {"pattern": "(a)\\\\1"}}}' }] } }),
];

'use strict';
// Standing approvals end to end (issue 28.3) in a real n8n (2.41.1 and 1.123.81, SQLite): a person
// approves a call on MCP Approval's review page and allows similar calls (the form posted as a
// browser posts it); the next matching call of the next execution runs without review and says so
// (allowedBy: the grant); a call outside the grant's conditions still waits; a Revoke on a review
// page makes the next matching call wait again; a changed tool definition (rug pull) is not covered.
//
// The tests assert behaviour only, not where the grant is written (the review page's POST, or the
// Agent when it applies the decision): after each decision they wait until every execution of the
// workflow has finished before the next one starts.
//
// A refuse rule's reason reaching the model is checked in ruleCases.js ("approval rules: ... a
// refuse rule tells the model why").

const assert = require('node:assert/strict');
const fs = require('node:fs');
const { waitFor } = require('../lib/net');
const { executionStatuses } = require('../lib/executionStatuses');

// One workflow per case (the same Agent, server and credential), so that a failed case leaves
// nothing waiting that the other one would wait for.
const NAMES = ['grant', 'grantrug'];

/** transfer(to, amount, memo): the counter server's three-field tool; memo is what the counter file records. */
const transferPlan = (plan, call, to, amount, memo) => plan([call('transfer', { to, amount, memo })]);

function helpers(ctx, name, { plan, call, finalResults, reviewPage, assertRecorded, submitForm, decisionForm, latestError }, labels) {
	/** Waits until every execution of the grant workflow has finished (none running or waiting; none at all is finished too). */
	async function allFinished() {
		let statuses = [];
		await waitFor(`every execution of ${name} to finish`, async () => {
			statuses = await executionStatuses(ctx.n8n, ctx.ids[name]);
			return statuses.every((status) => status === 'success');
		}, { timeoutMs: 90000, intervalMs: 1000, failIf: () => statuses.some((s) => ['error', 'crashed', 'canceled'].includes(s)) && `an execution of ${name} ended as ${statuses}` }).catch(async (error) => {
			throw new Error(`${error.message} (statuses ${statuses}; latest error ${JSON.stringify(await latestError(ctx.ids[name]).catch(() => undefined))})`);
		});
	}

	/** Triggers one transfer and returns what comes first: { kind: 'pending' | 'done', message }. */
	async function run(to, amount, memo) {
		await allFinished();
		assert.deepEqual([ctx.inbox.pending('pending', name), ctx.inbox.pending('done', name)], [[], []], 'messages of an earlier run were left');
		await ctx.n8n.trigger(`agent-${name}`, { plan: transferPlan(plan, call, to, amount, memo) });
		let message;
		await waitFor(`a pending or done message for ${memo}`, async () => {
			for (const kind of ['pending', 'done']) {
				const taken = ctx.inbox.take(kind, name);
				if (taken !== undefined) return (message = { kind, message: taken });
			}
			return false;
		}, { timeoutMs: 90000, intervalMs: 300 });
		return message;
	}

	async function expectPending(to, amount, memo) {
		const { kind, message } = await run(to, amount, memo);
		assert.equal(kind, 'pending', `${memo} must wait for a person, but ran: ${JSON.stringify(message.toolCalls ?? message).slice(0, 600)}`);
		assert.deepEqual(message.calls.map((c) => c.arguments), [{ to, amount, memo }]);
		assert.ok(!labels().includes(memo), `${memo} reached the server before a decision`);
		return message;
	}

	async function expectRanByGrant(to, amount, memo) {
		const { kind, message } = await run(to, amount, memo);
		assert.equal(kind, 'done', `${memo} must run without review, but it waits: ${JSON.stringify(message.calls?.map((c) => [c.arguments, c.askedBy]))}`);
		const [entry] = message.toolCalls;
		assert.deepEqual(entry.arguments, { to, amount, memo });
		assert.equal(entry.allowedBy?.by, 'grant', `allowedBy: ${JSON.stringify(entry.allowedBy)}`);
		assert.equal(entry.review, undefined, 'no person reviewed it');
		assert.match(finalResults(message)[0].text, new RegExp(`transferred ${amount} to ${to} \\(${memo}\\)`));
		assert.deepEqual(labels().filter((l) => l === memo), [memo]);
		await allFinished();
		return entry.allowedBy;
	}

	/** Decides the one call of a pending request on its review page; returns the done message. */
	async function decideOnPage(pending, { decision, reviewer = 'Grant Reviewer', grant, page }) {
		const html = page ?? (await reviewPage(pending.reviewUrl));
		assertRecorded(await submitForm(pending.reviewUrl, decisionForm(html, { decision, reviewer, grant, ...(decision === 'deny' ? { reason: 'not now' } : {}) })));
		const done = await ctx.inbox.next('done', name);
		await allFinished();
		return done;
	}

	/**
	 * Approves a call whose tool changed (no grant): the run resumes, and when the request still
	 * showed the definition of a listing made before the change (a kept connection's listing of the
	 * last minute), the resumed run finds it changed and asks once more; approved again, it runs.
	 * Returns { done, definitions: the fingerprints the person was shown }.
	 */
	async function approveChanged(pending, page) {
		const definitions = [pending.calls[0].fingerprint];
		assertRecorded(await submitForm(pending.reviewUrl, decisionForm(page, { decision: 'approve', reviewer: 'Grant Reviewer' })));
		let message;
		await waitFor(`the resumed run of ${pending.calls[0].arguments.memo}`, async () => (message = ctx.inbox.take('done', name) ?? ctx.inbox.take('pending', name)) !== undefined, { timeoutMs: 90000, intervalMs: 300 });
		if (message.calls) {
			assert.match(message.calls[0].warnings.join(' '), /definition changed since this call was requested/, JSON.stringify(message.calls[0].warnings));
			definitions.push(message.calls[0].fingerprint);
			const again = await reviewPage(message.reviewUrl);
			assertRecorded(await submitForm(message.reviewUrl, decisionForm(again, { decision: 'approve', reviewer: 'Grant Reviewer' })));
			message = await ctx.inbox.next('done', name);
		}
		await allFinished();
		return { done: message, definitions };
	}

	return { allFinished, run, expectPending, expectRanByGrant, decideOnPage, approveChanged };
}

module.exports = function grantCases(e2e, ctx, h) {
	const labels = () => h.counterLabels(ctx.grantCounterFile);
	const { grantsOnPage, reviewPage, submitForm, revokeForm, assertRecorded } = h;
	const [grant, rug] = NAMES.map((name) => helpers(ctx, name, h, labels));

	e2e('standing approval: approved on the review page with "allow similar calls", the next matching call runs without review (allowedBy: the grant); one outside its conditions waits; Revoke on a review page makes the next matching call wait again', async () => {
		// 1. A person approves bob/10 and allows similar calls for an hour: "to is bob" and "amount at most 10".
		const first = await grant.expectPending('bob', 10, 'grant-1');
		const page = await reviewPage(first.reviewUrl);
		assert.match(page, /Also allow similar calls without asking\?/);
		const approved = await grant.decideOnPage(first, { decision: 'approve', page, grant: { duration: '1h', conditions: ['to is', 'amount at most'] } });
		assert.equal(approved.toolCalls[0].allowedBy.by, 'person');
		assert.equal(approved.toolCalls[0].allowedBy.reviewer, 'Grant Reviewer');
		assert.deepEqual(labels().filter((l) => l.startsWith('grant-')), ['grant-1']);

		// 2. The next execution: bob/7 with another memo (not ticked: anything) runs at once, by the grant.
		const allowed = await grant.expectRanByGrant('bob', 7, 'grant-2');
		assert.match(allowed.grant, /^grant_[0-9a-f]{32}$/);
		assert.equal(allowed.grantedBy, 'Grant Reviewer');
		assert.ok(Date.parse(allowed.expiresAt) - Date.parse(allowed.grantedAt) === 3_600_000, JSON.stringify(allowed));

		// 3. bob/50 is outside "amount at most 10": a person is asked. Its review page lists the grant.
		const third = await grant.expectPending('bob', 50, 'grant-3');
		const thirdPage = await reviewPage(third.reviewUrl);
		const listed = grantsOnPage(thirdPage).find((g) => g.id === allowed.grant);
		assert.ok(listed, `the grant is listed: ${JSON.stringify(grantsOnPage(thirdPage))}`);
		assert.ok(listed.active);
		assert.match(listed.text, /transfer on Counter with to is "bob" and amount between 0 and 10 Granted by Grant Reviewer at .* · used 1 time\b/);

		// 4. Revoke it there (the button, a POST), then deny the waiting call on the page the revoke returned.
		const revoked = await submitForm(third.reviewUrl, revokeForm(thirdPage, allowed.grant, 'Grant Revoker'));
		assertRecorded(revoked);
		assert.match(revoked.text, /is revoked: calls it covered are asked again/);
		const after = grantsOnPage(revoked.text).find((g) => g.id === allowed.grant);
		assert.equal(after.active, false);
		assert.match(after.text, /Revoked by Grant Revoker at /);
		assert.deepEqual(labels().filter((l) => l === 'grant-3'), [], 'a Revoke decides nothing');
		const denied = await grant.decideOnPage(third, { decision: 'deny', page: revoked.text });
		assert.equal(denied.toolCalls[0].review.decision, 'denied');
		assert.ok(!labels().includes('grant-3'));

		// 5. The same call as in 2 (and one exactly like the approved one) waits again.
		const fourth = await grant.expectPending('bob', 7, 'grant-4');
		const fourthPage = await reviewPage(fourth.reviewUrl);
		assert.equal(grantsOnPage(fourthPage).find((g) => g.id === allowed.grant)?.active, false, 'the revoked grant stays revoked');
		await grant.decideOnPage(fourth, { decision: 'deny', page: fourthPage });
		assert.deepEqual(labels().filter((l) => l.startsWith('grant-')), ['grant-1', 'grant-2']);
	}, 300000);

	e2e('standing approval: a changed tool definition (rug pull) is not covered: the call goes to a person again', async () => {
		fs.rmSync(ctx.grantDescriptionFile, { force: true });
		try {
			// "to is carol" only: the amount is not ticked, so any amount is covered while the definition stays.
			const first = await rug.expectPending('carol', 5, 'rug-1');
			await rug.decideOnPage(first, { decision: 'approve', grant: { duration: '1d', conditions: ['to is'] } });
			const allowed = await rug.expectRanByGrant('carol', 99, 'rug-2');
			assert.ok(Date.parse(allowed.expiresAt) - Date.parse(allowed.grantedAt) === 86_400_000, JSON.stringify(allowed));

			// The server now describes transfer differently: a new definition fingerprint.
			fs.writeFileSync(ctx.grantDescriptionFile, 'Transfers an amount to a recipient (version 2 of this tool).');
			const changed = await rug.expectPending('carol', 5, 'rug-3');
			const page = await reviewPage(changed.reviewUrl);
			// Not revoked, still listed as active: it is the fingerprint that no longer matches.
			assert.equal(grantsOnPage(page).find((g) => g.id === allowed.grant)?.active, true, JSON.stringify(grantsOnPage(page)));
			const { done, definitions } = await rug.approveChanged(changed, page);
			assert.notEqual(definitions.at(-1), first.calls[0].fingerprint, 'the person approved the new definition');
			assert.equal(done.toolCalls[0].allowedBy.by, 'person');
			assert.deepEqual(labels().filter((l) => l.startsWith('rug-')), ['rug-1', 'rug-2', 'rug-3']);
		} finally {
			fs.rmSync(ctx.grantDescriptionFile, { force: true });
		}
	}, 300000);
};

module.exports.workflows = (approvalWorkflow, inboxUrl, server) => NAMES.map((name) => approvalWorkflow({ name, inboxUrl, server }));

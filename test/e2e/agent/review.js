'use strict';
// What the Agent end-to-end suites share: the scripted plan format, reading the fake model's final
// answer, and a reviewer's side of the review page (GET until the execution waits, POST decisions).

const assert = require('node:assert/strict');
const { waitFor } = require('../lib/net');

/** The scripted LLM's plan: rounds of parallel tool calls (see ../lib/scriptedLlm.js). */
const plan = (...rounds) => JSON.stringify({ rounds });
const call = (tool, args = {}) => ({ tool, args });

function finalResults(done) {
	assert.match(done.text, /^FINAL /, `unexpected final text: ${done.text}`);
	return JSON.parse(done.text.slice('FINAL '.length));
}

/** GET the review page; the execution may need a moment to reach its waiting state. */
async function reviewPage(url) {
	let last;
	await waitFor('the review page', async () => {
		last = await fetch(url);
		return last.status === 200;
	}, { timeoutMs: 30000, intervalMs: 300 });
	return last.text();
}

/** POST the review form: decisions maps a tool name (or call id) to 'approve', 'deny' or { edit }. */
async function decide(requests, decisions, { reviewer = 'E2E Reviewer', reason = 'not allowed in tests', overrides = {} } = {}) {
	const list = Array.isArray(requests) ? requests : [requests];
	const form = new URLSearchParams({ reviewer });
	for (const request of list) {
		for (const c of request.calls) {
			const choice = decisions[c.callId] ?? decisions[c.tool] ?? 'approve';
			const field = (kind) => `${kind}__${request.approvalId}__${c.callId}`;
			form.set(field('decision'), typeof choice === 'object' ? 'edit' : choice);
			form.set(field('hash'), c.argsHash);
			form.set(field('reason'), reason);
			if (typeof choice === 'object') form.set(field('args'), JSON.stringify(choice.edit));
		}
	}
	for (const [k, v] of Object.entries(overrides)) form.set(k, v);
	const response = await fetch(list[0].reviewUrl, { method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
	return { status: response.status, text: await response.text() };
}

/** The visible text of a page (tags dropped, whitespace folded), to say in a failed assertion why it refused. */
function pageText(html, max = 800) {
	return String(html).replace(/<style[\s\S]*?<\/style>/gi, ' ').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, max);
}

/** A decision the page recorded: 200, else the page's own words in the failure. */
function assertRecorded(response) {
	assert.equal(response.status, 200, `the review page refused the decision: ${pageText(response.text)}`);
}

module.exports = { plan, call, finalResults, reviewPage, decide, assertRecorded, pageText };

'use strict';
// What the Agent end-to-end suites share: the scripted plan format, reading the fake model's final
// answer, and a reviewer's side of the review page (GET until the execution waits, POST decisions).

const assert = require('node:assert/strict');
const path = require('node:path');
const { waitFor } = require('../lib/net');
const { sleep } = require('../lib/processes');
const { REPO } = require('../lib/everything');

/**
 * The review form's field name for one call. The page derives it from the approval and call ids
 * (so that any id can be submitted); the built package under test says how, as the page it renders does.
 */
function fieldName(kind, approvalId, callId) {
	return require(path.join(REPO, 'dist', 'lib', 'approvals', 'reviewPage.js')).fieldName(kind, approvalId, callId);
}

/** The field name of an input request's part on the review page (from the built package, as the page renders it). */
function inputFieldName(part, approvalId, callId, key, property, option) {
	return require(path.join(REPO, 'dist', 'lib', 'approvals', 'inputForm.js')).inputFieldName(part, approvalId, callId, key, property, option);
}

function unescapeHtml(text) {
	return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, entity) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[entity]);
}

/**
 * What a browser submits for the review page's form before the person touches it: hidden fields,
 * text fields with their values, checked radios and checkboxes, textareas, selected options. An
 * unchecked radio group sends nothing. The review page has no JavaScript, so this is all of it.
 */
function browserForm(html) {
	const form = /<form[^>]*>([\s\S]*?)<\/form>/.exec(html)?.[1];
	assert.ok(form !== undefined, 'the review page has no form');
	const attr = (tag, name) => {
		const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
		return m ? unescapeHtml(m[1]) : undefined;
	};
	const fields = {};
	for (const [tag] of form.matchAll(/<input\b[^>]*>/g)) {
		const name = attr(tag, 'name');
		if (name === undefined) continue;
		const type = attr(tag, 'type') ?? 'text';
		if (type === 'radio' || type === 'checkbox') {
			if (/\schecked\b/.test(tag)) fields[name] = attr(tag, 'value') ?? 'on';
		} else if (type !== 'password') fields[name] = attr(tag, 'value') ?? '';
	}
	for (const m of form.matchAll(/<textarea\b[^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/textarea>/g)) fields[unescapeHtml(m[1])] = unescapeHtml(m[2]);
	for (const m of form.matchAll(/<select\b[^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/select>/g)) {
		const selected = /<option value="([^"]*)" selected>/.exec(m[2]) ?? /<option value="([^"]*)"/.exec(m[2]);
		fields[unescapeHtml(m[1])] = selected ? unescapeHtml(selected[1]) : '';
	}
	return fields;
}

/** POST fields to the page's own URL (the form has no action) as a browser sends a form. */
async function submitForm(url, fields) {
	const response = await fetch(url, { method: 'POST', body: new URLSearchParams(fields), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
	return { status: response.status, text: await response.text() };
}

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
			const field = (kind) => fieldName(kind, request.approvalId, c.callId);
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

/**
 * The next message of an approval workflow, whichever comes first: a "Needs Approval" item
 * (pending) or a final result (done). Fails at once when the execution fails, or when it finishes
 * with neither (the workflow's HTTP Request nodes deliver before the execution can finish).
 * h: { latestStatus(workflowId), latestError(workflowId) }.
 */
async function nextMessage(ctx, name, h, { timeoutMs = 90000 } = {}) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const status = await h.latestStatus(ctx.ids[name]);
		for (const kind of ['pending', 'done']) {
			const message = ctx.inbox.take(kind, name);
			if (message !== undefined) return { kind, message };
		}
		if (status === 'error' || status === 'crashed') throw new Error(`the execution of ${name} failed instead: ${JSON.stringify(await h.latestError(ctx.ids[name]))}`);
		if (status === 'success') throw new Error(`the execution of ${name} finished without a further pending or done message`);
		if (Date.now() > deadline) throw new Error(`neither a pending nor a done message of ${name} arrived within ${timeoutMs} ms (execution ${status})`);
		await sleep(300);
	}
}

module.exports = { plan, call, finalResults, reviewPage, decide, assertRecorded, pageText, fieldName, inputFieldName, browserForm, submitForm, nextMessage };

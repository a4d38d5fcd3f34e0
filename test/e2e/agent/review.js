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
	// A newline right after <textarea> is not part of its value (HTML drops it, as browsers do).
	for (const m of form.matchAll(/<textarea\b[^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/textarea>/g)) fields[unescapeHtml(m[1])] = unescapeHtml(m[2].replace(/^\r?\n/, ''));
	for (const m of form.matchAll(/<select\b[^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/select>/g)) {
		const selected = /<option value="([^"]*)" selected>/.exec(m[2]) ?? /<option value="([^"]*)"/.exec(m[2]);
		fields[unescapeHtml(m[1])] = selected ? unescapeHtml(selected[1]) : '';
	}
	return fields;
}

/**
 * A review page's form as a person fills it in a browser, for its one call: the decision radio
 * ('approve' or 'deny'), and with `grant` the "allow similar calls" choice: how long
 * (`duration`: '1h', '1d', '30d') and either exactly these arguments (`conditions` left out) or the
 * conditions ticked by their labels as the page shows them ("to is", "amount at most"). Every
 * field name comes from the page's HTML: what the browser would send, nothing the page did not render.
 */
function decisionForm(html, { decision, reviewer, reason, grant } = {}) {
	const fields = browserForm(html);
	const radios = [...html.matchAll(/<input type="radio" name="([^"]+)" value="([^"]+)" class="pick [^"]*"/g)].filter((m) => m[2] === decision);
	assert.equal(radios.length, 1, `one "${decision}" button on the page (found ${radios.length})`);
	fields[unescapeHtml(radios[0][1])] = decision;
	if (reviewer !== undefined) fields.reviewer = reviewer;
	if (reason !== undefined) {
		const reasonField = /<textarea id="[^"]*" name="([^"]+)"[^>]*>/.exec(/<div class="reason-box">[\s\S]*?<\/div>/.exec(html)?.[0] ?? '')?.[1];
		assert.ok(reasonField, 'the page has no reason box');
		fields[unescapeHtml(reasonField)] = reason;
	}
	if (grant) {
		const choice = /<fieldset class="grant">([\s\S]*?)<\/fieldset>/.exec(html)?.[1];
		assert.ok(choice, `the page offers no "allow similar calls" choice: ${pageText(html)}`);
		const select = /<select id="[^"]*" name="([^"]+)">([\s\S]*?)<\/select>/.exec(choice);
		assert.ok(select && new RegExp(`<option value="${grant.duration}"`).test(select[2]), `no duration ${grant.duration} offered`);
		fields[unescapeHtml(select[1])] = grant.duration;
		const scopes = Object.fromEntries([...choice.matchAll(/<input type="radio" name="([^"]+)" value="([^"]+)"/g)].map((m) => [m[2], unescapeHtml(m[1])]));
		const scope = grant.conditions ? 'fields' : 'exact';
		assert.ok(scopes[scope], `no "${scope}" scope offered: ${JSON.stringify(scopes)}`);
		fields[scopes[scope]] = scope;
		const boxes = [...choice.matchAll(/<input type="checkbox" name="([^"]+)" value="([^"]*)"[^>]*> <code>([^<]*)<\/code> (is|at most) /g)].map((m) => ({ name: unescapeHtml(m[1]), value: unescapeHtml(m[2]), label: `${unescapeHtml(m[3])} ${m[4]}` }));
		for (const wanted of grant.conditions ?? []) {
			const box = boxes.find((b) => b.label === wanted);
			assert.ok(box, `no condition "${wanted}" offered: ${JSON.stringify(boxes.map((b) => b.label))}`);
			fields[box.name] = box.value;
		}
	}
	return fields;
}

/** The standing approvals a review page lists: { id, text, active, revokeField } each (revokeField: the Revoke button's name). */
function grantsOnPage(html) {
	const section = /<section class="card grants"[\s\S]*?<\/section>/.exec(html)?.[0];
	assert.ok(section, `the review page lists no standing approvals section: ${pageText(html)}`);
	return [...section.matchAll(/<li class="grant-row[^"]*">([\s\S]*?)<\/li>/g)].map((m) => {
		const button = /<button type="submit" name="([^"]+)" value="([^"]+)" class="revoke"/.exec(m[1]);
		const ids = [...m[1].matchAll(/<code>([^<]+)<\/code>/g)].map((c) => unescapeHtml(c[1]));
		return { id: ids.at(-1), text: unescapeHtml(pageText(m[1], 2000)), active: Boolean(button), revokeField: button ? unescapeHtml(button[1]) : undefined };
	});
}

/** What a browser sends when the person types their name and presses a grant's Revoke button (the form's fields plus the button). */
function revokeForm(html, grantId, reviewer) {
	const grant = grantsOnPage(html).find((g) => g.id === grantId);
	assert.ok(grant?.active, `no Revoke button for ${grantId} on the page: ${JSON.stringify(grantsOnPage(html))}`);
	return { ...browserForm(html), reviewer, [grant.revokeField]: grantId };
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

module.exports = { plan, call, finalResults, reviewPage, decide, assertRecorded, pageText, fieldName, inputFieldName, browserForm, submitForm, nextMessage, decisionForm, grantsOnPage, revokeForm };

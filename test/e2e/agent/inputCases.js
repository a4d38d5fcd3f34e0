'use strict';
// Issue 11 in a real n8n: MCP 2026-07-28 servers that ask a person for input in the middle of a
// tool call, and 2025-era servers that still work.
// - 'input': the Agent (Anthropic, no approval needed) over test/fixtures/modern-server.js (stdio).
//   confirm_delete answers input_required: the execution waits, the Needs Approval item carries the
//   request, the review page shows a form generated from the requested schema with its default
//   selected; a person answers in chromium (puppeteer-core: click Yes, Accept, type a name, submit),
//   or a decline is posted as a browser posts the form; the run resumes and the server completes the
//   call with the answer.
// - 'inputhttp': the same fixture over Streamable HTTP (OpenAI Responses), with review required:
//   approve first, then the server asks, then answer; a tool with an x-mcp-header argument shows the
//   headers of a 2026-07-28 request.
// - 'legacy': test/fixtures/legacy-server.js (v1 SDK, 2025-11-25): a plain call works, and its
//   elicitation in the middle of an open call is declined, with a note the model reads.

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { findChromium, launchBrowser, reviewTab, clickChoice } = require('../lib/browser');

/** The schema confirm_delete asks with (test/fixtures/modern-server.js). */
const CONFIRM_SCHEMA = { type: 'object', properties: { confirm: { type: 'boolean', default: false } }, required: ['confirm'] };

module.exports = function inputCases(e2e, ctx, h) {
	const { plan, call, finalResults, reviewPage, assertRecorded, fieldName, inputFieldName, browserForm, submitForm, nextMessage, latestStatus, latestError, ownerSession } = h;
	const start = (name, rounds) => ctx.n8n.trigger(`agent-${name}`, { plan: rounds });
	const next = (name) => nextMessage(ctx, name, { latestStatus, latestError });

	/** The request confirm_delete sends, as the Needs Approval item must carry it. */
	function assertConfirmRequest(pending, { server, path: target }) {
		const confirms = pending.calls.filter((c) => c.tool === 'confirm_delete');
		assert.equal(confirms.length, 1, JSON.stringify(pending.calls).slice(0, 800));
		const [c] = confirms;
		assert.equal(c.server, server);
		assert.equal(c.needsReview, false, 'the call was allowed to run: it waits only for input');
		assert.equal(c.input.round, 1);
		assert.match(c.input.inputHash, /\S/);
		assert.equal(c.input.requests.length, 1);
		const [request] = c.input.requests;
		assert.equal(request.key, 'confirm');
		assert.equal(request.method, 'elicitation/create');
		assert.equal(request.params.message, `Delete ${target}?`);
		assert.deepEqual(request.params.requestedSchema, CONFIRM_SCHEMA);
		assert.deepEqual(request.warnings, []);
		assert.match(pending.summaryText, new RegExp(`The server asks for input: Delete ${target}\\?`));
		assert.match(pending.summaryMarkdown, /\*\*Input needed:\*\* 1 tool call/);
		return c;
	}

	/** The review page's form for that request: generated from the schema, the default (false) selected. */
	function assertConfirmForm(page, pending, c) {
		const field = (part, property) => inputFieldName(part, pending.approvalId, c.callId, 'confirm', property);
		assert.match(page, /The server asks for input/);
		assert.match(page, new RegExp(`Delete ${c.arguments.path}\\?`));
		assert.ok(page.includes(`<input type="radio" name="${field('value', 'confirm')}" value="false" checked> No`), 'the default (false) must be pre-selected');
		assert.ok(page.includes(`<input type="radio" name="${field('value', 'confirm')}" value="true"> Yes`), 'Yes must be offered, not selected');
		assert.match(page, /<span class="field-label">confirm<\/span> <span class="required">required<\/span>/);
		for (const action of ['accept', 'decline', 'cancel']) assert.ok(page.includes(`name="${field('action')}" value="${action}"`), `no ${action} choice`);
		// What a browser sends untouched: the default, the hashes binding the answer, no action yet.
		const untouched = browserForm(page);
		assert.equal(untouched[field('value', 'confirm')], 'false');
		assert.equal(untouched[fieldName('inputHash', pending.approvalId, c.callId)], c.input.inputHash);
		assert.equal(untouched[fieldName('hash', pending.approvalId, c.callId)], c.argsHash);
		assert.equal(untouched[field('action')], undefined);
		return { untouched, field };
	}

	/** The person's answer, posted as a browser posts the page's form. */
	async function answer(pending, page, c, { action, confirm, reviewer = 'E2E Reviewer' }) {
		const { untouched, field } = assertConfirmForm(page, pending, c);
		const fields = { ...untouched, reviewer, [field('action')]: action };
		if (confirm !== undefined) fields[field('value', 'confirm')] = confirm;
		assertRecorded(await submitForm(pending.reviewUrl, fields));
	}

	/**
	 * A person in chromium: the page as the browser renders it (screenshots under <temp>/screenshots),
	 * the default selected, then Yes, Accept, their name, Submit decisions; the answer page says it was
	 * recorded, and the browser's GETs did not resume the execution before that.
	 */
	async function answerInBrowser(chromium, pending, c) {
		const shots = path.join(ctx.dir, 'screenshots');
		fs.mkdirSync(shots, { recursive: true });
		const field = (part, property) => inputFieldName(part, pending.approvalId, c.callId, 'confirm', property);
		const browser = await launchBrowser(chromium, { profileDir: path.join(ctx.dir, 'chromium-profile') });
		try {
			const tab = await reviewTab(browser);
			const opened = await tab.goto(pending.reviewUrl, { waitUntil: 'load' });
			assert.equal(opened.status(), 200);
			await tab.screenshot({ path: path.join(shots, 'input-form.png'), fullPage: true });
			const checked = (value) => tab.$eval(`input[name="${field('value', 'confirm')}"][value="${value}"]`, (el) => el.checked);
			assert.equal(await checked('false'), true, 'the browser must show the default (No) selected');
			assert.equal(await checked('true'), false);
			assert.equal(await latestStatus(ctx.ids.input), 'waiting', "the browser's GET must not resume the execution");
			await clickChoice(tab, `input[name="${field('value', 'confirm')}"][value="true"]`);
			await clickChoice(tab, `input[name="${field('action')}"][value="accept"]`);
			assert.equal(await checked('true'), true);
			await tab.type('input[name="reviewer"]', 'E2E Browser');
			await tab.screenshot({ path: path.join(shots, 'input-form-filled.png'), fullPage: true });
			const submit = await tab.evaluateHandle(() => Array.from(document.querySelectorAll('button[type="submit"]')).find((b) => /submit/i.test(b.textContent)) ?? null);
			assert.ok(submit.asElement(), 'no "Submit decisions" button');
			const [response] = await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), submit.asElement().click()]);
			await tab.screenshot({ path: path.join(shots, 'input-answered.png'), fullPage: true });
			const text = await tab.evaluate(() => document.body.innerText);
			assert.equal(response.status(), 200, `the review page refused the answer: ${text.slice(0, 800)}`);
			assert.match(text, /Input answered/);
			assert.match(text, /Your answer to the server's request: accept/);
			process.stderr.write(`[e2e agent] review page screenshots (MCP_AGENT_E2E_KEEP=1 keeps them): ${shots}\n`);
		} finally {
			await browser.close();
		}
	}

	e2e('input request (MCP 2026-07-28, stdio): the run waits, the review page shows the form with its default, the answer completes the call', async () => {
		await start('input', plan([call('confirm_delete', { path: '/data/old' })]));
		const pending = await ctx.inbox.next('pending', 'input');
		const c = assertConfirmRequest(pending, { server: 'Modern', path: '/data/old' });
		const page = await reviewPage(pending.reviewUrl);
		assert.equal(await latestStatus(ctx.ids.input), 'waiting', 'the execution must wait for the answer');
		// The call already ran and only waits for the server's question (8a6bf8c): the lead says so, not "wants to run".
		assert.match(page, /A tool server needs your answer before the call below can finish\./);
		assert.ok(!page.includes('wants to run the calls below'), 'an input-only review must not say the agent wants to run the call');
		assertConfirmForm(page, pending, c);

		const chromium = findChromium();
		if (chromium) await answerInBrowser(chromium, pending, c);
		else {
			process.stderr.write('[e2e agent] no chromium (CHROMIUM_PATH): the form is posted without a browser\n');
			await answer(pending, page, c, { action: 'accept', confirm: 'true', reviewer: 'E2E Browser' });
		}
		const done = await ctx.inbox.next('done', 'input');
		assert.equal(done.status, 'completed', JSON.stringify(done).slice(0, 800));
		const [result, ...more] = finalResults(done);
		assert.deepEqual(more, []);
		assert.equal(result.isError, false, result.text);
		// The server's own result (it checked the echoed request state), after the note the model reads.
		assert.equal(result.text, 'Note: during this call the server asked a person for input; they answered (accept) and the call went on with their answer.\ndeleted /data/old');
		assert.deepEqual(done.toolCalls.map((entry) => [entry.server, entry.tool, entry.isError]), [['Modern', 'confirm_delete', false]]);
		const { answeredAt, ...input } = done.toolCalls[0].input;
		assert.deepEqual(input, { status: 'answered', rounds: 1, actions: { confirm: 'accept' }, reviewer: 'E2E Browser' });
		assert.ok(!Number.isNaN(Date.parse(answeredAt)), String(answeredAt));
		assert.equal(done.iterations, 2);
	});

	e2e('input request declined on the review page: the server gets the decline and the run completes', async () => {
		await start('input', plan([call('confirm_delete', { path: '/data/keep' })]));
		const pending = await ctx.inbox.next('pending', 'input');
		const c = assertConfirmRequest(pending, { server: 'Modern', path: '/data/keep' });
		const page = await reviewPage(pending.reviewUrl);
		// Decline with the form as it is (the default still selected): only the choice is sent on.
		await answer(pending, page, c, { action: 'decline' });
		const done = await ctx.inbox.next('done', 'input');
		assert.equal(done.status, 'completed');
		const [result] = finalResults(done);
		assert.equal(result.isError, false, result.text);
		assert.equal(result.text, 'Note: during this call the server asked a person for input; they answered (decline) and the call went on with their answer.\nnot deleted (decline)');
		assert.deepEqual(done.toolCalls[0].input.actions, { confirm: 'decline' });
	});

	e2e('input request over Streamable HTTP after a review: approve, then the server asks, then the answer completes the call', async () => {
		await start('inputhttp', plan([call('confirm_delete', { path: '/srv/tmp' }), call('region_weather', { region: 'eu-west', day: 'today' })]));
		const review = await next('inputhttp');
		assert.equal(review.kind, 'pending', JSON.stringify(review.message).slice(0, 500));
		assert.deepEqual(review.message.calls.map((c) => [c.tool, c.needsReview, c.input]), [['confirm_delete', true, undefined], ['region_weather', true, undefined]]);
		const reviewHtml = await reviewPage(review.message.reviewUrl);
		const approveAll = browserForm(reviewHtml);
		for (const c of review.message.calls) approveAll[fieldName('decision', review.message.approvalId, c.callId)] = 'approve';
		assertRecorded(await submitForm(review.message.reviewUrl, { ...approveAll, reviewer: 'E2E Reviewer' }));

		// The approved calls ran: region_weather finished, confirm_delete came back asking for input.
		const asking = await next('inputhttp');
		assert.equal(asking.kind, 'pending', JSON.stringify(asking.message).slice(0, 500));
		assert.notEqual(asking.message.approvalId, review.message.approvalId);
		assert.equal(asking.message.calls.length, 1);
		const c = assertConfirmRequest(asking.message, { server: 'Modern', path: '/srv/tmp' });
		const page = await reviewPage(asking.message.reviewUrl);
		assert.equal(await latestStatus(ctx.ids.inputhttp), 'waiting');
		await answer(asking.message, page, c, { action: 'accept', confirm: 'true' });

		const done = await next('inputhttp');
		assert.equal(done.kind, 'done', JSON.stringify(done.message).slice(0, 500));
		assert.equal(done.message.status, 'completed');
		const [deleted, weather] = finalResults(done.message);
		assert.equal(deleted.text, 'Note: during this call the server asked a person for input; they answered (accept) and the call went on with their answer.\ndeleted /srv/tmp');
		// A 2026-07-28 request over HTTP: the protocol version header and the marked argument's Mcp-Param header.
		assert.equal(weather.text, 'region=eu-west header=eu-west version=2026-07-28');
		assert.deepEqual(done.message.toolCalls.map((entry) => [entry.tool, entry.review?.decision, entry.input?.status]), [['confirm_delete', 'approved', 'answered'], ['region_weather', 'approved', undefined]]);
	});

	e2e('a 2025-11-25 server: a plain call completes, and its mid-call elicitation is declined with a note the model reads', async () => {
		// Two turns, not parallel calls: a 2025-era request names no call, so its note goes to every call open
		// at that moment (lib/mcp/legacyInputRequests.ts); one call at a time makes the note's place certain.
		const { status } = await start('legacy', plan([call('echo', { message: 'from 2025' })], [call('ask_person')]));
		assert.equal(status, 200);
		const done = await next('legacy');
		assert.equal(done.kind, 'done', `a 2025-era request cannot wait for a person: ${JSON.stringify(done.message).slice(0, 500)}`);
		assert.equal(done.message.status, 'completed');
		const [echo, asked] = finalResults(done.message);
		assert.deepEqual(echo, { id: echo.id, isError: false, text: 'Echo: from 2025' });
		assert.equal(asked.isError, false, asked.text);
		assert.match(asked.text, /The server asked for input \("What is your name\?"\) during this call; it was declined because input requests can only be answered by a person when the server supports MCP 2026-07-28\./);
		// The server got the decline and finished its call.
		assert.match(asked.text, /elicitation: decline/);
		assert.deepEqual(done.message.toolCalls.map((entry) => [entry.server, entry.tool, entry.isError, entry.input]), [['Legacy', 'echo', false, undefined], ['Legacy', 'ask_person', false, undefined]]);
		assert.match(done.message.toolCalls[1].resultSummary, /asked for input/);
		assert.equal(done.message.iterations, 3);
	});

	e2e('credential Test buttons negotiate each protocol: 2026-07-28 over stdio and HTTP, 2025-11-25 for the v1-SDK server', async () => {
		const { cookie, headers } = await ownerSession();
		const test = async (credentialId) => {
			const credential = h.credentials().find((c) => c.id === credentialId);
			const response = await fetch(`${ctx.n8n.baseUrl}/rest/credentials/test`, { method: 'POST', headers: { ...headers, cookie }, body: JSON.stringify({ credentials: credential }) });
			const text = await response.text();
			assert.equal(response.status, 200, text);
			const parsed = JSON.parse(text);
			return parsed.data ?? parsed;
		};
		const { CREDENTIALS } = require('./workflows');
		assert.deepEqual(await test(CREDENTIALS.modernStdio.id), { status: 'OK', message: 'Connected to modern-fixture 2.0.0, protocol 2026-07-28: 8 tools.' });
		assert.deepEqual(await test(CREDENTIALS.modernHttp.id), { status: 'OK', message: 'Connected to modern-fixture 2.0.0, protocol 2026-07-28: 8 tools.' });
		assert.deepEqual(await test(CREDENTIALS.legacyStdio.id), { status: 'OK', message: 'Connected to legacy-fixture 1.0.0, protocol 2025-11-25: 3 tools.' });
	});
};

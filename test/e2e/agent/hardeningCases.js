'use strict';
// Issue 10 ("Security hardening") in a real n8n: the three breaks confirmed there.
// 1. The freeze: a server's schema pattern "^(a+)+$" checked against "aaa…a!" must not block n8n:
//    /healthz answers every 100 ms poll within a second, the call is refused before the server,
//    and the execution ends (MCP Agent and MCP Call Tool).
// 2. The GET: a link preview's GET of a Wait node's resume URL with approved=true must not approve;
//    the calls stay pending and the Agent hands the approval out again with a notice.
// 3. The leak: a bearer token with a line break, and a stdio server printing its secret
//    environment value, must not put the secret into execution data, errors or n8n's log.

const assert = require('node:assert/strict');
const fs = require('node:fs');
const { errorText } = require('../lib/assertions');
const { latestFinishedExecution, nextFinishedExecutionRaw } = require('../lib/executions');
const { startHealthProbe } = require('../lib/healthProbe');
const { waitFor } = require('../lib/net');

/** 30 letters the pattern matches, then one it does not: 2^30 ways to fail on a backtracking engine. */
const HOSTILE_TEXT = `${'a'.repeat(30)}!`;
const HEALTHZ_LIMIT_MS = 1000;
/** The secrets of the leak case; the fixtures and the credentials in run.js use exactly these. */
const HTTP_TOKEN_SECRET = 'sk-live-SECRET123456';
const HTTP_TOKEN = `${HTTP_TOKEN_SECRET}\nX-Evil: 1`;
const STDIO_SECRET = 'sk-live-STDIOSECRET654321';

/** The Wait node's own resume URL: the review URL without the query parameters our package adds. */
function waitNodeUrl(reviewUrl, extra = {}) {
	const url = new URL(reviewUrl);
	url.searchParams.delete('reviewToken');
	for (const [k, v] of Object.entries(extra)) url.searchParams.set(k, v);
	return url.toString();
}

module.exports = function hardeningCases(e2e, ctx, h) {
	const { plan, call, finalResults, counterLabels, latestStatus } = h;

	function hostileCalls() {
		return fs.existsSync(ctx.hostileCallsFile) ? fs.readFileSync(ctx.hostileCallsFile, 'utf8').split('\n').filter(Boolean) : [];
	}

	const next = (name) => h.nextMessage(ctx, name, { latestStatus, latestError: h.latestError });

	/** GET a Wait node's URL until n8n hands it to the waiting execution (it answers 404/409 before). */
	async function getUntilAccepted(url) {
		let last;
		await waitFor(`the Wait node to accept a GET of ${url}`, async () => {
			last = await fetch(url);
			await last.text();
			return last.status === 200;
		}, { timeoutMs: 30000, intervalMs: 300 });
		return last;
	}

	e2e('freeze: a hostile schema pattern never blocks n8n (/healthz within 1 s), the call is refused and the run ends', async () => {
		const callsBefore = hostileCalls().length;
		const probe = startHealthProbe(ctx.n8n.baseUrl, { intervalMs: 100 });
		let agentDone;
		let callDone;
		let health;
		try {
			const { status } = await ctx.n8n.trigger('agent-freeze', { plan: plan([call('match_letters', { text: HOSTILE_TEXT })]) });
			assert.equal(status, 200);
			agentDone = await ctx.inbox.next('done', 'freeze', { timeoutMs: 240000 });
			callDone = await ctx.inbox.next('done', 'freeze-call', { timeoutMs: 240000 });
		} finally {
			health = await probe.stop();
		}
		process.stderr.write(`[e2e agent] freeze: ${health.polls.length} /healthz polls, slowest ${health.slowest?.ms} ms\n`);
		const late = health.polls.filter((p) => p.error || p.status !== 200 || p.ms >= HEALTHZ_LIMIT_MS);
		assert.ok(health.polls.length >= 1, 'no /healthz poll ran');
		assert.deepEqual(
			late,
			[],
			`GET /healthz must answer within ${HEALTHZ_LIMIT_MS} ms while the pattern is checked; slowest: ${health.slowest.ms} ms at ${health.slowest.at} ms (${health.polls.length} polls)`,
		);
		// The Agent: the model got an invalid-arguments error result and gave its final answer.
		assert.equal(agentDone.status, 'completed', JSON.stringify(agentDone).slice(0, 800));
		const [result, ...more] = finalResults(agentDone);
		assert.deepEqual(more, []);
		assert.equal(result.isError, true, JSON.stringify(result));
		assert.match(result.text, /pattern/i, `the error result should name the broken rule: ${result.text}`);
		assert.equal(agentDone.toolCalls[0].isError, true);
		// MCP Call Tool: the item failed validation (continue on fail gives it as an error item).
		assert.match(errorText(callDone), /pattern/i, `MCP Call Tool output: ${JSON.stringify(callDone).slice(0, 800)}`);
		assert.deepEqual(hostileCalls().slice(callsBefore), [], 'the hostile server must never be called with arguments that fail its schema');
		// The execution is stored as finished a moment after its last node reported (n8n 1.123): a bounded ready check.
		await waitFor('the freeze execution to be stored as success', async () => (await latestStatus(ctx.ids.freeze)) === 'success', { timeoutMs: 30000, intervalMs: 300 });
	}, 600000);

	e2e('scan freeze: a 2,000-tool near-miss listing is scanned without blocking n8n (/healthz within 1 s)', async () => {
		const probe = startHealthProbe(ctx.n8n.baseUrl, { intervalMs: 100 });
		let done;
		let health;
		try {
			const { status } = await ctx.n8n.trigger('agent-scanfreeze', {});
			assert.equal(status, 200);
			done = await ctx.inbox.next('done', 'scanfreeze', { timeoutMs: 480000 });
		} finally {
			health = await probe.stop();
		}
		process.stderr.write(`[e2e agent] scan freeze: ${health.polls.length} /healthz polls, slowest ${health.slowest?.ms} ms\n`);
		assert.equal(done.count, 2000, JSON.stringify(done).slice(0, 800));
		// Near misses: no tool is flagged (the text never completes a pattern).
		assert.equal(done.flagged, 0, JSON.stringify(done).slice(0, 800));
		const late = health.polls.filter((p) => p.error || p.status !== 200 || p.ms >= HEALTHZ_LIMIT_MS);
		assert.ok(health.polls.length >= 1, 'no /healthz poll ran');
		assert.deepEqual(late, [], `GET /healthz must answer within ${HEALTHZ_LIMIT_MS} ms while the listing is scanned; slowest: ${health.slowest.ms} ms at ${health.slowest.at} ms (${health.polls.length} polls)`);
	}, 600000);

	e2e('a GET never decides: a link preview of a Wait node resumed by GET leaves the call pending, with a notice', async () => {
		await ctx.n8n.trigger('agent-waitget', { plan: plan([call('record', { label: 'waitget-1' })]) });
		const first = await ctx.inbox.next('pending', 'waitget');
		// What Slack's or a mail scanner's link preview does with a link it is given.
		await getUntilAccepted(waitNodeUrl(first.reviewUrl, { approved: 'true' }));
		const afterPreview = await next('waitget');
		assert.ok(!counterLabels().includes('waitget-1'), 'a GET with approved=true ran the call');
		assert.equal(afterPreview.kind, 'pending', `a GET with approved=true must not decide: ${JSON.stringify(afterPreview.message).slice(0, 500)}`);
		const second = afterPreview.message;
		assert.equal(typeof second.notice, 'string', 'the approval handed out again must say why');
		assert.ok(second.notice.trim().length > 0);
		assert.deepEqual(second.calls.map((c) => [c.callId, c.argsHash, c.arguments]), first.calls.map((c) => [c.callId, c.argsHash, c.arguments]));
		await waitFor('the execution to wait again', async () => (await latestStatus(ctx.ids.waitget)) === 'waiting', { timeoutMs: 30000, intervalMs: 300 });

		// A bare GET of the resume URL (no decision at all) must not fail the Agent either.
		await getUntilAccepted(waitNodeUrl(second.reviewUrl));
		const afterBareGet = await next('waitget');
		assert.equal(afterBareGet.kind, 'pending', JSON.stringify(afterBareGet.message).slice(0, 500));
		assert.ok(afterBareGet.message.notice?.trim(), 'the approval handed out again must say why');
		assert.deepEqual(afterBareGet.message.calls.map((c) => c.callId), first.calls.map((c) => c.callId));
		assert.ok(!counterLabels().includes('waitget-1'));
		await waitFor('the execution to wait again', async () => (await latestStatus(ctx.ids.waitget)) === 'waiting', { timeoutMs: 30000, intervalMs: 300 });
		// The run stays waiting: a Wait node resumed by GET can never approve. n8n stops it at the end.
	});

	e2e('a GET never decides: a Wait node resumed by POST ignores a GET with approved=true; a POSTed { approved: true } without the review secret decides nothing; with it, the call runs', async () => {
		await ctx.n8n.trigger('agent-waitnode', { plan: plan([call('record', { label: 'waitpost-1' })]) });
		const pending = await ctx.inbox.next('pending', 'waitnode');
		await waitFor('the execution to wait', async () => (await latestStatus(ctx.ids.waitnode)) === 'waiting', { timeoutMs: 30000, intervalMs: 300 });
		// n8n 2.41.1 finds no waiting webhook for a GET when the Wait node listens for POST.
		const preview = await fetch(waitNodeUrl(pending.reviewUrl, { approved: 'true' }));
		await preview.text();
		assert.equal(preview.status, 404, 'n8n 2.41.1 answers a GET to a POST Wait node with 404');
		assert.equal(await latestStatus(ctx.ids.waitnode), 'waiting');
		assert.ok(!counterLabels().includes('waitpost-1'));
		const post = async (url) => {
			let response;
			await waitFor('the Wait node to accept the answer', async () => {
				response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ approved: true }) });
				await response.text();
				return response.status === 200;
			}, { timeoutMs: 30000, intervalMs: 300 });
		};
		// The Wait node's own URL, without the approval's secret (on n8n 1.x anyone can POST there).
		await post(waitNodeUrl(pending.reviewUrl));
		const unsigned = await next('waitnode');
		assert.equal(unsigned.kind, 'pending', `a POST without the review secret must not decide: ${JSON.stringify(unsigned.message).slice(0, 500)}`);
		assert.match(unsigned.message.notice, /review secret/);
		assert.ok(!counterLabels().includes('waitpost-1'));
		await waitFor('the execution to wait again', async () => (await latestStatus(ctx.ids.waitnode)) === 'waiting', { timeoutMs: 30000, intervalMs: 300 });
		// The review URL: the same Wait node URL with the approval's secret.
		await post(unsigned.message.reviewUrl);
		const done = await ctx.inbox.next('done', 'waitnode');
		assert.deepEqual(counterLabels().filter((l) => l === 'waitpost-1'), ['waitpost-1']);
		assert.equal(done.toolCalls[0].review.decision, 'approved');
	});

	e2e('leak: a bearer token with a line break is refused as invalid; the token is nowhere in execution data or the log', async () => {
		const { body } = await ctx.n8n.trigger('agent-leak-http', {});
		assert.ok(!JSON.stringify(body).includes('SECRET123456'), `the webhook answer shows the token: ${JSON.stringify(body)}`);
		const raw = await nextFinishedExecutionRaw(ctx.n8n, ctx.ids.leak);
		ctx.leakExecutionId = raw.id;
		assert.equal(raw.status, 'error');
		const { error } = await latestFinishedExecution(ctx.n8n, ctx.ids.leak);
		assert.equal(error?.node, 'List Tools (HTTP)', JSON.stringify(error));
		const text = `${error.message} ${error.description ?? ''}`;
		assert.match(text, /token/i, `the error should name the token: ${text}`);
		assert.match(text, /invalid|line break/i, `the error should say what makes the token unusable: ${text}`);
		assert.ok(!text.includes('SECRET123456'), `the error shows the token: ${text}`);
		assert.ok(!raw.data.includes('SECRET123456'), 'the token is in the stored execution data');
		assert.ok(!fs.readFileSync(ctx.n8n.logFile, 'utf8').includes('SECRET123456'), "the token is in n8n's log");
		assert.ok(HTTP_TOKEN.includes('\n'));
	});

	e2e('leak: a stdio server printing its secret environment value shows [redacted] in "Last output of the server"', async () => {
		const { body } = await ctx.n8n.trigger('agent-leak-stdio', {});
		assert.ok(!JSON.stringify(body).includes('STDIOSECRET654321'), `the webhook answer shows the secret: ${JSON.stringify(body)}`);
		const raw = await nextFinishedExecutionRaw(ctx.n8n, ctx.ids.leak, { afterId: ctx.leakExecutionId ?? 0 });
		assert.equal(raw.status, 'error');
		const { error } = await latestFinishedExecution(ctx.n8n, ctx.ids.leak);
		assert.equal(error?.node, 'List Tools (stdio)', JSON.stringify(error));
		const text = `${error.message} ${error.description ?? ''}`;
		assert.ok(!text.includes('STDIOSECRET654321'), `the error shows the secret: ${text}`);
		assert.match(text, /HOSTILE_SECRET=\[redacted\]/, `the server's last output should be shown, redacted: ${text}`);
		assert.ok(!raw.data.includes('STDIOSECRET654321'), 'the secret is in the stored execution data');
		assert.ok(!fs.readFileSync(ctx.n8n.logFile, 'utf8').includes('STDIOSECRET654321'), "the secret is in n8n's log");
	});
};

module.exports.HTTP_TOKEN = HTTP_TOKEN;
module.exports.STDIO_SECRET = STDIO_SECRET;
module.exports.HOSTILE_TEXT = HOSTILE_TEXT;

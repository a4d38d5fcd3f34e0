'use strict';
// Standing approvals (issue 28.3) in n8n queue mode with TWO workers, run by queue.js after its own
// cases (which need a single worker). Worker A is queue.js's worker, worker B a second installation
// started here. Grants live in n8n's own PostgreSQL, so this is also the grant store's Postgres
// dialect in a real n8n.
//
// Which worker ran a call: the counter server appends "<memo> [pid <parent pid>] <parent command
// line>" to COUNTER_PARENT_FILE, and its parent is the worker process that ran the Agent node; a
// worker's own log also names each execution it started. To make the next execution run on a given
// worker, the other one is stopped first (only after every execution has finished); a worker
// started again is a new installation (a fresh user folder, as a newly scheduled container), so no
// event log of an earlier process is recovered.
//
// The cases assert behaviour only, not which process writes the grant (MCP Approval's POST on main
// or the Agent on the worker that applies the decision): after each decision they wait until every
// execution has finished before the next one starts.

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { waitFor } = require('../lib/net');
const { workflowId } = require('./workflows');

module.exports = function queueGrantCases(e2e, ctx, h) {
	const { plan, call, finalResults, reviewPage, submitForm, decisionForm, grantsOnPage, revokeForm, pageText, startTracked, lines, step, CASE, N8nWorker, newWorkerFolder } = h;
	const WORKFLOW = workflowId(CASE);
	const names = { A: 'worker', B: 'workerB' };
	const pidOwner = new Map(); // worker pid -> 'A' | 'B'
	const incarnations = { A: 0, B: 0 };
	const other = (name) => (name === 'A' ? 'B' : 'A');

	function remember(name) {
		const pid = ctx[names[name]].child?.pid;
		if (pid) pidOwner.set(pid, name);
	}

	async function startWorker(name) {
		let worker = ctx[names[name]];
		if (worker.child) {
			worker.started = true;
			return remember(name);
		}
		if (worker.started) {
			// A new installation for every start after the first: the stopped one's event log stays behind.
			incarnations[name] += 1;
			const folder = newWorkerFolder(`worker-${name.toLowerCase()}-${incarnations[name]}`);
			const { node24Bin, n8nBin, port, brokerPort, logFile, runMarker, extraEnv, label } = worker;
			worker = new N8nWorker({ node24Bin, n8nBin, port, brokerPort, logFile, runMarker, extraEnv, healthPort: Number(extraEnv.QUEUE_HEALTH_CHECK_PORT), userFolder: folder });
			worker.label = label;
			ctx[names[name]] = worker;
		}
		worker.started = true;
		const pid = await startTracked(worker);
		pidOwner.set(pid, name);
		step(`worker ${name} running (pid ${pid}, ${path.basename(worker.userFolder)})`);
	}

	/** Only this worker runs: the other is stopped (every execution has finished), this one started when it is not running. */
	async function only(name) {
		await allFinished();
		await ctx[names[other(name)]].stop();
		await startWorker(name);
	}

	const sqlText = (text) => `'${String(text).replace(/'/g, "''")}'`;

	async function statuses() {
		const out = await ctx.postgres.query(`SELECT status FROM execution_entity WHERE "workflowId" = ${sqlText(WORKFLOW)} ORDER BY id`);
		return out ? out.split('\n') : [];
	}

	async function latestExecutionId() {
		return Number((await ctx.postgres.query(`SELECT coalesce(max(id::int), 0) FROM execution_entity WHERE "workflowId" = ${sqlText(WORKFLOW)}`)) || 0);
	}

	/** Waits until every execution of the workflow has finished (none running, queued or waiting). */
	async function allFinished() {
		let seen = [];
		await waitFor('every execution to finish', async () => (seen = await statuses()).every((status) => status === 'success'), {
			timeoutMs: 120000,
			intervalMs: 1000,
			failIf: () => seen.some((s) => ['error', 'crashed', 'canceled'].includes(s)) && `an execution ended as ${seen}`,
		}).catch((error) => {
			throw new Error(`${error.message} (statuses ${seen})`);
		});
	}

	/** The worker ('A' or 'B') whose process ran the tool call with this memo (exactly once). */
	function ranOn(memo) {
		const found = lines(ctx.parentFile).filter((line) => line.split(' ')[0] === memo);
		assert.equal(found.length, 1, `one parent line for ${memo}: ${JSON.stringify(found)}`);
		const match = /^\S+ \[pid (\d+)\] (.*)$/.exec(found[0]);
		assert.ok(match, `unexpected parent line ${found[0]}`);
		assert.match(match[2], /\bn8n worker$/, `the call must run on a worker, but its server's parent was: ${match[2]}`);
		const owner = pidOwner.get(Number(match[1]));
		assert.ok(owner, `pid ${match[1]} is none of the workers started here: ${JSON.stringify([...pidOwner])}`);
		return owner;
	}

	function assertStartedOn(name, executionId) {
		const log = (worker) => fs.readFileSync(worker.logFile, 'utf8');
		assert.match(log(ctx[names[name]]), new RegExp(`Worker started execution ${executionId} \\(job`), `worker ${name} must have run execution ${executionId}`);
		assert.doesNotMatch(log(ctx[names[other(name)]]), new RegExp(`Worker started execution ${executionId} \\(job`), `worker ${other(name)} must not have run execution ${executionId}`);
	}

	/** Triggers one transfer; { kind: 'pending' | 'done', message, executionId }, whichever comes first. */
	async function run(to, amount, memo) {
		await allFinished();
		assert.deepEqual([ctx.inbox.pending('pending', CASE), ctx.inbox.pending('done', CASE)], [[], []], 'messages of an earlier run were left');
		const before = await latestExecutionId();
		const response = await ctx.main.trigger(`agent-${CASE}`, { plan: plan([call('transfer', { to, amount, memo })]) });
		assert.equal(response.status, 200, JSON.stringify(response.body));
		let result;
		await waitFor(`a pending or done message for ${memo}`, async () => {
			for (const kind of ['pending', 'done']) {
				const message = ctx.inbox.take(kind, CASE);
				if (message !== undefined) return (result = { kind, message });
			}
			return false;
		}, { timeoutMs: 120000, intervalMs: 300 });
		result.executionId = await latestExecutionId();
		assert.ok(result.executionId > before, 'a new execution');
		return result;
	}

	async function expectPending(to, amount, memo, worker) {
		const { kind, message, executionId } = await run(to, amount, memo);
		assert.equal(kind, 'pending', `${memo} must wait for a person, but ran: ${JSON.stringify(message.toolCalls ?? message).slice(0, 600)}`);
		assert.deepEqual(message.calls.map((c) => c.arguments), [{ to, amount, memo }]);
		assert.ok(message.reviewUrl.startsWith(`${ctx.main.baseUrl}/webhook-waiting/${executionId}`), `the review URL points at main: ${message.reviewUrl}`);
		assert.deepEqual(lines(ctx.counterFile).filter((l) => l === memo), [], `${memo} reached the server before a decision`);
		if (worker) assertStartedOn(worker, executionId);
		return message;
	}

	async function expectRanByGrant(to, amount, memo, worker) {
		const { kind, message, executionId } = await run(to, amount, memo);
		assert.equal(kind, 'done', `${memo} must run without review, but it waits: ${JSON.stringify(message.calls?.map((c) => [c.arguments, c.askedBy]))}`);
		const [entry] = message.toolCalls;
		assert.deepEqual(entry.arguments, { to, amount, memo });
		assert.equal(entry.allowedBy?.by, 'grant', `allowedBy: ${JSON.stringify(entry.allowedBy)}`);
		assert.equal(entry.review, undefined, 'no person reviewed it');
		assert.match(finalResults(message)[0].text, new RegExp(`transferred ${amount} to ${to} \\(${memo}\\)`));
		await allFinished();
		assert.equal(ranOn(memo), worker, `${memo} ran on worker ${worker}`);
		assertStartedOn(worker, executionId);
		return entry.allowedBy;
	}

	/** Decides the one pending call on its review page (the form as a browser posts it); waits for the run to finish. */
	async function decideOnPage(pending, { decision, grant, page }) {
		const html = page ?? (await reviewPage(pending.reviewUrl));
		const answer = await submitForm(pending.reviewUrl, decisionForm(html, { decision, reviewer: 'Queue Reviewer', grant, ...(decision === 'deny' ? { reason: 'not now' } : {}) }));
		assert.equal(answer.status, 200, `the review page refused the decision: ${pageText(answer.text)}`);
		const done = await ctx.inbox.next('done', CASE, { timeoutMs: 120000 });
		await allFinished();
		return done;
	}

	/** approveChanged of grantCases.js: a second review when the request showed a definition listed before the change. */
	async function approveChanged(pending, page) {
		const definitions = [pending.calls[0].fingerprint];
		const post = async (request, html) => {
			const answer = await submitForm(request.reviewUrl, decisionForm(html, { decision: 'approve', reviewer: 'Queue Reviewer' }));
			assert.equal(answer.status, 200, `the review page refused the decision: ${pageText(answer.text)}`);
		};
		await post(pending, page);
		let message;
		await waitFor(`the resumed run of ${pending.calls[0].arguments.memo}`, async () => (message = ctx.inbox.take('done', CASE) ?? ctx.inbox.take('pending', CASE)) !== undefined, { timeoutMs: 120000, intervalMs: 300 });
		if (message.calls) {
			assert.match(message.calls[0].warnings.join(' '), /definition changed since this call was requested/, JSON.stringify(message.calls[0].warnings));
			definitions.push(message.calls[0].fingerprint);
			await post(message, await reviewPage(message.reviewUrl));
			message = await ctx.inbox.next('done', CASE, { timeoutMs: 120000 });
		}
		await allFinished();
		return { done: message, definitions };
	}

	async function grantRow(id) {
		return ctx.postgres.query(`SELECT uses || '|' || coalesce(revoked_by, '') FROM mcp_agent_grant WHERE id = ${sqlText(id)}`);
	}

	e2e('queue mode, two workers: a grant made on the review page lets the next matching call run without review on the other worker', async () => {
		await startWorker('A');
		await startWorker('B');
		await allFinished();
		// Both workers run: the approving execution may run on either.
		const first = await expectPending('dave', 10, 'qgrant-1');
		const page = await reviewPage(first.reviewUrl);
		const approved = await decideOnPage(first, { decision: 'approve', page, grant: { duration: '1h', conditions: ['to is', 'amount at most'] } });
		assert.equal(approved.toolCalls[0].allowedBy.by, 'person');
		const approver = ranOn('qgrant-1');
		const next = other(approver);
		step(`the approved call ran on worker ${approver}; the next one runs on worker ${next} only`);
		await only(next);
		const allowed = await expectRanByGrant('dave', 7, 'qgrant-2', next);
		assert.equal(allowed.grantedBy, 'Queue Reviewer');
		assert.equal(await grantRow(allowed.grant), '1|', 'the grant row in PostgreSQL: used once, not revoked');
		ctx.queueGrant = { id: allowed.grant, approver, next };
	}, 600000);

	e2e('queue mode, two workers: a Revoke on a review page stops the next matching call on each worker', async () => {
		assert.ok(ctx.queueGrant, 'the grant of the case before');
		const { id, approver, next } = ctx.queueGrant;
		// Outside "amount at most 10": asked. Its review page (served by main) lists the grant: revoke it there.
		const outside = await expectPending('dave', 50, 'qgrant-3', next);
		const page = await reviewPage(outside.reviewUrl);
		assert.equal(grantsOnPage(page).find((g) => g.id === id)?.active, true, JSON.stringify(grantsOnPage(page)));
		const revoked = await submitForm(outside.reviewUrl, revokeForm(page, id, 'Queue Revoker'));
		assert.equal(revoked.status, 200, pageText(revoked.text));
		assert.match(revoked.text, /is revoked: calls it covered are asked again/);
		assert.equal(await grantRow(id), '1|Queue Revoker');
		await decideOnPage(outside, { decision: 'deny', page: revoked.text });
		// The call the grant covered before now waits, on the worker that used the grant ...
		const again = await expectPending('dave', 7, 'qgrant-4', next);
		await decideOnPage(again, { decision: 'deny' });
		// ... and on the other one.
		await only(approver);
		const elsewhere = await expectPending('dave', 7, 'qgrant-5', approver);
		assert.equal(grantsOnPage(await reviewPage(elsewhere.reviewUrl)).find((g) => g.id === id)?.active, false);
		await decideOnPage(elsewhere, { decision: 'deny' });
		assert.deepEqual(lines(ctx.counterFile).filter((l) => l.startsWith('qgrant-')), ['qgrant-1', 'qgrant-2']);
		assert.equal(await grantRow(id), '1|Queue Revoker', 'not used after the revocation');
	}, 600000);

	e2e('queue mode, two workers: a changed tool definition (rug pull) is not covered by a grant, on another worker either', async () => {
		fs.rmSync(ctx.descriptionFile, { force: true });
		try {
			const { approver, next } = ctx.queueGrant ?? { approver: 'A', next: 'B' };
			await only(approver);
			const first = await expectPending('erin', 5, 'qrug-1', approver);
			await decideOnPage(first, { decision: 'approve', grant: { duration: '1d', conditions: ['to is'] } });
			assert.equal(ranOn('qrug-1'), approver);
			await only(next);
			const allowed = await expectRanByGrant('erin', 99, 'qrug-2', next);
			fs.writeFileSync(ctx.descriptionFile, 'Transfers an amount to a recipient (version 2 of this tool).');
			const changed = await expectPending('erin', 5, 'qrug-3', next);
			const page = await reviewPage(changed.reviewUrl);
			assert.equal(grantsOnPage(page).find((g) => g.id === allowed.grant)?.active, true, 'not revoked: the fingerprint no longer matches');
			const { done, definitions } = await approveChanged(changed, page);
			assert.notEqual(definitions.at(-1), first.calls[0].fingerprint, 'the person approved the new definition');
			assert.equal(done.toolCalls[0].allowedBy.by, 'person');
			assert.equal(ranOn('qrug-3'), next);
			assert.deepEqual(lines(ctx.counterFile).filter((l) => l.startsWith('qrug-')), ['qrug-1', 'qrug-2', 'qrug-3']);
		} finally {
			fs.rmSync(ctx.descriptionFile, { force: true });
		}
	}, 600000);
};

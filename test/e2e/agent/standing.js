'use strict';
// End-to-end: the standing approvals page (MCP Standing Approvals, issue 28.3) in a real n8n 2.41.1
// or 1.123.81 (`node test/e2e/agent/standing.js`, MCP_AGENT_N8N_VERSION picks the version). One
// published workflow: Webhook -> MCP Agent over the counter server -> Needs Approval -> MCP
// Approval -> back, and an MCP Standing Approvals node. A person approves a call on the review
// page and allows the same call for a day; the same call then runs without review; the standing
// approvals page (its production URL, while nothing waits) shows nothing before an n8n sign-in,
// lists the grant with who made it and its use after one, and revokes it; the next such call is
// asked again. The page never adds an execution.

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { before, after } = require('node:test');

const { reportingTest } = require('../lib/reportingTest');
const { OWNER, killProcessGroupsOnExit, prepareRunDir, n8nForRunDir, assertNoLeftoverProcesses, removeRunDirUnlessKept } = require('../lib/suiteRun');
const { REPO } = require('../lib/everything');
const { startScriptedLlm } = require('../lib/scriptedLlm');
const { executionStatuses } = require('../lib/executionStatuses');
const { waitFor } = require('../lib/net');
const { startInbox } = require('./inbox');
const { CREDENTIALS, approvalWorkflow } = require('./workflows');
const { plan, call, reviewPage, decide, assertRecorded, pageText } = require('./review');

const COUNTER_SERVER = path.join(REPO, 'test', 'fixtures', 'counter-server.js');
const CASE = 'standing';
const PAGE_WEBHOOK_ID = 'e2e-standing-approvals-page';

const ctx = {};
killProcessGroupsOnExit();

function counterLabels() {
	return fs.existsSync(ctx.counterFile) ? fs.readFileSync(ctx.counterFile, 'utf8').split('\n').filter(Boolean) : [];
}

function grantFieldName(kind, approvalId, callId) {
	return require(path.join(REPO, 'dist', 'lib', 'approvals', 'grantChoice.js')).grantFieldName(kind, approvalId, callId);
}

function workflow() {
	const wf = approvalWorkflow({ name: CASE, inboxUrl: ctx.inbox.url });
	wf.nodes.push({ id: `${CASE}-page`, name: 'Standing Approvals', type: 'n8n-nodes-mcp-agent.mcpStandingApprovals', typeVersion: 1, position: [0, 400], webhookId: PAGE_WEBHOOK_ID, parameters: {} });
	return wf;
}

const pageUrl = () => `${ctx.n8n.baseUrl}/webhook/${PAGE_WEBHOOK_ID}/standing-approvals`;
/** A POST of the page's form, as the browser sends it. */
const postPage = async (fields) => {
	const response = await fetch(pageUrl(), { method: 'POST', body: new URLSearchParams(fields), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
	return { status: response.status, text: await response.text() };
};
/** The page's visible text with HTML entities decoded. */
const visible = (html) => pageText(html, 5000).replace(/&(amp|lt|gt|quot|#39);/g, (_, e) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]);
const signedIn = (extra = {}) => ({ email: OWNER.email, password: OWNER.password, ...extra });
const start = (label) => ctx.n8n.trigger(`agent-${CASE}`, { plan: plan([call('record', { label })]) });

before(async () => {
	prepareRunDir(ctx, CASE);
	ctx.counterFile = path.join(ctx.dir, 'counter.txt');
	ctx.llm = await startScriptedLlm();
	ctx.inbox = await startInbox();
	ctx.n8n = await n8nForRunDir(ctx);
	const credentials = [
		{ ...CREDENTIALS.anthropic, type: 'mcpAgentAnthropicApi', data: { apiKey: 'sk-ant-e2e-fake', baseUrl: ctx.llm.anthropicBaseUrl } },
		{ ...CREDENTIALS.counter, type: 'mcpServerStdioApi', data: { command: process.execPath, args: JSON.stringify([COUNTER_SERVER]), environment: `COUNTER_FILE=${ctx.counterFile}\n${ctx.runMarker}`, secretEnvironment: '', cwd: '', trustAnnotations: false } },
	];
	const wf = workflow();
	ctx.workflowId = wf.id;
	fs.writeFileSync(path.join(ctx.dir, 'credentials.json'), JSON.stringify(credentials, null, 2));
	fs.writeFileSync(path.join(ctx.dir, 'workflows.json'), JSON.stringify([wf], null, 2));
	await ctx.n8n.cli(['import:credentials', `--input=${path.join(ctx.dir, 'credentials.json')}`]);
	await ctx.n8n.cli(['import:workflow', `--input=${path.join(ctx.dir, 'workflows.json')}`]);
	await ctx.n8n.cli(['publish:workflow', `--id=${wf.id}`]);
	await ctx.n8n.start();
	// The owner account the page's sign-in checks (set up without logging in: n8n limits logins per e-mail).
	const setup = await fetch(`${ctx.n8n.baseUrl}/rest/owner/setup`, { method: 'POST', headers: { 'content-type': 'application/json', 'browser-id': 'e2e-browser' }, body: JSON.stringify(OWNER) });
	assert.equal(setup.status, 200, await setup.text());
}, { timeout: 10 * 60 * 1000 });

after(async () => {
	await ctx.n8n?.stop();
	await ctx.llm?.close();
	await ctx.inbox?.close();
	removeRunDirUnlessKept(ctx, CASE, 'n8n.log has the server log');
});

const e2e = reportingTest((name) => `\n[e2e standing] ${name} failed; n8n log tail:\n${ctx.n8n?.logTail(60)}\n`);

e2e('a grant made on the review page is listed on the standing approvals page after an n8n sign-in, and revoked there', async () => {
	// 1. A person approves the call and allows exactly this call for a day.
	await start('standing-1');
	const pending = await ctx.inbox.next('pending', CASE);
	await reviewPage(pending.reviewUrl);
	const c = pending.calls[0];
	assertRecorded(await decide(pending, { record: 'approve' }, { reviewer: 'Rita Reviewer', overrides: { [grantFieldName('grant', pending.approvalId, c.callId)]: '1d', [grantFieldName('grantScope', pending.approvalId, c.callId)]: 'exact' } }));
	await ctx.inbox.next('done', CASE);
	assert.deepEqual(counterLabels(), ['standing-1']);

	// 2. The same call again runs without review, let through by the grant.
	await start('standing-1');
	const covered = await ctx.inbox.next('done', CASE);
	assert.equal(ctx.inbox.take('pending', CASE), undefined);
	assert.ok(covered.toolCalls[0].allowedBy?.grant, `not let through by a grant: ${JSON.stringify(covered.toolCalls[0])}`);
	const grantId = covered.toolCalls[0].allowedBy.grant;
	assert.deepEqual(counterLabels(), ['standing-1', 'standing-1']);
	await waitFor('the executions to finish', async () => (await executionStatuses(ctx.n8n, ctx.workflowId)).every((s) => s === 'success'), { timeoutMs: 30000, intervalMs: 300 });
	const executionsBefore = (await executionStatuses(ctx.n8n, ctx.workflowId)).length;

	// 3. Nothing waits now. The page without a sign-in: a form, nothing about the grant.
	const get = await fetch(pageUrl());
	const getPage = await get.text();
	assert.equal(get.status, 200, getPage.slice(0, 300));
	assert.match(getPage, /Sign in with your n8n account/);
	assert.equal(get.headers.get('cache-control'), 'no-store');
	assert.match(get.headers.get('content-security-policy') ?? '', /default-src 'none'/);
	for (const secret of [grantId, 'record', 'Rita', 'E2E agent']) assert.ok(!getPage.includes(secret), `the page before sign-in shows ${secret}`);
	const wrong = await postPage({ email: OWNER.email, password: 'not-the-password', revokeGrant: grantId });
	assert.equal(wrong.status, 401);
	assert.match(wrong.text, /Sign-in failed/);
	assert.ok(!wrong.text.includes(grantId) && !wrong.text.includes('not-the-password'));

	// 4. Signed in: the grant, by the Agent node's name, with who made it and its one use.
	const list = await postPage(signedIn());
	const listed = visible(list.text);
	assert.equal(list.status, 200, listed);
	assert.match(listed, /Signed in as Olga Owner <owner@example\.com>/);
	assert.match(listed, /Workflow E2E agent: standing/);
	assert.match(listed, /Agent node “MCP Agent” record on Counter with exactly the same arguments Granted by Rita Reviewer at .* · used 1 time, last at .* · Active until /);
	assert.ok(list.text.includes(`value="${grantId}"`), 'no Revoke button for the grant');

	// 5. Revoke: recorded with the signed-in account; the next such call is asked again.
	const revoked = await postPage(signedIn({ revokeGrant: grantId }));
	const revokedText = visible(revoked.text);
	assert.equal(revoked.status, 200, revokedText);
	assert.match(revokedText, new RegExp(`Standing approval ${grantId} is revoked`));
	assert.match(revokedText, /Revoked by Olga Owner <owner@example\.com> at /);
	assert.ok(!revoked.text.includes(`value="${grantId}"`));
	// The page started no execution, for any of its requests.
	assert.equal((await executionStatuses(ctx.n8n, ctx.workflowId)).length, executionsBefore);

	await start('standing-1');
	const again = await ctx.inbox.next('pending', CASE);
	assert.equal(again.calls[0].tool, 'record');
	assert.deepEqual(counterLabels(), ['standing-1', 'standing-1']);
	await reviewPage(again.reviewUrl);
	assertRecorded(await decide(again, { record: 'deny' }));
	await ctx.inbox.next('done', CASE);
	assert.deepEqual(counterLabels(), ['standing-1', 'standing-1']);
}, 300000);

e2e('stopping n8n leaves no process of this run behind', async () => {
	await ctx.n8n.stop();
	await assertNoLeftoverProcesses(ctx);
});

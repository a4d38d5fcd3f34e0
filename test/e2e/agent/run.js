'use strict';
// End-to-end: the MCP Agent and human review in a real n8n 2.41.1 (`node test/e2e/agent/run.js`,
// part of `npm run test:e2e`). A scripted, wire-compatible fake LLM runs in this process; tools
// come from real MCP servers (server-everything, server-filesystem, a counter server whose file
// shows exactly which calls reached it, and MCP 2026-07-28 / 2025-11-25 fixtures for issue 11).

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { before, after } = require('node:test');

const { reportingTest } = require('../lib/reportingTest');
const { OWNER, killProcessGroupsOnExit, prepareRunDir, n8nForRunDir, assertNoLeftoverProcesses, removeRunDirUnlessKept } = require('../lib/suiteRun');
const { freePorts } = require('../lib/net');
const { startEverythingHttp, EVERYTHING_ENTRY, REPO } = require('../lib/everything');
const { startScriptedLlm } = require('../lib/scriptedLlm');
const { startModernHttp, startModernTasksHttp, MODERN_SERVER } = require('../lib/modernServer');
const taskWaitCases = require('./taskWaitCases');
const { startInbox } = require('./inbox');
const { CREDENTIALS, approvalWorkflow, callToolTaskWorkflow, threeServerWorkflow, chatModelWorkflow, n8nCredentialWorkflow, manualWorkflow, freezeWorkflow, listingFreezeWorkflow, leakWorkflow } = require('./workflows');
const hardeningCases = require('./hardeningCases');
const inputCases = require('./inputCases');
const ruleCases = require('./ruleCases');
const grantCases = require('./grantCases');
const toolSearchCases = require('./toolSearchCases');
const { plan, call, finalResults, reviewPage, decide, assertRecorded, fieldName, inputFieldName, browserForm, submitForm, nextMessage, decisionForm, grantsOnPage, revokeForm } = require('./review');
const { latestFinishedExecution } = require('../lib/executions');
const { latestExecutionStatus } = require('../lib/executionStatuses');

const COUNTER_SERVER = path.join(REPO, 'test', 'fixtures', 'counter-server.js');
const HOSTILE_SERVER = path.join(REPO, 'test', 'fixtures', 'hostile-server.js');
const HOSTILE_LISTING_SERVER = path.join(REPO, 'test', 'fixtures', 'hostile-listing-server.js');
const LEGACY_SERVER = path.join(REPO, 'test', 'fixtures', 'legacy-server.js');
const FILESYSTEM_ENTRY = path.join(REPO, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');

const ctx = {};
killProcessGroupsOnExit();


function counterLabels(file = ctx.counterFile) {
	return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/** The status of a workflow's latest stored execution ('none' when it has none). */
function latestStatus(workflowId) {
	return latestExecutionStatus(ctx.n8n, workflowId);
}

/** The error of a workflow's latest finished execution ({ message, description, node }). */
async function latestError(workflowId) {
	return (await latestFinishedExecution(ctx.n8n, workflowId, { timeoutMs: 5000 })).error;
}

/** Sets up n8n's owner account once per run; returns a logged-in session cookie. */
async function ownerSession() {
	ctx.ownerSession ??= (async () => {
		const headers = { 'content-type': 'application/json', 'browser-id': 'e2e-browser' };
		const setup = await fetch(`${ctx.n8n.baseUrl}/rest/owner/setup`, { method: 'POST', headers, body: JSON.stringify(OWNER) });
		assert.equal(setup.status, 200, await setup.text());
		const login = await fetch(`${ctx.n8n.baseUrl}/rest/login`, { method: 'POST', headers, body: JSON.stringify({ emailOrLdapLoginId: OWNER.email, password: OWNER.password }) });
		assert.equal(login.status, 200, await login.text());
		return { cookie: (login.headers.get('set-cookie') ?? '').split(';')[0], headers };
	})();
	return ctx.ownerSession;
}

function credentials() {
	const stdio = (cred, args, environment = '', secretEnvironment = '') => ({ ...cred, type: 'mcpServerStdioApi', data: { command: process.execPath, args: JSON.stringify(args), environment: `${environment}\n${ctx.runMarker}`, secretEnvironment, cwd: '', trustAnnotations: false } });
	return [
		{ ...CREDENTIALS.anthropic, type: 'mcpAgentAnthropicApi', data: { apiKey: 'sk-ant-e2e-fake', baseUrl: ctx.llm.anthropicBaseUrl } },
		{ ...CREDENTIALS.openai, type: 'mcpAgentOpenAiApi', data: { apiKey: 'sk-e2e-fake', baseUrl: ctx.llm.openAiBaseUrl, organization: '', project: '' } },
		// Issue 30: n8n's own OpenAI credential, for its OpenAI Chat Model node.
		{ ...CREDENTIALS.n8nOpenAi, type: 'openAiApi', data: { apiKey: 'sk-e2e-fake', organizationId: '', url: ctx.llm.openAiBaseUrl, header: false } },
		{ ...CREDENTIALS.n8nOllama, type: 'ollamaApi', data: { baseUrl: ctx.llm.hostUrl, apiKey: '' } },
		{ ...CREDENTIALS.n8nGemini, type: 'googlePalmApi', data: { host: ctx.llm.hostUrl, apiKey: 'gemini-e2e-fake' } },
		{ ...CREDENTIALS.n8nAnthropic, type: 'anthropicApi', data: { apiKey: 'sk-ant-n8n-e2e-fake', url: ctx.llm.anthropicBaseUrl, header: true, headerName: 'X-E2E-Gateway', headerValue: 'gw-e2e-value' } },
		stdio(CREDENTIALS.counter, [COUNTER_SERVER], `COUNTER_FILE=${ctx.counterFile}`),
		stdio(CREDENTIALS.counterDrift, [COUNTER_SERVER], `COUNTER_FILE=${ctx.driftCounterFile}\nCOUNTER_DESCRIPTION_FILE=${ctx.driftDescriptionFile}`),
		// Issue 28.3: standing approvals on the three-field transfer tool, whose description a file can change.
		stdio(CREDENTIALS.counterGrant, [COUNTER_SERVER], `COUNTER_FILE=${ctx.grantCounterFile}\nCOUNTER_TRANSFER_DESCRIPTION_FILE=${ctx.grantDescriptionFile}`),
		stdio(CREDENTIALS.everythingStdio, [EVERYTHING_ENTRY, 'stdio']),
		{ ...CREDENTIALS.everythingHttp, type: 'mcpServerHttpApi', data: { url: ctx.everything.url, transport: 'streamableHttp', authentication: 'none', trustAnnotations: false, connectTimeout: 30000, requestTimeout: 60000 } },
		stdio(CREDENTIALS.files, [FILESYSTEM_ENTRY, ctx.filesDir]),
		// Issue 10: a server with a catastrophic schema pattern, and secrets that must never show.
		stdio(CREDENTIALS.hostile, [HOSTILE_SERVER], `HOSTILE_CALLS_FILE=${ctx.hostileCallsFile}`),
		// Issue 25: 2,000 tools of near-miss text for the poisoning scan.
		stdio(CREDENTIALS.hostileListing, [HOSTILE_LISTING_SERVER, '2000']),
		{ ...CREDENTIALS.leakHttp, type: 'mcpServerHttpApi', data: { url: ctx.everything.url, transport: 'streamableHttp', authentication: 'bearer', token: hardeningCases.HTTP_TOKEN, headers: '', trustAnnotations: false, connectTimeout: 30000, requestTimeout: 60000 } },
		stdio(CREDENTIALS.leakStdio, [HOSTILE_SERVER], 'HOSTILE_LEAK_VARIABLE=HOSTILE_SECRET', `HOSTILE_SECRET=${hardeningCases.STDIO_SECRET}`),
		// Issue 11: a 2026-07-28 server on the v2 server package (stdio and HTTP), a 2025-11-25 one on the v1 SDK.
		stdio(CREDENTIALS.modernStdio, [MODERN_SERVER, 'stdio']),
		{ ...CREDENTIALS.modernHttp, type: 'mcpServerHttpApi', data: { url: ctx.modern.url, transport: 'streamableHttp', authentication: 'none', trustAnnotations: false, connectTimeout: 30000, requestTimeout: 60000 } },
		stdio(CREDENTIALS.legacyStdio, [LEGACY_SERVER, 'stdio']),
		{ ...CREDENTIALS.modernTasksHttp, type: 'mcpServerHttpApi', data: { url: ctx.modernTasks.url, transport: 'streamableHttp', authentication: 'none', trustAnnotations: false, connectTimeout: 30000, requestTimeout: 60000 } },
		// Issue 31: a 1,003-tool server for tool search.
		...toolSearchCases.credentials(stdio, ctx),
	];
}

const MANUAL_PLAN = () => plan([call('Everything__echo', { message: 'scheduled' }), call('list_directory', { path: ctx.filesDir })]);

function workflows() {
	const inboxUrl = ctx.inbox.url;
	return [
		threeServerWorkflow({ name: 'three', provider: 'anthropic' }),
		threeServerWorkflow({ name: 'threeresponses', provider: 'openaiResponses' }),
		chatModelWorkflow({ name: 'chatmodel', credential: CREDENTIALS.n8nOpenAi }),
		chatModelWorkflow({ name: 'chatmodelanthropic', credential: CREDENTIALS.n8nAnthropic, model: 'anthropic' }),
		chatModelWorkflow({ name: 'chatmodelollama', credential: CREDENTIALS.n8nOllama, model: 'ollama' }),
		chatModelWorkflow({ name: 'chatmodelgemini', credential: CREDENTIALS.n8nGemini, model: 'gemini' }),
		n8nCredentialWorkflow({ name: 'n8ncredential', credential: CREDENTIALS.n8nAnthropic }),
		manualWorkflow({ name: 'manual', provider: 'openaiChat', plan: JSON.parse(MANUAL_PLAN()) }),
		approvalWorkflow({ name: 'review', inboxUrl }),
		approvalWorkflow({ name: 'reviewchat', inboxUrl, provider: 'openaiChat' }),
		approvalWorkflow({ name: 'reviewchatmodel', inboxUrl, chatModel: CREDENTIALS.n8nOpenAi }),
		approvalWorkflow({ name: 'multi', inboxUrl, splitPlans: true }),
		approvalWorkflow({ name: 'expiry', inboxUrl, approvalOptions: { timeoutHours: 0.001 } }),
		approvalWorkflow({ name: 'hostile', inboxUrl, requireApprovalFor: 'all' }),
		approvalWorkflow({ name: 'drift', inboxUrl, server: CREDENTIALS.counterDrift }),
		approvalWorkflow({ name: 'waitnode', inboxUrl, approval: 'wait' }),
		approvalWorkflow({ name: 'waitset', inboxUrl, approval: 'waitset' }),
		approvalWorkflow({ name: 'login', inboxUrl, approvalParameters: { requireLogin: true } }),
		freezeWorkflow({ name: 'freeze', inboxUrl, text: hardeningCases.HOSTILE_TEXT }),
		listingFreezeWorkflow({ name: 'scanfreeze', inboxUrl }),
		approvalWorkflow({ name: 'waitget', inboxUrl, approval: 'wait', waitMethod: 'GET' }),
		leakWorkflow({ name: 'leak' }),
		approvalWorkflow({ name: 'input', inboxUrl, requireApprovalFor: 'none', server: CREDENTIALS.modernStdio, serverName: 'Modern' }),
		approvalWorkflow({ name: 'inputhttp', inboxUrl, provider: 'openaiResponses', server: CREDENTIALS.modernHttp, serverName: 'Modern', connection: 'http' }),
		approvalWorkflow({ name: 'legacy', inboxUrl, requireApprovalFor: 'none', server: CREDENTIALS.legacyStdio, serverName: 'Legacy' }),
		...['taskwait', 'taskrestart', 'taskask', 'taskstop'].map((name) =>
			approvalWorkflow({ name, inboxUrl, requireApprovalFor: 'none', server: CREDENTIALS.modernTasksHttp, serverName: 'Reports', connection: 'http', options: { taskPauseAfter: 1, maxTaskWait: 600 } }),
		),
		...['calltask', 'calltaskrestart', 'calltaskstop'].map((name) => callToolTaskWorkflow({ name, inboxUrl, server: CREDENTIALS.modernTasksHttp })),
		...ruleCases.workflows(approvalWorkflow, inboxUrl),
		...grantCases.workflows(approvalWorkflow, inboxUrl, CREDENTIALS.counterGrant),
		...toolSearchCases.workflows(approvalWorkflow, inboxUrl),
	];
}

before(async () => {
	prepareRunDir(ctx, 'agent');
	ctx.filesDir = path.join(ctx.dir, 'files');
	fs.mkdirSync(ctx.filesDir);
	ctx.counterFile = path.join(ctx.dir, 'counter.txt');
	ctx.driftCounterFile = path.join(ctx.dir, 'drift-counter.txt');
	ctx.driftDescriptionFile = path.join(ctx.dir, 'drift-description.txt');
	ctx.hostileCallsFile = path.join(ctx.dir, 'hostile-calls.txt');
	ctx.grantCounterFile = path.join(ctx.dir, 'grant-counter.txt');
	ctx.grantDescriptionFile = path.join(ctx.dir, 'grant-description.txt');
	// Our own listeners first (they take OS-assigned ports), then n8n's ports, so none can collide.
	ctx.llm = await startScriptedLlm();
	ctx.inbox = await startInbox();
	const [everythingPort] = await freePorts(1);
	ctx.everything = await startEverythingHttp({ port: everythingPort, logFile: path.join(ctx.dir, 'everything.log'), env: { MCP_AGENT_E2E_AGENT_RUN: path.basename(ctx.dir) } });
	const [modernPort] = await freePorts(1);
	ctx.modern = await startModernHttp({ port: modernPort, logFile: path.join(ctx.dir, 'modern-http.log'), env: { MCP_AGENT_E2E_AGENT_RUN: path.basename(ctx.dir) } });
	const [modernTasksPort] = await freePorts(1);
	ctx.modernTasks = await startModernTasksHttp({ port: modernTasksPort, logFile: path.join(ctx.dir, 'modern-tasks-http.log'), env: { MCP_AGENT_E2E_AGENT_RUN: path.basename(ctx.dir) } });
	ctx.n8n = await n8nForRunDir(ctx);
	fs.writeFileSync(path.join(ctx.dir, 'credentials.json'), JSON.stringify(credentials(), null, 2));
	const flows = workflows();
	fs.writeFileSync(path.join(ctx.dir, 'workflows.json'), JSON.stringify(flows, null, 2));
	await ctx.n8n.cli(['import:credentials', `--input=${path.join(ctx.dir, 'credentials.json')}`]);
	await ctx.n8n.cli(['import:workflow', `--input=${path.join(ctx.dir, 'workflows.json')}`]);
	for (const wf of flows) if (wf.nodes[0].type === 'n8n-nodes-base.webhook') await ctx.n8n.cli(['publish:workflow', `--id=${wf.id}`]);
	ctx.ids = Object.fromEntries(flows.map((wf) => [wf.name.replace('E2E agent: ', ''), wf.id]));
	// The scheduled-style run: a Manual Trigger workflow executed once from the CLI (before the server
	// starts: the CLI must not share the SQLite file with a running n8n).
	ctx.manualOutput = await ctx.n8n.cli(['execute', `--id=${ctx.ids.manual}`, '--rawOutput'], { stdoutOnly: true });
	await ctx.n8n.start();
}, { timeout: 10 * 60 * 1000 });

after(async () => {
	await ctx.n8n?.stop();
	await ctx.everything?.stop();
	await ctx.modern?.stop();
	await ctx.modernTasks?.stop();
	await ctx.llm?.close();
	await ctx.inbox?.close();
	removeRunDirUnlessKept(ctx, 'agent', 'n8n.log has the server log; screenshots/ the review pages chromium rendered');
});

const e2e = reportingTest((name) => `\n[e2e agent] ${name} failed; n8n log tail:\n${ctx.n8n?.logTail(60)}\n`);

require('./agentCases')(e2e, ctx, { plan, call, finalResults, MANUAL_PLAN });
require('./chatModelCases')(e2e, ctx, { plan, call, finalResults, reviewPage, decide, assertRecorded, counterLabels });
require('./approvalCases')(e2e, ctx, { plan, call, finalResults, reviewPage, decide, assertRecorded, fieldName, nextMessage, latestError, counterLabels, latestStatus, ownerSession, OWNER });
hardeningCases(e2e, ctx, { plan, call, finalResults, nextMessage, counterLabels, latestStatus, latestError });
inputCases(e2e, ctx, { plan, call, finalResults, reviewPage, assertRecorded, fieldName, inputFieldName, browserForm, submitForm, nextMessage, latestStatus, latestError, ownerSession, credentials });
ruleCases(e2e, ctx, { plan, call, finalResults, reviewPage, decide, assertRecorded, counterLabels, latestError });
grantCases(e2e, ctx, { plan, call, finalResults, reviewPage, assertRecorded, submitForm, decisionForm, grantsOnPage, revokeForm, counterLabels, latestError });
toolSearchCases(e2e, ctx, { plan, call, finalResults, reviewPage, decide, assertRecorded, nextMessage, latestStatus, latestError });
require('./browserCases')(e2e, ctx, { plan, call, finalResults, reviewPage, counterLabels, latestStatus });
taskWaitCases(e2e, ctx, { plan, call, finalResults, latestStatus, reviewPage, browserForm, submitForm, assertRecorded, inputFieldName, ownerSession });
require('./agentCases').credentialTests(e2e, ctx, { credentials, ownerSession });

e2e('stopping n8n and the servers leaves no process of this run behind', async () => {
	await ctx.n8n.stop();
	await ctx.everything.stop();
	await ctx.modern.stop();
	await ctx.modernTasks.stop();
	await assertNoLeftoverProcesses(ctx);
});

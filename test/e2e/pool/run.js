'use strict';
// End-to-end: warm MCP servers (issue 13) in a real n8n 2.41.1 (`node test/e2e/pool/run.js`, after
// `npm run build`). Credentials and workflows are saved through the REST calls n8n's editor makes
// (lib/editorSession.js), so a credential can be edited the way a person edits it. The server is
// test/fixtures/pool-server.js over stdio: it appends its pid to POOL_PID_FILE when it starts and
// names its pid in every echo, so the cases count exactly which processes n8n started.

const path = require('node:path');
const { before, after } = require('node:test');

const { reportingTest } = require('../lib/reportingTest');
const { killProcessGroupsOnExit, prepareRunDir, n8nForRunDir, ownerEditorSession, removeRunDirUnlessKept } = require('../lib/suiteRun');
const { REPO } = require('../lib/everything');
const { startScriptedLlm } = require('../lib/scriptedLlm');
const { startInbox } = require('../agent/inbox');
const { reviewedAgentWorkflow } = require('../tools/workflows');
const { callToolWorkflow } = require('./workflows');

const POOL_SERVER = path.join(REPO, 'test', 'fixtures', 'pool-server.js');
const COUNTER_SERVER = path.join(REPO, 'test', 'fixtures', 'counter-server.js');

const ctx = {};
killProcessGroupsOnExit();

/**
 * The pool-server credentials under test, one pid file each. `warm` keeps the server (default
 * settings), `idle` shuts it down after 0.1 minute unused, `cold` turns Keep Server Running off,
 * `shutdown` is warm when n8n is stopped.
 */
const SERVERS = {
	warm: {},
	idle: { idleShutdownMinutes: 0.1 },
	cold: { keepServerRunning: false },
	shutdown: {},
};

function credentialData(name, settings) {
	return {
		command: process.execPath,
		args: JSON.stringify([POOL_SERVER]),
		environment: `POOL_PID_FILE=${ctx.pidFile(name)}\n${ctx.runMarker}`,
		secretEnvironment: '',
		cwd: '',
		trustAnnotations: false,
		connectTimeout: 30000,
		requestTimeout: 60000,
		...settings,
	};
}

before(async () => {
	prepareRunDir(ctx, 'pool');
	ctx.pidFile = (name) => path.join(ctx.dir, `pids-${name}.txt`);
	// Our own listeners first (OS-assigned ports), then n8n's ports, so none can collide.
	ctx.llm = await startScriptedLlm();
	ctx.inbox = await startInbox();
	ctx.n8n = await n8nForRunDir(ctx);
	await ctx.n8n.start();
	ctx.editor = await ownerEditorSession(ctx.n8n);
	ctx.credentials = {};
	ctx.workflows = {};
	for (const [name, settings] of Object.entries(SERVERS)) {
		ctx.credentials[name] = await ctx.editor.createCredential({ name: `Pool server (${name})`, type: 'mcpServerStdioApi', data: credentialData(name, settings) });
		ctx.workflows[name] = await ctx.editor.createActiveWorkflow(callToolWorkflow({ name, credential: ctx.credentials[name] }));
	}
	// The Agent over a warm counter server (its file shows which calls ran; a description file
	// changes its tool's definition while the server keeps running).
	ctx.counterFile = path.join(ctx.dir, 'counter.txt');
	ctx.counterDescriptionFile = path.join(ctx.dir, 'counter-description.txt');
	const anthropic = await ctx.editor.createCredential({ name: 'Fake Anthropic', type: 'mcpAgentAnthropicApi', data: { apiKey: 'sk-ant-e2e-fake', baseUrl: ctx.llm.anthropicBaseUrl } });
	const counter = await ctx.editor.createCredential({
		name: 'Counter (warm)',
		type: 'mcpServerStdioApi',
		data: { ...credentialData('agent', {}), args: JSON.stringify([COUNTER_SERVER]), environment: `COUNTER_FILE=${ctx.counterFile}\nCOUNTER_DESCRIPTION_FILE=${ctx.counterDescriptionFile}\n${ctx.runMarker}` },
	});
	const ref = ({ id, name }) => ({ id, name });
	ctx.workflows.agent = await ctx.editor.createActiveWorkflow(
		reviewedAgentWorkflow({ name: 'agent', path: 'pool-agent', inboxUrl: ctx.inbox.url, credentials: { anthropic: ref(anthropic) }, serverName: 'Counter', serverCredential: ref(counter) }),
	);
}, { timeout: 10 * 60 * 1000 });

after(async () => {
	await ctx.n8n?.stop();
	await ctx.llm?.close();
	await ctx.inbox?.close();
	removeRunDirUnlessKept(ctx, 'pool', 'n8n.log has the server log, pids-*.txt the server processes started');
});

const e2e = reportingTest((name) => `\n[e2e pool] ${name} failed; n8n log tail:\n${ctx.n8n?.logTail(60)}\n`);

require('./cases')(e2e, ctx);

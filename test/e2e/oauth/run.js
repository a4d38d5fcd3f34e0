'use strict';
// End-to-end: OAuth for remote MCP servers (issue 12) in a real n8n 2.41.1
// (`node test/e2e/oauth/run.js`, after `npm run build`). Everything goes through the REST calls the
// editor makes: owner setup and login, saving credentials, "Connect my account", the credential
// Test button, saving and publishing workflows. The authorization server and the protected MCP
// server are test/fixtures/oauth-server.js, run in this process (lib/oauthFixture.js records every
// token and client secret it hands out, so the cases can prove none of them leaks).

const { before, after } = require('node:test');

const { reportingTest } = require('../lib/reportingTest');
const { killProcessGroupsOnExit, prepareRunDir, n8nForRunDir, ownerEditorSession, assertNoLeftoverProcesses, removeRunDirUnlessKept } = require('../lib/suiteRun');
const { startRecordedOAuthFixture } = require('../lib/oauthFixture');

const ctx = {};
killProcessGroupsOnExit();

before(async () => {
	prepareRunDir(ctx, 'oauth');
	// The fixture first (it takes an OS-assigned port), then n8n's ports, so none can collide.
	ctx.fixture = await startRecordedOAuthFixture();
	ctx.n8n = await n8nForRunDir(ctx);
	await ctx.n8n.start();
}, { timeout: 10 * 60 * 1000 });

after(async () => {
	await ctx.n8n?.stop();
	await ctx.fixture?.close();
	removeRunDirUnlessKept(ctx, 'oauth', 'n8n.log has the server log, n8n/.n8n/database.sqlite the executions');
});

const e2e = reportingTest((name) => `\n[e2e oauth] ${name} failed; n8n log tail:\n${ctx.n8n?.logTail(60)}\n`);

/** The editor's session as n8n's owner, set up once per run. */
ctx.editor = async () => {
	ctx.session ??= ownerEditorSession(ctx.n8n);
	return ctx.session;
};

require('./cases')(e2e, ctx);

e2e('stopping n8n leaves no process of this run behind', async () => {
	await ctx.n8n.stop();
	await assertNoLeftoverProcesses(ctx);
});

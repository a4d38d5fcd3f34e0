'use strict';
// End-to-end: OAuth for remote MCP servers (issue 12) in a real n8n 2.41.1
// (`node test/e2e/oauth/run.js`, after `npm run build`). Everything goes through the REST calls the
// editor makes: owner setup and login, saving credentials, "Connect my account", the credential
// Test button, saving and publishing workflows. The authorization server and the protected MCP
// server are test/fixtures/oauth-server.js, run in this process (lib/oauthFixture.js records every
// token and client secret it hands out, so the cases can prove none of them leaks).

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { before, after } = require('node:test');
const { spawnSync } = require('node:child_process');

const { N8n } = require('../lib/n8n');
const { resolveN8n } = require('../lib/environment');
const { reportingTest } = require('../lib/reportingTest');
const { freePorts } = require('../lib/net');
const processes = require('../lib/processes');
const { REPO } = require('../lib/everything');
const { startRecordedOAuthFixture } = require('../lib/oauthFixture');
const { EditorSession } = require('../lib/editorSession');

const { node24Bin: NODE24_BIN, n8nBin: N8N_BIN } = resolveN8n();

const ctx = {};
process.on('exit', () => processes.killAllGroupsNow());
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => (processes.killAllGroupsNow(), process.exit(130)));

before(async () => {
	ctx.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-agent-e2e-oauth-'));
	ctx.userFolder = path.join(ctx.dir, 'n8n');
	ctx.runMarker = `MCP_AGENT_E2E_OAUTH_RUN=${path.basename(ctx.dir)}`;
	const install = spawnSync('bash', [path.join(REPO, 'scripts', 'install-package-into-n8n.sh'), ctx.userFolder], { encoding: 'utf8', env: { ...process.env, MCP_AGENT_NODE24_BIN: NODE24_BIN } });
	if (install.status !== 0) throw new Error(`install failed: ${install.stderr}`);
	// The fixture first (it takes an OS-assigned port), then n8n's ports, so none can collide.
	ctx.fixture = await startRecordedOAuthFixture();
	const [port, brokerPort] = await freePorts(2);
	ctx.n8n = new N8n({ node24Bin: NODE24_BIN, n8nBin: N8N_BIN, userFolder: ctx.userFolder, port, brokerPort, logFile: path.join(ctx.dir, 'n8n.log'), runMarker: ctx.runMarker });
	await ctx.n8n.start();
}, { timeout: 10 * 60 * 1000 });

after(async () => {
	await ctx.n8n?.stop();
	await ctx.fixture?.close();
	if (!process.exitCode && process.env.MCP_AGENT_E2E_KEEP !== '1') fs.rmSync(ctx.dir, { recursive: true, force: true });
	else process.stderr.write(`[e2e oauth] kept ${ctx.dir} (n8n.log has the server log, n8n/.n8n/database.sqlite the executions)\n`);
});

const e2e = reportingTest((name) => `\n[e2e oauth] ${name} failed; n8n log tail:\n${ctx.n8n?.logTail(60)}\n`);

/** The editor's session as n8n's owner, set up once per run. */
ctx.editor = async () => {
	ctx.session ??= EditorSession.asNewOwner(ctx.n8n.baseUrl, { email: 'owner@example.com', firstName: 'Olga', lastName: 'Owner', password: 'E2e-Passw0rd!' });
	return ctx.session;
};

require('./cases')(e2e, ctx);

e2e('stopping n8n leaves no process of this run behind', async () => {
	await ctx.n8n.stop();
	const criteria = { pgids: new Set(processes.groups), runDir: ctx.dir, envMarker: ctx.runMarker, excludePids: [] };
	let left = processes.findLeftovers(criteria);
	for (let i = 0; left.length && i < 20; i++) {
		await processes.sleep(250);
		left = processes.findLeftovers(criteria);
	}
	assert.deepEqual(left, [], `left running: ${JSON.stringify(left)}`);
});

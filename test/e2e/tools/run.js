'use strict';
// End-to-end: the MCP Agent with n8n's own tool nodes, chat memory, streaming and visible tool
// calls (issue 15) in a real n8n 2.41.1 (`node test/e2e/tools/run.js`, after `npm run build`).
// Credentials and workflows are saved through the editor's REST API (lib/editorSession.js). The
// model is a scripted fake of the Anthropic Messages API that also streams (./streamingLlm.js); the
// tools are server-everything and the counter server over stdio, a Code Tool and a Call n8n
// Workflow Tool; MCP Approval's review page decides.

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
const { EVERYTHING_ENTRY, REPO } = require('../lib/everything');
const { EditorSession } = require('../lib/editorSession');
const { startInbox } = require('../agent/inbox');
const { startStreamingLlm } = require('./streamingLlm');
const { mixedWorkflow, memoryWorkflow, streamWorkflow } = require('./workflows');

const { node24Bin: NODE24_BIN, n8nBin: N8N_BIN } = resolveN8n();
const COUNTER_SERVER = path.join(REPO, 'test', 'fixtures', 'counter-server.js');

const ctx = {};
process.on('exit', () => processes.killAllGroupsNow());
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => (processes.killAllGroupsNow(), process.exit(130)));

function stdioData(args, environment = '') {
	return { command: process.execPath, args: JSON.stringify(args), environment: `${environment}\n${ctx.runMarker}`, secretEnvironment: '', cwd: '', trustAnnotations: false, connectTimeout: 30000, requestTimeout: 60000 };
}

before(async () => {
	ctx.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-agent-e2e-tools-'));
	ctx.userFolder = path.join(ctx.dir, 'n8n');
	ctx.counterFile = path.join(ctx.dir, 'counter.txt');
	ctx.runMarker = `MCP_AGENT_E2E_TOOLS_RUN=${path.basename(ctx.dir)}`;
	const install = spawnSync('bash', [path.join(REPO, 'scripts', 'install-package-into-n8n.sh'), ctx.userFolder], { encoding: 'utf8', env: { ...process.env, MCP_AGENT_NODE24_BIN: NODE24_BIN } });
	if (install.status !== 0) throw new Error(`install failed: ${install.stderr}`);
	// Our own listeners first (OS-assigned ports), then n8n's ports, so none can collide.
	ctx.llm = await startStreamingLlm();
	ctx.inbox = await startInbox();
	const [port, brokerPort] = await freePorts(2);
	ctx.n8n = new N8n({ node24Bin: NODE24_BIN, n8nBin: N8N_BIN, userFolder: ctx.userFolder, port, brokerPort, logFile: path.join(ctx.dir, 'n8n.log'), runMarker: ctx.runMarker });
	await ctx.n8n.start();
	ctx.editor = await EditorSession.asNewOwner(ctx.n8n.baseUrl, { email: 'owner@example.com', firstName: 'Olga', lastName: 'Owner', password: 'E2e-Passw0rd!' });
	const ref = ({ id, name }) => ({ id, name });
	const credentials = {
		anthropic: ref(await ctx.editor.createCredential({ name: 'Fake Anthropic', type: 'mcpAgentAnthropicApi', data: { apiKey: 'sk-ant-e2e-fake', baseUrl: ctx.llm.baseUrl } })),
		everything: ref(await ctx.editor.createCredential({ name: 'Everything (stdio)', type: 'mcpServerStdioApi', data: stdioData([EVERYTHING_ENTRY, 'stdio']) })),
		brokenCounter: ref(await ctx.editor.createCredential({ name: 'Counter writing into a directory', type: 'mcpServerStdioApi', data: stdioData([COUNTER_SERVER], `COUNTER_FILE=${ctx.dir}`) })),
		counter: ref(await ctx.editor.createCredential({ name: 'Counter (stdio)', type: 'mcpServerStdioApi', data: stdioData([COUNTER_SERVER], `COUNTER_FILE=${ctx.counterFile}`) })),
	};
	ctx.workflows = {};
	for (const [name, build] of Object.entries({ mixed: mixedWorkflow, memory: memoryWorkflow, stream: streamWorkflow })) {
		ctx.workflows[name] = await ctx.editor.createActiveWorkflow(build({ inboxUrl: ctx.inbox.url, credentials }));
	}
}, { timeout: 10 * 60 * 1000 });

after(async () => {
	await ctx.n8n?.stop();
	await ctx.llm?.close();
	await ctx.inbox?.close();
	if (!process.exitCode && process.env.MCP_AGENT_E2E_KEEP !== '1') fs.rmSync(ctx.dir, { recursive: true, force: true });
	else process.stderr.write(`[e2e tools] kept ${ctx.dir} (n8n.log has the server log, n8n/.n8n/database.sqlite the executions)\n`);
});

const e2e = reportingTest((name) => `\n[e2e tools] ${name} failed; n8n log tail:\n${ctx.n8n?.logTail(60)}\n`);

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

'use strict';
// End-to-end: the MCP Agent with n8n's own tool nodes, chat memory, streaming and visible tool
// calls (issue 15) in a real n8n 2.41.1 (`node test/e2e/tools/run.js`, after `npm run build`).
// Credentials and workflows are saved through the editor's REST API (lib/editorSession.js). The
// model is a scripted fake of the Anthropic Messages API that also streams (./streamingLlm.js); the
// tools are server-everything and the counter server over stdio, a Code Tool and a Call n8n
// Workflow Tool; MCP Approval's review page decides.

const path = require('node:path');
const { before, after } = require('node:test');

const { reportingTest } = require('../lib/reportingTest');
const { killProcessGroupsOnExit, prepareRunDir, n8nForRunDir, ownerEditorSession, assertNoLeftoverProcesses, removeRunDirUnlessKept } = require('../lib/suiteRun');
const { EVERYTHING_ENTRY, REPO } = require('../lib/everything');
const { startInbox } = require('../agent/inbox');
const { startStreamingLlm } = require('./streamingLlm');
const { mixedWorkflow, memoryWorkflow, streamWorkflow } = require('./workflows');

const COUNTER_SERVER = path.join(REPO, 'test', 'fixtures', 'counter-server.js');

const ctx = {};
killProcessGroupsOnExit();

function stdioData(args, environment = '') {
	return { command: process.execPath, args: JSON.stringify(args), environment: `${environment}\n${ctx.runMarker}`, secretEnvironment: '', cwd: '', trustAnnotations: false, connectTimeout: 30000, requestTimeout: 60000 };
}

before(async () => {
	prepareRunDir(ctx, 'tools');
	ctx.counterFile = path.join(ctx.dir, 'counter.txt');
	// Our own listeners first (OS-assigned ports), then n8n's ports, so none can collide.
	ctx.llm = await startStreamingLlm();
	ctx.inbox = await startInbox();
	ctx.n8n = await n8nForRunDir(ctx);
	await ctx.n8n.start();
	ctx.editor = await ownerEditorSession(ctx.n8n);
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
	removeRunDirUnlessKept(ctx, 'tools', 'n8n.log has the server log, n8n/.n8n/database.sqlite the executions');
});

const e2e = reportingTest((name) => `\n[e2e tools] ${name} failed; n8n log tail:\n${ctx.n8n?.logTail(60)}\n`);

require('./cases')(e2e, ctx);

e2e('stopping n8n leaves no process of this run behind', async () => {
	await ctx.n8n.stop();
	await assertNoLeftoverProcesses(ctx);
});

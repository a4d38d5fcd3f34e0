'use strict';
// The setup every end-to-end suite (agent, oauth, pool, tools) shares: a run directory with the
// package installed into a fresh n8n user folder, n8n on free ports, its owner account, the
// leftover-process check at the end, and cleaning up the run directory.

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const { N8n } = require('./n8n');
const { resolveN8n } = require('./environment');
const { freePorts } = require('./net');
const processes = require('./processes');
const { REPO } = require('./everything');
const { EditorSession } = require('./editorSession');

let installed;
/** Node 24 and n8n from scripts/ensure-n8n.sh, resolved once per process. */
function n8nInstall() {
	installed ??= resolveN8n();
	return installed;
}

/** The owner account each suite's n8n is set up with. */
const OWNER = { email: 'owner@example.com', firstName: 'Olga', lastName: 'Owner', password: 'E2e-Passw0rd!' };

/** Kill every process group this run started when the process exits or is interrupted. */
function killProcessGroupsOnExit() {
	process.on('exit', () => processes.killAllGroupsNow());
	for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => (processes.killAllGroupsNow(), process.exit(130)));
}

/**
 * Creates the run directory (mcp-agent-e2e-<suite>-*) and installs the built package into a fresh
 * n8n user folder in it; sets ctx.dir, ctx.userFolder and ctx.runMarker (MCP_AGENT_E2E_<SUITE>_RUN).
 */
function prepareRunDir(ctx, suite) {
	const { node24Bin } = n8nInstall();
	ctx.dir = fs.mkdtempSync(path.join(os.tmpdir(), `mcp-agent-e2e-${suite}-`));
	ctx.userFolder = path.join(ctx.dir, 'n8n');
	ctx.runMarker = `MCP_AGENT_E2E_${suite.toUpperCase()}_RUN=${path.basename(ctx.dir)}`;
	const install = spawnSync('bash', [path.join(REPO, 'scripts', 'install-package-into-n8n.sh'), ctx.userFolder], { encoding: 'utf8', env: { ...process.env, MCP_AGENT_NODE24_BIN: node24Bin } });
	if (install.status !== 0) throw new Error(`install failed: ${install.stderr}`);
}

/**
 * An N8n for the run directory on two free ports (take them after the suite's own listeners, so
 * none can collide); not started yet.
 */
async function n8nForRunDir(ctx) {
	const { node24Bin, n8nBin } = n8nInstall();
	const [port, brokerPort] = await freePorts(2);
	return new N8n({ node24Bin, n8nBin, userFolder: ctx.userFolder, port, brokerPort, logFile: path.join(ctx.dir, 'n8n.log'), runMarker: ctx.runMarker });
}

/** Sets up n8n's owner account and logs in as it, the way the editor does. */
function ownerEditorSession(n8n) {
	return EditorSession.asNewOwner(n8n.baseUrl, OWNER);
}

/** Asserts that no process of this run (its process groups, run directory or marker) is left, waiting up to 5 s. */
async function assertNoLeftoverProcesses(ctx) {
	const criteria = { pgids: new Set(processes.groups), runDir: ctx.dir, envMarker: ctx.runMarker, excludePids: [] };
	let left = processes.findLeftovers(criteria);
	for (let i = 0; left.length && i < 20; i++) {
		await processes.sleep(250);
		left = processes.findLeftovers(criteria);
	}
	assert.deepEqual(left, [], `left running: ${JSON.stringify(left)}`);
}

/** Removes the run directory after a passing run, unless MCP_AGENT_E2E_KEEP=1; otherwise says where it is. */
function removeRunDirUnlessKept(ctx, suite, contents) {
	if (!process.exitCode && process.env.MCP_AGENT_E2E_KEEP !== '1') fs.rmSync(ctx.dir, { recursive: true, force: true });
	else process.stderr.write(`[e2e ${suite}] kept ${ctx.dir} (${contents})\n`);
}

module.exports = { OWNER, n8nInstall, killProcessGroupsOnExit, prepareRunDir, n8nForRunDir, ownerEditorSession, assertNoLeftoverProcesses, removeRunDirUnlessKept };

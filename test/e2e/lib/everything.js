'use strict';
// @modelcontextprotocol/server-everything, the reference MCP test server, from the repo's devDeps.

const fs = require('node:fs');
const path = require('node:path');
const { spawnGroup, stopGroup } = require('./processes');
const { canConnect, waitFor } = require('./net');

const REPO = path.resolve(__dirname, '..', '..', '..');
const EVERYTHING_ENTRY = path.join(REPO, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

function assertInstalled() {
	if (!fs.existsSync(EVERYTHING_ENTRY)) {
		throw new Error(`${EVERYTHING_ENTRY} is missing: run 'npm ci' first`);
	}
}

/** Serve server-everything over Streamable HTTP at http://127.0.0.1:<port>/mcp. */
async function startEverythingHttp({ port, logFile, env = {} }) {
	assertInstalled();
	const fd = fs.openSync(logFile, 'a');
	const child = spawnGroup(process.execPath, [EVERYTHING_ENTRY, 'streamableHttp'], {
		env: { ...process.env, ...env, PORT: String(port) },
		stdio: ['ignore', fd, fd],
	});
	fs.closeSync(fd);
	let exited = null;
	child.exited.then((result) => (exited = result));
	await waitFor(`server-everything on port ${port}`, () => canConnect(port), {
		timeoutMs: 30000,
		failIf: () => exited && `exited early (code ${exited.code}); see ${logFile}`,
	});
	return {
		url: `http://127.0.0.1:${port}/mcp`,
		pid: child.pid,
		stop: () => stopGroup(child.pid, { graceMs: 5000 }),
	};
}

module.exports = { EVERYTHING_ENTRY, REPO, startEverythingHttp, assertInstalled };

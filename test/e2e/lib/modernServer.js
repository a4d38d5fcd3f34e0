'use strict';
// The MCP 2026-07-28 test fixture (test/fixtures/modern-server.js, on @modelcontextprotocol/server)
// served over Streamable HTTP, for the end-to-end runs of issue 11.

const fs = require('node:fs');
const path = require('node:path');
const { spawnGroup, stopGroup } = require('./processes');
const { canConnect, waitFor } = require('./net');
const { REPO } = require('./everything');

const MODERN_SERVER = path.join(REPO, 'test', 'fixtures', 'modern-server.js');

/** Serve the fixture at http://127.0.0.1:<port>/mcp; env carries the run marker so leftovers are found. */
async function startModernHttp({ port, logFile, env = {} }) {
	const fd = fs.openSync(logFile, 'a');
	const child = spawnGroup(process.execPath, [MODERN_SERVER, 'http'], {
		env: { ...process.env, ...env, PORT: String(port) },
		stdio: ['ignore', fd, fd],
	});
	fs.closeSync(fd);
	let exited = null;
	child.exited.then((result) => (exited = result));
	await waitFor(`the 2026-07-28 fixture on port ${port}`, () => canConnect(port), {
		timeoutMs: 30000,
		failIf: () => exited && `exited early (code ${exited.code}); see ${logFile}`,
	});
	return {
		url: `http://127.0.0.1:${port}/mcp`,
		pid: child.pid,
		stop: () => stopGroup(child.pid, { graceMs: 5000 }),
	};
}

module.exports = { MODERN_SERVER, startModernHttp };

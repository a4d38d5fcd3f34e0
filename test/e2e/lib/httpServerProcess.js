'use strict';
// Runs an MCP server script over Streamable HTTP in its own process group and waits until its
// port accepts connections (server-everything, the 2026-07-28 fixture).

const fs = require('node:fs');
const { spawnGroup, stopGroup } = require('./processes');
const { canConnect, waitFor } = require('./net');

/** Serve `node <entry> <transportArg>` at http://127.0.0.1:<port>/mcp; env carries the run marker so leftovers are found. */
async function startHttpServerProcess({ name, entry, transportArg, port, logFile, env = {} }) {
	const fd = fs.openSync(logFile, 'a');
	const child = spawnGroup(process.execPath, [entry, transportArg], {
		env: { ...process.env, ...env, PORT: String(port) },
		stdio: ['ignore', fd, fd],
	});
	fs.closeSync(fd);
	let exited = null;
	child.exited.then((result) => (exited = result));
	await waitFor(`${name} on port ${port}`, () => canConnect(port), {
		timeoutMs: 30000,
		failIf: () => exited && `exited early (code ${exited.code}); see ${logFile}`,
	});
	return {
		url: `http://127.0.0.1:${port}/mcp`,
		pid: child.pid,
		stop: () => stopGroup(child.pid, { graceMs: 5000 }),
	};
}

module.exports = { startHttpServerProcess };

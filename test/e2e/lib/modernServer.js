'use strict';
// The MCP 2026-07-28 test fixture (test/fixtures/modern-server.js, on @modelcontextprotocol/server)
// served over Streamable HTTP, for the end-to-end runs of issue 11.

const path = require('node:path');
const { startHttpServerProcess } = require('./httpServerProcess');
const { REPO } = require('./everything');

const MODERN_SERVER = path.join(REPO, 'test', 'fixtures', 'modern-server.js');
const MODERN_TASK_SERVER = path.join(REPO, 'test', 'fixtures', 'modern-task-server.js');

/** Serve the fixture at http://127.0.0.1:<port>/mcp; env carries the run marker so leftovers are found. */
function startModernHttp({ port, logFile, env = {} }) {
	return startHttpServerProcess({ name: 'the 2026-07-28 fixture', entry: MODERN_SERVER, transportArg: 'http', port, logFile, env });
}

/** The tasks-extension fixture over HTTP; its log (logFile) says which task results it handed out. */
async function startModernTasksHttp({ port, logFile, env = {} }) {
	const server = await startHttpServerProcess({ name: 'the MCP tasks fixture', entry: MODERN_TASK_SERVER, transportArg: 'http', port, logFile, env });
	return { ...server, logFile };
}

module.exports = { MODERN_SERVER, startModernHttp, startModernTasksHttp };

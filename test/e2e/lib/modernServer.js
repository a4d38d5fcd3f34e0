'use strict';
// The MCP 2026-07-28 test fixture (test/fixtures/modern-server.js, on @modelcontextprotocol/server)
// served over Streamable HTTP, for the end-to-end runs of issue 11.

const path = require('node:path');
const { startHttpServerProcess } = require('./httpServerProcess');
const { REPO } = require('./everything');

const MODERN_SERVER = path.join(REPO, 'test', 'fixtures', 'modern-server.js');

/** Serve the fixture at http://127.0.0.1:<port>/mcp; env carries the run marker so leftovers are found. */
function startModernHttp({ port, logFile, env = {} }) {
	return startHttpServerProcess({ name: 'the 2026-07-28 fixture', entry: MODERN_SERVER, transportArg: 'http', port, logFile, env });
}

module.exports = { MODERN_SERVER, startModernHttp };

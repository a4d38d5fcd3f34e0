'use strict';
// @modelcontextprotocol/server-everything, the reference MCP test server, from the repo's devDeps.

const fs = require('node:fs');
const path = require('node:path');
const { startHttpServerProcess } = require('./httpServerProcess');

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
	return startHttpServerProcess({ name: 'server-everything', entry: EVERYTHING_ENTRY, transportArg: 'streamableHttp', port, logFile, env });
}

module.exports = { EVERYTHING_ENTRY, REPO, startEverythingHttp, assertInstalled };

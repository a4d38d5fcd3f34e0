'use strict';
// Credentials are generated per run (ports and paths change); workflows are static JSON files in
// ../workflows that refer to the credentials by the fixed ids below.

const fs = require('node:fs');
const path = require('node:path');
const { EVERYTHING_ENTRY } = require('./everything');
const { FILESYSTEM_ENTRY, PDF_ENTRY } = require('./rootsFixture');

const WORKFLOWS_DIR = path.resolve(__dirname, '..', 'workflows');
/** Tools whose arguments are Pydantic models in `$defs`, as Python servers describe them (issue 26). */
const PYDANTIC_SERVER = path.resolve(__dirname, '..', '..', 'fixtures', 'pydantic-server.js');

const CREDENTIAL_IDS = {
	stdioEverything: 'e2eStdioEverything01',
	httpEverything: 'e2eHttpEverything001',
	stdioDead: 'e2eStdioDeadServer01',
	httpDead: 'e2eHttpDeadServer001',
	stdioPydantic: 'e2eStdioPydantic0001',
	stdioPdf: 'e2eStdioPdfServer001',
	stdioFsRoots: 'e2eStdioFsRoots00001',
};

function httpCredential(id, name, url, overrides = {}) {
	return {
		id,
		name,
		type: 'mcpServerHttpApi',
		data: {
			url,
			transport: 'streamableHttp',
			authentication: 'none',
			token: '',
			headers: '',
			trustAnnotations: false,
			connectTimeout: 30000,
			requestTimeout: 60000,
			...overrides,
		},
	};
}

function stdioCredential(id, name, data) {
	return {
		id,
		name,
		type: 'mcpServerStdioApi',
		data: { command: '', args: '', environment: '', secretEnvironment: '', cwd: '', ...data },
	};
}

/**
 * @param everythingUrl  Streamable HTTP endpoint of the server-everything started for this run
 * @param deadPort       a loopback port nobody listens on
 * @param runMarker      "NAME=value" put into the stdio servers' environment so leftovers can be found
 * @param roots          the directories of lib/rootsFixture.js (absent: no roots credentials, as in bench/)
 */
function buildCredentials({ everythingUrl, deadPort, runMarker, roots }) {
	return [
		stdioCredential(CREDENTIAL_IDS.stdioEverything, 'E2E everything (stdio)', {
			command: 'node',
			// JSON-array form of args.
			args: JSON.stringify([EVERYTHING_ENTRY, 'stdio']),
			environment: runMarker,
		}),
		httpCredential(CREDENTIAL_IDS.httpEverything, 'E2E everything (HTTP)', everythingUrl),
		stdioCredential(CREDENTIAL_IDS.stdioPydantic, 'E2E Pydantic schemas (stdio)', {
			command: 'node',
			args: JSON.stringify([PYDANTIC_SERVER, 'stdio']),
			environment: runMarker,
		}),
		stdioCredential(CREDENTIAL_IDS.stdioDead, 'E2E dead server (stdio)', {
			command: 'node',
			// Shell-style form of args.
			args: '-e "process.exit(3)"',
			environment: runMarker,
		}),
		httpCredential(CREDENTIAL_IDS.httpDead, 'E2E dead server (HTTP)', `http://127.0.0.1:${deadPort}/mcp`, {
			connectTimeout: 5000,
			requestTimeout: 5000,
		}),
		...(roots ? rootsCredentials(roots, runMarker) : []),
	];
}

/** server-pdf and server-filesystem for the roots cases (issue 26, point 1). */
function rootsCredentials(roots, runMarker) {
	return [
		// Its directory on the command line, no Roots: it must keep that directory.
		stdioCredential(CREDENTIAL_IDS.stdioPdf, 'E2E server-pdf (stdio, directory argument)', {
			command: 'node',
			args: JSON.stringify([PDF_ENTRY, '--stdio', roots.pdfDir]),
			environment: runMarker,
		}),
		// No directory on the command line: its only directory comes from the credential's Roots.
		stdioCredential(CREDENTIAL_IDS.stdioFsRoots, 'E2E server-filesystem (stdio, Roots)', {
			command: 'node',
			args: JSON.stringify([FILESYSTEM_ENTRY]),
			environment: runMarker,
			roots: `${roots.filesDir} | Shared files`,
		}),
	];
}

function loadWorkflows() {
	const files = fs
		.readdirSync(WORKFLOWS_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort();
	const workflows = files.map((f) => {
		const wf = JSON.parse(fs.readFileSync(path.join(WORKFLOWS_DIR, f), 'utf8'));
		if (!wf.id) throw new Error(`${f}: workflow needs a fixed "id"`);
		return wf;
	});
	const ids = new Set(workflows.map((w) => w.id));
	if (ids.size !== workflows.length) throw new Error('duplicate workflow ids in test/e2e/workflows');
	return workflows;
}

module.exports = { CREDENTIAL_IDS, buildCredentials, loadWorkflows, WORKFLOWS_DIR };

'use strict';
// End-to-end tests in a real n8n 2.41.1 (`npm run test:e2e`, after `npm run build`), or 1.123.81 with
// MCP_AGENT_N8N_VERSION=1.123.81 (lib/n8nVersion.js has what differs).
//
// One n8n serves all cases: the packed package is installed into a temp user folder as the
// Community Nodes installer would, credentials (generated: ports and paths change per run) and
// test/e2e/workflows/*.json are imported and published, n8n starts, and each case triggers a
// webhook whose response carries the last node's items. Runs on Node 20; n8n itself runs on the
// Node 24 from scripts/ensure-n8n.sh.
//
// Environment: MCP_AGENT_E2E_KEEP=1 keeps the temp folder (it is kept anyway on failure),
// MCP_AGENT_E2E_LOG_LEVEL sets n8n's log level (default info), MCP_AGENT_CACHE as in ensure-n8n.sh.

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test, before, after } = require('node:test');

const { E2eEnvironment } = require('./lib/environment');
const { announcedSkip } = require('./lib/reportingTest');

const env = new E2eEnvironment();

function stopEverythingNow(signal) {
	process.stderr.write(`\n[e2e] ${signal}: stopping every process this run started\n`);
	env.killEverythingNow();
	if (env.runDir) process.stderr.write(`[e2e] left ${env.runDir} for inspection\n`);
	process.exit(130);
}
process.once('SIGINT', stopEverythingNow);
process.once('SIGTERM', stopEverythingNow);
process.on('exit', () => env.killEverythingNow());

/** A test case that prints n8n's log tail when it fails. */
function e2eTest(name, fn, { timeout = 180000 } = {}) {
	const skip = announcedSkip(name);
	if (skip) return test(name, { skip }, () => {});
	return test(name, { timeout }, async (t) => {
		try {
			await fn(t);
		} catch (error) {
			env.reportFailure(name);
			throw error;
		}
	});
}

// Installing n8n into an empty cache (scripts/ensure-n8n.sh) can take several minutes.
before(
	async () => {
		try {
			await env.setup();
		} catch (error) {
			env.reportFailure('setup');
			throw error;
		}
	},
	{ timeout: 20 * 60 * 1000 },
);

// Every cases/*.js registers its tests, in file-name order; they run one after another.
for (const file of fs.readdirSync(path.join(__dirname, 'cases')).filter((f) => f.endsWith('.js')).sort()) {
	require(path.join(__dirname, 'cases', file))(e2eTest, env);
}

e2eTest('stopping n8n and server-everything leaves no process of this run behind', async () => {
	await env.stop();
	const left = await env.leftovers();
	if (left.length) {
		env.killLeftovers(left);
		assert.fail(`processes left behind:\n${left.map((p) => `  pid ${p.pid} (group ${p.pgid}): ${p.cmdline}`).join('\n')}`);
	}
});

after(async () => {
	await env.stop();
	env.stopReaper();
	env.cleanupFiles();
});

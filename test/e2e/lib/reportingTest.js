'use strict';
// The e2e case wrapper of the agent suites: a failing case marks the run failed (so the suite keeps
// its temp folder) and prints what shows why, such as n8n's log tail. A case that cannot apply to the
// n8n version under test (lib/n8nVersionSkips.js) is skipped with its reason on stderr and in the TAP.

const { test } = require('node:test');
const { requestedN8nVersion } = require('./n8nVersion');
const { skipReasonFor } = require('./n8nVersionSkips');

/** The skip reason of case `name` on the n8n under test (MCP_AGENT_N8N_VERSION), printed; or null. */
function announcedSkip(name, version = requestedN8nVersion()) {
	const reason = skipReasonFor(version, name);
	if (reason) process.stderr.write(`[e2e] skipped "${name}": ${reason}\n`);
	return reason;
}

/** @param describeFailure (name) => text written to stderr when case `name` fails */
function reportingTest(describeFailure) {
	return (name, fn, timeout = 240000) => {
		const skip = announcedSkip(name);
		if (skip) return test(name, { skip }, () => {});
		return test(name, { timeout }, async () => {
			try {
				await fn();
			} catch (error) {
				process.exitCode = 1;
				process.stderr.write(describeFailure(name));
				throw error;
			}
		});
	};
}

module.exports = { reportingTest, announcedSkip };

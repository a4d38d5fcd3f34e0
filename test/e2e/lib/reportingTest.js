'use strict';
// The e2e case wrapper of the agent suites: a failing case marks the run failed (so the suite keeps
// its temp folder) and prints what shows why, such as n8n's log tail.

const { test } = require('node:test');

/** @param describeFailure (name) => text written to stderr when case `name` fails */
function reportingTest(describeFailure) {
	return (name, fn, timeout = 240000) =>
		test(name, { timeout }, async () => {
			try {
				await fn();
			} catch (error) {
				process.exitCode = 1;
				process.stderr.write(describeFailure(name));
				throw error;
			}
		});
}

module.exports = { reportingTest };

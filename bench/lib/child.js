'use strict';
// Runs a benchmark script in its own Node process (its own process group, so stopping it stops
// whatever it spawned) and returns the JSON document it printed last.

const path = require('node:path');
const { spawnGroup, stopGroup } = require('../../test/e2e/lib/processes');
const { BENCH } = require('./common');

/**
 * @param node      the Node binary (the benchmarks run on n8n's Node 24)
 * @param script    file name under bench/scripts
 * @param input     JSON-serializable parameters, passed as argv[2]
 */
async function runScript(node, script, input, { env = {}, timeoutMs = 10 * 60_000, nodeArgs = ['--expose-gc'] } = {}) {
	const child = spawnGroup(node, [...nodeArgs, path.join(BENCH, 'scripts', script), JSON.stringify(input)], {
		cwd: BENCH,
		env: { ...process.env, ...env },
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	let stdout = '';
	child.stdout.setEncoding('utf8');
	child.stdout.on('data', (chunk) => (stdout += chunk));
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		stopGroup(child.pid, { graceMs: 2000 });
	}, timeoutMs);
	const { code, signal, error } = await child.exited;
	clearTimeout(timer);
	// Whatever the script started must end with it.
	await stopGroup(child.pid, { graceMs: 2000 });
	if (error || code !== 0) {
		throw new Error(`bench/scripts/${script} failed (${timedOut ? 'timed out' : error ? error.message : `exit ${code}${signal ? `, ${signal}` : ''}`})\n${stdout.slice(-2000)}`);
	}
	const last = stdout.trim().split('\n').pop();
	try {
		return JSON.parse(last);
	} catch {
		throw new Error(`bench/scripts/${script} printed no JSON result:\n${stdout.slice(-2000)}`);
	}
}

module.exports = { runScript };
